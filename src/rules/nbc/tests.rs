//! Hand-worked NBC cases. Positions are written in cm and converted to map inches; a
//! brigade base is 5 x 5 cm, a battery 2.5 cm wide and 5 cm deep, a Formation
//! Commander 2.5 x 3.2 cm. Heading 0 faces the top of the map (y decreasing).

use geo::Coord;

use super::*;
use crate::geom::Footprint;
use crate::table::Placement;

const CM: f64 = CM_PER_IN;

struct World {
    scenario: Scenario,
    _dir: tempfile::TempDir,
}

/// A rectangle in cm as a GeoJSON feature.
fn rect(kind: &str, x0: f64, y0: f64, x1: f64, y1: f64, extra: &str) -> String {
    let (x0, y0, x1, y1) = (x0 / CM, y0 / CM, x1 / CM, y1 / CM);
    format!(
        r#"{{"type":"Feature","properties":{{"terrain":"{kind}"{extra}}},"geometry":{{"type":"Polygon","coordinates":[[[{x0},{y0}],[{x1},{y0}],[{x1},{y1}],[{x0},{y1}],[{x0},{y0}]]]}}}}"#
    )
}

fn world(terrain: &[String], extra_toml: &str) -> World {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("terrain.geojson"),
        format!(
            r#"{{"type":"FeatureCollection","features":[{}]}}"#,
            terrain.join(",")
        ),
    )
    .unwrap();
    let toml = format!(
        r##"name = "nbc test"
rules = "nbc"
[map]
width_in = 40.0
height_in = 40.0
terrain = "terrain.geojson"
[measures]
model = "nbc"
{extra_toml}
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
[[commands]]
id = "blue-1"
side = "blue"
name = "I Corps"
hq = "b-hq"
ability = 4
[[units]]
id = "b-hq"
name = "b-hq"
side = "blue"
command = "blue-1"
kind = "hq"
[[units]]
id = "b-ahq"
name = "b-ahq"
side = "blue"
kind = "army-hq"
[[units]]
id = "b-1"
name = "b-1"
side = "blue"
command = "blue-1"
kind = "infantry"
[[units]]
id = "b-2"
name = "b-2"
side = "blue"
command = "blue-1"
kind = "infantry"
[[units]]
id = "b-3"
name = "b-3"
side = "blue"
command = "blue-1"
kind = "cavalry"
[[units]]
id = "b-art"
name = "b-art"
side = "blue"
kind = "artillery"
weight = "heavy"
[[units]]
id = "b-att"
name = "b-att"
side = "blue"
kind = "artillery"
weight = "heavy"
attached = true
q = 5
[[units]]
id = "r-1"
name = "r-1"
side = "red"
kind = "infantry"
[[units]]
id = "r-2"
name = "r-2"
side = "red"
kind = "infantry"
[[units]]
id = "r-art"
name = "r-art"
side = "red"
kind = "artillery"
weight = "light"
"##
    );
    let scenario = Scenario::from_toml(&dir.path().join("s.toml"), &toml).unwrap();
    World {
        scenario,
        _dir: dir,
    }
}

/// Pieces at (x_cm, y_cm, heading).
fn table(w: &World, at: &[(&str, f64, f64, f64)]) -> TableState {
    let placements: Vec<Placement> = at
        .iter()
        .map(|(id, x, y, h)| Placement {
            id: (*id).into(),
            x_in: x / CM,
            y_in: y / CM,
            heading_deg: *h,
            status: Status::Fresh,
        })
        .collect();
    w.scenario.table(&placements).unwrap()
}

fn nbc<'a>(r: &'a TableReport, id: &str) -> &'a NbcPieceReport {
    r.pieces
        .iter()
        .find(|p| p.id == id)
        .and_then(|p| p.nbc.as_ref())
        .unwrap()
}

fn gun<'a>(r: &'a TableReport, from: &str, at: &str) -> &'a ArtilleryTarget {
    nbc(r, from)
        .artillery
        .iter()
        .find(|t| t.target == at)
        .unwrap()
}

// ---- geometry ----

