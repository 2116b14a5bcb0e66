//! Whether a move between two poses is allowed.
//!
//! "Pieces must move in the direction they face and keep their facing while moving, or
//! move obliquely up to a 45° angle. Change facing free once at any time during the move
//! (rotate from the centre point). Each additional facing change costs 1/3 of the
//! move." "If you move through any or all types of difficult terrain, reduce your move
//! by 1/3. This is NOT cumulative." "Road Column: x2 … pay 1/3 of movement to enter or
//! leave road column … while moving in column along the same road: ignore terrain and
//! facing changes; you cannot move within 1/3 foot move of the enemy." [3.2]
//!
//! Only the start and end poses are known, so the path is taken as the straight line
//! between the two centres, with the fewest facing changes that explain it: none or one
//! (free) when the line lies within 45 degrees of the start or the end heading, else two
//! (turn, move, turn), one of which costs 1/3. Entering or leaving column costs 1/3; the
//! x2 applies when the piece starts and ends in column on the same road.

use geo::{BoundingRect, Contains, Intersects, Line, MultiPolygon, Point};

use super::command::command_range;
use super::contact::contact;
use super::fire::in_field_of_fire;
use super::terrain::{elevation_at, near, road_column};
use super::{PubBattles, Variant};
use crate::geom::{edge_distance, heading_difference, inside_intervals, vector_heading};
use crate::rules::MoveVerdict;
use crate::scenario::{Scenario, TerrainKind};
use crate::table::{MovementClass, Piece, Pose, Status, TableState, UnitKind};

/// Below this a centre has not moved: a pure pivot or hand jitter.
const STILL_IN: f64 = 0.05;
const OBLIQUE_LIMIT_DEG: f64 = 45.0;

