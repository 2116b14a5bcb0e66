//! `aide camera-check` on rendered frames: a good set-up passes with its pixels an inch
//! measured right, and a hidden card, a blurred lens, a flat picture and a dark room are
//! each named with what to do.

use std::path::Path;
use std::process::Command;

use aide::sim;
use image::RgbImage;
use nalgebra::Point3;
use serde_json::Value;

fn check(image: &RgbImage, dir: &Path, name: &str) -> Value {
    let path = dir.join(name);
    image.save(&path).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(["camera-check", "--map", "36x24", "--json", "--image"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn fixes(report: &Value) -> Vec<String> {
    report["fix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_good_camera_passes_and_each_fault_is_named_with_its_fix() {
    let scene = sim::random_scene(2, 36.0, 24.0, 1280, 720);
    let image = sim::render(&scene);
    let dir = tempfile::tempdir().unwrap();

    let good = check(&image, dir.path(), "good.png");
    assert_eq!(fixes(&good), Vec::<String>::new(), "{good:#}");
    // Pixels an inch at card 0, against the renderer's camera.
    let camera = scene.pinhole();
    let (a, b) = (
        camera.project(Point3::new(0.25, 1.0, 0.0)).unwrap(),
        camera.project(Point3::new(1.75, 1.0, 0.0)).unwrap(),
    );
    let truth = (a.0 - b.0).hypot(a.1 - b.1) / 1.5;
    let seen = good["cards"][0]["px_per_in"].as_f64().unwrap();
    assert!(
        (seen - truth).abs() / truth < 0.1,
        "{seen} px/in, {truth} true"
    );
    let expected = good["expected_in"].as_f64().unwrap();
    // Half a pixel at ~20 px/in, and the renderer's lens unmodelled without a file.
    assert!(expected > 0.02 && expected < 0.1, "{good:#}");
    let sharp = good["cards"][0]["edge_px"].as_f64().unwrap();

    // Card 2 under a hand (a grey patch over the bottom-right corner).
    let mut hidden = image.clone();
    let (u, v) = camera.project(Point3::new(35.0, 23.0, 0.0)).unwrap();
    for y in (v as u32).saturating_sub(40)..(v as u32 + 40).min(hidden.height()) {
        for x in (u as u32).saturating_sub(40)..(u as u32 + 40).min(hidden.width()) {
            hidden.put_pixel(x, y, image::Rgb([120, 100, 90]));
        }
    }
    let report = check(&hidden, dir.path(), "hidden.png");
    let fix = fixes(&report);
    assert_eq!(report["cards"][2]["found"], false);
    assert!(
        fix[0].starts_with("card 2 (bottom-right) is hidden"),
        "{fix:?}"
    );

    // Out of focus.
    let blurred = image::imageops::blur(&image, 1.5);
    let report = check(&blurred, dir.path(), "blurred.png");
    let edge = report["cards"][0]["edge_px"].as_f64();
    assert!(
        edge.is_some_and(|edge| edge > sharp + 1.0),
        "{sharp} px sharp: {report:#}"
    );
    assert!(
        fixes(&report).iter().any(|f| f.contains("refocus")),
        "{report:#}"
    );

    // A flat picture: every value v read as 90 + 0.65 v, the tags' black near half the
    // cards' white (as rendered, a tenth of it).
    let share = |r: &Value| {
        r["cards"][0]["black"].as_f64().unwrap() / r["cards"][0]["white"].as_f64().unwrap()
    };
    assert!(share(&good) < 0.2, "{good:#}");
    let mut flat = image.clone();
    for v in flat.iter_mut() {
        *v = (90.0 + f64::from(*v) * 165.0 / 255.0).round() as u8;
    }
    let report = check(&flat, dir.path(), "flat.png");
    assert!(share(&report) > 0.35, "{report:#}");
    assert!(
        fixes(&report)
            .iter()
            .any(|f| f.starts_with("the picture is flat")),
        "{report:#}"
    );

    // A dim room.
    let mut dark = image.clone();
    for p in dark.pixels_mut() {
        p.0 = p.0.map(|c| (f64::from(c) * 0.3) as u8);
    }
    let report = check(&dark, dir.path(), "dark.png");
    assert!(
        fixes(&report).iter().any(|f| f.contains("more light")),
        "{report:#}"
    );
}

/// A camera that shows one picture, again and again.
struct Still(RgbImage, u64);

impl aide::capture::FrameSource for Still {
    fn next_frame(&mut self) -> Result<aide::capture::Frame, aide::capture::CaptureError> {
        std::thread::sleep(std::time::Duration::from_millis(50));
        self.1 += 1;
        Ok(aide::capture::Frame {
            image: self.0.clone(),
            ts_ms: aide::journal::now_ms(),
            index: self.1 - 1,
        })
    }

    fn kind(&self) -> aide::capture::SourceKind {
        aide::capture::SourceKind::Camera
    }

    fn describe(&self) -> String {
        "a still picture".into()
    }
}

/// The page's camera step: GET /api/camera-check runs the check on the frame the live
/// feed read last, and answers what `aide camera-check` prints for that picture, to the
/// last digit; the picture comes with it. On a seated table only the umpire gets it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_gets_the_terminals_check_of_the_feeds_newest_frame() {
    use aide::live::{CameraFeed, CameraTap};
    use aide::track::{Tracker, TrackerConfig};
    use aide::vision::{ColourModel, TableObserver};
    use aide::web::feed::{Publisher, Source};
    use aide::web::{AppState, Seating, Setup, demo};
    use std::sync::{Arc, Mutex};

    let scene = sim::random_scene(2, 36.0, 24.0, 1280, 720);
    let image = sim::render(&scene);
    let dir = tempfile::tempdir().unwrap();
    let terminal = check(&image, dir.path(), "frame.png");

    let scenario = demo::scenario().unwrap();
    assert_eq!(
        (scenario.map.width_in, scenario.map.height_in),
        (36.0, 24.0)
    );
    let mut servers = Vec::new();
    for seating in [Seating::Open, Seating::Seated] {
        let tables = demo::tables(&scenario).unwrap();
        let (publisher, rx) = Publisher::new(tables[0].clone(), Source::Replay);
        let tap = Arc::new(CameraTap::new(None));
        let state = AppState::with_seating(
            Setup {
                scenario: scenario.clone(),
                map_svg: None,
                terrain_geojson: String::new(),
                recorder: None,
                identify: None,
                url: "http://127.0.0.1/".into(),
                camera: Some(tap.clone()),
            },
            seating,
            rx,
        )
        .unwrap();
        let (opened, opened_rx) = std::sync::mpsc::channel();
        let still = image.clone();
        aide::web::feed::spawn(
            Box::new(CameraFeed {
                open: Box::new(move || Ok(Box::new(Still(still, 0)) as _)),
                observer: Box::new(TableObserver::new(&scenario, None, ColourModel::builtin())),
                tracker: Arc::new(Mutex::new(Tracker::resume(
                    Arc::new(scenario.clone()),
                    TrackerConfig::default(),
                    tables[0].clone(),
                ))),
                opened,
                ages: Arc::default(),
                tap,
            }),
            publisher,
        )
        .unwrap();
        opened_rx.recv().unwrap().unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(aide::web::serve(listener, state));
        servers.push(addr);
    }
    let http = reqwest::Client::new();

    // The open table: everyone is the umpire.
    let open = servers[0];
    let asked = std::time::Instant::now();
    let answer: Value = loop {
        let r = http
            .get(format!("http://{open}/api/camera-check"))
            .send()
            .await
            .unwrap();
        // 503 until the feed has read a frame.
        assert!(asked.elapsed().as_secs() < 10, "no frame read in 10 s");
        if r.status() != 503 {
            assert_eq!(r.status(), 200);
            break r.json().await.unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(answer["report"], terminal, "{answer:#}");
    assert_eq!(
        answer["report"]["cards"][3]["outline_px"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    let picture = http
        .get(format!(
            "http://{open}{}",
            answer["picture"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(picture.headers()["content-type"], "image/jpeg");
    let jpeg = image::load_from_memory(&picture.bytes().await.unwrap()).unwrap();
    assert_eq!((jpeg.width(), jpeg.height()), image.dimensions());

    // A seated table: a spectator (no token) is refused, saying why.
    let seated = servers[1];
    for path in ["camera-check", "camera-check.jpg"] {
        let r = http
            .get(format!("http://{seated}/api/{path}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403);
        let body: Value = r.json().await.unwrap();
        assert!(
            body["error"].as_str().unwrap().contains("umpire's"),
            "{body}"
        );
    }
}