#[test]
fn aspects_directly_in_front_and_behind_the_flank() {
    // A 5 x 5 base at the origin facing up; points given as (right, ahead).
    let base = Footprint::new(0.0, 0.0, 0.0, 5.0, 5.0);
    let at = |right: f64, ahead: f64| {
        relation(
            &base,
            Coord {
                x: right,
                y: -ahead,
            },
        )
    };
    assert!(at(0.0, 6.0).directly_in_front);
    assert!(at(2.49, 6.0).directly_in_front);
    assert!(!at(0.0, 2.49).directly_in_front);
    let beside = at(2.51, 6.0);
    assert!(!beside.directly_in_front);
    assert_eq!(beside.aspect, Aspect::Frontal);
    // The diagonal of a square base is 45 degrees: (6, 6) is on it (frontal), (6, 5.9)
    // is in the right flank aspect.
    assert_eq!(at(6.0, 6.0).aspect, Aspect::Frontal);
    assert_eq!(at(6.0, 5.9).aspect, Aspect::RightFlank);
    assert_eq!(at(-6.0, 5.9).aspect, Aspect::LeftFlank);
    assert_eq!(at(1.0, -6.0).aspect, Aspect::Rear);
    // Behind the extended front line (2.5 ahead of the centre).
    assert!(at(8.0, 2.4).behind_the_flank);
    assert!(!at(8.0, 2.6).behind_the_flank);
}

#[test]
fn zone_of_fire_is_90_degrees_for_a_brigade_and_53_for_a_battery() {
    let ray = |deg: f64| Coord {
        x: 20.0 * deg.to_radians().sin(),
        y: -20.0 * deg.to_radians().cos(),
    };
    let brigade = Footprint::new(0.0, 0.0, 0.0, 5.0, 5.0);
    assert!(in_zone_of_fire(&brigade, ray(44.9)));
    assert!(!in_zone_of_fire(&brigade, ray(45.1)));
    // atan(1.25 / 2.5) = 26.57 degrees either side.
    let battery = Footprint::new(0.0, 0.0, 0.0, 2.5, 5.0);
    assert!(in_zone_of_fire(&battery, ray(26.4)));
    assert!(!in_zone_of_fire(&battery, ray(26.7)));
    assert!(in_zone_of_fire(&battery, ray(-26.4)));
}

#[test]
fn command_radius_from_formation_size_and_ability() {
    use NbcEra::*;
    // 7 x 1.8 = 12.6 -> 13; 5 x 2.3 = 11.5 -> 12 (halves up); 5 x 2.8 = 14.
    assert_eq!(command_radius_cm(7, 3, Traditional), 13.0);
    assert_eq!(command_radius_cm(5, 4, Traditional), 12.0);
    assert_eq!(command_radius_cm(4, 4, Traditional), 9.0);
    assert_eq!(command_radius_cm(5, 5, Traditional), 14.0);
    // 2 x 1.3 = 2.6 -> 3, raised to the minimum: 5 Traditional, 10 Napoleonic.
    assert_eq!(command_radius_cm(2, 1, Traditional), 5.0);
    assert_eq!(command_radius_cm(2, 1, Napoleonic), 10.0);
    // 10 x 3.0 = 30, cut to the maximum: 20 / 25.
    assert_eq!(command_radius_cm(10, 6, Traditional), 20.0);
    assert_eq!(command_radius_cm(10, 6, Napoleonic), 25.0);
}

#[test]
fn visibility_chart() {
    assert_eq!(
        visibility_cm(TimeOfDay::Day, Weather::Bright),
        (60.0, 90.0, 15.0)
    );
    assert_eq!(
        visibility_cm(TimeOfDay::Day, Weather::Snow),
        (30.0, 40.0, 10.0)
    );
    assert_eq!(
        visibility_cm(TimeOfDay::EarlyMorning, Weather::Sunny),
        (15.0, 20.0, 5.0)
    );
    assert_eq!(visibility_cm(TimeOfDay::Evening, Weather::Bright).2, 10.0);
    assert_eq!(
        visibility_cm(TimeOfDay::Night, Weather::Sunny),
        (5.0, 5.0, 2.0)
    );
}

// ---- the table ----

#[test]
fn contact_zone_is_ten_cm_edge_to_edge() {
    let w = world(&[], "");
    // b-1's front edge is at y = 37.5; r-1's centre is 2.5 cm beyond a gap above it.
    for (gap, inside) in [(9.95, true), (10.05, false)] {
        let t = table(
            &w,
            &[
                ("b-1", 50.0, 40.0, 0.0),
                ("r-1", 50.0, 37.5 - gap - 2.5, 180.0),
            ],
        );
        let r = Nbc.check_table(&w.scenario, &t);
        assert_eq!(!nbc(&r, "b-1").contact_zone.is_empty(), inside, "gap {gap}");
        let a = &nbc(&r, "b-1").aspects[0];
        assert!(a.relation.directly_in_front && a.relation.aspect == Aspect::Frontal);
    }
}

