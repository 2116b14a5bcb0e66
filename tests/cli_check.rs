//! `aide check` and `aide move` driven as a user (or an outside test) drives them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mini")
        .join(name)
}

fn aide(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(args)
        .output()
        .expect("runs aide")
}

fn check_json(scenario: &Path, state: &Path) -> Value {
    let out = aide(&[
        "check",
        "--scenario",
        scenario.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("check prints JSON")
}

fn piece<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap()
}

#[test]
fn check_json_reports_command_fire_and_sight_with_margins() {
    let report = check_json(&fixture("scenario.toml"), &fixture("state.json"));
    // r1's front edge is 12.855 - 0.1875 = 12.6675; the HQ cube's far face is 10.1875:
    // 2.48 in apart, 0.02 inside the 2.5 in command range.
    let r1 = piece(&report, "r1");
    assert_eq!(r1["in_command"], true);
    assert_eq!(r1["command_margin_in"].as_f64().unwrap(), 0.02);
    // r2's nearest corner is (2.375, 2.52) in from the cube's: 3.4628 in, 0.9628 out.
    let r2 = piece(&report, "r2");
    assert_eq!(r2["in_command"], false);
    assert_eq!(r2["command_margin_in"].as_f64().unwrap(), -0.9628);
    // b1 lies flat (0.75 deep) at y 10.625..11.375, facing r1; r1's field of fire ends
    // at 12.6675 - 1.75 = 10.9175, so 0.4575 / 0.75 = 61% of b1 is inside it.
    let b1 = piece(&report, "b1");
    assert_eq!(b1["in_fof_of"], serde_json::json!(["r1"]));
    assert_eq!(
        b1["fof_detail"][0]["fraction_inside"].as_f64().unwrap(),
        0.61
    );
    assert_eq!(b1["terrain"], "clear");
    assert_eq!(r1["in_fof_of"], serde_json::json!(["b1"]));
    assert_eq!(r1["can_see"], serde_json::json!(["b1"]));
    assert_eq!(r1["flanked_by"], serde_json::json!([]));
    // HQs have no commanding HQ of their own on this table.
    assert_eq!(piece(&report, "rh")["command_margin_in"], Value::Null);
}

#[test]
fn check_for_a_person_says_in_command_by_how_much() {
    let out = aide(&[
        "check",
        "--scenario",
        fixture("scenario.toml").to_str().unwrap(),
        "--state",
        fixture("state.json").to_str().unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("command: in range of rh by 0.02 in"),
        "{text}"
    );
    assert!(
        text.contains("command: OUT of range, 0.96 in beyond rh's range"),
        "{text}"
    );
}

#[test]
fn move_reports_allowance_and_margin() {
    let out = aide(&[
        "move",
        "--scenario",
        fixture("scenario.toml").to_str().unwrap(),
        "--state",
        fixture("state.json").to_str().unwrap(),
        "--unit",
        "r2",
        "--to",
        "13.5,8.0,0",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["legal"], true);
    assert!((v["distance_in"].as_f64().unwrap() - 4.895).abs() < 1e-9);
    assert!((v["margin_in"].as_f64().unwrap() - (5.25 - 4.895)).abs() < 1e-9);
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn failing(args: &[&str]) -> String {
    let out = aide(args);
    assert!(
        !out.status.success(),
        "expected failure: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_broken_scenario_names_the_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("terrain.geojson"),
        dir.path().join("terrain.geojson"),
    )
    .unwrap();
    let good = std::fs::read_to_string(fixture("scenario.toml")).unwrap();
    let state = fixture("state.json");
    let state = state.to_str().unwrap();

    // A typo in a key is an error, not silently ignored.
    let s = write(
        dir.path(),
        "typo.toml",
        &good.replace("mounted_move_in = 7.5", "mounted_mov_in = 7.5"),
    );
    let err = failing(&["check", "--scenario", s.to_str().unwrap(), "--state", state]);
    let line = good
        .lines()
        .position(|l| l.starts_with("mounted_move_in"))
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!(
            "typo.toml:{line}: measures.mounted_mov_in: unknown field `mounted_mov_in`"
        )),
        "{err}"
    );

    // A unit that names a command that does not exist.
    let s = write(
        dir.path(),
        "ref.toml",
        &good.replacen(
            "command = \"r-1\"\nkind = \"infantry\"",
            "command = \"r-9\"\nkind = \"infantry\"",
            1,
        ),
    );
    let err = failing(&["check", "--scenario", s.to_str().unwrap(), "--state", state]);
    assert!(
        err.contains("ref.toml:") && err.contains("units[2].command: no command has id \"r-9\""),
        "{err}"
    );

    // A wrong value type.
    let s = write(
        dir.path(),
        "kind.toml",
        &good.replacen("kind = \"cavalry\"", "kind = \"tank\"", 1),
    );
    let err = failing(&["check", "--scenario", s.to_str().unwrap(), "--state", state]);
    assert!(err.contains(".kind: unknown variant `tank`"), "{err}");

    // Broken terrain names the GeoJSON file and line.
    let terrain = std::fs::read_to_string(fixture("terrain.geojson")).unwrap();
    write(
        dir.path(),
        "terrain.geojson",
        &terrain.replace("\"marsh\"", "\"swamp\""),
    );
    let s = write(dir.path(), "ok.toml", &good);
    let err = failing(&["check", "--scenario", s.to_str().unwrap(), "--state", state]);
    let line = terrain
        .lines()
        .position(|l| l.contains("\"marsh\""))
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!(
            "terrain.geojson:{line}: features[9]: unknown variant `swamp`"
        )),
        "{err}"
    );
}

