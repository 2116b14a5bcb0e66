//! `aide serve` stopped and started again on the same journal (issue 15, points 3 and 5):
//! what the live table learnt of the empty map is there again, and so is a piece held by
//! hand; a kept reference that another table made (another map size, another camera) or
//! that cannot be read is passed over with a warning naming the file and the reason.
//!
//! The real binary watches a folder holding one rendered frame of the demo's opening
//! table (the demo's printed map, its lens in a camera file) with one blue block left
//! out, so that it is placed by hand; it logs at info level, which the test reads.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aide::capture::FrameSource;
use aide::scenario::Scenario;
use aide::vision::{Intrinsics, KeptReference, MapReference, ReferenceKey};

const SCENARIO: &str = "scenarios/demo/valley.toml";
/// The demo's opening table (its setup crowds two corner cards).
const STATE: &str = "scenarios/demo/state.json";
/// The block the frames leave out, placed by hand.
const MISSED: &str = "blue-1-inf-1";

fn demo() -> Scenario {
    Scenario::load(Path::new(SCENARIO)).unwrap()
}

/// A folder with one frame of the demo's opening table, [`MISSED`] left out; and the
/// lens.
fn frames(dir: &Path) -> (PathBuf, Intrinsics) {
    let scenario = demo();
    let mut table = aide::scenario::load_state(&scenario, Path::new(STATE)).unwrap();
    table.pieces.retain(|p| p.id != MISSED);
    let (mut camera, lens) = common::demo_camera(&scenario, &[table], 5.0);
    let folder = dir.join("frames");
    std::fs::create_dir_all(&folder).unwrap();
    camera
        .next_frame()
        .unwrap()
        .image
        .save(folder.join("0000.png"))
        .unwrap();
    (folder, lens)
}

fn camera_file(dir: &Path, name: &str, lens: &Intrinsics) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(lens).unwrap()).unwrap();
    path
}

/// `aide serve` running, every line it printed so far (stdout and stderr apart), killed
/// when dropped.
struct Server {
    child: Child,
    out: Arc<Mutex<Vec<String>>>,
    err: Arc<Mutex<Vec<String>>>,
    addr: String,
}

fn collect(stream: impl std::io::Read + Send + 'static) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
    lines
}

impl Server {
    /// Serve the demo scenario watching `frames` through the lens `camera`, journaling
    /// into `journal`; waits until it listens.
    fn start(frames: &Path, camera: &Path, journal: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_aide"))
            .args([
                "serve",
                "--bind",
                "127.0.0.1:0",
                "--open-table",
                "--fps",
                "5",
            ])
            .args(["--scenario", SCENARIO, "--state", STATE])
            .arg("--frames")
            .arg(frames)
            .arg("--camera-file")
            .arg(camera)
            .arg("--journal")
            .arg(journal)
            .env("RUST_LOG", "aide=info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start aide serve");
        let out = collect(child.stdout.take().unwrap());
        let err = collect(child.stderr.take().unwrap());
        let mut server = Self {
            child,
            out,
            err,
            addr: String::new(),
        };
        let line = server.wait_for(false, "listening on ", Duration::from_secs(60));
        server.addr = line["listening on ".len()..].to_owned();
        server
    }

