//! What the table says about a fight, for the dice: cover, flanks, river crossings.
//!
//! The dice (`dice::combat`) know the hit table and the modifiers; this module measures
//! the facts they need from the table, so a combat roll carries exactly the modifiers
//! the pieces' positions earn, each with its reason.

use geo::{Intersects, Line};

use super::contact::{all_enemy_contacts, contact, flanked_by};
use super::terrain::{occupancy, road_column};
use super::{PubBattles, Variant};
use crate::dice::combat::{Combatant, Cover, Edition, FireFacts, Flank};
use crate::scenario::{Scenario, TerrainKind};
use crate::table::{Piece, TableState};

/// The dice edition for a rules variant. The quick start's "3 dice for everything" is
/// closest to 3.2's table (dragoons and detachments differ), so it uses 3.2's.
pub fn edition(rules: &PubBattles) -> Edition {
    match rules.variant {
        Variant::V30 => Edition::V30,
        Variant::V32 | Variant::QuickStart => Edition::V32,
    }
}

/// A piece as the dice see it, with its support from the table.
pub fn combatant(rules: &PubBattles, table: &TableState, piece: &Piece) -> Combatant {
    Combatant {
        supported: super::support_for(rules, table, piece).is_some(),
        ..Combatant::from(piece)
    }
}

/// Whether `attacker` reached `defender` across a river: the line between their centres
/// crosses river water (a bridge or ford is still a river crossing). "Pieces attacking
/// across a River count as Flanked for the 1st round only" [3.2 Terrain chart].
fn attacked_across_river(scenario: &Scenario, attacker: &Piece, defender: &Piece) -> bool {
    let line = Line::new(attacker.footprint.center, defender.footprint.center);
    scenario
        .terrain
        .features
        .iter()
        .any(|f| f.kind == TerrainKind::River && f.area.intersects(&line))
}

/// How `piece` is taken in flank by `other` in this fight: by the variant's flank rule
/// (see [`flanked_by`]), by standing in road column ("Treat as Flanked"), or, for the
/// side that attacked, by having crossed a river.
fn flanks(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    piece: &Piece,
    other: &Piece,
    piece_attacks: bool,
) -> Vec<Flank> {
    let mut out = Vec::new();
    let index = table.pieces.iter().position(|p| p.id == piece.id);
    let by_geometry = index.is_some_and(|i| {
        let contacts = all_enemy_contacts(rules, table);
        flanked_by(rules, scenario, table, i, &contacts).contains(&other.id)
    });
    if by_geometry {
        out.push(Flank::Geometry);
    }
    if road_column(rules, &scenario.terrain, piece).is_some() {
        out.push(Flank::RoadColumn);
    }
    if piece_attacks && attacked_across_river(scenario, piece, other) {
        out.push(Flank::RiverCrossing);
    }
    out
}

/// The facts of one shot from `shooter` at `target`; `shooter_attacks` says which of the
/// two moved into the fight. Cover: woods and buildings always; a hill when the target
/// stands higher than the shooter ("Cover if the Attacker moved from lower ground": the
/// shooter's level now stands for where it came from). Several covers count once.
pub fn fire_facts(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    shooter: &Piece,
    target: &Piece,
    shooter_attacks: bool,
) -> FireFacts {
    let t = occupancy(rules, &scenario.terrain, &target.footprint);
    let s = occupancy(rules, &scenario.terrain, &shooter.footprint);
    let mut target_cover = Vec::new();
    match t.kind {
        Some(TerrainKind::Woods) => target_cover.push(Cover::Woods),
        Some(TerrainKind::Buildings) => target_cover.push(Cover::Buildings),
        _ => {}
    }
    if t.hill_level > s.hill_level {
        target_cover.push(Cover::Hill);
    }
    FireFacts {
        target_cover,
        target_flanked: flanks(rules, scenario, table, target, shooter, !shooter_attacks),
        shooter_flanked: flanks(rules, scenario, table, shooter, target, shooter_attacks),
    }
}

/// Whether the two pieces touch (a 3.2 combat needs contact).
pub fn in_contact(rules: &PubBattles, a: &Piece, b: &Piece) -> bool {
    contact(rules, &a.footprint, &b.footprint).is_some()
}
