//! The camera half of tracking: from a stream of detected frames to stable table states
//! whose pieces carry the scenario's unit ids.
//!
//! The detector sees anonymous pieces ("a fresh red block at 12.3, 8.1 facing 350").
//! Players push blocks with their hands, so most frames while something happens are
//! useless: arms cover pieces, a block in the air is seen where it is not. The tracker
//! therefore never reads a move off a single frame. It waits for the table to be still
//! ([`TrackerConfig::settle_ms`], 0.7 s by default: every piece within a tenth of an inch
//! and a few degrees of where it stood, nothing appearing or vanishing, no hand in view)
//! and only then commits the averaged view as a new stable state. Identity is carried
//! from one stable state to the next by an optimal assignment over pose, side colour and
//! shape, so a block that was lifted and put down nearby, or flipped spent in place, is
//! still the same unit. The difference between two stable states is what the players did
//! ([`EventDeriver`](super::EventDeriver) turns it into events).

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use pathfinding::prelude::{Matrix, kuhn_munkres_min};
use serde::{Deserialize, Serialize};

use super::Event;
use crate::geom::heading_difference;
use crate::journal::Millis;
use crate::scenario::{Scenario, Unit};
use crate::table::{Placement, Pose, Status, TableState};

/// One piece as the detector saw it in one frame, already in map inches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sighting {
    /// The piece model's shape name: "block" or "hq" for Pub Battles.
    pub shape: String,
    /// The colour class the detector gave it; the side whose id it names owns it.
    pub colour: String,
    pub pose: Pose,
    pub status: Status,
}

/// What the detector made of one camera frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub ts_ms: Millis,
    pub sightings: Vec<Sighting>,
    /// How much of the map is covered by something that is neither map nor piece (hands,
    /// arms, a phone), as a fraction of the map's area. The vision stage measures it.
    pub disturbance: f64,
}

/// How still is still, and how long the table must stay so.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrackerConfig {
    /// The table must stay still this long before its view is committed.
    pub settle_ms: Millis,
    /// A piece that stays within this distance of its average pose is still. Three
    /// times a good detector's frame-to-frame noise, well under the 0.25 in a player
    /// nudges a block by.
    pub still_in: f64,
    pub still_deg: f64,
    /// Above this covered fraction of the map a hand is over the table.
    pub disturbed_above: f64,
    /// A piece missed by the detector for more frames in a row than this has gone; a
    /// sighting that fits no still piece for more frames in a row than this is a change.
    pub missed_frames: u32,
    /// The farthest a piece is believed to move between two stable states and stay the
    /// same piece. Past it, the old piece is removed and the new one added.
    pub max_move_in: f64,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        Self {
            settle_ms: 700,
            still_in: 0.1,
            still_deg: 4.0,
            disturbed_above: 0.01,
            missed_frames: 3,
            max_move_in: 16.0,
        }
    }
}

impl TrackerConfig {
    /// The defaults, with the still tolerance widened to five times the detector's
    /// per-axis noise (standard deviation, inches) when that is more than 0.1 in: a
    /// piece then strays out of it by noise alone once in about 270,000 frames.
    pub fn for_noise(noise_in: f64) -> Self {
        let defaults = Self::default();
        Self {
            still_in: defaults.still_in.max(5.0 * noise_in),
            ..defaults
        }
    }
}

/// What the tracker is doing now, for the page's status bar.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "view", rename_all = "kebab-case")]
pub enum TrackerView {
    /// No frame yet.
    Waiting,
    /// A hand (or something else) is over the table.
    Disturbed { since_ms: Millis },
    /// The table is still but not yet for long enough.
    Settling { since_ms: Millis },
    /// The last commit still holds.
    Stable { since_ms: Millis },
}

/// How many of a piece's latest poses the commit's median is taken over.
const RECENT_POSES: usize = 32;

/// A piece followed through the frames of one still window: its running average.
#[derive(Debug, Clone)]
struct WindowTrack {
    shape: String,
    colour: String,
    /// The first pose seen in the window.
    anchor: Pose,
    sum_x: f64,
    sum_y: f64,
    sum_sin: f64,
    sum_cos: f64,
    /// Square pieces (HQ cubes): the camera cannot tell which way they face.
    symmetric: bool,
    seen: u32,
    /// The last poses seen, for the median the commit reports.
    recent: VecDeque<Pose>,
    missed_in_a_row: u32,
    status: Status,
}

impl WindowTrack {
    fn new(s: &Sighting, symmetric: bool) -> Self {
        let mut track = Self {
            shape: s.shape.clone(),
            colour: s.colour.clone(),
            anchor: s.pose,
            sum_x: 0.0,
            sum_y: 0.0,
            sum_sin: 0.0,
            sum_cos: 0.0,
            symmetric,
            seen: 0,
            recent: VecDeque::with_capacity(RECENT_POSES),
            missed_in_a_row: 0,
            status: s.status,
        };
        track.add(s.pose);
        track
    }

    /// Headings are averaged as unit vectors, so 359 and 1 average to 0.
    fn add(&mut self, pose: Pose) {
        let a = pose.heading_deg.to_radians();
        self.sum_x += pose.x_in;
        self.sum_y += pose.y_in;
        self.sum_sin += a.sin();
        self.sum_cos += a.cos();
        self.seen += 1;
        self.missed_in_a_row = 0;
        if self.recent.len() == RECENT_POSES {
            self.recent.pop_front();
        }
        self.recent.push_back(pose);
    }

