//! Tracking: from a sequence of stable table states to what the players did.
//!
//! The camera half (identity across frames, hands over the table, settle detection)
//! needs the vision stage and comes later; it will hand this module one stable
//! [`TableState`](crate::table::TableState) at a time. What is here already is the other
//! half: the events between two stable states, judged by the rules.

pub mod events;

pub use events::{Event, EventDeriver, Move, Stillness, TerrainCrossed};
