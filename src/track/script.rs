//! Scripted play: a game of moves made by hand, as the detector would report it frame
//! by frame. The ground truth for the tracker's tests and for `aide bench track`.
//!
//! Each step is a [`Step::Still`] stretch (the players think; the detector sees the same
//! table with its noise and an occasional missed piece) or a [`Step::Hand`] (a hand comes
//! in, lifts one or more pieces, carries them through the air, puts them down and
//! leaves). While the hand is over the table the frames say so (`disturbance`), pieces
//! under the arm are missed, and a carried piece is seen where it is in the air. The
//! first and last frames of a hand are below the disturbance threshold, as a hand
//! entering or leaving the view is, so the tracker must cope with a piece seen moving on
//! a frame that looks undisturbed.

use rand::rngs::ChaCha20Rng;
use rand::{Rng, RngExt, SeedableRng};
use rand_distr::{Distribution, Normal};

use super::tracker::{Observation, Sighting};
use crate::geom::edge_distance;
use crate::journal::Millis;
use crate::scenario::Scenario;
use crate::table::{Placement, Pose, Status, TableState};

/// How the simulated detector and the players behave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptConfig {
    pub fps: f64,
    /// Standard deviation of a detected centre, per axis, in inches.
    pub noise_in: f64,
    pub noise_deg: f64,
    /// Chance that the detector misses a piece in one frame.
    pub dropout: f64,
    /// How long a hand stays over the table for one move.
    pub hand_ms: Millis,
    /// Covered fraction of the map while a hand is in view.
    pub hand_disturbance: f64,
    /// Chance that a piece is hidden under the arm in a hand frame.
    pub hidden_under_arm: f64,
}

impl Default for ScriptConfig {
    /// 10 frames a second; 0.02 in and half a degree of noise, 1 frame in 100 missing a
    /// piece: worse than the detector's measured figures, so passing here has margin.
    fn default() -> Self {
        Self {
            fps: 10.0,
            noise_in: 0.02,
            noise_deg: 0.5,
            dropout: 0.01,
            hand_ms: 1500,
            hand_disturbance: 0.08,
            hidden_under_arm: 0.2,
        }
    }
}

/// One thing the players do.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Nobody touches the table for this long.
    Still { ms: Millis },
    /// A hand makes these changes, then leaves.
    Hand(Vec<Change>),
}

/// One piece changed by a hand.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Put at a pose and status (a move, a flip, or both).
    Place {
        unit: String,
        pose: Pose,
        status: Status,
    },
    /// Taken off the table.
    Remove { unit: String },
    /// Put on the table from the box.
    Add {
        unit: String,
        pose: Pose,
        status: Status,
    },
}

/// A played script: every frame, and the true table after each step.
#[derive(Debug, Clone)]
pub struct Played {
    pub frames: Vec<Observation>,
    /// The true table after each step, with the time that step ended.
    pub truth: Vec<(Millis, TableState)>,
}

/// Play `steps` from `start` as detector frames.
pub fn play(
    scenario: &Scenario,
    start: &TableState,
    steps: &[Step],
    config: &ScriptConfig,
    seed: u64,
) -> Played {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let frame_ms = (1000.0 / config.fps).round() as Millis;
    let mut table = start.clone();
    let mut ts: Millis = 0;
    let mut frames = Vec::new();
    let mut truth = Vec::new();
    for step in steps {
        match step {
            Step::Still { ms } => {
                let end = ts + ms;
                while ts < end {
                    frames.push(still_frame(scenario, &table, ts, config, &mut rng));
                    ts += frame_ms;
                }
            }
            Step::Hand(changes) => {
                let after = apply(scenario, &table, changes);
                let n = (config.hand_ms / frame_ms).max(3);
                for k in 0..n {
                    // Along the way from where the pieces were to where they end up.
                    let t = (k as f64 + 0.5) / n as f64;
                    let edge = k == 0 || k == n - 1;
                    frames.push(hand_frame(
                        scenario, &table, &after, t, edge, ts, config, &mut rng,
                    ));
                    ts += frame_ms;
                }
                table = after;
            }
        }
        truth.push((ts, table.clone()));
    }
    Played { frames, truth }
}

fn apply(scenario: &Scenario, table: &TableState, changes: &[Change]) -> TableState {
    let mut placements = crate::journal::placements(table).pieces;
    for change in changes {
        match change {
            Change::Place { unit, pose, status } | Change::Add { unit, pose, status } => {
                placements.retain(|p| &p.id != unit);
                placements.push(Placement {
                    id: unit.clone(),
                    x_in: pose.x_in,
                    y_in: pose.y_in,
                    heading_deg: pose.heading_deg,
                    status: *status,
                });
            }
            Change::Remove { unit } => placements.retain(|p| &p.id != unit),
        }
    }
    scenario
        .table(&placements)
        .expect("a script names units of its scenario")
}

