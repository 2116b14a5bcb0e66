//! `aide serve`: the live table server and the phone page.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use aide::capture::replay::ReplayFolder;
use aide::capture::video::Pace;
use aide::capture::{CameraOptions, CameraSpec, FrameSource, WebcamMode};
use aide::journal::Recorder;
use aide::live::{CameraFeed, CameraTap, Namer, Opener, resume_tracker};
use aide::scenario::{Scenario, load_state};
use aide::sim::{self, ScriptedCamera};
use aide::table::TableState;
use aide::track::TrackerConfig;
use aide::vision::{
    ColourModel, Intrinsics, KeptReference, MapReference, ReferenceKey, TableObserver,
};
use aide::web::{self, AppState, Seating, Setup, demo, feed, qr};
use anyhow::Context;

/// Serve the table to phones on the LAN: the built-in demo by default (a synthetic camera
/// over a short scripted game, read by the detector and the tracker), a scenario watched
/// through a webcam, a network camera or a folder of frames, or a scenario and a state file.
#[derive(clap::Args)]
pub struct Args {
    /// Scenario file (TOML); without it the built-in demo plays a short game.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Table state: served as it is, or where a watched game carries on from (a
    /// `--journal` that holds the game carries on from its own last state).
    #[arg(long, requires = "scenario")]
    pub state: Option<PathBuf>,
    /// Watch a folder of frames (PNG or JPEG, in name order, looped) through the detector.
    #[arg(long, requires = "scenario")]
    pub frames: Option<PathBuf>,
    /// Frames per second to read --frames at.
    #[arg(long, default_value_t = 5.0)]
    pub fps: f64,
    /// Watch a camera through the detector: webcam N (cargo feature `camera`), a phone
    /// or IP camera's MJPEG stream (http://PHONE:8080/video) or H.264 stream
    /// (rtsp://[USER:PASSWORD@]CAMERA:554/PATH), or a recorded game (an H.264 .mp4 file).
    #[arg(long, requires = "scenario", conflicts_with = "frames")]
    pub camera: Option<CameraSpec>,
    /// The webcam's resolution, WxH in pixels (the nearest it offers).
    #[arg(long, default_value = "1920x1080", value_parser = parse_size)]
    pub camera_size: (u32, u32),
    /// The webcam's frame rate (the nearest it offers).
    #[arg(long, default_value_t = 30)]
    pub camera_fps: u32,
    /// A video file's pace: as it was filmed, or every picture as fast as the detector
    /// reads them.
    #[arg(long, value_enum, default_value_t = Pace::Recorded)]
    pub video_pace: Pace,
    /// The camera's lens: {"fx","fy","cx","cy","dist":[k1,k2,p1,p2,k3]} (OpenCV's convention).
    #[arg(long)]
    pub camera_file: Option<PathBuf>,
    /// The empty map, so its ink (a blue river, red roofs) is not taken for pieces:
    /// `map` for the scenario's own map image, a photo of the empty table made with
    /// `aide calibrate map`, `live` to learn it from the camera alone, or `none`. A photo
    /// and `live` are kept up to date wherever the table settles with no piece near.
    /// The demo uses its map image; a scenario, `live`.
    #[arg(long, value_name = "map|FILE|live|none")]
    pub reference: Option<String>,
    /// The demo's table from frames of a synthetic camera read by the detector
    /// (`rendered`: the whole pipeline), or straight from its scripted states (`states`).
    #[arg(long, value_enum, default_value_t = DemoSource::Rendered)]
    pub demo_source: DemoSource,
    /// Address and port to listen on; port 0 picks a free one.
    #[arg(long, default_value = "0.0.0.0:8080")]
    pub bind: SocketAddr,
    /// Keep the turn log (states, rolls, chit draws) in this SQLite journal.
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Demo replay speed in table states per second (`--demo-source states`); 0 holds
    /// the first state (either demo source).
    #[arg(long, default_value_t = 0.5)]
    pub replay_rate: f64,
    /// No seats: every phone sees everything and may act for every side (solo play).
    /// The built-in demo is an open table unless `--seats` is given.
    #[arg(long, conflicts_with = "seats")]
    pub open_table: bool,
    /// Seat the built-in demo's phones as a real game is seated (a scenario always is,
    /// unless `--open-table`).
    #[arg(long)]
    pub seats: bool,
    /// Show spectators the table as it was this many seconds ago (a streamed game: the
    /// stream must not tell a side what the other just did). Seats are never delayed.
    #[arg(long, value_name = "SECS", default_value_t = 0.0)]
    pub spectator_delay: f64,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DemoSource {
    Rendered,
    States,
}

/// The empty map named by `--reference`: `map`, the scenario's map image; else a file
/// (`live` and `none` are taken care of before).
fn empty_map(scenario: &Scenario, reference: &str) -> anyhow::Result<MapReference> {
    let (w, h) = (scenario.map.width_in, scenario.map.height_in);
    let path = match reference {
        "map" => scenario.map_image_path().with_context(|| {
            format!(
                "--reference map: the scenario {} names no map image ([map] image)",
                scenario.name
            )
        })?,
        file => PathBuf::from(file),
    };
    Ok(MapReference::from_file(&path, w, h)?)
}

/// Where the served table comes from.
enum Source {
    /// Fixed tables replayed at `--replay-rate`.
    States(Vec<TableState>),
    /// Frames through the detector and the tracker, starting from a known table or not.
    Frames {
        open: Opener,
        intrinsics: Option<Intrinsics>,
        start: Option<TableState>,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.replay_rate.is_finite() && args.replay_rate >= 0.0,
        "--replay-rate must be a number of states per second, 0 or more"
    );
    let intrinsics = args
        .camera_file
        .as_deref()
        .map(super::read_camera_file)
        .transpose()?;
    let (scenario, source, map_svg, terrain) = match &args.scenario {
        Some(path) => {
            let scenario = Scenario::load(path)?;
            let table = args
                .state
                .as_deref()
                .map(|state| load_state(&scenario, state))
                .transpose()?;
            let map_svg = match scenario.map_image_path() {
                Some(p) if p.extension().is_some_and(|e| e == "svg") => Some(
                    std::fs::read_to_string(&p)
                        .with_context(|| format!("reading the map image {}", p.display()))?,
                ),
                _ => None,
            };
            let terrain = match &scenario.map.terrain {
                Some(rel) => {
                    let p = path.parent().unwrap_or(std::path::Path::new(".")).join(rel);
                    std::fs::read_to_string(&p)
                        .with_context(|| format!("reading the terrain {}", p.display()))?
                }
                None => String::new(),
            };
            let source = watched(&args, intrinsics, table.clone())?;
            let source = match (source, table) {
                (Some(source), _) => source,
                (None, Some(table)) => Source::States(vec![table]),
                (None, None) => anyhow::bail!(
                    "--scenario needs a table: --state FILE, --frames DIR or --camera N|URL"
                ),
            };
            (scenario, source, map_svg, terrain)
        }
        None => {
            let scenario = demo::scenario().context("loading the built-in demo")?;
            let tables = demo::tables(&scenario).context("the built-in demo's script")?;
            let source = match args.demo_source {
                DemoSource::States => Source::States(tables),
                DemoSource::Rendered => {
                    // A camera 2 ft 3 in to 3 ft up, a little off-centre, at 720p.
                    let base = sim::random_scene(2, 36.0, 24.0, 1280, 720);
                    let lens = base.pinhole().intrinsics;
                    let start = tables[0].clone();
                    let tables = if args.replay_rate == 0.0 {
                        vec![start.clone()]
                    } else {
                        tables
                    };
                    let camera_scenario = scenario.clone();
                    let fps = args.fps;
                    // The camera films the demo's printed map, the one the page draws.
                    let map = sim::scenario_map(&scenario, base.seed)
                        .context("the built-in demo's map image")?;
                    Source::Frames {
                        open: Box::new(move || {
                            Ok(Box::new(ScriptedCamera::new(
                                camera_scenario,
                                tables,
                                base,
                                map,
                                fps,
                            )) as Box<dyn FrameSource>)
                        }),
                        intrinsics: Some(lens),
                        start: Some(start),
                    }
                }
            };
            (
                scenario,
                source,
                Some(demo::MAP_SVG.to_owned()),
                demo::TERRAIN_GEOJSON.to_owned(),
            )
        }
    };
    let mut recorder = match &args.journal {
        Some(path) => Some(
            Recorder::open(path, Arc::new(scenario.clone()))
                .with_context(|| format!("opening the journal {}", path.display()))?,
        ),
        None => None,
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(args.bind))
        .with_context(|| format!("binding {}", args.bind))?;
    let bound = listener.local_addr()?;
    let url = qr::lan_url(bound);

