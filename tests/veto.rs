//! A person's veto and pieces placed by hand (issue 15, point 5): the tracker on
//! scripted detector frames, the journal it feeds, and the real server with its seats.
//!
//! The "camera" here is a list of detections made by the test (the demo's pieces with
//! a little noise, a phantom blue block lying in the River Alder, a block the detector
//! misses): what is under test is what the tracker, the journal and the server do with
//! detections, not how the detector finds them.

use std::path::Path;
use std::sync::{Arc, Mutex};

use aide::journal::{Journal, Recorder};
use aide::scenario::Scenario;
use aide::table::{Pose, Status, TableState};
use aide::track::tracker::{HANDOVER_IN, shape_of_kind};
use aide::track::{AssignError, Event, Observation, Sighting, Tracker, TrackerConfig};

fn demo() -> Arc<Scenario> {
    Arc::new(Scenario::load(Path::new("scenarios/demo/valley.toml")).unwrap())
}

/// The blue block the detector misses throughout (a sticker glare, say).
const MISSED: &str = "blue-1-inf-1";
/// Where the phantom lies: a stretch of the river read as a fresh blue block.
const PHANTOM: (f64, f64, f64) = (16.0, 11.65, 84.0);

fn sighting(scenario: &Scenario, table: &TableState, id: &str) -> Sighting {
    let p = table.piece(id).unwrap();
    Sighting {
        shape: shape_of_kind(scenario, p.kind).to_owned(),
        colour: p.side.clone(),
        pose: p.pose,
        status: p.status,
    }
}

fn block(colour: &str, x: f64, y: f64, heading: f64, status: Status) -> Sighting {
    Sighting {
        shape: "block".into(),
        colour: colour.into(),
        pose: Pose::new(x, y, heading),
        status,
    }
}

/// A small deterministic jitter (±0.02 in, ±1°), as a good detector's frame noise.
fn jitter(s: &Sighting, k: i64) -> Sighting {
    let w = |n: i64| ((n * 7919 + 13) % 41 - 20) as f64 / 1000.0;
    let mut s = s.clone();
    s.pose = Pose::new(
        s.pose.x_in + w(k),
        s.pose.y_in + w(k + 17),
        (s.pose.heading_deg + 50.0 * w(k + 5)).rem_euclid(360.0),
    );
    s
}

/// Plays frames 100 ms apart into a tracker (and a recorder, when given).
struct Table {
    tracker: Tracker,
    recorder: Option<Recorder>,
    ts: i64,
    commits: Vec<TableState>,
}

impl Table {
    fn new(scenario: &Arc<Scenario>, recorder: Option<Recorder>) -> Self {
        let setup = scenario.setup_table();
        let mut recorder = recorder;
        if let Some(r) = recorder.as_mut() {
            r.observe(&setup, 0).unwrap();
        }
        Self {
            tracker: Tracker::resume(scenario.clone(), TrackerConfig::default(), setup),
            recorder,
            ts: 0,
            commits: Vec::new(),
        }
    }

    fn frame(&mut self, seen: &[Sighting], disturbance: f64) {
        self.ts += 100;
        let k = self.ts / 100;
        let frame = Observation {
            ts_ms: self.ts,
            sightings: seen
                .iter()
                .enumerate()
                .map(|(i, s)| jitter(s, k * 31 + i as i64))
                .collect(),
            disturbance,
        };
        if let Some(table) = self.tracker.push(&frame) {
            if let Some(r) = self.recorder.as_mut() {
                for c in self.tracker.take_corrections() {
                    r.correct(&c).unwrap();
                }
                r.observe(&table, self.ts).unwrap();
            }
            self.commits.push(table);
        }
    }

    /// A hand over the table for 0.3 s, then the table still for 1.2 s: one commit.
    fn hand_then_still(&mut self, seen: &[Sighting]) -> TableState {
        let before = self.commits.len();
        for _ in 0..3 {
            self.frame(seen, 0.4);
        }
        for _ in 0..12 {
            self.frame(seen, 0.0);
        }
        assert_eq!(self.commits.len(), before + 1, "one commit per hand");
        self.commits.last().unwrap().clone()
    }

    fn record(&mut self, e: &Event) {
        if let Some(r) = self.recorder.as_mut() {
            r.correct(e).unwrap();
            r.observe(self.tracker.stable().unwrap(), self.ts).unwrap();
        }
    }
}

/// The pieces within `reach` of a point.
fn near(table: &TableState, x: f64, y: f64, reach: f64) -> Vec<String> {
    table
        .pieces
        .iter()
        .filter(|p| (p.pose.x_in - x).hypot(p.pose.y_in - y) <= reach)
        .map(|p| p.id.clone())
        .collect()
}

