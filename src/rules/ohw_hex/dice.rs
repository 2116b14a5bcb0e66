//! The dice of [OHW]: a D3 for shooting, 2D6 for morale, and the event deck.
//!
//! Every function takes a [`Roller`], so a roll is replayed exactly from its id.

use serde::{Deserialize, Serialize};

use super::{Arm, OhwHex};
use crate::dice::{Die, RollId, Roller};
use crate::rules::{RuleSet as _, TableRollError};
use crate::scenario::{Scenario, TerrainKind};
use crate::table::TableState;

/// What the shooting roll needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShotFacts {
    pub shooter: Arm,
    pub range_hex: u32,
    /// The target is in cover against this shooter (woods, town, entrenchment, or a
    /// field against infantry or cavalry).
    pub target_in_cover: bool,
    /// The Smoke event card is in play: "all shooting treats target units as being in
    /// cover. Units already in cover does not benefit from this event."
    pub smoke: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShotResult {
    /// The D3 as rolled (faces 1, 1, 2, 2, 3, 3).
    pub die: u8,
    pub modifiers: Vec<(i32, String)>,
    /// Hits scored: the die plus modifiers, never below 0.
    pub hits: u32,
}

/// The modifiers of "Assess hits": "Minus 1 if the target unit is in cover; Minus 1 if
/// cavalry; Minus 1 if Artillery shooting at greater than 1 hex". "Minus 1 if cavalry"
/// is read as the shooter being cavalry (the digest flags it: the text does not say).
pub fn shot_modifiers(facts: &ShotFacts) -> Vec<(i32, String)> {
    let mut out = Vec::new();
    if facts.target_in_cover || facts.smoke {
        let why = if facts.target_in_cover {
            "target in cover"
        } else {
            "target in cover (smoke)"
        };
        out.push((-1, why.to_owned()));
    }
    if facts.shooter == Arm::Cavalry {
        out.push((-1, "cavalry shooting".to_owned()));
    }
    if facts.shooter == Arm::Artillery && facts.range_hex > 1 {
        out.push((-1, format!("artillery at {} hexes", facts.range_hex)));
    }
    out
}

/// "Units roll a D3 dice when shooting with the following adjustments".
pub fn shoot(roller: &mut Roller, facts: &ShotFacts) -> ShotResult {
    let die = roller.roll(Die::D3);
    hits_from(die, shot_modifiers(facts))
}

fn hits_from(die: u8, modifiers: Vec<(i32, String)>) -> ShotResult {
    let total = i32::from(die) + modifiers.iter().map(|(v, _)| v).sum::<i32>();
    ShotResult {
        die,
        modifiers,
        hits: total.max(0) as u32,
    }
}

/// A shot rolled on the table, as `aide roll --combat` and the page's dice roll it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableShot {
    pub shooter: String,
    pub target: String,
    pub roll_id: RollId,
    pub facts: ShotFacts,
    pub result: ShotResult,
}

/// SHOOTER shoots TARGET if the table allows the shot ("can only shoot at a single unit
/// in the hex they are facing", in range, not moved): a D3 with its modifiers. Smoke is
/// not on the table, so it is taken as not in play.
pub fn shoot_on_table(
    scenario: &Scenario,
    table: &TableState,
    shooter: &str,
    target: &str,
    roller: &mut Roller,
) -> Result<TableShot, TableRollError> {
    let report = OhwHex.check_table(scenario, table);
    let hex = report
        .pieces
        .iter()
        .find(|p| p.id == shooter)
        .and_then(|p| p.hex.as_ref())
        .ok_or_else(|| TableRollError::NotOnTable(shooter.to_owned()))?;
    if table.piece(target).is_none() {
        return Err(TableRollError::NotOnTable(target.to_owned()));
    }
    let shot = hex
        .shots
        .iter()
        .find(|s| s.target == target)
        .ok_or_else(|| {
            TableRollError::Refused(format!("{target} is not within {shooter}'s range"))
        })?;
    if !shot.allowed {
        return Err(TableRollError::Refused(format!(
            "{shooter} may not shoot {target}: {}",
            shot.reason
        )));
    }
    let facts = ShotFacts {
        shooter: hex.arm.ok_or_else(|| {
            TableRollError::Refused("only infantry, cavalry and artillery shoot".into())
        })?,
        range_hex: shot.range_hex,
        target_in_cover: shot.target_cover.is_some(),
        smoke: false,
    };
    let roll_id = roller.id();
    let result = shoot(roller, &facts);
    Ok(TableShot {
        shooter: shooter.to_owned(),
        target: target.to_owned(),
        roll_id,
        facts,
        result,
    })
}

