//! Property test for the tracker: whatever the detector reports, frame after frame, each
//! committed table holds each unit once, and no wooden block is given two names.
//!
//! The frames come from a table of blocks standing apart (at least [`APART_IN`] between
//! centres) that hands change one at a time: a move, a turn, a flip, a block taken off or
//! put on. Hands hide the table (the detector flags them), and the still frames between
//! are as a real detector gives them: noise on every pose, pieces missed, now and then a
//! misread pose well off the block or a misread colour, and frames that come late (a
//! busy laptop, a camera that stalls). Every block then accounts for at most one piece
//! of each commit, and nothing is committed where no block stands.

mod common;

use std::path::Path;
use std::sync::Arc;

use aide::scenario::Scenario;
use aide::table::{Pose, Status, TableState};
use aide::track::{Observation, Sighting, Tracker, TrackerConfig};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Centres of two blocks are never closer than this (a block is 1 in by 0.5 to 0.75 in).
const APART_IN: f64 = 1.6;
/// The farthest a misread pose lands from its block.
const MISREAD_IN: f64 = 0.6;
/// A committed piece belongs to the block within this of its centre.
const BELONGS_IN: f64 = 0.75;

fn demo() -> Arc<Scenario> {
    static DEMO: std::sync::OnceLock<Arc<Scenario>> = std::sync::OnceLock::new();
    DEMO.get_or_init(|| Arc::new(Scenario::load(Path::new("scenarios/demo/valley.toml")).unwrap()))
        .clone()
}

/// A wooden piece on the table: what the detector can tell of it.
#[derive(Debug, Clone)]
struct Block {
    shape: &'static str,
    colour: &'static str,
    pose: Pose,
    status: Status,
}

/// What a hand does.
#[derive(Debug, Clone)]
enum Change {
    /// Block (index modulo the count) to a point (fractions of the map), turned by
    /// degrees, flipped or not.
    Move {
        block: usize,
        to: (f64, f64),
        turn_deg: f64,
        flip: bool,
    },
    Remove {
        block: usize,
    },
    Add {
        shape: &'static str,
        colour: &'static str,
        at: (f64, f64),
        heading_deg: f64,
    },
    /// A hand passes over and nothing changes.
    Nothing,
}

/// How the detector and camera behave during one still stretch.
#[derive(Debug, Clone)]
struct Still {
    frames: usize,
    /// Milliseconds between frames: a steady camera, or one that stalls now and then.
    gaps_ms: Vec<i64>,
    noise_in: f64,
    noise_deg: f64,
    /// Per frame and piece.
    missed: f64,
    misread: f64,
    wrong_colour: f64,
    seed: u64,
}

#[derive(Debug, Clone)]
struct Step {
    change: Change,
    hand_frames: usize,
    still: Still,
}

fn change() -> impl Strategy<Value = Change> {
    let shape = prop::sample::select(vec!["block", "block", "block", "hq"]);
    let colour = prop::sample::select(vec!["red", "blue", "green"]);
    prop_oneof![
        6 => (any::<usize>(), (0.0..1.0f64, 0.0..1.0f64), -180.0..180.0f64, prop::bool::weighted(0.2))
            .prop_map(|(block, to, turn_deg, flip)| Change::Move { block, to, turn_deg, flip }),
        1 => any::<usize>().prop_map(|block| Change::Remove { block }),
        1 => (shape, colour, (0.0..1.0f64, 0.0..1.0f64), 0.0..360.0f64)
            .prop_map(|(shape, colour, at, heading_deg)| Change::Add { shape, colour, at, heading_deg }),
        1 => Just(Change::Nothing),
    ]
}

fn still() -> impl Strategy<Value = Still> {
    let gap = prop_oneof![8 => Just(100i64), 1 => 30..1500i64];
    (1..30usize).prop_flat_map(move |frames| {
        (
            prop::collection::vec(gap.clone(), frames),
            0.0..0.03f64,
            0.0..1.5f64,
            prop_oneof![Just(0.0), 0.0..0.3f64],
            prop_oneof![2 => Just(0.0), 1 => 0.0..0.1f64],
            prop_oneof![2 => Just(0.0), 1 => 0.0..0.05f64],
            any::<u64>(),
        )
            .prop_map(
                move |(gaps_ms, noise_in, noise_deg, missed, misread, wrong_colour, seed)| Still {
                    frames,
                    gaps_ms,
                    noise_in,
                    noise_deg,
                    missed,
                    misread,
                    wrong_colour,
                    seed,
                },
            )
    })
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        (change(), 1..4usize, still()).prop_map(|(change, hand_frames, still)| Step {
            change,
            hand_frames,
            still,
        }),
        1..12,
    )
}

