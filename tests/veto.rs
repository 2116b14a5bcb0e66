//! A person's veto and pieces placed by hand (issue 15, point 5): the tracker on
//! scripted detector frames, the journal it feeds, and the real server with its seats.
//!
//! The "camera" here is a list of detections made by the test (the demo's pieces with
//! a little noise, a phantom blue block lying in the River Alder, a block the detector
//! misses): what is under test is what the tracker, the journal and the server do with
//! detections, not how the detector finds them.

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};

use aide::journal::Recorder;
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

/// The journal at `db` holds events of these kinds and units, in this order.
fn assert_journaled(db: &Path, expected: &[(&str, &str)], why: &str) {
    let events = common::stored_events(db);
    let got: Vec<(&str, &str)> = events.iter().map(|e| (e.kind(), e.unit())).collect();
    assert_eq!(got, expected, "{why}");
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
    assert_journaled(
        &db,
        &[
            ("removed", MISSED),
            ("placed", MISSED),
            ("seen", MISSED),
            ("removed", gone),
            ("placed", gone),
            ("unplaced", gone),
        ],
        "no move for the handover (0.4 in and 10° between hand and camera), no added",
    );
}

/// A camera for the server test: a tiny frame every 50 ms, read by [`ScriptedEyes`].
struct Ticks(u64);

impl aide::capture::FrameSource for Ticks {
    fn next_frame(&mut self) -> Result<aide::capture::Frame, aide::capture::CaptureError> {
        std::thread::sleep(std::time::Duration::from_millis(50));
        self.0 += 1;
        Ok(aide::capture::Frame {
            image: image::RgbImage::new(1, 1),
            ts_ms: aide::journal::now_ms(),
            index: self.0,
        })
    }
    fn kind(&self) -> aide::capture::SourceKind {
        aide::capture::SourceKind::Camera
    }
    fn describe(&self) -> String {
        "scripted detections".into()
    }
}

/// What the test's detector "sees": the pieces, and how many frames a hand is still
/// over the table.
#[derive(Default)]
struct World {
    seen: Vec<Sighting>,
    hand_frames: u32,
}

/// The detector of the server test: the world's detections, jittered frame by frame.
struct ScriptedEyes(Arc<Mutex<World>>);

impl aide::live::Observer for ScriptedEyes {
    /// Detections without frames: no picture of the map.
    fn picture(&self, _frame: &aide::capture::Frame) -> Option<aide::vision::MapPicture> {
        None
    }

    fn observe(&mut self, frame: &aide::capture::Frame) -> Result<Observation, String> {
        let mut world = self.0.lock().unwrap();
        let disturbance = if world.hand_frames > 0 {
            world.hand_frames -= 1;
            0.4
        } else {
            0.0
        };
        let k = frame.index as i64;
        Ok(Observation {
            ts_ms: frame.ts_ms,
            sightings: world
                .seen
                .iter()
                .enumerate()
                .map(|(i, s)| jitter(s, k * 31 + i as i64))
                .collect(),
            disturbance,
        })
    }
}

/// The real server on the demo, seated, watching [`ScriptedEyes`] through the tracker
/// into a SQLite journal; or, with `watched` false, a scripted replay of the setup.
struct Served {
    addr: std::net::SocketAddr,
    state: Arc<aide::web::AppState>,
    world: Arc<Mutex<World>>,
    http: reqwest::Client,
}

