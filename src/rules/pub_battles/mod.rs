//! Pub Battles (Command Post Games): 3.2 by default, 3.0 and the quick start as variants.
//!
//! The rule texts are in the shared `rules/` folder; `DIGEST.md` lists every measurable
//! rule and every ambiguity. Each check quotes the rule it implements. Where the texts
//! are ambiguous the reading chosen here is a named field of [`Options`], so a table
//! that reads it differently can change it without touching the code.

pub mod combat;
mod command;
mod contact;
mod fire;
mod movement;
mod sight;
mod terrain;

use serde::Serialize;

use super::{
    FofEntry, Measures, MeasuresUsed, MoveVerdict, PieceReport, RuleSet, SightVerdict, TableReport,
};
use crate::geom::edge_distance;
use crate::scenario::{RulesId, Scenario};
use crate::table::{Piece, Pose, Status, TableState};

pub use command::{CommandVerdict, RallyContext, command_range, rally};
pub use contact::{
    Contact, contact, enveloped_with, flanked_by, is_behind_front_line, reserve_support,
    support_for,
};
pub use fire::{fof_fraction, fof_polygon, friend_in_line_of_fire, in_field_of_fire, projects_fof};
pub use movement::check_move;
pub use sight::line_of_sight;
pub use terrain::{Occupancy, occupancy, road_column};

/// The three Pub Battles rule books this engine knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Variant {
    V32,
    V30,
    QuickStart,
}

/// Readings of ambiguous rules, each a named choice (see DIGEST.md, marks ⚠).
#[derive(Debug, Clone, Serialize)]
pub struct Options {
    /// How far the sides of a field of fire splay out from the front corners, degrees
    /// from straight ahead. "within a 45° arc" [3.2]; the diagram is lost. 45 reads it as
    /// each side opening 45 degrees outward; 22.5 would read a 45 degree total arc.
    pub fof_splay_deg: f64,
    /// Two facing edges closer than this count as touching: the camera's and a player's
    /// hand's imprecision. 1/16 in, the accuracy the product promises.
    pub contact_gap_in: f64,
    /// Two edges within this angle count as parallel for contact and support.
    pub contact_angle_deg: f64,
    /// "the majority of the pieces are in contact" [3.2]: the touching stretch must be
    /// more than this fraction of the shorter of the two touching edges.
    pub contact_overlap_fraction: f64,
    /// "See into Woods and Buildings up to the thickness of a piece: 3/8"" [3.2].
    pub see_into_in: f64,
    /// How that 3/8 in is measured ([`SeeInto`]).
    pub see_into: SeeInto,
    /// Whether detachments project a field of fire. "La Infantería, Dragones y Artillería
    /// proyectan un Campo de Fuego" and detachments are "Pequeñas unidades de infantería
    /// que luchan en formación de escaramuza" [3.2]: small infantry units, so they do
    /// (true). The text does not name them; false reads the list as closed.
    pub detachment_fof: bool,
    /// Whether two pieces on the same hill see each other across its crest. "Puedes ver
    /// sobre una Colina hasta la cresta: el punto central entre laderas" [3.2]: sight
    /// reaches the crest and no farther, so a piece on the far slope is hidden from one
    /// on the near slope (false). True reads the rule as being about looking onto a hill
    /// from off it, so pieces on one hill look across its top.
    pub sight_across_own_crest: bool,
    /// Whether a move that crosses a hill's crest crosses a slope. "Reduced to cross a
    /// slope" [3.0/3.2 chart]: a move from one slope over the crest to the other stays on
    /// the hill, at its level, and crosses no slope's foot (false). True reads going over
    /// the top as climbing one slope and descending the other.
    pub crest_is_a_slope: bool,
    /// Where a defender's hill cover is judged from ([`HillCoverFrom`]).
    pub hill_cover_from: HillCoverFrom,
    /// A piece is in road column when its long axis lies within this angle of the road.
    pub road_column_angle_deg: f64,
    /// A heading change smaller than this is not a facing change (hand jitter).
    pub facing_tolerance_deg: f64,
    /// The quick start's artillery "Line of Fire": "The target must lay within a
    /// 45-degree angle from the front" (QS). Read as up to 45 degrees either side of
    /// straight ahead, from the gun's centre ("measured from the center of a unit"), as
    /// the field of fire's 45 degrees open each side; 22.5 would read a 45 degree total.
    pub qs_line_of_fire_half_angle_deg: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            fof_splay_deg: 45.0,
            contact_gap_in: 0.0625,
            contact_angle_deg: 10.0,
            contact_overlap_fraction: 0.5,
            see_into_in: 0.375,
            see_into: SeeInto::FromTheEdge,
            detachment_fof: true,
            sight_across_own_crest: false,
            crest_is_a_slope: false,
            hill_cover_from: HillCoverFrom::StartOfMove,
            road_column_angle_deg: 20.0,
            facing_tolerance_deg: 5.0,
            qs_line_of_fire_half_angle_deg: 45.0,
        }
    }
}

