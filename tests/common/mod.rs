//! What the scripted-game tests share: the events a script makes, and the check that a
//! journal holds them; and the property tests' case count.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use aide::scenario::Scenario;
use aide::sim::{self, ScriptedCamera};
use aide::table::TableState;
use aide::track::{Event, EventDeriver};
use aide::vision::Intrinsics;

/// The synthetic camera over the demo's printed map, as the scripted-game tests film
/// it: 1280x720 (at 960x540 a spent block's facing is misread; see tests/live.rs), at
/// `fps` frames a second; and its lens.
pub fn demo_camera(
    scenario: &Scenario,
    tables: &[TableState],
    fps: f64,
) -> (ScriptedCamera, Intrinsics) {
    let base = sim::random_scene(2, 36.0, 24.0, 1280, 720);
    let lens = base.pinhole().intrinsics;
    let map = sim::scenario_map(scenario, base.seed).unwrap();
    let camera = ScriptedCamera::new(scenario.clone(), tables.to_vec(), base, map, fps);
    (camera, lens)
}

/// The truth: the events between consecutive scripted tables, by the tracker's rules.
pub fn script_events(scenario: &Scenario, tables: &[TableState]) -> Vec<Event> {
    let deriver = EventDeriver::new(scenario);
    tables
        .windows(2)
        .flat_map(|w| deriver.events(scenario, &w[0], &w[1], false))
        .collect()
}

/// Each event's kind and unit, for comparing lists.
pub fn keys(events: &[Event]) -> Vec<(&'static str, String)> {
    events
        .iter()
        .map(|e| (e.kind(), e.unit().to_owned()))
        .collect()
}

/// `stored` holds `expected`'s events in order, each move's distance within 0.1 in and
/// its verdict the same.
pub fn assert_same_events(stored: &[Event], expected: &[Event], context: &str) {
    assert_eq!(keys(stored), keys(expected), "{context}");
    for (seen, truth) in stored.iter().zip(expected) {
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

/// Every event a journal holds, in order.
pub fn stored_events(db: &std::path::Path) -> Vec<Event> {
    aide::journal::Journal::open_existing(db)
        .unwrap()
        .events_after(None)
        .unwrap()
        .into_iter()
        .map(|e| e.event)
        .collect()
}

/// A property test's configuration with `cases` cases, unless the PROPTEST_CASES
/// variable asks for another number (for a longer hunt). For tests whose case costs
/// more than the 256 cases proptest runs by default would fit in CI.
pub fn proptest_cases(cases: u32) -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(cases);
    proptest::test_runner::Config {
        cases,
        ..proptest::test_runner::Config::default()
    }
}
