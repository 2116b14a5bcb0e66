//! Hand-worked cases for the hex rules. The test grid is flat-topped, 9 x 6, hexes of
//! size 2 in (neighbours 2 x sqrt 3 = 3.4641 in apart) on a 30 x 24 in map. In an even
//! column (c, r) the neighbours, side 0 to 5 clockwise from the top, are (c, r-1),
//! (c+1, r-1), (c+1, r), (c, r+1), (c-1, r), (c-1, r-1); odd columns sit half a hex
//! lower, so theirs are (c, r-1), (c+1, r), (c+1, r+1), (c, r+1), (c-1, r+1), (c-1, r).

use geo::Coord;

use super::*;
use crate::scenario::{HexOrientation, HexSpec, MapSpec};
use crate::table::Placement;

const UNITS: &[(&str, &str, &str, bool)] = &[
    ("b-inf", "blue", "infantry", false),
    ("b-inf2", "blue", "infantry", true),
    ("b-cav", "blue", "cavalry", false),
    ("b-art", "blue", "artillery", false),
    ("r-inf", "red", "infantry", false),
    ("r-inf2", "red", "infantry", false),
    ("r-cav", "red", "cavalry", false),
    ("r-art", "red", "artillery", false),
];

fn test_grid() -> HexGrid {
    let spec = HexSpec {
        size_in: Some(2.0),
        ..HexSpec::default()
    };
    HexGrid::new(
        &spec,
        &MapSpec {
            width_in: 30.0,
            height_in: 24.0,
            image: None,
            terrain: None,
        },
    )
}

/// A terrain feature: a square of half-width `half` around a point.
fn square(kind: &str, at: Coord<f64>, half: f64, extra: &str) -> String {
    let (x0, y0, x1, y1) = (at.x - half, at.y - half, at.x + half, at.y + half);
    format!(
        r#"{{"type":"Feature","properties":{{"terrain":"{kind}"{extra}}},"geometry":{{"type":"Polygon","coordinates":[[[{x0},{y0}],[{x1},{y0}],[{x1},{y1}],[{x0},{y1}],[{x0},{y0}]]]}}}}"#
    )
}

/// Terrain covering a hex's centre.
fn in_hex(kind: &str, hex: (i32, i32)) -> String {
    let extra = if kind == "hill" {
        r#","id":"h","level":1"#
    } else {
        ""
    };
    square(kind, test_grid().centre(Hex::new(hex.0, hex.1)), 0.5, extra)
}

/// Terrain on the shared side of two neighbouring hexes (a river, ford or road).
fn between(kind: &str, a: (i32, i32), b: (i32, i32)) -> String {
    let g = test_grid();
    let (ca, cb) = (g.centre(Hex::new(a.0, a.1)), g.centre(Hex::new(b.0, b.1)));
    square(kind, (ca + cb) / 2.0, 0.3, "")
}

struct World {
    scenario: Scenario,
    _dir: tempfile::TempDir,
}

fn world(terrain: &[String]) -> World {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("terrain.geojson"),
        format!(
            r#"{{"type":"FeatureCollection","features":[{}]}}"#,
            terrain.join(",")
        ),
    )
    .unwrap();
    let mut toml = String::from(
        r##"name = "hex test"
rules = "ohw-hex"
[map]
width_in = 30.0
height_in = 24.0
terrain = "terrain.geojson"
[hex]
size_in = 2.0
[[sides]]
id = "blue"
name = "Blue"
colour = "#00f"
home_edge = "bottom"
[[sides]]
id = "red"
name = "Red"
colour = "#f00"
home_edge = "top"
"##,
    );
    for (id, side, kind, commander) in UNITS {
        toml.push_str(&format!(
            "[[units]]\nid = \"{id}\"\nname = \"{id}\"\nside = \"{side}\"\nkind = \"{kind}\"\ncommander = {commander}\n"
        ));
    }
    let scenario = Scenario::from_toml(&dir.path().join("s.toml"), &toml).unwrap();
    World {
        scenario,
        _dir: dir,
    }
}

