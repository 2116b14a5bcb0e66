//! The camera's own picture as evidence: the real server watching the demo through its
//! synthetic camera (rendered frames through the detector and the tracker), a seated
//! table and a real SQLite journal. The picture of each stable state is served on
//! demand at /api/evidence.jpg, cropped to the map at 20 px an inch, kept in the
//! journal once per stored state, and shown by the after-action reports.

mod common;

use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aide::journal::{Journal, Recorder};
use aide::seat::Seat;
use aide::web::feed::{Publisher, Replay, Source};
use aide::web::{AppState, Seating, Setup, demo};
use serde_json::Value;

async fn get(
    http: &reqwest::Client,
    addr: SocketAddr,
    path: &str,
    token: Option<&str>,
) -> reqwest::Response {
    let mut request = http.get(format!("http://{addr}{path}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

async fn state_seq(http: &reqwest::Client, addr: SocketAddr) -> u64 {
    get(http, addr, "/api/state", None)
        .await
        .json::<Value>()
        .await
        .unwrap()["seq"]
        .as_u64()
        .unwrap()
}

/// Pixels of red paint and of blue paint in the picture (20 px an inch) within `half`
/// px of (x, y) in map inches: a block's paint shows round the paper stuck on its top.
fn paint_around(picture: &image::RgbImage, x_in: f64, y_in: f64, half: i64) -> (u32, u32) {
    let (cx, cy) = ((x_in * 20.0) as i64, (y_in * 20.0) as i64);
    let (mut red, mut blue) = (0, 0);
    for y in cy - half..=cy + half {
        for x in cx - half..=cx + half {
            let Some(px) = picture.get_pixel_checked(x as u32, y as u32) else {
                continue;
            };
            let [r, g, b] = px.0.map(i32::from);
            red += u32::from(r > g + 60 && r > b + 60);
            blue += u32::from(b > r + 40 && b > g + 20);
        }
    }
    (red, blue)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_camera_picture_of_each_stable_state_is_served_on_demand_and_journalled() {
    let scenario = demo::scenario().unwrap();
    let tables: Vec<_> = demo::tables(&scenario).unwrap()[..3].to_vec();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let shared = Arc::new(scenario.clone());
    let recorder = Recorder::open(&db, shared.clone()).unwrap();
    // Each table still for 2 s after a hand in view for 0.3 s, 10 frames a second.
    let (camera, lens) = common::demo_camera(&scenario, &tables, 10.0);
    let camera = camera.with_timing(3, 20);
    let watched = common::watched(&scenario, &tables[0], Some(recorder), Seating::Seated);
    let state = watched.state.clone();
    let blue = state
        .seats
        .token(&Seat::Side(scenario.sides[1].id.clone()))
        .unwrap()
        .to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(aide::web::serve(listener, state));
    let http = reqwest::Client::new();

    // Before the camera has seen a still table: 409, and why.
    let r = get(&http, addr, "/api/evidence.jpg", None).await;
    assert_eq!(r.status().as_u16(), 409);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("no stable camera frame yet"),
        "{body}"
    );

    common::spawn_camera_feed(&scenario, camera, lens, &watched);

    // The first commit brings the first picture.
    let deadline = Instant::now() + Duration::from_secs(120);
    let (before, response) = loop {
        let before = state_seq(&http, addr).await;
        let r = get(&http, addr, "/api/evidence.jpg", None).await;
        if r.status() == 200 {
            break (before, r);
        }
        assert_eq!(r.status().as_u16(), 409);
        assert!(Instant::now() < deadline, "no picture in 120 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let after = state_seq(&http, addr).await;
    assert_eq!(response.headers()["content-type"], "image/jpeg");
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert_eq!(response.headers()["x-aide-px-per-in"], "20");
    // The spectator's picture is of a state its view has had: never a newer one.
    let seq: u64 = response.headers()["x-aide-seq"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (before..=after).contains(&seq),
        "picture of #{seq}, views #{before}..#{after}"
    );
    let jpeg = response.bytes().await.unwrap();
    let picture = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg)
        .unwrap()
        .into_rgb8();
    // The demo's 36 x 24 in map at 20 px an inch.
    assert_eq!(picture.dimensions(), (720, 480));
    // Cropped to the map: the blocks are where the table says, in their side's paint.
    let table: Value = get(&http, addr, "/api/state", Some(&blue))
        .await
        .json()
        .await
        .unwrap();
    let pieces = table["table"]["pieces"].as_array().unwrap().clone();
    // How many pieces show their side's paint within 0.3 in of where the table says,
    // with the picture read `dy` inches off (a block is 1.5 in long but less than an inch
    // deep; the demo's stand facing up or down the map).
    let painted = |dy: f64| {
        pieces
            .iter()
            .filter(|p| {
                let centre = &p["footprint"]["center"];
                let (red, blue) = paint_around(
                    &picture,
                    centre["x"].as_f64().unwrap(),
                    centre["y"].as_f64().unwrap() + dy,
                    6,
                );
                let (own, other) = if p["side"] == scenario.sides[0].id {
                    (red, blue)
                } else {
                    (blue, red)
                };
                own >= 10 && own > 3 * other
            })
            .count()
    };
    let (right, off) = (painted(0.0), painted(1.0));
    println!(
        "{right} of {} pieces painted where they stand, {off} an inch below",
        pieces.len()
    );
    assert!(pieces.len() >= 20 && right * 10 >= pieces.len() * 9);
    // A picture an inch off would fail: the check can tell.
    assert!(off * 2 < pieces.len());

    // Every seat may see the table; a token that is not the game's may not, nor a page
    // that names another host.
    let r = get(&http, addr, "/api/evidence.jpg", Some(&blue)).await;
    assert_eq!(r.status().as_u16(), 200);
    let r = get(&http, addr, "/api/evidence.jpg", Some("0123456789abcdef")).await;
    assert_eq!(r.status().as_u16(), 403);
    let r = http
        .get(format!("http://{addr}/api/evidence.jpg"))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);

    // The journal: the script's three tables, each stored once with its picture.
    let deadline = Instant::now() + Duration::from_secs(180);
    let (states, pictures) = loop {
        let journal = Journal::open_existing(&db).unwrap();
        let (states, pictures) = (journal.states().unwrap(), journal.pictures().unwrap());
        if states.len() >= 3 && pictures.len() >= states.len() {
            break (states, pictures);
        }
        assert!(
            Instant::now() < deadline,
            "after 180 s: {} states, {} pictures",
            states.len(),
            pictures.len()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(
        pictures.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(),
        states.iter().map(|s| s.seq).collect::<Vec<_>>(),
        "one picture per stored state"
    );
    for (seq, p) in &pictures {
        assert_eq!((p.width, p.height, p.px_per_in), (720, 480, 20.0));
        let decoded = image::load_from_memory(&p.jpeg).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (720, 480), "#{seq}");
        println!("state #{seq}: picture {} bytes", p.jpeg.len());
    }

    // The log's replay asks for a past state's picture by its journal number.
    for (seq, p) in &pictures {
        let r = get(&http, addr, &format!("/api/log/{seq}/picture.jpg"), None).await;
        assert_eq!(r.status().as_u16(), 200, "state {seq}");
        assert_eq!(r.headers()["x-aide-seq"], seq.to_string().as_str());
        assert_eq!(r.bytes().await.unwrap(), p.jpeg);
    }
    let r = get(&http, addr, "/api/log/999/picture.jpg", None).await;
    assert_eq!(r.status().as_u16(), 404);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("state 999 has no camera picture in the journal"),
        "{body}"
    );
    let r = get(&http, addr, "/api/log/two/picture.jpg", None).await;
    assert_eq!(r.status().as_u16(), 400);

    // The after-action report shows each state's picture, written beside it…
    let report = dir.path().join("report.md");
    let aide = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_aide"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let scenario_path = scenario.path.display().to_string();
    let db_path = db.display().to_string();
    aide(&[
        "log",
        &db_path,
        "--format",
        "md",
        "--scenario",
        &scenario_path,
        "--out",
        &report.display().to_string(),
    ]);
    let md = std::fs::read_to_string(&report).unwrap();
    for (seq, p) in &pictures {
        let file = format!("report-state-{seq}.jpg");
        assert!(
            md.contains(&format!("![Camera picture of state #{seq}]({file})")),
            "{md}"
        );
        assert_eq!(std::fs::read(dir.path().join(&file)).unwrap(), p.jpeg);
    }
    assert_eq!(
        md.matches("![Camera picture of state #").count(),
        states.len()
    );
    // …or inside one HTML page.
    let html = aide(&[
        "log",
        &db_path,
        "--format",
        "html",
        "--scenario",
        &scenario_path,
    ]);
    assert!(html.starts_with("<!doctype html>"), "{}", &html[..200]);
    assert_eq!(
        html.matches("<img src=\"data:image/jpeg;base64,").count(),
        states.len()
    );
}

#[tokio::test]
async fn a_table_fed_from_state_files_has_no_picture_and_says_so() {
    let scenario = demo::scenario().unwrap();
    let table = demo::tables(&scenario).unwrap().remove(0);
    let (publisher, rx) = Publisher::new(table.clone(), Source::Replay);
    let state = AppState::new(
        Setup {
            scenario,
            map_svg: None,
            terrain_geojson: String::new(),
            recorder: None,
            identify: None,
            url: "http://127.0.0.1/".into(),
            camera: None,
        },
        rx,
    )
    .unwrap();
    aide::web::feed::spawn(
        Box::new(Replay {
            tables: vec![table],
            rate: 0.0,
        }),
        publisher,
    )
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(aide::web::serve(listener, state));
    let r = get(&reqwest::Client::new(), addr, "/api/evidence.jpg", None).await;
    assert_eq!(r.status().as_u16(), 404);
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        body["error"],
        "no camera watches this table (it is fed from state files): there is no picture of it"
    );
}

/// The picture served is the one of the snapshot every seat's view is built from: a
/// frame the feed has committed but the hub has not yet turned into views is not given
/// to anyone (a spectator would learn of a move before its view shows it). The router
/// is called without the hub running, so the feed runs ahead of the views.
#[tokio::test]
async fn no_seat_gets_a_picture_newer_than_its_view() {
    use aide::vision::MapPicture;
    use axum::extract::ConnectInfo;
    use tower::ServiceExt;

    let scenario = demo::scenario().unwrap();
    let tables: Vec<_> = demo::tables(&scenario).unwrap()[..2].to_vec();
    let watched = common::watched(&scenario, &tables[0], None, Seating::Seated);
    let (state, rx) = (watched.state.clone(), watched.feed.clone());
    let picture = MapPicture {
        jpeg: vec![0xFF, 0xD8, 7, 0xFF, 0xD9],
        width: 720,
        height: 480,
        px_per_in: 20.0,
        ts_ms: 7,
    };
    let seq = watched.publisher.seen(
        tables[1].clone(),
        Vec::new(),
        Some(Arc::new(picture.clone())),
    );
    let evidence = || async {
        let request = axum::http::Request::get("/api/evidence.jpg")
            .header("host", "127.0.0.1")
            .extension(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 9))))
            .body(axum::body::Body::empty())
            .unwrap();
        let r = aide::web::router(state.clone())
            .oneshot(request)
            .await
            .unwrap();
        let status = r.status().as_u16();
        let seq = r
            .headers()
            .get("x-aide-seq")
            .map(|v| v.to_str().unwrap().to_owned());
        let body = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
        (status, seq, body)
    };
    // The views still show the first table: no picture yet.
    let (status, _, body) = evidence().await;
    assert_eq!(status, 409, "{}", String::from_utf8_lossy(&body));
    // The hub's step: the views of the new table, and with them its picture.
    let view = rx.borrow().clone();
    let snap = aide::web::hub::snapshot(
        &state.scenario,
        state.rules.as_ref(),
        state.served_seats(),
        0,
        &view,
    );
    *state.snapshot.write().unwrap() = Arc::new(snap);
    let (status, shown, body) = evidence().await;
    assert_eq!((status, shown), (200, Some(seq.to_string())));
    assert_eq!(body.as_ref(), picture.jpeg.as_slice());
}
