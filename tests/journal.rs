//! The journal on a real SQLite file: what goes in comes back, turns and draws keep
//! their place, bad files are refused, and a kill mid-write loses nothing committed.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use aide::journal::{
    DrawCategory, Journal, JournalError, Phase, Recorder, SCHEMA_VERSION, placements,
};
use aide::scenario::Scenario;
use aide::table::{Placement, Status, TableState};
use aide::track::Event;
use aide::vision::MapPicture;
use serde_json::json;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn mini_path() -> PathBuf {
    root().join("tests/fixtures/mini/scenario.toml")
}

fn mini() -> Scenario {
    Scenario::load(&mini_path()).unwrap()
}

fn at(id: &str, x: f64, y: f64, heading: f64, status: Status) -> Placement {
    Placement {
        id: id.into(),
        x_in: x,
        y_in: y,
        heading_deg: heading,
        status,
    }
}

/// The mini fixture's table with r2 placed at (x, y) facing north.
fn mini_table(s: &Scenario, r2: (f64, f64)) -> TableState {
    s.table(&[
        at("rh", 10.0, 10.0, 0.0, Status::Fresh),
        at("r1", 10.0, 12.855, 0.0, Status::Fresh),
        at("r2", r2.0, r2.1, 0.0, Status::Fresh),
        at("b1", 10.0, 11.0, 180.0, Status::Spent),
    ])
    .unwrap()
}

#[test]
fn states_events_turns_and_draws_come_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let s = Arc::new(mini());
    let setup = mini_table(&s, (11.0, 14.0));
    // r2 attacks b1 from (11, 14) to (10, 11.5625): 2.63465 in (see tests/events.rs),
    // starting 1.125 in outside command range.
    let attack = mini_table(&s, (10.0, 11.5625));
    {
        let mut rec = Recorder::open(&db, s.clone()).unwrap();
        let first = rec.observe(&setup, 1_000).unwrap().unwrap();
        assert_eq!((first.seq, first.events.len()), (1, 0));
        rec.journal().begin_turn(1, false, 2_000).unwrap();
        rec.journal()
            .begin_phase(
                &Phase::Activation {
                    command: "r-1".into(),
                },
                2_100,
            )
            .unwrap();
        rec.journal()
            .record_chit_draw("draw", &json!({"command": "r-1"}), 2_050)
            .unwrap();
        let second = rec.observe(&attack, 3_000).unwrap().unwrap();
        assert_eq!(second.seq, 2);
        rec.journal().begin_phase(&Phase::Combat, 3_500).unwrap();
        rec.journal()
            .record_roll("combat", &json!({"attacker": "r2", "dice": [6, 2]}), 3_600)
            .unwrap();
    }
    let j = Journal::open(&db).unwrap();
    let log = j.load().unwrap();
    assert_eq!(log.schema_version, SCHEMA_VERSION);
    assert_eq!(log.game.scenario_name, "Test Table");
    assert_eq!(log.game.rules, "pub-battles-3.2");
    assert_eq!(log.game.scenario_sha256.len(), 64);
    assert_eq!(
        log.turns
            .iter()
            .map(|t| (t.turn, t.night))
            .collect::<Vec<_>>(),
        [(0, false), (1, false)]
    );
    assert_eq!(log.states.len(), 2);
    assert_eq!((log.states[0].turn, log.states[1].turn), (0, 1));
    assert_eq!(log.states[1].phase_id, Some(log.phases[0].id));
    assert_eq!(log.states[1].state, placements(&attack));
    assert_eq!(log.events.len(), 1);
    let Event::Moved(m) = &log.events[0].event else {
        panic!("{:?}", log.events)
    };
    assert_eq!((log.events[0].seq, m.unit.as_str()), (2, "r2"));
    assert!((m.distance_in - 2.63465).abs() < 1e-4);
    assert!((m.verdict.margin_in - 2.61535).abs() < 1e-4);
    assert!(!m.verdict.legal);
    assert_eq!(log.phases[1].phase, Phase::Combat);
    assert_eq!(log.draws.len(), 2);
    assert_eq!(log.draws[0].category, DrawCategory::Chit);
    assert_eq!(log.draws[0].after_seq, Some(1));
    assert_eq!(log.draws[1].category, DrawCategory::Roll);
    assert_eq!(log.draws[1].after_seq, Some(2));
    assert_eq!(log.draws[1].value["dice"], json!([6, 2]));
    assert_eq!(j.integrity_check().unwrap(), "ok");
    // The text log puts the chit draw, the phases and the roll in time order.
    let text = aide::journal::text_log(&log, Some(&s));
    let turn_1 = &text[text.find("Turn 1 (day)").unwrap()..];
    let lines: Vec<&str> = turn_1.lines().collect();
    assert_eq!(lines[1], r#"  00:00:02 chit (draw): {"command":"r-1"}"#);
    assert_eq!(lines[2], "  Activation: Red I Corps (r-1)");
    assert_eq!(lines[3], "  #2 00:00:03");
    assert!(lines[4].starts_with("    2nd Brigade (r2) moved 2.63 in, (11.00, 14.00) -> "));
    assert!(lines[4].ends_with(": NOT LEGAL, 5.25 in allowed, margin +2.62 in"));
    assert_eq!(
        lines[5],
        "      problem: to attack, a piece must begin its move within command range (2.50 in of its HQ)"
    );
    assert_eq!(lines[6], "  Combat");
    assert_eq!(
        lines[7],
        r#"  00:00:03 roll (combat): {"attacker":"r2","dice":[6,2]}"#
    );
    // The replay slider's question: the table as state #1 had it.
    assert_eq!(j.state(1).unwrap().unwrap().state, placements(&setup));
    assert_eq!(j.events_after(Some(1)).unwrap().len(), 1);
    assert!(j.events_after(Some(2)).unwrap().is_empty());
}