/// Pieces at hexes: (id, (col, row), heading).
fn table(w: &World, at: &[(&str, (i32, i32), f64)]) -> TableState {
    let g = grid_of(&w.scenario);
    let placements: Vec<Placement> = at
        .iter()
        .map(|(id, (c, r), h)| {
            let p = g.centre(Hex::new(*c, *r));
            Placement {
                id: (*id).into(),
                x_in: p.x,
                y_in: p.y,
                heading_deg: *h,
                status: Status::Fresh,
            }
        })
        .collect();
    w.scenario.table(&placements).unwrap()
}

fn move_to(w: &World, t: &TableState, id: &str, to: (i32, i32), heading: f64) -> MoveVerdict {
    let g = grid_of(&w.scenario);
    let p = g.centre(Hex::new(to.0, to.1));
    OhwHex.check_move(
        &w.scenario,
        t,
        t.piece(id).unwrap(),
        Pose::new(p.x, p.y, heading),
        Status::Fresh,
        false,
    )
}

fn hex_report<'a>(r: &'a TableReport, id: &str) -> &'a HexPieceReport {
    r.pieces
        .iter()
        .find(|p| p.id == id)
        .and_then(|p| p.hex.as_ref())
        .unwrap()
}

fn shot<'a>(r: &'a TableReport, from: &str, at: &str) -> Option<&'a ShotOption> {
    hex_report(r, from).shots.iter().find(|s| s.target == at)
}

// ---- the grid ----

#[test]
fn default_grid_is_nine_by_six_fitted_to_the_demo_map() {
    // 9 flat columns span 1.5 x 8 + 2 = 14 sizes; 6 rows span sqrt3 x 6.5 = 11.258
    // sizes. On 36 x 24 in the height limits: 24 / 11.258 = 2.1318 in.
    let g = HexGrid::new(
        &HexSpec::default(),
        &MapSpec {
            width_in: 36.0,
            height_in: 24.0,
            image: None,
            terrain: None,
        },
    );
    assert_eq!((g.columns, g.rows), (9, 6));
    assert!((g.size_in - 2.131_76).abs() < 1e-4, "{}", g.size_in);
    // Centred: the grid is 14 x 2.1318 = 29.845 wide, so hex (0, 0) sits at
    // (36 - 29.845) / 2 + 2.1318 = 5.2093 across and sqrt3/2 x 2.1318 = 1.8462 down.
    let c = g.centre(Hex::new(0, 0));
    assert!(
        (c.x - 5.2093).abs() < 1e-3 && (c.y - 1.8462).abs() < 1e-3,
        "{c:?}"
    );
    let geo = g.geometry();
    assert_eq!(geo.hexes.len(), 54);
    assert_eq!(
        geo.side_headings_deg,
        [0.0, 60.0, 120.0, 180.0, 240.0, 300.0]
    );
}

#[test]
fn points_snap_to_the_hex_they_lie_in() {
    let g = test_grid();
    let c = g.centre(Hex::new(3, 2));
    // 1.7 in straight up stays inside (the top side is sqrt3 = 1.732 in away) ...
    assert_eq!(g.hex_at(c + Coord { x: 0.0, y: -1.7 }), Hex::new(3, 2));
    // ... 1.77 in is across it, in (3, 1).
    assert_eq!(g.hex_at(c + Coord { x: 0.0, y: -1.77 }), Hex::new(3, 1));
    // Toward the right corner (2 in away): 1.95 in stays, 2.05 in is in a neighbour.
    assert_eq!(g.hex_at(c + Coord { x: 1.95, y: 0.0 }), Hex::new(3, 2));
    assert_ne!(g.hex_at(c + Coord { x: 2.05, y: 0.0 }), Hex::new(3, 2));
}

