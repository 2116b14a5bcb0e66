//! What happened between two stable table states, told as events that name units.
//!
//! The tracker hands over a stable [`TableState`] each time the table has been still
//! long enough; the difference between the previous stable state and the new one is
//! what the players did while their hands were over the table. This module turns that
//! difference into [`Event`]s and judges every move with the rules, so the log says not
//! only "the Guard moved 3.07 in" but also "…and that was 0.75 in too far".
//!
//! Only the two end states are known, never the path in between: a move is judged as
//! the rules engine judges any move, along the straight line between the two centres
//! (see `rules::pub_battles::movement`), against the table as it stood before. When
//! several pieces moved between two stable states, each is judged as if it had moved
//! first, with every other piece where it stood before.

use geo::{Intersects, Line};
use serde::{Deserialize, Serialize};

use crate::geom::heading_difference;
use crate::rules::{MoveVerdict, RuleSet, for_scenario};
use crate::scenario::{Scenario, TerrainFeature, TerrainKind};
use crate::table::{Piece, Pose, Status, TableState};

/// Below both of these a piece has not moved: a hand brushing it, or the detector's
/// noise between two frames. 0.05 in matches the rules engine's own "a centre has not
/// moved"; 3 degrees is under the rules' 5 degree facing tolerance, so a real pivot is
/// still reported while a block nudged square again is not.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stillness {
    pub distance_in: f64,
    pub facing_deg: f64,
}

impl Default for Stillness {
    fn default() -> Self {
        Self {
            distance_in: 0.05,
            facing_deg: 3.0,
        }
    }
}

/// One thing that happened on the table between two stable states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// The piece changed place or facing. A piece that moved and also turned spent
    /// (or fresh) gives a `Moved` followed by a `Flipped`.
    Moved(Move),
    /// Turned fresh or spent without leaving its place (a flip in place is not a move).
    Flipped {
        unit: String,
        from: Status,
        to: Status,
    },
    /// Gone from the table: eliminated or moved off the map edge.
    Removed {
        unit: String,
        last_pose: Pose,
        last_status: Status,
    },
    /// Appeared on the table: a reinforcement, or a unit brought back.
    Added {
        unit: String,
        pose: Pose,
        status: Status,
    },
    /// A person named the piece at `pose` on the page: it is `unit`, which the tracker
    /// had called `was` (the two names swapped). Nothing moved: later moves are measured
    /// from the same blocks under their right names.
    Identified {
        unit: String,
        was: String,
        pose: Pose,
    },
    /// A person (at seat `by`) said the piece at `pose` is not a piece: ink, glare, a
    /// dropped die. The tracker had called it `unit` ("" when it had left it without a
    /// unit); it left the table without a removal and the tracker ignores a detection
    /// like it there until the place changes (see [`Tracker::veto`]).
    ///
    /// [`Tracker::veto`]: super::Tracker::veto
    Vetoed {
        unit: String,
        pose: Pose,
        status: Status,
        by: String,
        /// The detection's shape and side colour, so that a restart rebuilds the veto
        /// from the journal alone (see [`Tracker::restore`]); a detection left without
        /// a unit has no other record of them. Empty in journals written before.
        ///
        /// [`Tracker::restore`]: super::Tracker::restore
        #[serde(default)]
        shape: String,
        #[serde(default)]
        colour: String,
    },
    /// The place vetoed at `pose` (the [`Event::Vetoed`] of `unit`) changed, so the veto
    /// no longer holds: whatever stands there is seen again. The tracker decides it from
    /// the frames (see [`Tracker::screen`]); journaled so that a restart does not bring a
    /// lifted veto back.
    ///
    /// [`Tracker::screen`]: super::Tracker
    Lifted { unit: String, pose: Pose },
    /// A person (at seat `by`) put a piece the camera misses on the table by hand. The
    /// tracker holds it there until the camera sees a piece at that place.
    Placed {
        unit: String,
        pose: Pose,
        status: Status,
        by: String,
    },
    /// A person (at seat `by`) took back a piece placed by hand before the camera saw it.
    Unplaced {
        unit: String,
        pose: Pose,
        by: String,
    },
    /// The camera saw a piece where one had been placed by hand, and took it over: its
    /// pose is now the camera's. Not a move: the block stood there all along.
    Seen {
        unit: String,
        placed: Pose,
        pose: Pose,
    },
}

impl Event {
    /// The unit the event is about.
    pub fn unit(&self) -> &str {
        match self {
            Event::Moved(m) => &m.unit,
            Event::Flipped { unit, .. }
            | Event::Removed { unit, .. }
            | Event::Added { unit, .. }
            | Event::Identified { unit, .. }
            | Event::Vetoed { unit, .. }
            | Event::Lifted { unit, .. }
            | Event::Placed { unit, .. }
            | Event::Unplaced { unit, .. }
            | Event::Seen { unit, .. } => unit,
        }
    }