/// How far sight reaches into woods and buildings is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeeInto {
    /// How deep the piece stands inside, from the wood's edge to where the sight line
    /// meets the piece: "hasta el grosor de una pieza: 3/8"" [3.2] is a depth into the
    /// wood (a piece's thickness), whatever the slant of the line. The default.
    FromTheEdge,
    /// The length of the sight line inside the wood: a slanting line reaches less deep.
    AlongSightLine,
}

/// Where "Cover for Defender if Attacker moved from lower ground" [3.0/3.2 chart] is
/// judged from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HillCoverFrom {
    /// The hill level the attacker started its move on, when the move is known (`aide
    /// move`, `aide roll --attacker-from`); its level now otherwise. "moved from lower
    /// ground" names where it came from. The default.
    StartOfMove,
    /// The attacker's hill level where it stands now, always.
    CurrentLevel,
}

/// The Pub Battles rules engine.
#[derive(Debug, Clone, Serialize)]
pub struct PubBattles {
    pub variant: Variant,
    pub options: Options,
}

impl PubBattles {
    /// The engine for a Pub Battles rules id; the other systems' ids have their own
    /// engines ([`crate::rules::for_scenario`]) and read as the default 3.2 here.
    pub fn new(rules: RulesId) -> Self {
        let variant = match rules {
            RulesId::PubBattles30 => Variant::V30,
            RulesId::PubBattlesQuickStart => Variant::QuickStart,
            RulesId::PubBattles32 | RulesId::OhwHex | RulesId::Nbc => Variant::V32,
        };
        Self {
            variant,
            options: Options::default(),
        }
    }

    /// Whether a fraction of a footprint is "the majority". "the type under the majority
    /// of the piece" [3.0/3.2] is strictly more than half; the quick start's "Occupying
    /// Terrain – at least half its block" accepts exactly half.
    pub fn is_majority(&self, fraction: f64) -> bool {
        match self.variant {
            Variant::QuickStart => fraction >= 0.5,
            _ => fraction > 0.5,
        }
    }

    pub fn measures(&self, scenario: &Scenario) -> MeasuresUsed {
        let m = &scenario.measures;
        MeasuresUsed {
            unit: "in",
            foot_move_in: m.foot_move_in,
            mounted_move_in: m.mounted_move_in,
            command_range_in: m.mounted_move_in / 3.0,
            fof_depth_in: m.foot_move_in / 3.0,
            sight_range_in: m.foot_move_in,
        }
    }
}