#[test]
fn facing_snaps_to_the_nearest_side() {
    let g = test_grid();
    assert_eq!(g.nearest_side(29.0).0, 0);
    assert_eq!(g.nearest_side(31.0).0, 1);
    assert_eq!(g.nearest_side(331.0).0, 0);
    let pointy = HexGrid {
        orientation: HexOrientation::Pointy,
        ..g
    };
    // Pointy hexes have sides at 30, 90, ... 330 degrees; side 1 faces due right.
    assert_eq!(pointy.nearest_side(59.0), (0, 29.0));
    assert_eq!(pointy.nearest_side(61.0).0, 1);
    assert_eq!(pointy.neighbours(Hex::new(2, 2))[1], Hex::new(3, 2));
    // Even rows: side 0 (up-right) is (2, 1); odd rows sit half a hex right.
    assert_eq!(pointy.neighbours(Hex::new(2, 2))[0], Hex::new(2, 1));
    assert_eq!(pointy.neighbours(Hex::new(2, 3))[0], Hex::new(3, 2));
}

#[test]
fn neighbours_and_distances() {
    let g = test_grid();
    let even = g.neighbours(Hex::new(2, 2));
    assert_eq!(
        even,
        [(2, 1), (3, 1), (3, 2), (2, 3), (1, 2), (1, 1)].map(|(c, r)| Hex::new(c, r))
    );
    let odd = g.neighbours(Hex::new(3, 2));
    assert_eq!(
        odd,
        [(3, 1), (4, 2), (4, 3), (3, 3), (2, 3), (2, 2)].map(|(c, r)| Hex::new(c, r))
    );
    assert_eq!(g.distance(Hex::new(2, 5), Hex::new(2, 1)), 4);
    assert_eq!(g.distance(Hex::new(2, 2), Hex::new(4, 2)), 2);
    // (2, 2) to (3, 3): down-right is (3, 2), then down: 2 hexes.
    assert_eq!(g.distance(Hex::new(2, 2), Hex::new(3, 3)), 2);
}

#[test]
fn the_ruler_counts_hexes_it_only_grazes() {
    let g = test_grid();
    // Straight up a column: only the hexes between.
    assert_eq!(
        g.hexes_touched(Hex::new(2, 5), Hex::new(2, 1)),
        vec![Hex::new(2, 4), Hex::new(2, 3), Hex::new(2, 2)]
    );
    // Along a row of even columns the line runs exactly along the side shared by
    // (1, 1) and (1, 2): both count.
    let mut along = g.hexes_touched(Hex::new(0, 2), Hex::new(2, 2));
    along.sort();
    assert_eq!(along, vec![Hex::new(1, 1), Hex::new(1, 2)]);
}

// ---- movement ----

#[test]
fn infantry_moves_one_hex_and_cavalry_two() {
    let w = world(&[]);
    let t = table(&w, &[("b-inf", (2, 4), 0.0), ("b-cav", (5, 4), 0.0)]);
    assert!(move_to(&w, &t, "b-inf", (2, 3), 0.0).legal);
    let v = move_to(&w, &t, "b-inf", (2, 2), 0.0);
    assert!(!v.legal && v.problems[0].contains("2 hexes"), "{v:?}");
    assert!(move_to(&w, &t, "b-cav", (5, 2), 0.0).legal);
    assert!(!move_to(&w, &t, "b-cav", (5, 1), 0.0).legal);
    // Allowance in inches for drawing: 2 x 3.4641.
    assert!((move_to(&w, &t, "b-cav", (5, 2), 0.0).allowance_in - 6.9282).abs() < 1e-3);
}