    /// The pose to commit: the median of the recent poses, axis by axis, and of their
    /// turns from the mean heading. A window often opens on a frame with the last of a
    /// hand's motion in it (a block still settling, 0.05 in short); the median ignores
    /// it where the mean would carry it into the log as a small false move later.
    fn settled(&self) -> Pose {
        let mean = self.mean();
        let median = |mut values: Vec<f64>| {
            values.sort_by(f64::total_cmp);
            let n = values.len();
            if n % 2 == 1 {
                values[n / 2]
            } else {
                0.5 * (values[n / 2 - 1] + values[n / 2])
            }
        };
        let turn_from_mean = |p: &Pose| {
            let d = (p.heading_deg - mean.heading_deg).rem_euclid(360.0);
            if d > 180.0 { d - 360.0 } else { d }
        };
        Pose::new(
            median(self.recent.iter().map(|p| p.x_in).collect()),
            median(self.recent.iter().map(|p| p.y_in).collect()),
            mean.heading_deg + median(self.recent.iter().map(turn_from_mean).collect()),
        )
    }

    fn mean(&self) -> Pose {
        let n = f64::from(self.seen);
        let heading = self.sum_sin.atan2(self.sum_cos).to_degrees();
        Pose::new(self.sum_x / n, self.sum_y / n, heading)
    }

    /// Still: within `still_in` and `still_deg` of the window's running average, in the
    /// same status, and no farther than twice that from where the window began, so a
    /// slow creep breaks the window instead of dragging the average along with it.
    fn still(&self, s: &Sighting, config: &TrackerConfig) -> bool {
        let mean = self.mean();
        let from = |p: Pose| (s.pose.x_in - p.x_in).hypot(s.pose.y_in - p.y_in);
        let turned = |p: Pose| turn(p.heading_deg, s.pose.heading_deg, self.symmetric);
        s.status == self.status
            && from(mean) <= config.still_in
            && turned(mean) <= config.still_deg
            && from(self.anchor) <= 2.0 * config.still_in
            && turned(self.anchor) <= 2.0 * config.still_deg
    }
}

/// The smallest turn between two headings. A cube's heading cannot be seen (the detector
/// reports its side's facing, or nothing), so between two poses of one it is no turn.
fn turn(a_deg: f64, b_deg: f64, symmetric: bool) -> f64 {
    if symmetric {
        0.0
    } else {
        heading_difference(a_deg, b_deg)
    }
}

/// The frames since the table last changed.
#[derive(Debug, Clone)]
struct Window {
    since_ms: Millis,
    frames: u32,
    tracks: Vec<WindowTrack>,
    /// Frames in a row with a sighting that fits no still piece.
    strays_in_a_row: u32,
    committed: bool,
}

/// Follows the table frame by frame and hands out a stable state each time it settles.
/// A clone is where a person's correction is tried before the journal has it.
#[derive(Clone)]
pub struct Tracker {
    scenario: Arc<Scenario>,
    config: TrackerConfig,
    window: Option<Window>,
    disturbed_since: Option<Millis>,
    stable: Option<TableState>,
    stable_since: Option<Millis>,
    /// Sightings of the last commit that no unit could be given (more red blocks on the
    /// table than the scenario has red units, say). A person may veto one by its place.
    strays: Vec<Sighting>,
    /// Places where a person said the detection is not a piece.
    vetoes: Vec<Veto>,
    /// Pieces a person put on the table by hand, not yet seen by the camera.
    held: Vec<Held>,
    /// Corrections the tracker made itself at the last commit (a hand-placed piece the
    /// camera took over), to go out with that commit's table.
    corrections: Vec<Event>,
}

impl Tracker {
    /// A tracker for a new game: its first stable view is the setup, assigned to units by
    /// their setup positions.
    pub fn new(scenario: Arc<Scenario>, config: TrackerConfig) -> Self {
        Self {
            scenario,
            config,
            window: None,
            disturbed_since: None,
            stable: None,
            stable_since: None,
            strays: Vec::new(),
            vetoes: Vec::new(),
            held: Vec::new(),
            corrections: Vec::new(),
        }
    }

    /// A tracker that carries on from a known table (a journal's last state).
    pub fn resume(scenario: Arc<Scenario>, config: TrackerConfig, table: TableState) -> Self {
        let mut tracker = Self::new(scenario, config);
        tracker.stable = Some(table);
        tracker
    }

    /// The last committed table, if any.
    pub fn stable(&self) -> Option<&TableState> {
        self.stable.as_ref()
    }

    /// How many pieces of the last commit were left without a unit.
    pub fn unassigned(&self) -> usize {
        self.strays.len()
    }