/// The demo's table as the camera sees it: every piece but [`MISSED`], and the phantom.
fn camera(scenario: &Scenario) -> Vec<Sighting> {
    let setup = scenario.setup_table();
    let mut seen: Vec<Sighting> = setup
        .pieces
        .iter()
        .filter(|p| p.id != MISSED)
        .map(|p| sighting(scenario, &setup, &p.id))
        .collect();
    let (x, y, h) = PHANTOM;
    seen.push(block("blue", x, y, h, Status::Fresh));
    seen
}

#[test]
fn a_vetoed_phantom_stays_off_the_table_while_its_place_looks_the_same() {
    let scenario = demo();
    let seen = camera(&scenario);
    let (x, y, _) = PHANTOM;
    let mut table = Table::new(&scenario, None);
    let first = table.hand_then_still(&seen);
    // The phantom took the free blue block's name: the missed one's.
    assert_eq!(near(&first, x, y, 0.5), [MISSED]);

    let vetoed = table.tracker.veto(x + 0.3, y - 0.1, "red").unwrap();
    match &vetoed {
        Event::Vetoed { unit, pose, by, .. } => {
            assert_eq!((unit.as_str(), by.as_str()), (MISSED, "red"));
            assert!((pose.x_in - x).hypot(pose.y_in - y) < 0.05);
        }
        other => panic!("not a veto: {other:?}"),
    }
    assert!(near(table.tracker.stable().unwrap(), x, y, 1.0).is_empty());
    // Ten hands over the table, and the phantom still read each time: never back.
    for n in 0..10 {
        let commit = table.hand_then_still(&seen);
        assert!(
            near(&commit, x, y, 1.0).is_empty(),
            "commit {n} after the veto: {:?} at the vetoed place",
            near(&commit, x, y, 1.0)
        );
        assert_eq!(
            commit.pieces.len(),
            29,
            "every real piece but the missed one"
        );
    }
    assert_eq!(table.tracker.vetoes(), 1);
    // A single frame missing it (a flicker) does not lift the veto either.
    let without: Vec<Sighting> = seen[..seen.len() - 1].to_vec();
    table.frame(&without, 0.0);
    let commit = table.hand_then_still(&seen);
    assert!(near(&commit, x, y, 1.0).is_empty());
    assert_eq!(table.tracker.vetoes(), 1);
}

#[test]
fn a_veto_lifts_when_its_place_changes() {
    let scenario = demo();
    let seen = camera(&scenario);
    let (x, y, h) = PHANTOM;

    // The phantom goes for half a second (the light changed) and comes back: seen again.
    let mut table = Table::new(&scenario, None);
    table.hand_then_still(&seen);
    table.tracker.veto(x, y, "blue").unwrap();
    let without: Vec<Sighting> = seen[..seen.len() - 1].to_vec();
    for _ in 0..5 {
        table.frame(&without, 0.0);
    }
    assert_eq!(
        table.tracker.vetoes(),
        0,
        "4 frames in a row without it lift it"
    );
    let commit = table.hand_then_still(&seen);
    assert_eq!(
        near(&commit, x, y, 0.5).len(),
        1,
        "the phantom is judged afresh"
    );

    // A real blue block put down across the vetoed place (turned 30°) is not hidden.
    for (put, why) in [
        (block("blue", x + 0.1, y, h + 30.0, Status::Fresh), "turned"),
        (block("blue", x, y, h, Status::Spent), "spent"),
        (block("red", x, y, h, Status::Fresh), "red"),
    ] {
        let mut table = Table::new(&scenario, None);
        table.hand_then_still(&seen);
        table.tracker.veto(x, y, "blue").unwrap();
        let mut now = without.clone();
        now.push(put);
        let commit = table.hand_then_still(&now);
        assert_eq!(table.tracker.vetoes(), 0, "{why}: lifted");
        // On the table, or (red, whose units all stand elsewhere) a block no unit is
        // left for: seen either way.
        assert_eq!(
            near(&commit, x, y, 0.5).len() + table.tracker.unassigned(),
            1,
            "{why}: the block is seen"
        );
    }
}

