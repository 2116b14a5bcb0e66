//! Hand-computed cases for every Pub Battles check, on `tests/fixtures/mini`.
//!
//! Geometry reminders used in the expectations: a fresh block is 1.875 x 0.375 in, a
//! spent one 1.875 x 0.75 in, an HQ cube 0.375 in; a piece facing 0 has its front edge
//! toward smaller y. Command range is 7.5 / 3 = 2.5 in; a field of fire is 5.25 / 3 =
//! 1.75 in deep; sight reaches 5.25 in.

use std::path::Path;

use super::*;
use crate::scenario::{Scenario, Terrain};
use crate::table::{Placement, Status, TableState};

const TOML: &str = include_str!("../../../tests/fixtures/mini/scenario.toml");
const TERRAIN: &str = include_str!("../../../tests/fixtures/mini/terrain.geojson");

/// A detachment for Red, last in the order of battle (so no test's first reserve piece).
const DETACHMENT: &str = r#"
[[units]]
id = "rdet"
name = "Red Skirmishers"
side = "red"
command = "r-1"
kind = "detachment"
"#;

fn scenario(rules: &str) -> Scenario {
    let text = (TOML.to_owned() + DETACHMENT)
        .replace("terrain = \"terrain.geojson\"\n", "")
        .replace("pub-battles-3.2", rules);
    let mut s = Scenario::from_toml(Path::new("mini.toml"), &text).unwrap();
    s.terrain = Terrain::parse(Path::new("terrain.geojson"), TERRAIN).unwrap();
    s
}

fn at(id: &str, x: f64, y: f64, h: f64) -> Placement {
    Placement {
        id: id.into(),
        x_in: x,
        y_in: y,
        heading_deg: h,
        status: Status::Fresh,
    }
}

fn spent(mut p: Placement) -> Placement {
    p.status = Status::Spent;
    p
}

struct Case {
    scenario: Scenario,
    rules: PubBattles,
    table: TableState,
}

fn case(rules: &str, placements: &[Placement]) -> Case {
    let scenario = scenario(rules);
    let table = scenario.table(placements).unwrap();
    let rules = PubBattles::new(scenario.rules);
    Case {
        scenario,
        rules,
        table,
    }
}

fn v32(placements: &[Placement]) -> Case {
    case("pub-battles-3.2", placements)
}

impl Case {
    fn report(&self, id: &str) -> PieceReport {
        self.rules
            .check_table(&self.scenario, &self.table)
            .pieces
            .into_iter()
            .find(|p| p.id == id)
            .unwrap()
    }
    fn piece(&self, id: &str) -> &Piece {
        self.table.piece(id).unwrap()
    }
    fn sees(&self, a: &str, b: &str) -> SightVerdict {
        line_of_sight(
            &self.rules,
            &self.scenario,
            &self.table,
            self.piece(a),
            self.piece(b),
        )
    }
    fn fof(&self, shooter: &str, target: &str) -> Option<f64> {
        in_field_of_fire(
            &self.rules,
            &self.scenario,
            &self.table,
            self.piece(shooter),
            self.piece(target),
        )
    }
    fn mv(&self, id: &str, x: f64, y: f64, h: f64) -> MoveVerdict {
        check_move(
            &self.rules,
            &self.scenario,
            &self.table,
            self.piece(id),
            Pose::new(x, y, h),
            self.piece(id).status,
            false,
        )
    }
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

// ---- command range ----

#[test]
fn command_range_is_one_third_mounted_move_edge_to_edge() {
    // HQ cube spans y 9.8125..10.1875; a block facing 0 at y = c has its front edge at
    // c - 0.1875, so the gap is c - 10.375.
    let c = v32(&[
        at("rh", 10.0, 10.0, 0.0),
        at("r1", 10.0, 12.855, 0.0),
        at("r2", 14.0, 12.895, 0.0),
    ]);
    let r1 = c.report("r1");
    assert_eq!(r1.in_command, Some(true));
    assert!(
        near(r1.command_margin_in.unwrap(), 0.02),
        "{:?}",
        r1.command_margin_in
    );
    assert_eq!(r1.commanded_by.as_deref(), Some("rh"));
    let c = v32(&[at("rh", 10.0, 10.0, 0.0), at("r1", 10.0, 12.895, 0.0)]);
    let r1 = c.report("r1");
    assert_eq!(r1.in_command, Some(false));
    assert!(near(r1.command_margin_in.unwrap(), -0.02));
}

#[test]
fn command_range_only_has_to_touch_the_piece() {
    // Block beside the HQ, 2.4 in from the cube's right face to its own left end: almost
    // all of the block lies beyond 2.5 in, yet the range touches it.
    let x = 10.1875 + 2.4 + 0.9375;
    let c = v32(&[at("rh", 10.0, 10.0, 0.0), at("r1", x, 10.0, 0.0)]);
    let r1 = c.report("r1");
    assert_eq!(r1.in_command, Some(true));
    assert!(near(r1.command_margin_in.unwrap(), 0.1));
}

#[test]
fn the_army_hq_commands_every_unit_and_a_missing_hq_is_out_of_command() {
    let c = v32(&[
        at("rh", 30.0, 10.0, 0.0),
        at("ra", 10.0, 10.0, 0.0),
        at("r1", 10.0, 12.0, 0.0),
    ]);
    let r1 = c.report("r1");
    assert_eq!(
        (r1.in_command, r1.commanded_by.as_deref()),
        (Some(true), Some("ra"))
    );
    assert!(near(
        r1.command_margin_in.unwrap(),
        2.5 - (12.0 - 0.1875 - 10.1875)
    ));
    let c = v32(&[at("r1", 10.0, 12.0, 0.0)]);
    let r1 = c.report("r1");
    assert_eq!((r1.in_command, r1.command_margin_in), (Some(false), None));
    // The corps HQ is measured to its army HQ; the army HQ has no commander.
    let c = v32(&[at("rh", 10.0, 12.0, 0.0), at("ra", 10.0, 10.0, 0.0)]);
    assert!(near(c.report("rh").command_margin_in.unwrap(), 2.5 - 1.625));
    assert_eq!(c.report("ra").in_command, None);
}

#[test]
fn quick_start_measures_command_from_the_closest_edges() {
    // "Command Range – 1/3 mounted move as measured from closest edges" (QS). The cube
    // spans y 9.8125..10.1875; a block facing 0 at y = c has its front edge at
    // c - 0.1875: gap c - 10.375, so 12.855 is 2.48 in (in by 0.02) and 12.895 is 2.52
    // (out by 0.02). Measured from the cube's centre, 12.855 was 2.6675 in: out.
    let c = case(
        "pub-battles-qs",
        &[at("rh", 10.0, 10.0, 0.0), at("r1", 10.0, 12.855, 0.0)],
    );
    let r1 = c.report("r1");
    assert_eq!(r1.in_command, Some(true));
    assert!(near(r1.command_margin_in.unwrap(), 0.02), "{r1:?}");
    let c = case(
        "pub-battles-qs",
        &[at("rh", 10.0, 10.0, 0.0), at("r1", 10.0, 12.895, 0.0)],
    );
    let r1 = c.report("r1");
    assert_eq!(r1.in_command, Some(false));
    assert!(near(r1.command_margin_in.unwrap(), -0.02), "{r1:?}");
}

// ---- terrain ----

#[test]
fn terrain_is_the_type_under_the_majority_of_the_footprint() {
    // Square Wood spans x 4..8. A block centred at x = 8.0 + 0.9375 - f * 1.875 has a
    // fraction f of its length inside.
    let inside = |f: f64| 8.0 + 0.9375 - f * 1.875;
    let c = v32(&[
        at("r1", inside(0.52), 6.0, 0.0),
        at("r2", inside(0.48), 7.0, 0.0),
    ]);
    assert_eq!(c.report("r1").terrain, "woods");
    assert_eq!(c.report("r1").cover.as_deref(), Some("woods"));
    assert_eq!(c.report("r2").terrain, "clear");
    assert_eq!(c.report("r2").cover, None);
    // The quick start's "at least half" takes exactly half.
    let c = case("pub-battles-qs", &[at("r1", inside(0.5), 6.0, 0.0)]);
    assert_eq!(c.report("r1").terrain, "woods");
    let c = v32(&[at("r1", inside(0.5), 6.0, 0.0)]);
    assert_eq!(c.report("r1").terrain, "clear");
}

/// Two woods touching along x = 10: "Old Wood" x 8..10 and "New Wood" x 10..10.5, y 0..4.
fn two_woods() -> Terrain {
    let text = r#"{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"terrain":"woods","name":"Old Wood"},"geometry":{"type":"Polygon","coordinates":[[[8,0],[10,0],[10,4],[8,4],[8,0]]]}},
{"type":"Feature","properties":{"terrain":"woods","name":"New Wood"},"geometry":{"type":"Polygon","coordinates":[[[10,0],[10.5,0],[10.5,4],[10,4],[10,0]]]}}]}"#;
    Terrain::parse(Path::new("t.geojson"), text).unwrap()
}