    let feed_scenario = Arc::new(scenario.clone());
    // Pieces can be named on the page only when a tracker is naming them. A watched
    // table carries on where the journal left it, with the vetoes in force and the
    // pieces held by hand.
    let (tracker, first) = match &source {
        Source::States(tables) => (None, tables[0].clone()),
        Source::Frames { start, .. } => {
            let (tracker, start, restored) = resume_tracker(
                &feed_scenario,
                TrackerConfig::default(),
                start.clone(),
                recorder.as_mut(),
            )
            .context("reading the journal")?;
            if restored.vetoes + restored.held > 0 {
                println!(
                    "from the journal: {} veto(es) in force, {} piece(s) held by hand",
                    restored.vetoes, restored.held
                );
            }
            if restored.unreadable > 0 {
                tracing::warn!(
                    "{} correction(s) in the journal could not be rebuilt (a veto of a detection with no unit, journaled before vetoes named its shape; or a unit the scenario no longer has)",
                    restored.unreadable
                );
            }
            (
                Some(Arc::new(Mutex::new(tracker))),
                start.unwrap_or_default(),
            )
        }
    };
    let (publisher, rx) = feed::Publisher::new(first, feed::Source::Replay);
    // The page's camera check reads what the feed last saw.
    let tap = match &source {
        Source::States(_) => None,
        Source::Frames { intrinsics, .. } => Some(Arc::new(CameraTap::new(*intrinsics))),
    };
    let namer = tracker.clone().map(|tracker| {
        Arc::new(Namer {
            tracker,
            publisher: publisher.clone(),
        }) as Arc<dyn feed::Identify>
    });
    // A game hides each side's pieces from the other; the demo is a show for one person
    // at a laptop, open unless asked.
    let seating = if args.open_table || (args.scenario.is_none() && !args.seats) {
        Seating::Open
    } else {
        Seating::Seated
    };
    anyhow::ensure!(
        args.spectator_delay.is_finite() && (0.0..=3600.0).contains(&args.spectator_delay),
        "--spectator-delay must be a number of seconds from 0 to 3600"
    );
    anyhow::ensure!(
        args.spectator_delay == 0.0 || seating == Seating::Seated,
        "--spectator-delay needs seats: every phone of an open table sees everything, at once \
         (drop --open-table; the built-in demo needs --seats)"
    );
    let state = AppState::with_spectator_delay(
        Setup {
            scenario,
            map_svg,
            terrain_geojson: terrain,
            recorder,
            identify: namer,
            url: url.clone(),
            camera: tap.clone(),
        },
        seating,
        std::time::Duration::from_secs_f64(args.spectator_delay),
        rx,
    )?;
    let feed_thread = match source {
        Source::States(tables) => feed::spawn(
            Box::new(feed::Replay {
                tables,
                rate: args.replay_rate,
            }),
            publisher,
        )
        .context("starting the feed thread")?,
        Source::Frames {
            open, intrinsics, ..
        } => {
            let mut observer =
                TableObserver::new(&feed_scenario, intrinsics, ColourModel::builtin());
            let reference = match args.reference.as_deref() {
                None if args.scenario.is_none() => "map",
                None => "live",
                Some(chosen) => chosen,
            };
            observer = match reference {
                "none" => observer,
                "live" => observer.learning_the_map(),
                file => observer.with_reference(empty_map(&feed_scenario, file)?),
            };
            // What the feed learns of the map is kept beside the journal.
            if let Some(journal) = &args.journal {
                let start = match reference {
                    "none" | "map" => None,
                    "live" => Some(ReferenceKey::live()),
                    file => Some(
                        ReferenceKey::photo(std::path::Path::new(file))
                            .with_context(|| format!("reading {file}"))?,
                    ),
                };
                if let Some(start) = start {
                    let key = ReferenceKey::new(&feed_scenario, intrinsics, start);
                    let kept = KeptReference::beside(journal, key);
                    let path = kept.path().display().to_string();
                    observer = observer.keeping_the_reference(kept);
                    if let Some(known) = observer
                        .reference()
                        .filter(|r| r.learns())
                        .map(MapReference::known_share)
                    {
                        println!(
                            "the empty map: learnt from the camera, {:.1} % known so far (kept in {path})",
                            100.0 * known
                        );
                    }
                }
            }
            let tracker = tracker.expect("made for every watched source");
            let (opened_tx, opened_rx) = mpsc::channel();
            let thread = feed::spawn(
                Box::new(CameraFeed {
                    open,
                    observer: Box::new(observer),
                    tracker,
                    opened: opened_tx,
                    ages: Arc::default(),
                    tap: tap.clone().expect("made for every watched source"),
                }),
                publisher,
            )
            .context("starting the feed thread")?;
            let watching = opened_rx
                .recv()
                .context("the feed thread stopped before opening its source")??;
            println!("watching {watching}");
            thread
        }
    };