    /// The corrections the last commit made by itself (a hand-placed piece the camera
    /// took over, as [`Event::Seen`]): the journal takes them before that commit's table.
    pub fn take_corrections(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.corrections)
    }

    pub fn view(&self) -> TrackerView {
        if let Some(since_ms) = self.disturbed_since {
            return TrackerView::Disturbed { since_ms };
        }
        match &self.window {
            None => TrackerView::Waiting,
            Some(w) if w.committed => TrackerView::Stable {
                since_ms: self.stable_since.unwrap_or(w.since_ms),
            },
            Some(w) => TrackerView::Settling {
                since_ms: w.since_ms,
            },
        }
    }

    /// Take one frame. Returns the new stable table when this frame completes a still
    /// window; the table may equal the previous one (a hand passed, nothing moved).
    pub fn push(&mut self, frame: &Observation) -> Option<TableState> {
        if frame.disturbance > self.config.disturbed_above {
            self.disturbed_since.get_or_insert(frame.ts_ms);
            self.window = None;
            return None;
        }
        self.disturbed_since = None;
        let screened;
        let frame = if self.vetoes.is_empty() {
            frame
        } else {
            screened = self.screen(frame);
            &screened
        };
        let continues = match &mut self.window {
            Some(window) => extend_window(window, frame, &self.config, &self.scenario),
            None => false,
        };
        if !continues {
            self.window = Some(Window {
                since_ms: frame.ts_ms,
                frames: 1,
                tracks: frame
                    .sightings
                    .iter()
                    .map(|s| WindowTrack::new(s, is_symmetric(&self.scenario, &s.shape)))
                    .collect(),
                strays_in_a_row: 0,
                committed: false,
            });
        }
        let window = self.window.as_mut().expect("set above");
        // Committed only on a frame that saw every piece of the window. A misread (a
        // block seen 0.6 in off, or in another colour) joins the window as a piece of its
        // own while the block's own piece misses that frame; on a camera that stalled (two
        // frames 0.7 s apart, the second misread) both passed "seen in half the frames",
        // and one block was committed under two names. Waiting for a frame in which
        // nothing is missing lets the next frames show which reading was the block.
        if window.committed
            || frame.ts_ms - window.since_ms < self.config.settle_ms
            || window.tracks.iter().any(|t| t.missed_in_a_row > 0)
        {
            return None;
        }
        window.committed = true;
        // A piece seen in fewer than half the window's frames was a flicker.
        let settled: Vec<Sighting> = window
            .tracks
            .iter()
            .filter(|t| 2 * t.seen >= window.frames)
            .map(|t| Sighting {
                shape: t.shape.clone(),
                colour: t.colour.clone(),
                pose: t.settled(),
                status: t.status,
            })
            .collect();
        let table = self.commit(settled);
        self.stable = Some(table.clone());
        self.stable_since = Some(frame.ts_ms);
        Some(table)
    }

    /// A person's correction: the piece standing nearest `(x_in, y_in)` on the stable
    /// table is `unit`. If `unit` stood elsewhere, the two swap identities; if it was not
    /// on the table, the piece's old unit leaves it. Later commits carry the new names on,
    /// since each is identified from the stable table before it.
    pub fn assign(
        &mut self,
        unit: &str,
        x_in: f64,
        y_in: f64,
    ) -> Result<Identification, AssignError> {
        let scenario = self.scenario.clone();
        let target = scenario
            .unit(unit)
            .ok_or_else(|| AssignError::UnknownUnit(unit.to_owned()))?;
        let table = self.stable.as_mut().ok_or(AssignError::NoStableTable)?;
        let (nearest, distance_in) = table
            .pieces
            .iter()
            .enumerate()
            .map(|(i, p)| (i, (p.pose.x_in - x_in).hypot(p.pose.y_in - y_in)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .ok_or(AssignError::NoStableTable)?;
        if distance_in > ASSIGN_REACH_IN {
            return Err(AssignError::NoPieceNear { x_in, y_in });
        }
        let here = &table.pieces[nearest];
        if shape_of(&scenario, target) != shape_of_kind(&scenario, here.kind)
            || target.side != here.side
        {
            return Err(AssignError::Incompatible {
                unit: unit.to_owned(),
                piece: here.id.clone(),
            });
        }
        let identification = Identification {
            unit: unit.to_owned(),
            was: here.id.clone(),
            pose: here.pose,
        };
        let mut placements = crate::journal::placements(table).pieces;
        identification.relabel(&mut placements);
        *table = scenario
            .table(&placements)
            .expect("ids were swapped between units of the scenario");
        Ok(identification)
    }
}

impl Tracker {
    /// The commit of a still window's `settled` pieces: hand-placed pieces the camera
    /// now sees are handed over to it (each to the nearest sighting of its shape and side
    /// within [`HANDOVER_IN`] of where it was put), the others are held where they were
    /// put, and the rest of the table is identified as always. A held unit is never
    /// given to another sighting: a person said where it stands.
    fn commit(&mut self, mut settled: Vec<Sighting>) -> TableState {
        let scenario = self.scenario.clone();
        let mut placements = Vec::new();
        let mut reserved: HashSet<String> = HashSet::new();
        for held in std::mem::take(&mut self.held) {
            reserved.insert(held.unit.clone());
            let near = settled
                .iter()
                .enumerate()
                .filter(|(_, s)| s.shape == held.sighting.shape && s.colour == held.sighting.colour)
                .map(|(j, s)| (j, distance_in(s.pose, held.sighting.pose)))
                .filter(|&(_, d)| d <= HANDOVER_IN)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match near {
                Some((j, _)) => {
                    let mut seen = settled.remove(j);
                    // A cube keeps the facing it was placed with: the camera cannot see it.
                    if is_symmetric(&scenario, &seen.shape) {
                        seen.pose.heading_deg = held.sighting.pose.heading_deg;
                    }
                    self.corrections.push(Event::Seen {
                        unit: held.unit.clone(),
                        placed: held.sighting.pose,
                        pose: seen.pose,
                    });
                    placements.push(placement(&held.unit, &seen));
                }
                None => {
                    placements.push(placement(&held.unit, &held.sighting));
                    self.held.push(held);
                }
            }
        }
        let previous = self.stable.as_ref().map(|table| TableState {
            pieces: table
                .pieces
                .iter()
                .filter(|p| !reserved.contains(&p.id))
                .cloned()
                .collect(),
        });
        let (identified, strays) = identify(
            &scenario,
            &self.config,
            previous.as_ref(),
            &settled,
            &reserved,
        );
        placements.extend(identified);
        self.strays = strays;
        scenario
            .table(&placements)
            .expect("every id is a distinct unit of the scenario")
    }

    /// Drop from `frame` the detections a person vetoed, and lift each veto whose place
    /// has changed.
    ///
    /// The rule: a veto holds while its place looks as it did when it was given, the same
    /// detection there (shape, side colour, status, and a pose within twice the still
    /// tolerance) and nothing else there. When for more than
    /// [`TrackerConfig::missed_frames`] undisturbed frames in a row that detection is
    /// missing or something else stands at the place (another colour, shape or status,
    /// or the same kind of block put down at another pose), the place has changed and the
    /// veto is lifted: from that frame on, whatever is there is seen again.
    ///
    /// Why this rule: what a person vetoes is ink, glare or a die that the detector reads
    /// the same way frame after frame; that sameness is all the tracker knows of it. A
    /// real block put down there is read differently (a block lands within 0.2 in and 8°
    /// of a phantom's pose by chance only), so it lifts the veto and is not hidden. A
    /// phantom that goes (the light changed, the die was picked up) lifts it too, so if
    /// it comes back it is judged afresh rather than hidden for the rest of the game.
    /// Frames with a hand over the table count neither way: an arm hides the place, and
    /// the scene after the hand leaves decides. Frames in a row, not single frames, so one
    /// misread does not bring a phantom back.
    fn screen(&mut self, frame: &Observation) -> Observation {
        let scenario = self.scenario.clone();
        let config = self.config;
        let mut dropped = vec![false; frame.sightings.len()];
        let mut lifted = Vec::new();
        self.vetoes.retain_mut(|veto| {
            let mut same = None;
            let mut other = false;
            for (j, s) in frame.sightings.iter().enumerate() {
                if !veto.covers(s) {
                    continue;
                }
                if same.is_none() && !dropped[j] && veto.same(&scenario, &config, s) {
                    same = Some(j);
                } else {
                    other = true;
                }
            }
            if same.is_some() && !other {
                veto.changed_in_a_row = 0;
            } else {
                veto.changed_in_a_row += 1;
                if veto.changed_in_a_row > config.missed_frames {
                    tracing::info!(
                        x_in = veto.sighting.pose.x_in,
                        y_in = veto.sighting.pose.y_in,
                        "a vetoed place changed: the veto is lifted"
                    );
                    lifted.push(Event::Lifted {
                        unit: veto.unit.clone(),
                        pose: veto.sighting.pose,
                    });
                    return false;
                }
            }
            if let Some(j) = same {
                dropped[j] = true;
            }
            true
        });
        // Journaled with the next commit, so a restart does not bring the veto back.
        self.corrections.extend(lifted);
        Observation {
            ts_ms: frame.ts_ms,
            sightings: frame
                .sightings
                .iter()
                .zip(&dropped)
                .filter(|(_, dropped)| !**dropped)
                .map(|(s, _)| s.clone())
                .collect(),
            disturbance: frame.disturbance,
        }
    }

    /// The piece of the stable table, or the stray detection, standing nearest `(x, y)`
    /// within [`ASSIGN_REACH_IN`]: its unit ("" for a stray) and what the camera saw.
    pub fn piece_near(&self, x_in: f64, y_in: f64) -> Result<(String, Sighting), AssignError> {
        let table = self.stable.as_ref().ok_or(AssignError::NoStableTable)?;
        let at = Pose::new(x_in, y_in, 0.0);
        table
            .pieces
            .iter()
            .map(|p| {
                (
                    p.id.clone(),
                    Sighting {
                        shape: shape_of_kind(&self.scenario, p.kind).to_owned(),
                        colour: p.side.clone(),
                        pose: p.pose,
                        status: p.status,
                    },
                )
            })
            .chain(self.strays.iter().map(|s| (String::new(), s.clone())))
            .map(|(unit, s)| (distance_in(s.pose, at), unit, s))
            .filter(|(d, ..)| *d <= ASSIGN_REACH_IN)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, unit, s)| (unit, s))
            .ok_or(AssignError::NoPieceNear { x_in, y_in })
    }

    /// A person's veto: the piece standing nearest `(x_in, y_in)` is not a piece. It
    /// leaves the stable table at once (its unit is free again) and the tracker ignores
    /// a detection like it at that place until the place changes (the rule is at
    /// [`Self::screen`]). A piece placed by hand is taken back with [`Self::unplace`].
    pub fn veto(&mut self, x_in: f64, y_in: f64, by: &str) -> Result<Event, AssignError> {
        let (unit, sighting) = self.piece_near(x_in, y_in)?;
        if self.held.iter().any(|h| h.unit == unit) {
            return Err(AssignError::PlacedByHand(unit));
        }
        let veto = Veto::new(&self.scenario, unit.clone(), sighting.clone());
        if unit.is_empty() {
            self.strays.retain(|s| *s != sighting);
        } else if let Some(table) = self.stable.as_mut() {
            table.pieces.retain(|p| p.id != unit);
        }
        // The window follows the phantom too: it goes from there, so the window holds.
        if let Some(window) = self.window.as_mut() {
            let (scenario, config) = (&self.scenario, &self.config);
            window.tracks.retain(|t| {
                !veto.same(
                    scenario,
                    config,
                    &Sighting {
                        shape: t.shape.clone(),
                        colour: t.colour.clone(),
                        pose: t.mean(),
                        status: t.status,
                    },
                )
            });
        }
        self.vetoes.push(veto);
        Ok(Event::Vetoed {
            unit,
            pose: sighting.pose,
            status: sighting.status,
            by: by.to_owned(),
            shape: sighting.shape,
            colour: sighting.colour,
        })
    }

    /// A person put `unit`, which the camera misses, on the table at `pose`. The tracker
    /// holds it there, whatever the frames say, until the camera sees a piece of its
    /// shape and side within [`HANDOVER_IN`] of it (see [`Self::commit`]) or a person
    /// takes it back ([`Self::unplace`]). Refused for a unit on the table (name that
    /// piece instead), off the map, or onto a piece that stands there.
    pub fn place(
        &mut self,
        unit: &str,
        pose: Pose,
        status: Status,
        by: &str,
    ) -> Result<Event, AssignError> {
        let scenario = self.scenario.clone();
        let target = scenario
            .unit(unit)
            .ok_or_else(|| AssignError::UnknownUnit(unit.to_owned()))?;
        let (w, h) = (scenario.map.width_in, scenario.map.height_in);
        if !(0.0..=w).contains(&pose.x_in) || !(0.0..=h).contains(&pose.y_in) {
            return Err(AssignError::OffMap {
                x_in: pose.x_in,
                y_in: pose.y_in,
                width_in: w,
                height_in: h,
            });
        }
        let table = self.stable.as_ref().ok_or(AssignError::NoStableTable)?;
        if table.piece(unit).is_some() {
            return Err(AssignError::OnTable(unit.to_owned()));
        }
        if let Ok((piece, _)) = self.piece_near(pose.x_in, pose.y_in) {
            return Err(AssignError::Occupied {
                x_in: pose.x_in,
                y_in: pose.y_in,
                piece,
            });
        }
        let sighting = Sighting {
            shape: shape_of(&scenario, target).to_owned(),
            colour: target.side.clone(),
            pose,
            status,
        };
        let table = self.stable.as_mut().expect("checked above");
        let mut placements = crate::journal::placements(table).pieces;
        placements.push(placement(unit, &sighting));
        *table = scenario
            .table(&placements)
            .expect("a unit not on the table joined it");
        self.held.push(Held {
            unit: unit.to_owned(),
            sighting,
        });
        Ok(Event::Placed {
            unit: unit.to_owned(),
            pose,
            status,
            by: by.to_owned(),
        })
    }

    /// A person takes back a piece placed by hand that the camera has not seen.
    pub fn unplace(&mut self, unit: &str, by: &str) -> Result<Event, AssignError> {
        let i = self
            .held
            .iter()
            .position(|h| h.unit == unit)
            .ok_or_else(|| AssignError::NotPlaced(unit.to_owned()))?;
        let held = self.held.remove(i);
        if let Some(table) = self.stable.as_mut() {
            table.pieces.retain(|p| p.id != unit);
        }
        Ok(Event::Unplaced {
            unit: held.unit,
            pose: held.sighting.pose,
            by: by.to_owned(),
        })
    }

    /// The units placed by hand that the camera has not yet seen.
    pub fn held(&self) -> impl Iterator<Item = &str> {
        self.held.iter().map(|h| h.unit.as_str())
    }

    /// How many vetoes hold.
    pub fn vetoes(&self) -> usize {
        self.vetoes.len()
    }

    /// Rebuild, after a restart, the vetoes still in force and the pieces held by hand
    /// from the journal's corrections, oldest first (every event of the game may be
    /// given; the others are passed over). The journal is their only record: a veto is
    /// made by `vetoed` and ends with `lifted`; a piece is held from `placed` until
    /// `unplaced` or `seen`.
    ///
    /// A rebuilt veto is the veto as it was given, the same detection at the same
    /// place, and lifts on the same conditions ([`Self::screen`]), counted afresh from
    /// the first frame after the restart. A held piece is put on the table at the next
    /// commit, as it was before the restart. A `vetoed` event with neither a unit nor
    /// the detection's shape (a journal written before events carried it) cannot be
    /// rebuilt and is passed over; they are counted in [`Restored::unreadable`].
    pub fn restore<'a>(&mut self, events: impl IntoIterator<Item = &'a Event>) -> Restored {
        let scenario = self.scenario.clone();
        let mut unreadable = 0;
        for event in events {
            match event {
                Event::Vetoed {
                    unit,
                    pose,
                    status,
                    shape,
                    colour,
                    ..
                } => {
                    let known = scenario.unit(unit);
                    let shape = match (shape.as_str(), known) {
                        ("", Some(u)) => shape_of(&scenario, u).to_owned(),
                        (shape, _) => shape.to_owned(),
                    };
                    let colour = match (colour.as_str(), known) {
                        ("", Some(u)) => u.side.clone(),
                        (colour, _) => colour.to_owned(),
                    };
                    if shape.is_empty() || colour.is_empty() {
                        unreadable += 1;
                        continue;
                    }
                    let sighting = Sighting {
                        shape,
                        colour,
                        pose: *pose,
                        status: *status,
                    };
                    self.vetoes
                        .push(Veto::new(&scenario, unit.clone(), sighting));
                }
                Event::Lifted { unit, pose } => {
                    if let Some(i) = self
                        .vetoes
                        .iter()
                        .position(|v| v.unit == *unit && v.sighting.pose == *pose)
                    {
                        self.vetoes.remove(i);
                    }
                }
                Event::Placed {
                    unit, pose, status, ..
                } => {
                    let Some(target) = scenario.unit(unit) else {
                        unreadable += 1;
                        continue;
                    };
                    self.held.retain(|h| h.unit != *unit);
                    self.held.push(Held {
                        unit: unit.clone(),
                        sighting: Sighting {
                            shape: shape_of(&scenario, target).to_owned(),
                            colour: target.side.clone(),
                            pose: *pose,
                            status: *status,
                        },
                    });
                }
                Event::Unplaced { unit, .. } | Event::Seen { unit, .. } => {
                    self.held.retain(|h| h.unit != *unit);
                }
                Event::Moved(_)
                | Event::Flipped { .. }
                | Event::Removed { .. }
                | Event::Added { .. }
                | Event::Identified { .. } => {}
            }
        }
        Restored {
            vetoes: self.vetoes.len(),
            held: self.held.len(),
            unreadable,
        }
    }
}