#[test]
fn a_reopened_game_resumes_from_its_last_state_and_a_still_table_is_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let s = Arc::new(mini());
    let a = mini_table(&s, (13.5, 12.895));
    let b = mini_table(&s, (13.5, 9.895));
    {
        let mut rec = Recorder::open(&db, s.clone()).unwrap();
        rec.observe(&a, 1).unwrap();
        rec.observe(&b, 2).unwrap();
    }
    let mut rec = Recorder::open(&db, s.clone()).unwrap();
    // The same table again, and then nudged by 0.02 in: nothing happened.
    assert_eq!(rec.observe(&b, 3).unwrap(), None);
    assert_eq!(
        rec.observe(&mini_table(&s, (13.52, 9.895)), 4).unwrap(),
        None
    );
    // Back to where it was: a 3 in move, measured from the last stored state.
    let back = rec.observe(&a, 5).unwrap().unwrap();
    assert_eq!(back.seq, 3);
    let Event::Moved(m) = &back.events[0] else {
        panic!()
    };
    assert!((m.distance_in - 3.0).abs() < 1e-9);
}

#[test]
fn a_failed_batch_leaves_the_file_and_the_recorder_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let s = Arc::new(mini());
    let a = mini_table(&s, (13.5, 12.895));
    let b = mini_table(&s, (13.5, 9.895));
    let mut rec = Recorder::open(&db, s.clone()).unwrap();
    rec.observe(&a, 1).unwrap();
    let failed: Result<(), JournalError> = rec.atomically(|r| {
        r.observe(&b, 2)?;
        // A person's correction, to be stored with the next state, and the batch fails
        // before that state.
        r.correct(&Event::Vetoed {
            unit: "b1".into(),
            pose: a.piece("b1").unwrap().pose,
            status: Status::Spent,
            by: "red".into(),
            shape: "block".into(),
            colour: "blue".into(),
        })?;
        r.journal().begin_turn(1, false, 3)?;
        // Turn 1 again: refused, so the whole batch is undone.
        r.journal().begin_turn(1, false, 4)
    });
    assert!(matches!(
        failed,
        Err(JournalError::TurnOrder {
            turn: 1,
            current: 1,
            ..
        })
    ));
    assert_eq!(rec.journal().states().unwrap().len(), 1);
    assert_eq!(rec.journal().current_turn().unwrap().turn, 0);
    // The recorder forgot b too, and the veto: b is a move again, and the only event.
    let events = rec.observe(&b, 5).unwrap().unwrap().events;
    assert_eq!(
        events.iter().map(Event::kind).collect::<Vec<_>>(),
        ["moved"],
        "{events:?}"
    );
}

