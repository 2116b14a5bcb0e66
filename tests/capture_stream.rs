//! Network cameras on loopback: an MJPEG server (as a phone webcam app serves) streams
//! frames, the stream source reads them, drops are reconnected, and a slow reader gets
//! the newest frame rather than a queue. The last test plays a whole scripted game of
//! rendered frames through the server, the detector, the tracker and a SQLite journal,
//! with the stream killed mid-game.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use aide::capture::mjpeg::MjpegStream;
use aide::capture::serve_mjpeg::{Clip, MjpegServer};
use aide::capture::{CaptureError, FrameSource};
use image::{Rgb, RgbImage};

fn jpeg(image: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92)
        .encode_image(image)
        .unwrap();
    out
}

/// `n` flat grey 64x48 frames, frame i at grey level 2i: its number survives JPEG.
fn numbered_clip(n: usize, fps: f64) -> Arc<Clip> {
    let frames = (0..n)
        .map(|i| jpeg(&RgbImage::from_pixel(64, 48, Rgb([2 * i as u8; 3]))))
        .collect();
    Arc::new(Clip::new(frames, fps))
}

fn number(frame: &aide::capture::Frame) -> usize {
    (f64::from(frame.image.get_pixel(32, 24)[0]) / 2.0).round() as usize
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

#[test]
fn a_slow_reader_gets_the_newest_frame_never_a_queue() {
    let clip = numbered_clip(120, 30.0);
    let server = MjpegServer::start(loopback(), clip.clone()).unwrap();
    let mut stream = MjpegStream::open(&server.url()).unwrap();
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
fn a_dropped_stream_is_lost_then_read_again_within_2_s_of_the_server_returning() {
    let clip = numbered_clip(100, 20.0);
    let server = MjpegServer::start(loopback(), clip.clone()).unwrap();
    let addr = server.addr();
    let mut stream = MjpegStream::open(&server.url()).unwrap();
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
    assert!(why.starts_with(&format!("http://{addr}/video: ")), "{why}");
    assert!(dropped.elapsed() < Duration::from_secs(3));
    // Down for 1.5 s: the back-off has grown to its most by then.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(matches!(stream.next_frame(), Err(CaptureError::Lost(_))));
    let server = MjpegServer::start(addr, clip.clone()).unwrap();
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