#[test]
fn entering_a_hex_next_to_an_enemy_stops_the_move_unless_a_river_is_between() {
    // Cavalry (2, 2) -> (2, 4) must pass (2, 3); red at (3, 3) is next to (2, 3).
    let w = world(&[]);
    let t = table(&w, &[("b-cav", (2, 2), 180.0), ("r-inf", (3, 3), 0.0)]);
    let v = move_to(&w, &t, "b-cav", (2, 4), 180.0);
    assert!(!v.legal);
    assert!(
        v.problems.iter().any(|p| p.contains("must stop at (2, 3)")),
        "{v:?}"
    );
    // Stopping in (2, 3) is legal.
    assert!(move_to(&w, &t, "b-cav", (2, 3), 180.0).legal);
    // A river between (2, 3) and (3, 3): the cavalry may ride on.
    let w = world(&[between("river", (2, 3), (3, 3))]);
    let t = table(&w, &[("b-cav", (2, 2), 180.0), ("r-inf", (3, 3), 0.0)]);
    let v = move_to(&w, &t, "b-cav", (2, 4), 180.0);
    assert!(v.legal, "{v:?}");
}

#[test]
fn entering_terrain_stops_the_move_unless_along_a_road() {
    let field = in_hex("field", (2, 3));
    let w = world(std::slice::from_ref(&field));
    let t = table(&w, &[("b-cav", (2, 2), 180.0)]);
    let v = move_to(&w, &t, "b-cav", (2, 4), 180.0);
    assert!(
        v.problems.iter().any(|p| p.contains("must stop at (2, 3)")),
        "{v:?}"
    );
    assert!(move_to(&w, &t, "b-cav", (2, 3), 180.0).legal);
    let w = world(&[
        field,
        between("road", (2, 2), (2, 3)),
        between("road", (2, 3), (2, 4)),
    ]);
    let t = table(&w, &[("b-cav", (2, 2), 180.0)]);
    assert!(move_to(&w, &t, "b-cav", (2, 4), 180.0).legal);
}

#[test]
fn terrain_entry_by_unit_type() {
    let w = world(&[
        in_hex("woods", (2, 1)),
        in_hex("rough", (3, 1)),
        in_hex("buildings", (1, 1)),
        in_hex("marsh", (2, 3)),
        in_hex("entrenchment", (3, 2)),
    ]);
    // Each unit alone on the table, moving out of (2, 2).
    let only = |id: &str| table(&w, &[(id, (2, 2), 0.0)]);
    let legal = |id: &str, to: (i32, i32)| move_to(&w, &only(id), id, to, 0.0).legal;
    // Woods: "only infantry can enter".
    assert!(legal("b-inf", (2, 1)));
    assert!(!legal("b-art", (2, 1)));
    assert!(!legal("b-cav", (2, 1)));
    // Difficult ground: infantry only.
    assert!(legal("b-inf", (3, 1)));
    assert!(!legal("b-cav", (3, 1)));
    // Towns: "only Infantry & cavalry may end a move in a town".
    assert!(legal("b-inf", (1, 1)));
    assert!(legal("b-cav", (1, 1)));
    assert!(!legal("b-art", (1, 1)));
    // Marsh: impassable to all.
    assert!(!legal("b-inf", (2, 3)));
    // Entrenchments: infantry and artillery only.
    assert!(legal("b-art", (3, 2)));
    assert!(!legal("b-cav", (3, 2)));
}

#[test]
fn rivers_need_a_crossing_and_streams_stop_artillery() {
    let w = world(&[between("river", (2, 2), (2, 1))]);
    let t = table(&w, &[("b-inf", (2, 2), 0.0)]);
    assert!(!move_to(&w, &t, "b-inf", (2, 1), 0.0).legal);
    let w = world(&[
        between("river", (2, 2), (2, 1)),
        between("ford", (2, 2), (2, 1)),
    ]);
    let t = table(&w, &[("b-inf", (2, 2), 0.0)]);
    assert!(move_to(&w, &t, "b-inf", (2, 1), 0.0).legal);
    let w = world(&[between("stream", (2, 2), (2, 1))]);
    let t = table(&w, &[("b-inf", (2, 2), 0.0), ("b-art", (4, 2), 0.0)]);
    assert!(move_to(&w, &t, "b-inf", (2, 1), 0.0).legal);
    let t = table(&w, &[("b-art", (2, 2), 0.0)]);
    let v = move_to(&w, &t, "b-art", (2, 1), 0.0);
    assert!(!v.legal && v.problems[0].contains("artillery"), "{v:?}");
}

