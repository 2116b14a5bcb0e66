//! `aide bench track`: the tracker on scripted games, against their ground truth.
//!
//! Plays random games on a scenario (every hand a move, a flip, a removal; noise and
//! missed pieces on every frame; hands that hide pieces and carry them through the
//! air) and a long still table, and reports what the issue asks: identity kept, events
//! found and missed, false moves, and the tracker's time per frame.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use aide::scenario::Scenario;
use aide::track::script::{self, Score, ScriptConfig, Step};
use aide::track::{Tracker, TrackerConfig};

#[derive(clap::Args)]
pub struct Args {
    /// Scenario whose setup the games start from.
    #[arg(long, default_value = "scenarios/demo/valley.toml")]
    pub scenario: PathBuf,
    /// How many random games.
    #[arg(long, default_value_t = 20)]
    pub games: u64,
    /// Hands per game.
    #[arg(long, default_value_t = 40)]
    pub hands: usize,
    /// Minutes of still table (nobody touches anything).
    #[arg(long, default_value_t = 10)]
    pub still_minutes: i64,
    /// Standard deviation of a detected centre, per axis, in inches.
    #[arg(long, default_value_t = 0.02)]
    pub noise_in: f64,
    /// Chance that the detector misses a piece in one frame.
    #[arg(long, default_value_t = 0.01)]
    pub dropout: f64,
    /// Also this many minutes of the still setup seen through the whole camera pipeline:
    /// rendered frames with fresh sensor noise, light flicker and JPEG each frame, the
    /// detector, the tracker and a SQLite journal (about 20 s of CPU per minute at 720p).
    #[arg(long, default_value_t = 0)]
    pub rendered_still_minutes: u64,
    /// Frames per second of the rendered still table.
    #[arg(long, default_value_t = 5)]
    pub rendered_fps: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let scenario = Arc::new(Scenario::load(&args.scenario)?);
    let setup = scenario.setup_table();
    let config = ScriptConfig {
        noise_in: args.noise_in,
        dropout: args.dropout,
        ..ScriptConfig::default()
    };
    let tracking = TrackerConfig::for_noise(args.noise_in);
    let mut games = Score::default();
    for seed in 0..args.games {
        let steps = script::random_game(&scenario, &setup, args.hands, seed);
        let played = script::play(&scenario, &setup, &steps, &config, 1000 + seed);
        games = add(games, script::score(&scenario, &played, tracking));
    }
    let still_steps = [Step::Still {
        ms: args.still_minutes * 60_000,
    }];
    let played = script::play(&scenario, &setup, &still_steps, &config, 7);
    let still = script::score(&scenario, &played, tracking);
    // The tracker alone on the still table, every piece in every frame: its worst case.
    let started = Instant::now();
    let mut tracker = Tracker::new(scenario.clone(), tracking);
    for frame in &played.frames {
        tracker.push(frame);
    }
    let push_ms = 1000.0 * started.elapsed().as_secs_f64() / played.frames.len().max(1) as f64;
    let rendered = (args.rendered_still_minutes > 0)
        .then(|| rendered_still(args.rendered_still_minutes, args.rendered_fps))
        .transpose()?;
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "games": args.games, "hands_per_game": args.hands,
                "noise_in": args.noise_in, "dropout": args.dropout, "still_in": tracking.still_in,
                "random_games": games, "still_table": still,
                "still_minutes": args.still_minutes,
                "tracker_ms_per_frame": push_ms,
                "rendered_still": rendered,
            })
        );
        return Ok(());
    }
    println!(
        "{} random games of {} hands on {} ({} frames at 10 fps; noise {} in, {}% missed; still within {:.2} in)",
        args.games,
        args.hands,
        scenario.name,
        games.frames,
        args.noise_in,
        100.0 * args.dropout,
        tracking.still_in
    );
    println!(
        "  identity kept at the end: {} of {} pieces ({:.1}%)",
        games.identity_kept,
        games.pieces,
        100.0 * games.identity_kept as f64 / games.pieces.max(1) as f64
    );
    println!(
        "  events: {} expected, {} found, {} missed, {} false",
        games.expected_events, games.found, games.missed, games.false_events
    );
    println!(
        "still table, {} minutes ({} frames): {} false events, {} states stored (the setup)",
        args.still_minutes, still.frames, still.false_events, still.stored_states
    );
    println!(
        "tracker time per frame: {push_ms:.3} ms with {} pieces in view",
        setup.pieces.len()
    );
    if let Some(r) = rendered {
        println!(
            "rendered still table, {} minutes ({} frames of {}x{} at {} fps, sensor noise {:.1} levels, flicker ±2%, JPEG {}): \
             {} false events, {} states stored, {} frames unread, {} of {} units within {} in of the truth at the end",
            r.minutes,
            r.frames,
            r.width,
            r.height,
            r.fps,
            r.noise_levels,
            r.jpeg_quality,
            r.false_events,
            r.stored_states,
            r.unread_frames,
            r.units_in_place,
            r.units,
            IN_PLACE_IN
        );
    }
    Ok(())
}

