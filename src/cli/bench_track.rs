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
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "games": args.games, "hands_per_game": args.hands,
                "noise_in": args.noise_in, "dropout": args.dropout, "still_in": tracking.still_in,
                "random_games": games, "still_table": still,
                "still_minutes": args.still_minutes,
                "tracker_ms_per_frame": push_ms,
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
    Ok(())
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