impl Served {
    async fn start(scenario: &Arc<Scenario>, watched: bool, db: Option<&Path>) -> Self {
        use aide::web::feed::{Publisher, Source};
        use aide::web::{AppState, Seating, Setup};
        let setup = scenario.setup_table();
        let world = Arc::new(Mutex::new(World {
            seen: camera(scenario),
            hand_frames: 0,
        }));
        let mut recorder = db.map(|db| Recorder::open(db, scenario.clone()).unwrap());
        // As `aide serve` does: from the journal's last state, its vetoes and held
        // pieces rebuilt, when it holds a game.
        let (tracker, start, _) = aide::live::resume_tracker(
            scenario,
            TrackerConfig::default(),
            Some(setup.clone()),
            recorder.as_mut(),
        )
        .unwrap();
        let setup = start.unwrap();
        let (publisher, rx) = Publisher::new(setup.clone(), Source::Replay);
        let tracker = Arc::new(Mutex::new(tracker));
        let namer = watched.then(|| {
            Arc::new(aide::live::Namer {
                tracker: tracker.clone(),
                publisher: publisher.clone(),
            }) as Arc<dyn aide::web::feed::Identify>
        });
        let state = AppState::with_seating(
            Setup {
                scenario: (**scenario).clone(),
                map_svg: None,
                terrain_geojson: String::new(),
                recorder,
                identify: namer,
                url: "http://127.0.0.1/".into(),
                camera: None,
            },
            Seating::Seated,
            rx,
        )
        .unwrap();
        if watched {
            let (opened, _) = std::sync::mpsc::channel();
            aide::web::feed::spawn(
                Box::new(aide::live::CameraFeed {
                    open: Box::new(
                        || Ok(Box::new(Ticks(0)) as Box<dyn aide::capture::FrameSource>),
                    ),
                    observer: Box::new(ScriptedEyes(world.clone())),
                    tracker,
                    opened,
                    ages: Arc::default(),
                    tap: Arc::default(),
                }),
                publisher,
            )
            .unwrap();
        } else {
            aide::web::feed::spawn(
                Box::new(aide::web::feed::Replay {
                    tables: vec![setup],
                    rate: 0.0,
                }),
                publisher,
            )
            .unwrap();
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(aide::web::serve(listener, state.clone()));
        Self {
            addr,
            state,
            world,
            http: reqwest::Client::new(),
        }
    }

    fn token(&self, seat: &str) -> String {
        use aide::seat::Seat;
        let seat = match seat {
            "umpire" => Seat::Umpire,
            side => Seat::Side(side.into()),
        };
        self.state.seats.token(&seat).unwrap().to_owned()
    }

    /// POST as `seat` ("" = no token: a spectator): status and body.
    async fn post(
        &self,
        seat: &str,
        path: &str,
        body: serde_json::Value,
    ) -> (u16, serde_json::Value) {
        let mut r = self
            .http
            .post(format!("http://{}{path}", self.addr))
            .json(&body);
        if !seat.is_empty() {
            r = r.bearer_auth(self.token(seat));
        }
        let r = r.send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    async fn get(&self, seat: &str, path: &str) -> serde_json::Value {
        let r = self
            .http
            .get(format!("http://{}{path}", self.addr))
            .bearer_auth(self.token(seat));
        r.send().await.unwrap().json().await.unwrap()
    }

    /// The umpire's table: (seq, pieces as (id, x, y, heading)).
    async fn table(&self) -> (u64, Vec<(String, f64, f64, f64)>) {
        let state = self.get("umpire", "/api/state").await;
        (state["seq"].as_u64().unwrap(), common::state_pieces(&state))
    }

    /// The next stable table after `seq`, waiting up to 20 s.
    async fn after(&self, seq: u64) -> (u64, Vec<(String, f64, f64, f64)>) {
        for _ in 0..400 {
            let table = self.table().await;
            if table.0 > seq {
                return table;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("no stable table after #{seq} within 20 s");
    }

    /// A hand over the table for 0.3 s, and the stable table after it.
    async fn hand(&self) -> (u64, Vec<(String, f64, f64, f64)>) {
        let seq = self.table().await.0;
        self.world.lock().unwrap().hand_frames = 6;
        self.after(seq).await
    }
}

fn within(pieces: &[(String, f64, f64, f64)], x: f64, y: f64, reach: f64) -> Vec<&str> {
    pieces
        .iter()
        .filter(|p| (p.1 - x).hypot(p.2 - y) <= reach)
        .map(|p| p.0.as_str())
        .collect()
}

/// The veto and a piece placed by hand through the real server: seats, fog of war in
/// the answer, the table over the next stable states, the handover, the journal and
/// `aide log`; and a scripted replay's 409.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_vetoes_a_phantom_and_places_a_missed_piece_on_a_real_server() {
    let scenario = demo();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let server = Served::start(&scenario, true, Some(&db)).await;
    let (x, y, _) = PHANTOM;

    // The first commit: the phantom stands in the river under the missed block's name.
    let (seq, pieces) = server.after(0).await;
    assert_eq!(within(&pieces, x, y, 0.5), [MISSED]);
    assert_eq!(pieces.len(), 30);

    // A spectator may not veto.
    let (code, body) = server
        .post("", "/api/veto", serde_json::json!({"x_in": x, "y_in": y}))
        .await;
    assert_eq!(code, 403, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("a spectator cannot veto a piece")
    );
    // Nor veto nothing.
    let (code, body) = server
        .post(
            "red",
            "/api/veto",
            serde_json::json!({"x_in": 0.3, "y_in": 0.3}),
        )
        .await;
    assert_eq!(code, 422, "{body}");

    // Red vetoes the blue phantom: the answer names it by its block's handle only.
    let (code, body) = server
        .post(
            "red",
            "/api/veto",
            serde_json::json!({"x_in": x + 0.2, "y_in": y}),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        (body["event"].as_str(), body["by"].as_str()),
        (Some("vetoed"), Some("red"))
    );
    assert!(
        !body.to_string().contains(MISSED),
        "red must not read a blue id: {body}"
    );
    assert!(body["unit"].as_str().unwrap().starts_with('?'), "{body}");
    let (now, pieces) = server.after(seq).await;
    assert!(within(&pieces, x, y, 1.0).is_empty());
    // The next 5 stable states, each after a hand: the phantom is still read, never shown.
    let mut seq = now;
    for n in 0..5 {
        let (next, pieces) = server.hand().await;
        assert!(next > seq);
        seq = next;
        assert!(
            within(&pieces, x, y, 1.0).is_empty(),
            "state {n} after the veto shows {:?} at the vetoed place",
            within(&pieces, x, y, 1.0)
        );
        assert_eq!(pieces.len(), 29);
    }

    // Placing the missed block by hand: a spectator and red may not; blue may.
    let truth = scenario.setup_table().piece(MISSED).unwrap().pose;
    let placed = (truth.x_in - 0.6, truth.y_in + 0.1, 170.0);
    let place = serde_json::json!({"unit": MISSED, "x_in": placed.0, "y_in": placed.1, "heading_deg": placed.2});
    let (code, body) = server.post("", "/api/place", place.clone()).await;
    assert_eq!(code, 403, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("a spectator cannot place a piece")
    );
    let (code, body) = server.post("red", "/api/place", place.clone()).await;
    assert_eq!(code, 403, "{body}");
    assert_eq!(
        body["error"],
        format!("the red seat may act only for its own units, and {MISSED:?} is not one of them")
    );
    let (code, body) = server.post("blue", "/api/place", place.clone()).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        (body["event"].as_str(), body["unit"].as_str()),
        (Some("placed"), Some(MISSED))
    );
    let (code, body) = server.post("blue", "/api/place", place.clone()).await;
    assert_eq!(
        (code, body["error"].as_str().unwrap()),
        (
            409,
            format!("{MISSED} is on the table already: tap its piece and name it instead").as_str()
        )
    );
    let (now, pieces) = server.after(seq).await;
    let held = |pieces: &[(String, f64, f64, f64)]| {
        pieces
            .iter()
            .find(|p| p.0 == MISSED)
            .map(|p| (p.1, p.2, p.3))
    };
    assert_eq!(held(&pieces), Some(placed), "at once, where it was put");
    seq = now;
    for _ in 0..3 {
        let (next, pieces) = server.hand().await;
        assert!(next > seq);
        seq = next;
        assert_eq!(
            held(&pieces),
            Some(placed),
            "held while the camera misses it"
        );
        assert_eq!(pieces.len(), 30);
    }
    // The camera sees the block, 0.61 in from where it was put: it takes over.
    server
        .world
        .lock()
        .unwrap()
        .seen
        .push(sighting(&scenario, &scenario.setup_table(), MISSED));
    let (_, pieces) = server.hand().await;
    let (hx, hy, _) = held(&pieces).unwrap();
    assert!(
        (hx - truth.x_in).hypot(hy - truth.y_in) < 0.05,
        "the camera's pose ({hx:.2}, {hy:.2}), not the hand's"
    );
    assert_eq!(pieces.len(), 30, "one block, one name");

    // The journal, as the page's log and `aide log` read it.
    let log = server.get("umpire", "/api/log").await;
    let kinds: Vec<(&str, &str)> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["event"]["event"].as_str().unwrap(),
                e["event"]["unit"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            // The phantom took the missed block's name: it "moved" from its setup place.
            ("moved", MISSED),
            ("vetoed", MISSED),
            ("placed", MISSED),
            ("seen", MISSED)
        ],
        "no removal for the veto, no move for the handover"
    );
    // Red reads its own veto, the blue unit under "a blue piece"; blue reads all three.
    let red_log = server.get("red", "/api/log").await.to_string();
    assert!(
        red_log.contains("\"vetoed\"") && !red_log.contains(MISSED),
        "{red_log}"
    );
    let blue_log = server.get("blue", "/api/log").await.to_string();
    assert!(blue_log.contains("\"vetoed\"") && blue_log.contains("\"seen\""));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_aide"))
        .arg("log")
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "'s piece at (16.",
        "is not a piece, says red: vetoed",
        "placed by hand by blue at (7.60, 3.50) facing 170, fresh",
        "seen by the camera at (8.2",
    ] {
        assert!(text.contains(line), "aide log lacks {line:?}:\n{text}");
    }