#[test]
fn the_majority_is_counted_per_terrain_type_not_per_feature() {
    // "Estar sólo en 1 tipo de terreno: el que esté bajo la mayor parte de la pieza".
    // The two woods cover x 8..10.5. A block facing 0 centred at x = c spans
    // c - 0.9375..c + 0.9375; with c + 0.9375 past 10.5 its fraction in woods is
    // (10.5 - c + 0.9375) / 1.875: c = 10.4625 gives 0.52 (0.2533 in Old Wood, 0.2667 in
    // New Wood: neither alone a majority), c = 10.5375 gives 0.48.
    let mut c = v32(&[at("r1", 10.4625, 2.0, 0.0), at("r2", 10.5375, 3.0, 0.0)]);
    c.scenario.terrain = two_woods();
    let r1 = c.report("r1");
    assert_eq!(
        (r1.terrain.as_str(), r1.cover.as_deref()),
        ("woods", Some("woods"))
    );
    let occ = occupancy(&c.rules, &c.scenario.terrain, &c.piece("r1").footprint);
    assert!(near(occ.fractions[0].1, 0.52), "{occ:?}");
    assert_eq!(occ.name.as_deref(), Some("New Wood"));
    assert_eq!(c.report("r2").terrain, "clear");
}

#[test]
fn woods_on_a_hill_is_one_cover_not_two() {
    // "Firing at a Defender on a Hill and in Woods is still -1, not -2" [3.2]: the
    // copse on Long Ridge gives the one cover "woods", at hill level 1.
    let c = v32(&[at("r1", 27.5, 21.5, 0.0)]);
    let r1 = c.report("r1");
    assert_eq!(
        (r1.terrain.as_str(), r1.hill_level, r1.cover.as_deref()),
        ("woods", 1, Some("woods"))
    );
    let c = v32(&[at("r1", 22.5, 24.0, 0.0)]);
    let r1 = c.report("r1");
    assert_eq!(
        (r1.terrain.as_str(), r1.hill_level, r1.cover),
        ("hill", 1, None)
    );
}

#[test]
fn a_block_along_the_road_is_in_road_column_and_across_it_is_not() {
    // High Road runs along y = 28; "turn piece lengthwise along the road": heading 0
    // puts the long axis along x.
    let c = v32(&[at("r1", 20.0, 28.0, 0.0), at("r2", 25.0, 28.0, 90.0)]);
    assert!(c.report("r1").in_road_column);
    assert!(!c.report("r2").in_road_column);
}

// ---- field of fire ----

#[test]
fn field_of_fire_depth_is_one_third_foot_move_with_majority_inside() {
    // Shooter at (20, 10) facing 0: front edge y = 9.8125, FoF ends at y = 8.0625. A
    // target block centred at y = 8.0625 + d has 0.1875 + d of its 0.375 depth inside.
    let target = |d: f64| at("b1", 20.0, 8.0625 + d, 180.0);
    let c = v32(&[at("r1", 20.0, 10.0, 0.0), target(0.02)]);
    let f = c.fof("r1", "b1").unwrap();
    assert!(near(f, 0.2075 / 0.375), "{f}");
    assert_eq!(c.report("b1").in_fof_of, vec!["r1".to_string()]);
    let c = v32(&[at("r1", 20.0, 10.0, 0.0), target(-0.02)]);
    assert_eq!(c.fof("r1", "b1"), None);
    assert!(c.report("b1").in_fof_of.is_empty());
}

#[test]
fn field_of_fire_splays_45_degrees_from_the_front_corners() {
    // The right side runs from the front-right corner (20.9375, 9.8125) up and out:
    // x = 30.75 - y. A block at y 8.8125..9.1875 whose left end is at a has
    // (21.75 - a) / 1.875 of its area inside, so the majority limit is a centre x of 21.75.
    let c = v32(&[at("r1", 20.0, 10.0, 0.0), at("b1", 21.73, 9.0, 180.0)]);
    let f = c.fof("r1", "b1").unwrap();
    assert!(near(f, (21.75 - (21.73 - 0.9375)) / 1.875), "{f}");
    let c = v32(&[at("r1", 20.0, 10.0, 0.0), at("b1", 21.77, 9.0, 180.0)]);
    assert_eq!(c.fof("r1", "b1"), None);
}

#[test]
fn cavalry_and_hqs_have_no_field_of_fire_and_friends_block_fire() {
    let c = v32(&[at("rc", 20.0, 10.0, 0.0), at("b1", 20.0, 8.6, 180.0)]);
    assert_eq!(c.fof("rc", "b1"), None);
    // A friendly piece on the line of fire: "cannot fire through/over friendly pieces".
    let c = v32(&[
        at("r1", 20.0, 10.0, 0.0),
        at("r2", 20.0, 9.3, 0.0),
        at("b1", 20.0, 8.5, 180.0),
    ]);
    assert_eq!(c.fof("r1", "b1"), None);
    // ... but sight passes through pieces in 3.2.
    assert!(c.sees("r1", "b1").can_see);
}

#[test]
fn detachments_project_a_field_of_fire_as_small_infantry_units() {
    // "Pequeñas unidades de infantería" [3.2, Detachments]; "La Infantería … proyectan un
    // Campo de Fuego". rdet at (20, 10) facing up: its field of fire runs to y 8.0625;
    // b1 at y 8.6 (8.4125..8.7875) lies wholly inside.
    let mut c = v32(&[at("rdet", 20.0, 10.0, 0.0), at("b1", 20.0, 8.6, 180.0)]);
    assert!(near(c.fof("rdet", "b1").unwrap(), 1.0));
    assert_eq!(c.report("b1").in_fof_of, vec!["rdet".to_string()]);
    c.rules.options.detachment_fof = false;
    assert_eq!(c.fof("rdet", "b1"), None);
}

#[test]
fn field_of_fire_is_limited_by_line_of_sight() {
    // Target 0.6 in deep in Square Wood (its lower edge y = 8): more than 3/8 in.
    let c = v32(&[at("r1", 6.0, 9.0, 0.0), at("b1", 6.0, 7.4, 180.0)]);
    assert!(c.fof_fraction_only("r1", "b1") > 0.5);
    assert_eq!(c.fof("r1", "b1"), None);
}

impl Case {
    fn fof_fraction_only(&self, a: &str, b: &str) -> f64 {
        fof_fraction(&self.rules, &self.scenario, self.piece(a), self.piece(b))
    }
}

// ---- line of sight ----

#[test]
fn sight_reaches_three_eighths_into_woods() {
    // Square Wood's lower edge is y = 8; the viewer stands below at y = 11. A target
    // whose near edge is d inside the wood (centre 8 - d - 0.1875) is visible when
    // d <= 0.375.
    let c = v32(&[
        at("r1", 6.0, 11.0, 0.0),
        at("b1", 6.0, 8.0 - 0.355 - 0.1875, 180.0),
    ]);
    assert!(c.sees("r1", "b1").can_see);
    let c = v32(&[
        at("r1", 6.0, 11.0, 0.0),
        at("b1", 6.0, 8.0 - 0.395 - 0.1875, 180.0),
    ]);
    let v = c.sees("r1", "b1");
    assert!(!v.can_see);
    let b = v.blocked_by.unwrap();
    assert_eq!(
        (b.kind.as_str(), b.name.as_deref()),
        ("woods", Some("Square Wood"))
    );
    // Symmetric: the piece in the wood cannot see out either.
    assert!(!c.sees("b1", "r1").can_see);
    // A block whose front edge pokes into the wood is not blocked by its own edge.
    let c = v32(&[at("r1", 6.0, 8.1, 0.0), at("b1", 6.0, 11.0, 180.0)]);
    assert!(c.sees("r1", "b1").can_see);
}

#[test]
fn woods_between_two_pieces_block_sight_and_range_is_one_foot_move() {
    let c = v32(&[at("r1", 6.0, 9.0, 0.0), at("b1", 6.0, 3.6, 180.0)]);
    let v = c.sees("r1", "b1");
    assert!(!v.can_see);
    assert_eq!(v.blocked_by.unwrap().kind, "woods");
    // Open ground: visible at 5.24 in edge to edge, not at 5.26.
    let gap = |g: f64| at("b1", 20.0, 10.0 - 0.375 - g, 180.0);
    let c = v32(&[at("r1", 20.0, 10.0, 0.0), gap(5.24)]);
    assert!(c.sees("r1", "b1").can_see);
    let c = v32(&[at("r1", 20.0, 10.0, 0.0), gap(5.26)]);
    let v = c.sees("r1", "b1");
    assert!(!v.can_see);
    assert_eq!(v.blocked_by.unwrap().kind, "out-of-range");
}

