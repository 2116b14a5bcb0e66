//! What the table says about a fight, for the dice: cover, flanks, river crossings.
//!
//! The dice (`dice::combat`) know the hit table and the modifiers; this module measures
//! the facts they need from the table, so a combat roll carries exactly the modifiers
//! the pieces' positions earn, each with its reason.

use geo::{Coord, Intersects, Line, MultiPolygon};
use serde::Serialize;

use super::contact::{all_enemy_contacts, contact, enveloped_with, flanked_by, reserve_support};
use super::fire::{fof_fraction, friend_in_line_of_fire};
use super::sight::line_of_sight;
use super::terrain::{occupancy, road_column};
use super::{HillCoverFrom, PubBattles, Variant, round_in};
use crate::dice::combat::{Combatant, Cover, Edition, FireFacts, Flank};
use crate::geom::{area_inside_convex, heading_vector};
use crate::scenario::{Scenario, TerrainKind};
use crate::table::{Piece, Pose, TableState};

/// The dice edition for a rules variant. The quick start's "3 dice for everything" is
/// closest to 3.2's table (dragoons and detachments differ), so it uses 3.2's.
pub fn edition(rules: &PubBattles) -> Edition {
    match rules.variant {
        Variant::V30 => Edition::V30,
        Variant::V32 | Variant::QuickStart => Edition::V32,
    }
}

/// A piece as the dice see it, with its support from the table: a piece directly
/// behind, unless the pair is enveloped ("el Apoyo se rompe", [`enveloped_with`]).
pub fn combatant(rules: &PubBattles, table: &TableState, piece: &Piece) -> Combatant {
    let enveloped = || {
        let contacts = all_enemy_contacts(rules, table);
        table
            .pieces
            .iter()
            .position(|p| p.id == piece.id)
            .is_some_and(|i| enveloped_with(rules, table, i, &contacts).is_some())
    };
    Combatant {
        supported: super::support_for(rules, table, piece).is_some() && !enveloped(),
        ..Combatant::from(piece)
    }
}

/// [`combatant`], with the support the scenario adds: the first Reserve piece when the
/// piece's HQ stands directly behind it ([`reserve_support`]).
pub fn combatant_on(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    piece: &Piece,
) -> Combatant {
    let mut c = combatant(rules, table, piece);
    if !c.supported {
        c.supported = reserve_support(rules, scenario, table, piece).is_some();
    }
    c
}

/// Whether `attacker` reached `defender` across a river. "Treat pieces attacking across a
/// River as Flanked for 1st round only" [3.2 Terrain chart]; the move examples weigh
/// where the piece is: "La mayor parte de la pieza está dentro o pasado el río". With the
/// attacker's start known, it attacked across when its path from there crossed river
/// water (it began with most of the piece in or past the river: for a footprint
/// symmetric about its centre, the centre's side of a bank is the majority's); without
/// it, when the line between the two centres crosses water, as the table alone shows.
/// A bridge or ford is still a river crossing.
pub(super) fn attacked_across_river(
    scenario: &Scenario,
    attacker: &Piece,
    defender: &Piece,
    attacker_start: Option<Pose>,
) -> bool {
    let line = match attacker_start {
        Some(start) => Line::new(
            Coord {
                x: start.x_in,
                y: start.y_in,
            },
            attacker.footprint.center,
        ),
        None => Line::new(attacker.footprint.center, defender.footprint.center),
    };
    scenario
        .terrain
        .features
        .iter()
        .any(|f| f.kind == TerrainKind::River && f.area.intersects(&line))
}