#[test]
fn no_passing_through_or_stopping_on_units() {
    let w = world(&[]);
    let t = table(&w, &[("b-cav", (2, 2), 180.0), ("b-inf", (2, 3), 0.0)]);
    // (2, 2) -> (2, 4) has only one 2-hex path, through the friend in (2, 3).
    let v = move_to(&w, &t, "b-cav", (2, 4), 180.0);
    assert!(!v.legal && v.problems[0].contains("holds b-inf"), "{v:?}");
    assert!(!move_to(&w, &t, "b-cav", (2, 3), 180.0).legal);
    // (2, 2) -> (3, 3) has two paths: (3, 2) is free, so it is legal.
    assert!(move_to(&w, &t, "b-cav", (3, 3), 180.0).legal);
}

#[test]
fn may_not_leave_one_enemy_for_another() {
    let w = world(&[]);
    // Blue in (2, 2) next to red in (2, 1). (3, 2) is next to (4, 3), red's second unit.
    let t = table(
        &w,
        &[
            ("b-inf", (2, 2), 0.0),
            ("r-inf", (2, 1), 180.0),
            ("r-inf2", (4, 3), 0.0),
        ],
    );
    let v = move_to(&w, &t, "b-inf", (3, 2), 0.0);
    assert!(!v.legal, "{v:?}");
    assert!(v.problems[0].contains("next to r-inf2"), "{v:?}");
    // Without the second enemy it is legal ...
    let t = table(&w, &[("b-inf", (2, 2), 0.0), ("r-inf", (2, 1), 180.0)]);
    assert!(move_to(&w, &t, "b-inf", (3, 2), 0.0).legal);
    // ... and staying next to the same enemy is too: (3, 1) is next to (2, 2) and (3, 2).
    let t = table(&w, &[("b-inf", (2, 2), 0.0), ("r-inf", (3, 1), 180.0)]);
    let v = move_to(&w, &t, "b-inf", (3, 2), 0.0);
    assert!(v.legal && v.warnings.is_empty(), "{v:?}");
    // Ending there facing side 2 (120 deg), away from r-inf at (3, 1): it must turn.
    let v = move_to(&w, &t, "b-inf", (3, 2), 120.0);
    assert!(
        v.warnings
            .iter()
            .any(|w| w.contains("turns to face r-inf (side 0")),
        "{v:?}"
    );
}

// ---- shooting ----

#[test]
fn infantry_shoots_only_into_the_faced_hex_unless_in_a_town() {
    let w = world(&[]);
    let t = table(
        &w,
        &[
            ("b-inf", (2, 2), 0.0),
            ("r-inf", (2, 1), 180.0),
            ("r-inf2", (3, 1), 240.0),
        ],
    );
    let r = OhwHex.check_table(&w.scenario, &t);
    assert!(shot(&r, "b-inf", "r-inf").unwrap().allowed);
    assert!(!shot(&r, "b-inf", "r-inf2").unwrap().allowed);
    // r-inf2 faces 240 = side 4, toward (2, 2): it may shoot b-inf.
    assert!(shot(&r, "r-inf2", "b-inf").unwrap().allowed);
    // Turned 30.1 deg it faces side 1, (3, 1).
    let t = table(
        &w,
        &[
            ("b-inf", (2, 2), 30.1),
            ("r-inf", (2, 1), 180.0),
            ("r-inf2", (3, 1), 240.0),
        ],
    );
    let r = OhwHex.check_table(&w.scenario, &t);
    assert!(!shot(&r, "b-inf", "r-inf").unwrap().allowed);
    assert!(shot(&r, "b-inf", "r-inf2").unwrap().allowed);
    // In a town, any adjacent hex.
    let w = world(&[in_hex("buildings", (2, 2))]);
    let t = table(
        &w,
        &[
            ("b-inf", (2, 2), 0.0),
            ("r-inf", (2, 1), 180.0),
            ("r-inf2", (3, 1), 240.0),
        ],
    );
    let r = OhwHex.check_table(&w.scenario, &t);
    assert!(shot(&r, "b-inf", "r-inf").unwrap().allowed);
    assert!(shot(&r, "b-inf", "r-inf2").unwrap().allowed);
    // And r-inf's shot at b-inf is into cover.
    assert_eq!(
        shot(&r, "r-inf", "b-inf").unwrap().target_cover.as_deref(),
        Some("town")
    );
}

