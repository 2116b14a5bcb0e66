//! Network cameras on loopback: an MJPEG server (as a phone webcam app serves) and an
//! RTSP server of H.264 (as an IP camera serves) stream frames, the stream sources read
//! them, drops are reconnected, and a slow reader gets the newest frame rather than a
//! queue. The last tests play a whole scripted game of rendered frames through each
//! server, the detector, the tracker and a SQLite journal, with the stream killed
//! mid-game.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use aide::capture::loopback::Clip;
use aide::capture::mjpeg::MjpegStream;
use aide::capture::rtsp::RtspStream;
use aide::capture::serve_mjpeg::MjpegServer;
use aide::capture::serve_rtsp::RtspServer;
use aide::capture::{CaptureError, Frame, FrameSource};
use image::{Rgb, RgbImage};

fn jpeg(image: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92)
        .encode_image(image)
        .unwrap();
    out
}

/// How a camera serves its frames.
#[derive(Debug, Clone, Copy)]
enum Protocol {
    Mjpeg,
    Rtsp,
}

/// A camera serving a clip on loopback.
enum Phone {
    Mjpeg(MjpegServer),
    Rtsp(RtspServer),
}

/// A stream source reading a phone.
enum Stream {
    Mjpeg(MjpegStream),
    Rtsp(RtspStream),
}

impl Protocol {
    /// `frames` at `fps` as the camera encodes them: JPEG each (a still frame repeated is
    /// encoded once), or H.264 with a key picture every second.
    fn clip(self, frames: &[RgbImage], fps: f64) -> Arc<Clip> {
        Arc::new(match self {
            Self::Mjpeg => {
                let mut out: Vec<Vec<u8>> = Vec::new();
                for (i, image) in frames.iter().enumerate() {
                    let bytes = match i.checked_sub(1).map(|p| &frames[p]) {
                        Some(prev) if prev == image => out.last().unwrap().clone(),
                        _ => jpeg(image),
                    };
                    out.push(bytes);
                }
                Clip::new(out, fps)
            }
            Self::Rtsp => Clip::h264(frames, fps, fps.round() as u32).unwrap(),
        })
    }

    fn serve(self, addr: SocketAddr, clip: Arc<Clip>) -> Phone {
        match self {
            Self::Mjpeg => Phone::Mjpeg(MjpegServer::start(addr, clip).unwrap()),
            Self::Rtsp => Phone::Rtsp(RtspServer::start(addr, clip).unwrap()),
        }
    }

    fn open(self, url: &str) -> Result<Stream, CaptureError> {
        Ok(match self {
            Self::Mjpeg => Stream::Mjpeg(MjpegStream::open(url)?),
            Self::Rtsp => Stream::Rtsp(RtspStream::open(url)?),
        })
    }

    /// How the source names itself for the stream at `addr`.
    fn describe(self, addr: SocketAddr) -> String {
        match self {
            Self::Mjpeg => format!("MJPEG stream http://{addr}/video"),
            Self::Rtsp => format!("RTSP stream rtsp://{addr}/video"),
        }
    }
}

impl Phone {
    fn addr(&self) -> SocketAddr {
        match self {
            Self::Mjpeg(p) => p.addr(),
            Self::Rtsp(p) => p.addr(),
        }
    }

    fn url(&self) -> String {
        match self {
            Self::Mjpeg(p) => p.url(),
            Self::Rtsp(p) => p.url(),
        }
    }

    fn stop(self) {
        match self {
            Self::Mjpeg(p) => p.stop(),
            Self::Rtsp(p) => p.stop(),
        }
    }
}

impl Stream {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        match self {
            Self::Mjpeg(s) => s.next_frame(),
            Self::Rtsp(s) => s.next_frame(),
        }
    }

    fn dropped(&self) -> u64 {
        match self {
            Self::Mjpeg(s) => s.dropped(),
            Self::Rtsp(s) => s.dropped(),
        }
    }

    fn boxed(self) -> Box<dyn FrameSource> {
        match self {
            Self::Mjpeg(s) => Box::new(s),
            Self::Rtsp(s) => Box::new(s),
        }
    }
}

/// `n` flat grey 64x48 frames, frame i at grey level 2i: its number survives both codecs.
fn numbered_clip(protocol: Protocol, n: usize, fps: f64) -> Arc<Clip> {
    let frames: Vec<RgbImage> = (0..n)
        .map(|i| RgbImage::from_pixel(64, 48, Rgb([2 * i as u8; 3])))
        .collect();
    protocol.clip(&frames, fps)
}

