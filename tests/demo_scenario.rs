//! The demo scenario is the first thing a user sees and the fixture the other stages
//! render and serve: it must load, carry every terrain type, and keep the situations
//! its README describes, with the numbers worked there by hand.

use std::collections::HashSet;
use std::path::Path;

use aide::rules::{PieceReport, TableReport, for_scenario};
use aide::scenario::{Scenario, TerrainKind, load_state};
use aide::table::UnitKind;

fn demo() -> (Scenario, TableReport) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo");
    let scenario = Scenario::load(&dir.join("valley.toml")).expect("demo loads");
    let table = load_state(&scenario, &dir.join("state.json")).expect("demo state loads");
    let report = for_scenario(&scenario).check_table(&scenario, &table);
    (scenario, report)
}

fn piece<'a>(report: &'a TableReport, id: &str) -> &'a PieceReport {
    report
        .pieces
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("{id} on the table"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-3
}

#[test]
fn the_demo_has_every_terrain_type_two_sides_of_three_commands_and_about_thirty_units() {
    let (scenario, report) = demo();
    let kinds: HashSet<TerrainKind> = scenario.terrain.features.iter().map(|f| f.kind).collect();
    for k in [
        TerrainKind::Woods,
        TerrainKind::Buildings,
        TerrainKind::Marsh,
        TerrainKind::Hill,
        TerrainKind::Crest,
        TerrainKind::River,
        TerrainKind::Stream,
        TerrainKind::Road,
        TerrainKind::Bridge,
        TerrainKind::Ford,
        TerrainKind::Impassable,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing");
    }
    assert_eq!(scenario.sides.len(), 2);
    for side in &scenario.sides {
        assert_eq!(
            scenario
                .commands
                .iter()
                .filter(|c| c.side == side.id)
                .count(),
            3
        );
    }
    assert_eq!(scenario.units.len(), 30);
    assert_eq!(report.pieces.len(), 30, "the state places every unit");
    // Every setup pose is on the table and the setup state loads.
    assert_eq!(scenario.setup_table().pieces.len(), 30);
    assert!(
        scenario
            .units
            .iter()
            .any(|u| u.kind == UnitKind::HorseArtillery)
    );
}

#[test]
fn the_cuirassiers_flank_the_landwehr() {
    let (_, report) = demo();
    let landwehr = piece(&report, "blue-2-inf");
    assert_eq!(landwehr.in_contact_with, vec!["red-3-cuir".to_string()]);
    assert_eq!(landwehr.flanked_by, vec!["red-3-cuir".to_string()]);
}

#[test]
fn command_margins_are_those_worked_by_hand() {
    let (_, report) = demo();
    let inside = piece(&report, "red-2-inf-1");
    assert_eq!(
        (inside.in_command, inside.commanded_by.as_deref()),
        (Some(true), Some("red-2-hq"))
    );
    assert!(close(inside.command_margin_in.unwrap(), 0.125));
    let outside = piece(&report, "red-2-gd");
    assert_eq!(outside.in_command, Some(false));
    assert!(close(outside.command_margin_in.unwrap(), -0.125));
    assert!(close(
        piece(&report, "blue-1-inf-1").command_margin_in.unwrap(),
        0.275
    ));
    assert!(close(
        piece(&report, "blue-2-gd").command_margin_in.unwrap(),
        0.825
    ));
    assert!(close(
        piece(&report, "blue-1-inf-2").command_margin_in.unwrap(),
        1.4625
    ));
}

#[test]
fn the_fire_fight_at_mill_bridge_is_mutual() {
    let (_, report) = demo();
    let blue = piece(&report, "blue-1-inf-1");
    let red = piece(&report, "red-2-inf-2");
    assert_eq!(blue.in_fof_of, vec!["red-2-inf-2".to_string()]);
    assert_eq!(red.in_fof_of, vec!["blue-1-inf-1".to_string()]);
    assert_eq!(blue.fof_detail[0].fraction_inside, 1.0);
    assert!(blue.can_see.contains(&"red-2-inf-2".to_string()));
}

#[test]
fn the_voltigeurs_hide_in_bramble_wood_and_the_battery_sees_over_grange_copse() {
    let (_, report) = demo();
    let det = piece(&report, "red-2-det");
    assert_eq!(
        (det.terrain.as_str(), det.cover.as_deref()),
        ("woods", Some("woods"))
    );
    assert!(
        report
            .pieces
            .iter()
            .all(|p| !p.can_see.contains(&"red-2-det".to_string()))
    );
    let battery = piece(&report, "red-1-art");
    assert_eq!(battery.hill_level, 1);
    assert!(battery.can_see.contains(&"blue-2-gd".to_string()));
    assert!(
        !piece(&report, "blue-2-gd")
            .in_fof_of
            .contains(&"red-1-art".to_string())
    );
    let garrison = piece(&report, "red-1-inf-1");
    assert_eq!(
        (garrison.terrain.as_str(), garrison.cover.as_deref()),
        ("buildings", Some("buildings"))
    );
}