#[test]
fn sight_onto_a_hill_stops_at_the_crest() {
    // Long Ridge spans y 20..26 with its crest at y = 23; the viewer stands below it at
    // y = 19. A target on the near slope (y 22) is seen; one beyond the crest (y 24) is not.
    let c = v32(&[at("r1", 22.0, 19.0, 180.0), at("b1", 22.0, 22.0, 0.0)]);
    assert!(c.sees("r1", "b1").can_see);
    let c = v32(&[at("r1", 22.0, 19.0, 180.0), at("b1", 22.0, 24.0, 0.0)]);
    let v = c.sees("r1", "b1");
    assert!(!v.can_see);
    assert_eq!(v.blocked_by.unwrap().kind, "hill");
}

#[test]
fn pieces_on_opposite_slopes_of_one_hill_do_not_see_each_other_by_default() {
    // "Puedes ver sobre una Colina hasta la cresta: el punto central entre laderas"
    // [3.2]. b1 on the south slope (y 25). r1 facing down at y = c spans
    // c - 0.1875..c + 0.1875: at c = 22.8 its near edge (22.9875) stops 0.0125 short of
    // the crest (23), so the crest is between them: hidden. At c = 23.1 the crest runs
    // under r1 (22.9125..23.2875): astride it, r1 sees down both slopes.
    let c = v32(&[at("r1", 22.0, 22.8, 180.0), at("b1", 22.0, 25.0, 0.0)]);
    let v = c.sees("r1", "b1");
    assert!(!v.can_see && v.blocked_by.unwrap().kind == "hill");
    let c = v32(&[at("r1", 22.0, 23.1, 180.0), at("b1", 22.0, 25.0, 0.0)]);
    assert!(c.sees("r1", "b1").can_see);
    // Options::sight_across_own_crest reads it as pieces on one hill looking across it.
    let mut c = v32(&[at("r1", 22.0, 21.0, 180.0), at("b1", 22.0, 25.0, 0.0)]);
    assert!(!c.sees("r1", "b1").can_see);
    c.rules.options.sight_across_own_crest = true;
    assert!(c.sees("r1", "b1").can_see);
}

#[test]
fn sight_into_woods_is_measured_from_the_edge_not_along_a_slanting_line() {
    // "Puedes ver dentro de bosques … hasta el grosor de una pieza: 3/8"" [3.2]. b1 stands
    // in Square Wood (lower edge y = 8) with its near edge d inside (centre
    // 8 - d - 0.1875); r1 looks from (10.136, 11), a line 49.8 degrees off the wood's
    // edge: it meets b1's near edge at x = 6.22, having crossed d / cos = d / 0.6446 of
    // wood. d = 0.30: 0.465 in along the line, 0.30 from the edge: seen (measured along
    // the line, blocked). d = 0.40: 0.40 from the edge: hidden.
    let placed = |d: f64| {
        v32(&[
            at("r1", 10.136, 11.0, 0.0),
            at("b1", 6.0, 8.0 - d - 0.1875, 180.0),
        ])
    };
    let mut c = placed(0.30);
    assert!(c.sees("r1", "b1").can_see);
    assert!(c.sees("b1", "r1").can_see);
    c.rules.options.see_into = SeeInto::AlongSightLine;
    let v = c.sees("r1", "b1");
    assert!(!v.can_see, "{v:?}");
    assert!(v.blocked_by.unwrap().reason.starts_with("0.47 in of woods"));
    let v = placed(0.40).sees("r1", "b1");
    assert!(!v.can_see, "{v:?}");
    assert!(v.blocked_by.unwrap().reason.starts_with("0.40 in of woods"));
}

#[test]
fn from_a_hill_you_see_over_woods_you_are_nearer_to_than_the_target() {
    // A hill (y 10..12) behind a strip of low wood (y 8..8.5), built for this test.
    let hill = r#"{"type":"FeatureCollection","features":[
{"type":"Feature","properties":{"terrain":"hill","id":"h","level":1},"geometry":{"type":"Polygon","coordinates":[[[0,10],[12,10],[12,12],[0,12],[0,10]]]}},
{"type":"Feature","properties":{"terrain":"woods","name":"Low Wood"},"geometry":{"type":"Polygon","coordinates":[[[0,8],[12,8],[12,8.5],[0,8.5],[0,8]]]}}]}"#;
    let mut c = v32(&[at("r1", 6.0, 10.6, 0.0), at("b1", 6.0, 6.5, 180.0)]);
    c.scenario.terrain = Terrain::parse(Path::new("t.geojson"), hill).unwrap();
    // Viewer centre 10.6 -> wood starts at 8.5 (2.1 away); wood ends at 8.0 -> target
    // centre 6.5 (1.5 away): the viewer is farther, so the wood blocks.
    let v = c.sees("r1", "b1");
    assert!(!v.can_see, "{v:?}");
    // Move the target back to y = 5.3 (2.7 from the wood): now the viewer is nearer.
    let mut c2 = v32(&[at("r1", 6.0, 10.6, 0.0), at("b1", 6.0, 5.3, 180.0)]);
    c2.scenario.terrain = c.scenario.terrain.clone();
    let v = c2.sees("r1", "b1");
    assert!(v.can_see, "{v:?}");
    assert_eq!(v.seen_over.len(), 1);
    // From low ground the same wood blocks whatever the distances.
    let mut c3 = v32(&[at("r1", 6.0, 9.6, 0.0), at("b1", 6.0, 5.3, 180.0)]);
    c3.scenario.terrain = c.scenario.terrain.clone();
    assert!(!c3.sees("r1", "b1").can_see);
}

#[test]
fn pieces_block_sight_in_3_0_but_not_in_3_2() {
    let placements = [
        at("r1", 20.0, 10.0, 0.0),
        at("b2", 20.0, 8.0, 0.0),
        at("b1", 20.0, 6.0, 180.0),
    ];
    assert!(v32(&placements).sees("r1", "b1").can_see);
    let v = case("pub-battles-3.0", &placements).sees("r1", "b1");
    assert!(!v.can_see);
    assert_eq!(v.blocked_by.unwrap().name.as_deref(), Some("b2"));
}

// ---- contact, flank, support ----

/// Blue defender at (30, 10) facing 180 (down the map): its front edge is y = 10.1875,
/// its right-hand side is the short edge at x = 29.0625.
fn defender() -> Placement {
    at("b1", 30.0, 10.0, 180.0)
}

#[test]
fn a_frontal_attack_is_contact_without_flank() {
    let c = v32(&[defender(), at("r1", 30.0, 10.375, 0.0)]);
    let b1 = c.report("b1");
    assert_eq!(b1.in_contact_with, vec!["r1".to_string()]);
    assert!(b1.flanked_by.is_empty());
}

#[test]
fn the_attackers_centre_behind_the_defenders_front_line_flanks() {
    // Attacker facing +x with its front edge on the defender's side (x = 29.0625): its
    // centre is at x = 28.875, and y = 10 + s puts it s ahead of the defender's centre.
    // The front line is 0.1875 ahead of the centre.
    let attacker = |s: f64| at("r1", 28.875, 10.0 + s, 90.0);
    let c = v32(&[defender(), attacker(0.0)]);
    assert_eq!(c.report("b1").flanked_by, vec!["r1".to_string()]);
    let c = v32(&[defender(), attacker(0.1675)]);
    assert_eq!(c.report("b1").flanked_by, vec!["r1".to_string()]);
    let c = v32(&[defender(), attacker(0.2075)]);
    assert_eq!(c.report("b1").in_contact_with, vec!["r1".to_string()]);
    assert!(c.report("b1").flanked_by.is_empty());
}

#[test]
fn defenders_in_buildings_cannot_be_flanked() {
    // The Hamlet spans 14..16 x 4..6.
    let c = v32(&[at("b1", 15.0, 5.0, 180.0), at("r1", 13.875, 5.0, 90.0)]);
    let b1 = c.report("b1");
    assert_eq!(
        (b1.terrain.as_str(), b1.in_contact_with.len()),
        ("buildings", 1)
    );
    assert!(b1.flanked_by.is_empty());
}

#[test]
fn a_piece_in_road_column_counts_as_flanked_by_any_attacker() {
    let c = v32(&[at("b1", 20.0, 28.0, 0.0), at("r1", 20.0, 28.375, 0.0)]);
    let b1 = c.report("b1");
    assert!(b1.in_road_column);
    assert_eq!(b1.flanked_by, vec!["r1".to_string()]);
}

#[test]
fn contact_needs_touching_edges_within_a_sixteenth_and_a_majority_overlap() {
    let front = |gap: f64, shift: f64| at("r1", 30.0 + shift, 10.375 + gap, 0.0);
    assert_eq!(
        v32(&[defender(), front(0.06, 0.0)])
            .report("b1")
            .in_contact_with
            .len(),
        1
    );
    assert!(
        v32(&[defender(), front(0.07, 0.0)])
            .report("b1")
            .in_contact_with
            .is_empty()
    );
    // Side-by-side shift: the touching stretch is 1.875 - shift, a majority below 0.9375.
    assert_eq!(
        v32(&[defender(), front(0.0, 0.91)])
            .report("b1")
            .in_contact_with
            .len(),
        1
    );
    assert!(
        v32(&[defender(), front(0.0, 0.96)])
            .report("b1")
            .in_contact_with
            .is_empty()
    );
}