/// The error `aide check` prints for a state file with this text.
fn state_error(dir: &Path, name: &str, json: &str) -> String {
    let state = write(dir, name, json);
    let scenario = fixture("scenario.toml");
    failing(&[
        "check",
        "--scenario",
        scenario.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
    ])
}

#[test]
fn a_bad_state_says_which_piece_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let err = state_error(
        dir.path(),
        "s.json",
        r#"{"pieces":[{"id":"r1","x_in":1,"y_in":2,"heading_deg":0},{"id":"zz","x_in":1,"y_in":2,"heading_deg":0}]}"#,
    );
    assert!(
        err.contains("pieces[1]: id \"zz\" is not a unit of scenario \"Test Table\""),
        "{err}"
    );
    let err = state_error(
        dir.path(),
        "d.json",
        r#"{"pieces":[{"id":"r1","x_in":1,"y_in":2,"heading_deg":0},{"id":"r1","x_in":5,"y_in":2,"heading_deg":0}]}"#,
    );
    assert!(
        err.contains("pieces[1]: id \"r1\" is already placed by pieces[0]"),
        "{err}"
    );
    let err = state_error(
        dir.path(),
        "b.json",
        r#"{"pieces":[{"id":"r1","x_in":"one","y_in":2,"heading_deg":0}]}"#,
    );
    assert!(
        err.contains("b.json: invalid type: string \"one\"") && err.contains("line 1"),
        "{err}"
    );
    let err = failing(&[
        "check",
        "--scenario",
        "/nonexistent.toml",
        "--state",
        dir.path().join("b.json").to_str().unwrap(),
    ]);
    assert!(err.contains("/nonexistent.toml: cannot read"), "{err}");
}