/// What [`Tracker::restore`] rebuilt from the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Restored {
    /// Vetoes in force.
    pub vetoes: usize,
    /// Pieces held by hand.
    pub held: usize,
    /// Corrections that could not be rebuilt: a veto of a detection with no unit from a
    /// journal written before `vetoed` events named its shape, or a unit the scenario no
    /// longer has.
    pub unreadable: usize,
}

/// How near a piece the camera sees must stand to a piece placed by hand to be that
/// piece: an inch, the slack of a finger's tap on a phone's map (a block is 1 7/8 in
/// long), and less than the 1.5 in between the centres of two blocks side by side.
pub const HANDOVER_IN: f64 = 1.0;

/// A place where a person said the detection is not a piece.
#[derive(Debug, Clone)]
struct Veto {
    /// The unit the tracker had called the detection ("" for none), for the journal.
    unit: String,
    /// The detection as it stood when vetoed.
    sighting: Sighting,
    /// Its footprint: the place. Anything detected with its centre on it is there.
    footprint: Option<crate::geom::Footprint>,
    /// Undisturbed frames in a row in which the place did not look as it did.
    changed_in_a_row: u32,
}

impl Veto {
    fn new(scenario: &Scenario, unit: String, sighting: Sighting) -> Self {
        Self {
            unit,
            footprint: footprint_of(scenario, &sighting),
            sighting,
            changed_in_a_row: 0,
        }
    }