/// Reported lengths are rounded to 1/10000 in: far below what a player can measure,
/// and free of float noise such as 0.020000000000000018.
pub fn round_in(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn enemies(a: &Piece, b: &Piece) -> bool {
    a.side != b.side
}

impl RuleSet for PubBattles {
    fn id(&self) -> RulesId {
        match self.variant {
            Variant::V32 => RulesId::PubBattles32,
            Variant::V30 => RulesId::PubBattles30,
            Variant::QuickStart => RulesId::PubBattlesQuickStart,
        }
    }

    fn check_table(&self, scenario: &Scenario, table: &TableState) -> TableReport {
        let measures = self.measures(scenario);
        let third_foot = scenario.measures.foot_move_in / 3.0;
        let occupancies: Vec<Occupancy> = table
            .pieces
            .iter()
            .map(|p| occupancy(self, &scenario.terrain, &p.footprint))
            .collect();
        let polygons: Vec<_> = table.pieces.iter().map(|p| p.footprint.polygon()).collect();
        let contacts = contact::all_enemy_contacts(self, table);
        let supporters: Vec<Option<usize>> = table
            .pieces
            .iter()
            .map(|p| {
                support_for(self, table, p)
                    .and_then(|s| table.pieces.iter().position(|q| q.id == s.id))
            })
            .collect();
        // "el Apoyo se rompe" when the pair is enveloped.
        let enveloped: Vec<bool> = (0..table.pieces.len())
            .map(|i| enveloped_with(self, table, i, &contacts).is_some())
            .collect();
        // Distance and sight once per unordered enemy pair: sight is symmetric here
        // (centre to centre, the 3/8 in allowance and the hill rule at either end).
        let n = table.pieces.len();
        let mut distance = vec![f64::INFINITY; n * n];
        let mut sees = vec![false; n * n];
        for i in 0..n {
            for j in (i + 1)..n {
                let (a, b) = (&table.pieces[i], &table.pieces[j]);
                if !enemies(a, b)
                    || !a
                        .footprint
                        .may_be_within(&b.footprint, measures.sight_range_in)
                {
                    continue;
                }
                let d = edge_distance(&polygons[i], &polygons[j]);
                let visible = d <= measures.sight_range_in
                    && sight::sight_between(
                        self,
                        scenario,
                        table,
                        (a, occupancies[i].hill_level),
                        (b, occupancies[j].hill_level),
                    )
                    .can_see;
                for (x, y) in [(i, j), (j, i)] {
                    distance[x * n + y] = d;
                    sees[x * n + y] = visible;
                }
            }
        }
        let pieces = table
            .pieces
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let occ = &occupancies[i];
                let command = command_range(scenario, table, piece);
                let mut fof_detail = Vec::new();
                let mut can_see = Vec::new();
                let mut enemies_near = Vec::new();
                for (j, other) in table.pieces.iter().enumerate() {
                    if i == j || !enemies(piece, other) {
                        continue;
                    }
                    let d = distance[i * n + j];
                    if d < third_foot {
                        enemies_near.push(other.id.clone());
                    }
                    if sees[i * n + j] {
                        can_see.push(other.id.clone());
                    }
                    if d <= measures.fof_depth_in
                        && let Some(fraction) =
                            fire::fire_given_sight(self, scenario, table, other, piece, || {
                                sees[i * n + j]
                            })
                    {
                        fof_detail.push(FofEntry {
                            id: other.id.clone(),
                            fraction_inside: (fraction * 1e4).round() / 1e4,
                        });
                    }
                }
                // "if you or a piece you support is in contact" [3.2]
                let supports_a_piece_in_contact = supporters
                    .iter()
                    .enumerate()
                    .any(|(lead, s)| *s == Some(i) && !contacts[lead].is_empty());
                let ctx = RallyContext {
                    in_contact: !contacts[i].is_empty() || supports_a_piece_in_contact,
                    in_enemy_fof: !fof_detail.is_empty(),
                    enemy_within_third_foot: !enemies_near.is_empty(),
                    in_buildings: occ.kind == Some(crate::scenario::TerrainKind::Buildings),
                };
                PieceReport {
                    id: piece.id.clone(),
                    side: piece.side.clone(),
                    kind: piece.kind,
                    status: piece.status,
                    terrain: occ.terrain_name(),
                    hill_level: occ.hill_level,
                    cover: occ.cover().map(str::to_owned),
                    in_command: command.as_ref().map(|c| c.in_command),
                    command_margin_in: command.as_ref().and_then(|c| c.margin_in).map(round_in),
                    commanded_by: command.as_ref().and_then(|c| c.hq.clone()),
                    in_fof_of: fof_detail.iter().map(|f| f.id.clone()).collect(),
                    fof_detail,
                    can_see,
                    flanked_by: flanked_by(self, scenario, table, i, &contacts),
                    in_contact_with: contacts[i]
                        .iter()
                        .map(|&j| table.pieces[j].id.clone())
                        .collect(),
                    supported_by: if enveloped[i] {
                        None
                    } else {
                        supporters[i]
                            .map(|s| table.pieces[s].id.clone())
                            .or_else(|| {
                                reserve_support(self, scenario, table, piece).map(|u| u.id.clone())
                            })
                    },
                    in_road_column: road_column(self, &scenario.terrain, piece).is_some(),
                    enemies_within_third_foot: enemies_near,
                    rally: rally(self, scenario, table, piece, ctx),
                    hex: None,
                    nbc: None,
                }
            })
            .collect();
        TableReport {
            rules: self.id(),
            measures: Measures::Inches(measures),
            pieces,
            hex_grid: None,
        }
    }

    fn check_move(
        &self,
        scenario: &Scenario,
        table: &TableState,
        piece: &Piece,
        to: Pose,
        to_status: Status,
        night: bool,
    ) -> MoveVerdict {
        check_move(self, scenario, table, piece, to, to_status, night)
    }

    fn sight(
        &self,
        scenario: &Scenario,
        table: &TableState,
        viewer: &Piece,
        target: &Piece,
    ) -> SightVerdict {
        line_of_sight(self, scenario, table, viewer, target)
    }
}

#[cfg(test)]
mod tests;