    /// "moved", "flipped", "removed", "added", "identified", "vetoed", "lifted",
    /// "placed", "unplaced" or "seen": the tag the JSON form carries.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Moved(_) => "moved",
            Event::Flipped { .. } => "flipped",
            Event::Removed { .. } => "removed",
            Event::Added { .. } => "added",
            Event::Identified { .. } => "identified",
            Event::Vetoed { .. } => "vetoed",
            Event::Lifted { .. } => "lifted",
            Event::Placed { .. } => "placed",
            Event::Unplaced { .. } => "unplaced",
            Event::Seen { .. } => "seen",
        }
    }

    /// The seat that made a person's correction, for those that record it.
    pub fn by(&self) -> Option<&str> {
        match self {
            Event::Vetoed { by, .. } | Event::Placed { by, .. } | Event::Unplaced { by, .. } => {
                Some(by)
            }
            _ => None,
        }
    }
}

/// A move, with what the rules said about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Move {
    pub unit: String,
    pub from: Pose,
    pub to: Pose,
    /// Centre to centre, in inches.
    pub distance_in: f64,
    /// The smallest turn between the two headings, in [0, 180] degrees.
    pub facing_change_deg: f64,
    /// Terrain the straight path or the end footprint touches, in map order.
    pub terrain_crossed: Vec<TerrainCrossed>,
    /// The rules' verdict, judged against the table before the move.
    pub verdict: MoveVerdict,
}

/// A terrain feature a move went through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerrainCrossed {
    pub kind: TerrainKind,
    pub id: Option<String>,
    pub name: Option<String>,
}

/// Derives events with the rules a scenario names: built once by the tracker, asked
/// after every stable state. It owns no borrow, so it can live in a long-lived service
/// state next to the scenario it is asked about.
pub struct EventDeriver {
    rules: Box<dyn RuleSet>,
    pub stillness: Stillness,
}

impl EventDeriver {
    pub fn new(scenario: &Scenario) -> Self {
        Self {
            rules: for_scenario(scenario),
            stillness: Stillness::default(),
        }
    }

    /// The events that turn `before` into `after` on a table of `scenario`: moves (and
    /// flips) in the order the pieces appear in `after`, then additions, then removals in
    /// `before`'s order. `night` applies the night turn's limits to the moves.
    pub fn events(
        &self,
        scenario: &Scenario,
        before: &TableState,
        after: &TableState,
        night: bool,
    ) -> Vec<Event> {
        let mut events = Vec::new();
        let mut added = Vec::new();
        for now in &after.pieces {
            let Some(was) = before.piece(&now.id) else {
                added.push(Event::Added {
                    unit: now.id.clone(),
                    pose: now.pose,
                    status: now.status,
                });
                continue;
            };
            if self.moved(was.pose, now.pose) {
                events.push(Event::Moved(self.judge(scenario, before, was, now, night)));
            }
            if was.status != now.status {
                events.push(Event::Flipped {
                    unit: now.id.clone(),
                    from: was.status,
                    to: now.status,
                });
            }
        }
        events.extend(added);
        events.extend(
            before
                .pieces
                .iter()
                .filter(|p| after.piece(&p.id).is_none())
                .map(|p| Event::Removed {
                    unit: p.id.clone(),
                    last_pose: p.pose,
                    last_status: p.status,
                }),
        );
        events
    }

    fn moved(&self, from: Pose, to: Pose) -> bool {
        let distance = (to.x_in - from.x_in).hypot(to.y_in - from.y_in);
        distance >= self.stillness.distance_in
            || heading_difference(from.heading_deg, to.heading_deg) >= self.stillness.facing_deg
    }

    fn judge(
        &self,
        scenario: &Scenario,
        before: &TableState,
        was: &Piece,
        now: &Piece,
        night: bool,
    ) -> Move {
        let verdict = self
            .rules
            .check_move(scenario, before, was, now.pose, now.status, night);
        Move {
            unit: now.id.clone(),
            from: was.pose,
            to: now.pose,
            distance_in: verdict.distance_in,
            facing_change_deg: heading_difference(was.pose.heading_deg, now.pose.heading_deg),
            terrain_crossed: terrain_crossed(scenario, was, now),
            verdict,
        }
    }
}

/// Terrain the straight path or the end footprint of a move touches, in map order.
fn terrain_crossed(scenario: &Scenario, was: &Piece, now: &Piece) -> Vec<TerrainCrossed> {
    let path = Line::new(was.footprint.center, now.footprint.center);
    let end = now.footprint.polygon();
    scenario
        .terrain
        .features
        .iter()
        .filter(|f| match (&f.line, f.kind) {
            // A crest has no area: crossing it is crossing its line.
            (Some(line), TerrainKind::Crest) => line.intersects(&path),
            _ => f.area.intersects(&path) || f.area.intersects(&end),
        })
        .map(|f| TerrainCrossed {
            kind: f.kind,
            id: f.id.clone(),
            name: f.name.clone().or_else(|| crest_name(scenario, f)),
        })
        .collect()
}

/// A crest is rarely named itself; "Windmill Knoll crest" says which one it was.
fn crest_name(scenario: &Scenario, crest: &TerrainFeature) -> Option<String> {
    let hill = crest.hill.as_deref()?;
    scenario
        .terrain
        .features
        .iter()
        .find(|f| f.kind == TerrainKind::Hill && f.id.as_deref() == Some(hill))
        .and_then(|f| f.name.as_ref())
        .map(|name| format!("{name} crest"))
}