#[test]
fn support_is_one_friendly_piece_directly_behind_and_never_artillery() {
    let c = v32(&[
        at("r1", 10.0, 20.0, 0.0),
        at("r2", 10.0, 20.375, 0.0),
        at("r3", 10.0, 20.75, 0.0),
    ]);
    assert_eq!(c.report("r1").supported_by.as_deref(), Some("r2"));
    assert_eq!(c.report("r2").supported_by.as_deref(), Some("r3"));
    let c = v32(&[at("r1", 10.0, 20.0, 0.0), at("rart", 10.0, 20.375, 0.0)]);
    assert_eq!(c.report("r1").supported_by, None);
    // Artillery can receive support.
    let c = v32(&[at("rart", 10.0, 20.0, 0.0), at("r1", 10.0, 20.375, 0.0)]);
    assert_eq!(c.report("rart").supported_by.as_deref(), Some("r1"));
    // Quick start: only cavalry supports cavalry.
    let c = case(
        "pub-battles-qs",
        &[at("rc", 10.0, 20.0, 0.0), at("r1", 10.0, 20.375, 0.0)],
    );
    assert_eq!(c.report("rc").supported_by, None);
}

#[test]
fn an_enveloped_pair_loses_its_support_and_both_are_flanked() {
    // "Cuando un defensor apoyado es atacado por delante y por detrás, el Apoyo se rompe.
    // Trata esto como 2 combates separados, con ambos defensores como Flanqueados." [3.2]
    // b1 faces down from (30, 10): front edge y 10.1875, rear edge 9.8125. b2 supports
    // it from (30, 9.625) (front edge 9.8125, rear edge 9.4375). r1 touches b1's front;
    // r2, facing down, stands g beyond b2's rear edge: centre 9.4375 - 0.1875 - g.
    let pair = |g: f64| {
        v32(&[
            defender(),
            at("b2", 30.0, 9.625, 180.0),
            at("r1", 30.0, 10.375, 0.0),
            at("r2", 30.0, 9.25 - g, 180.0),
        ])
    };
    // g = 0.06, within the 1/16 in contact tolerance: enveloped.
    let c = pair(0.06);
    let (b1, b2) = (c.report("b1"), c.report("b2"));
    assert_eq!(b2.in_contact_with, vec!["r2".to_string()]);
    assert_eq!(b1.flanked_by, vec!["r1".to_string()]);
    assert_eq!(b2.flanked_by, vec!["r2".to_string()]);
    assert_eq!(b1.supported_by, None);
    // g = 0.07: r2 does not touch b2, so b2 still supports b1 and nobody is flanked.
    let c = pair(0.07);
    let b1 = c.report("b1");
    assert_eq!(b1.supported_by.as_deref(), Some("b2"));
    assert!(b1.flanked_by.is_empty());
}

#[test]
fn a_reserve_piece_supports_a_piece_its_hq_stands_directly_behind() {
    // "Si tu HQ está directamente detrás de una pieza, puedes contar la primera pieza en
    // Reserva como Apoyo." [3.2] r1 faces up from (10, 20): rear edge y 20.1875. The HQ
    // cube (0.375 across) stands g behind it at y 20.375 + g. Off the table wait r2, r3,
    // ...: the first of Red I Corps that may support infantry is r2.
    let c = v32(&[
        at("r1", 10.0, 20.0, 0.0),
        at("rh", 10.0, 20.375 + 0.06, 0.0),
    ]);
    assert_eq!(c.report("r1").supported_by.as_deref(), Some("r2"));
    assert!(combat::combatant_on(&c.rules, &c.scenario, &c.table, c.piece("r1")).supported);
    // r2 on the table elsewhere: the first in reserve is r3.
    let c = v32(&[
        at("r1", 10.0, 20.0, 0.0),
        at("rh", 10.0, 20.375, 0.0),
        at("r2", 30.0, 20.0, 0.0),
    ]);
    assert_eq!(c.report("r1").supported_by.as_deref(), Some("r3"));
    // g = 0.07: the cube does not touch; no support.
    let c = v32(&[
        at("r1", 10.0, 20.0, 0.0),
        at("rh", 10.0, 20.375 + 0.07, 0.0),
    ]);
    assert_eq!(c.report("r1").supported_by, None);
    assert!(!combat::combatant_on(&c.rules, &c.scenario, &c.table, c.piece("r1")).supported);
    // 3.0 has no such rule.
    let c = case(
        "pub-battles-3.0",
        &[at("r1", 10.0, 20.0, 0.0), at("rh", 10.0, 20.375, 0.0)],
    );
    assert_eq!(c.report("r1").supported_by, None);
}

#[test]
fn flank_in_3_0_is_being_in_their_fof_while_they_are_not_in_yours() {
    // r1 faces +x beside b1's flank, 0.5 in away: b1 lies in r1's FoF, r1 is not in
    // b1's (which points down the map).
    let c = case(
        "pub-battles-3.0",
        &[defender(), at("r1", 28.375, 10.0, 90.0)],
    );
    assert_eq!(c.report("b1").flanked_by, vec!["r1".to_string()]);
    // Face to face, each is in the other's FoF: no flank.
    let c = case("pub-battles-3.0", &[defender(), at("r1", 30.0, 11.0, 0.0)]);
    assert!(c.report("b1").flanked_by.is_empty());
}

#[test]
fn quick_start_flank_is_two_attackers_or_one_from_the_rear() {
    let c = case(
        "pub-battles-qs",
        &[defender(), at("r1", 28.875, 10.0, 90.0)],
    );
    assert!(c.report("b1").flanked_by.is_empty());
    let c = case(
        "pub-battles-qs",
        &[
            defender(),
            at("r1", 28.875, 10.0, 90.0),
            at("r2", 30.0, 10.375, 0.0),
        ],
    );
    assert_eq!(c.report("b1").flanked_by.len(), 2);
    // b1's rear edge is y = 9.8125: an attacker facing down touching it.
    let c = case(
        "pub-battles-qs",
        &[defender(), at("r1", 30.0, 9.625, 180.0)],
    );
    assert_eq!(c.report("b1").flanked_by, vec!["r1".to_string()]);
}

// ---- rally, night ----

#[test]
fn rally_needs_an_unpacked_train_within_a_third_mounted_move_and_no_contact() {
    // Train lying flat (unpacked) 2.4 in behind a spent block.
    let train = spent(at("rt", 10.0, 20.0 + 0.375 + 2.4 + 0.375, 0.0));
    let c = v32(&[spent(at("r1", 10.0, 20.0, 0.0)), train.clone()]);
    let r = c.report("r1").rally.unwrap();
    assert!(r.possible, "{r:?}");
    assert!(near(r.margin_in.unwrap(), 0.1));
    // A packed (upright) train does not count.
    let c = v32(&[spent(at("r1", 10.0, 20.0, 0.0)), at("rt", 10.0, 23.0, 0.0)]);
    assert!(!c.report("r1").rally.unwrap().possible);
    // In contact with an enemy: no rally.
    // The spent block's front edge is y = 19.625; the enemy's front edge touches it.
    let c = v32(&[
        spent(at("r1", 10.0, 20.0, 0.0)),
        train,
        at("b1", 10.0, 19.625 - 0.1875, 180.0),
    ]);
    let r = c.report("r1").rally.unwrap();
    assert!(!r.possible && r.reason.contains("contact"), "{r:?}");
    // Cavalry needs no train.
    let c = v32(&[spent(at("rc", 10.0, 20.0, 0.0))]);
    assert!(c.report("rc").rally.unwrap().possible);
}

#[test]
fn pieces_in_buildings_are_spent_and_cannot_rally() {
    // "Pieces in Buildings become Spent and cannot Rally" [3.2 Terrain chart]. The Hamlet
    // spans x 14..16, y 4..6. A block at x = c with c + 0.9375 past 16 has
    // (16 - c + 0.9375) / 1.875 of its length inside: c = 15.9625 gives 0.52 (in
    // buildings), c = 16.0375 gives 0.48. The unpacked train at y 7 is 1.25 in away.
    let train = spent(at("rt", 15.0, 7.0, 0.0));
    let c = v32(&[spent(at("r1", 15.9625, 5.0, 0.0)), train.clone()]);
    let r = c.report("r1").rally.unwrap();
    assert!(!r.possible && r.reason.contains("in buildings"), "{r:?}");
    let c = v32(&[spent(at("r1", 16.0375, 5.0, 0.0)), train]);
    let r = c.report("r1").rally.unwrap();
    assert!(
        r.possible && near(r.margin_in.unwrap(), 2.5 - 1.25),
        "{r:?}"
    );
    // Entering: a block that ends fresh in the Hamlet is refused; spent it is allowed.
    let c = v32(&[at("r1", 15.9625, 7.5, 0.0), at("r2", 16.0375, 7.5, 0.0)]);
    let v = c.mv("r1", 15.9625, 5.0, 0.0);
    assert!(
        !v.legal
            && v.problems
                .iter()
                .any(|p| p.contains("Buildings become Spent")),
        "{v:?}"
    );
    let v = check_move(
        &c.rules,
        &c.scenario,
        &c.table,
        c.piece("r1"),
        Pose::new(15.9625, 5.0, 0.0),
        Status::Spent,
        false,
    );
    assert!(v.legal, "{v:?}");
    assert!(c.mv("r2", 16.0375, 5.0, 0.0).legal);
}