/// How a morale test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoraleOutcome {
    Passed,
    /// "A unit failing a morale test with an attached commander must remove the
    /// commander and is not routed."
    CommanderLost,
    /// "A unit failing a morale test without an attached commander is routed and
    /// removed from play immediately."
    Routed,
    /// "Entrenched units never take moral checks."
    NotTested,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoraleResult {
    pub dice: Vec<u8>,
    pub total: u8,
    pub hits: u32,
    pub outcome: MoraleOutcome,
}

/// "Roll two D6 and sum the score ... If the score is less than or equal to the unit's
/// hits, the unit has failed the morale test." (The pass sentence is garbled in the
/// text; more than the hits passes.)
pub fn morale(roller: &mut Roller, hits: u32, commander: bool, entrenched: bool) -> MoraleResult {
    if entrenched {
        return MoraleResult {
            dice: Vec::new(),
            total: 0,
            hits,
            outcome: MoraleOutcome::NotTested,
        };
    }
    let dice = roller.roll_many(2, Die::D6);
    morale_from(dice, hits, commander)
}

fn morale_from(dice: Vec<u8>, hits: u32, commander: bool) -> MoraleResult {
    let total: u8 = dice.iter().sum();
    let outcome = match (u32::from(total) <= hits, commander) {
        (false, _) => MoraleOutcome::Passed,
        (true, true) => MoraleOutcome::CommanderLost,
        (true, false) => MoraleOutcome::Routed,
    };
    MoraleResult {
        dice,
        total,
        hits,
        outcome,
    }
}

/// A morale test taken on the table, as the page rolls it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableMorale {
    pub unit: String,
    pub roll_id: RollId,
    /// The unit has its commander: the scenario attaches one and the player has not
    /// said it was lost in an earlier test.
    pub commander: bool,
    /// The unit's hex is an entrenched position.
    pub entrenched: bool,
    pub result: MoraleResult,
}

/// UNIT tests morale with HITS on it: "Test morale whenever a unit takes any hits and
/// is diced for after all attacks on the units are complete. Roll two D6 and sum the
/// score". The table shows neither the hit markers nor a commander lost earlier, so the
/// player gives the hits, and `commander_lost` when "the commander was wounded or killed
/// rallying their unit" in an earlier test; the commander is otherwise the scenario's.
/// The hex gives "Entrenched units never take moral checks" (the Stonewall card is not
/// on the table, so it is not counted). More than 8 hits is refused: such a unit is
/// already "routed and removed from play".
pub fn morale_on_table(
    scenario: &Scenario,
    table: &TableState,
    unit: &str,
    hits: u32,
    commander_lost: bool,
    roller: &mut Roller,
) -> Result<TableMorale, TableRollError> {
    let piece = table
        .piece(unit)
        .ok_or_else(|| TableRollError::NotOnTable(unit.to_owned()))?;
    if Arm::of(piece.kind).is_none() {
        return Err(TableRollError::Refused(format!(
            "{unit} is not a unit: only infantry, cavalry and artillery test morale"
        )));
    }
    if eliminated(hits) {
        return Err(TableRollError::Refused(format!(
            "{unit} with {hits} hits has no morale to test: units \"are routed and removed from play when they exceed 8 hits\""
        )));
    }
    let board = super::Board::new(scenario, table);
    let entrenched = board.has(board.hex_of(piece), TerrainKind::Entrenchment);
    let commander = super::commander(scenario, unit) && !commander_lost;
    let roll_id = roller.id();
    let result = morale(roller, hits, commander, entrenched);
    Ok(TableMorale {
        unit: unit.to_owned(),
        roll_id,
        commander,
        entrenched,
        result,
    })
}

