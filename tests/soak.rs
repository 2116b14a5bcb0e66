//! The soak test: the camera pipeline for a long session, as a game night runs it.
//!
//! A synthetic camera films the demo's scripted game at 10 frames a second in real time,
//! forwards through the script and back again, over and over: for each change a hand and
//! forearm reach in over the piece for 0.3 s, then the table stands still for 2 s. Every
//! frame is a new exposure (fresh sensor noise, light flicker, JPEG), as a webcam gives.
//! The frames go through the detector and the tracker into a SQLite journal, on a thread
//! of their own as in `aide serve`; a camera whose frame is not taken in time drops it.
//!
//! It reports what a long session would show first: memory (resident set) at the start,
//! after the first pass through the script and at the end; the journal's events against
//! the script's; and frame age, from the moment the camera hands a frame over to the
//! moment the tracker has taken it and the journal has stored what it committed.
//!
//! Ignored by default (it runs an hour). Run it with
//! `cargo test --release --test soak -- --ignored --nocapture`; `SOAK_SECS` sets the
//! duration (3600 by default), so `SOAK_SECS=60` checks that it works.

mod common;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use aide::capture::Frame;
use aide::journal::{Recorder, now_ms};
use aide::live::Observer;
use aide::scenario::Scenario;
use aide::sim::{self, Hand, Scene};
use aide::table::TableState;
use aide::track::{Event, EventDeriver, Tracker, TrackerConfig};
use aide::vision::{ColourModel, TableObserver};

const FPS: u64 = 10;
/// Frames a hand is in view for each change (0.3 s).
const REACH_FRAMES: u32 = 3;
/// Frames the table then stands still for: 2 s, well past the tracker's 0.7 s settle.
const HOLD_FRAMES: u32 = 20;
/// Light flicker between exposures, as `aide bench track` films its still table.
const FLICKER: f64 = 0.02;

/// Resident set size of this process, in MiB (Linux: VmRSS in /proc/self/status).
fn rss_mib() -> f64 {
    proc_status_kib("VmRSS:") / 1024.0
}

/// The largest resident set so far, in MiB.
fn peak_rss_mib() -> f64 {
    proc_status_kib("VmHWM:") / 1024.0
}

fn proc_status_kib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

/// Which scripted table is shown at step `k`: the demo's tables forwards, then back to
/// the first, so every step changes exactly one piece (the script's own wrap from the
/// last table to the first would move several under one hand).
fn table_at(step: u64, tables: usize) -> usize {
    let period = 2 * (tables as u64 - 1);
    let k = step % period;
    if k < tables as u64 {
        k as usize
    } else {
        (period - k) as usize
    }
}

/// The hand reaching for the piece that changed between `before` and `after`, in from
/// the near edge, as the demo's synthetic camera shows it.
fn hand(scenario: &Scenario, before: &TableState, after: &TableState) -> Hand {
    let changed = after
        .pieces
        .iter()
        .find(|p| before.piece(&p.id).is_none_or(|b| b != *p))
        .expect("every step of the script changes a piece");
    Hand {
        from: [changed.pose.x_in, scenario.map.height_in + 8.0],
        to: [changed.pose.x_in, changed.pose.y_in + 1.2],
        height_in: 4.0,
    }
}

/// A frame and the instant the camera handed it over.
type Delivery = (Frame, Instant);

/// What the camera did, sent back when it stops.
struct Filmed {
    /// The tables shown, in order, each for a whole step (the first is the opening).
    shown: Vec<usize>,
    frames: u64,
    /// Frames the pipeline was not ready for.
    dropped: u64,
}

/// The views the camera films, rendered once before the clock starts (a render takes
/// longer than a frame, and a camera does not stall) and kept as JPEG at quality 95, so
/// the cache is a few MiB rather than 2.6 MiB a view. `still[t]` is table `t`; `reach`
/// holds the hand reaching for the changed piece, by the step's (before, after) tables.
struct Views {
    still: Vec<Vec<u8>>,
    reach: std::collections::HashMap<(usize, usize), Vec<u8>>,
}

impl Views {
    fn render(scenario: &Scenario, tables: &[TableState], base: &Scene) -> Self {
        let clean = |table: &TableState, hand: Option<Hand>| {
            let mut scene = sim::scene_from_table(scenario, table, base);
            scene.noise = 0.0;
            scene.jpeg_quality = 100;
            scene.hand = hand;
            let mut bytes = Vec::new();
            let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 95);
            sim::render_with(&scene, &scenario.model)
                .write_with_encoder(encoder)
                .unwrap();
            bytes
        };
        let period = 2 * (tables.len() as u64 - 1);
        let reach = (1..=period)
            .map(|step| {
                let (from, to) = (
                    table_at(step - 1, tables.len()),
                    table_at(step, tables.len()),
                );
                let hand = hand(scenario, &tables[from], &tables[to]);
                ((from, to), clean(&tables[to], Some(hand)))
            })
            .collect();
        Self {
            still: tables.iter().map(|t| clean(t, None)).collect(),
            reach,
        }
    }

    fn bytes(&self) -> usize {
        self.still
            .iter()
            .chain(self.reach.values())
            .map(Vec::len)
            .sum()
    }
}