/// A unit counts as kept when its committed centre is this close to where it stands.
const IN_PLACE_IN: f64 = 0.1;

/// What the whole camera pipeline made of a still table.
#[derive(serde::Serialize)]
struct RenderedStill {
    minutes: u64,
    fps: u64,
    frames: u64,
    width: u32,
    height: u32,
    noise_levels: f64,
    jpeg_quality: u8,
    /// Frames the detector could not read at all (tags not found).
    unread_frames: u64,
    /// States the journal stored (1: the first view).
    stored_states: usize,
    /// Events in the journal: every one is false, since nothing moved.
    false_events: usize,
    units: usize,
    /// Units the last stable state puts within [`IN_PLACE_IN`] of their true place.
    units_in_place: usize,
}

/// The demo's opening table, still, seen through the whole pipeline for `minutes`: the
/// demo's synthetic camera (720p, 2 to 3 ft up, tilted), each frame a new exposure. (The
/// demo's table, not the scenario's setup: the setup stands blocks on the corner cards.)
fn rendered_still(minutes: u64, fps: u64) -> anyhow::Result<RenderedStill> {
    use aide::capture::Frame;
    use aide::journal::{Journal, Recorder};
    use aide::live::Observer;
    use aide::sim;
    use aide::vision::{ColourModel, TableObserver};

    let scenario = Arc::new(aide::web::demo::scenario()?);
    let setup = aide::web::demo::tables(&scenario)?.swap_remove(0);
    let (w, h) = (scenario.map.width_in, scenario.map.height_in);
    let base = sim::random_scene(2, w, h, 1280, 720);
    let mut clean_scene = sim::scene_from_table(&scenario, &setup, &base);
    clean_scene.noise = 0.0;
    clean_scene.jpeg_quality = 100;
    let map = sim::scenario_map(&scenario, base.seed)?;
    let clean = sim::render_on(&clean_scene, &scenario.model, &map);
    let mut observer = TableObserver::new(
        &scenario,
        Some(base.pinhole().intrinsics),
        ColourModel::builtin(),
    );
    // As `aide serve` runs the demo: the tracker carries on from the known opening table.
    let mut tracker = Tracker::resume(scenario.clone(), TrackerConfig::default(), setup.clone());
    let db = std::env::temp_dir().join(format!("aide-bench-still-{}.sqlite", std::process::id()));
    let mut recorder = Recorder::open(&db, scenario.clone())?;
    recorder.observe(&setup, 0)?;
    let frames = minutes * 60 * fps;
    let (mut unread, mut last) = (0, None);
    for k in 0..frames {
        let image = sim::exposure(&clean, base.noise, 0.02, base.jpeg_quality, k);
        let frame = Frame {
            image,
            ts_ms: (k * 1000 / fps) as i64,
            index: k,
        };
        let Ok(observation) = observer.observe(&frame) else {
            unread += 1;
            continue;
        };
        if let Some(table) = tracker.push(&observation) {
            recorder.observe(&table, frame.ts_ms)?;
            last = Some(table);
        }
    }
    drop(recorder);
    let journal = Journal::open_existing(&db)?;
    let (stored_states, false_events) =
        (journal.states()?.len(), journal.events_after(None)?.len());
    drop(journal);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let units_in_place = last.map_or(0, |table| {
        setup
            .pieces
            .iter()
            .filter(|truth| {
                table.piece(&truth.id).is_some_and(|seen| {
                    (seen.pose.x_in - truth.pose.x_in).hypot(seen.pose.y_in - truth.pose.y_in)
                        <= IN_PLACE_IN
                })
            })
            .count()
    });
    Ok(RenderedStill {
        minutes,
        fps,
        frames,
        width: base.width,
        height: base.height,
        noise_levels: base.noise,
        jpeg_quality: base.jpeg_quality,
        unread_frames: unread,
        stored_states,
        false_events,
        units: setup.pieces.len(),
        units_in_place,
    })
}

fn add(a: Score, b: Score) -> Score {
    Score {
        frames: a.frames + b.frames,
        pieces: a.pieces + b.pieces,
        identity_kept: a.identity_kept + b.identity_kept,
        expected_events: a.expected_events + b.expected_events,
        found: a.found + b.found,
        missed: a.missed + b.missed,
        false_events: a.false_events + b.false_events,
        stored_states: a.stored_states + b.stored_states,
    }
}