#[test]
fn a_combat_roll_from_the_table_shows_the_flank_modifiers_and_applies_the_hit_table() {
    // The demo's cuirassiers (red-3-cuir) are in contact with the Landwehr's flank
    // (blue-2-inf, militia). Seed 7 throws 1 1 6 for the attacker and 4 5 6 back.
    // Attacker: +1 for the flank -> 2 2 7: one hit, which militia counts as two:
    // fresh -> spent and retreat. Defender: -1 firing at a piece on its flank -> 3 4 5:
    // two hits: the cuirassiers become spent and retreat.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo");
    let out = aide(&[
        "roll",
        "--scenario",
        demo.join("valley.toml").to_str().unwrap(),
        "--state",
        demo.join("state.json").to_str().unwrap(),
        "--combat",
        "red-3-cuir",
        "blue-2-inf",
        "--seed",
        "7",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "+1  firing at the target's flank",
        "-1  firing at a piece that flanks you",
        "die 3: 6 +1 = 7  hit",
        "blue-2-inf becomes spent and retreats (1 hits counted as 2)",
        "die 1: 4 -1 = 3  miss",
        "red-3-cuir becomes spent and retreats",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // Pieces that do not touch cannot fight in 3.2.
    let err = failing(&[
        "roll",
        "--scenario",
        demo.join("valley.toml").to_str().unwrap(),
        "--state",
        demo.join("state.json").to_str().unwrap(),
        "--combat",
        "red-2-gd",
        "blue-2-inf",
    ]);
    assert!(
        err.contains("red-2-gd and blue-2-inf are not in contact"),
        "{err}"
    );
}

/// The mini scenario under `rules`, with `pieces` as its table, written to `dir`.
fn mini_table(dir: &Path, rules: &str, pieces: &str) -> (PathBuf, PathBuf) {
    let toml = std::fs::read_to_string(fixture("scenario.toml"))
        .unwrap()
        .replace("pub-battles-3.2", rules);
    let terrain = std::fs::read_to_string(fixture("terrain.geojson")).unwrap();
    write(dir, "terrain.geojson", &terrain);
    (
        write(dir, "scenario.toml", &toml),
        write(dir, "state.json", &format!(r#"{{"pieces": [{pieces}]}}"#)),
    )
}

fn roll_bombard(scenario: &Path, state: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "roll",
        "--scenario",
        scenario.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
        "--bombard",
        "rart",
        "b1",
        "--seed",
        "7",
    ];
    args.extend_from_slice(extra);
    aide(&args)
}

fn gun_and_target(target_x: f64, target_y: f64, more: &str) -> String {
    format!(
        r#"{{"id": "rart", "x_in": 20, "y_in": 20, "heading_deg": 0, "status": "fresh"}},
{{"id": "b1", "x_in": {target_x}, "y_in": {target_y}, "heading_deg": 0, "status": "fresh"}}{more}"#
    )
}

#[test]
fn roll_bombard_refuses_what_the_text_forbids() {
    let dir = tempfile::tempdir().unwrap();
    // 3.2: b1 straight ahead 2.625 in away: fired.
    let (scenario, state) = mini_table(
        dir.path(),
        "pub-battles-3.2",
        &gun_and_target(20.0, 17.0, ""),
    );
    let out = roll_bombard(&scenario, &state, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("rart bombards b1 at 2.62 in (range 5.25 in)")
    );
    // "Sin ataques ni bombardeos" at night.
    let out = roll_bombard(&scenario, &state, &["--night"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no attacks or bombardments at night"));
    // "no puedes disparar a través / sobre piezas amigas": r1 across the line of fire.
    let friend =
        r#", {"id": "r1", "x_in": 20.92, "y_in": 18.5, "heading_deg": 0, "status": "fresh"}"#;
    let (scenario, state) = mini_table(
        dir.path(),
        "pub-battles-3.2",
        &gun_and_target(20.0, 17.0, friend),
    );
    let err = String::from_utf8(roll_bombard(&scenario, &state, &[]).stderr).unwrap();
    assert!(
        err.contains("friendly piece r1 stands on the line of fire"),
        "{err}"
    );
    // Quick start: b1 at (23.02, 17) is 49% inside the 45 degrees right of the front.
    let (scenario, state) = mini_table(
        dir.path(),
        "pub-battles-qs",
        &gun_and_target(23.02, 17.0, ""),
    );
    let err = String::from_utf8(roll_bombard(&scenario, &state, &[]).stderr).unwrap();
    assert!(
        err.contains("not within the 45 degrees of rart's front (49% of it inside)"),
        "{err}"
    );
    let (scenario, state) = mini_table(
        dir.path(),
        "pub-battles-qs",
        &gun_and_target(22.98, 17.0, ""),
    );
    assert!(roll_bombard(&scenario, &state, &[]).status.success());
    // 3.0: a target 3.8125 in ahead is beyond the field of fire's 1.75 in.
    let (scenario, state) = mini_table(
        dir.path(),
        "pub-battles-3.0",
        &gun_and_target(20.0, 16.0, ""),
    );
    let err = String::from_utf8(roll_bombard(&scenario, &state, &[]).stderr).unwrap();
    assert!(
        err.contains("b1 is not in rart's field of fire (0% of it inside)"),
        "{err}"
    );
}

#[test]
fn roll_combat_refuses_at_night() {
    // Two pieces in contact (b1's front edge on r1's): by day the combat is rolled.
    let dir = tempfile::tempdir().unwrap();
    let pieces = r#"{"id": "r1", "x_in": 20, "y_in": 20, "heading_deg": 0, "status": "fresh"},
{"id": "b1", "x_in": 20, "y_in": 19.625, "heading_deg": 180, "status": "fresh"}"#;
    let (scenario, state) = mini_table(dir.path(), "pub-battles-3.2", pieces);
    let args = |night: bool| {
        let mut a = vec![
            "roll",
            "--scenario",
            scenario.to_str().unwrap(),
            "--state",
            state.to_str().unwrap(),
            "--combat",
            "r1",
            "b1",
            "--seed",
            "7",
        ];
        if night {
            a.push("--night");
        }
        aide(&a)
    };
    assert!(args(false).status.success());
    let out = args(true);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"Sin ataques ni bombardeos\""));
}

#[test]
fn roll_combat_judges_hill_cover_from_where_the_attacker_came() {
    // b1 faces up on Long Ridge at y 21; r1 touches its front from y 20.625, on the ridge
    // too. Came from y 19.9 (mostly off the ridge): b1 has hill cover, r1 fires at -1.
    let dir = tempfile::tempdir().unwrap();
    let pieces = r#"{"id": "r1", "x_in": 24, "y_in": 20.625, "heading_deg": 180, "status": "fresh"},
{"id": "b1", "x_in": 24, "y_in": 21, "heading_deg": 0, "status": "fresh"}"#;
    let (scenario, state) = mini_table(dir.path(), "pub-battles-3.2", pieces);
    let roll = |from: Option<&str>| {
        let mut a = vec![
            "roll",
            "--scenario",
            scenario.to_str().unwrap(),
            "--state",
            state.to_str().unwrap(),
            "--combat",
            "r1",
            "b1",
            "--seed",
            "7",
        ];
        if let Some(f) = from {
            a.extend(["--attacker-from", f]);
        }
        let out = aide(&a);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(roll(Some("24,19.9,180")).contains("-1  target in cover (hill)"));
    assert!(!roll(Some("24,20.3,180")).contains("cover"));
    assert!(!roll(None).contains("cover"));
}