#[test]
fn only_units_that_did_not_move_shoot() {
    let w = world(&[]);
    let now = table(&w, &[("b-inf", (2, 2), 0.0), ("r-inf", (2, 1), 180.0)]);
    let same = OhwHex.check_turn(&w.scenario, &now, &now);
    assert_eq!(hex_report(&same, "b-inf").moved, Some(false));
    assert!(shot(&same, "b-inf", "r-inf").unwrap().allowed);
    let before = table(&w, &[("b-inf", (2, 3), 0.0), ("r-inf", (2, 1), 180.0)]);
    let r = OhwHex.check_turn(&w.scenario, &before, &now);
    assert_eq!(hex_report(&r, "b-inf").moved, Some(true));
    assert!(!shot(&r, "b-inf", "r-inf").unwrap().allowed);
    // Turning in place to another side is moving; 25 deg off the same side is not.
    let turned = table(&w, &[("b-inf", (2, 2), 60.0), ("r-inf", (2, 1), 180.0)]);
    assert_eq!(
        hex_report(&OhwHex.check_turn(&w.scenario, &turned, &now), "b-inf").moved,
        Some(true)
    );
    let nudged = table(&w, &[("b-inf", (2, 2), 25.0), ("r-inf", (2, 1), 180.0)]);
    assert_eq!(
        hex_report(&OhwHex.check_turn(&w.scenario, &nudged, &now), "b-inf").moved,
        Some(false)
    );
    // Without a previous state nothing is known to have moved.
    assert_eq!(
        hex_report(&OhwHex.check_table(&w.scenario, &now), "b-inf").moved,
        None
    );
}

#[test]
fn artillery_range_four_with_a_clear_ruler() {
    let w = world(&[]);
    let t = table(
        &w,
        &[
            ("b-art", (2, 5), 0.0),
            ("r-inf", (2, 1), 180.0),
            ("r-cav", (4, 0), 180.0),
        ],
    );
    let r = OhwHex.check_table(&w.scenario, &t);
    let s = shot(&r, "b-art", "r-inf").unwrap();
    assert!(s.allowed && s.range_hex == 4, "{s:?}");
    // (2, 5) to (4, 0) is 2 columns and 5 hexes: out of range, not listed.
    assert_eq!(w.scenario.rules, RulesId::OhwHex);
    assert!(shot(&r, "b-art", "r-cav").is_none());
    // A friend in (2, 3) blocks the ruler ...
    let t = table(
        &w,
        &[
            ("b-art", (2, 5), 0.0),
            ("r-inf", (2, 1), 180.0),
            ("b-inf", (2, 3), 0.0),
        ],
    );
    let s = OhwHex.check_table(&w.scenario, &t);
    let s = shot(&s, "b-art", "r-inf").unwrap();
    assert!(!s.allowed && s.reason.contains("(2, 3)"), "{s:?}");
    // ... unless the gun is on a hill.
    let w2 = world(&[in_hex("hill", (2, 5))]);
    let t2 = table(
        &w2,
        &[
            ("b-art", (2, 5), 0.0),
            ("r-inf", (2, 1), 180.0),
            ("b-inf", (2, 3), 0.0),
        ],
    );
    assert!(
        shot(&OhwHex.check_table(&w2.scenario, &t2), "b-art", "r-inf")
            .unwrap()
            .allowed
    );
    // Woods block even from a hill.
    let w3 = world(&[in_hex("hill", (2, 5)), in_hex("woods", (2, 3))]);
    let t3 = table(&w3, &[("b-art", (2, 5), 0.0), ("r-inf", (2, 1), 180.0)]);
    assert!(
        !shot(&OhwHex.check_table(&w3.scenario, &t3), "b-art", "r-inf")
            .unwrap()
            .allowed
    );
}