    /// Whether `s` stands at the vetoed place: its centre on the vetoed footprint (within
    /// [`ASSIGN_REACH_IN`] of its centre for a shape the model does not know).
    fn covers(&self, s: &Sighting) -> bool {
        match &self.footprint {
            Some(fp) => {
                let (lateral, ahead) = fp.to_local(geo::Coord {
                    x: s.pose.x_in,
                    y: s.pose.y_in,
                });
                lateral.abs() <= fp.frontage_in / 2.0 && ahead.abs() <= fp.depth_in / 2.0
            }
            None => distance_in(s.pose, self.sighting.pose) <= ASSIGN_REACH_IN,
        }
    }

    /// Whether `s` is the vetoed detection again: same shape, colour and status, within
    /// twice the still tolerance of its pose (a window's anchor tolerance).
    fn same(&self, scenario: &Scenario, config: &TrackerConfig, s: &Sighting) -> bool {
        let v = &self.sighting;
        s.shape == v.shape
            && s.colour == v.colour
            && s.status == v.status
            && distance_in(s.pose, v.pose) <= 2.0 * config.still_in
            && turn(
                s.pose.heading_deg,
                v.pose.heading_deg,
                is_symmetric(scenario, &s.shape),
            ) <= 2.0 * config.still_deg
    }
}