fn number(frame: &aide::capture::Frame) -> usize {
    (f64::from(frame.image.get_pixel(32, 24)[0]) / 2.0).round() as usize
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

#[test]
fn a_slow_mjpeg_reader_gets_the_newest_frame_never_a_queue() {
    a_slow_reader_gets_the_newest_frame_never_a_queue(Protocol::Mjpeg);
}

#[test]
fn a_slow_rtsp_reader_gets_the_newest_frame_never_a_queue() {
    a_slow_reader_gets_the_newest_frame_never_a_queue(Protocol::Rtsp);
}

fn a_slow_reader_gets_the_newest_frame_never_a_queue(protocol: Protocol) {
    let clip = numbered_clip(protocol, 120, 30.0);
    let server = protocol.serve(loopback(), clip.clone());
    let mut stream = protocol.open(&server.url()).unwrap();
    // A detector that takes 150 ms a frame, 4.5 frame intervals: a queue would fall
    // 3.5 frames further behind with each frame read.
    let mut behind = Vec::new();
    for _ in 0..12 {
        std::thread::sleep(Duration::from_millis(150));
        let frame = stream.next_frame().unwrap();
        behind.push(clip.now_showing() as i64 - number(&frame) as i64);
        let age = aide::journal::now_ms() - frame.ts_ms;
        assert!(age < 60, "a frame {age} ms old");
    }
    // The frame read is the one showing, or the one before it still on its way.
    assert!(behind.iter().all(|b| (0..=2).contains(b)), "{behind:?}");
    assert!(
        stream.dropped() >= 30,
        "{} frames skipped",
        stream.dropped()
    );
}

#[test]
fn a_dropped_mjpeg_stream_is_lost_then_read_again_within_2_s_of_the_server_returning() {
    a_dropped_stream_is_lost_then_read_again_within_2_s_of_the_server_returning(Protocol::Mjpeg);
}

#[test]
fn a_dropped_rtsp_stream_is_lost_then_read_again_within_2_s_of_the_server_returning() {
    a_dropped_stream_is_lost_then_read_again_within_2_s_of_the_server_returning(Protocol::Rtsp);
}

fn a_dropped_stream_is_lost_then_read_again_within_2_s_of_the_server_returning(protocol: Protocol) {
    let clip = numbered_clip(protocol, 100, 20.0);
    let server = protocol.serve(loopback(), clip.clone());
    let addr = server.addr();
    let url = server.url();
    let mut stream = protocol.open(&url).unwrap();
    for _ in 0..3 {
        stream.next_frame().unwrap();
    }
    server.stop();
    // Lost, saying why, within the stall time.
    let dropped = Instant::now();
    let why = loop {
        match stream.next_frame() {
            Ok(_) => assert!(dropped.elapsed() < Duration::from_millis(500)),
            Err(CaptureError::Lost(why)) => break why,
            Err(e) => panic!("{e}"),
        }
    };
    assert!(why.starts_with(&format!("{url}: ")), "{why}");
    assert!(dropped.elapsed() < Duration::from_secs(3));
    // Down for 1.5 s: the back-off has grown to its most by then.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(matches!(stream.next_frame(), Err(CaptureError::Lost(_))));
    let server = protocol.serve(addr, clip.clone());
    let back = Instant::now();
    let frame = loop {
        match stream.next_frame() {
            Ok(frame) => break frame,
            Err(CaptureError::Lost(_)) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("{e}"),
        }
    };
    let took = back.elapsed();
    assert!(took < Duration::from_secs(2), "back after {took:?}");
    // The clip played on meanwhile: the frame is the one showing now.
    assert!(clip.now_showing() - number(&frame) <= 2);
    drop(server);
}

#[test]
fn a_wrong_address_or_a_server_with_no_stream_is_refused_with_a_reason() {
    // Nothing listens on a port just freed.
    let free = std::net::TcpListener::bind(loopback())
        .unwrap()
        .local_addr()
        .unwrap();
    let err = MjpegStream::open(&format!("http://{free}/video"))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .starts_with(&format!("http://{free}/video: ")),
        "{err}"
    );
    let err = MjpegStream::open("rtsp://camera/stream").err().unwrap();
    assert!(err.to_string().contains("only http://"), "{err}");
    let err = RtspStream::open(&format!("rtsp://{free}/video"))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .starts_with(&format!("rtsp://{free}/video: ")),
        "{err}"
    );
    // A web server that answers with a page, not a stream.
    let listener = std::net::TcpListener::bind(loopback()).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut socket, _) = listener.accept().unwrap();
        let mut buf = [0u8; 1024];
        let _ = socket.read(&mut buf).unwrap();
        socket
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi")
            .unwrap();
    });
    let err = MjpegStream::open(&format!("http://{addr}/")).err().unwrap();
    assert!(
        err.to_string()
            .contains("not an MJPEG stream (Content-Type \"text/html\")"),
        "{err}"
    );
}

/// A game filmed by a phone: the scripted demo game rendered at 1280x720, streamed as
/// MJPEG at 10 frames a second, watched by the real server through the detector and the
/// tracker into a SQLite journal. The phone's stream is killed for a second mid-game:
/// the page says "lost", then "camera" again within 2 s of the stream's return, and the
/// journal ends holding exactly the script's events, those committed before the drop
/// among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_streamed_as_mjpeg_is_logged_move_by_move_through_a_dropped_stream() {
    a_game_streamed_by_a_phone_is_logged_move_by_move_through_a_dropped_stream(Protocol::Mjpeg)
        .await;
}

