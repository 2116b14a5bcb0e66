//! `aide log record` and `aide log` end to end: state files in, a journal file, the log
//! out as text, Markdown with maps, and JSON.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn mini() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini/scenario.toml")
}

fn aide(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(args)
        .output()
        .expect("runs aide")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn failed(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// A state file of the mini scenario: (id, x, y, heading, status).
fn state(dir: &Path, name: &str, pieces: &[(&str, f64, f64, f64, &str)]) -> PathBuf {
    let pieces: Vec<Value> = pieces
        .iter()
        .map(|(id, x, y, h, st)| {
            serde_json::json!({"id": id, "x_in": x, "y_in": y, "heading_deg": h, "status": st})
        })
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, serde_json::json!({ "pieces": pieces }).to_string()).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Three stable views of the mini table:
/// - s0: the HQ at (10, 10), r1 at (10, 12.855), r2 at (13.5, 13), b1 spent at (10, 11);
/// - s1: r2 marched 13 - 10 = 3 in north (5.25 allowed: margin +2.25), r1 lies down;
/// - s2: r2 marched 10 - 3.5 = 6.5 in further (margin 5.25 - 6.5 = -1.25), b1 is gone.
struct Game {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    db: PathBuf,
}

fn recorded_game() -> Game {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let s0 = state(
        &dir,
        "s0.json",
        &[
            ("rh", 10.0, 10.0, 0.0, "fresh"),
            ("r1", 10.0, 12.855, 0.0, "fresh"),
            ("r2", 13.5, 13.0, 0.0, "fresh"),
            ("b1", 10.0, 11.0, 180.0, "spent"),
        ],
    );
    let s1 = state(
        &dir,
        "s1.json",
        &[
            ("rh", 10.0, 10.0, 0.0, "fresh"),
            ("r1", 10.0, 12.855, 0.0, "spent"),
            ("r2", 13.5, 10.0, 0.0, "fresh"),
            ("b1", 10.0, 11.0, 180.0, "spent"),
        ],
    );
    let s2 = state(
        &dir,
        "s2.json",
        &[
            ("rh", 10.0, 10.0, 0.0, "fresh"),
            ("r1", 10.0, 12.855, 0.0, "spent"),
            ("r2", 13.5, 3.5, 0.0, "fresh"),
        ],
    );
    let db = dir.join("game.db");
    let scenario = mini();
    let out = ok(&aide(&[
        "log",
        "record",
        "--scenario",
        s(&scenario),
        "--db",
        s(&db),
        s(&s0),
    ]));
    assert!(
        out.starts_with(&format!("#1 {}: 0 events\n", s0.display())),
        "{out}"
    );
    let out = ok(&aide(&[
        "log",
        "record",
        "--scenario",
        s(&scenario),
        "--db",
        s(&db),
        "--turn",
        "1",
        "--activate",
        "r-1",
        s(&s1),
        s(&s1),
    ]));
    assert!(
        out.starts_with(&format!(
            "#2 {}: 2 events\n{}: nothing moved, not recorded\n",
            s1.display(),
            s1.display()
        )),
        "{out}"
    );
    let out = ok(&aide(&[
        "log",
        "record",
        "--scenario",
        s(&scenario),
        "--db",
        s(&db),
        "--turn",
        "2",
        "--night",
        s(&s2),
    ]));
    assert!(
        out.starts_with(&format!("#3 {}: 2 events\n", s2.display())),
        "{out}"
    );
    Game { _dir: tmp, dir, db }
}

#[test]
fn the_text_log_tells_each_turn_with_the_rules_numbers() {
    let g = recorded_game();
    let text = ok(&aide(&["log", s(&g.db)]));
    let expected = [
        "Test Table (pub-battles-3.2): game started ",
        "\nSetup\n  #1 ",
        "  4 pieces on the table\n",
        "\nTurn 1 (day)\n  Activation: Red I Corps (r-1)\n  #2 ",
        "    1st Brigade (r1) flipped fresh -> spent\n",
        "    2nd Brigade (r2) moved 3.00 in, (13.50, 13.00) -> (13.50, 10.00): legal, 5.25 in allowed, margin +2.25 in\n",
        "\nTurn 2 (night)\n  #3 ",
        "    2nd Brigade (r2) moved 6.50 in, (13.50, 10.00) -> (13.50, 3.50): NOT LEGAL, 5.25 in allowed, margin -1.25 in\n      problem: moves 6.50 in, 1.25 in more than its 5.25 in\n",
        "    Blue 1st (b1) removed, last at (10.00, 11.00) facing 180, spent\n",
    ];
    for part in expected {
        assert!(text.contains(part), "missing {part:?} in:\n{text}");
    }
}

#[test]
fn the_json_export_holds_every_state_event_and_turn() {
    let g = recorded_game();
    let log: Value =
        serde_json::from_str(&ok(&aide(&["log", s(&g.db), "--format", "json"]))).unwrap();
    assert_eq!(log["schema_version"], aide::journal::SCHEMA_VERSION);
    assert_eq!(log["states"].as_array().unwrap().len(), 3);
    assert_eq!(log["turns"][2]["night"], true);
    assert_eq!(log["phases"][0]["command"], "r-1");
    let events = log["events"].as_array().unwrap();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"]["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["flipped", "moved", "moved", "removed"]);
    assert_eq!(events[2]["event"]["distance_in"], 6.5);
    assert_eq!(events[2]["event"]["verdict"]["margin_in"], -1.25);
    assert_eq!(events[2]["seq"], 3);
}

#[test]
fn the_markdown_report_links_a_map_per_turn_written_beside_it() {
    let g = recorded_game();
    let report = g.dir.join("report.md");
    ok(&aide(&[
        "log",
        s(&g.db),
        "--format",
        "markdown",
        "--out",
        s(&report),
    ]));
    let md = std::fs::read_to_string(&report).unwrap();
    assert!(
        md.starts_with("# After-action report: Test Table\n"),
        "{md}"
    );
    assert!(
        md.contains(
            "2 turns after the setup · 3 stable states · 2 moves, 1 of them against the rules"
        ),
        "{md}"
    );
    assert!(
        md.contains("![Map: Turn 2 (night)](report-turn-2.svg)"),
        "{md}"
    );
    assert!(
        md.contains("| 6.50 in | 5.25 in | -1.25 in | **NOT LEGAL**<br>problem: moves 6.50 in, 1.25 in more than its 5.25 in |"),
        "{md}"
    );
    for turn in 0..3 {
        let svg = std::fs::read_to_string(g.dir.join(format!("report-turn-{turn}.svg"))).unwrap();
        assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
    }
    // Turn 2's map: r2's arrow in red (the move broke a rule), b1's ghost labelled.
    let svg = std::fs::read_to_string(g.dir.join("report-turn-2.svg")).unwrap();
    assert!(
        svg.contains(r##"x1="13.500" y1="10.000" x2="13.500" y2="3.500" stroke="#d01010""##),
        "{svg}"
    );
    assert!(svg.contains(">b1</text>"));
    // Printed Markdown carries its maps inline.
    let inline = ok(&aide(&["log", s(&g.db), "--format", "markdown"]));
    assert_eq!(inline.matches("<svg ").count(), 3);
}

#[test]
fn bad_input_names_the_file_and_leaves_the_journal_untouched() {
    let g = recorded_game();
    let good = state(&g.dir, "good.json", &[("rh", 12.0, 10.0, 0.0, "fresh")]);
    let unknown = state(&g.dir, "unknown.json", &[("zz", 1.0, 1.0, 0.0, "fresh")]);
    let err = failed(&aide(&[
        "log",
        "record",
        "--scenario",
        s(&mini()),
        "--db",
        s(&g.db),
        "--turn",
        "3",
        s(&good),
        s(&unknown),
    ]));
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {}: pieces[0]: id \"zz\" is not a unit of scenario \"Test Table\"",
            unknown.display()
        )
    );
    let broken = g.dir.join("broken.json");
    std::fs::write(&broken, "{\"pieces\": [").unwrap();
    let err = failed(&aide(&[
        "log",
        "record",
        "--scenario",
        s(&mini()),
        "--db",
        s(&g.db),
        s(&broken),
    ]));
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {}: EOF while parsing a list at line 1 column 12",
            broken.display()
        )
    );
    let log: Value =
        serde_json::from_str(&ok(&aide(&["log", s(&g.db), "--format", "json"]))).unwrap();
    assert_eq!(log["states"].as_array().unwrap().len(), 3);
    assert_eq!(log["turns"].as_array().unwrap().len(), 3);
    // Turn 2 again is refused inside the transaction: nothing of that call is kept.
    let err = failed(&aide(&[
        "log",
        "record",
        "--scenario",
        s(&mini()),
        "--db",
        s(&g.db),
        "--turn",
        "2",
        s(&good),
    ]));
    assert!(err.contains("turn 2 cannot follow turn 2"), "{err}");
    let log: Value =
        serde_json::from_str(&ok(&aide(&["log", s(&g.db), "--format", "json"]))).unwrap();
    assert_eq!(log["states"].as_array().unwrap().len(), 3);
    // Bad input for a new journal creates no file.
    let fresh = g.dir.join("fresh.db");
    failed(&aide(&[
        "log",
        "record",
        "--scenario",
        s(&mini()),
        "--db",
        s(&fresh),
        s(&unknown),
    ]));
    assert!(!fresh.exists());
    let err = failed(&aide(&["log", s(&g.dir.join("missing.db"))]));
    assert!(err.contains("missing.db: no such journal"), "{err}");
}