fn sighting(
    scenario: &Scenario,
    piece: &crate::table::Piece,
    pose: Pose,
    config: &ScriptConfig,
    rng: &mut impl Rng,
) -> Sighting {
    let along = Normal::new(0.0, config.noise_in).expect("a finite deviation");
    let turn = Normal::new(0.0, config.noise_deg).expect("a finite deviation");
    Sighting {
        shape: scenario
            .model
            .shape(piece.kind)
            .map(|s| s.name.clone())
            .unwrap_or_default(),
        colour: piece.side.clone(),
        pose: Pose::new(
            pose.x_in + along.sample(rng),
            pose.y_in + along.sample(rng),
            pose.heading_deg + turn.sample(rng),
        ),
        status: piece.status,
    }
}

fn still_frame(
    scenario: &Scenario,
    table: &TableState,
    ts_ms: Millis,
    config: &ScriptConfig,
    rng: &mut impl Rng,
) -> Observation {
    let mut sightings = Vec::with_capacity(table.pieces.len());
    for piece in &table.pieces {
        if !rng.random_bool(config.dropout) {
            sightings.push(sighting(scenario, piece, piece.pose, config, rng));
        }
    }
    Observation {
        ts_ms,
        sightings,
        disturbance: 0.0,
    }
}

/// A frame while a hand carries pieces from `before` to `after`, `t` of the way.
#[allow(clippy::too_many_arguments)]
fn hand_frame(
    scenario: &Scenario,
    before: &TableState,
    after: &TableState,
    t: f64,
    edge: bool,
    ts_ms: Millis,
    config: &ScriptConfig,
    rng: &mut impl Rng,
) -> Observation {
    let mut sightings = Vec::new();
    for was in &before.pieces {
        let now = after.piece(&was.id);
        let carried = now.is_none_or(|now| now.pose != was.pose || now.status != was.status);
        if !edge && rng.random_bool(config.hidden_under_arm) {
            continue;
        }
        match (carried, now) {
            (false, _) => sightings.push(sighting(scenario, was, was.pose, config, rng)),
            (true, Some(now)) => {
                let pose = Pose::new(
                    was.pose.x_in + t * (now.pose.x_in - was.pose.x_in),
                    was.pose.y_in + t * (now.pose.y_in - was.pose.y_in),
                    was.pose.heading_deg
                        + t * signed_turn(was.pose.heading_deg, now.pose.heading_deg),
                );
                let shown = if t < 0.5 { was } else { now };
                sightings.push(sighting(scenario, shown, pose, config, rng));
            }
            // Lifted off the table: seen in the hand for the first half.
            (true, None) if t < 0.5 => {
                sightings.push(sighting(scenario, was, was.pose, config, rng));
            }
            (true, None) => {}
        }
    }
    // Pieces brought onto the table appear in the second half.
    for now in after
        .pieces
        .iter()
        .filter(|p| before.piece(&p.id).is_none())
    {
        if t >= 0.5 {
            sightings.push(sighting(scenario, now, now.pose, config, rng));
        }
    }
    Observation {
        ts_ms,
        sightings,
        disturbance: if edge {
            config.hand_disturbance / 10.0
        } else {
            config.hand_disturbance
        },
    }
}

fn signed_turn(from_deg: f64, to_deg: f64) -> f64 {
    (to_deg - from_deg + 180.0).rem_euclid(360.0) - 180.0
}

/// A random game: `moves` hands, each moving one piece (one in five moves two), with
/// still stretches of 2 to 6 s between. Moves go 0.3 to 6 in in any direction with a
/// turn of up to 60 degrees; one move in eight also flips the piece, one in forty takes
/// it off the table. Every end pose keeps 0.1 in clear of every other piece and inside
/// the map.
pub fn random_game(scenario: &Scenario, start: &TableState, moves: usize, seed: u64) -> Vec<Step> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut table = start.clone();
    let mut steps = vec![Step::Still { ms: 3000 }];
    for _ in 0..moves {
        let count = if rng.random_bool(0.2) { 2 } else { 1 };
        let mut changes = Vec::new();
        for _ in 0..count {
            let current = apply(scenario, &table, &changes);
            if let Some(change) = random_change(scenario, &current, &changes, &mut rng) {
                changes.push(change);
            }
        }
        if changes.is_empty() {
            continue;
        }
        table = apply(scenario, &table, &changes);
        steps.push(Step::Hand(changes));
        steps.push(Step::Still {
            ms: rng.random_range(2000..6000),
        });
    }
    steps
}