fn decode(jpeg: &[u8]) -> image::RgbImage {
    image::load_from_memory_with_format(jpeg, image::ImageFormat::Jpeg)
        .unwrap()
        .into_rgb8()
}

/// Films the script until `until`, then finishes the step it is in (so every table shown
/// stood still for its whole hold) and stops.
fn camera(
    views: &Views,
    tables: usize,
    base: &Scene,
    until: Instant,
    out: SyncSender<Delivery>,
) -> Filmed {
    let interval = Duration::from_secs_f64(1.0 / FPS as f64);
    let mut filmed = Filmed {
        shown: vec![0],
        frames: 0,
        dropped: 0,
    };
    let mut due = Instant::now();
    for step in 0.. {
        let now = table_at(step, tables);
        let mut clips = Vec::new();
        if step > 0 {
            let before = table_at(step - 1, tables);
            clips.push((decode(&views.reach[&(before, now)]), REACH_FRAMES));
            filmed.shown.push(now);
        }
        clips.push((decode(&views.still[now]), HOLD_FRAMES));
        for (view, frames) in &clips {
            for _ in 0..*frames {
                let image =
                    sim::exposure(view, base.noise, FLICKER, base.jpeg_quality, filmed.frames);
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                // A camera that fell behind does not then rush.
                due = due.max(Instant::now()) + interval;
                let frame = Frame {
                    image,
                    ts_ms: now_ms(),
                    index: filmed.frames,
                };
                filmed.frames += 1;
                match out.try_send((frame, Instant::now())) {
                    Ok(()) => {}
                    Err(TrySendError::Full(_)) => filmed.dropped += 1,
                    Err(TrySendError::Disconnected(_)) => return filmed,
                }
            }
        }
        if Instant::now() >= until {
            break;
        }
    }
    filmed
}

/// What the pipeline measured.
struct Piped {
    /// Milliseconds from hand-over to done, frame by frame.
    ages_ms: Vec<f64>,
    /// Frames the detector could not read (tags not found).
    unread: u64,
    rss_after_first_pass_mib: Option<f64>,
    /// At the last frame, before the camera and the pipeline are taken down (their
    /// buffers freed then would hide what the session held).
    rss_last_frame_mib: f64,
}

/// The detector, the tracker and the journal, on the frames until the camera stops.
fn pipeline(
    frames: Receiver<Delivery>,
    mut observer: TableObserver,
    mut tracker: Tracker,
    mut recorder: Recorder,
    first_pass_frames: u64,
    started: Instant,
) -> Piped {
    let mut piped = Piped {
        ages_ms: Vec::new(),
        unread: 0,
        rss_after_first_pass_mib: None,
        rss_last_frame_mib: rss_mib(),
    };
    let mut minute = VecDeque::new();
    let mut next_report = Duration::from_secs(60);
    for (frame, handed) in frames {
        match observer.observe(&frame) {
            Ok(observation) => {
                if let Some(table) = tracker.push(&observation) {
                    recorder.observe(&table, observation.ts_ms).unwrap();
                }
            }
            Err(_) => piped.unread += 1,
        }
        let age = 1000.0 * handed.elapsed().as_secs_f64();
        piped.ages_ms.push(age);
        minute.push_back(age);
        piped.rss_last_frame_mib = rss_mib();
        if frame.index >= first_pass_frames && piped.rss_after_first_pass_mib.is_none() {
            piped.rss_after_first_pass_mib = Some(rss_mib());
        }
        if started.elapsed() >= next_report {
            let ages: Vec<f64> = minute.drain(..).collect();
            println!(
                "soak: {:>4.0} s, frame {:>6}, RSS {:.1} MiB, frame age p50 {:.0} ms p95 {:.0} ms max {:.0} ms",
                started.elapsed().as_secs_f64(),
                frame.index,
                rss_mib(),
                quantile(&ages, 0.5),
                quantile(&ages, 0.95),
                quantile(&ages, 1.0)
            );
            next_report += Duration::from_secs(60);
        }
    }
    piped
}

fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// How many of `expected` and `seen` line up, in order (longest common subsequence).
fn matched(expected: &[(&str, String)], seen: &[(&str, String)]) -> usize {
    let mut row = vec![0usize; seen.len() + 1];
    for e in expected {
        let mut diagonal = 0;
        for (j, s) in seen.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if e == s {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[seen.len()]
}

#[test]
#[ignore = "an hour of the camera pipeline; run with --ignored (SOAK_SECS sets the length)"]
fn an_hour_of_the_scripted_game_through_the_camera_pipeline() {
    let secs: u64 = std::env::var("SOAK_SECS")
        .map(|s| s.parse().expect("SOAK_SECS: whole seconds"))
        .unwrap_or(3600);
    let scenario = Scenario::load(Path::new("scenarios/demo/valley.toml")).unwrap();
    let tables = aide::web::demo::tables(&scenario).unwrap();
    // The demo's synthetic camera: 1280x720, as tests/live.rs films the script.
    let base = sim::random_scene(2, 36.0, 24.0, 1280, 720);
    let observer = TableObserver::new(
        &scenario,
        Some(base.pinhole().intrinsics),
        ColourModel::builtin(),
    );
    let shared = Arc::new(scenario.clone());
    let tracker = Tracker::resume(shared.clone(), TrackerConfig::default(), tables[0].clone());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("soak.db");
    let mut recorder = Recorder::open(&db, shared.clone()).unwrap();
    recorder.observe(&tables[0], now_ms()).unwrap();

    let views = Arc::new(Views::render(&scenario, &tables, &base));
    let rss_start = rss_mib();
    let started = Instant::now();
    let until = started + Duration::from_secs(secs);
    // One frame waits at most: a camera's driver keeps the newest frames, not a backlog.
    let (tx, rx) = sync_channel(1);
    let camera = {
        let (views, count, base) = (views.clone(), tables.len(), base.clone());
        std::thread::spawn(move || camera(&views, count, &base, until, tx))
    };
    // The first pass: the opening table, then there and back through the script.
    let first_pass_frames = u64::from(HOLD_FRAMES)
        + 2 * (tables.len() as u64 - 1) * u64::from(REACH_FRAMES + HOLD_FRAMES);
    let piped = pipeline(rx, observer, tracker, recorder, first_pass_frames, started);
    let filmed = camera.join().unwrap();
    let elapsed = started.elapsed().as_secs_f64();
    let rss_end = piped.rss_last_frame_mib;

    let stored = common::stored_events(&db);
    let deriver = EventDeriver::new(&scenario);
    let expected: Vec<Event> = filmed
        .shown
        .windows(2)
        .flat_map(|w| deriver.events(&scenario, &tables[w[0]], &tables[w[1]], false))
        .collect();
    let (expected_keys, stored_keys) = (common::keys(&expected), common::keys(&stored));
    let matching = matched(&expected_keys, &stored_keys);
    let ages = &piped.ages_ms;
    let tenth = (ages.len() / 10).max(1);

    println!(
        "soak: {elapsed:.0} s, {} frames of {}x{} ({:.1} a second, {FPS} asked: a camera thread kept off the CPU falls behind), {} dropped by the camera, {} unread by the detector, {} scripted changes",
        filmed.frames,
        base.width,
        base.height,
        filmed.frames as f64 / elapsed,
        filmed.dropped,
        piped.unread,
        filmed.shown.len() - 1
    );
    println!(
        "soak: RSS {rss_start:.1} MiB at the start ({:.1} MiB of it the camera's {} views as JPEG), {} after the first pass, {rss_end:.1} MiB at the last frame (peak {:.1} MiB)",
        views.bytes() as f64 / (1024.0 * 1024.0),
        views.still.len() + views.reach.len(),
        piped
            .rss_after_first_pass_mib
            .map_or("- (run too short)".to_owned(), |m| format!("{m:.1} MiB")),
        peak_rss_mib()
    );
    println!(
        "soak: events {} expected, {} stored, {matching} matching in order ({} missed, {} extra)",
        expected.len(),
        stored.len(),
        expected.len() - matching,
        stored.len() - matching
    );
    println!(
        "soak: frame age p50 {:.0} ms, p95 {:.0} ms, p99 {:.0} ms, max {:.0} ms; p95 over the first tenth {:.0} ms, over the last tenth {:.0} ms",
        quantile(ages, 0.5),
        quantile(ages, 0.95),
        quantile(ages, 0.99),
        quantile(ages, 1.0),
        quantile(&ages[..tenth], 0.95),
        quantile(&ages[ages.len() - tenth..], 0.95)
    );

    if stored_keys == expected_keys {
        let worst = stored
            .iter()
            .zip(&expected)
            .filter_map(|pair| match pair {
                (Event::Moved(s), Event::Moved(t)) => Some((s.distance_in - t.distance_in).abs()),
                _ => None,
            })
            .fold(0.0, f64::max);
        println!("soak: the worst move's length off the script's by {worst:.3} in");
        assert!(worst < 0.1, "a move measured {worst:.3} in off");
    }
    assert_eq!(stored_keys, expected_keys, "the journal against the script");
    // Memory: after the first pass every table and hand has been seen; what grows after
    // it grows with the session. The journal's SQLite page cache is bounded by SQLite.
    if let Some(warm) = piped.rss_after_first_pass_mib {
        assert!(
            rss_end - warm < 32.0,
            "RSS grew from {warm:.1} MiB after the first pass to {rss_end:.1} MiB"
        );
    }
    // The pipeline keeps up with the camera: a frame is done well within a second.
    assert!(quantile(ages, 0.95) < 1000.0, "frame age p95");
}