#[test]
fn enemies_within_a_third_foot_move_are_listed_for_night_and_column_moves() {
    let gap = |g: f64| at("b1", 20.0, 10.0 - 0.375 - g, 180.0);
    assert_eq!(
        v32(&[at("r1", 20.0, 10.0, 0.0), gap(1.73)])
            .report("r1")
            .enemies_within_third_foot
            .len(),
        1
    );
    assert!(
        v32(&[at("r1", 20.0, 10.0, 0.0), gap(1.77)])
            .report("r1")
            .enemies_within_third_foot
            .is_empty()
    );
}

// ---- movement ----

#[test]
fn a_straight_move_may_go_one_foot_move() {
    let c = v32(&[at("r1", 20.0, 12.0, 0.0)]);
    let v = c.mv("r1", 20.0, 12.0 - 5.23, 0.0);
    assert!(v.legal, "{v:?}");
    assert!(near(v.margin_in, 0.02));
    let v = c.mv("r1", 20.0, 12.0 - 5.27, 0.0);
    assert!(!v.legal);
    assert!(near(v.margin_in, -0.02));
    // Cavalry moves mounted: 7.5 in.
    let c = v32(&[at("rc", 20.0, 12.0, 0.0)]);
    assert!(c.mv("rc", 20.0, 12.0 - 7.49, 0.0).legal);
}

#[test]
fn oblique_moves_up_to_45_degrees_are_free_and_more_costs_a_facing_change() {
    let c = v32(&[at("r1", 20.0, 12.0, 0.0)]);
    let go = |deg: f64, d: f64| {
        let r = deg.to_radians();
        c.mv("r1", 20.0 + d * r.sin(), 12.0 - d * r.cos(), 0.0)
    };
    let v = go(44.0, 3.0);
    assert!(near(v.allowance_in, 5.25), "{v:?}");
    let v = go(46.0, 3.0);
    assert!(near(v.allowance_in, 3.5), "{v:?}");
    assert!(v.legal);
    assert!(!go(46.0, 3.6).legal);
    // Wheel and move: one free facing change, full allowance.
    let v = c.mv("r1", 23.0, 12.0, 90.0);
    assert!(near(v.allowance_in, 5.25), "{v:?}");
}

#[test]
fn difficult_terrain_costs_one_third_once() {
    // Through Square Wood (x 4..8, y 4..8) and out: 5.25 -> 3.5.
    let c = v32(&[at("r1", 6.0, 9.0, 0.0)]);
    let v = c.mv("r1", 6.0, 9.0 - 3.4, 0.0);
    assert!(v.legal && near(v.allowance_in, 3.5), "{v:?}");
    assert!(!c.mv("r1", 6.0, 9.0 - 3.6, 0.0).legal);
    // Stream and woods together still lose only 1/3: Mill Brook is x = 2.
    let c = v32(&[at("r1", 1.0, 6.0, 90.0)]);
    let v = c.mv("r1", 4.5, 6.0, 90.0);
    assert!(near(v.allowance_in, 3.5), "{v:?}");
}

#[test]
fn rivers_are_crossed_only_at_fords_and_bridges() {
    let c = v32(&[at("r1", 20.0, 16.5, 0.0), at("r2", 10.5, 16.5, 0.0)]);
    let v = c.mv("r1", 20.0, 13.5, 0.0);
    assert!(
        !v.legal && v.problems.iter().any(|p| p.contains("river")),
        "{v:?}"
    );
    // The Shallow Ford spans x 10..11: r2's centre line crosses inside it, 3 in of the
    // 3.5 in a reduced move allows.
    let v = c.mv("r2", 10.5, 13.5, 0.0);
    assert!(v.legal && near(v.allowance_in, 3.5), "{v:?}");
    assert!(
        v.costs.iter().any(|c| c.contains("difficult terrain")),
        "{v:?}"
    );
}

#[test]
fn no_flank_attack_where_the_majority_of_the_piece_would_stand_in_the_river() {
    // "Can Blue flank Red? No. There is not enough room. The majority of the piece is in
    // or past the river." [3.2 move examples]. Red stands just south of the river bank
    // (y 15.3) facing north; a blue block moving to its flank would end with most of
    // its footprint in the river.
    let c = v32(&[at("r1", 20.0, 15.6, 0.0), at("b1", 17.0, 15.0, 90.0)]);
    let v = c.mv("b1", 18.875, 15.6, 90.0);
    assert!(
        !v.legal && v.problems.iter().any(|p| p.contains("river")),
        "{v:?}"
    );
}

#[test]
fn a_flank_attack_needs_room_for_the_piece() {
    // "It cannot attack the right blue piece in the flank because the majority of the
    // piece does not fit there." [3.2 move examples]: two blue blocks side by side; the
    // spot on the inner flank is taken.
    let c = v32(&[
        at("b1", 20.0, 10.0, 180.0),
        at("b2", 22.0, 10.0, 180.0),
        at("r1", 21.0, 13.0, 90.0),
    ]);
    let v = c.mv("r1", 21.0, 10.0, 90.0);
    assert!(
        !v.legal && v.problems.iter().any(|p| p.contains("stack")),
        "{v:?}"
    );
}

#[test]
fn impassable_marsh_for_cavalry_and_enemy_pieces_block_movement() {
    let c = v32(&[at("rc", 36.0, 8.0, 0.0)]);
    let v = c.mv("rc", 36.0, 4.0, 0.0);
    assert!(
        !v.legal && v.problems.iter().any(|p| p.contains("marsh")),
        "{v:?}"
    );
    let c = v32(&[at("r1", 37.5, 13.5, 0.0)]);
    let v = c.mv("r1", 37.5, 8.5, 0.0);
    assert!(
        !v.legal && v.problems.iter().any(|p| p.contains("impassable")),
        "{v:?}"
    );
    let c = v32(&[at("r1", 20.0, 12.0, 0.0), at("b1", 20.0, 10.0, 0.0)]);
    let v = c.mv("r1", 20.0, 8.0, 0.0);
    assert!(
        v.problems.iter().any(|p| p.contains("through enemy")),
        "{v:?}"
    );
}

#[test]
fn road_column_doubles_the_move_and_keeps_off_the_enemy() {
    let c = v32(&[at("r1", 5.0, 28.0, 0.0), at("b1", 30.0, 26.0, 180.0)]);
    let v = c.mv("r1", 5.0 + 10.4, 28.0, 0.0);
    assert!(v.legal && near(v.allowance_in, 10.5), "{v:?}");
    // Ending 1.6 in from an enemy: inside 1/3 foot move (1.75).
    let v = c.mv("r1", 30.0, 28.0, 0.0);
    assert!(
        v.problems
            .iter()
            .any(|p| p.contains("road column cannot move within")),
        "{v:?}"
    );
    // 3.0 forbids only the enemy's field of fire. Starting 10 in up the road, r1 may end
    // 1.6 in from b1 (x 30) when beside its field of fire (which points down the map,
    // widening to x 27.3..32.7 at y 27.94): at x 26, its right end is at 26.94.
    let c30 = case(
        "pub-battles-3.0",
        &[at("r1", 16.0, 28.0, 0.0), at("b1", 30.0, 26.0, 180.0)],
    );
    let v = c30.mv("r1", 26.0, 28.0, 0.0);
    assert!(v.problems.is_empty(), "{v:?}");
    let v = c30.mv("r1", 25.0, 26.0, 0.0);
    assert!(!v.legal, "off the road is no column march: {v:?}");
    let c30 = case(
        "pub-battles-3.0",
        &[at("r1", 22.0, 28.0, 0.0), at("b1", 30.0, 26.5, 180.0)],
    );
    // Now b1 stands 0.5 in nearer: its field of fire reaches y 28.44 and holds r1.
    let v = c30.mv("r1", 30.0, 28.0, 0.0);
    assert!(
        v.problems
            .iter()
            .any(|p| p.contains("into the field of fire of enemy b1")),
        "{v:?}"
    );
}