/// "Units are routed and removed from play when they exceed 8 hits".
pub fn eliminated(hits: u32) -> bool {
    hits > 8
}

/// The fifteen event cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventCard {
    Sharpshooter,
    HitAndRun,
    Rally,
    ForceMarch,
    Demoralised,
    SurpriseAssault,
    NoEffectReserves,
    Stonewall,
    Confusion,
    AmmunitionShortage,
    Smoke,
}

impl EventCard {
    /// "There are 15 cards in all, one for each turn": 4 x No effect/Reserves and
    /// 2 x Confusion, one of each other card.
    pub const DECK: [EventCard; 15] = [
        EventCard::Sharpshooter,
        EventCard::HitAndRun,
        EventCard::Rally,
        EventCard::ForceMarch,
        EventCard::Demoralised,
        EventCard::SurpriseAssault,
        EventCard::NoEffectReserves,
        EventCard::NoEffectReserves,
        EventCard::NoEffectReserves,
        EventCard::NoEffectReserves,
        EventCard::Stonewall,
        EventCard::Confusion,
        EventCard::Confusion,
        EventCard::AmmunitionShortage,
        EventCard::Smoke,
    ];

    /// The card's effect, as the rules give it.
    pub fn effect(self) -> &'static str {
        match self {
            EventCard::Sharpshooter => "Allows one opposing commander to be removed.",
            EventCard::HitAndRun => "Allows a cavalry unit to move, shoot, and move again.",
            EventCard::Rally => {
                "A routed infantry unit can return to the game without any hits. It enters play on the player's base edge; it cannot have an attached commander."
            }
            EventCard::ForceMarch => "One unit can move twice.",
            EventCard::Demoralised => "All units must immediately take a morale test.",
            EventCard::SurpriseAssault => "One unit can move and shoot.",
            EventCard::NoEffectReserves => {
                "If a player has reserves, then one unit arrives. If there are no reserves the card has no effect upon play."
            }
            EventCard::Stonewall => {
                "A stationary unit is treated as being in an entrenched position until it moves or is eliminated."
            }
            EventCard::Confusion => "Only units with commanders are allowed to move.",
            EventCard::AmmunitionShortage => {
                "Artillery units are not allowed to engage in shooting."
            }
            EventCard::Smoke => {
                "All shooting treats target units as being in cover. Units already in cover do not benefit."
            }
        }
    }
}

/// One player's event deck: "At the start of each turn a player draws one event card
/// and actions its effect that turn. Cards are not carried over into following turns."
/// A game is 15 turns, so the deck runs out exactly at the end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventDeck {
    /// Cards not yet drawn.
    pub remaining: Vec<EventCard>,
}

impl Default for EventDeck {
    fn default() -> Self {
        Self {
            remaining: EventCard::DECK.to_vec(),
        }
    }
}

