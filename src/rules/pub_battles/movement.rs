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
//! x2 applies when the piece starts and ends in column on the same road. The ground the
//! piece sweeps on the way is the convex hull of its start and end footprints (exact for
//! a move that keeps its heading, as a column march does): the column's and the night's
//! distance from the enemy, and the column's friendly pieces, are judged on all of it.

use geo::{BoundingRect, Contains, ConvexHull, Coord, Intersects, Line, MultiPolygon, Point, Rect};

use super::command::command_range;
use super::contact::{contact, edge_contact, may_support};
use super::fire::in_field_of_fire;
use super::terrain::{elevation_at, near, occupancy, road_column};
use super::{PubBattles, Variant};
use crate::geom::{
    Edge, Footprint, area_inside_convex, edge_distance, heading_difference, inside_intervals,
    vector_heading,
};
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
    // Terrain chart, Buildings: "Pieces in Buildings become Spent and cannot Rally."
    if piece.kind.is_combat()
        && to_status == Status::Fresh
        && occupancy(rules, &scenario.terrain, &moved.footprint).kind
            == Some(TerrainKind::Buildings)
    {
        problems.push(
            "ends fresh in buildings: \"Pieces in Buildings become Spent and cannot Rally\": lay it flat (spent)"
                .into(),
        );
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

    // Terrain along the path and at the end. Features near the path or the end
    // footprint are looked at, so an end pose is judged alike from every direction.
    let end_poly = moved.footprint.polygon();
    let search = cover_both(
        path.bounding_rect(),
        end_poly
            .bounding_rect()
            .expect("a footprint has four corners"),
    );
    let ignores_terrain =
        column_march || (piece.kind.is_hq() && rules.variant == Variant::QuickStart);
    let mut difficult: Vec<String> = Vec::new();
    let crossings: Vec<_> = terrain
        .features
        .iter()
        .filter(|f| matches!(f.kind, TerrainKind::Bridge | TerrainKind::Ford))
        .collect();
    let mut areal = Vec::new();
    for f in near(terrain, &search) {
        if f.kind == TerrainKind::Crest {
            // "Reduced to cross a slope": over the crest only by Options::crest_is_a_slope.
            let over = f.line.as_ref().is_some_and(|l| l.intersects(&path));
            if over && rules.options.crest_is_a_slope && !ignores_terrain {
                difficult.push(format!(
                    "{} (crest)",
                    f.hill
                        .as_deref()
                        .and_then(|h| hill_name(terrain, h))
                        .unwrap_or("hill")
                ));
            }
            continue;
        }
        let on_path = f.area.intersects(&path);
        if !on_path && !f.area.intersects(&end_poly) {
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
                } else if on_path && !column_march {
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
                    areal.push(f);
                }
            }
            TerrainKind::Woods | TerrainKind::Buildings if !ignores_terrain => areal.push(f),
            TerrainKind::Stream if on_path && !ignores_terrain => difficult.push(name),
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
    if !areal.is_empty() {
        let under = |t: f64| {
            let (heading, status) = if t < 0.5 {
                (piece.pose.heading_deg, piece.status)
            } else {
                (to.heading_deg, to_status)
            };
            let c = path.start + path.delta() * t;
            scenario.footprint(unit, Pose::new(c.x, c.y, heading), status)
        };
        difficult.extend(moved_through_by_majority(
            rules,
            scenario,
            &areal,
            path,
            [piece.footprint, moved.footprint],
            under,
        ));
    }
    if !difficult.is_empty() {
        difficult.sort();
        difficult.dedup();
        thirds_lost += 1;
        costs.push(format!(
            "-1/3 for difficult terrain ({}), not cumulative",
            difficult.join(", ")
        ));
    }

    // Other pieces.
    let third_foot = m.foot_move_in / 3.0;
    let start_poly = piece.footprint.polygon();
    let swept = MultiPolygon(vec![start_poly.clone(), end_poly.clone()]).convex_hull();
    let swept_ring: Vec<Coord<f64>> = swept.exterior().0.iter().skip(1).copied().collect();
    let mut attacking = Vec::new();
    for other in table.pieces.iter().filter(|o| o.id != piece.id) {
        let other_poly = other.footprint.polygon();
        if other.side != piece.side && !other.kind.is_hq() && !piece.kind.is_hq() {
            if contact(rules, &moved.footprint, &other.footprint).is_some() {
                attacking.push(other.id.clone());
            } else if other_poly.intersects(&path) {
                problems.push(format!("cannot move through enemy piece {}", other.id));
            }
            let before = edge_distance(&start_poly, &other_poly);
            let after = edge_distance(&end_poly, &other_poly);
            let along = || edge_distance(&swept, &other_poly);
            // [3.2] "No puedes mover a menos de 1/3 de movimiento a pie del enemigo": on
            // the whole path, unless the move only takes the column farther away.
            if column_march && rules.variant != Variant::V30 {
                let nearest = along();
                if after < third_foot || (nearest < third_foot && nearest < before - 1e-9) {
                    problems.push(format!(
                        "a road column cannot move within 1/3 foot move ({third_foot:.2} in) of enemy {}: {:.2} in on its way",
                        other.id,
                        nearest.min(after)
                    ));
                }
            }
            // [3.0] a column "cannot move into an enemy FoF".
            if column_march
                && rules.variant == Variant::V30
                && in_field_of_fire(rules, scenario, table, other, &moved).is_some()
            {
                problems.push(format!(
                    "a road column cannot move into the field of fire of enemy {}",
                    other.id
                ));
            }
            // [3.2] Night: "No puedes acercarte al enemigo a menos de 1/3 del movimiento a
            // pie", on the way as at the end.
            if night {
                let nearest = along();
                if nearest < third_foot && nearest < before - 1e-9 {
                    problems.push(format!("at night no piece may approach within 1/3 foot move ({third_foot:.2} in) of the enemy: {} at {nearest:.2} in on its way", other.id));
                }
            }
        }
        // [3.2] Road column, "No puedes mover a través de piezas amigas": the ground the
        // column sweeps overlaps a friendly piece (more than a hand's 0.01 sq in).
        if column_march
            && other.side == piece.side
            && !other.kind.is_hq()
            && area_inside_convex(&MultiPolygon(vec![other_poly.clone()]), &swept_ring) > 0.01
        {
            problems.push(format!(
                "a road column cannot move through friendly piece {}",
                other.id
            ));
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
        combat_notes(
            rules,
            scenario,
            table,
            piece,
            &moved,
            &attacking,
            &mut warnings,
        );
        if night {
            problems.push("no attacks at night".into());
        }
        if piece.kind.is_artillery() && distance > STILL_IN {
            problems.push("artillery can defend but cannot advance to attack".into());
        }
        if let Some(c) = command_range(scenario, table, piece)
            && !c.in_command
        {
            problems.push(format!(
                "to attack, a piece must begin its move within command range ({:.2} in of its HQ)",
                c.range_in
            ));
        }
    } else {
        end_in_enemy_fof(
            rules,
            scenario,
            table,
            piece,
            &moved,
            &mut problems,
            &mut warnings,
        );
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

/// The smallest rectangle holding both.
fn cover_both(a: Rect<f64>, b: Rect<f64>) -> Rect<f64> {
    Rect::new(
        Coord {
            x: a.min().x.min(b.min().x),
            y: a.min().y.min(b.min().y),
        },
        Coord {
            x: a.max().x.max(b.max().x),
            y: a.max().y.max(b.max().y),
        },
    )
}

/// The areal difficult terrain (woods, buildings, marsh) a move goes through. "Si te
/// mueves a través de alguno o todos los tipos de terreno difícil … reduce tu movimiento
/// en 1/3" [3.2], where "moviéndose a través de 2 tipos de terreno, claro y bosque … si
/// la mayor parte del terreno bajo una pieza es bosque, entonces tratamos a la unidad
/// como si estuviera en el bosque": the piece moves through a terrain type when, at some
/// point of its move, the majority of its footprint stands on it. Judged at the start,
/// the end, and the middle of each stretch where the centre line runs inside one of
/// `features` (the deepest the piece goes there); `under(t)` is the footprint at a
/// fraction `t` of the path.
fn moved_through_by_majority(
    rules: &PubBattles,
    scenario: &Scenario,
    features: &[&crate::scenario::TerrainFeature],
    path: Line<f64>,
    ends: [Footprint; 2],
    under: impl Fn(f64) -> Footprint,
) -> Vec<String> {
    let middles = features
        .iter()
        .flat_map(|f| f.area.0.iter())
        .flat_map(|poly| inside_intervals(path, poly))
        .map(|iv| under((iv.t0 + iv.t1) / 2.0));
    ends.into_iter()
        .chain(middles)
        .filter_map(|fp| {
            let occ = occupancy(rules, &scenario.terrain, &fp);
            match occ.kind {
                Some(k @ (TerrainKind::Woods | TerrainKind::Buildings | TerrainKind::Marsh)) => {
                    Some(occ.name.unwrap_or_else(|| super::terrain::kebab(k)))
                }
                _ => None,
            }
        })
        .collect()
}

/// "No puedes terminar tu movimiento con la mayoría de tu pieza en un FoF enemigo, a menos
/// que avances al Ataque. (o apoyes un ataque)." "Si comienzas tu movimiento en un FoF
/// enemigo, puedes permanecer allí SI: estás a cubierto; [u] otra pieza amiga Ataca (los
/// bombardeos cuentan) a ese enemigo, en este movimiento." [3.2]
///
/// A move that ends in an enemy field of fire without attacking is refused, unless the
/// piece ends directly behind a friendly piece in contact with the enemy (support), or
/// it started in that same field of fire: then it may stay when in cover, and otherwise
/// only if another piece attacks that enemy, which one move cannot tell (a warning).
/// 3.0 lost its Restrictions text and the quick start has none: there it is a warning.
fn end_in_enemy_fof(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    piece: &Piece,
    moved: &Piece,
    problems: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    let shooters: Vec<&Piece> = table
        .pieces
        .iter()
        .filter(|s| s.side != piece.side)
        .filter(|s| in_field_of_fire(rules, scenario, table, s, moved).is_some())
        .collect();
    if shooters.is_empty() {
        return;
    }
    if rules.variant != Variant::V32 {
        warnings.push(format!(
            "ends with the majority of the piece in the field of fire of {}: allowed only when attacking or supporting an attack",
            ids(&shooters)
        ));
        return;
    }
    if let Some(lead) = supported_lead_in_contact(rules, table, piece, moved) {
        warnings.push(format!(
            "ends in the field of fire of {}, allowed as support of {lead}, which is in contact",
            ids(&shooters)
        ));
        return;
    }
    let cover = occupancy(rules, &scenario.terrain, &moved.footprint).cover();
    for s in shooters {
        let stays = in_field_of_fire(rules, scenario, table, s, piece).is_some();
        match (stays, cover) {
            (true, Some(c)) => warnings.push(format!(
                "stays in the field of fire of {}: allowed, it is in cover ({c})",
                s.id
            )),
            (true, None) => warnings.push(format!(
                "stays in the field of fire of {} without cover: allowed only if another piece attacks {} this move; else it must attack or leave",
                s.id, s.id
            )),
            (false, _) => problems.push(format!(
                "cannot end the move with the majority of the piece in the field of fire of {} unless attacking or supporting an attack",
                s.id
            )),
        }
    }
}

fn ids(pieces: &[&Piece]) -> String {
    pieces
        .iter()
        .map(|p| p.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The friendly piece `moved` ends directly behind in support (its front edge on the
/// lead's rear edge), when that lead touches an enemy: "(o apoyes un ataque)".
fn supported_lead_in_contact<'t>(
    rules: &PubBattles,
    table: &'t TableState,
    piece: &Piece,
    moved: &Piece,
) -> Option<&'t str> {
    table
        .pieces
        .iter()
        .filter(|lead| {
            lead.side == piece.side
                && lead.id != piece.id
                && may_support(rules.variant, piece.kind, lead.kind)
                && edge_contact(
                    rules,
                    &lead.footprint,
                    Edge::Rear,
                    &moved.footprint,
                    Edge::Front,
                )
                .is_some()
        })
        .find(|lead| {
            table.pieces.iter().any(|e| {
                e.side != lead.side
                    && !e.kind.is_hq()
                    && contact(rules, &lead.footprint, &e.footprint).is_some()
            })
        })
        .map(|lead| lead.id.as_str())
}

/// A hill's name from its id.
fn hill_name<'t>(terrain: &'t crate::scenario::Terrain, id: &str) -> Option<&'t str> {
    terrain
        .features
        .iter()
        .find(|f| f.kind == TerrainKind::Hill && f.id.as_deref() == Some(id))
        .and_then(|f| f.name.as_deref())
}

/// What the move does to the coming combat, as `aide roll --attacker-from` will count it:
/// "Treat pieces attacking across a River as Flanked for 1st round only" and "Cover for
/// Defender if Attacker moved from lower ground" [3.2 Terrain chart], both judged from
/// where the move began.
fn combat_notes(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    piece: &Piece,
    moved: &Piece,
    attacking: &[String],
    notes: &mut Vec<String>,
) {
    let start_level = occupancy(rules, &scenario.terrain, &piece.footprint).hill_level;
    for defender in attacking.iter().filter_map(|id| table.piece(id)) {
        if super::combat::attacked_across_river(scenario, moved, defender, Some(piece.pose)) {
            notes.push(format!(
                "attacks {} across a river: counts as flanked in round 1",
                defender.id
            ));
        }
        let level = occupancy(rules, &scenario.terrain, &defender.footprint).hill_level;
        let from = match rules.options.hill_cover_from {
            super::HillCoverFrom::StartOfMove => start_level,
            super::HillCoverFrom::CurrentLevel => {
                occupancy(rules, &scenario.terrain, &moved.footprint).hill_level
            }
        };
        if level > from {
            notes.push(format!(
                "{} has hill cover: the attack comes from lower ground (level {from}, the defender's {level})",
                defender.id
            ));
        }
    }
}