#[test]
fn other_files_are_refused_with_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(mini());
    // Someone else's SQLite database.
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE recipes (name TEXT)")
        .unwrap();
    let e = Journal::open(&other).err().unwrap();
    assert!(matches!(e, JournalError::NotAJournal { .. }));
    assert!(e.to_string().contains("other.db"), "{e}");
    // A journal from a newer aide.
    let newer = dir.path().join("newer.db");
    drop(Journal::open(&newer).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    assert!(matches!(
        Journal::open(&newer).err().unwrap(),
        JournalError::Newer { found, .. } if found == SCHEMA_VERSION + 1
    ));
    // Not SQLite at all.
    let text = dir.path().join("notes.db");
    std::fs::write(&text, "turn 1: the guard moved, I think".repeat(100)).unwrap();
    let e = Journal::open(&text).err().unwrap();
    assert!(e.to_string().contains("notes.db"), "{e}");
    // A game of another scenario.
    let game = dir.path().join("game.db");
    drop(Recorder::open(&game, s.clone()).unwrap());
    let demo = Scenario::load(&root().join("scenarios/demo/valley.toml")).unwrap();
    let e = Recorder::open(&game, Arc::new(demo)).err().unwrap();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: this journal is a game of \"Test Table\", not of \"Aldermoor Valley, 1809\"",
            game.display()
        )
    );
}

#[test]
fn the_file_is_in_wal_mode_at_the_current_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    drop(Journal::open(&db).unwrap());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    let version: i32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!((mode.as_str(), version), ("wal", SCHEMA_VERSION));
}

/// A real writer process, killed with SIGKILL while it writes, three times over the same
/// file: every seq it printed (it prints only after the commit returned) must be there,
/// every state after the first with its move event, and SQLite must find the file sound.
///
/// "Printed" counts every line the writer got into the pipe, read after the kill as well
/// as before: the writer does not wait for this test to read, so by the time the kill
/// lands it has committed and printed as many more states as it had time for (dozens
/// when this process is kept off the CPU on a busy machine). Only the state it was
/// committing when killed may be stored and not printed.
#[test]
fn a_kill_mid_write_loses_nothing_reported_committed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("soak.db");
    let mut reported: Vec<i64> = Vec::new();
    let parse = |line: &str| -> i64 { line.trim().parse().expect("the writer prints seqs") };
    for round in 0..3 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_aide"))
            .args(["log", "soak", "--scenario"])
            .arg(mini_path())
            .arg("--db")
            .arg(&db)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts aide");
        // The pipe stays open until after the kill, so the writer never sees it close.
        let mut out = BufReader::new(child.stdout.take().unwrap());
        // A different point in each run; the writer is always mid-way through the next
        // state when the kill lands, since it writes without pause.
        let stop_after = 40 + 25 * round;
        let mut line = String::new();
        for _ in 0..stop_after {
            line.clear();
            out.read_line(&mut line).unwrap();
            reported.push(parse(&line));
        }
        child.kill().unwrap(); // SIGKILL on Unix, TerminateProcess on Windows
        let status = child.wait().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(9), "killed by SIGKILL: {status:?}");
        }
        #[cfg(not(unix))]
        assert!(!status.success(), "{status:?}");
        // What the writer printed that this test had not read yet: the pipe keeps it
        // after the writer is gone, and ends there. A line cut short was not printed.
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        reported.extend(
            rest.split_inclusive('\n')
                .filter(|l| l.ends_with('\n'))
                .map(parse),
        );
    }
    assert!(reported.len() >= 40 + 65 + 90);
    let j = Journal::open(&db).unwrap();
    assert_eq!(j.integrity_check().unwrap(), "ok");
    let stored: BTreeSet<i64> = j.states().unwrap().iter().map(|s| s.seq).collect();
    let lost: Vec<i64> = reported
        .iter()
        .copied()
        .filter(|seq| !stored.contains(seq))
        .collect();
    assert!(lost.is_empty(), "reported committed but missing: {lost:?}");
    // At most one state per run was committed but not yet printed when the kill came.
    assert!(stored.len() >= reported.len() && stored.len() <= reported.len() + 3);
    let with_events: BTreeSet<i64> = j
        .events_after(None)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    let first = *stored.first().unwrap();
    assert_eq!(
        with_events,
        stored.iter().copied().filter(|&s| s != first).collect()
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let broken_refs: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(broken_refs, 0);
}