    match seating {
        Seating::Open => {
            println!("{}", qr::terminal(&url));
            println!("an open table: every phone sees everything (no seats)");
        }
        Seating::Seated => {
            // One code per seat: a phone joins a seat by scanning its code.
            for (_, label, seat_url) in web::seat_urls(&state) {
                println!("{label}: {seat_url}");
                println!("{}", qr::terminal(&seat_url));
            }
        }
    }
    if !state.spectator_delay.is_zero() {
        println!(
            "spectators see the table {} s behind",
            state.spectator_delay.as_secs_f64()
        );
    }
    println!("aide-de-camp serving {} on {url}", state.scenario.name);
    println!("listening on {bound}");
    let served = runtime.block_on(async move {
        tokio::select! {
            served = web::serve(listener, state) => served.context("serving"),
            _ = stop_requested() => Ok(()),
        }
    });
    // The server's tasks gone, the feed sees it has no one to feed and stops, writing
    // what it learnt of the map (see `Observer::stopped`): wait for it a little.
    runtime.shutdown_timeout(Duration::from_secs(2));
    let waiting = Instant::now();
    while !feed_thread.is_finished() && waiting.elapsed() < FEED_STOPS_WITHIN {
        std::thread::sleep(Duration::from_millis(20));
    }
    served
}

/// Ctrl-C, or on Unix SIGTERM (what `systemctl stop`, `docker stop` and `kill` send):
/// either stops the server the same way, so that the feed writes what it learnt of the
/// map before the process ends.
async fn stop_requested() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
                return;
            }
            Err(e) => tracing::warn!("SIGTERM will not stop the server cleanly: {e}"),
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// How long a stopping server waits for the feed thread: a frame read, a detection, and
/// the learnt map reference written (tens of milliseconds) fit many times over.
const FEED_STOPS_WITHIN: Duration = Duration::from_secs(5);

