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

/// A watched table's server state before it serves, as the camera tests set it up: a
/// tracker resumed from `start`, through which a person on the page names pieces, and
/// the feed's `Publisher` that the camera feed (`spawn_camera_feed`) will publish into.
pub struct Watched {
    pub state: std::sync::Arc<aide::web::AppState>,
    pub tracker: std::sync::Arc<std::sync::Mutex<aide::track::Tracker>>,
    pub publisher: aide::web::feed::Publisher,
    /// The feed's receiving end, beside the server's own.
    pub feed: tokio::sync::watch::Receiver<aide::web::feed::FeedView>,
}

pub fn watched(
    scenario: &Scenario,
    start: &TableState,
    recorder: Option<aide::journal::Recorder>,
    seating: aide::web::Seating,
) -> Watched {
    use std::sync::{Arc, Mutex};

    use aide::track::{Tracker, TrackerConfig};
    use aide::web::feed::{Publisher, Source};

    let (publisher, feed) = Publisher::new(start.clone(), Source::Replay);
    let tracker = Arc::new(Mutex::new(Tracker::resume(
        Arc::new(scenario.clone()),
        TrackerConfig::default(),
        start.clone(),
    )));
    let namer = aide::live::Namer {
        tracker: tracker.clone(),
        publisher: publisher.clone(),
    };
    let state = aide::web::AppState::with_seating(
        aide::web::Setup {
            scenario: scenario.clone(),
            map_svg: None,
            terrain_geojson: String::new(),
            recorder,
            identify: Some(Arc::new(namer)),
            url: "http://127.0.0.1/".into(),
            camera: None,
        },
        seating,
        feed.clone(),
    )
    .unwrap();
    Watched {
        state,
        tracker,
        publisher,
        feed,
    }
}

/// Start the camera feed: `camera`'s frames read by the detector (the camera's lens
/// `lens`) and `watched`'s tracker, published into its feed.
pub fn spawn_camera_feed(
    scenario: &Scenario,
    camera: ScriptedCamera,
    lens: Intrinsics,
    watched: &Watched,
) {
    use aide::capture::FrameSource;
    use aide::vision::{ColourModel, TableObserver};

    let (opened_tx, _opened_rx) = std::sync::mpsc::channel();
    aide::web::feed::spawn(
        Box::new(aide::live::CameraFeed {
            open: Box::new(move || Ok(Box::new(camera) as Box<dyn FrameSource>)),
            observer: Box::new(TableObserver::new(
                scenario,
                Some(lens),
                ColourModel::builtin(),
            )),
            tracker: watched.tracker.clone(),
            opened: opened_tx,
            ages: Default::default(),
            tap: Default::default(),
        }),
        watched.publisher.clone(),
    )
    .unwrap();
}

/// The pieces of an `/api/state` answer: (id, x, y, heading) of each.
pub fn state_pieces(state: &serde_json::Value) -> Vec<(String, f64, f64, f64)> {
    state["table"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_owned(),
                p["pose"]["x_in"].as_f64().unwrap(),
                p["pose"]["y_in"].as_f64().unwrap(),
                p["pose"]["heading_deg"].as_f64().unwrap(),
            )
        })
        .collect()
}
