//! The whole camera pipeline on a scripted game: rendered frames (a hand reaching in for
//! every change) through the detector and the tracker into a real SQLite journal, and
//! the events read back against the script.

use std::path::Path;
use std::sync::Arc;

use aide::capture::FrameSource;
use aide::journal::{Journal, Recorder};
use aide::live::Observer;
use aide::scenario::Scenario;
use aide::sim::{self, ScriptedCamera};
use aide::track::{Event, EventDeriver, Tracker, TrackerConfig};
use aide::vision::{ColourModel, TableObserver};

#[test]
fn a_scripted_game_seen_by_the_camera_is_logged_move_by_move() {
    let scenario = Scenario::load(Path::new("scenarios/demo/valley.toml")).unwrap();
    let tables: Vec<_> = aide::web::demo::tables(&scenario).unwrap()[..4].to_vec();
    let base = sim::random_scene(2, 36.0, 24.0, 960, 540);
    let lens = base.pinhole().intrinsics;
    let mut camera =
        ScriptedCamera::new(scenario.clone(), tables.clone(), base, 1000.0).with_timing(2, 9);
    let mut observer = TableObserver::new(&scenario, Some(lens), ColourModel::builtin());
    let shared = Arc::new(scenario.clone());
    let mut tracker = Tracker::resume(shared.clone(), TrackerConfig::default(), tables[0].clone());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let mut recorder = Recorder::open(&db, shared.clone()).unwrap();
    recorder.observe(&tables[0], 0).unwrap();
    // One pass of the script: 4 tables of 2 hand frames and 9 still ones, stamped as if
    // taken 10 a second.
    for k in 0..4 * 11 {
        let frame = camera.next_frame().unwrap();
        let mut observation = observer.observe(&frame).unwrap();
        observation.ts_ms = k * 100;
        if let Some(table) = tracker.push(&observation) {
            recorder.observe(&table, observation.ts_ms).unwrap();
        }
    }
    drop(recorder);
    let stored: Vec<Event> = Journal::open_existing(&db)
        .unwrap()
        .events_after(None)
        .unwrap()
        .into_iter()
        .map(|e| e.event)
        .collect();
    // The truth: the events between consecutive scripted tables, by the same rules.
    let deriver = EventDeriver::new(&scenario);
    let expected: Vec<Event> = tables
        .windows(2)
        .flat_map(|w| deriver.events(&scenario, &w[0], &w[1], false))
        .collect();
    let key = |e: &Event| (e.kind(), e.unit().to_owned());
    assert_eq!(
        stored.iter().map(key).collect::<Vec<_>>(),
        expected.iter().map(key).collect::<Vec<_>>()
    );
    for (seen, truth) in stored.iter().zip(&expected) {
        if let (Event::Moved(s), Event::Moved(t)) = (seen, truth) {
            assert!(
                (s.distance_in - t.distance_in).abs() < 0.1,
                "{}: {:.3} in seen, {:.3} in moved",
                s.unit,
                s.distance_in,
                t.distance_in
            );
            assert_eq!(s.verdict.legal, t.verdict.legal, "{}", s.unit);
        }
    }
}