/// A piece a person put on the table, held until the camera sees it.
#[derive(Debug, Clone)]
struct Held {
    unit: String,
    sighting: Sighting,
}

fn distance_in(a: Pose, b: Pose) -> f64 {
    (a.x_in - b.x_in).hypot(a.y_in - b.y_in)
}

/// The footprint of a detection, from the piece model's shape of that name.
fn footprint_of(scenario: &Scenario, s: &Sighting) -> Option<crate::geom::Footprint> {
    let shape = scenario.model.shapes.iter().find(|m| m.name == s.shape)?;
    let depth = match s.status {
        Status::Fresh => shape.depth_fresh_in,
        Status::Spent => shape.depth_spent_in,
    };
    Some(crate::geom::Footprint::new(
        s.pose.x_in,
        s.pose.y_in,
        s.pose.heading_deg,
        shape.frontage_in,
        depth,
    ))
}

/// How far from a piece's centre a person's tap may be and still name it: under half a
/// block's length, so a tap names the block under the finger, never its neighbour's.
pub const ASSIGN_REACH_IN: f64 = 0.9;

/// A person named a piece: the piece at `pose`, which the tracker called `was`, is
/// `unit`. The two names swap, so the piece that was `unit` (if any) is now `was`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Identification {
    pub unit: String,
    pub was: String,
    pub pose: crate::table::Pose,
}

impl From<Identification> for Event {
    fn from(i: Identification) -> Self {
        Event::Identified {
            unit: i.unit,
            was: i.was,
            pose: i.pose,
        }
    }
}

impl Identification {
    /// Apply the same swap to placements of the table (the journal's last state, say),
    /// so the same wooden block carries the same name on both sides of the correction.
    pub fn relabel(&self, placements: &mut [crate::table::Placement]) {
        for p in placements.iter_mut() {
            if p.id == self.unit {
                p.id.clone_from(&self.was);
            } else if p.id == self.was {
                p.id.clone_from(&self.unit);
            }
        }
    }
}

/// Why a person's assignment was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AssignError {
    #[error("{0:?} is not a unit of this scenario")]
    UnknownUnit(String),
    #[error("no stable view of the table yet")]
    NoStableTable,
    #[error("no piece within {ASSIGN_REACH_IN} in of ({x_in:.2}, {y_in:.2})")]
    NoPieceNear { x_in: f64, y_in: f64 },
    #[error("{unit} cannot be the piece standing there ({piece}): another side or shape")]
    Incompatible { unit: String, piece: String },
    #[error("{0} is on the table already: tap its piece and name it instead")]
    OnTable(String),
    #[error("({x_in:.2}, {y_in:.2}) is off the map, which is {width_in} by {height_in} in")]
    OffMap {
        x_in: f64,
        y_in: f64,
        width_in: f64,
        height_in: f64,
    },
    #[error("a piece stands at ({x_in:.2}, {y_in:.2}) already ({piece}): name it instead")]
    Occupied { x_in: f64, y_in: f64, piece: String },
    #[error(
        "{0} was not placed by hand, or the camera has taken it over: lift its block off the table instead"
    )]
    NotPlaced(String),
    #[error("{0} was placed by hand: take it back instead of vetoing it")]
    PlacedByHand(String),
}