/// Ten minutes of a still demo table seen twice a second by a noisy detector: every
/// piece off by up to 0.015 in on each axis and 1.25 degrees, fresh noise each time. Two
/// noisy views of the same pose differ by at most 0.03 in per axis (0.042 in) and 2.5
/// degrees, under the 0.05 in / 3 degree stillness: not one move may be stored. Then a
/// real creep of 0.01 in per view is reported once it adds up to 0.05 in.
#[test]
fn ten_minutes_of_a_noisy_still_table_store_no_move_but_a_creep_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("still.db");
    let s = Arc::new(Scenario::load(&root().join("scenarios/demo/valley.toml")).unwrap());
    let truth = s.setup_table();
    // xorshift64: deterministic noise without a dependency.
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    let mut uniform = move |half_width: f64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed as f64 / u64::MAX as f64 * 2.0 - 1.0) * half_width
    };
    let mut noisy = |creep_in: f64| -> TableState {
        let placements: Vec<Placement> = truth
            .pieces
            .iter()
            .map(|p| {
                let creep = if p.id == "red-2-gd" { creep_in } else { 0.0 };
                at(
                    &p.id,
                    p.pose.x_in + uniform(0.015) + creep,
                    p.pose.y_in + uniform(0.015),
                    p.pose.heading_deg + uniform(1.25),
                    p.status,
                )
            })
            .collect();
        s.table(&placements).unwrap()
    };
    let mut rec = Recorder::open(&db, s.clone()).unwrap();
    rec.observe(&noisy(0.0), 0).unwrap().unwrap();
    let views = 10 * 60 * 2;
    let mut stored = 0;
    for i in 1..views {
        stored += usize::from(rec.observe(&noisy(0.0), i * 500).unwrap().is_some());
    }
    assert_eq!(stored, 0, "false moves on a still table");
    assert_eq!(rec.journal().states().unwrap().len(), 1);
    // The Guard creeps east 0.01 in per view, the noise still on top: x differs from
    // the stored view by 0.01 k +- 0.03 in, so the creep is reported at the 8th view at
    // the latest (0.08 - 0.03 = 0.05 in), as a move of the Guard and nothing else.
    let mut caught = None;
    for step in 1..=10 {
        if let Some(r) = rec
            .observe(&noisy(0.01 * step as f64), views * 500 + step)
            .unwrap()
        {
            caught = Some((step, r));
            break;
        }
    }
    let (step, r) = caught.expect("the creep is reported");
    assert!(step <= 8, "caught after {step} views");
    assert_eq!(
        r.events.iter().map(Event::unit).collect::<Vec<_>>(),
        ["red-2-gd"]
    );
}

