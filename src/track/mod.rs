//! Tracking: from the detector's frames to what the players did.
//!
//! [`tracker`] follows the table frame by frame, waits for hands to leave and the
//! table to be still, and commits a stable [`TableState`](crate::table::TableState)
//! whose pieces carry the scenario's unit ids. [`events`] tells the difference between
//! two stable states as events, each move judged by the rules. [`script`] plays a
//! scripted game as detector frames (noise, dropouts, hands) for tests and benchmarks.

pub mod events;
pub mod script;
pub mod tracker;

pub use events::{Event, EventDeriver, Move, Stillness, TerrainCrossed};
pub use tracker::{
    AssignError, Identification, Observation, Restored, Sighting, Tracker, TrackerConfig,
    TrackerView,
};
