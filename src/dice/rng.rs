//! A fair, replayable source of dice.
//!
//! Every roll made at the table (a notation roll, one combat round, a chit draw, an Alter
//! attempt) gets its own [`Roller`]. Its seed comes straight from the operating system, and
//! the seed *is* the roll's id: anyone holding the id can rebuild the same generator and see
//! the same dice again ([`Roller::replay`]). The journal stores the id, never the dice alone,
//! so an argument at the table is settled by showing the roll again.
//!
//! The generator is ChaCha20 named explicitly ([`ChaCha20Rng`]) rather than `StdRng`, whose
//! algorithm rand may change between versions: a stored id must replay the same dice years
//! later. Faces are drawn with [`Uniform`], which uses Lemire's method with rejection and so
//! has no modulo bias (rand's `random_range` shortcut allows a tiny bias).

use std::fmt;
use std::str::FromStr;

use rand::distr::{Distribution, Uniform};
use rand::rngs::{ChaCha20Rng, SysRng};
use rand::{SeedableRng, TryRng};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The id of one roll: the 64-bit seed its dice came from.
///
/// Written `r` followed by 16 hex digits (`r00000000000004d2`) so that it cannot be
/// mistaken for a number; [`FromStr`] also takes a plain decimal seed (`1234`), which is
/// what `aide roll --seed 1234` passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct RollId(pub u64);

impl fmt::Display for RollId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{:016x}", self.0)
    }
}

/// A roll id that is neither `r` + hex digits nor a decimal number.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "`{0}` is not a roll id: expected r + up to 16 hex digits (r00000000000004d2) or a decimal seed"
)]
pub struct RollIdError(pub String);

impl FromStr for RollId {
    type Err = RollIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parsed = match s.strip_prefix('r') {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => s.parse(),
        };
        parsed.map(RollId).map_err(|_| RollIdError(s.to_owned()))
    }
}

impl From<RollId> for String {
    fn from(id: RollId) -> Self {
        id.to_string()
    }
}

impl TryFrom<String> for RollId {
    type Error = RollIdError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// The operating system could not give a seed.
#[derive(Debug, Error)]
#[error("the operating system gave no random seed: {0}")]
pub struct EntropyError(#[from] rand::rngs::SysError);

/// A die as it lies in the box: how many faces and what each face reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Die {
    /// Faces 1 to n (n >= 2; the notation reader checks it): d6 for fire and Alter, d8
    /// for the black turn die.
    Sides(u8),
    /// A six-sided die marked 1, 1, 2, 2, 3, 3: what a table means by "d3".
    D3,
}

impl Die {
    pub const D6: Die = Die::Sides(6);
    pub const D8: Die = Die::Sides(8);

    /// Number of physical faces.
    pub fn face_count(self) -> u8 {
        match self {
            Die::Sides(n) => n,
            Die::D3 => 6,
        }
    }

    /// The number printed on face `index` (0-based).
    fn face(self, index: u8) -> u8 {
        match self {
            Die::Sides(_) => index + 1,
            Die::D3 => index / 2 + 1,
        }
    }
}

impl fmt::Display for Die {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Die::Sides(n) => write!(f, "d{n}"),
            Die::D3 => f.write_str("d3"),
        }
    }
}

/// The dice of one roll, replayable from its [`RollId`].
#[derive(Debug)]
pub struct Roller {
    id: RollId,
    rng: ChaCha20Rng,
}

impl Roller {
    /// A new roll seeded by the operating system.
    pub fn from_os() -> Result<Self, EntropyError> {
        Ok(Self::replay(RollId(SysRng.try_next_u64()?)))
    }

    /// The generator of an earlier roll: the same calls give the same dice.
    pub fn replay(id: RollId) -> Self {
        Self {
            id,
            rng: ChaCha20Rng::seed_from_u64(id.0),
        }
    }

    pub fn id(&self) -> RollId {
        self.id
    }

    /// Throw one die and read its face.
    pub fn roll(&mut self, die: Die) -> u8 {
        die.face(self.index(usize::from(die.face_count())) as u8)
    }

    /// Throw `n` dice of one kind, in the order they are shown.
    pub fn roll_many(&mut self, n: usize, die: Die) -> Vec<u8> {
        (0..n).map(|_| self.roll(die)).collect()
    }

    /// A uniform choice among `len` things (a chit out of the cup), `len >= 1`.
    pub fn index(&mut self, len: usize) -> usize {
        Uniform::new(0, len)
            .expect("index() needs at least one thing to choose from")
            .sample(&mut self.rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roll_id_round_trips_through_text_and_json() {
        let id = RollId(1234);
        assert_eq!(id.to_string(), "r00000000000004d2");
        assert_eq!("r00000000000004d2".parse::<RollId>(), Ok(id));
        assert_eq!("1234".parse::<RollId>(), Ok(id));
        assert_eq!("r4d2".parse::<RollId>(), Ok(id));
        assert!("r4g2".parse::<RollId>().is_err());
        assert!("-3".parse::<RollId>().is_err());
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"r00000000000004d2\"");
        assert_eq!(serde_json::from_str::<RollId>(&json).unwrap(), id);
    }

    #[test]
    fn replay_gives_the_same_dice() {
        let first = Roller::replay(RollId(99)).roll_many(20, Die::D6);
        let again = Roller::replay(RollId(99)).roll_many(20, Die::D6);
        assert_eq!(first, again);
        assert_ne!(first, Roller::replay(RollId(100)).roll_many(20, Die::D6));
    }

    #[test]
    fn d3_reads_one_one_two_two_three_three() {
        let faces: Vec<u8> = (0..6).map(|i| Die::D3.face(i)).collect();
        assert_eq!(faces, [1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn os_seeded_rolls_differ() {
        let a = Roller::from_os().unwrap().id();
        let b = Roller::from_os().unwrap().id();
        assert_ne!(
            a, b,
            "two OS seeds in a row matched: 1 in 2^64, or a broken source"
        );
    }
}