/// The same game from an IP camera: H.264 over RTSP, a key picture a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_streamed_as_rtsp_is_logged_move_by_move_through_a_dropped_stream() {
    a_game_streamed_by_a_phone_is_logged_move_by_move_through_a_dropped_stream(Protocol::Rtsp)
        .await;
}

async fn a_game_streamed_by_a_phone_is_logged_move_by_move_through_a_dropped_stream(
    protocol: Protocol,
) {
    use aide::journal::Recorder;
    use aide::live::{CameraFeed, FrameAges};
    use aide::track::{Tracker, TrackerConfig};
    use aide::vision::{ColourModel, TableObserver};
    use aide::web::feed::{Publisher, Source};
    use aide::web::{AppState, Setup, demo};
    use serde_json::Value;

    const FPS: f64 = 10.0;
    // Each table: a hand in view for 0.3 s, then still for 3 s.
    const REACH: u32 = 3;
    const HOLD: u32 = 30;
    let scenario = demo::scenario().unwrap();
    let tables: Vec<_> = demo::tables(&scenario).unwrap()[..4].to_vec();
    let (camera, lens) = common::demo_camera(&scenario, &tables, 1000.0);
    let mut camera = camera.with_timing(REACH, HOLD);
    let frames: Vec<RgbImage> = (0..tables.len() as u32 * (REACH + HOLD))
        .map(|_| camera.next_frame().unwrap().image)
        .collect();
    let clip = protocol.clip(&frames, FPS);
    let phone = protocol.serve(loopback(), clip.clone());
    let phone_addr = phone.addr();
    let url = phone.url();

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let shared = Arc::new(scenario.clone());
    let recorder = Recorder::open(&db, shared.clone()).unwrap();
    let (publisher, rx) = Publisher::new(tables[0].clone(), Source::Replay);
    let (opened_tx, opened_rx) = std::sync::mpsc::channel();
    let tracker = Arc::new(std::sync::Mutex::new(Tracker::resume(
        shared.clone(),
        TrackerConfig::default(),
        tables[0].clone(),
    )));
    let state = AppState::new(
        Setup {
            scenario: scenario.clone(),
            map_svg: None,
            terrain_geojson: String::new(),
            recorder: Some(recorder),
            identify: None,
            url: "http://127.0.0.1/".into(),
            camera: None,
        },
        rx,
    )
    .unwrap();
    let ages = Arc::new(FrameAges::default());
    aide::web::feed::spawn(
        Box::new(CameraFeed {
            open: Box::new(move || Ok(protocol.open(&url)?.boxed())),
            observer: Box::new(TableObserver::new(
                &scenario,
                Some(lens),
                ColourModel::builtin(),
            )),
            tracker,
            opened: opened_tx,
            ages: ages.clone(),
            tap: Arc::default(),
        }),
        publisher,
    )
    .unwrap();
    let watching = opened_rx.recv().unwrap().unwrap();
    assert_eq!(watching, protocol.describe(phone_addr));
    let listener = tokio::net::TcpListener::bind(loopback()).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(aide::web::serve(listener, state));
    let http = reqwest::Client::new();
    let get_state = || {
        let request = http.get(format!("http://{addr}/api/state")).send();
        async move { request.await.unwrap().json::<Value>().await.unwrap() }
    };
    let source = |state: &Value| state["status"]["source"].as_str().unwrap().to_owned();
    let stored = || common::stored_events(&db);
    let expected = common::script_events(&scenario, &tables);
    let keys = common::keys;

    // The drop: late in table 2's stillness, after its move is committed.
    let table_s = f64::from(REACH + HOLD) / FPS;
    let drop_at = clip.ends_at() - Duration::from_secs_f64(table_s * 1.5);
    tokio::time::sleep_until(drop_at.into()).await;
    assert_eq!(source(&get_state().await), "camera");
    let before = stored();
    assert!(!before.is_empty(), "no move committed before the drop");
    phone.stop();
    let mut lost = false;
    for _ in 0..50 {
        if source(&get_state().await) == "lost" {
            lost = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(lost, "the page never said the camera was lost");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let phone = protocol.serve(phone_addr, clip.clone());
    let back = Instant::now();
    while source(&get_state().await) != "camera" {
        assert!(
            back.elapsed() < Duration::from_secs(2),
            "still lost after 2 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let back_after = back.elapsed();

    // The rest of the game, and the last table's settling.
    tokio::time::sleep_until((clip.ends_at() + Duration::from_secs(2)).into()).await;
    let after = stored();
    assert_eq!(keys(&after[..before.len()]), keys(&before));
    common::assert_same_events(&after, &expected, "");
    eprintln!(
        "back {back_after:?} after the stream returned; frame age p50 {:?} p95 {:?} ms over {} frames",
        ages.quantile(0.5),
        ages.quantile(0.95),
        ages.len()
    );
    drop(phone);
}