    // A scripted replay refuses both, with its reason.
    let replay = Served::start(&scenario, false, None).await;
    for (path, body) in [
        ("/api/veto", serde_json::json!({"x_in": 8.2, "y_in": 3.4})),
        ("/api/place", place),
    ] {
        let (code, body) = replay.post("blue", path, body).await;
        assert_eq!(code, 409, "{path}: {body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .starts_with("this table is a scripted replay"),
            "{path}: {body}"
        );
    }
}

/// A restart of the server on the same journal (issue 15, point 5): the veto still in
/// force and the piece held by hand are rebuilt from the journal's events, and behave as
/// before the restart: the phantom, still read in the river, stays off the table; the
/// held block stands where it was put until the camera sees it, then the camera's pose
/// takes over.
#[test]
fn a_restart_on_the_same_journal_keeps_the_veto_and_the_piece_held_by_hand() {
    let scenario = demo();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let (x, y, _) = PHANTOM;
    let truth = scenario.setup_table().piece(MISSED).unwrap().pose;
    let placed = (truth.x_in - 0.6, truth.y_in + 0.1, 170.0);
    let held = |pieces: &[(String, f64, f64, f64)]| {
        pieces
            .iter()
            .find(|p| p.0 == MISSED)
            .map(|p| (p.1, p.2, p.3))
    };

    // The first server: red vetoes the phantom, blue places the missed block by hand.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let server = Served::start(&scenario, true, Some(&db)).await;
        let (seq, pieces) = server.after(0).await;
        assert_eq!(within(&pieces, x, y, 0.5), [MISSED]);
        let (code, body) = server
            .post("red", "/api/veto", serde_json::json!({"x_in": x, "y_in": y}))
            .await;
        assert_eq!(code, 200, "{body}");
        let place = serde_json::json!({"unit": MISSED, "x_in": placed.0, "y_in": placed.1, "heading_deg": placed.2});
        let (code, body) = server.post("blue", "/api/place", place).await;
        assert_eq!(code, 200, "{body}");
        let (_, pieces) = server.after(seq + 1).await;
        assert!(within(&pieces, x, y, 1.0).is_empty());
        assert_eq!(held(&pieces), Some(placed));
        let (_, pieces) = server.hand().await;
        assert!(within(&pieces, x, y, 1.0).is_empty());
        assert_eq!(held(&pieces), Some(placed));
    });
    // Stopped: its tasks, its journal connection and its feed's channel go with it.
    drop(runtime);

    // The second server on the same journal, its camera still reading the phantom in
    // the river and still missing the block.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let server = Served::start(&scenario, true, Some(&db)).await;
        let (mut seq, pieces) = server.after(0).await;
        assert!(
            within(&pieces, x, y, 1.0).is_empty(),
            "the first table after the restart shows {:?} at the vetoed place",
            within(&pieces, x, y, 1.0)
        );
        assert_eq!(held(&pieces), Some(placed), "held where it was put");
        assert_eq!(pieces.len(), 30);
        for n in 0..3 {
            let (next, pieces) = server.hand().await;
            assert!(next > seq);
            seq = next;
            assert!(
                within(&pieces, x, y, 1.0).is_empty(),
                "state {n} after the restart"
            );
            assert_eq!(held(&pieces), Some(placed));
        }
        // The camera sees the block: the camera's pose takes over, as before a restart.
        server.world.lock().unwrap().seen.push(sighting(
            &scenario,
            &scenario.setup_table(),
            MISSED,
        ));
        let (_, pieces) = server.hand().await;
        let (hx, hy, _) = held(&pieces).unwrap();
        assert!((hx - truth.x_in).hypot(hy - truth.y_in) < 0.05);
        assert_eq!(pieces.len(), 30, "one block, one name");
    });
    drop(runtime);
    assert_journaled(
        &db,
        &[
            ("moved", MISSED),
            ("vetoed", MISSED),
            ("placed", MISSED),
            ("seen", MISSED),
        ],
        "nothing added, removed or moved by the restart itself",
    );
}

