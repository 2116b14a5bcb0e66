//! `aide check` on the One Hour Wargames hex and NBC demo scenarios, driven as a user
//! drives it. Expected figures are worked by hand in the comments.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn demo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(path)
}

fn aide(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(args)
        .output()
        .expect("runs aide")
}

fn ok(args: &[&str]) -> String {
    let out = aide(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn piece<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap()
}

fn ohw_args(previous: bool, json: bool) -> Vec<String> {
    let mut a = vec![
        "check".to_owned(),
        "--scenario".into(),
        demo("ohw-demo/ohw.toml").display().to_string(),
        "--state".into(),
        demo("ohw-demo/state.json").display().to_string(),
    ];
    if previous {
        a.push("--previous".into());
        a.push(demo("ohw-demo/previous.json").display().to_string());
    }
    if json {
        a.push("--json".into());
    }
    a
}

#[test]
fn ohw_demo_checks_with_the_previous_state() {
    let args = ohw_args(true, true);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report: Value = serde_json::from_str(&ok(&args)).unwrap();
    assert_eq!(report["rules"], "ohw-hex");
    // 9 x 6 flat hexes on 24 in of height: size 24 / (sqrt 3 x 6.5) = 2.1318 in.
    assert_eq!(report["measures"]["hex_size_in"], 2.1318);
    assert_eq!(report["hex_grid"]["hexes"].as_array().unwrap().len(), 54);
    // 1st Brigade moved from (3, 3) to (3, 2), between the two Confederate brigades.
    let b = piece(&report, "b-inf-1");
    assert_eq!(b["hex"]["hex"], serde_json::json!({"col": 3, "row": 2}));
    assert_eq!(b["hex"]["moved"], true);
    assert_eq!(b["hex"]["may_shoot"], false);
    // The Texas Brigade in (3, 1) faces down (side 3) into (3, 2): it may shoot.
    let texas = piece(&report, "r-inf-2");
    assert_eq!(texas["can_see"], serde_json::json!(["b-inf-1"]));
    // The Stonewall Brigade in (4, 2) faces the town (4, 3): it must turn to b-inf-1.
    assert_eq!(
        piece(&report, "r-inf-1")["hex"]["must_turn_to_face"],
        "b-inf-1"
    );
    // The Union battery on Cemetery Hill (6, 5): Stuart in (7, 1) is 4 hexes off and
    // clear; the ruler to (4, 2) crosses the town in (4, 3).
    let guns = piece(&report, "b-art");
    assert_eq!(guns["can_see"], serde_json::json!(["r-cav"]));
    let shots = guns["hex"]["shots"].as_array().unwrap();
    assert!(shots.iter().any(|s| s["target"] == "r-inf-1"
        && s["allowed"] == false
        && s["reason"].as_str().unwrap().contains("Cold Harbor")));

    // Without --previous nothing is known to have moved.
    let args = ohw_args(false, true);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report: Value = serde_json::from_str(&ok(&args)).unwrap();
    assert_eq!(piece(&report, "b-inf-1")["hex"]["moved"], Value::Null);

    // The text for a person names hexes.
    let args = ohw_args(true, false);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let text = ok(&args);
    assert!(
        text.contains("hex (3, 2), facing side 0 (0 deg) toward (3, 1)"),
        "{text}"
    );
    assert!(
        text.contains("may shoot b-inf-1 at 1 hex: in the faced hex"),
        "{text}"
    );
}

#[test]
fn ohw_move_is_judged_in_hexes() {
    // Buford's cavalry (blue) from (1, 2) straight up two hexes to (1, 0): it would
    // enter (1, 1), the Devil's Den (difficult ground, infantry only).
    let scenario = demo("ohw-demo/ohw.toml").display().to_string();
    let state = demo("ohw-demo/state.json").display().to_string();
    let out = aide(&[
        "move",
        "--scenario",
        &scenario,
        "--state",
        &state,
        "--unit",
        "b-cav",
        "--to",
        "8.407,3.692,0",
    ]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Devil's Den"), "{text}");
}

#[test]
fn nbc_demo_checks_in_centimetres() {
    let scenario = demo("nbc-demo/nbc.toml").display().to_string();
    let state = demo("nbc-demo/state.json").display().to_string();
    let report: Value = serde_json::from_str(&ok(&[
        "check",
        "--scenario",
        &scenario,
        "--state",
        &state,
        "--json",
    ]))
    .unwrap();
    assert_eq!(report["rules"], "nbc");
    assert_eq!(report["measures"]["unit"], "cm");
    // Day, bright: 60 cm; 90 cm from a Vantage Point.
    assert_eq!(report["measures"]["vantage_visibility_cm"], 90.0);
    // r-inf-2 (x 64.5 to 69.5 cm) stands 2 cm right of b-inf-2 (x 57.5 to 62.5), its
    // centre (y 49) behind b-inf-2's front line (y 45.5): Flanked.
    let b2 = piece(&report, "b-inf-2");
    assert_eq!(b2["flanked_by"], serde_json::json!(["r-inf-2"]));
    assert_eq!(b2["nbc"]["flanked_by"][0]["distance_cm"], 2.0);
    // II Corps: 3 units x A4 2.3 = 6.9 -> 7 cm, raised to the Napoleonic minimum 10.
    // Colbert's base (x 73.5.., y ..54.5) to Oudinot's (x ..57.25, y 55.4..):
    // hypot(16.25, 0.9) = 16.27 cm: 6.27 cm out.
    let cav = piece(&report, "b-cav");
    assert_eq!(cav["in_command"], false);
    assert_eq!(cav["nbc"]["command"]["radius_cm"], 10.0);
    assert_eq!(cav["nbc"]["command"]["margin_cm"], -6.27);
    // The 12-pdr battery fires at Vogelsang at Medium range, 3 dice.
    let shot = &piece(&report, "b-art")["nbc"]["artillery"][0];
    assert_eq!(shot["target"], "r-inf-1");
    assert_eq!(
        (shot["band"].as_str(), shot["dice"].as_u64()),
        (Some("medium"), Some(3))
    );
    assert_eq!(
        piece(&report, "r-inf-1")["in_fof_of"],
        serde_json::json!(["b-art"])
    );

    let text = ok(&["check", "--scenario", &scenario, "--state", &state]);
    assert!(text.contains("FLANKED by: r-inf-2 (2.0 cm)"), "{text}");
    assert!(
        text.contains("OUT OF COMMAND from b-hq (fr-2), radius 10 cm"),
        "{text}"
    );
}

#[test]
fn system_sections_are_checked_like_the_rest_of_the_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(demo("ohw-demo/ohw.toml")).unwrap();
    std::fs::copy(
        demo("ohw-demo/terrain.geojson"),
        dir.path().join("terrain.geojson"),
    )
    .unwrap();
    let state = demo("ohw-demo/state.json").display().to_string();
    let run = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = aide(&[
            "check",
            "--scenario",
            path.to_str().unwrap(),
            "--state",
            &state,
        ]);
        assert!(!out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let line_of = |needle: &str| good.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
    // An unknown key in [hex].
    let err = run("typo.toml", &good.replace("rows = 6", "rowz = 6"));
    assert!(
        err.contains(&format!(
            "typo.toml:{}: hex.rowz: unknown field `rowz`",
            line_of("rows")
        )),
        "{err}"
    );
    // A hex grid under Pub Battles rules.
    let err = run(
        "pb.toml",
        &good.replace("rules = \"ohw-hex\"", "rules = \"pub-battles-3.2\""),
    );
    assert!(
        err.contains("pb.toml:") && err.contains("only used with rules = \"ohw-hex\""),
        "{err}"
    );
    // A fourth commander on one side.
    let mut four = good.clone();
    for id in ["b-inf-1", "b-cav", "b-art"] {
        four = four.replace(
            &format!("id = \"{id}\"\nname"),
            &format!("id = \"{id}\"\ncommander = true\nname"),
        );
    }
    let err = run("four.toml", &four);
    assert!(
        err.contains("units[3].commander") && err.contains("more than 3"),
        "{err}"
    );

    // ohw-hex has no HQ pieces.
    let err = run(
        "hq.toml",
        &good.replace(
            "id = \"b-cav\"\nname = \"Buford's Cavalry\"\nside = \"blue\"\nkind = \"cavalry\"",
            "id = \"b-cav\"\nname = \"Buford\"\nside = \"blue\"\nkind = \"hq\"",
        ),
    );
    assert!(
        err.contains("hq.toml:51: units[2].kind:")
            && err.contains("only infantry, cavalry and artillery"),
        "{err}"
    );

    // NBC: a battery must name its weight; [nbc] keys are checked.
    let nbc = std::fs::read_to_string(demo("nbc-demo/nbc.toml")).unwrap();
    std::fs::copy(
        demo("nbc-demo/terrain.geojson"),
        dir.path().join("terrain.geojson"),
    )
    .unwrap();
    let err = run("w.toml", &nbc.replace("weight = \"heavy\"\n", ""));
    assert!(
        err.contains("units[5].kind:") && err.contains("needs a weight"),
        "{err}"
    );
    let err = run("n.toml", &nbc.replace("fog = false", "mist = false"));
    assert!(err.contains("nbc.mist: unknown field `mist`"), "{err}");
}

#[test]
fn table_rolls_follow_the_scenario_rules() {
    let ohw = demo("ohw-demo/ohw.toml").display().to_string();
    let ohw_state = demo("ohw-demo/state.json").display().to_string();
    let shot = |pair: [&str; 2], seed: &str| {
        aide(&[
            "roll",
            "--scenario",
            &ohw,
            "--state",
            &ohw_state,
            "--bombard",
            pair[0],
            pair[1],
            "--seed",
            seed,
            "--json",
        ])
    };
    // The battery on Cemetery Hill at Stuart, 4 hexes: D3 - 1 (artillery beyond 1 hex).
    let out = shot(["b-art", "r-cav"], "5");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let die = v["result"]["die"].as_u64().unwrap();
    assert!((1..=3).contains(&die));
    assert_eq!(v["result"]["hits"].as_u64().unwrap(), die - 1);
    // Same seed, same die.
    let again: Value = serde_json::from_slice(&shot(["b-art", "r-cav"], "5").stdout).unwrap();
    assert_eq!(again["result"], v["result"]);
    // The town blocks the ruler to the Stonewall Brigade.
    let out = shot(["b-art", "r-inf-1"], "5");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Cold Harbor"));

    // NBC: the Q5 light battery at Colbert, 17 cm (Long, 1 die) + 1 = 2 dice.
    let nbc = demo("nbc-demo/nbc.toml").display().to_string();
    let nbc_state = demo("nbc-demo/state.json").display().to_string();
    let out = aide(&[
        "roll",
        "--scenario",
        &nbc,
        "--state",
        &nbc_state,
        "--bombard",
        "r-art",
        "b-cav",
        "--seed",
        "5",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"]["plan"]["dice"], 2);
    assert_eq!(v["result"]["first"].as_array().unwrap().len(), 2);
}
