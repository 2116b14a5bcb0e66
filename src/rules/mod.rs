//! Rules engines: every measuring question a table asks, answered with its numbers.
//!
//! A [`RuleSet`] takes a scenario and a table state and returns verdicts. A verdict is
//! never a bare bool: it carries the distance, the limit and the margin in inches, or
//! the terrain that blocked sight, so that a player can see why and by how much.

pub mod nbc;
pub mod ohw_hex;
pub mod pub_battles;

use serde::{Deserialize, Serialize};

use crate::scenario::{RulesId, Scenario};
use crate::table::{Piece, Pose, Status, TableState};

/// Why a roll on the table (a shot, a battery's fire) was not thrown.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TableRollError {
    #[error("unit {0:?} is not on the table")]
    NotOnTable(String),
    /// The rules refuse it; the reason names the rule and the numbers.
    #[error("{0}")]
    Refused(String),
}

/// A margin as every report shows it (`aide check`, `aide log`, the page): hundredths,
/// halves away from zero, taken on the magnitude so that -0.125 and 0.125 both read
/// 0.13. Formatting with `{:.2}` alone rounds the binary value half to even ("0.12")
/// while the page's `toFixed(2)` gave "0.13" for the same table; web/app.js
/// `hundredths` computes the same `round(|x| * 100) / 100`, and IEEE arithmetic makes
/// the two agree digit for digit.
pub fn hundredths(x: f64) -> f64 {
    // `+ 0.0` turns a negative zero into zero: "-0.00" is no margin a person reads.
    x.signum() * (x.abs() * 100.0).round() / 100.0 + 0.0
}

/// The questions every rule system answers.
pub trait RuleSet: Send + Sync {
    /// The rules id as written in scenarios, e.g. "pub-battles-3.2".
    fn id(&self) -> RulesId;

    /// Every per-piece verdict for a whole table.
    fn check_table(&self, scenario: &Scenario, table: &TableState) -> TableReport;

    /// The verdicts for a table with the state before this turn's moves: systems where
    /// only units that did not move may shoot (One Hour Wargames) use it; the others
    /// judge the table alone.
    fn check_turn(
        &self,
        scenario: &Scenario,
        _previous: &TableState,
        table: &TableState,
    ) -> TableReport {
        self.check_table(scenario, table)
    }

    /// Whether `piece` may move from where it stands to `to` (in state `to_status`);
    /// `night` for the night turn's restrictions.
    fn check_move(
        &self,
        scenario: &Scenario,
        table: &TableState,
        piece: &Piece,
        to: Pose,
        to_status: Status,
        night: bool,
    ) -> MoveVerdict;

    /// Whether `viewer` can see `target`, with what blocked it.
    fn sight(
        &self,
        scenario: &Scenario,
        table: &TableState,
        viewer: &Piece,
        target: &Piece,
    ) -> SightVerdict;
}

/// The rules engine a scenario names.
pub fn for_scenario(scenario: &Scenario) -> Box<dyn RuleSet> {
    match scenario.rules {
        RulesId::OhwHex => Box::new(ohw_hex::OhwHex),
        RulesId::Nbc => Box::new(nbc::Nbc),
        RulesId::PubBattles32 | RulesId::PubBattles30 | RulesId::PubBattlesQuickStart => {
            Box::new(pub_battles::PubBattles::new(scenario.rules))
        }
    }
}

/// All verdicts for one table.
#[derive(Debug, Clone, Serialize)]
pub struct TableReport {
    pub rules: RulesId,
    /// Lengths the verdicts used, so a reader can check them.
    pub measures: Measures,
    pub pieces: Vec<PieceReport>,
    /// The hex grid's geometry, for the page to draw (One Hour Wargames hex only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hex_grid: Option<ohw_hex::GridGeometry>,
}

/// The lengths a rule system measures with. Untagged, so that Pub Battles reports keep
/// their `measures` object as it was; each form names its `unit`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Measures {
    Inches(MeasuresUsed),
    Hex(ohw_hex::HexMeasures),
    Cm(nbc::CmMeasures),
}

