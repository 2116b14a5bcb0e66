//! Dice that know the rules: a fair, replayable generator, dice notation, Pub Battles
//! combat and the chit cup.
//!
//! Everything here is plain values in, plain values out. The only randomness is a
//! [`Roller`], one per roll, whose OS-drawn seed is the roll's [`RollId`]: keep the id and
//! the roll can be shown again exactly. Geometry (cover, flank, range, contact) is decided
//! by the rules engine from the table and handed in as facts; this module turns those facts
//! into dice, modifiers and results, and explains each step.

pub mod chits;
pub mod combat;
mod notation;
mod rng;

pub use notation::{
    DieRoll, Keep, MAX_ADJUST, MAX_DICE, MAX_SIDES, Notation, Outcome, ParseError, RollReport,
    Scoring,
};
pub use rng::{Die, EntropyError, RollId, RollIdError, Roller};