/// Add a frame to a still window. False when the frame shows a change: a piece moved,
/// turned or flipped, something appeared, or something was missed too long.
fn extend_window(
    window: &mut Window,
    frame: &Observation,
    config: &TrackerConfig,
    scenario: &Scenario,
) -> bool {
    let means: Vec<Sighting> = window
        .tracks
        .iter()
        .map(|t| Sighting {
            shape: t.shape.clone(),
            colour: t.colour.clone(),
            pose: t.mean(),
            status: t.status,
        })
        .collect();
    let pairs = assign(&means, &frame.sightings, config.still_in * 3.0, |a, b| {
        pose_cost(scenario, a, b)
    });
    // A sighting off its piece's average, or one that matches no piece, is a stray: a
    // glint, a misread edge, or the first frame of a real change. Strays for more than
    // `missed_frames` frames in a row are a change; until then the frame adds nothing
    // but the pieces it saw still.
    let mut seen = vec![false; window.tracks.len()];
    let mut strays = 0;
    // Before the window is committed, a piece seen for the first time (missed by the
    // first frames, or just put down) joins it; after, it is a change.
    for &j in &pairs.unmatched_new {
        if window.committed {
            strays += 1;
        } else {
            let s = &frame.sightings[j];
            window
                .tracks
                .push(WindowTrack::new(s, is_symmetric(scenario, &s.shape)));
            seen.push(true);
        }
    }
    for &(i, j) in &pairs.matched {
        if window.tracks[i].still(&frame.sightings[j], config) {
            seen[i] = true;
        } else {
            strays += 1;
        }
    }
    if strays > 0 {
        window.strays_in_a_row += 1;
        if window.strays_in_a_row > config.missed_frames {
            return false;
        }
    } else {
        window.strays_in_a_row = 0;
    }
    for (track, seen) in window.tracks.iter_mut().zip(&seen) {
        if !seen {
            track.missed_in_a_row += 1;
            if track.missed_in_a_row > config.missed_frames {
                return false;
            }
        }
    }
    for &(i, j) in &pairs.matched {
        if seen[i] {
            window.tracks[i].add(frame.sightings[j].pose);
        }
    }
    window.frames += 1;
    true
}

/// Distance in inches plus a hundredth of an inch per degree of turn: position decides,
/// heading only breaks ties between neighbours.
fn pose_cost(scenario: &Scenario, a: &Sighting, b: &Sighting) -> f64 {
    let d = (a.pose.x_in - b.pose.x_in).hypot(a.pose.y_in - b.pose.y_in);
    d + 0.01
        * turn(
            a.pose.heading_deg,
            b.pose.heading_deg,
            is_symmetric(scenario, &a.shape),
        )
}

/// Whether a shape looks the same after a quarter turn (an HQ cube).
fn is_symmetric(scenario: &Scenario, shape: &str) -> bool {
    scenario
        .model
        .shapes
        .iter()
        .find(|s| s.name == shape)
        .is_some_and(|s| s.frontage_in == s.depth_fresh_in)
}

fn shape_of<'a>(scenario: &'a Scenario, unit: &Unit) -> &'a str {
    shape_of_kind(scenario, unit.kind)
}

/// The name of the piece shape a kind of unit is made of ("block", "cube"): what the
/// camera can tell apart, unlike infantry from cavalry.
pub fn shape_of_kind(scenario: &Scenario, kind: crate::table::UnitKind) -> &str {
    scenario
        .model
        .shape(kind)
        .map(|s| s.name.as_str())
        .unwrap_or("")
}

/// The result of an optimal assignment between two lists.
struct Assignment {
    matched: Vec<(usize, usize)>,
    unmatched_old: Vec<usize>,
    unmatched_new: Vec<usize>,
}

/// Pair `old` with `new` so that the summed cost is least, where only pieces of the same
/// shape and colour can pair and no pair may cost more than `gate`. Leaving a piece
/// unpaired costs `gate`, so a pairing is kept only when it is cheaper than a removal
/// and an addition. Solved exactly (Kuhn–Munkres) on the square matrix of both lists
/// plus one "unpaired" slot for each.
fn assign(
    old: &[Sighting],
    new: &[Sighting],
    gate: f64,
    cost: impl Fn(&Sighting, &Sighting) -> f64,
) -> Assignment {
    // Thousandths of an inch: the solver works on integers.
    let scale = |c: f64| (c * 1000.0).round() as i64;
    let unpaired = scale(gate);
    let forbidden = unpaired * 4 + 1;
    let n = old.len() + new.len();
    if n == 0 {
        return Assignment {
            matched: Vec::new(),
            unmatched_old: Vec::new(),
            unmatched_new: Vec::new(),
        };
    }
    let mut weights = Matrix::new(n, n, 0i64);
    for (i, a) in old.iter().enumerate() {
        for (j, b) in new.iter().enumerate() {
            let c = cost(a, b);
            weights[(i, j)] = if a.shape == b.shape && a.colour == b.colour && c <= gate {
                scale(c)
            } else {
                forbidden
            };
        }
        // old i left unpaired: its own slot in the extra columns.
        for k in 0..old.len() {
            weights[(i, new.len() + k)] = if k == i { unpaired } else { forbidden };
        }
    }
    for (j, _) in new.iter().enumerate() {
        for k in 0..new.len() {
            weights[(old.len() + k, j)] = if k == j { unpaired } else { forbidden };
        }
    }
    let (_, columns) = kuhn_munkres_min(&weights);
    let mut result = Assignment {
        matched: Vec::new(),
        unmatched_old: Vec::new(),
        unmatched_new: Vec::new(),
    };
    let mut new_paired = vec![false; new.len()];
    for (i, &j) in columns.iter().enumerate().take(old.len()) {
        if j < new.len() && weights[(i, j)] < forbidden {
            result.matched.push((i, j));
            new_paired[j] = true;
        } else {
            result.unmatched_old.push(i);
        }
    }
    result.unmatched_new = (0..new.len()).filter(|&j| !new_paired[j]).collect();
    result
}