/// A watched source from the arguments: a folder of frames or a camera.
fn watched(
    args: &Args,
    intrinsics: Option<Intrinsics>,
    start: Option<TableState>,
) -> anyhow::Result<Option<Source>> {
    anyhow::ensure!(
        args.fps.is_finite() && args.fps > 0.0,
        "--fps must be a positive number of frames a second"
    );
    if let Some(folder) = &args.frames {
        let (folder, fps) = (folder.clone(), args.fps);
        return Ok(Some(Source::Frames {
            open: Box::new(move || {
                Ok(Box::new(ReplayFolder::open(&folder, fps, true)?) as Box<dyn FrameSource>)
            }),
            intrinsics,
            start,
        }));
    }
    if let Some(camera) = &args.camera {
        let camera = camera.clone();
        let options = CameraOptions {
            webcam: WebcamMode {
                width: args.camera_size.0,
                height: args.camera_size.1,
                fps: args.camera_fps,
            },
            pace: args.video_pace,
        };
        return Ok(Some(Source::Frames {
            open: Box::new(move || camera.open(options)),
            intrinsics,
            start,
        }));
    }
    Ok(None)
}

/// `1920x1080` -> (1920, 1080).
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{text:?}: write the resolution as WxH in pixels, e.g. 1920x1080");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    Ok((
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    ))
}