/// A tiny deterministic generator for the per-frame noise (splitmix64), so a failing
/// case replays exactly from its seed.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.next() < p
    }

    /// Uniform in [-r, r].
    fn within(&mut self, r: f64) -> f64 {
        (2.0 * self.next() - 1.0) * r
    }
}

fn free(blocks: &[Block], x: f64, y: f64, except: Option<usize>) -> bool {
    blocks
        .iter()
        .enumerate()
        .all(|(i, b)| Some(i) == except || (b.pose.x_in - x).hypot(b.pose.y_in - y) >= APART_IN)
}

/// Apply a hand's change to the blocks, when it keeps them apart.
fn apply(scenario: &Scenario, blocks: &mut Vec<Block>, change: &Change) {
    let (w, h) = (scenario.map.width_in, scenario.map.height_in);
    match *change {
        Change::Move {
            block,
            to,
            turn_deg,
            flip,
        } if !blocks.is_empty() => {
            let i = block % blocks.len();
            let (x, y) = (to.0 * w, to.1 * h);
            if free(blocks, x, y, Some(i)) {
                let b = &mut blocks[i];
                b.pose = Pose::new(x, y, b.pose.heading_deg + turn_deg);
                if flip {
                    b.status = match b.status {
                        Status::Fresh => Status::Spent,
                        Status::Spent => Status::Fresh,
                    };
                }
            }
        }
        Change::Remove { block } if !blocks.is_empty() => {
            blocks.remove(block % blocks.len());
        }
        Change::Add {
            shape,
            colour,
            at,
            heading_deg,
        } => {
            let (x, y) = (at.0 * w, at.1 * h);
            if free(blocks, x, y, None) {
                blocks.push(Block {
                    shape,
                    colour,
                    pose: Pose::new(x, y, heading_deg),
                    status: Status::Fresh,
                });
            }
        }
        _ => {}
    }
}

/// The detector's view of one still frame.
fn observe(blocks: &[Block], still: &Still, noise: &mut Noise, ts_ms: i64) -> Observation {
    let mut sightings = Vec::new();
    for b in blocks {
        if noise.chance(still.missed) {
            continue;
        }
        let off = if noise.chance(still.misread) {
            MISREAD_IN
        } else {
            still.noise_in
        };
        let colour = if noise.chance(still.wrong_colour) {
            if b.colour == "red" { "blue" } else { "red" }
        } else {
            b.colour
        };
        // Within a disc of radius `off`, so a misread stays within MISREAD_IN.
        let (r, a) = (
            off * noise.next().sqrt(),
            noise.next() * std::f64::consts::TAU,
        );
        sightings.push(Sighting {
            shape: b.shape.to_owned(),
            colour: colour.to_owned(),
            pose: Pose::new(
                b.pose.x_in + r * a.cos(),
                b.pose.y_in + r * a.sin(),
                b.pose.heading_deg + noise.within(still.noise_deg),
            ),
            status: b.status,
        });
    }
    // The detector lists pieces in no particular order.
    for i in (1..sightings.len()).rev() {
        let j = (noise.next() * (i + 1) as f64) as usize;
        sightings.swap(i, j.min(i));
    }
    Observation {
        ts_ms,
        sightings,
        disturbance: 0.0,
    }
}

/// Each unit once; every piece stands on a block, and no block carries two.
fn check_commit(table: &TableState, blocks: &[Block]) -> Result<(), TestCaseError> {
    let mut ids: Vec<&str> = table.pieces.iter().map(|p| p.id.as_str()).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    prop_assert_eq!(before, ids.len(), "a unit twice: {:?}", ids);
    let mut names: Vec<Vec<&str>> = vec![Vec::new(); blocks.len()];
    for p in &table.pieces {
        let owner = blocks.iter().position(|b| {
            (b.pose.x_in - p.pose.x_in).hypot(b.pose.y_in - p.pose.y_in) <= BELONGS_IN
        });
        match owner {
            Some(i) => names[i].push(&p.id),
            None => prop_assert!(
                false,
                "{} committed at ({:.2}, {:.2}) where no block stands",
                p.id,
                p.pose.x_in,
                p.pose.y_in
            ),
        }
    }
    for (b, names) in blocks.iter().zip(&names) {
        prop_assert!(
            names.len() <= 1,
            "one block, two names: {:?} for {:?}",
            names,
            b
        );
    }
    Ok(())
}