#[test]
fn an_attack_must_start_in_command_and_artillery_cannot_advance_to_attack() {
    let c = v32(&[
        at("rh", 10.0, 27.0, 0.0),
        at("r1", 20.0, 13.0, 0.0),
        at("b1", 20.0, 10.0, 180.0),
        at("rart", 24.5, 13.0, 0.0),
        at("b2", 24.5, 10.0, 180.0),
    ]);
    let v = c.mv("r1", 20.0, 10.375, 0.0);
    assert!(
        v.problems.iter().any(|p| p.contains("command range")),
        "{v:?}"
    );
    let v = c.mv("rart", 24.5, 10.375, 0.0);
    assert!(v.problems.iter().any(|p| p.contains("artillery")), "{v:?}");
}

#[test]
fn ending_in_an_enemy_field_of_fire_without_attacking_is_refused() {
    // "No puedes terminar tu movimiento con la mayoría de tu pieza en un FoF enemigo, a
    // menos que avances al Ataque." [3.2] b1 faces down the map from y = 10: its front
    // edge is y = 10.1875 and its field of fire ends at y = 11.9375. r1 facing 0 at y = c
    // has (11.9375 - (c - 0.1875)) / 0.375 of its depth inside: at c = 11.92, 0.5467 (the
    // majority: refused); at c = 11.96, 0.44 (allowed).
    let c = v32(&[at("r1", 20.0, 14.0, 0.0), at("b1", 20.0, 10.0, 180.0)]);
    let v = c.mv("r1", 20.0, 11.92, 0.0);
    assert!(!v.legal, "{v:?}");
    assert!(
        v.problems.iter().any(|p| p.contains("field of fire of b1")),
        "{v:?}"
    );
    assert!(near(
        c.fof_of_pose("b1", "r1", 20.0, 11.92).unwrap(),
        0.205 / 0.375
    ));
    let v = c.mv("r1", 20.0, 11.96, 0.0);
    assert!(v.legal && v.warnings.is_empty(), "{v:?}");
    // 3.0 lost its Restrictions text: there it stays a warning.
    let c = case(
        "pub-battles-3.0",
        &[at("r1", 20.0, 14.0, 0.0), at("b1", 20.0, 10.0, 180.0)],
    );
    let v = c.mv("r1", 20.0, 11.92, 0.0);
    assert!(
        v.legal && v.warnings.iter().any(|w| w.contains("b1")),
        "{v:?}"
    );
}

#[test]
fn a_piece_may_end_in_an_enemy_field_of_fire_to_support_an_attack_or_stay_in_cover() {
    // "(o apoyes un ataque)": r2 touches b1's front (contact at y = 10.1875); r1 ends
    // directly behind r2 (front edge 10.5625 on r2's rear edge), wholly inside b1's field
    // of fire (y 10.1875..11.9375).
    let c = v32(&[
        at("b1", 20.0, 10.0, 180.0),
        at("r2", 20.0, 10.375, 0.0),
        at("r1", 20.0, 13.0, 0.0),
    ]);
    let v = c.mv("r1", 20.0, 10.75, 0.0);
    assert!(v.legal, "{v:?}");
    assert!(
        v.warnings.iter().any(|w| w.contains("support of r2")),
        "{v:?}"
    );
    // Without r2 in contact (0.5 in short of b1), the same spot is refused.
    let c = v32(&[
        at("b1", 20.0, 10.0, 180.0),
        at("r2", 20.0, 10.875, 0.0),
        at("r1", 20.0, 13.0, 0.0),
    ]);
    assert!(!c.mv("r1", 20.0, 11.25, 0.0).legal);
    // "Si comienzas tu movimiento en un FoF enemigo, puedes permanecer allí SI: estás a
    // cubierto": r1 starts in b1's field of fire and stays in it (a pivot), allowed with
    // a warning that says on what condition.
    let c = v32(&[at("r1", 20.0, 11.0, 0.0), at("b1", 20.0, 10.0, 180.0)]);
    let v = c.mv("r1", 20.0, 11.0, 20.0);
    assert!(v.legal, "{v:?}");
    assert!(
        v.warnings
            .iter()
            .any(|w| w.contains("another piece attacks b1")),
        "{v:?}"
    );
}

impl Case {
    /// The fraction of `target` inside `shooter`'s field of fire were it at (x, y).
    fn fof_of_pose(&self, shooter: &str, target: &str, x: f64, y: f64) -> Option<f64> {
        let unit = self.scenario.unit(target).unwrap();
        let t = self.piece(target);
        let moved = Piece {
            pose: Pose::new(x, y, t.pose.heading_deg),
            footprint: self
                .scenario
                .footprint(unit, Pose::new(x, y, t.pose.heading_deg), t.status),
            ..t.clone()
        };
        in_field_of_fire(
            &self.rules,
            &self.scenario,
            &self.table,
            self.piece(shooter),
            &moved,
        )
    }
}

#[test]
fn red_can_attack_across_the_river_at_the_ford() {
    // "Can Red attack across the river? Yes. Just move them forward as shown." [3.2]
    // Blue waits on the north bank (y 14.7) just behind the Shallow Ford (x 10..11);
    // Red, in command, walks straight over the ford into contact: 2.9 in, within the
    // 3.5 in a move through difficult terrain allows.
    let c = v32(&[
        at("rh", 10.5, 17.5, 0.0),
        at("r1", 10.5, 16.5, 0.0),
        at("b1", 10.5, 13.225, 180.0),
    ]);
    let v = c.mv("r1", 10.5, 13.6, 0.0);
    assert!(v.legal, "{v:?}");
    assert!(
        near(v.allowance_in, 3.5) && near(v.distance_in, 2.9),
        "{v:?}"
    );
}

#[test]
fn at_night_no_piece_may_approach_within_a_third_foot_move() {
    let c = v32(&[at("r1", 20.0, 14.0, 0.0), at("b1", 20.0, 10.0, 180.0)]);
    // Ending 1.70 in from the enemy (inside 1.75) is barred at night, fine by day.
    let to = 10.0 + 0.375 + 1.70;
    let night = check_move(
        &c.rules,
        &c.scenario,
        &c.table,
        c.piece("r1"),
        Pose::new(20.0, to, 0.0),
        Status::Fresh,
        true,
    );
    assert!(
        night.problems.iter().any(|p| p.contains("at night")),
        "{night:?}"
    );
    assert!(c.mv("r1", 20.0, to, 0.0).problems.is_empty());
    let to = 10.0 + 0.375 + 1.80;
    let night = check_move(
        &c.rules,
        &c.scenario,
        &c.table,
        c.piece("r1"),
        Pose::new(20.0, to, 0.0),
        Status::Fresh,
        true,
    );
    assert!(night.legal, "{night:?}");
}

#[test]
fn difficult_terrain_is_judged_by_the_majority_wherever_the_move_comes_from() {
    // "Si te mueves a través de alguno o todos los tipos de terreno difícil … reduce tu
    // movimiento en 1/3" [3.2], with the majority rule. Square Wood spans x 4..8,
    // y 4..8. An end pose at x = 8.5625 has (8 - 7.625) / 1.875 = 0.2 of the block in
    // the wood: no cost, whether it comes straight up from y 9 (the path never nears
    // the wood) or down from (7.5, 2) (the path's box reaches the wood but the centre
    // line stays out: at y = 4 it is at x 8.03). Before, the second paid 1/3.
    let c = v32(&[at("r1", 7.5, 2.0, 180.0), at("r2", 8.5625, 9.0, 0.0)]);
    let v = c.mv("r1", 8.5625, 6.0, 180.0);
    // hypot(1.0625, 4) = 4.1387 of 5.25
    assert!(v.legal && near(v.allowance_in, 5.25), "{v:?}");
    assert!(near(v.distance_in, 1.0625f64.hypot(4.0)));
    let v = c.mv("r2", 8.5625, 6.0, 0.0);
    assert!(v.legal && near(v.allowance_in, 5.25), "{v:?}");
    // At x = 7.9625 the fraction is (8 - 7.025) / 1.875 = 0.52: the majority, so 1/3
    // is lost from either side (5.25 -> 3.5).
    let c = v32(&[at("r1", 9.0, 2.0, 180.0), at("r2", 7.9625, 9.0, 0.0)]);
    let v = c.mv("r1", 7.9625, 6.0, 180.0);
    assert!(near(v.allowance_in, 3.5), "{v:?}");
    assert!(v.costs.iter().any(|c| c.contains("Square Wood")), "{v:?}");
    let v = c.mv("r2", 7.9625, 6.0, 0.0);
    assert!(near(v.allowance_in, 3.5), "{v:?}");
}