/// Only the vetoes still in force come back: a veto the tracker lifted before the
/// restart (its place changed, the `lifted` event) stays lifted, and a veto of a
/// detection no unit was left for (known only by the shape and colour the `vetoed`
/// event names) holds.
#[test]
fn a_restart_rebuilds_the_vetoes_still_in_force_and_no_other() {
    let scenario = demo();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let (x, y, _) = PHANTOM;
    // A red block where no red unit is left for it (they all stand on the table).
    let (sx, sy) = (30.0, 15.0);
    let mut seen = camera(&scenario);
    seen.push(block("red", sx, sy, 0.0, Status::Fresh));
    let without_phantom: Vec<Sighting> = seen
        .iter()
        .filter(|s| (s.pose.x_in - x).hypot(s.pose.y_in - y) > 0.5)
        .cloned()
        .collect();

    let mut table = Table::new(
        &scenario,
        Some(Recorder::open(&db, scenario.clone()).unwrap()),
    );
    table.hand_then_still(&seen);
    assert_eq!(table.tracker.unassigned(), 1, "the red block is a stray");
    for (vx, vy, by) in [(sx, sy, "umpire"), (x, y, "blue")] {
        let e = table.tracker.veto(vx, vy, by).unwrap();
        table.record(&e);
    }
    assert_eq!(table.tracker.vetoes(), 2);
    // The phantom goes for half a second: its veto lifts. Back, it is judged afresh.
    for _ in 0..5 {
        table.frame(&without_phantom, 0.0);
    }
    assert_eq!(table.tracker.vetoes(), 1);
    let commit = table.hand_then_still(&seen);
    assert_eq!(
        near(&commit, x, y, 0.5),
        [MISSED],
        "the phantom is seen again"
    );
    assert_eq!(table.tracker.unassigned(), 0, "the stray's veto holds");
    let ts = table.ts;
    drop(table);

    let stored = common::stored_events(&db);
    let kinds: Vec<&str> = stored.iter().map(Event::kind).collect();
    // The phantom first took the missed block's name: it "moved" from its setup place.
    assert_eq!(kinds, ["moved", "vetoed", "vetoed", "lifted", "added"]);
    let mut tracker = Tracker::resume(
        scenario.clone(),
        TrackerConfig::default(),
        scenario.setup_table(),
    );
    let restored = tracker.restore(&stored);
    assert_eq!(
        (restored.vetoes, restored.held, restored.unreadable),
        (1, 0, 0),
        "the stray's veto; not the lifted one"
    );
    let mut table = Table {
        tracker,
        recorder: Some(Recorder::open(&db, scenario.clone()).unwrap()),
        ts,
        commits: Vec::new(),
    };
    for n in 0..3 {
        let commit = table.hand_then_still(&seen);
        assert_eq!(
            table.tracker.unassigned(),
            0,
            "commit {n}: the stray stays screened"
        );
        assert_eq!(
            near(&commit, x, y, 0.5),
            [MISSED],
            "commit {n}: the lifted veto stays lifted"
        );
        assert_eq!(commit.pieces.len(), 30);
    }
    assert_eq!(table.tracker.vetoes(), 1);
    // And it lifts on the same condition as before the restart: the stray taken away.
    let without_stray: Vec<Sighting> = seen[..seen.len() - 1].to_vec();
    for _ in 0..5 {
        table.frame(&without_stray, 0.0);
    }
    assert_eq!(table.tracker.vetoes(), 0);
}