fn random_change(
    scenario: &Scenario,
    table: &TableState,
    already: &[Change],
    rng: &mut impl Rng,
) -> Option<Change> {
    let touched = |id: &str| {
        already.iter().any(|c| match c {
            Change::Place { unit, .. } | Change::Remove { unit } | Change::Add { unit, .. } => {
                unit == id
            }
        })
    };
    for _ in 0..50 {
        let piece = &table.pieces[rng.random_range(0..table.pieces.len())];
        if touched(&piece.id) {
            continue;
        }
        if rng.random_bool(1.0 / 40.0) {
            return Some(Change::Remove {
                unit: piece.id.clone(),
            });
        }
        let distance = rng.random_range(0.3..6.0);
        let direction = rng.random_range(0.0..std::f64::consts::TAU);
        let pose = Pose::new(
            piece.pose.x_in + distance * direction.cos(),
            piece.pose.y_in + distance * direction.sin(),
            piece.pose.heading_deg + rng.random_range(-60.0..60.0),
        );
        let status = if rng.random_bool(1.0 / 8.0) {
            match piece.status {
                Status::Fresh => Status::Spent,
                Status::Spent => Status::Fresh,
            }
        } else {
            piece.status
        };
        let unit = scenario.unit(&piece.id)?;
        let footprint = scenario.footprint(unit, pose, status);
        let inside = footprint.corners().iter().all(|c| {
            (0.0..=scenario.map.width_in).contains(&c.x)
                && (0.0..=scenario.map.height_in).contains(&c.y)
        });
        let polygon = footprint.polygon();
        let clear = table
            .pieces
            .iter()
            .filter(|p| p.id != piece.id)
            .all(|p| edge_distance(&p.footprint.polygon(), &polygon) > 0.1);
        if inside && clear {
            return Some(Change::Place {
                unit: piece.id.clone(),
                pose,
                status,
            });
        }
    }
    None
}

/// How well the tracker followed a played script.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Score {
    pub frames: usize,
    /// Pieces on the true table at the end, and how many of them the tracker has under
    /// the right unit id within a quarter inch of the right place.
    pub pieces: usize,
    pub identity_kept: usize,
    /// Events between the true tables (moved, flipped, removed, added, by unit).
    pub expected_events: usize,
    pub found: usize,
    pub missed: usize,
    /// Events the tracker reported that did not happen.
    pub false_events: usize,
    /// Stable states that changed the table (what a journal would store).
    pub stored_states: usize,
}

/// Run the tracker over a played script and compare with the truth. Events are compared
/// as (kind, unit) over the whole game: each stable state is derived the way the
/// journal's recorder does it, against the last state that changed something.
pub fn score(
    scenario: &std::sync::Arc<Scenario>,
    played: &Played,
    config: super::TrackerConfig,
) -> Score {
    use std::collections::HashMap;

    let deriver = super::EventDeriver::new(scenario);
    let key = |e: &super::Event| (e.kind(), e.unit().to_owned());
    let mut expected: HashMap<(&str, String), usize> = HashMap::new();
    for pair in played.truth.windows(2) {
        for e in deriver.events(scenario, &pair[0].1, &pair[1].1, false) {
            *expected.entry(key(&e)).or_default() += 1;
        }
    }
    let mut tracker = super::Tracker::new(scenario.clone(), config);
    let mut last: Option<TableState> = None;
    let mut observed: HashMap<(&str, String), usize> = HashMap::new();
    let mut stored_states = 0;
    for frame in &played.frames {
        let Some(table) = tracker.push(frame) else {
            continue;
        };
        let events = match &last {
            None => Vec::new(),
            Some(before) => deriver.events(scenario, before, &table, false),
        };
        if last.is_none() || !events.is_empty() {
            stored_states += 1;
            last = Some(table);
        }
        for e in events {
            *observed.entry(key(&e)).or_default() += 1;
        }
    }
    let expected_events: usize = expected.values().sum();
    let found: usize = expected
        .iter()
        .map(|(k, n)| (*n).min(observed.get(k).copied().unwrap_or(0)))
        .sum();
    let observed_events: usize = observed.values().sum();
    let truth = &played.truth.last().expect("a script has steps").1;
    let identity_kept = match tracker.stable() {
        None => 0,
        Some(seen) => truth
            .pieces
            .iter()
            .filter(|p| {
                seen.piece(&p.id).is_some_and(|s| {
                    (s.pose.x_in - p.pose.x_in).hypot(s.pose.y_in - p.pose.y_in) <= 0.25
                })
            })
            .count(),
    };
    Score {
        frames: played.frames.len(),
        pieces: truth.pieces.len(),
        identity_kept,
        expected_events,
        found,
        missed: expected_events - found,
        false_events: observed_events - found,
        stored_states,
    }
}