#[test]
fn a_road_column_keeps_a_third_foot_move_from_the_enemy_all_along_its_path() {
    // "No puedes mover a menos de 1/3 de movimiento a pie del enemigo" [3.2]. r1 marches
    // along High Road (y = 28) from x 14 to 24.4 (10.4 of the 10.5 a column allows),
    // past b1 at x 20. r1's footprint spans y 27.8125..28.1875. With b1 at y = 26.2
    // (lower edge 26.3875) the column passes 1.425 in from it: refused, though both ends
    // are farther (start hypot(4.125, 1.425) = 4.36, end hypot(2.525, 1.425) = 2.90).
    // With b1 at y = 25.8 (lower edge 25.9875) the gap is 1.825 > 1.75: allowed.
    let c = v32(&[at("r1", 14.0, 28.0, 0.0), at("b1", 20.0, 26.2, 180.0)]);
    let v = c.mv("r1", 24.4, 28.0, 0.0);
    assert!(!v.legal, "{v:?}");
    assert!(
        v.problems
            .iter()
            .any(|p| p.contains("road column cannot move within") && p.contains("1.43 in")),
        "{v:?}"
    );
    let c = v32(&[at("r1", 14.0, 28.0, 0.0), at("b1", 20.0, 25.8, 180.0)]);
    let v = c.mv("r1", 24.4, 28.0, 0.0);
    assert!(v.legal && near(v.allowance_in, 10.5), "{v:?}");
}

#[test]
fn a_road_column_cannot_pass_through_friendly_pieces() {
    // "No puedes mover a través de piezas amigas" [3.2], road column. r1 sweeps the band
    // y 27.8125..28.1875 from x 14 to 24. r2 beside the road at y = c spans
    // c - 0.1875..c + 0.1875: at c = 27.605 it clears the band by 0.02 in; at 27.645 it
    // overlaps it 0.02 in deep along 1.875 in (0.0375 sq in): refused.
    let c = v32(&[at("r1", 14.0, 28.0, 0.0), at("r2", 19.0, 27.605, 0.0)]);
    let v = c.mv("r1", 24.0, 28.0, 0.0);
    assert!(v.legal, "{v:?}");
    let c = v32(&[at("r1", 14.0, 28.0, 0.0), at("r2", 19.0, 27.645, 0.0)]);
    let v = c.mv("r1", 24.0, 28.0, 0.0);
    assert!(
        !v.legal
            && v.problems
                .iter()
                .any(|p| p.contains("through friendly piece r2")),
        "{v:?}"
    );
    // Out of column, pieces "mover a través de piezas amigas": r1 walks through r2.
    let c = v32(&[at("r1", 20.0, 14.0, 0.0), at("r2", 20.0, 12.0, 0.0)]);
    assert!(c.mv("r1", 20.0, 10.0, 0.0).legal);
}

#[test]
fn at_night_a_piece_may_not_pass_within_a_third_foot_move_on_its_way() {
    // "No puedes acercarte al enemigo a menos de 1/3 del movimiento a pie" [3.2 night].
    // b1 (y 9.8125..10.1875, x 19.0625..20.9375); rc faces +x, its footprint spanning
    // y c - 0.9375..c + 0.9375, and rides 7 in from x 16.5 to 23.5 past b1's front. Both
    // ends are hypot(2.375, g) from b1; on the way the gap is g = c - 0.9375 - 10.1875.
    let night = |c: &Case, y: f64| {
        check_move(
            &c.rules,
            &c.scenario,
            &c.table,
            c.piece("rc"),
            Pose::new(23.5, y, 90.0),
            Status::Fresh,
            true,
        )
    };
    // c = 11.8: g = 0.675, refused.
    let c = v32(&[at("rc", 16.5, 11.8, 90.0), at("b1", 20.0, 10.0, 180.0)]);
    let v = night(&c, 11.8);
    assert!(
        v.problems
            .iter()
            .any(|p| p.contains("at night") && p.contains("0.68 in")),
        "{v:?}"
    );
    // c = 13.0: g = 1.875 > 1.75, allowed.
    let c = v32(&[at("rc", 16.5, 13.0, 90.0), at("b1", 20.0, 10.0, 180.0)]);
    let v = night(&c, 13.0);
    assert!(v.legal, "{v:?}");
}

#[test]
fn crossing_the_crest_on_the_hill_is_no_slope_unless_the_option_says_so() {
    // "Reduced to cross a slope" [3.2 chart]. Long Ridge (level 1) spans y 20..26, crest
    // y = 23. r1 walks down the map from y 22 on the ridge: to y 22.9 it stays on the near
    // slope, to 23.1 it crosses the crest; it never leaves the hill.
    let mut c = v32(&[at("r1", 22.0, 22.0, 180.0)]);
    assert!(near(c.mv("r1", 22.0, 23.1, 180.0).allowance_in, 5.25));
    c.rules.options.crest_is_a_slope = true;
    let v = c.mv("r1", 22.0, 23.1, 180.0);
    assert!(near(v.allowance_in, 3.5), "{v:?}");
    assert!(
        v.costs.iter().any(|c| c.contains("Long Ridge (crest)")),
        "{v:?}"
    );
    assert!(near(c.mv("r1", 22.0, 22.9, 180.0).allowance_in, 5.25));
}

// ---- bombardment ----

impl Case {
    fn bombard(&self, gun: &str, target: &str) -> combat::BombardVerdict {
        combat::bombardment(
            &self.rules,
            &self.scenario,
            &self.table,
            self.piece(gun),
            self.piece(target),
        )
    }
}

#[test]
fn a_bombardment_cannot_fire_through_or_over_a_friendly_piece() {
    // "no puedes disparar a través / sobre piezas amigas" [3.2]. The line of fire runs
    // from rart (20, 20) to b1 (20, 17) along x = 20. r1 at x = c spans
    // c - 0.9375..c + 0.9375: at c = 20.92 its left end (19.9825) is on the line; at
    // c = 20.96 it is 0.0225 in clear.
    let c = v32(&[
        at("rart", 20.0, 20.0, 0.0),
        at("b1", 20.0, 17.0, 180.0),
        at("r1", 20.92, 18.5, 0.0),
    ]);
    let v = c.bombard("rart", "b1");
    assert!(!v.allowed, "{v:?}");
    assert!(v.problems[0].contains("friendly piece r1"), "{v:?}");
    // Sight passes through pieces: it is only the fire that is barred.
    assert!(c.sees("rart", "b1").can_see);
    let c = v32(&[
        at("rart", 20.0, 20.0, 0.0),
        at("b1", 20.0, 17.0, 180.0),
        at("r1", 20.96, 18.5, 0.0),
    ]);
    let v = c.bombard("rart", "b1");
    // Edge to edge: 19.8125 - 17.1875 = 2.625 in of the 5.25 a foot move reaches.
    assert!(
        v.allowed && near(v.distance_in, 2.625) && near(v.range_in, 5.25),
        "{v:?}"
    );
}

#[test]
fn a_3_0_bombardment_fires_only_at_a_target_in_the_guns_field_of_fire() {
    // [3.0] "fire once at a target in its FoF". rart's front edge is y = 19.8125, its
    // field of fire ends at 18.0625. b1 at y = c spans c - 0.1875..c + 0.1875: at
    // c = 18.08, (18.2675 - 18.0625) / 0.375 = 0.5467 is inside; at c = 18.04, 0.165 / 0.375 = 0.44.
    let c = case(
        "pub-battles-3.0",
        &[at("rart", 20.0, 20.0, 0.0), at("b1", 20.0, 18.08, 180.0)],
    );
    let v = c.bombard("rart", "b1");
    assert!(v.allowed, "{v:?}");
    assert!(near(v.fraction_in_arc.unwrap(), 0.5467), "{v:?}");
    assert!(near(v.range_in, 1.75));
    let c = case(
        "pub-battles-3.0",
        &[at("rart", 20.0, 20.0, 0.0), at("b1", 20.0, 18.04, 180.0)],
    );
    let v = c.bombard("rart", "b1");
    assert!(
        !v.allowed && near(v.fraction_in_arc.unwrap(), 0.44),
        "{v:?}"
    );
    // Within a foot move and in sight, as 3.2 would allow, is not enough in 3.0.
    let c = case(
        "pub-battles-3.0",
        &[at("rart", 20.0, 20.0, 0.0), at("b1", 20.0, 16.0, 180.0)],
    );
    assert!(!c.bombard("rart", "b1").allowed);
    let c = v32(&[at("rart", 20.0, 20.0, 0.0), at("b1", 20.0, 16.0, 180.0)]);
    assert!(c.bombard("rart", "b1").allowed);
}

#[test]
fn a_quick_start_bombardment_needs_the_target_within_45_degrees_of_the_front() {
    // "The target must lay within a 45-degree angle from the front" (QS), from the
    // gun's centre (20, 20) facing 0: the wedge's right side is x = 40 - y. b1 (facing
    // 0) at (c, 17) spans x c - 0.9375..c + 0.9375 and y 16.8125..17.1875, about which the
    // side is symmetric, so (23 - c + 0.9375) / 1.875 of it is inside: c = 22.98 gives
    // 0.5107 (allowed), c = 23.02 gives 0.4893 (refused; "at least half").
    let placed = |x: f64| {
        case(
            "pub-battles-qs",
            &[at("rart", 20.0, 20.0, 0.0), at("b1", x, 17.0, 0.0)],
        )
    };
    let v = placed(22.98).bombard("rart", "b1");
    assert!(
        v.allowed && near(v.fraction_in_arc.unwrap(), 0.5107),
        "{v:?}"
    );
    let v = placed(23.02).bombard("rart", "b1");
    assert!(
        !v.allowed && near(v.fraction_in_arc.unwrap(), 0.4893),
        "{v:?}"
    );
    assert!(v.problems[0].contains("45 degrees"), "{v:?}");
    // 3.2 has no arc: the gun turns to fire.
    let c = v32(&[at("rart", 20.0, 20.0, 0.0), at("b1", 23.02, 17.0, 0.0)]);
    assert!(c.bombard("rart", "b1").allowed);
}