/// A correction the journal cannot store is not made, and the page is told why: another
/// program holds the journal's write lock (a `sqlite3` shell left in a transaction)
/// past the journal's 5 s wait, so red's veto gets a 500 naming the journal's reason,
/// the phantom stays on the table, and nothing of the refused veto reaches the journal
/// later. Once the lock is let go, the same veto is made, and journaled once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correction_the_journal_cannot_store_is_a_500_and_is_not_made() {
    let scenario = demo();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let server = Served::start(&scenario, true, Some(&db)).await;
    let (x, y, _) = PHANTOM;
    let (_, pieces) = server.after(0).await;
    assert_eq!(within(&pieces, x, y, 0.5), [MISSED]);

    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let veto = serde_json::json!({"x_in": x, "y_in": y});
    let (code, body) = server.post("red", "/api/veto", veto.clone()).await;
    assert_eq!(code, 500, "{body}");
    let error = body["error"].as_str().unwrap();
    for words in [
        "the journal did not store this correction, so it was not made",
        "database is locked",
    ] {
        assert!(error.contains(words), "{error:?} lacks {words:?}");
    }
    assert!(
        !error.contains(MISSED),
        "red must not read a blue id: {error}"
    );
    let (_, pieces) = server.table().await;
    assert_eq!(
        within(&pieces, x, y, 0.5),
        [MISSED],
        "the table is as it was"
    );
    other.execute_batch("ROLLBACK").unwrap();

    // A hand over the table and a new stable state: still not vetoed, nothing journaled.
    let (seq, pieces) = server.hand().await;
    assert_eq!(within(&pieces, x, y, 0.5), [MISSED]);
    let (code, body) = server.post("red", "/api/veto", veto).await;
    assert_eq!(code, 200, "{body}");
    let (_, pieces) = server.after(seq).await;
    assert!(within(&pieces, x, y, 1.0).is_empty());
    assert_journaled(
        &db,
        &[("moved", MISSED), ("vetoed", MISSED)],
        "the refused veto is not stored with a later state",
    );
}
