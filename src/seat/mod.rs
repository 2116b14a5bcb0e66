//! Seats at the table: who is asking, and what they may know and do.
//!
//! Pub Battles is a game of hidden information: "Las unidades normalmente se colocan en
//! posición vertical con sus pegatinas mirando hacia su jugador propietario… ocultas al
//! enemigo hasta que puedan ser localizadas" [3.2]. A phone sits at one [`Seat`]: a
//! side, the umpire, or a spectator. The server builds every answer for the seat that
//! asked ([`view`]), as boardgame.io's `playerView` does; the page never receives a
//! secret it would have to hide.
//!
//! A seat is claimed with a secret token ([`Seats`]), made when the game starts and
//! stored with it in the journal, so that a restart keeps every phone in its seat. The
//! same secrets hold the key that hides chit draws ([`Seats::hidden_roller`]).

pub mod view;

use rand::TryRng;
use rand::rngs::SysRng;
use sha2::{Digest, Sha256};

use crate::dice::{RollId, Roller};
use crate::scenario::Scenario;

/// Who a client is at the table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Seat {
    /// Sees everything and may act for every side: the host, a referee, or every phone
    /// of an open table (`--open-table`).
    Umpire,
    /// Sees the public table: blocks by colour, nothing behind their labels.
    Spectator,
    /// Plays this side (a scenario side id).
    Side(String),
}

impl Seat {
    /// Whether this seat may act for `side`: roll its HQs, end its move, name its pieces.
    pub fn acts_for(&self, side: &str) -> bool {
        match self {
            Seat::Umpire => true,
            Seat::Spectator => false,
            Seat::Side(s) => s == side,
        }
    }

    /// The side this seat plays, if it plays one.
    pub fn side(&self) -> Option<&str> {
        match self {
            Seat::Side(s) => Some(s),
            _ => None,
        }
    }

    /// The seat's name as the journal, the terminal and the page write it: "umpire",
    /// "spectator" or the side id.
    pub fn name(&self) -> &str {
        match self {
            Seat::Umpire => "umpire",
            Seat::Spectator => "spectator",
            Seat::Side(s) => s,
        }
    }
}

/// The seats every client is put at: in order umpire, spectator, then each side of the
/// scenario. A seat's index in this list is its slot in the hub's per-seat messages.
pub fn slots(scenario: &Scenario) -> Vec<Seat> {
    [Seat::Umpire, Seat::Spectator]
        .into_iter()
        .chain(scenario.sides.iter().map(|s| Seat::Side(s.id.clone())))
        .collect()
}