/// Give the settled sightings their units. Against the previous stable table when there
/// is one (identity by least total movement), else against the scenario's setup poses.
/// Sightings left over take a unit of their side and shape that is not on the table
/// (a reinforcement), nearest setup pose first, then scenario order; never a unit of
/// `reserved` (placed by hand). Returns the placements and the sightings that found no
/// unit.
fn identify(
    scenario: &Scenario,
    config: &TrackerConfig,
    previous: Option<&TableState>,
    settled: &[Sighting],
    reserved: &HashSet<String>,
) -> (Vec<Placement>, Vec<Sighting>) {
    let reference: Vec<(String, Sighting)> = match previous {
        Some(table) => table
            .pieces
            .iter()
            .map(|p| {
                (
                    p.id.clone(),
                    Sighting {
                        shape: shape_of_kind(scenario, p.kind).to_owned(),
                        colour: p.side.clone(),
                        pose: p.pose,
                        status: p.status,
                    },
                )
            })
            .collect(),
        None => setup_sightings(scenario),
    };
    let old: Vec<Sighting> = reference.iter().map(|(_, s)| s.clone()).collect();
    // Players move few pieces at a time, so of two ways to explain a change the one
    // that moves fewer pieces is the likelier: a piece that left its place costs
    // MOVE_PENALTY_IN on top of its distance. Plain least distance would often swap two
    // identical blocks when one is carried past the other (A to beyond B costs the same
    // as A to B's place plus B onward).
    // Flipping a block is rarer still than moving it, so a changed status costs too.
    let pairs = assign(&old, settled, config.max_move_in, |a, b| {
        let moved = (a.pose.x_in - b.pose.x_in).hypot(a.pose.y_in - b.pose.y_in) > config.still_in;
        pose_cost(scenario, a, b)
            + if moved { MOVE_PENALTY_IN } else { 0.0 }
            + if a.status != b.status {
                FLIP_PENALTY_IN
            } else {
                0.0
            }
    });
    let mut placements: Vec<Placement> = Vec::with_capacity(settled.len());
    let mut used: HashSet<String> = HashSet::new();
    for &(i, j) in &pairs.matched {
        let id = reference[i].0.clone();
        used.insert(id.clone());
        let mut seen = settled[j].clone();
        let was = &reference[i].1;
        // A piece within the still tolerance of where it stood keeps its old pose: two
        // estimates of a block nobody touched differ by the detector's noise, and a
        // hundredth of an inch of it must not reach the log as a move. So moves smaller
        // than `still_in` are not reported.
        if previous.is_some()
            && was.status == seen.status
            && (was.pose.x_in - seen.pose.x_in).hypot(was.pose.y_in - seen.pose.y_in)
                <= config.still_in
            && turn(
                was.pose.heading_deg,
                seen.pose.heading_deg,
                is_symmetric(scenario, &seen.shape),
            ) <= config.still_deg
        {
            placements.push(placement(&id, was));
            continue;
        }
        // A cube keeps the heading it had: the camera cannot see which way it faces.
        if is_symmetric(scenario, &seen.shape) {
            seen.pose = Pose::new(seen.pose.x_in, seen.pose.y_in, was.pose.heading_deg);
        }
        placements.push(placement(&id, &seen));
    }
    // Units still free, for sightings that matched nobody: off-table units first,
    // those with a setup pose ordered by distance.
    let on_table_before: HashSet<&str> = previous
        .map(|t| t.pieces.iter().map(|p| p.id.as_str()).collect())
        .unwrap_or_default();
    let mut strays = Vec::new();
    for &j in &pairs.unmatched_new {
        let s = &settled[j];
        let free = scenario
            .units
            .iter()
            .filter(|u| {
                !used.contains(&u.id)
                    && !reserved.contains(&u.id)
                    && !on_table_before.contains(u.id.as_str())
                    && u.side == s.colour
                    && shape_of(scenario, u) == s.shape
            })
            .min_by(|a, b| setup_distance(a, s).total_cmp(&setup_distance(b, s)));
        match free {
            Some(unit) => {
                used.insert(unit.id.clone());
                placements.push(placement(&unit.id, s));
            }
            None => {
                tracing::warn!(
                    colour = %s.colour, shape = %s.shape, x_in = s.pose.x_in, y_in = s.pose.y_in,
                    "a piece on the table matches no free unit of the scenario"
                );
                strays.push(s.clone());
            }
        }
    }
    (placements, strays)
}

/// What moving a piece at all costs in [`identify`]'s assignment, in inches of travel.
const MOVE_PENALTY_IN: f64 = 2.0;
/// What changing a piece's status costs in that assignment.
const FLIP_PENALTY_IN: f64 = 1.0;

/// Units with no setup pose sort after every unit with one.
fn setup_distance(unit: &Unit, s: &Sighting) -> f64 {
    unit.setup
        .map(|p| (p.x_in - s.pose.x_in).hypot(p.y_in - s.pose.y_in))
        .unwrap_or(f64::INFINITY)
}

fn setup_sightings(scenario: &Scenario) -> Vec<(String, Sighting)> {
    scenario
        .units
        .iter()
        .filter_map(|u| {
            u.setup.map(|p| {
                (
                    u.id.clone(),
                    Sighting {
                        shape: shape_of(scenario, u).to_owned(),
                        colour: u.side.clone(),
                        pose: Pose::new(p.x_in, p.y_in, p.heading_deg),
                        status: p.status,
                    },
                )
            })
        })
        .collect()
}

fn placement(id: &str, s: &Sighting) -> Placement {
    Placement {
        id: id.to_owned(),
        x_in: s.pose.x_in,
        y_in: s.pose.y_in,
        heading_deg: s.pose.heading_deg,
        status: s.status,
    }
}