/// The blocks of a table as it stands.
fn blocks_of(scenario: &Scenario, table: &TableState) -> Vec<Block> {
    table
        .pieces
        .iter()
        .map(|p| Block {
            shape: if aide::track::tracker::shape_of_kind(scenario, p.kind) == "hq" {
                "hq"
            } else {
                "block"
            },
            colour: if p.side == "red" { "red" } else { "blue" },
            pose: p.pose,
            status: p.status,
        })
        .collect()
}

/// The demo's opening table, less the pieces standing closer than [`APART_IN`] to one
/// kept before them (two of its blocks stand 1.23 in apart).
fn start() -> TableState {
    let table = aide::web::demo::tables(&demo()).unwrap().swap_remove(0);
    let mut pieces: Vec<aide::table::Piece> = Vec::new();
    for p in table.pieces {
        let apart = |q: &aide::table::Piece| {
            (q.pose.x_in - p.pose.x_in).hypot(q.pose.y_in - p.pose.y_in) >= APART_IN
        };
        if pieces.iter().all(apart) {
            pieces.push(p);
        }
    }
    TableState { pieces }
}

fn run(resume: bool, steps: &[Step]) -> Result<(), TestCaseError> {
    let scenario = demo();
    let start = start();
    let mut blocks = blocks_of(&scenario, &start);
    let mut tracker = if resume {
        Tracker::resume(scenario.clone(), TrackerConfig::default(), start)
    } else {
        Tracker::new(scenario.clone(), TrackerConfig::default())
    };
    let mut ts = 0;
    for step in steps {
        apply(&scenario, &mut blocks, &step.change);
        for _ in 0..step.hand_frames {
            ts += 100;
            let hand = Observation {
                ts_ms: ts,
                sightings: Vec::new(),
                disturbance: 0.2,
            };
            prop_assert!(
                tracker.push(&hand).is_none(),
                "a commit with a hand in view"
            );
        }
        let mut noise = Noise(step.still.seed);
        for k in 0..step.still.frames {
            ts += step.still.gaps_ms[k];
            let frame = observe(&blocks, &step.still, &mut noise, ts);
            if let Some(table) = tracker.push(&frame) {
                check_commit(&table, &blocks)?;
            }
        }
    }
    Ok(())
}

proptest! {
    // 64 cases of up to a dozen hands and 30 frames each: a few seconds of CI.
    #![proptest_config(common::proptest_cases(64))]

    #[test]
    fn a_resumed_tracker_keeps_each_unit_once_and_each_block_one_name(steps in steps()) {
        run(true, &steps)?;
    }

    #[test]
    fn a_new_tracker_keeps_each_unit_once_and_each_block_one_name(steps in steps()) {
        run(false, &steps)?;
    }
}

/// The first case the property found, kept as a plain test: a camera that stalls (its
/// second frame 0.7 s after the first) and misreads one block 0.6 in off in that frame.
/// The tracker committed both readings, the block under two names; now it waits for a
/// frame that sees every piece, and the table it commits is the one that stands.
#[test]
fn a_stalled_camera_and_one_misread_do_not_give_a_block_two_names() {
    let scenario = demo();
    let start = start();
    let blocks = blocks_of(&scenario, &start);
    let exact = Still {
        frames: 1,
        gaps_ms: vec![100],
        noise_in: 0.0,
        noise_deg: 0.0,
        missed: 0.0,
        misread: 0.0,
        wrong_colour: 0.0,
        seed: 0,
    };
    let mut tracker = Tracker::resume(scenario.clone(), TrackerConfig::default(), start.clone());
    let mut commits = Vec::new();
    let first = observe(&blocks, &exact, &mut Noise(0), 0);
    commits.extend(tracker.push(&first));
    let mut misread = first.clone();
    misread.ts_ms = 700;
    let x = &mut misread.sightings[0].pose.x_in;
    *x += MISREAD_IN;
    commits.extend(tracker.push(&misread));
    for k in 1..=20 {
        commits.extend(tracker.push(&Observation {
            ts_ms: 700 + 100 * k,
            ..first.clone()
        }));
    }
    for table in &commits {
        check_commit(table, &blocks).unwrap();
    }
    assert_eq!(commits.last(), Some(&start), "the table as it stands");
}