/// How `piece` is taken in flank by `other` in this fight: by the variant's flank rule
/// (see [`flanked_by`]; an enveloped pair counts as [`Flank::Envelopment`]), by standing
/// in road column ("Treat as Flanked"), or, for the side that attacked, by having
/// crossed a river.
fn flanks(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    (piece, other): (&Piece, &Piece),
    piece_attacks: bool,
    attacker_start: Option<Pose>,
) -> Vec<Flank> {
    let mut out = Vec::new();
    let index = table.pieces.iter().position(|p| p.id == piece.id);
    let contacts = all_enemy_contacts(rules, table);
    let flanked =
        index.is_some_and(|i| flanked_by(rules, scenario, table, i, &contacts).contains(&other.id));
    if flanked {
        let enveloped = index.is_some_and(|i| enveloped_with(rules, table, i, &contacts).is_some());
        out.push(if enveloped {
            Flank::Envelopment
        } else {
            Flank::Geometry
        });
    }
    if road_column(rules, &scenario.terrain, piece).is_some() {
        out.push(Flank::RoadColumn);
    }
    if piece_attacks && attacked_across_river(scenario, piece, other, attacker_start) {
        out.push(Flank::RiverCrossing);
    }
    out
}

/// The facts of one shot from `shooter` at `target`; `shooter_attacks` says which of the
/// two moved into the fight. Cover: woods and buildings always; a hill when the target
/// stands higher than the attacker came from ("Cover if the Attacker moved from lower
/// ground"): here, with no move known, the attacker's level now stands for it (see
/// [`fire_facts_from`]). Several covers count once.
pub fn fire_facts(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    shooter: &Piece,
    target: &Piece,
    shooter_attacks: bool,
) -> FireFacts {
    fire_facts_from(
        rules,
        scenario,
        table,
        shooter,
        target,
        shooter_attacks,
        None,
    )
}

/// [`fire_facts`] knowing where the attacker began its move. The hill cover is judged
/// from the hill level under the attacker there when
/// [`Options::hill_cover_from`](super::Options) is [`HillCoverFrom::StartOfMove`], and the
/// river crossing from its path ([`attacked_across_river`]).
pub fn fire_facts_from(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    shooter: &Piece,
    target: &Piece,
    shooter_attacks: bool,
    attacker_start: Option<Pose>,
) -> FireFacts {
    let t = occupancy(rules, &scenario.terrain, &target.footprint);
    let attacker = if shooter_attacks { shooter } else { target };
    let came_from = match (rules.options.hill_cover_from, attacker_start) {
        (HillCoverFrom::StartOfMove, Some(start)) if shooter_attacks => scenario
            .unit(&attacker.id)
            .map(|u| scenario.footprint(u, start, attacker.status)),
        _ => None,
    };
    let shooter_level = occupancy(
        rules,
        &scenario.terrain,
        came_from.as_ref().unwrap_or(&shooter.footprint),
    )
    .hill_level;
    let mut target_cover = Vec::new();
    match t.kind {
        Some(TerrainKind::Woods) => target_cover.push(Cover::Woods),
        Some(TerrainKind::Buildings) => target_cover.push(Cover::Buildings),
        _ => {}
    }
    if t.hill_level > shooter_level {
        target_cover.push(Cover::Hill);
    }
    FireFacts {
        target_cover,
        target_flanked: flanks(
            rules,
            scenario,
            table,
            (target, shooter),
            !shooter_attacks,
            attacker_start,
        ),
        shooter_flanked: flanks(
            rules,
            scenario,
            table,
            (shooter, target),
            shooter_attacks,
            attacker_start,
        ),
    }
}

/// Whether the two pieces touch (a 3.2 combat needs contact).
pub fn in_contact(rules: &PubBattles, a: &Piece, b: &Piece) -> bool {
    contact(rules, &a.footprint, &b.footprint).is_some()
}

/// Whether `gun` may bombard `target` from where they stand, with the numbers.
#[derive(Debug, Clone, Serialize)]
pub struct BombardVerdict {
    pub allowed: bool,
    /// Edge to edge.
    pub distance_in: f64,
    /// How far the variant lets the gun fire: 1 foot move (3.2, quick start), the field
    /// of fire's 1/3 foot move (3.0).
    pub range_in: f64,
    /// The fraction of the target inside the arc the variant asks for: the gun's field of
    /// fire (3.0) or the quick start's 45 degree line of fire. Null in 3.2, which has none.
    pub fraction_in_arc: Option<f64>,
    /// Why not, in words; empty when allowed.
    pub problems: Vec<String>,
}