/// Check a move of `piece` from where it stands to `to`, in state `to_status`.
/// `night` applies "cannot approach within 1/3 F of the enemy" and no attacks.
pub fn check_move(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    piece: &Piece,
    to: Pose,
    to_status: Status,
    night: bool,
) -> MoveVerdict {
    let m = &scenario.measures;
    let base = match piece.kind.movement_class() {
        MovementClass::Foot => m.foot_move_in,
        MovementClass::Mounted => m.mounted_move_in,
    };
    let unit = scenario
        .unit(&piece.id)
        .expect("table pieces come from the scenario");
    let moved = Piece {
        pose: to,
        status: to_status,
        footprint: scenario.footprint(unit, to, to_status),
        ..piece.clone()
    };
    let path = Line::new(piece.footprint.center, moved.footprint.center);
    let distance = path.delta().x.hypot(path.delta().y);
    let mut costs: Vec<String> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut thirds_lost = 0u32;
    let mut multiplier = 1.0;

    if piece.kind == UnitKind::SupplyTrain
        && piece.status == Status::Spent
        && to_status == Status::Spent
        && distance > STILL_IN
    {
        problems.push("an unpacked supply train cannot move; pack it (stand it up) first".into());
    }
    if piece.kind.is_combat()
        && piece.status == Status::Spent
        && to_status == Status::Fresh
        && distance > STILL_IN
    {
        problems.push("rallying (turning fresh) is done instead of moving".into());
    }

    let terrain = &scenario.terrain;
    let from_column = road_column(rules, terrain, piece);
    let to_column = road_column(rules, terrain, &moved);
    let column_march = matches!((from_column, to_column), (Some(a), Some(b)) if std::ptr::eq(a, b));
    if column_march {
        multiplier = 2.0;
        costs.push("road column along the same road: x2, terrain and facing ignored".into());
    } else if from_column.is_some() != to_column.is_some() && piece.kind.is_combat() {
        thirds_lost += 1;
        costs.push(format!(
            "-1/3 to {} road column",
            if to_column.is_some() {
                "enter"
            } else {
                "leave"
            }
        ));
    }

    // Facing.
    let turn = heading_difference(piece.pose.heading_deg, to.heading_deg);
    let tol = rules.options.facing_tolerance_deg;
    if !piece.kind.is_hq() && !column_march {
        let changes = if distance < STILL_IN {
            u32::from(turn > tol)
        } else {
            let travel = vector_heading(path.delta());
            let off_start = heading_difference(travel, piece.pose.heading_deg);
            let off_end = heading_difference(travel, to.heading_deg);
            let straight = off_start.min(off_end) <= OBLIQUE_LIMIT_DEG;
            match (turn > tol, straight) {
                (false, true) => 0,
                (true, true) => 1,
                (_, false) => {
                    costs.push(format!(
                        "the path runs {:.0} degrees off the facing (45 allowed): turn, move, turn",
                        off_start.min(off_end)
                    ));
                    2
                }
            }
        };
        if changes >= 2 {
            thirds_lost += changes - 1;
            costs.push(format!(
                "-1/3 for each facing change after the first ({changes} changes)"
            ));
        } else if changes == 1 {
            costs.push(format!("one free facing change ({turn:.0} degrees)"));
        }
    }

    // Terrain along the path and at the end.
    let path_box = path.bounding_rect();
    let end_poly = moved.footprint.polygon();
    let ignores_terrain =
        column_march || (piece.kind.is_hq() && rules.variant == Variant::QuickStart);
    let mut difficult: Vec<String> = Vec::new();
    let crossings: Vec<_> = terrain
        .features
        .iter()
        .filter(|f| matches!(f.kind, TerrainKind::Bridge | TerrainKind::Ford))
        .collect();
    for f in near(terrain, &path_box) {
        let crosses = f.area.intersects(&path) || f.area.intersects(&end_poly);
        if !crosses {
            continue;
        }
        let name = f
            .name
            .clone()
            .unwrap_or_else(|| super::terrain::kebab(f.kind));
        match f.kind {
            TerrainKind::Impassable => problems.push(format!("{name} is impassable")),
            TerrainKind::River => {
                let unbridged = f
                    .area
                    .0
                    .iter()
                    .flat_map(|poly| inside_intervals(path, poly))
                    .any(|iv| {
                        let mid = Point::from(path.start + path.delta() * ((iv.t0 + iv.t1) / 2.0));
                        !crossings.iter().any(|c| c.area.contains(&mid))
                    });
                let end_in_river = moved.footprint.fraction_inside(&f.area) > 0.5;
                if unbridged || end_in_river {
                    problems.push(format!(
                        "{name}: rivers are crossed only at bridges and fords"
                    ));
                } else if !column_march {
                    difficult.push(name);
                }
            }
            TerrainKind::Marsh => {
                let barred = piece.kind.is_artillery()
                    || matches!(piece.kind, UnitKind::Cavalry | UnitKind::Dragoons)
                    || (piece.kind == UnitKind::SupplyTrain && rules.variant == Variant::V32);
                if barred && !piece.kind.is_hq() {
                    problems.push(format!(
                        "{name}: no artillery or cavalry{} in marsh",
                        if rules.variant == Variant::V32 {
                            " or trains"
                        } else {
                            ""
                        }
                    ));
                } else if !ignores_terrain {
                    difficult.push(name);
                }
            }
            TerrainKind::Woods | TerrainKind::Buildings | TerrainKind::Stream
                if !ignores_terrain =>
            {
                difficult.push(name)
            }
            TerrainKind::Hill if !ignores_terrain => {
                let slope = f
                    .area
                    .0
                    .iter()
                    .any(|poly| poly.exterior().intersects(&path))
                    || elevation_at(terrain, path.start) != elevation_at(terrain, path.end);
                if slope {
                    difficult.push(format!("{name} (slope)"));
                }
            }
            _ => {}
        }
    }
    if !difficult.is_empty() {
        difficult.dedup();
        thirds_lost += 1;
        costs.push(format!(
            "-1/3 for difficult terrain ({}), not cumulative",
            difficult.join(", ")
        ));
    }

    // Other pieces.
    let third_foot = m.foot_move_in / 3.0;
    let mut attacking = Vec::new();
    for other in table.pieces.iter().filter(|o| o.id != piece.id) {
        let other_poly = other.footprint.polygon();
        if other.side != piece.side && !other.kind.is_hq() && !piece.kind.is_hq() {
            if contact(rules, &moved.footprint, &other.footprint).is_some() {
                attacking.push(other.id.clone());
            } else if other_poly.intersects(&path) {
                problems.push(format!("cannot move through enemy piece {}", other.id));
            }
            let before = edge_distance(&piece.footprint.polygon(), &other_poly);
            let after = edge_distance(&end_poly, &other_poly);
            // [3.2] "you cannot move within 1/3 foot move of the enemy"; [3.0] a column
            // "cannot move into an enemy FoF".
            if column_march && rules.variant != Variant::V30 && after < third_foot {
                problems.push(format!("a road column cannot move within 1/3 foot move ({third_foot:.2} in) of enemy {}: {after:.2} in", other.id));
            }
            if column_march
                && rules.variant == Variant::V30
                && in_field_of_fire(rules, scenario, table, other, &moved).is_some()
            {
                problems.push(format!(
                    "a road column cannot move into the field of fire of enemy {}",
                    other.id
                ));
            }
            if night && after < third_foot && after < before {
                problems.push(format!("at night no piece may approach within 1/3 foot move ({third_foot:.2} in) of the enemy: {} at {after:.2} in", other.id));
            }
        }
        if !other.kind.is_hq()
            && !piece.kind.is_hq()
            && moved
                .footprint
                .fraction_inside(&MultiPolygon(vec![other_poly.clone()]))
                * moved.footprint.area()
                > 0.01
        {
            problems.push(format!("pieces do not stack: ends on top of {}", other.id));
        }
    }
    if !attacking.is_empty() {
        if night {
            problems.push("no attacks at night".into());
        }
        if piece.kind.is_artillery() && distance > STILL_IN {
            problems.push("artillery can defend but cannot advance to attack".into());
        }
        if let Some(c) = command_range(rules, scenario, table, piece)
            && !c.in_command
        {
            problems.push(format!(
                "to attack, a piece must begin its move within command range ({:.2} in of its HQ)",
                c.range_in
            ));
        }
    } else {
        let in_fof: Vec<String> = table
            .pieces
            .iter()
            .filter(|s| s.side != piece.side)
            .filter(|s| in_field_of_fire(rules, scenario, table, s, &moved).is_some())
            .map(|s| s.id.clone())
            .collect();
        if !in_fof.is_empty() {
            warnings.push(format!(
                "ends with the majority of the piece in the field of fire of {}: allowed only when attacking or supporting an attack",
                in_fof.join(", ")
            ));
        }
    }

    let allowance = (base * multiplier - f64::from(thirds_lost) * base / 3.0).max(0.0);
    let margin = allowance - distance;
    if margin < 0.0 {
        problems.push(format!(
            "moves {distance:.2} in, {:.2} in more than its {allowance:.2} in",
            -margin
        ));
    }
    MoveVerdict {
        legal: problems.is_empty(),
        distance_in: distance,
        allowance_in: allowance,
        margin_in: margin,
        costs,
        problems,
        warnings,
    }
}