#[test]
fn flanked_by_an_un_engaged_enemy_within_five_cm() {
    let w = world(&[], "");
    // r-1 beside b-1's right side (x = 52.5), its centre level with b-1's: behind
    // b-1's extended front line.
    for (gap, flanked) in [(4.95, true), (5.05, false)] {
        let t = table(
            &w,
            &[
                ("b-1", 50.0, 40.0, 0.0),
                ("r-1", 52.5 + gap + 2.5, 40.0, 270.0),
            ],
        );
        let r = Nbc.check_table(&w.scenario, &t);
        assert_eq!(
            nbc(&r, "b-1").flanked_by.len(),
            usize::from(flanked),
            "gap {gap}"
        );
    }
    // r-1's centre 2.6 cm ahead of b-1's centre, so ahead of its front line (2.5 cm):
    // not behind the flank.
    let t = table(&w, &[("b-1", 50.0, 40.0, 0.0), ("r-1", 57.0, 37.4, 270.0)]);
    assert!(
        nbc(&Nbc.check_table(&w.scenario, &t), "b-1")
            .flanked_by
            .is_empty()
    );
    // r-1 engaged by b-2 standing in its front (facing right, b-2 3 cm off its front).
    let t = table(
        &w,
        &[
            ("b-1", 50.0, 40.0, 0.0),
            ("r-1", 57.0, 40.0, 90.0),
            ("b-2", 57.0 + 2.5 + 3.0 + 2.5, 40.0, 270.0),
        ],
    );
    let r = Nbc.check_table(&w.scenario, &t);
    assert!(nbc(&r, "b-1").flanked_by.is_empty());
    assert_eq!(r.pieces[0].flanked_by, Vec::<String>::new());
}

#[test]
fn unattached_artillery_flanks_only_if_it_could_fire() {
    let w = world(&[], "");
    // r-art facing up, 3 cm to b-1's right: b-1 is not in its Zone of Fire.
    let t = table(
        &w,
        &[
            ("b-1", 50.0, 40.0, 0.0),
            ("r-art", 52.5 + 3.0 + 1.25, 40.0, 0.0),
        ],
    );
    assert!(
        nbc(&Nbc.check_table(&w.scenario, &t), "b-1")
            .flanked_by
            .is_empty()
    );
    // Facing b-1 (270, so 5 cm deep along x): it could fire, it flanks.
    let t = table(
        &w,
        &[
            ("b-1", 50.0, 40.0, 0.0),
            ("r-art", 52.5 + 3.0 + 2.5, 40.0, 270.0),
        ],
    );
    let r = Nbc.check_table(&w.scenario, &t);
    assert_eq!(r.pieces[0].flanked_by, vec!["r-art".to_owned()]);
}

#[test]
fn command_radius_measured_from_the_formation_commander() {
    // blue-1 has 3 units (b-1, b-2, b-3) and A4: 3 x 2.3 = 6.9 -> 7 cm.
    let w = world(&[], "");
    // b-hq (2.5 x 3.2) at y = 60 spans y 58.4 to 61.6; b-3 below it.
    for (gap, in_command) in [(6.95, true), (7.05, false)] {
        let t = table(
            &w,
            &[
                ("b-hq", 50.0, 60.0, 0.0),
                ("b-3", 50.0, 61.6 + gap + 2.5, 0.0),
            ],
        );
        let r = Nbc.check_table(&w.scenario, &t);
        let c = nbc(&r, "b-3").command.clone().unwrap();
        assert_eq!(c.radius_cm, 7.0);
        assert_eq!(c.in_command, in_command, "{c:?}");
        assert!((c.margin_cm.unwrap() - (7.0 - gap)).abs() < 0.01);
        assert_eq!(r.pieces[1].in_command, Some(in_command));
    }
    // The Napoleonic minimum raises it to 10 cm.
    let w = world(&[], "[nbc]\nera = \"napoleonic\"\n");
    let t = table(
        &w,
        &[
            ("b-hq", 50.0, 60.0, 0.0),
            ("b-3", 50.0, 61.6 + 9.0 + 2.5, 0.0),
        ],
    );
    assert_eq!(
        nbc(&Nbc.check_table(&w.scenario, &t), "b-3")
            .command
            .as_ref()
            .unwrap()
            .radius_cm,
        10.0
    );
}