impl EventDeck {
    /// Draw this turn's card; None once all 15 turns are played.
    pub fn draw(&mut self, roller: &mut Roller) -> Option<EventCard> {
        if self.remaining.is_empty() {
            return None;
        }
        let i = roller.index(self.remaining.len());
        Some(self.remaining.remove(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::RollId;

    fn facts(shooter: Arm, range_hex: u32, cover: bool, smoke: bool) -> ShotFacts {
        ShotFacts {
            shooter,
            range_hex,
            target_in_cover: cover,
            smoke,
        }
    }

    #[test]
    fn d3_three_with_every_modifier_scores_zero() {
        // Artillery at 2 hexes into cover: 3 - 1 (cover) - 1 (range) = 1.
        let r = hits_from(3, shot_modifiers(&facts(Arm::Artillery, 2, true, false)));
        assert_eq!(r.hits, 1);
        // Adjacent artillery loses no die for range: 3 - 1 (cover) = 2.
        let r = hits_from(3, shot_modifiers(&facts(Arm::Artillery, 1, true, false)));
        assert_eq!(r.hits, 2);
        // Cavalry into cover rolling 1: 1 - 1 - 1 = -1, floored at 0.
        let r = hits_from(1, shot_modifiers(&facts(Arm::Cavalry, 1, true, false)));
        assert_eq!(r.hits, 0);
        // Infantry in the open, no modifiers: the die is the hits.
        let r = hits_from(2, shot_modifiers(&facts(Arm::Infantry, 1, false, false)));
        assert_eq!((r.hits, r.modifiers.len()), (2, 0));
    }

    #[test]
    fn smoke_gives_cover_once() {
        assert_eq!(
            shot_modifiers(&facts(Arm::Infantry, 1, false, true)).len(),
            1
        );
        // "Units already in cover does not benefit from this event": still one -1.
        assert_eq!(
            shot_modifiers(&facts(Arm::Infantry, 1, true, true)).len(),
            1
        );
    }

    #[test]
    fn morale_fails_at_equal_and_passes_one_above() {
        // 4 hits: a roll of 4 fails, 5 passes.
        assert_eq!(
            morale_from(vec![1, 3], 4, false).outcome,
            MoraleOutcome::Routed
        );
        assert_eq!(
            morale_from(vec![2, 3], 4, false).outcome,
            MoraleOutcome::Passed
        );
        assert_eq!(
            morale_from(vec![2, 2], 4, true).outcome,
            MoraleOutcome::CommanderLost
        );
        let mut roller = Roller::replay(RollId(7));
        assert_eq!(
            morale(&mut roller, 12, false, true).outcome,
            MoraleOutcome::NotTested
        );
        // 12 hits: no 2D6 total can pass.
        let r = morale(&mut roller, 12, false, false);
        assert_eq!((r.dice.len(), r.outcome), (2, MoraleOutcome::Routed));
    }

    #[test]
    fn eliminated_above_eight() {
        assert!(!eliminated(8));
        assert!(eliminated(9));
    }

    #[test]
    fn deck_has_fifteen_cards_drawn_once_and_replays_by_seed() {
        let count = |c| EventCard::DECK.iter().filter(|&&d| d == c).count();
        assert_eq!(count(EventCard::NoEffectReserves), 4);
        assert_eq!(count(EventCard::Confusion), 2);
        assert_eq!(count(EventCard::Smoke), 1);
        let draw_all = |seed| {
            let mut deck = EventDeck::default();
            let mut roller = Roller::replay(RollId(seed));
            let cards: Vec<_> = std::iter::from_fn(|| deck.draw(&mut roller)).collect();
            cards
        };
        let a = draw_all(42);
        assert_eq!(a.len(), 15);
        let mut sorted_a = a.clone();
        let mut full = EventCard::DECK.to_vec();
        sorted_a.sort_by_key(|c| format!("{c:?}"));
        full.sort_by_key(|c| format!("{c:?}"));
        assert_eq!(sorted_a, full);
        assert_eq!(a, draw_all(42));
        assert_ne!(a, draw_all(43));
    }

    #[test]
    fn shot_rolls_a_d3() {
        let mut roller = Roller::replay(RollId(1));
        for _ in 0..50 {
            let r = shoot(&mut roller, &facts(Arm::Infantry, 1, false, false));
            assert!((1..=3).contains(&r.die));
            assert_eq!(r.hits, u32::from(r.die));
        }
    }
}