impl Measures {
    /// The Pub Battles lengths, when the table is measured in inches and moves.
    pub fn inches(&self) -> Option<&MeasuresUsed> {
        match self {
            Measures::Inches(m) => Some(m),
            Measures::Hex(_) | Measures::Cm(_) => None,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct MeasuresUsed {
    /// Always "in".
    pub unit: &'static str,
    pub foot_move_in: f64,
    pub mounted_move_in: f64,
    pub command_range_in: f64,
    pub fof_depth_in: f64,
    pub sight_range_in: f64,
}

/// Everything the rules say about one piece.
#[derive(Debug, Clone, Serialize)]
pub struct PieceReport {
    pub id: String,
    pub side: String,
    pub kind: crate::table::UnitKind,
    pub status: Status,
    /// The terrain type under the majority of the footprint ("clear" when none is).
    pub terrain: String,
    /// Hill level the piece stands on (0 = low ground).
    pub hill_level: u8,
    /// Cover the terrain gives against every attacker (woods, buildings); hill cover
    /// depends on where the attacker came from and is judged per combat.
    pub cover: Option<String>,
    /// Null when the piece has no commanding HQ (HQs themselves, unattached units).
    pub in_command: Option<bool>,
    /// Command range minus the edge-to-edge distance to the nearest commanding HQ:
    /// positive inside, negative outside. Null when the HQ is not on the table.
    pub command_margin_in: Option<f64>,
    /// The HQ whose range was measured (the corps HQ or the army HQ, whichever is nearer).
    pub commanded_by: Option<String>,
    /// Enemies whose field of fire holds the majority of this piece.
    pub in_fof_of: Vec<String>,
    pub fof_detail: Vec<FofEntry>,
    /// Enemy pieces this piece can see (spotting range, line of sight).
    pub can_see: Vec<String>,
    pub flanked_by: Vec<String>,
    pub in_contact_with: Vec<String>,
    pub supported_by: Option<String>,
    pub in_road_column: bool,
    /// Enemies within 1/3 foot move: a night move or a road column may not approach them.
    pub enemies_within_third_foot: Vec<String>,
    pub rally: Option<RallyVerdict>,
    /// One Hour Wargames hex verdicts (hex, facing, movement, shooting).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hex: Option<ohw_hex::HexPieceReport>,
    /// Napoleonic Battlefield Commander verdicts in centimetres.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nbc: Option<nbc::NbcPieceReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FofEntry {
    pub id: String,
    /// Fraction of this piece's footprint inside that enemy's field of fire.
    pub fraction_inside: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RallyVerdict {
    pub possible: bool,
    /// The unpacked friendly supply train measured to, if any is on the table.
    pub train: Option<String>,
    pub margin_in: Option<f64>,
    pub reason: String,
}

/// Line of sight between two pieces.
#[derive(Debug, Clone, Serialize)]
pub struct SightVerdict {
    pub can_see: bool,
    /// Edge-to-edge distance.
    pub distance_in: f64,
    pub range_in: f64,
    /// What stopped the sight line, if anything.
    pub blocked_by: Option<Blocker>,
    /// Blockers the viewer saw over from a hill.
    pub seen_over: Vec<Blocker>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Blocker {
    /// woods, buildings, hill, out-of-range, or piece (3.0, where pieces block).
    pub kind: String,
    pub name: Option<String>,
    /// Where the sight line meets it, in map inches.
    pub at: Option<[f64; 2]>,
    pub reason: String,
}

/// Whether a move between two poses is allowed, and what it cost. It is read back from
/// the journal, so it deserializes too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveVerdict {
    pub legal: bool,
    /// Centre-to-centre distance moved.
    pub distance_in: f64,
    /// What the piece may move after all costs.
    pub allowance_in: f64,
    pub margin_in: f64,
    /// Each deduction or bonus, with its reason.
    pub costs: Vec<String>,
    /// Rule breaches, each with its reason; empty when legal.
    pub problems: Vec<String>,
    /// Rules the end position breaks unless the move is an attack (e.g. ending in a FoF).
    pub warnings: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::hundredths;

    /// The demo's Carvell Militia is 0.125 in inside its HQ's range and its neighbour
    /// 0.125 in outside: `{:.2}` alone printed 0.12 where the page printed 0.13.
    #[test]
    fn margins_round_half_away_from_zero() {
        let shown = |x: f64| format!("{:.2}", hundredths(x));
        assert_eq!(shown(0.125), "0.13");
        assert_eq!(shown(-0.125), "-0.13");
        assert_eq!(shown(-(-0.125)), "0.13");
        assert_eq!(shown(2.675), "2.68"); // 2.67499999… in binary, but x 100 rounds to 267.5
        assert_eq!(shown(-0.004), "0.00");
        assert_eq!(shown(1.005), "1.00"); // 1.00499999… in binary
        assert_eq!(shown(0.375), "0.38");
    }
}