    /// The first line of stdout (or of stderr) containing `needle`, waiting up to
    /// `within`.
    fn wait_for(&self, stderr: bool, needle: &str, within: Duration) -> String {
        let lines = if stderr { &self.err } else { &self.out };
        let since = Instant::now();
        loop {
            if let Some(line) = lines.lock().unwrap().iter().find(|l| l.contains(needle)) {
                return line.clone();
            }
            assert!(
                since.elapsed() < within,
                "no line with {needle:?} within {within:?}; stdout {:?}, stderr {:?}",
                self.out.lock().unwrap(),
                self.err.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The umpire's table now: (id, x, y, heading) of every piece.
    fn table(&self) -> Vec<(String, f64, f64, f64)> {
        common::state_pieces(&self.state())
    }

    fn state(&self) -> serde_json::Value {
        reqwest::blocking::get(format!("http://{}/api/state", self.addr))
            .unwrap()
            .json()
            .unwrap()
    }

    /// Whether the journal's log (the page's) holds an event of `kind`.
    fn logged(&self, kind: &str) -> bool {
        let log: serde_json::Value =
            reqwest::blocking::get(format!("http://{}/api/log", self.addr))
                .unwrap()
                .json()
                .unwrap();
        log["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["event"]["event"] == kind)
    }

    /// Wait for the tracker's first settled table of this run (up to 2 min: the detector
    /// in a debug build), and return it.
    fn settled(&self) -> Vec<(String, f64, f64, f64)> {
        let since = Instant::now();
        while self.state()["seq"].as_u64().unwrap() == 0 {
            assert!(
                since.elapsed() < Duration::from_secs(120),
                "no settled table"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        self.table()
    }

    /// Stop it as a person does, with Ctrl-C, and wait for it to end.
    fn stop(self) -> Vec<String> {
        self.stop_with("-INT")
    }

    /// Stop it with a signal (`-INT` for Ctrl-C, `-TERM` as `systemctl stop` does) and
    /// wait for it to end by its own shutdown, which writes what the feed learnt: exit
    /// status 0, not death by the signal.
    fn stop_with(mut self, signal: &str) -> Vec<String> {
        let pid = self.child.id().to_string();
        let killed = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(killed.success());
        let since = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                since.elapsed() < Duration::from_secs(20),
                "aide serve did not stop on {signal}"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "aide serve on {signal}: {status}");
        // The readers drain what is left in the pipes.
        std::thread::sleep(Duration::from_millis(200));
        self.err.lock().unwrap().clone()
    }
}

impl Server {
    /// POST `body` to `path` and return the answer's status and JSON.
    fn post(&self, path: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
        let answer = reqwest::blocking::Client::new()
            .post(format!("http://{}{path}", self.addr))
            .json(&body)
            .send()
            .unwrap();
        (answer.status().as_u16(), answer.json().unwrap())
    }

    /// Kill it as a power cut or the OOM killer does (SIGKILL: no shutdown runs), and
    /// wait until it is gone.
    fn kill(mut self) {
        self.child.kill().unwrap();
        let status = self.child.wait().unwrap();
        assert!(!status.success(), "killed, not stopped: {status}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The share of the map a log line ("…: 0.6234 of the map known") gives.
fn share_in(line: &str) -> f64 {
    let (before, _) = line.split_once(" of the map known").unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

/// The share of the map the server says it starts knowing (stdout, in per cent).
fn starts_knowing(server: &Server) -> f64 {
    let line = server.wait_for(
        false,
        "the empty map: learnt from the camera, ",
        Duration::from_secs(5),
    );
    let rest = line.split_once("camera, ").unwrap().1;
    rest.split_once(" %").unwrap().0.parse::<f64>().unwrap() / 100.0
}

/// The key `aide serve` keeps the demo's reference under with `lens`.
fn key(lens: &Intrinsics) -> ReferenceKey {
    ReferenceKey::new(&demo(), Some(*lens), ReferenceKey::live())
}

#[test]
fn the_learnt_map_and_a_piece_held_by_hand_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (frames, lens) = frames(dir.path());
    let camera = camera_file(dir.path(), "camera.json", &lens);
    let journal = dir.path().join("game.sqlite");
    let kept = PathBuf::from(format!("{}.map-reference.png", journal.display()));
    let placed = (6.6, 14.2, 175.0);

    // First run: a fresh game learns the map at its first settled table.
    let server = Server::start(&frames, &camera, &journal);
    assert_eq!(starts_knowing(&server), 0.0, "nothing known at first");
    let line = server.wait_for(
        true,
        "the learnt map reference is kept in",
        Duration::from_secs(120),
    );
    let learnt = share_in(&line);
    assert!(
        learnt > 0.5,
        "the bare map of a settled table is learnt: {learnt:.4} of the map known"
    );
    assert!(server.table().iter().all(|p| p.0 != MISSED));
    let answer: serde_json::Value = reqwest::blocking::Client::new()
        .post(format!("http://{}/api/place", server.addr))
        .json(&serde_json::json!({"unit": MISSED, "x_in": placed.0, "y_in": placed.1, "heading_deg": placed.2}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(answer["event"], "placed", "{answer}");
    // The journal took the correction before the answer.
    assert!(server.logged("placed"), "placed not journaled");
    let err = server.stop();
    // What the feed knew when it stopped: the last share it kept.
    let before = err
        .iter()
        .rev()
        .find(|l| l.contains("the learnt map reference is kept in"))
        .map(|l| share_in(l))
        .unwrap();
    assert!(kept.exists(), "{} written", kept.display());
    let on_disk = KeptReference::beside(&journal, key(&lens))
        .read()
        .unwrap()
        .unwrap()
        .known_share();
    // The mask is stored losslessly (alpha); the logs print 4 decimals.
    assert!(
        (on_disk - before).abs() < 5e-5,
        "{on_disk} on disk, {before} logged"
    );

    // Second run, same journal, same camera: the learnt map is used from the start, and
    // the piece placed by hand stands where it was put.
    let server = Server::start(&frames, &camera, &journal);
    let line = server.wait_for(true, "the learnt map reference", Duration::from_secs(5));
    assert!(line.contains("is used"), "{line}");
    let after = share_in(&line);
    assert!(
        (after - before).abs() < 5e-5,
        "known before the restart {before:.4}, after {after:.4}"
    );
    assert!((starts_knowing(&server) - before).abs() < 5e-4);
    let held = |table: &[(String, f64, f64, f64)]| {
        table
            .iter()
            .find(|p| p.0 == MISSED)
            .map(|p| (p.1, p.2, p.3))
    };
    assert_eq!(held(&server.table()), Some(placed), "the first table");
    // And still on the camera's first settled table of this run.
    let table = server.settled();
    assert_eq!(held(&table), Some(placed), "held on a settled table");
    assert_eq!(table.len(), 30);
    server.wait_for(
        false,
        "from the journal: 0 veto(es) in force, 1 piece(s) held by hand",
        Duration::from_secs(5),
    );
    server.stop_with("-TERM");
    let log = common::stored_events(&journal);
    let kinds: Vec<(&str, &str)> = log.iter().map(|e| (e.kind(), e.unit())).collect();
    // The camera missing the block, the person placing it; the restart adds nothing.
    assert_eq!(kinds, [("removed", MISSED), ("placed", MISSED)]);
}

#[test]
fn a_kept_reference_of_another_map_size_or_camera_or_unreadable_is_passed_over_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (frames, lens) = frames(dir.path());
    let camera = camera_file(dir.path(), "camera.json", &lens);
    let other_lens = Intrinsics {
        fx: lens.fx * 1.2,
        fy: lens.fy * 1.2,
        ..lens
    };
    let other_camera = camera_file(dir.path(), "other-camera.json", &other_lens);
    // A reference knowing the map's left half, kept for `key`, beside `journal`.
    let keep = |journal: &Path, key: ReferenceKey| {
        let (w, h) = aide::vision::reference::plane_size(key.map_w_in, key.map_h_in);
        let half = image::RgbaImage::from_fn(w, h, |x, _| {
            image::Rgba([120, 130, 110, if x < w / 2 { 255 } else { 0 }])
        });
        let reference = MapReference::from_rgba(&half);
        let mut kept = KeptReference::beside(journal, key);
        kept.learnt(&reference);
        kept.stop(&reference);
        PathBuf::from(format!("{}.map-reference.png", journal.display()))
    };

    // Kept for this camera: used (the control: the same file is read when it fits).
    let journal = dir.path().join("fits.sqlite");
    keep(&journal, key(&lens));
    let server = Server::start(&frames, &camera, &journal);
    assert_eq!(starts_knowing(&server), 0.5);
    server.stop();

    // Another camera file, another map size: learnt afresh.
    let bigger = ReferenceKey {
        map_w_in: 48.0,
        ..key(&lens)
    };
    for (name, kept_for, camera, reason) in [
        (
            "camera.sqlite",
            key(&lens),
            &other_camera,
            "does not fit this table: it was learnt through another camera",
        ),
        (
            "size.sqlite",
            bigger,
            &camera,
            "does not fit this table: it was learnt on a 48 x 24 in map, this map is 36 x 24 in",
        ),
    ] {
        let journal = dir.path().join(name);
        let file = keep(&journal, kept_for);
        let server = Server::start(&frames, camera, &journal);
        let warning = server.wait_for(
            true,
            "the learnt map reference is not used",
            Duration::from_secs(5),
        );
        for words in [&file.display().to_string(), reason] {
            assert!(warning.contains(words), "{warning:?} lacks {words:?}");
        }
        assert_eq!(starts_knowing(&server), 0.0, "{name}: learnt afresh");
        server.stop();
    }

    // A file cut short (a disk that filled up): still served.
    let journal = dir.path().join("cut.sqlite");
    let file = keep(&journal, key(&lens));
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let server = Server::start(&frames, &camera, &journal);
    let warning = server.wait_for(
        true,
        "the learnt map reference is not used",
        Duration::from_secs(5),
    );
    let words = format!("{} cannot be read", file.display());
    assert!(warning.contains(&words), "{warning:?} lacks {words:?}");
    assert_eq!(starts_knowing(&server), 0.0, "learnt afresh");
    assert_eq!(
        server.settled().len(),
        29,
        "it watches the table all the same"
    );
    server.stop();
}

/// A 2xx answer to a person's correction means the journal holds it: the server killed
/// at once after the answer (SIGKILL, as a power cut or the OOM killer; no shutdown
/// runs) loses neither a veto nor a piece placed by hand. Each is made on a fresh run
/// of the same journal and the server is killed the moment the answer is read; the
/// journal file is then read as `aide log` reads it.
#[test]
fn a_veto_and_a_placed_piece_answered_survive_a_kill() {
    use aide::track::Event;

    let dir = tempfile::tempdir().unwrap();
    let (frames, lens) = frames(dir.path());
    let camera = camera_file(dir.path(), "camera.json", &lens);
    let journal = dir.path().join("game.sqlite");
    let placed = (6.6, 14.2, 175.0);
    // Both runs are checked before the test fails, so one run says which was lost.
    let mut lost = Vec::new();

    // First run: veto a red block where it stands, then kill.
    let server = Server::start(&frames, &camera, &journal);
    let (vetoed, vx, vy, _) = server
        .table()
        .into_iter()
        .find(|p| p.0.starts_with("red-"))
        .unwrap();
    let (status, answer) = server.post("/api/veto", serde_json::json!({"x_in": vx, "y_in": vy}));
    server.kill();
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["event"], "vetoed", "{answer}");
    let log = common::stored_events(&journal);
    match log.iter().find(|e| e.kind() == "vetoed") {
        Some(Event::Vetoed { unit, pose, by, .. }) => {
            assert_eq!(unit, &vetoed);
            assert_eq!((pose.x_in, pose.y_in), (vx, vy), "vetoed where it stood");
            assert_eq!(by, "umpire", "an open table's phones are the umpire's");
        }
        _ => lost.push(format!(
            "the veto answered 200 is not in the journal: {log:?}"
        )),
    }

    // Second run, same journal: once the camera has settled the table (without the
    // block it misses), place that block, then kill.
    let server = Server::start(&frames, &camera, &journal);
    assert!(server.settled().iter().all(|p| p.0 != MISSED));
    let (status, answer) = server.post(
        "/api/place",
        serde_json::json!({"unit": MISSED, "x_in": placed.0, "y_in": placed.1, "heading_deg": placed.2}),
    );
    server.kill();
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["event"], "placed", "{answer}");
    let log = common::stored_events(&journal);
    match log.iter().find(|e| e.kind() == "placed") {
        Some(Event::Placed { unit, pose, by, .. }) => {
            assert_eq!(unit, MISSED);
            assert_eq!(
                (pose.x_in, pose.y_in, pose.heading_deg),
                placed,
                "placed where asked"
            );
            assert_eq!(by, "umpire");
        }
        _ => lost.push(format!(
            "the piece placed with a 200 is not in the journal: {log:?}"
        )),
    }
    assert!(lost.is_empty(), "{lost:#?}");
}
