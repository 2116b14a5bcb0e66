//! The whole camera pipeline on a scripted game: rendered frames (a hand reaching in for
//! every change) through the detector and the tracker into a real SQLite journal, and
//! the events read back against the script.

mod common;

use std::path::Path;
use std::sync::Arc;

use aide::capture::FrameSource;
use aide::journal::Recorder;
use aide::live::Observer;
use aide::scenario::Scenario;
use aide::track::{Tracker, TrackerConfig};
use aide::vision::{ColourModel, TableObserver};

use common::stored_events;

#[test]
fn a_scripted_game_seen_by_the_camera_is_logged_move_by_move() {
    let scenario = Scenario::load(Path::new("scenarios/demo/valley.toml")).unwrap();
    let tables: Vec<_> = aide::web::demo::tables(&scenario).unwrap()[..4].to_vec();
    // 1280x720: at 960x540, now that blocks carry their labels, the demo's spent block
    // at (7.2, 9.8) reads 4.8 degrees off its true facing (0.4 at 1280x720), past the
    // tracker's 3 degrees of stillness, and is logged as moved. hardware.md asks for
    // 1080p; the low-resolution reading is written in the stop's note.
    let (camera, lens) = common::demo_camera(&scenario, &tables, 1000.0);
    let mut camera = camera.with_timing(2, 9);
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
    let stored = stored_events(&db);
    common::assert_same_events(&stored, &common::script_events(&scenario, &tables), "");
}

/// A person names a piece on the page while the camera watches: the real server, the
/// camera feed (rendered frames through the detector and the tracker) and a SQLite
/// journal. The two units swap names, later commits keep them, and the journal stores
/// the naming and the script's next move, not the swap as two moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_piece_named_on_the_page_keeps_its_name_through_the_next_move() {
    use aide::track::tracker::shape_of_kind;
    use aide::web::{Seating, demo};
    use serde_json::{Value, json};

    let scenario = demo::scenario().unwrap();
    let tables: Vec<_> = demo::tables(&scenario).unwrap()[..2].to_vec();
    let moved = tables[1]
        .pieces
        .iter()
        .find(|p| tables[0].piece(&p.id).unwrap().pose != p.pose)
        .unwrap()
        .id
        .clone();
    // Two blocks of one side that the script leaves where they are.
    let shape = |id: &str| shape_of_kind(&scenario, scenario.unit(id).unwrap().kind).to_owned();
    let still: Vec<_> = tables[0]
        .pieces
        .iter()
        .filter(|p| p.id != moved && shape(&p.id) == "block")
        .collect();
    let a = still[0];
    let b = still
        .iter()
        .find(|p| p.side == a.side && p.id != a.id)
        .unwrap();
    let enemy = still.iter().find(|p| p.side != a.side).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let shared = Arc::new(scenario.clone());
    let recorder = Recorder::open(&db, shared.clone()).unwrap();
    // Each table still for 2 s after a hand in view for 0.3 s, 10 frames a second.
    let (camera, lens) = common::demo_camera(&scenario, &tables, 10.0);
    let camera = camera.with_timing(3, 20);
    let watched = common::watched(&scenario, &tables[0], Some(recorder), Seating::Open);
    common::spawn_camera_feed(&scenario, camera, lens, &watched);
    let state = watched.state.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(aide::web::serve(listener, state));
    let http = reqwest::Client::new();
    let post = |body: Value| {
        let request = http
            .post(format!("http://{addr}/api/identify"))
            .json(&body)
            .send();
        async move {
            let r = request.await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let get_state = || {
        let request = http.get(format!("http://{addr}/api/state")).send();
        async move { request.await.unwrap().json::<Value>().await.unwrap() }
    };
    let at = |state: &Value, id: &str| {
        let p = state["table"]["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .unwrap_or_else(|| panic!("{id} is not on the table"));
        (
            p["pose"]["x_in"].as_f64().unwrap(),
            p["pose"]["y_in"].as_f64().unwrap(),
        )
    };
    let scenario_json: Value = http
        .get(format!("http://{addr}/api/scenario"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(scenario_json["identify"], true);
    assert_eq!(scenario_json["shapes"][&a.id], "block");

    // Refusals, each with its reason.
    let (x, y) = (a.pose.x_in, a.pose.y_in);
    let (code, body) = post(json!({"unit": "nobody", "x_in": x, "y_in": y})).await;
    assert_eq!(
        (code, body["error"].as_str().unwrap()),
        (404, "\"nobody\" is not a unit of this scenario")
    );
    let (code, body) = post(json!({"unit": enemy.id, "x_in": x, "y_in": y})).await;
    assert_eq!(code, 422, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("another side or shape")
    );
    // A map corner, where no piece stands, names nothing.
    let (code, body) = post(json!({"unit": b.id, "x_in": 0.5, "y_in": 0.5})).await;
    assert_eq!(code, 422, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("no piece within 0.9 in")
    );
    let (code, _) = post(json!({"unit": b.id, "x_in": x})).await;
    assert_eq!(code, 422, "a missing field is refused");

    // The naming, tapped 0.2 in off the block's centre: A's block is B.
    let before = get_state().await["seq"].as_u64().unwrap();
    let (code, body) = post(json!({"unit": b.id, "x_in": x + 0.2, "y_in": y})).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        (body["unit"].as_str(), body["was"].as_str()),
        (Some(b.id.as_str()), Some(a.id.as_str()))
    );

    // Wait for the script's move to be seen (the hand, then 0.7 s still) and committed.
    let mut seen = Value::Null;
    for _ in 0..600 {
        let state = get_state().await;
        let (mx, my) = at(&state, &moved);
        let target = tables[1].piece(&moved).unwrap().pose;
        if state["seq"].as_u64().unwrap() > before
            && (mx - target.x_in).hypot(my - target.y_in) < 0.1
        {
            seen = state;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(
        !seen.is_null(),
        "the scripted move was not committed within 120 s"
    );
    // The blocks stayed; their names swapped and held through the commit.
    let (bx, by) = at(&seen, &b.id);
    let (ax, ay) = at(&seen, &a.id);
    assert!(
        (bx - a.pose.x_in).hypot(by - a.pose.y_in) < 0.1,
        "{} is where {} stood",
        b.id,
        a.id
    );
    assert!(
        (ax - b.pose.x_in).hypot(ay - b.pose.y_in) < 0.1,
        "{} is where {} stood",
        a.id,
        b.id
    );

    // The journal: the naming, then the move; no move of A or B.
    let stored = stored_events(&db);
    let kinds: Vec<(&str, &str)> = stored.iter().map(|e| (e.kind(), e.unit())).collect();
    assert_eq!(
        kinds,
        [("identified", b.id.as_str()), ("moved", moved.as_str())]
    );
}
