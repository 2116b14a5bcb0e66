//! `aide roll` as a person uses it.

use std::process::{Command, Output};

fn aide(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .expect("run aide")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "aide failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn a_seeded_roll_prints_every_die_and_how_to_replay_it() {
    // Seed 7 throws 1 1 6; at -1 they read 0 0 5: one hit.
    let text = stdout(&aide(&["roll", "3d6 hits 4+ -1", "--seed", "7"]));
    assert_eq!(
        text,
        "3d6 hits 4+ -1  (roll r0000000000000007)
  die 1: 1 -1 = 0  miss
  die 2: 1 -1 = 0  miss
  die 3: 6 -1 = 5  hit
  1 hit
replay: aide roll \"3d6 hits 4+ -1\" --seed r0000000000000007
"
    );
    // The printed id replays the same dice.
    assert_eq!(
        stdout(&aide(&[
            "roll",
            "3d6 hits 4+ -1",
            "--replay",
            "r0000000000000007"
        ])),
        text
    );
}

#[test]
fn an_unseeded_roll_replays_from_the_id_it_prints() {
    let first = stdout(&aide(&["roll", "4d6 dl1"]));
    let id = first.split("--seed ").nth(1).unwrap().trim();
    assert_eq!(stdout(&aide(&["roll", "4d6 dl1", "--seed", id])), first);
}

#[test]
fn json_carries_the_id_each_die_and_the_outcome() {
    let text = stdout(&aide(&["roll", "2d6+1", "--seed", "4", "--json"]));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    // Seed 4 throws 4 4: total 8 + 1 = 9.
    assert_eq!(json["roll_id"], "r0000000000000004");
    assert_eq!(json["dice"][0]["face"], 4);
    assert_eq!(json["dice"][1]["face"], 4);
    assert_eq!(
        json["outcome"],
        serde_json::json!({"kind": "total", "value": 9})
    );
}

#[test]
fn bad_notation_fails_with_a_caret_under_the_character() {
    let out = aide(&["roll", "3d6 hits 4+ x1"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("expected a per-die modifier such as -1, found `x` at column 13\n  3d6 hits 4+ x1\n              ^"),
        "{err}"
    );
    let out = aide(&["roll", "3d6", "--seed", "zz"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("`zz` is not a roll id")
    );
}