#[test]
fn a_ruler_along_a_side_is_blocked_by_either_hex() {
    let w = world(&[]);
    let t = table(
        &w,
        &[
            ("b-art", (0, 2), 90.0),
            ("r-inf", (2, 2), 270.0),
            ("b-inf", (1, 1), 0.0),
        ],
    );
    let r = OhwHex.check_table(&w.scenario, &t);
    assert!(!shot(&r, "b-art", "r-inf").unwrap().allowed);
    let t = table(
        &w,
        &[
            ("b-art", (0, 2), 90.0),
            ("r-inf", (2, 2), 270.0),
            ("b-inf", (1, 3), 0.0),
        ],
    );
    let r = OhwHex.check_table(&w.scenario, &t);
    assert!(shot(&r, "b-art", "r-inf").unwrap().allowed);
}

#[test]
fn artillery_does_not_fire_at_enemies_next_to_friends_except_adjacent() {
    let w = world(&[]);
    // (1, 1) is next to (2, 1) and not on the ruler from (2, 5).
    let t = table(
        &w,
        &[
            ("b-art", (2, 5), 0.0),
            ("r-inf", (2, 1), 180.0),
            ("b-inf", (1, 1), 90.0),
        ],
    );
    let r = OhwHex.check_table(&w.scenario, &t);
    let s = shot(&r, "b-art", "r-inf").unwrap();
    assert!(!s.allowed && s.reason.contains("b-inf"), "{s:?}");
    // Adjacent, the gun may fire though a friend is next to the target too.
    let t = table(
        &w,
        &[
            ("b-art", (2, 2), 0.0),
            ("r-inf", (2, 1), 180.0),
            ("b-inf", (1, 1), 90.0),
        ],
    );
    assert!(
        shot(&OhwHex.check_table(&w.scenario, &t), "b-art", "r-inf")
            .unwrap()
            .allowed
    );
}

#[test]
fn fields_are_cover_except_against_artillery() {
    let w = world(&[in_hex("field", (2, 1))]);
    let t = table(&w, &[("b-art", (2, 3), 0.0), ("r-inf", (2, 1), 180.0)]);
    let r = OhwHex.check_table(&w.scenario, &t);
    assert_eq!(shot(&r, "b-art", "r-inf").unwrap().target_cover, None);
    let t = table(&w, &[("b-inf", (2, 2), 0.0), ("r-inf", (2, 1), 180.0)]);
    let r = OhwHex.check_table(&w.scenario, &t);
    assert_eq!(
        shot(&r, "b-inf", "r-inf").unwrap().target_cover.as_deref(),
        Some("field")
    );
}