#[test]
fn a_piece_placed_by_hand_is_held_until_the_camera_sees_it_and_every_step_is_journaled() {
    let scenario = demo();
    let setup = scenario.setup_table();
    let truth = setup.piece(MISSED).unwrap().pose;
    let mut seen = camera(&scenario);
    seen.pop(); // no phantom here
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let recorder = Recorder::open(&db, scenario.clone()).unwrap();
    let mut table = Table::new(&scenario, Some(recorder));
    let first = table.hand_then_still(&seen);
    assert!(first.piece(MISSED).is_none(), "the camera misses it");

    // Refusals: a unit on the table, onto another piece, off the map, a stranger.
    let other = setup.piece("blue-1-inf-2").unwrap().pose;
    let t = &mut table.tracker;
    assert_eq!(
        t.place("blue-1-inf-2", truth, Status::Fresh, "blue"),
        Err(AssignError::OnTable("blue-1-inf-2".into()))
    );
    assert!(matches!(
        t.place(MISSED, other, Status::Fresh, "blue"),
        Err(AssignError::Occupied { piece, .. }) if piece == "blue-1-inf-2"
    ));
    assert!(matches!(
        t.place(MISSED, Pose::new(40.0, 3.0, 0.0), Status::Fresh, "blue"),
        Err(AssignError::OffMap { .. })
    ));
    assert_eq!(
        t.unplace(MISSED, "blue"),
        Err(AssignError::NotPlaced(MISSED.into()))
    );

    // Placed 0.4 in off where it stands, facing 10° off.
    let placed = Pose::new(truth.x_in + 0.4, truth.y_in, truth.heading_deg + 10.0);
    let e = table
        .tracker
        .place(MISSED, placed, Status::Fresh, "blue")
        .unwrap();
    table.record(&e);
    assert_eq!(
        table.tracker.stable().unwrap().piece(MISSED).unwrap().pose,
        placed
    );
    for _ in 0..5 {
        let commit = table.hand_then_still(&seen);
        assert_eq!(
            commit.piece(MISSED).unwrap().pose,
            placed,
            "held where it was put"
        );
        assert_eq!(commit.pieces.len(), 30);
    }
    assert_eq!(table.tracker.held().collect::<Vec<_>>(), [MISSED]);
    // A blue block seen farther than HANDOVER_IN from where it was put is not it.
    let mut far = seen.clone();
    far.push(block(
        "blue",
        placed.x_in,
        placed.y_in + HANDOVER_IN + 0.3,
        placed.heading_deg,
        Status::Fresh,
    ));
    let commit = table.hand_then_still(&far);
    assert_eq!(commit.piece(MISSED).unwrap().pose, placed);
    assert_eq!(table.tracker.unassigned(), 1, "a block no unit is left for");

    // The camera sees it at last: its pose takes over, under the same name.
    let mut all = seen.clone();
    all.push(sighting(&scenario, &setup, MISSED));
    let commit = table.hand_then_still(&all);
    let now = commit.piece(MISSED).unwrap().pose;
    assert!(
        (now.x_in - truth.x_in).hypot(now.y_in - truth.y_in) < 0.05,
        "the camera's pose ({:.2}, {:.2}), not the hand's",
        now.x_in,
        now.y_in
    );
    assert_eq!(commit.pieces.len(), 30, "one block, one name");
    assert_eq!(table.tracker.held().count(), 0);
    // Now it is the camera's: not taken back by hand.
    assert_eq!(
        table.tracker.unplace(MISSED, "blue"),
        Err(AssignError::NotPlaced(MISSED.into()))
    );

    // Placed and taken back: another unit, held, then unplaced.
    let spot = Pose::new(30.0, 6.0, 90.0);
    let mut missed_too = all.clone();
    let gone = "blue-1-inf-2";
    missed_too.retain(|s| (s.pose.x_in - other.x_in).hypot(s.pose.y_in - other.y_in) > 0.2);
    let commit = table.hand_then_still(&missed_too);
    assert!(commit.piece(gone).is_none());
    let e = table
        .tracker
        .place(gone, spot, Status::Spent, "umpire")
        .unwrap();
    table.record(&e);
    let e = table.tracker.unplace(gone, "umpire").unwrap();
    table.record(&e);
    assert!(table.tracker.stable().unwrap().piece(gone).is_none());
    let commit = table.hand_then_still(&missed_too);
    assert!(commit.piece(gone).is_none(), "taken back stays back");

    drop(table);
    let events: Vec<(String, String)> = Journal::open_existing(&db)
        .unwrap()
        .events_after(None)
        .unwrap()
        .into_iter()
        .map(|e| (e.event.kind().to_owned(), e.event.unit().to_owned()))
        .collect();
    let expected: Vec<(String, String)> = [
        ("removed", MISSED),
        ("placed", MISSED),
        ("seen", MISSED),
        ("removed", gone),
        ("placed", gone),
        ("unplaced", gone),
    ]
    .iter()
    .map(|(k, u)| (k.to_string(), u.to_string()))
    .collect();
    // No move for the handover (0.4 in and 10° between hand and camera), no added.
    assert_eq!(events, expected);
}