/// The page reads the log live: a second connection sees each state as soon as the
/// writer's `observe` returns, while the writer keeps its own connection open. Both
/// halves can move to another thread (a web server's state must be `Send`).
#[test]
fn a_reader_sees_each_state_as_soon_as_it_is_written() {
    fn send<T: Send>(_: &T) {}
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("live.db");
    let s = Arc::new(mini());
    let mut rec = Recorder::open(&db, s.clone()).unwrap();
    rec.observe(&mini_table(&s, (13.5, 12.895)), 1).unwrap();
    let reader = Journal::open_existing(&db).unwrap();
    send(&rec);
    send(&reader);
    assert_eq!(reader.states().unwrap().len(), 1);
    let writer = std::thread::spawn(move || {
        rec.observe(&mini_table(&s, (13.5, 9.895)), 2).unwrap();
        rec
    });
    let rec = writer.join().unwrap();
    let latest = reader.latest_state().unwrap().unwrap();
    assert_eq!(latest.seq, 2);
    assert_eq!(reader.events_after(Some(1)).unwrap().len(), 1);
    drop(rec);
    assert!(matches!(
        Journal::open_existing(&dir.path().join("typo.db")),
        Err(JournalError::Missing { .. })
    ));
    assert!(!dir.path().join("typo.db").exists());
}

/// The dice module's own values go in as they are and come back as the same values: a
/// combat volley, and a chit draw kept with the cup it was drawn from, which is what a
/// replay of the draw needs.
#[test]
fn real_dice_rolls_and_chit_draws_come_back_and_replay() {
    use aide::dice::chits::{Chit, ChitCup, Draw, Turn as DieTurn};
    use aide::dice::{Notation, RollId, RollReport, Roller};

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("dice.db");
    let s = Arc::new(mini());
    let mut rec = Recorder::open(&db, s.clone()).unwrap();
    rec.observe(&mini_table(&s, (13.5, 12.895)), 1).unwrap();
    let volley: Notation = "3d6 hits 4+ -1".parse().unwrap();
    let report = volley.roll(&mut Roller::replay(RollId(1234)));
    rec.journal().record_roll("combat", &report, 2).unwrap();
    let chit = |command: &str, side: &str| Chit {
        command: command.into(),
        side: side.into(),
    };
    let mut cup = ChitCup::new(
        DieTurn::new(1, 1).unwrap(),
        vec![chit("r-1", "red"), chit("b-1", "blue")],
        vec![],
    )
    .unwrap();
    let cup_before = cup.clone();
    let draw = cup.draw(&mut Roller::replay(RollId(7))).unwrap();
    rec.journal()
        .record_chit_draw("draw", &json!({"draw": draw, "cup": cup_before}), 3)
        .unwrap();
    drop(rec);

    let draws = Journal::open_existing(&db).unwrap().draws().unwrap();
    assert_eq!(draws.len(), 2);
    assert_eq!(
        (draws[0].kind.as_str(), draws[0].after_seq),
        ("combat", Some(1))
    );
    let back: RollReport = serde_json::from_value(draws[0].value.clone()).unwrap();
    assert_eq!(back, report);
    let kept: Draw = serde_json::from_value(draws[1].value["draw"].clone()).unwrap();
    let mut kept_cup: ChitCup = serde_json::from_value(draws[1].value["cup"].clone()).unwrap();
    let again = kept_cup
        .draw(&mut Roller::replay(kept.roll_id.expect("a random draw")))
        .unwrap();
    assert_eq!(again, kept);
}

/// A picture whose bytes say which it is (the journal stores a JPEG's bytes as they are).
fn picture(tag: u8) -> MapPicture {
    MapPicture {
        jpeg: vec![0xFF, 0xD8, tag, 0xFF, 0xD9],
        width: 720,
        height: 480,
        px_per_in: 20.0,
        ts_ms: i64::from(tag),
    }
}

