//! `aide bench stream`: a phone's MJPEG stream (or with `--rtsp`, an IP camera's H.264
//! over RTSP) on loopback through the live pipeline (decode, detector, tracker), and how
//! old each frame is when its detection reaches the tracker. Run it under `taskset -c 0`
//! for the one-core figure.

use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use aide::capture::h264;
use aide::capture::loopback::Clip;
use aide::capture::mjpeg::MjpegStream;
use aide::capture::rtsp::RtspStream;
use aide::capture::serve_mjpeg::MjpegServer;
use aide::capture::serve_rtsp::RtspServer;
use aide::capture::{CaptureError, FrameSource};
use aide::live::{CameraFeed, FrameAges};
use aide::sim::{self, ScriptedCamera};
use aide::track::{Tracker, TrackerConfig};
use aide::vision::{ColourModel, TableObserver};
use aide::web::{demo, feed};
use anyhow::Context;

#[derive(clap::Args)]
pub struct Args {
    /// The stream's resolution, WxH.
    #[arg(long, default_value = "1920x1080", value_parser = super::serve::parse_size)]
    pub size: (u32, u32),
    /// Frames a second the stream sends.
    #[arg(long, default_value_t = 30.0)]
    pub fps: f64,
    /// How long to measure, after a second of warm-up.
    #[arg(long, default_value_t = 20.0)]
    pub seconds: f64,
    /// JPEG quality of the stream (phone apps send 50 to 90).
    #[arg(long, default_value_t = 80)]
    pub quality: u8,
    /// Stream H.264 over RTSP instead, a key picture every second (QP 8 to 12).
    #[arg(long)]
    pub rtsp: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.fps > 0.0 && args.seconds > 0.0,
        "--fps and --seconds must be positive"
    );
    let scenario = demo::scenario().context("loading the built-in demo")?;
    let tables = demo::tables(&scenario).context("the demo's script")?;
    let (w, h) = args.size;
    let base = sim::random_scene(2, 36.0, 24.0, w, h);
    let lens = base.pinhole().intrinsics;
    // The demo game filmed: each change a hand for a second, then still for two.
    let reach = args.fps.round() as u32;
    let hold = (2.0 * args.fps).round() as u32;
    let total = ((args.seconds + 1.0) * args.fps).ceil() as usize;
    let mut camera = ScriptedCamera::new(
        scenario.clone(),
        tables.clone(),
        base.clone(),
        sim::scenario_map(&scenario, base.seed)?,
        1e6,
    )
    .with_timing(reach, hold);
    eprintln!("rendering and encoding {total} frames at {w}x{h}");
    // Encoded as rendered: 20 s of 1080p held as pictures would take gigabytes.
    let (clip, codec) = if args.rtsp {
        let mut encoder =
            h264::Encoder::new(args.fps, args.fps.round() as u32).map_err(anyhow::Error::msg)?;
        let mut units = Vec::with_capacity(total);
        for i in 0..total {
            if i + 1 == total {
                encoder.force_key();
            }
            let image = camera.next_frame()?.image;
            units.push(encoder.encode(&image).map_err(anyhow::Error::msg)?);
        }
        (Clip::from_units(units, args.fps), "H.264 over RTSP")
    } else {
        let mut frames: Vec<Vec<u8>> = Vec::with_capacity(total);
        let mut last = None;
        for _ in 0..total {
            let image = camera.next_frame()?.image;
            // Still frames repeat: encode each picture once.
            let bytes = match &last {
                Some(prev) if *prev == image => frames.last().expect("a frame before").clone(),
                _ => {
                    let mut out = Vec::new();
                    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, args.quality)
                        .encode_image(&image)?;
                    out
                }
            };
            frames.push(bytes);
            last = Some(image);
        }
        (Clip::new(frames, args.fps), "MJPEG")
    };
    let mean_kb =
        (0..clip.len()).map(|i| clip.frame(i).len()).sum::<usize>() as f64 / total as f64 / 1024.0;

    let clip = Arc::new(clip);
    let addr = "127.0.0.1:0".parse()?;
    let (server, url): (Box<dyn Fn() -> u64>, String) = if args.rtsp {
        let server = RtspServer::start(addr, clip.clone())?;
        let url = server.url();
        (Box::new(move || server.sent()), url)
    } else {
        let server = MjpegServer::start(addr, clip.clone())?;
        let url = server.url();
        (Box::new(move || server.sent()), url)
    };
    let rtsp = args.rtsp;
    let shared = Arc::new(scenario.clone());
    let tracker = Arc::new(Mutex::new(Tracker::resume(
        shared,
        TrackerConfig::default(),
        tables[0].clone(),
    )));
    let ages = Arc::new(FrameAges::default());
    let (publisher, rx) = feed::Publisher::new(tables[0].clone(), feed::Source::Replay);
    let (opened_tx, opened_rx) = mpsc::channel();
    let opener_url = url.clone();
    let feed = feed::spawn(
        Box::new(CameraFeed {
            open: Box::new(move || -> Result<Box<dyn FrameSource>, CaptureError> {
                Ok(if rtsp {
                    Box::new(RtspStream::open(&opener_url)?)
                } else {
                    Box::new(MjpegStream::open(&opener_url)?)
                })
            }),
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
    )?;
    opened_rx.recv().context("the feed thread stopped")??;
    std::thread::sleep(Duration::from_secs(1));
    ages.clear();
    let sent_before = server();
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(args.seconds));
    let elapsed = started.elapsed().as_secs_f64();
    let sent = server() - sent_before;
    let read = ages.len();
    drop(rx);
    let _ = feed.join();
    let ms = |q| ages.quantile(q).map_or("-".into(), |v| v.to_string());
    println!(
        "{w}x{h} {codec} at {} fps ({mean_kb:.0} KiB a frame) over {elapsed:.1} s: {sent} frames \
         sent, {read} read ({:.1} a second), the rest skipped",
        args.fps,
        read as f64 / elapsed
    );
    println!(
        "frame age when its detection reached the tracker: p50 {} ms, p95 {} ms, max {} ms",
        ms(0.5),
        ms(0.95),
        ms(1.0)
    );
    Ok(())
}
