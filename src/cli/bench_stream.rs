//! `aide bench stream`: a phone's MJPEG stream on loopback through the live pipeline
//! (decode, detector, tracker), and how old each frame is when its detection reaches the
//! tracker. Run it under `taskset -c 0` for the one-core figure.

use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use aide::capture::FrameSource;
use aide::capture::mjpeg::MjpegStream;
use aide::capture::serve_mjpeg::{Clip, MjpegServer};
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
    let mut frames: Vec<Vec<u8>> = Vec::with_capacity(total);
    let mut last = None;
    for _ in 0..total {
        let image = camera.next_frame()?.image;
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
    let mean_kb = frames.iter().map(Vec::len).sum::<usize>() as f64 / total as f64 / 1024.0;

    let clip = Arc::new(Clip::new(frames, args.fps));
    let server = MjpegServer::start("127.0.0.1:0".parse()?, clip.clone())?;
    let url = server.url();
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
            open: Box::new(move || {
                Ok(Box::new(MjpegStream::open(&opener_url)?) as Box<dyn FrameSource>)
            }),
            observer: Box::new(TableObserver::new(
                &scenario,
                Some(lens),
                ColourModel::builtin(),
            )),
            tracker,
            opened: opened_tx,
            ages: ages.clone(),
        }),
        publisher,
    )?;
    opened_rx.recv().context("the feed thread stopped")??;
    std::thread::sleep(Duration::from_secs(1));
    ages.clear();
    let sent_before = server.sent();
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(args.seconds));
    let elapsed = started.elapsed().as_secs_f64();
    let sent = server.sent() - sent_before;
    let read = ages.len();
    drop(rx);
    let _ = feed.join();
    let ms = |q| ages.quantile(q).map_or("-".into(), |v| v.to_string());
    println!(
        "{w}x{h} MJPEG at {} fps ({mean_kb:.0} KiB a frame) over {elapsed:.1} s: {sent} frames \
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