#[test]
fn each_stored_state_keeps_the_first_picture_the_camera_took_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let s = Arc::new(mini());
    let setup = mini_table(&s, (11.0, 14.0));
    let moved = mini_table(&s, (10.0, 11.5625));
    let mut rec = Recorder::open(&db, s.clone()).unwrap();
    // The setup from a state file, with no picture: the camera's first still frame of
    // the same table gives it one; a later frame of it does not replace that.
    assert_eq!(rec.observe(&setup, 1).unwrap().unwrap().seq, 1);
    assert_eq!(rec.journal().pictures().unwrap().len(), 0);
    assert!(
        rec.observe_seen(&setup, 2, Some(&picture(2)))
            .unwrap()
            .is_none()
    );
    assert!(
        rec.observe_seen(&setup, 3, Some(&picture(3)))
            .unwrap()
            .is_none()
    );
    // A move is stored with the picture of the frame it was committed on.
    let seq = rec
        .observe_seen(&moved, 4, Some(&picture(4)))
        .unwrap()
        .unwrap()
        .seq;
    assert_eq!(seq, 2);
    let pictures = rec.journal().pictures().unwrap();
    assert_eq!(
        pictures
            .iter()
            .map(|(seq, p)| (*seq, p.ts_ms))
            .collect::<Vec<_>>(),
        [(1, 2), (2, 4)]
    );
    assert_eq!(rec.journal().picture(2).unwrap(), Some(picture(4)));
    assert_eq!(rec.journal().picture(3).unwrap(), None);
}

#[test]
fn a_journal_from_before_pictures_opens_and_takes_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v2.db");
    let s = Arc::new(mini());
    let setup = mini_table(&s, (11.0, 14.0));
    {
        let mut rec = Recorder::open(&db, s.clone()).unwrap();
        rec.observe(&setup, 1).unwrap();
    }
    // The file as version 2 wrote it: the same tables, without pictures.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("DROP TABLE pictures; PRAGMA user_version = 2;")
        .unwrap();
    drop(conn);
    let mut rec = Recorder::open(&db, s.clone()).unwrap();
    assert_eq!(rec.journal().states().unwrap().len(), 1);
    assert!(rec.journal().pictures().unwrap().is_empty());
    assert!(
        rec.observe_seen(&setup, 2, Some(&picture(2)))
            .unwrap()
            .is_none()
    );
    assert_eq!(rec.journal().picture(1).unwrap(), Some(picture(2)));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3);
}

/// The HTML report is one page a browser opens from a file: every scenario string in it
/// is text, never markup, and each stored picture is inside it.
#[test]
fn the_html_report_escapes_scenario_strings_and_carries_its_pictures() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let mut s = mini();
    s.name = "Test <b>Table</b>".into();
    for u in &mut s.units {
        if u.id == "r2" {
            u.name = "<script>alert(1)</script> & Co".into();
        }
    }
    let s = Arc::new(s);
    let mut rec = Recorder::open(&db, s.clone()).unwrap();
    rec.observe_seen(&mini_table(&s, (11.0, 14.0)), 1, Some(&picture(1)))
        .unwrap();
    rec.observe_seen(&mini_table(&s, (10.0, 11.5625)), 2, Some(&picture(2)))
        .unwrap();
    let journal = rec.journal();
    let html =
        aide::journal::html_report(&journal.load().unwrap(), &s, &journal.pictures().unwrap());
    assert!(!html.contains("<script>"), "{html}");
    assert!(!html.contains("<b>Table"), "{html}");
    assert!(
        html.contains("<title>After-action report: Test &lt;b&gt;Table&lt;/b&gt;</title>"),
        "{html}"
    );
    assert!(
        html.contains("<td>&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co (r2)</td>"),
        "{html}"
    );
    // picture(1)'s bytes FF D8 01 FF D9 in base64.
    assert!(
        html.contains("<img src=\"data:image/jpeg;base64,/9gB/9k=\""),
        "{html}"
    );
    assert_eq!(html.matches("<figure id=\"state-").count(), 2);
}