#[test]
fn without_a_path_the_journal_goes_to_the_users_data_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let s0 = state(tmp.path(), "s0.json", &[("rh", 10.0, 10.0, 0.0, "fresh")]);
    let out = Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(["log", "record", "--scenario", s(&mini()), s(&s0)])
        .env("HOME", tmp.path())
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .output()
        .unwrap();
    let text = ok(&out);
    let db = tmp.path().join("data/aide-de-camp/games/scenario.db");
    assert!(
        text.ends_with(&format!("journal: {}\n", db.display())),
        "{text}"
    );
    assert!(db.exists());
    // And the log finds it by the game's name.
    let out = Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(["log", "scenario"])
        .current_dir(tmp.path())
        .env("HOME", tmp.path())
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .output()
        .unwrap();
    assert!(ok(&out).starts_with("Test Table (pub-battles-3.2)"));
}

/// The README's demo game: the demo state, then tests/fixtures/journal/*.json.
#[test]
fn the_readme_demo_game_gives_the_readme_numbers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scenario = root.join("scenarios/demo/valley.toml");
    let fixture = |name: &str| root.join("tests/fixtures/journal").join(name);
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("aldermoor.db");
    let record = |extra: &[&str], file: &Path| {
        let mut args = vec!["log", "record", "--scenario", s(&scenario), "--db", s(&db)];
        args.extend_from_slice(extra);
        args.push(s(file));
        ok(&aide(&args));
    };
    record(&[], &root.join("scenarios/demo/state.json"));
    record(
        &["--turn", "1", "--activate", "red-2"],
        &fixture("1-guard-advances.json"),
    );
    record(
        &["--activate", "red-3"],
        &fixture("2-dragoons-over-the-alder.json"),
    );
    record(
        &["--turn", "2", "--night"],
        &fixture("3-night-guard-steps-south.json"),
    );
    let text = ok(&aide(&["log", s(&db)]));
    for line in [
        // sqrt(1.25^2 + 2.8^2) = 3.07 of the 5.25 in foot move; 0 -> 340 is 20 degrees.
        "    Guard Grenadiers (red-2-gd) moved 3.07 in, (17.75, 19.00) -> (16.50, 16.20), turned 20°: legal, 5.25 in allowed, margin +2.18 in",
        "    3rd Line Brigade (red-2-inf-2) flipped fresh -> spent",
        // 16.9 - 8.9 = 8 in against 7.5 - 7.5/3 = 5 in (the knoll's slope): 3 in over.
        "    Dragoon Brigade (red-3-drg) moved 8.00 in, (26.50, 16.90) -> (26.50, 8.90): NOT LEGAL, 5.00 in allowed, margin -3.00 in",
        "      crossed: River Alder (river), Windmill Knoll (hill), Windmill Knoll crest (crest), Ford Lane (road)",
        "    Landwehr Brigade (blue-2-inf) removed, last at (30.00, 15.50) facing 270, fresh",
        // 15 - 14.25 = 0.75 of 5.25 in.
        "    Life Guard Brigade (blue-2-gd) moved 0.75 in, (22.50, 14.25) -> (22.50, 15.00): legal, 5.25 in allowed, margin +4.50 in",
    ] {
        assert!(
            text.contains(&format!("{line}\n")),
            "missing {line:?} in:\n{text}"
        );
    }
}