/// Whether `gun` may bombard `target`. The gun's own state (fresh artillery) and the
/// target's (no supply trains) are the dice's to check ([`crate::dice::combat::bombard`]).
///
/// - 3.2: "En lugar de moverse, la artillería Fresca, no en contacto, puede cambiar de
///   orientación y disparar una vez a un objetivo, hasta un alcance de 1 movimiento a pie
///   completo." "Para bombardear, la artillería debe poder 'ver' su objetivo." "Puedes ver
///   a través de piezas pero no puedes disparar a través / sobre piezas amigas." The gun
///   may turn to fire, so there is no arc.
/// - 3.0: "Instead of moving, Fresh artillery can change facing and fire once at a target
///   in its FoF": the field of fire as it stands (1/3 foot move deep); "pieces block" its
///   sight.
/// - Quick start: "Line of Fire – A line measured from the center of a unit, that can see
///   at least half of its target and is within one foot move. The target must lay within
///   a 45-degree angle from the front": at least half of the target inside the wedge of
///   [`Options::qs_line_of_fire_half_angle_deg`](super::Options) either side of the
///   front, from the gun's centre.
pub fn bombardment(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    gun: &Piece,
    target: &Piece,
) -> BombardVerdict {
    let foot = scenario.measures.foot_move_in;
    let sight = line_of_sight(rules, scenario, table, gun, target);
    let mut problems = Vec::new();
    if let Some(e) = table
        .pieces
        .iter()
        .find(|p| p.side != gun.side && !p.kind.is_hq() && in_contact(rules, gun, p))
    {
        problems.push(format!(
            "{} is in contact with {}: only artillery not in contact bombards",
            gun.id, e.id
        ));
    }
    if let Some(b) = &sight.blocked_by {
        problems.push(format!("{} cannot see {}: {}", gun.id, target.id, b.reason));
    }
    if let Some(f) = friend_in_line_of_fire(table, gun, target) {
        problems.push(format!(
            "friendly piece {} stands on the line of fire: no firing through or over friendly pieces",
            f.id
        ));
    }
    let (range_in, fraction_in_arc) = match rules.variant {
        Variant::V32 => (foot, None),
        Variant::V30 => {
            let f = fof_fraction(rules, scenario, gun, target);
            if !rules.is_majority(f) {
                problems.push(format!(
                    "{} is not in {}'s field of fire ({:.0}% of it inside): 3.0 artillery fires \"at a target in its FoF\"",
                    target.id,
                    gun.id,
                    f * 100.0
                ));
            }
            (foot / 3.0, Some(f))
        }
        Variant::QuickStart => {
            let f = line_of_fire_fraction(rules, scenario, gun, target);
            if !rules.is_majority(f) {
                problems.push(format!(
                    "{} is not within the {:.0} degrees of {}'s front ({:.0}% of it inside): \"The target must lay within a 45-degree angle from the front\"",
                    target.id,
                    rules.options.qs_line_of_fire_half_angle_deg,
                    gun.id,
                    f * 100.0
                ));
            }
            (foot, Some(f))
        }
    };
    BombardVerdict {
        allowed: problems.is_empty(),
        distance_in: round_in(sight.distance_in),
        range_in,
        fraction_in_arc: fraction_in_arc.map(|f| (f * 1e4).round() / 1e4),
        problems,
    }
}

/// The fraction of `target` inside the quick start's line-of-fire wedge: from the gun's
/// centre, opening the option's angle either side of its heading, as deep as the target
/// could be within one foot move.
fn line_of_fire_fraction(
    rules: &PubBattles,
    scenario: &Scenario,
    gun: &Piece,
    target: &Piece,
) -> f64 {
    let half = rules
        .options
        .qs_line_of_fire_half_angle_deg
        .clamp(0.0, 89.0);
    let reach =
        scenario.measures.foot_move_in + gun.footprint.radius() + 2.0 * target.footprint.radius();
    let side = reach / half.to_radians().cos();
    let apex = gun.footprint.center;
    let heading = gun.footprint.heading_deg;
    let wedge = [
        apex,
        apex + heading_vector(heading - half) * side,
        apex + heading_vector(heading + half) * side,
    ];
    let inside = area_inside_convex(&MultiPolygon(vec![target.footprint.polygon()]), &wedge);
    (inside / target.footprint.area()).min(1.0)
}
