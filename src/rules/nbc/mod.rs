//! Napoleonic Battlefield Commander v1.1 [NBC]: the measured checks, in centimetres.
//!
//! Map positions stay in inches like everywhere else; every length is converted to cm
//! (x 2.54) and the report gives cm. The text covers only pages 1 to 24 (the digest,
//! section 3, lists what is lost). Implemented: aspects, Directly In Front, Behind the
//! Flank, Zone of Fire, the 10 cm Contact Zone, Flanked, the command radius, the Army
//! Commander's visibility radius, artillery targets, range bands and dice, firing lanes
//! through friends, the 2 cm woods penetration, the Pot. Not implemented, because the
//! text is missing or has lost its tables: movement rates, the Action phase and Command
//! Pot procedure, Firefight, Close Combat, Quality Check tables, Recovery, Garrisons,
//! Time-card values, the Skirmish dice table, weather changes.
//!
//! Choices where the text is silent (each is a reading, said so in the report too):
//! - distances (Contact Zone, Flanked, command radius, ranges) are edge to edge;
//! - an enemy is "engaged" when it has a unit of ours other than the flanked one in its
//!   Frontal Aspect within its Contact Zone;
//! - the firing lane is the straight strip, as wide as the battery, from its front edge
//!   to the target's centre; a unit merely touching its edge does not block it;
//! - a Vantage Point is any hill (the scenario designates them in the text);
//! - officers, trains and detachments-as-markers are not Units for contact or flanks:
//!   only infantry, cavalry, dragoons, artillery and detachments are.

pub mod dice;
pub mod geometry;

#[cfg(test)]
mod tests;

use geo::{Contains, Coord, Intersects, Line, LineString, Point, Polygon};
use serde::Serialize;

pub use geometry::{Aspect, Relation, in_zone_of_fire, relation};

use super::{Blocker, Measures, MoveVerdict, PieceReport, RuleSet, SightVerdict, TableReport};
use crate::geom::{edge_distance, inside_intervals};
use crate::model::CM_PER_IN;
use crate::scenario::{NbcEra, NbcSpec, RulesId, Scenario, TerrainKind, TimeOfDay, Weather};
use crate::table::{Piece, Pose, Status, TableState, UnitKind};

/// "Contact Zone: Within 10cm of the enemy."
pub const CONTACT_ZONE_CM: f64 = 10.0;
/// "Unit is Flanked: It has an un-engaged enemy Unit Behind its Flank and within 5cm."
pub const FLANK_CM: f64 = 5.0;
/// "artillery fire will only penetrate 2cm into woods or forests."
pub const WOODS_FIRE_CM: f64 = 2.0;
/// "Within 10cm of the Army Commander" gives +1 on Quality Checks.
pub const ARMY_COMMANDER_BONUS_CM: f64 = 10.0;

/// The NBC rules engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct Nbc;

#[derive(Debug, Clone, Serialize)]
pub struct CmMeasures {
    /// Always "cm".
    pub unit: &'static str,
    pub contact_zone_cm: f64,
    pub flank_cm: f64,
    pub woods_fire_penetration_cm: f64,
    /// Visibility for the scenario's time and weather: Normal, from a Vantage Point.
    pub visibility_cm: f64,
    pub vantage_visibility_cm: f64,
}