/// The operating system gave no randomness for a secret.
#[derive(Debug, thiserror::Error)]
#[error("the operating system gave no random bytes for the game's secrets: {0}")]
pub struct SecretError(#[from] rand::rngs::SysError);

/// A stored secret the scenario does not explain: a side that is no longer in it, or a
/// token that is not hex.
#[derive(Debug, thiserror::Error)]
#[error("the journal's secret {name:?} {problem}")]
pub struct StoredSecretError {
    name: String,
    problem: &'static str,
}

/// Name of the draw key among the stored secrets.
const DRAW_KEY: &str = "draw-key";
/// Prefix of a seat token's name among the stored secrets ("seat:blue").
const SEAT_PREFIX: &str = "seat:";

/// The game's secrets: a token per seat (each side, the umpire, and spectators) and the
/// key that turns a chit draw's public roll id into its dice.
///
/// "Without a token, a client is a spectator", and the bare address still seats one.
/// Spectators have a token of their own all the same, so the host hands out a seat link
/// for them as for the players (a stream's overlay, a friend's phone), and the page keeps
/// it as it keeps a player's; it claims nothing a bare address does not.
#[derive(Clone)]
pub struct Seats {
    /// (seat, SHA-256 of its token, the token in hex).
    tokens: Vec<(Seat, [u8; 32], String)>,
    draw_key: [u8; 32],
}

impl std::fmt::Debug for Seats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a token or the key into a log.
        f.debug_struct("Seats")
            .field(
                "seats",
                &self.tokens.iter().map(|t| t.0.name()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

fn random_bytes<const N: usize>() -> Result<[u8; N], SecretError> {
    let mut bytes = [0u8; N];
    SysRng.try_fill_bytes(&mut bytes)?;
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

impl Seats {
    /// New secrets for a game of `scenario`: 128-bit tokens and a 256-bit draw key from
    /// the operating system.
    pub fn generate(scenario: &Scenario) -> Result<Self, SecretError> {
        let mut seats = Self {
            tokens: Vec::new(),
            draw_key: random_bytes()?,
        };
        for seat in slots(scenario) {
            seats.add_token(seat)?;
        }
        Ok(seats)
    }

    fn add_token(&mut self, seat: Seat) -> Result<(), SecretError> {
        let token = hex(&random_bytes::<16>()?);
        self.tokens
            .push((seat, Sha256::digest(token.as_bytes()).into(), token));
        Ok(())
    }

    /// The same secrets with a spectators' token, made now if they have none: a game
    /// stored before spectators had one. Store [`Seats::stored`] again to keep it.
    pub fn with_spectator_token(mut self) -> Result<Self, SecretError> {
        if self.token(&Seat::Spectator).is_none() {
            self.add_token(Seat::Spectator)?;
        }
        Ok(self)
    }

    /// The secrets as the journal stores them: (name, value) pairs.
    pub fn stored(&self) -> Vec<(String, String)> {
        self.tokens
            .iter()
            .map(|(seat, _, token)| (format!("{SEAT_PREFIX}{}", seat.name()), token.clone()))
            .chain([(DRAW_KEY.to_owned(), hex(&self.draw_key))])
            .collect()
    }

    /// Secrets read back from the journal; `None` when it holds none yet (a game started
    /// before seats existed, or a new one).
    pub fn from_stored(
        scenario: &Scenario,
        stored: &[(String, String)],
    ) -> Result<Option<Self>, StoredSecretError> {
        let bad = |name: &str, problem| StoredSecretError {
            name: name.to_owned(),
            problem,
        };
        let Some((_, key)) = stored.iter().find(|(n, _)| n == DRAW_KEY) else {
            return Ok(None);
        };
        let draw_key = unhex(key)
            .and_then(|k| <[u8; 32]>::try_from(k).ok())
            .ok_or_else(|| bad(DRAW_KEY, "is not 64 hex digits"))?;
        let mut tokens = Vec::new();
        for (name, token) in stored {
            let Some(seat) = name.strip_prefix(SEAT_PREFIX) else {
                continue;
            };
            let seat = match seat {
                "umpire" => Seat::Umpire,
                "spectator" => Seat::Spectator,
                side if scenario.side(side).is_some() => Seat::Side(side.to_owned()),
                _ => return Err(bad(name, "names a side the scenario does not have")),
            };
            if unhex(token).is_none_or(|t| t.len() < 16) {
                return Err(bad(name, "is not a token of 32 hex digits"));
            }
            tokens.push((seat, Sha256::digest(token.as_bytes()).into(), token.clone()));
        }
        // A side added to the scenario since gets no seat: refuse rather than run a
        // game one side cannot join. (A game stored before spectators had a token gets
        // one: [`Seats::with_spectator_token`].)
        for seat in slots(scenario) {
            if seat != Seat::Spectator && !tokens.iter().any(|t| t.0 == seat) {
                return Err(bad(
                    &format!("{SEAT_PREFIX}{}", seat.name()),
                    "is missing: the scenario has a side the stored game has no seat for",
                ));
            }
        }
        Ok(Some(Self { tokens, draw_key }))
    }

    /// The seat a token claims; `None` for a token that is none of this game's. Tokens
    /// are compared by their SHA-256, so the comparison's timing tells nothing about
    /// the token.
    pub fn seat(&self, token: &str) -> Option<Seat> {
        let digest: [u8; 32] = Sha256::digest(token.trim().as_bytes()).into();
        self.tokens
            .iter()
            .find(|(_, d, _)| *d == digest)
            .map(|(seat, _, _)| seat.clone())
    }

    /// Each seat with its token, in slot order.
    pub fn tokens(&self) -> impl Iterator<Item = (&Seat, &str)> {
        self.tokens.iter().map(|(s, _, t)| (s, t.as_str()))
    }

    /// The token of one seat.
    pub fn token(&self, seat: &Seat) -> Option<&str> {
        self.tokens().find(|(s, _)| *s == seat).map(|(_, t)| t)
    }

    /// The dice behind a hidden draw's public roll id. "When drawing chits, it is best to
    /// keep the actual Corps number hidden": a draw's public id must not replay it
    /// through `POST /api/roll`, so its dice come from SHA-256(draw key, id). The umpire
    /// replays it from [`Seats::hidden_id`].
    pub fn hidden_roller(&self, public: RollId) -> Roller {
        Roller::replay(self.hidden_id(public))
    }

    /// The seed a hidden draw's dice really came from.
    pub fn hidden_id(&self, public: RollId) -> RollId {
        let mut h = Sha256::new();
        h.update(self.draw_key);
        h.update(public.0.to_le_bytes());
        let digest = h.finalize();
        RollId(u64::from_le_bytes(
            digest[..8].try_into().expect("SHA-256 has 32 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Scenario {
        crate::web::demo::scenario().unwrap()
    }

    #[test]
    fn every_playing_seat_has_its_own_token_and_they_survive_the_journal() {
        let scenario = demo();
        let seats = Seats::generate(&scenario).unwrap();
        let names: Vec<_> = seats.tokens().map(|(s, _)| s.name().to_owned()).collect();
        assert_eq!(names.len(), 2 + scenario.sides.len());
        assert!(names.contains(&"umpire".to_owned()));
        assert!(names.contains(&"spectator".to_owned()));
        for (seat, token) in seats.tokens() {
            assert_eq!(token.len(), 32);
            assert_eq!(seats.seat(token).as_ref(), Some(seat));
        }
        assert_eq!(seats.seat("00000000000000000000000000000000"), None);
        let again = Seats::from_stored(&scenario, &seats.stored())
            .unwrap()
            .unwrap();
        for (seat, token) in seats.tokens() {
            assert_eq!(again.seat(token).as_ref(), Some(seat));
        }
        let id = RollId(42);
        assert_eq!(again.hidden_id(id), seats.hidden_id(id));
        assert_ne!(seats.hidden_id(id), id);
        assert!(Seats::from_stored(&scenario, &[]).unwrap().is_none());
    }

    #[test]
    fn a_game_stored_before_spectators_had_a_token_gets_one() {
        let scenario = demo();
        let seats = Seats::generate(&scenario).unwrap();
        let old: Vec<_> = seats
            .stored()
            .into_iter()
            .filter(|(name, _)| name != "seat:spectator")
            .collect();
        let again = Seats::from_stored(&scenario, &old).unwrap().unwrap();
        assert_eq!(again.token(&Seat::Spectator), None);
        let again = again.with_spectator_token().unwrap();
        let token = again.token(&Seat::Spectator).unwrap().to_owned();
        assert_eq!(again.seat(&token), Some(Seat::Spectator));
        assert_eq!(again.token(&Seat::Umpire), seats.token(&Seat::Umpire));
    }

    #[test]
    fn a_stored_seat_for_an_unknown_side_is_refused() {
        let scenario = demo();
        let mut stored = Seats::generate(&scenario).unwrap().stored();
        stored.push(("seat:green".into(), "00".repeat(16)));
        let e = Seats::from_stored(&scenario, &stored).unwrap_err();
        assert!(e.to_string().contains("seat:green"), "{e}");
    }
}