#[test]
fn army_commander_sees_by_time_weather_and_vantage() {
    // Day, bright: 60 cm, 90 cm from a Vantage Point (the whole base on a hill).
    let w = world(
        &[rect("hill", 0.0, 0.0, 12.0, 12.0, r#","id":"h","level":1"#)],
        "",
    );
    for (ahq_x, vantage) in [(6.0, true), (20.0, false)] {
        // b-1's left edge is 75 cm right of the army commander's right edge.
        let t = table(
            &w,
            &[
                ("b-ahq", ahq_x, 6.0, 0.0),
                ("b-1", ahq_x + 2.5 + 75.0 + 2.5, 6.0, 0.0),
            ],
        );
        let a = nbc(&Nbc.check_table(&w.scenario, &t), "b-1")
            .army_commander
            .clone()
            .unwrap();
        assert_eq!(a.on_vantage_point, vantage);
        assert_eq!(a.within_visibility, vantage, "{a:?}");
        assert!(!a.within_10cm);
    }
    // At night everything is 5 cm.
    let w = world(&[], "[nbc]\ntime = \"night\"\n");
    let t = table(
        &w,
        &[
            ("b-ahq", 20.0, 20.0, 0.0),
            ("b-1", 20.0 + 2.5 + 4.9 + 2.5, 20.0, 0.0),
        ],
    );
    let a = nbc(&Nbc.check_table(&w.scenario, &t), "b-1")
        .army_commander
        .clone()
        .unwrap();
    assert!(a.within_visibility && a.within_10cm && a.visibility_cm == 5.0);
}

#[test]
fn artillery_range_bands_and_dice_by_weight() {
    let w = world(&[], "");
    // b-art (heavy) at y = 60 has its front edge at 57.5; r-1 faces it.
    for (gap, band, dice) in [
        (10.0 - 0.01, dice::Band::Short, 4),
        (10.01, dice::Band::Medium, 3),
    ] {
        let t = table(
            &w,
            &[
                ("b-art", 50.0, 60.0, 0.0),
                ("r-1", 50.0, 57.5 - gap - 2.5, 180.0),
            ],
        );
        let g = gun(&Nbc.check_table(&w.scenario, &t), "b-art", "r-1").clone();
        assert!(g.allowed, "{g:?}");
        assert_eq!((g.band, g.dice), (band, dice));
        assert_eq!(g.into, Aspect::Frontal);
    }
    // Beyond 30 cm a heavy battery has no shot at all.
    let t = table(
        &w,
        &[
            ("b-art", 50.0, 60.0, 0.0),
            ("r-1", 50.0, 57.5 - 30.1 - 2.5, 180.0),
        ],
    );
    assert!(
        nbc(&Nbc.check_table(&w.scenario, &t), "b-art")
            .artillery
            .is_empty()
    );
}

#[test]
fn unattached_artillery_fires_in_its_zone_and_at_the_nearest_in_contact() {
    let w = world(&[], "");
    // r-1 at 20 cm from the battery's centre, 25 deg off: in the zone; 30 deg: not.
    let at = |deg: f64| {
        (
            50.0 + 20.0 * deg.to_radians().sin(),
            60.0 - 20.0 * deg.to_radians().cos(),
        )
    };
    let (x, y) = at(25.0);
    let t = table(&w, &[("b-art", 50.0, 60.0, 0.0), ("r-1", x, y, 180.0)]);
    assert!(gun(&Nbc.check_table(&w.scenario, &t), "b-art", "r-1").allowed);
    let (x, y) = at(30.0);
    let t = table(&w, &[("b-art", 50.0, 60.0, 0.0), ("r-1", x, y, 180.0)]);
    assert!(!gun(&Nbc.check_table(&w.scenario, &t), "b-art", "r-1").allowed);
    // r-2 8 cm ahead is in the Contact Zone: r-1 (clear of r-2) may not be chosen.
    let (x, y) = at(25.0);
    let t = table(
        &w,
        &[
            ("b-art", 50.0, 60.0, 0.0),
            ("r-1", x, y, 180.0),
            ("r-2", 50.0, 57.5 - 8.0 - 2.5, 180.0),
        ],
    );
    let r = Nbc.check_table(&w.scenario, &t);
    assert!(gun(&r, "b-art", "r-2").allowed);
    let g = gun(&r, "b-art", "r-1");
    assert!(
        !g.allowed && g.reason.contains("must fire at the nearest"),
        "{g:?}"
    );
    assert_eq!(r.pieces[2].in_fof_of, vec!["b-art".to_owned()]);
}

#[test]
fn attached_artillery_fires_at_the_nearest_directly_in_front_never_long() {
    let w = world(&[], "");
    // b-att: heavy, Q5 (one more die). r-1 15 cm straight ahead: Medium, 3 + 1 dice.
    let t = table(
        &w,
        &[
            ("b-att", 50.0, 60.0, 0.0),
            ("r-1", 50.0, 57.5 - 15.0 - 2.5, 180.0),
            ("r-2", 56.0, 40.0, 180.0),
        ],
    );
    let r = Nbc.check_table(&w.scenario, &t);
    let g = gun(&r, "b-att", "r-1");
    assert!(g.allowed && g.dice == 4, "{g:?}");
    // r-2 is in the zone of fire but not directly in front.
    assert!(!gun(&r, "b-att", "r-2").allowed);
    // At 25 cm r-1 is at Long range.
    let t = table(
        &w,
        &[
            ("b-att", 50.0, 60.0, 0.0),
            ("r-1", 50.0, 57.5 - 25.0 - 2.5, 180.0),
        ],
    );
    let g = gun(&Nbc.check_table(&w.scenario, &t), "b-att", "r-1").clone();
    assert!(!g.allowed && g.reason.contains("Long"), "{g:?}");
}

#[test]
fn firing_lane_through_friends_as_wide_as_the_battery() {
    let w = world(&[], "");
    let target = ("r-1", 50.0, 57.5 - 20.0 - 2.5, 180.0);
    // The lane runs x 48.75 to 51.25. b-1 with its left edge at 51.25 only touches it.
    for (x, clear) in [(51.25 + 2.5, true), (51.15 + 2.5, false), (50.0, false)] {
        let t = table(
            &w,
            &[("b-art", 50.0, 60.0, 0.0), target, ("b-1", x, 45.0, 0.0)],
        );
        let g = gun(&Nbc.check_table(&w.scenario, &t), "b-art", "r-1").clone();
        assert_eq!(g.allowed, clear, "b-1 at {x}: {g:?}");
    }
    // Enemy artillery outside the Contact Zone (13 cm off) may be fired through.
    let t = table(
        &w,
        &[
            ("b-art", 50.0, 60.0, 0.0),
            target,
            ("r-art", 50.0, 42.0, 180.0),
        ],
    );
    assert!(gun(&Nbc.check_table(&w.scenario, &t), "b-art", "r-1").allowed);
    // A friend entirely on lower ground than both does not block.
    let hills = [
        rect("hill", 40.0, 55.0, 60.0, 70.0, r#","id":"a","level":1"#),
        rect("hill", 40.0, 20.0, 60.0, 40.0, r#","id":"b","level":1"#),
    ];
    let w = world(&hills, "");
    let t = table(
        &w,
        &[("b-art", 50.0, 60.0, 0.0), target, ("b-1", 50.0, 47.0, 0.0)],
    );
    assert!(gun(&Nbc.check_table(&w.scenario, &t), "b-art", "r-1").allowed);
}

#[test]
fn fire_penetrates_two_cm_into_woods() {
    // r-1 at y 32.5 to 37.5, facing the battery; the woods' near edge is `depth` cm
    // in front of r-1's front edge (toward the battery).
    for (depth, allowed) in [(1.9, true), (2.1, false)] {
        let w = world(&[rect("woods", 30.0, 20.0, 70.0, 37.5 + depth, "")], "");
        let t = table(
            &w,
            &[("b-art", 50.0, 60.0, 0.0), ("r-1", 50.0, 35.0, 180.0)],
        );
        let g = gun(&Nbc.check_table(&w.scenario, &t), "b-art", "r-1").clone();
        assert_eq!(g.allowed, allowed, "{depth}: {g:?}");
    }
}

#[test]
fn report_is_in_centimetres_and_keeps_the_pub_battles_keys() {
    let w = world(&[], "");
    let t = table(&w, &[("b-hq", 50.0, 60.0, 0.0), ("b-art", 30.0, 60.0, 0.0)]);
    let json = serde_json::to_value(Nbc.check_table(&w.scenario, &t)).unwrap();
    assert_eq!(json["measures"]["unit"], "cm");
    assert_eq!(json["measures"]["visibility_cm"], 60.0);
    let p = &json["pieces"][1];
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
    assert_eq!(p["nbc"]["frontage_cm"], 2.5);
    assert_eq!(p["nbc"]["depth_cm"], 5.0);
}

#[test]
fn out_of_command_units_may_not_move_into_the_contact_zone() {
    let w = world(&[], "");
    // b-3 is 20 cm below its commander (radius 7 cm): Out of Command. It slides right
    // toward r-1, level with it.
    let t = table(
        &w,
        &[
            ("b-hq", 50.0, 20.0, 0.0),
            ("b-3", 50.0, 21.6 + 20.0 + 2.5, 0.0),
            ("r-1", 80.0, 44.1, 180.0),
        ],
    );
    let b3 = t.piece("b-3").unwrap();
    let to = |x_cm: f64| Pose::new(x_cm / CM, 44.1 / CM, 0.0);
    // r-1 spans x 77.5 to 82.5: ending with b-3's right edge 10.05 cm short is legal,
    // 9.95 cm short is in the Contact Zone.
    let v = Nbc.check_move(
        &w.scenario,
        &t,
        b3,
        to(77.5 - 10.05 - 2.5),
        Status::Fresh,
        false,
    );
    assert!(v.legal, "{v:?}");
    let v = Nbc.check_move(
        &w.scenario,
        &t,
        b3,
        to(77.5 - 9.95 - 2.5),
        Status::Fresh,
        false,
    );
    assert!(
        !v.legal && v.problems[0].contains("Out of Command"),
        "{v:?}"
    );
    // In command (commander alongside), the same move is legal.
    let t = table(
        &w,
        &[
            ("b-hq", 50.0, 40.0, 0.0),
            ("b-3", 50.0, 44.1, 0.0),
            ("r-1", 80.0, 44.1, 180.0),
        ],
    );
    let v = Nbc.check_move(
        &w.scenario,
        &t,
        t.piece("b-3").unwrap(),
        to(77.5 - 9.95 - 2.5),
        Status::Fresh,
        false,
    );
    assert!(v.legal, "{v:?}");
}

#[test]
fn woods_limit_sight_to_five_cm_from_inside_and_two_cm_into_them() {
    let w = world(&[rect("woods", 0.0, 0.0, 40.0, 40.0, "")], "");
    let sees = |a: (&str, f64, f64), b: (&str, f64, f64)| {
        let t = table(&w, &[(a.0, a.1, a.2, 0.0), (b.0, b.1, b.2, 180.0)]);
        Nbc.sight(
            &w.scenario,
            &t,
            t.piece(a.0).unwrap(),
            t.piece(b.0).unwrap(),
        )
        .can_see
    };
    // b-1 inside the woods at (20, 30) sees r-1 4.9 cm off its front, not 5.1.
    assert!(sees(("b-1", 20.0, 30.0), ("r-1", 20.0, 27.5 - 4.9 - 2.5)));
    assert!(!sees(("b-1", 20.0, 30.0), ("r-1", 20.0, 27.5 - 5.1 - 2.5)));
    // From outside (below the woods) into them: 2 cm.
    assert!(sees(("b-1", 20.0, 45.0), ("r-1", 20.0, 42.5 - 1.9 - 2.5)));
    assert!(!sees(("b-1", 20.0, 45.0), ("r-1", 20.0, 42.5 - 2.1 - 2.5)));
    // In the open, 60 cm on a bright day.
    let w = world(&[], "");
    for (gap, seen) in [(59.9, true), (60.1, false)] {
        let t = table(
            &w,
            &[
                ("b-1", 20.0, 80.0, 0.0),
                ("r-1", 20.0, 77.5 - gap - 2.5, 180.0),
            ],
        );
        let v = Nbc.sight(
            &w.scenario,
            &t,
            t.piece("b-1").unwrap(),
            t.piece("r-1").unwrap(),
        );
        assert_eq!(v.can_see, seen, "{gap}: {v:?}");
    }
}