/// What the NBC rules say about one piece.
#[derive(Debug, Clone, Serialize)]
pub struct NbcPieceReport {
    pub frontage_cm: f64,
    pub depth_cm: f64,
    pub command: Option<CommandCheck>,
    pub army_commander: Option<ArmyCommanderCheck>,
    /// Enemy units within 10 cm, nearest first.
    pub contact_zone: Vec<Neighbour>,
    /// Un-engaged enemies Behind the Flank within 5 cm.
    pub flanked_by: Vec<Neighbour>,
    /// Every enemy unit within 30 cm with where it stands around this base.
    pub aspects: Vec<AspectEntry>,
    /// For artillery: every enemy within Long range, may fire or not and why.
    pub artillery: Vec<ArtilleryTarget>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Neighbour {
    pub id: String,
    pub distance_cm: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct AspectEntry {
    pub id: String,
    pub distance_cm: f64,
    #[serde(flatten)]
    pub relation: Relation,
}

#[derive(Debug, Clone, Serialize)]
pub struct CommandCheck {
    pub formation: String,
    pub commander: String,
    /// Units in the Formation times the Ability multiplier, rounded, clamped.
    pub radius_cm: f64,
    pub distance_cm: Option<f64>,
    pub margin_cm: Option<f64>,
    pub in_command: bool,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArmyCommanderCheck {
    pub id: String,
    pub on_vantage_point: bool,
    pub visibility_cm: f64,
    pub distance_cm: f64,
    pub within_visibility: bool,
    /// "+1" on Quality Checks within 10 cm.
    pub within_10cm: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArtilleryTarget {
    pub target: String,
    pub distance_cm: f64,
    pub band: dice::Band,
    /// Dice from the range band, plus one for a Q5/Q6 battery and minus one for
    /// plunging fire; skirmishers are not on the table and are left to the roll.
    pub dice: u32,
    pub allowed: bool,
    pub reason: String,
    /// The target's aspect as seen from it: fire "into Flank" re-rolls misses.
    pub into: Aspect,
    /// Battery and target stand on different levels (one die less beyond Short).
    pub different_level: bool,
}

fn cm(inches: f64) -> f64 {
    (inches * CM_PER_IN * 100.0).round() / 100.0
}

/// "Units" in the sense of contact and flanks: not officers, not trains.
fn is_unit(kind: UnitKind) -> bool {
    kind.is_combat()
}

fn centre(p: &Piece) -> Coord<f64> {
    p.footprint.center
}

/// Edge-to-edge distance in cm.
fn distance_cm(a: &Piece, b: &Piece) -> f64 {
    edge_distance(&a.footprint.polygon(), &b.footprint.polygon()) * CM_PER_IN
}

/// "Radius of Command ... calculated by multiplying the total number of units in his
/// Formation by the radius multiplier appropriate to his Ability Rating. (Round halves
/// and above up to the next whole number.)" Multipliers: A6 3.0, A5 2.8, A4 2.3, A3 1.8,
/// A2 1.5, A1 1.3; "Traditional 5cm 20cm; Napoleonic 10cm 25cm". It is counted from
/// the scenario's order of battle, so it does not shrink as units are lost.
pub fn command_radius_cm(units: usize, ability: u8, era: NbcEra) -> f64 {
    let multiplier = match ability {
        6 => 3.0,
        5 => 2.8,
        4 => 2.3,
        3 => 1.8,
        2 => 1.5,
        _ => 1.3,
    };
    // Round half up; the product is computed in tenths to keep 2.5 from being 2.4999.
    let tenths = (units as f64 * multiplier * 10.0).round();
    let raw = ((tenths + 5.0) / 10.0).floor();
    let (min, max) = match era {
        NbcEra::Traditional => (5.0, 20.0),
        NbcEra::Napoleonic => (10.0, 25.0),
    };
    raw.clamp(min, max)
}

/// The Visibility Chart: (Normal, Vantage Point, Fog) in cm. Evening Bright/Sunny fog
/// reads "10m" in the text, taken as 10 cm.
pub fn visibility_cm(time: TimeOfDay, weather: Weather) -> (f64, f64, f64) {
    use TimeOfDay::*;
    use Weather::*;
    match (time, weather) {
        (EarlyMorning, Sunny | Bright) => (15.0, 20.0, 5.0),
        (EarlyMorning, Overcast | Rain | Snow) => (10.0, 15.0, 5.0),
        (Day, Sunny) => (70.0, 100.0, 15.0),
        (Day, Bright) => (60.0, 90.0, 15.0),
        (Day, Overcast) => (40.0, 60.0, 10.0),
        (Day, Rain | Snow) => (30.0, 40.0, 10.0),
        (Evening, Sunny | Bright) => (40.0, 50.0, 10.0),
        (Evening, Overcast | Rain | Snow) => (30.0, 40.0, 5.0),
        (Night, _) => (5.0, 5.0, 2.0),
    }
}

fn conditions(scenario: &Scenario) -> NbcSpec {
    scenario.nbc.unwrap_or_default()
}

/// Visibility for a viewer, in cm: fog overrides; a Vantage Point lengthens it.
fn visibility_for(scenario: &Scenario, vantage: bool) -> f64 {
    let c = conditions(scenario);
    let (normal, high, fog) = visibility_cm(c.time, c.weather);
    if c.fog {
        fog
    } else if vantage {
        high
    } else {
        normal
    }
}

/// "An officer is said to occupy a Vantage Point if his base is completely on the
/// feature": every hill is taken as a Vantage Point.
fn on_vantage_point(scenario: &Scenario, piece: &Piece) -> bool {
    scenario
        .terrain
        .features
        .iter()
        .filter(|f| f.kind == TerrainKind::Hill)
        .any(|f| piece.footprint.fraction_inside(&f.area) >= 1.0 - 1e-9)
}

fn level(scenario: &Scenario, p: Coord<f64>) -> u8 {
    let pt = Point::from(p);
    scenario
        .terrain
        .features
        .iter()
        .filter(|f| f.kind == TerrainKind::Hill && f.area.contains(&pt))
        .map(|f| f.level)
        .max()
        .unwrap_or(0)
}

/// Lowest and highest level under a base's corners and centre.
fn levels(scenario: &Scenario, piece: &Piece) -> (u8, u8) {
    let mut pts = piece.footprint.corners().to_vec();
    pts.push(centre(piece));
    let ls: Vec<u8> = pts.iter().map(|&p| level(scenario, p)).collect();
    (
        *ls.iter().min().expect("five points"),
        *ls.iter().max().expect("five points"),
    )
}

fn in_woods(scenario: &Scenario, p: Coord<f64>) -> bool {
    let pt = Point::from(p);
    scenario
        .terrain
        .features
        .iter()
        .any(|f| f.kind == TerrainKind::Woods && f.area.contains(&pt))
}

impl Nbc {
    pub fn measures(&self, scenario: &Scenario) -> CmMeasures {
        CmMeasures {
            unit: "cm",
            contact_zone_cm: CONTACT_ZONE_CM,
            flank_cm: FLANK_CM,
            woods_fire_penetration_cm: WOODS_FIRE_CM,
            visibility_cm: visibility_for(scenario, false),
            vantage_visibility_cm: visibility_for(scenario, true),
        }
    }

    /// The command radius check for a unit of a Formation.
    fn command(
        &self,
        scenario: &Scenario,
        table: &TableState,
        piece: &Piece,
    ) -> Option<CommandCheck> {
        if !is_unit(piece.kind) {
            return None;
        }
        let formation = scenario.command(piece.command.as_deref()?)?;
        let commander = formation.hq.clone()?;
        let units = scenario
            .units
            .iter()
            .filter(|u| u.command.as_deref() == Some(formation.id.as_str()) && is_unit(u.kind))
            .count();
        let ability = formation.ability.unwrap_or(3);
        let radius_cm = command_radius_cm(units, ability, conditions(scenario).era);
        let why = format!(
            "{units} units x A{ability}{}",
            if formation.ability.is_none() {
                " (no ability given: A3 assumed)"
            } else {
                ""
            }
        );
        Some(match table.piece(&commander) {
            None => CommandCheck {
                formation: formation.id.clone(),
                commander,
                radius_cm,
                distance_cm: None,
                margin_cm: None,
                in_command: false,
                reason: format!("{why}; the Formation Commander is not on the table"),
            },
            Some(c) => {
                let d = distance_cm(c, piece);
                CommandCheck {
                    formation: formation.id.clone(),
                    commander,
                    radius_cm,
                    distance_cm: Some(round2(d)),
                    margin_cm: Some(round2(radius_cm - d)),
                    in_command: d <= radius_cm,
                    reason: format!("{why} = {radius_cm} cm radius, edge to edge"),
                }
            }
        })
    }

    fn army_commander(
        &self,
        scenario: &Scenario,
        table: &TableState,
        piece: &Piece,
    ) -> Option<ArmyCommanderCheck> {
        let ac = table
            .pieces
            .iter()
            .find(|p| p.kind == UnitKind::ArmyHq && p.side == piece.side && p.id != piece.id)?;
        let vantage = on_vantage_point(scenario, ac);
        let visibility_cm = visibility_for(scenario, vantage);
        let d = distance_cm(ac, piece);
        Some(ArmyCommanderCheck {
            id: ac.id.clone(),
            on_vantage_point: vantage,
            visibility_cm,
            distance_cm: round2(d),
            within_visibility: d <= visibility_cm,
            within_10cm: d <= ARMY_COMMANDER_BONUS_CM,
        })
    }

    /// Whether `enemy` is engaged: a unit of `piece`'s side other than `piece` is in its
    /// Frontal Aspect within its Contact Zone.
    fn engaged(&self, table: &TableState, enemy: &Piece, piece: &Piece) -> bool {
        table.pieces.iter().any(|o| {
            o.side == piece.side
                && o.id != piece.id
                && is_unit(o.kind)
                && relation(&enemy.footprint, centre(o)).aspect == Aspect::Frontal
                && distance_cm(enemy, o) <= CONTACT_ZONE_CM
        })
    }

    /// The firing lane from `battery` to `target`: the first piece that blocks it.
    /// "To fire through friendly troops, there must be a lane to the target at least as
    /// wide as the battery itself. Outside of the Contact Zone, enemy artillery may be
    /// fired through ... intervening troops ... do not cause an obstruction if they are
    /// entirely on a lower level than both the artillery Unit and its intended target."
    fn lane_blocker<'a>(
        &self,
        scenario: &Scenario,
        table: &'a TableState,
        battery: &Piece,
        target: &Piece,
    ) -> Option<&'a Piece> {
        let start = centre(battery);
        let end = centre(target);
        let d = end - start;
        let len = d.x.hypot(d.y);
        if len == 0.0 {
            return None;
        }
        let u = d / len;
        let v = Coord { x: -u.y, y: u.x };
        // Half the battery's frontage, less 0.5 mm so that a neighbour touching the
        // lane's edge does not count as in it.
        let half = battery.footprint.frontage_in / 2.0 - 0.05 / CM_PER_IN;
        let from = start + u * (battery.footprint.depth_in / 2.0);
        let lane = Polygon::new(
            LineString::from(vec![
                from + v * half,
                end + v * half,
                end - v * half,
                from - v * half,
                from + v * half,
            ]),
            vec![],
        );
        let (b_low, _) = levels(scenario, battery);
        let (t_low, _) = levels(scenario, target);
        table.pieces.iter().find(|p| {
            p.id != battery.id
                && p.id != target.id
                && is_unit(p.kind)
                && p.footprint.polygon().intersects(&lane)
                && !(p.side != battery.side
                    && p.kind.is_artillery()
                    && distance_cm(battery, p) > CONTACT_ZONE_CM)
                && levels(scenario, p).1 >= b_low.min(t_low)
        })
    }

    /// How far the line of fire runs inside woods before reaching the target (cm), if
    /// more than 2 cm: "artillery fire will only penetrate 2cm into woods or forests."
    fn woods_depth_cm(&self, scenario: &Scenario, battery: &Piece, target: &Piece) -> Option<f64> {
        let line = Line::new(centre(battery), centre(target));
        let len = line.delta().x.hypot(line.delta().y);
        let leave = inside_intervals(line, &battery.footprint.polygon())
            .iter()
            .map(|i| i.t1)
            .fold(0.0, f64::max);
        let reach = inside_intervals(line, &target.footprint.polygon())
            .iter()
            .map(|i| i.t0)
            .fold(1.0, f64::min);
        scenario
            .terrain
            .features
            .iter()
            .filter(|f| f.kind == TerrainKind::Woods)
            .flat_map(|f| {
                f.area
                    .0
                    .iter()
                    .flat_map(|poly| inside_intervals(line, poly))
            })
            .map(|i| (i.t1.min(reach) - i.t0.max(leave)).max(0.0) * len * CM_PER_IN)
            .fold(None, |worst: Option<f64>, depth| {
                Some(worst.map_or(depth, |w| w.max(depth)))
            })
            .filter(|&depth| depth > WOODS_FIRE_CM + 1e-9)
    }

    /// Artillery targets: "Attached artillery may only fire at the nearest Unit
    /// Directly in Front of the combined unit ... It may not fire at Long Range.
    /// Unattached artillery may fire at any unit in its Zone of Fire; but must fire at
    /// the nearest enemy it can fire at if there are one or more targets in its Contact
    /// Zone." The target must also be within visibility.
    fn artillery(
        &self,
        scenario: &Scenario,
        table: &TableState,
        battery: &Piece,
    ) -> Vec<ArtilleryTarget> {
        let Some(unit) = scenario.unit(&battery.id) else {
            return Vec::new();
        };
        // The scenario check makes every NBC battery name its weight.
        let (true, Some(weight)) = (battery.kind.is_artillery(), unit.weight) else {
            return Vec::new();
        };
        let visibility = visibility_for(scenario, false);
        let mut candidates: Vec<(&Piece, f64, dice::Band, u32)> = table
            .pieces
            .iter()
            .filter(|p| p.side != battery.side && is_unit(p.kind))
            .filter_map(|p| {
                let d = distance_cm(battery, p);
                dice::band(weight, d).map(|(b, n)| (p, d, b, n))
            })
            .collect();
        candidates.sort_by(|a, b| a.1.total_cmp(&b.1));
        let in_front = |p: &Piece| relation(&battery.footprint, centre(p)).directly_in_front;
        let nearest_in_front = table
            .pieces
            .iter()
            .filter(|p| p.id != battery.id && is_unit(p.kind) && in_front(p))
            .min_by(|a, b| distance_cm(battery, a).total_cmp(&distance_cm(battery, b)))
            .map(|p| p.id.clone());
        let (b_low, b_high) = levels(scenario, battery);
        let mut out = Vec::new();
        let mut must_fire_at: Option<String> = None;
        for &(target, d, band, base) in &candidates {
            let q = unit.q.unwrap_or(3);
            let (t_low, t_high) = levels(scenario, target);
            let different_level = (b_low, b_high) != (t_low, t_high);
            let plunging = different_level && band != dice::Band::Short;
            let n = base + u32::from(q >= 5) - u32::from(plunging);
            let mut problems: Vec<String> = Vec::new();
            if unit.attached {
                if nearest_in_front.as_deref() != Some(target.id.as_str()) {
                    problems.push(
                        "attached artillery fires only at the nearest Unit Directly in Front"
                            .into(),
                    );
                }
                if band == dice::Band::Long {
                    problems.push("attached artillery may not fire at Long Range".into());
                }
            } else if !in_zone_of_fire(&battery.footprint, centre(target)) {
                problems.push("not in the battery's Zone of Fire".into());
            }
            if d > visibility {
                problems.push(format!("beyond visibility ({visibility} cm)"));
            }
            if let Some(b) = self.lane_blocker(scenario, table, battery, target) {
                problems.push(format!(
                    "no lane as wide as the battery: {} is in the way",
                    b.id
                ));
            }
            if let Some(depth) = self.woods_depth_cm(scenario, battery, target) {
                problems.push(format!(
                    "{depth:.1} cm into woods: fire \"will only penetrate 2cm into woods\""
                ));
            }
            if problems.is_empty()
                && !unit.attached
                && d <= CONTACT_ZONE_CM
                && must_fire_at.is_none()
            {
                must_fire_at = Some(target.id.clone());
            }
            out.push(ArtilleryTarget {
                target: target.id.clone(),
                distance_cm: round2(d),
                band,
                dice: n,
                allowed: problems.is_empty(),
                reason: if problems.is_empty() {
                    format!("{band:?} range, {d:.1} cm")
                } else {
                    problems.join("; ")
                },
                into: relation(&target.footprint, centre(battery)).aspect,
                different_level,
            });
        }
        if let Some(nearest) = must_fire_at {
            for t in out.iter_mut().filter(|t| t.allowed && t.target != nearest) {
                t.allowed = false;
                t.reason = format!(
                    "{nearest} is in the Contact Zone: unattached artillery \"must fire at the nearest enemy it can fire at\""
                );
            }
        }
        out
    }

    /// Whether `viewer` sees `target`: "Visibility is not blocked by the presence of
    /// Units"; "Visibility inside and from inside to out is 5cm. Visibility from outside
    /// in is 2cm" for woods; otherwise the Visibility Chart.
    fn sees(&self, scenario: &Scenario, viewer: &Piece, target: &Piece) -> (bool, f64, f64) {
        let d = distance_cm(viewer, target);
        let limit = if in_woods(scenario, centre(viewer)) {
            5.0
        } else if in_woods(scenario, centre(target)) {
            2.0
        } else {
            visibility_for(scenario, false)
        };
        (d <= limit, d, limit)
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl RuleSet for Nbc {
    fn id(&self) -> RulesId {
        RulesId::Nbc
    }

    fn check_table(&self, scenario: &Scenario, table: &TableState) -> TableReport {
        let artillery: Vec<(String, Vec<ArtilleryTarget>)> = table
            .pieces
            .iter()
            .map(|p| (p.id.clone(), self.artillery(scenario, table, p)))
            .collect();
        let pieces = table
            .pieces
            .iter()
            .zip(&artillery)
            .map(|(piece, (_, guns))| {
                let enemies: Vec<(&Piece, f64)> = table
                    .pieces
                    .iter()
                    .filter(|p| p.side != piece.side && is_unit(p.kind))
                    .map(|p| (p, distance_cm(piece, p)))
                    .collect();
                let mut contact: Vec<Neighbour> = enemies
                    .iter()
                    .filter(|(_, d)| *d <= CONTACT_ZONE_CM)
                    .map(|(p, d)| Neighbour {
                        id: p.id.clone(),
                        distance_cm: round2(*d),
                    })
                    .collect();
                contact.sort_by(|a, b| a.distance_cm.total_cmp(&b.distance_cm));
                let flanked: Vec<Neighbour> = if is_unit(piece.kind) {
                    enemies
                        .iter()
                        .filter(|(e, d)| {
                            *d <= FLANK_CM
                                && relation(&piece.footprint, centre(e)).behind_the_flank
                                && !self.engaged(table, e, piece)
                                && (!e.kind.is_artillery()
                                    || scenario.unit(&e.id).is_some_and(|u| u.attached)
                                    || in_zone_of_fire(&e.footprint, centre(piece)))
                        })
                        .map(|(p, d)| Neighbour {
                            id: p.id.clone(),
                            distance_cm: round2(*d),
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let aspects = enemies
                    .iter()
                    .filter(|(_, d)| *d <= 30.0)
                    .map(|(p, d)| AspectEntry {
                        id: p.id.clone(),
                        distance_cm: round2(*d),
                        relation: relation(&piece.footprint, centre(p)),
                    })
                    .collect();
                let command = self.command(scenario, table, piece);
                let in_fof_of = artillery
                    .iter()
                    .filter(|(_, ts)| ts.iter().any(|t| t.allowed && t.target == piece.id))
                    .map(|(id, _)| id.clone())
                    .collect();
                let can_see = enemies
                    .iter()
                    .filter(|(p, _)| self.sees(scenario, piece, p).0)
                    .map(|(p, _)| p.id.clone())
                    .collect();
                let nbc = NbcPieceReport {
                    frontage_cm: cm(piece.footprint.frontage_in),
                    depth_cm: cm(piece.footprint.depth_in),
                    army_commander: self.army_commander(scenario, table, piece),
                    contact_zone: contact,
                    flanked_by: flanked,
                    aspects,
                    artillery: guns.clone(),
                    command: command.clone(),
                };
                PieceReport {
                    id: piece.id.clone(),
                    side: piece.side.clone(),
                    kind: piece.kind,
                    status: piece.status,
                    terrain: if in_woods(scenario, centre(piece)) {
                        "woods".into()
                    } else {
                        "clear".into()
                    },
                    hill_level: levels(scenario, piece).1,
                    cover: None,
                    in_command: command.as_ref().map(|c| c.in_command),
                    command_margin_in: command
                        .as_ref()
                        .and_then(|c| c.margin_cm)
                        .map(|m| super::pub_battles::round_in(m / CM_PER_IN)),
                    commanded_by: command.as_ref().map(|c| c.commander.clone()),
                    in_fof_of,
                    fof_detail: Vec::new(),
                    can_see,
                    flanked_by: nbc.flanked_by.iter().map(|n| n.id.clone()).collect(),
                    in_contact_with: nbc.contact_zone.iter().map(|n| n.id.clone()).collect(),
                    supported_by: None,
                    in_road_column: false,
                    enemies_within_third_foot: Vec::new(),
                    rally: None,
                    hex: None,
                    nbc: Some(nbc),
                }
            })
            .collect();
        TableReport {
            rules: RulesId::Nbc,
            measures: Measures::Cm(self.measures(scenario)),
            pieces,
            hex_grid: None,
        }
    }

    /// NBC's movement rates are on pages the text lacks, so a move cannot be judged
    /// for distance; what is judged is the Out of Command rule: a unit outside its
    /// command radius "may not move into the Contact Zone".
    fn check_move(
        &self,
        scenario: &Scenario,
        table: &TableState,
        piece: &Piece,
        to: Pose,
        to_status: Status,
        _night: bool,
    ) -> MoveVerdict {
        let d = to.x_in - piece.pose.x_in;
        let e = to.y_in - piece.pose.y_in;
        let distance_in = super::pub_battles::round_in(d.hypot(e));
        let mut problems = Vec::new();
        let warnings = vec![
            "NBC movement rates are missing from the rules text: distance not judged".to_owned(),
        ];
        if let Some(unit) = scenario.unit(&piece.id) {
            let moved = Piece {
                pose: to,
                status: to_status,
                footprint: scenario.footprint(unit, to, to_status),
                ..piece.clone()
            };
            let out_of_command = self
                .command(scenario, table, piece)
                .is_some_and(|c| !c.in_command);
            let was_in_contact = table.pieces.iter().any(|p| {
                p.side != piece.side && is_unit(p.kind) && distance_cm(piece, p) <= CONTACT_ZONE_CM
            });
            let now_in_contact = table.pieces.iter().find(|p| {
                p.side != piece.side && is_unit(p.kind) && distance_cm(&moved, p) <= CONTACT_ZONE_CM
            });
            if out_of_command
                && !was_in_contact
                && let Some(enemy) = now_in_contact
            {
                problems.push(format!(
                    "Out of Command: it \"may not move into the Contact Zone\" (of {})",
                    enemy.id
                ));
            }
        }
        MoveVerdict {
            legal: problems.is_empty(),
            distance_in,
            allowance_in: distance_in,
            margin_in: 0.0,
            costs: vec![format!("{:.1} cm", distance_in * CM_PER_IN)],
            problems,
            warnings,
        }
    }

    fn sight(
        &self,
        scenario: &Scenario,
        _table: &TableState,
        viewer: &Piece,
        target: &Piece,
    ) -> SightVerdict {
        let (can_see, d, limit) = self.sees(scenario, viewer, target);
        SightVerdict {
            can_see,
            distance_in: super::pub_battles::round_in(d / CM_PER_IN),
            range_in: super::pub_battles::round_in(limit / CM_PER_IN),
            blocked_by: (!can_see).then(|| Blocker {
                kind: "out-of-range".into(),
                name: None,
                at: None,
                reason: format!("{d:.1} cm, beyond visibility of {limit} cm"),
            }),
            seen_over: Vec::new(),
        }
    }
}