// ---- combat facts for the dice ----

mod combat_facts {
    use super::*;
    use crate::dice::combat::{Cover, Flank};

    fn facts(
        c: &Case,
        shooter: &str,
        target: &str,
        attacks: bool,
    ) -> crate::dice::combat::FireFacts {
        combat::fire_facts(
            &c.rules,
            &c.scenario,
            &c.table,
            c.piece(shooter),
            c.piece(target),
            attacks,
        )
    }

    #[test]
    fn a_flank_attack_is_plus_one_for_the_attacker_and_minus_one_back() {
        let c = v32(&[defender(), at("r1", 28.875, 10.0, 90.0)]);
        let a = facts(&c, "r1", "b1", true);
        assert_eq!(a.target_flanked, vec![Flank::Geometry]);
        assert!(a.shooter_flanked.is_empty() && a.target_cover.is_empty());
        let d = facts(&c, "b1", "r1", false);
        assert_eq!(d.shooter_flanked, vec![Flank::Geometry]);
        // Head on: nothing.
        let c = v32(&[defender(), at("r1", 30.0, 10.375, 0.0)]);
        assert_eq!(facts(&c, "r1", "b1", true), Default::default());
    }

    fn facts_from(c: &Case, start: Option<Pose>) -> crate::dice::combat::FireFacts {
        combat::fire_facts_from(
            &c.rules,
            &c.scenario,
            &c.table,
            c.piece("r1"),
            c.piece("b1"),
            true,
            start,
        )
    }

    #[test]
    fn hill_cover_is_judged_from_where_the_attacker_moved_from() {
        // "Cover for Defender if Attacker moved from lower ground" [3.2 chart]. b1 faces
        // up on Long Ridge (y 20..26) at y 21; r1, facing down, touches its front from
        // y 20.625 (20.4375..20.8125): both on the ridge now. r1 began its move at
        // y = c (c - 0.1875..c + 0.1875): at c = 19.9 only 0.0875 / 0.375 = 23% of it was
        // on the ridge (low ground: cover); at c = 20.3 all of it (no cover).
        let c = v32(&[at("b1", 24.0, 21.0, 0.0), at("r1", 24.0, 20.625, 180.0)]);
        assert!(c.report("b1").in_contact_with.contains(&"r1".to_string()));
        let from = |y: f64| Some(Pose::new(24.0, y, 180.0));
        assert_eq!(facts_from(&c, from(19.9)).target_cover, vec![Cover::Hill]);
        assert!(facts_from(&c, from(20.3)).target_cover.is_empty());
        // Without the move, the level it stands on now (the ridge) stands in.
        assert!(facts_from(&c, None).target_cover.is_empty());
        // Options::hill_cover_from = CurrentLevel ignores where it came from.
        let mut c = c;
        c.rules.options.hill_cover_from = HillCoverFrom::CurrentLevel;
        assert!(facts_from(&c, from(19.9)).target_cover.is_empty());
        // aide move says the same of the move itself.
        let c = v32(&[at("b1", 24.0, 21.0, 0.0), at("r1", 24.0, 19.9, 180.0)]);
        let v = c.mv("r1", 24.0, 20.625, 180.0);
        assert!(
            v.warnings.iter().any(|w| w.contains("b1 has hill cover")),
            "{v:?}"
        );
    }

    #[test]
    fn an_attack_across_the_ford_is_flanked_though_it_ends_past_the_river() {
        // "¿Puede la Roja atacar al otro lado del río? Sí." and "Treat pieces attacking
        // across a River as Flanked for 1st round only" [3.2]. The river covers
        // y 14.7..15.3. r1 ends past it at y 13.6, touching b1 (front edge 13.4125):
        // the line between their centres no longer crosses water. It began at y = c:
        // c = 14.71 (its centre, and so most of it, in the water): across; c = 14.69 (on
        // the north bank already): not.
        let c = v32(&[at("b1", 10.5, 13.225, 180.0), at("r1", 10.5, 13.6, 0.0)]);
        let from = |y: f64| Some(Pose::new(10.5, y, 0.0));
        assert!(facts_from(&c, None).shooter_flanked.is_empty());
        assert_eq!(
            facts_from(&c, from(14.71)).shooter_flanked,
            vec![Flank::RiverCrossing]
        );
        assert!(facts_from(&c, from(14.69)).shooter_flanked.is_empty());
        // b1 fires back at +1 in round 1.
        let back = combat::fire_facts_from(
            &c.rules,
            &c.scenario,
            &c.table,
            c.piece("b1"),
            c.piece("r1"),
            false,
            from(16.5),
        );
        assert_eq!(back.target_flanked, vec![Flank::RiverCrossing]);
        // The move over the ford says so too.
        let c = v32(&[
            at("rh", 10.5, 17.5, 0.0),
            at("r1", 10.5, 16.5, 0.0),
            at("b1", 10.5, 13.225, 180.0),
        ]);
        let v = c.mv("r1", 10.5, 13.6, 0.0);
        assert!(
            v.legal
                && v.warnings
                    .iter()
                    .any(|w| w.contains("attacks b1 across a river")),
            "{v:?}"
        );
    }

    #[test]
    fn envelopment_flanks_both_defenders_and_breaks_their_support() {
        // b1 supported by b2, attacked by r1 in front and r2 behind b2 (see
        // an_enveloped_pair_loses_its_support_and_both_are_flanked): r1 fires at +1 on b1,
        // b1 at -1 back, and b1 fights unsupported.
        let c = v32(&[
            defender(),
            at("b2", 30.0, 9.625, 180.0),
            at("r1", 30.0, 10.375, 0.0),
            at("r2", 30.0, 9.25, 180.0),
        ]);
        let a = facts(&c, "r1", "b1", true);
        assert_eq!(a.target_flanked, vec![Flank::Envelopment]);
        let d = facts(&c, "b1", "r1", false);
        assert_eq!(d.shooter_flanked, vec![Flank::Envelopment]);
        assert_eq!(
            facts(&c, "r2", "b2", true).target_flanked,
            vec![Flank::Envelopment]
        );
        assert!(!combat::combatant(&c.rules, &c.table, c.piece("b1")).supported);
        // Without r2, b1 is supported and r1's shot has no flank.
        let c = v32(&[
            defender(),
            at("b2", 30.0, 9.625, 180.0),
            at("r1", 30.0, 10.375, 0.0),
        ]);
        assert!(facts(&c, "r1", "b1", true).target_flanked.is_empty());
        assert!(combat::combatant(&c.rules, &c.table, c.piece("b1")).supported);
    }

    #[test]
    fn woods_give_cover_and_woods_on_a_hill_still_one_cover_against_the_same_level() {
        // Ridge Copse (26..29 x 20.5..22.5) on Long Ridge; the attacker on the ridge too.
        let c = v32(&[at("b1", 27.5, 21.5, 180.0), at("r1", 27.5, 21.875, 0.0)]);
        assert!(c.report("b1").in_contact_with.contains(&"r1".to_string()));
        assert_eq!(facts(&c, "r1", "b1", true).target_cover, vec![Cover::Woods]);
        // From the low ground the hill is cover too; the dice count cover once.
        let c = v32(&[at("b1", 24.0, 20.5, 180.0), at("r1", 24.0, 19.3, 180.0)]);
        assert_eq!(facts(&c, "r1", "b1", true).target_cover, vec![Cover::Hill]);
    }

    #[test]
    fn an_attacker_across_the_river_counts_as_flanked_and_a_road_column_is_flanked() {
        // b1 on the ford's north bank, r1 attacked from the south across the water.
        let c = v32(&[
            at("b1", 10.5, 14.5, 180.0),
            at("r1", 10.5, 15.5 - 0.0125, 0.0),
        ]);
        let a = facts(&c, "r1", "b1", true);
        assert!(a.shooter_flanked.contains(&Flank::RiverCrossing), "{a:?}");
        let d = facts(&c, "b1", "r1", false);
        assert!(d.target_flanked.contains(&Flank::RiverCrossing), "{d:?}");
        let c = v32(&[at("b1", 20.0, 28.0, 0.0), at("r1", 20.0, 28.375, 0.0)]);
        assert!(
            facts(&c, "r1", "b1", true)
                .target_flanked
                .contains(&Flank::RoadColumn)
        );
    }
}