#[test]
fn the_report_keeps_the_pub_battles_keys_and_adds_the_grid() {
    let w = world(&[]);
    let t = table(&w, &[("b-inf2", (2, 2), 0.0), ("r-inf", (2, 1), 180.0)]);
    let json = serde_json::to_value(OhwHex.check_table(&w.scenario, &t)).unwrap();
    let p = &json["pieces"][0];
    for key in [
        "id",
        "terrain",
        "in_command",
        "command_margin_in",
        "in_fof_of",
        "can_see",
        "flanked_by",
    ] {
        assert!(p.get(key).is_some(), "{key}");
    }
    assert_eq!(p["can_see"], serde_json::json!(["r-inf"]));
    assert_eq!(p["in_fof_of"], serde_json::json!(["r-inf"]));
    assert_eq!(p["hex"]["commander"], true);
    assert_eq!(json["measures"]["unit"], "hex");
    assert_eq!(json["hex_grid"]["hexes"].as_array().unwrap().len(), 54);
}

// ---- morale on the table ----

#[test]
fn morale_on_the_table_takes_commander_and_entrenchment_from_the_table() {
    use super::dice::{MoraleOutcome, morale_on_table};
    use crate::dice::{RollId, Roller};
    let w = world(&[in_hex("entrenchment", (2, 2))]);
    let t = table(
        &w,
        &[
            ("b-inf", (2, 2), 0.0),
            ("b-inf2", (4, 2), 0.0),
            ("r-inf", (6, 2), 180.0),
        ],
    );
    // "Entrenched units never take moral checks": no dice, whatever the hits.
    let m = morale_on_table(
        &w.scenario,
        &t,
        "b-inf",
        8,
        false,
        &mut Roller::replay(RollId(1)),
    )
    .unwrap();
    assert!(m.entrenched);
    assert_eq!(
        (m.result.dice.len(), m.result.outcome),
        (0, MoraleOutcome::NotTested)
    );
    // With 8 hits, a 2D6 of 8 or less fails and 9 or more passes. b-inf2 has its
    // commander (the scenario attaches one): a failure costs the commander, not the unit;
    // once the commander is lost, a failure routs it; r-inf has none and routs.
    let (mut failed, mut passed) = (0, 0);
    for seed in 0..60 {
        let roll = |id: &str, lost: bool| {
            morale_on_table(
                &w.scenario,
                &t,
                id,
                8,
                lost,
                &mut Roller::replay(RollId(seed)),
            )
            .unwrap()
        };
        let (with, lost, none) = (
            roll("b-inf2", false),
            roll("b-inf2", true),
            roll("r-inf", false),
        );
        assert!(with.commander && !lost.commander && !none.commander && !with.entrenched);
        let total: u8 = with.result.dice.iter().sum();
        assert_eq!(with.result.dice.len(), 2);
        assert_eq!(with.result.total, total);
        let want = |fail| {
            if total <= 8 {
                fail
            } else {
                MoraleOutcome::Passed
            }
        };
        assert_eq!(
            with.result.outcome,
            want(MoraleOutcome::CommanderLost),
            "{total}"
        );
        assert_eq!(lost.result.outcome, want(MoraleOutcome::Routed), "{total}");
        assert_eq!(none.result.outcome, want(MoraleOutcome::Routed), "{total}");
        if total <= 8 { failed += 1 } else { passed += 1 }
    }
    assert!(failed > 0 && passed > 0, "{failed} failed, {passed} passed");
    // No hits (the Demoralised card): 2D6 is at least 2, always more than 0.
    let m = morale_on_table(
        &w.scenario,
        &t,
        "r-inf",
        0,
        false,
        &mut Roller::replay(RollId(5)),
    )
    .unwrap();
    assert_eq!(m.result.outcome, MoraleOutcome::Passed);
    // "Exceed 8 hits": removed already, no test; a piece not on the table is named.
    assert!(matches!(
        morale_on_table(&w.scenario, &t, "r-inf", 9, false, &mut Roller::replay(RollId(5))),
        Err(crate::rules::TableRollError::Refused(why)) if why.contains("exceed 8 hits")
    ));
    assert!(matches!(
        morale_on_table(&w.scenario, &t, "r-cav", 1, false, &mut Roller::replay(RollId(5))),
        Err(crate::rules::TableRollError::NotOnTable(id)) if id == "r-cav"
    ));
}
