//! The chit cup: who moves next, the 3.2 Alter rolls, and the turn counter.
//!
//! "Instead of players alternating turns to move all their forces and then attack, both
//! sides move 1 Command at a time during the movement phase in random order by chit pull.
//! Players may try to alter the chit pull with their HQs by rolling to delay their move or
//! jump ahead." (3.2, translated.)
//!
//! The turn, as 3.2 lists it: 1. put all active chits in a bag; 2. draw 1 chit at random;
//! 3. allow any Fresh HQ to alter the draw; 4. move that command's units; 5. repeat 2–4
//! until the bag is empty; 6. resolve combat; 7. rotate all HQs to Fresh; 8. rotate the
//! black die to a new turn. [`ChitCup`] is that loop as a plain state machine: serde keeps
//! it in the journal, a [`Roller`] per draw or Alter roll makes each replayable.

use std::collections::VecDeque;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use thiserror::Error;

use super::{Die, RollId, Roller};
use crate::table::Status;

/// "There are 8 regular turns in a day, followed by 1 Night Turn."
pub const DAY_TURNS: u8 = 8;

/// Where the black turn die stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// Battle day, from 1.
    pub day: u32,
    /// 1 to 8 by day; 9 is the night turn ("no attacks or bombardments").
    pub number: u8,
}

impl Turn {
    /// A turn as a scenario gives it; `None` outside 1..=9.
    pub fn new(day: u32, number: u8) -> Option<Self> {
        (day >= 1 && (1..=DAY_TURNS + 1).contains(&number)).then_some(Turn { day, number })
    }

    pub fn is_night(self) -> bool {
        self.number > DAY_TURNS
    }

    /// The turn after this one: the night follows turn 8, a new day follows the night.
    pub fn next(self) -> Self {
        if self.is_night() {
            Turn {
                day: self.day + 1,
                number: 1,
            }
        } else {
            Turn {
                day: self.day,
                number: self.number + 1,
            }
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_night() {
            write!(f, "day {}, night turn", self.day)
        } else {
            write!(f, "day {}, turn {}", self.day, self.number)
        }
    }
}

/// One command's chit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Chit {
    pub command: String,
    /// The side's colour; the only thing the opponent sees of a hidden draw.
    pub side: String,
}

/// A headquarters that may roll to Alter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hq {
    /// The command it leads; for the army commander, its own name.
    pub command: String,
    pub side: String,
    /// Command rating: an Alter roll succeeds on a d6 at or under it.
    pub rating: u8,
    #[serde(default)]
    pub status: Status,
    /// The Army Commander, who "can also roll for one of its subordinate HQs".
    #[serde(default)]
    pub army: bool,
}

/// The two ways to Alter a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlterKind {
    /// "If your chit has been drawn and you don't want to move now, you may try to Delay
    /// your move: roll 1 die less than or equal to your HQ value. If successful, draw a new
    /// chit at random to move next in place of yours, THEN return your chit to the bag. If
    /// your roll fails, you must move now as drawn."
    Delay,
    /// "If you want to move before the chit drawn, you may try to jump ahead and move
    /// first: roll 1 die less than or equal to your HQ value. If successful, take out your
    /// chit to move next. Leave the drawn chit out. It will move immediately after you, and
    /// before you draw a new chit. If you fail the roll, leave your chit in the bag. The
    /// drawn chit will move normally."
    ///
    /// A Jump does not close the window: "Other HQs may then attempt to move before this"
    /// (3.0). A later jumper moves first, then the earlier jumpers, then the drawn chit.
    Jump,
}

/// One Alter attempt, as announced at the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub kind: AlterKind,
    /// The HQ that rolls (and flips Spent).
    pub hq: String,
    /// The command whose chit moves: the rolling HQ's own, or, for the army commander, a
    /// subordinate's.
    pub command: String,
    /// The army commander is within Command Range of that subordinate (the rules engine
    /// measures it). Ignored when an HQ rolls for its own command.
    #[serde(default)]
    pub in_range: bool,
}

/// What an Alter roll did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlterReport {
    pub roll_id: RollId,
    pub attempt: Attempt,
    pub die: u8,
    pub rating: u8,
    pub success: bool,
    /// A successful Delay draws another chit in place of the delayed one.
    pub drawn_instead: Option<Chit>,
}

/// A chit out of the cup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draw {
    /// The roll that picked it; `None` when it moves up behind a successful Jump without
    /// a draw. Replaying it picks the same chit from the same bag, so the journal keeps
    /// the cup's state beside the id.
    pub roll_id: Option<RollId>,
    pub chit: Chit,
}

/// The chit that moves now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Current {
    pub chit: Chit,
    /// HQs may still roll to Alter this draw: true from a random draw (or the chit a
    /// successful Delay draws instead) until the move finishes, successful Jumps included;
    /// false for a chit that comes up from [`ChitCup::queued`].
    pub alter_open: bool,
}

/// What the cup refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChitError {
    #[error("two chits for command {0}")]
    DuplicateChit(String),
    #[error("HQ {0} has rating {1}: ratings run from 1 to 6")]
    BadRating(String, u8),
    #[error("{0} is still moving: finish its move first")]
    StillMoving(String),
    #[error("no command is moving")]
    NothingMoving,
    #[error("the bag is empty: resolve combat and end the turn")]
    BagEmpty,
    #[error("commands are still to move: {0} chits left")]
    TurnNotOver(usize),
    #[error("no Alter now: HQs may alter only right after a chit is drawn")]
    NoAlterWindow,
    #[error("no HQ {0}")]
    UnknownHq(String),
    #[error("HQ {0} is spent: it has already tried to Alter this turn")]
    HqSpent(String),
    #[error("HQ {0} may roll only for its own command unless it is the army commander")]
    NotArmyCommander(String),
    #[error("the army commander {0} must be in command range of {1} to roll for it")]
    OutOfRange(String, String),
    #[error("{0} is not the other side's to alter")]
    WrongSide(String),
    #[error("only the chit just drawn can Delay, and that is {0}")]
    NotTheDrawnChit(String),
    #[error("no chit is left in the bag to move instead")]
    NothingToDrawInstead,
    #[error("{0}'s chit is not in the bag, so it cannot Jump")]
    NotInBag(String),
    #[error(
        "a Jump has already gone ahead of the drawn chit: {0} cannot Delay now, only another Jump may go first"
    )]
    DelayAfterJump(String),
}

/// The cup, the turn die and the HQs' Alter flags.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChitCup {
    pub turn: Turn,
    pub bag: Vec<Chit>,
    /// Chits that have moved this turn, in order: combat order in some rules follows it.
    pub moved: Vec<Chit>,
    pub current: Option<Current>,
    /// Chits that move after the current one, in order, before a new chit is drawn: the
    /// drawn chit a successful Jump left out ("It will move immediately after you, and
    /// before you draw a new chit"), and ahead of it every earlier jumper that a later
    /// Jump went in front of. Journals written when this held one chit stored `null` or a
    /// single object; both still load.
    #[serde(default, deserialize_with = "queued_compat")]
    pub queued: VecDeque<Chit>,
    pub hqs: Vec<Hq>,
}

impl ChitCup {
    /// A full cup at the start of `turn`, every HQ fresh.
    pub fn new(turn: Turn, chits: Vec<Chit>, mut hqs: Vec<Hq>) -> Result<Self, ChitError> {
        for (i, chit) in chits.iter().enumerate() {
            if chits[..i].iter().any(|c| c.command == chit.command) {
                return Err(ChitError::DuplicateChit(chit.command.clone()));
            }
        }
        for hq in &mut hqs {
            if !(1..=6).contains(&hq.rating) {
                return Err(ChitError::BadRating(hq.command.clone(), hq.rating));
            }
            hq.status = Status::Fresh;
        }
        Ok(ChitCup {
            turn,
            bag: chits,
            moved: Vec::new(),
            current: None,
            queued: VecDeque::new(),
            hqs,
        })
    }

    /// Take the next chit: the first of those Jumps left out if there are any, otherwise
    /// one at random from the bag. HQs may then roll to Alter a random draw.
    pub fn draw(&mut self, roller: &mut Roller) -> Result<Draw, ChitError> {
        if let Some(current) = &self.current {
            return Err(ChitError::StillMoving(current.chit.command.clone()));
        }
        let draw = match self.queued.pop_front() {
            Some(chit) => Draw {
                roll_id: None,
                chit,
            },
            None if self.bag.is_empty() => return Err(ChitError::BagEmpty),
            None => Draw {
                roll_id: Some(roller.id()),
                chit: self.bag.remove(roller.index(self.bag.len())),
            },
        };
        self.current = Some(Current {
            chit: draw.chit.clone(),
            alter_open: draw.roll_id.is_some(),
        });
        Ok(draw)
    }

    fn hq_index(&self, command: &str) -> Result<usize, ChitError> {
        self.hqs
            .iter()
            .position(|h| h.command == command)
            .ok_or_else(|| ChitError::UnknownHq(command.to_owned()))
    }

    /// Roll to Alter the chit just drawn. "Successful or not, flip your HQ to the spent
    /// side (flag up) after an attempt." "After an Alter attempt, other Fresh HQs may roll
    /// to Alter. Make the Alter rolls in the announced order. There is no limit to the
    /// number of Alter attempts per draw as long as players are willing and have Fresh HQs
    /// left" (3.2, translated), so the window stays open until the move ends, a successful
    /// Jump included: "Move Now: Jump ahead in sequence and move before the pulled Chit.
    /// Other HQs may then attempt to move before this" (3.0). Any fresh HQ of either side
    /// may then Jump ahead of the jumper; the jumper and the drawn chit wait, in that
    /// order, in [`ChitCup::queued`].
    ///
    /// Once a Jump has succeeded on this draw a Delay is refused
    /// ([`ChitError::DelayAfterJump`]): Delay is for "If your chit has been drawn and you
    /// don't want to move now", and instead "draw a new chit at random to move next in
    /// place of yours", but after a Jump the drawn chit does not move now, and its place is
    /// fixed: "It will move immediately after you, and before you draw a new chit". The
    /// jumper's chit was not drawn, and 3.0 lets the others only "attempt to move before
    /// this". No die is thrown and no HQ is spent for a refused attempt.
    ///
    /// "The Army Commander can also roll for one of its subordinate HQs, if it is within
    /// their Command Range (it can do this on the same draw, even if the subordinate HQ
    /// just failed its roll)."
    pub fn alter(
        &mut self,
        roller: &mut Roller,
        attempt: Attempt,
    ) -> Result<AlterReport, ChitError> {
        let current = match &self.current {
            Some(c) if c.alter_open => c.chit.clone(),
            _ => return Err(ChitError::NoAlterWindow),
        };
        let roller_index = self.hq_index(&attempt.hq)?;
        let hq = &self.hqs[roller_index];
        if hq.status == Status::Spent {
            return Err(ChitError::HqSpent(hq.command.clone()));
        }
        if attempt.command != hq.command {
            if !hq.army {
                return Err(ChitError::NotArmyCommander(hq.command.clone()));
            }
            if !attempt.in_range {
                return Err(ChitError::OutOfRange(
                    hq.command.clone(),
                    attempt.command.clone(),
                ));
            }
        }
        let side = hq.side.clone();
        let rating = hq.rating;
        /// What a success will do, checked before the die is thrown.
        enum Plan {
            Delay,
            /// Jump with the chit at this place in the bag.
            Jump(usize),
        }
        let bag_slot = self.bag.iter().position(|c| c.command == attempt.command);
        // With the window open, chits wait outside the bag only behind a Jump on this draw.
        let jumped = !self.queued.is_empty();
        let (plan, chit_side) = match (attempt.kind, bag_slot) {
            (AlterKind::Delay, _) if jumped => {
                return Err(ChitError::DelayAfterJump(attempt.command));
            }
            (AlterKind::Delay, _) if current.command != attempt.command => {
                return Err(ChitError::NotTheDrawnChit(current.command));
            }
            (AlterKind::Delay, _) if self.bag.is_empty() => {
                return Err(ChitError::NothingToDrawInstead);
            }
            (AlterKind::Delay, _) => (Plan::Delay, &current.side),
            (AlterKind::Jump, Some(slot)) => (Plan::Jump(slot), &self.bag[slot].side),
            (AlterKind::Jump, None) => return Err(ChitError::NotInBag(attempt.command)),
        };
        if *chit_side != side {
            return Err(ChitError::WrongSide(attempt.command));
        }
        let die = roller.roll(Die::D6);
        let success = die <= rating;
        self.hqs[roller_index].status = Status::Spent;
        let mut drawn_instead = None;
        if success {
            match plan {
                Plan::Delay => {
                    let instead = self.bag.remove(roller.index(self.bag.len()));
                    self.bag.push(current);
                    self.current = Some(Current {
                        chit: instead.clone(),
                        alter_open: true,
                    });
                    drawn_instead = Some(instead);
                }
                Plan::Jump(slot) => {
                    let jumper = self.bag.remove(slot);
                    // The chit that was to move now (the drawn one, or an earlier jumper)
                    // moves right after this one.
                    self.queued.push_front(current);
                    self.current = Some(Current {
                        chit: jumper,
                        alter_open: true,
                    });
                }
            }
        }
        Ok(AlterReport {
            roll_id: roller.id(),
            attempt,
            die,
            rating,
            success,
            drawn_instead,
        })
    }

    /// The moving command is done ("you don't have to move any unit when your chit comes
    /// up").
    pub fn finish_move(&mut self) -> Result<Chit, ChitError> {
        let current = self.current.take().ok_or(ChitError::NothingMoving)?;
        self.moved.push(current.chit.clone());
        Ok(current.chit)
    }

    /// Every chit has moved: time to resolve combat, then [`ChitCup::end_turn`].
    pub fn all_moved(&self) -> bool {
        self.bag.is_empty() && self.current.is_none() && self.queued.is_empty()
    }

    /// After combat: "Rotate all HQs to Fresh", "rotate the black die to a new turn", and
    /// put the chits back in the bag.
    pub fn end_turn(&mut self) -> Result<Turn, ChitError> {
        if !self.all_moved() {
            let left = self.bag.len() + usize::from(self.current.is_some()) + self.queued.len();
            return Err(ChitError::TurnNotOver(left));
        }
        for hq in &mut self.hqs {
            hq.status = Status::Fresh;
        }
        self.bag.append(&mut self.moved);
        self.turn = self.turn.next();
        Ok(self.turn)
    }

    /// The cup as one side may see it. "When drawing chits, it is best to keep the actual
    /// Corps number hidden so the enemy cannot be sure who has moved and who is left": the
    /// owner sees the command, the opponent only the colour.
    pub fn view(&self, viewer_side: &str) -> CupView {
        self.view_for(|chit| chit.side == viewer_side)
    }

    /// The cup as a viewer sees it who reads the command of the chits `reads` accepts
    /// and only the colour of the others: everything for the umpire, colours only for a
    /// spectator.
    pub fn view_for(&self, reads: impl Fn(&Chit) -> bool) -> CupView {
        let seen = |chit: &Chit| SeenChit {
            side: chit.side.clone(),
            command: reads(chit).then(|| chit.command.clone()),
        };
        CupView {
            turn: self.turn,
            current: self.current.as_ref().map(|c| seen(&c.chit)),
            moved: self.moved.iter().map(seen).collect(),
            in_bag: self.bag.len() + self.queued.len(),
        }
    }
}

/// [`ChitCup::queued`] as stored now (a list), or as journals stored it when it held at
/// most one chit (`null` or one chit object).
fn queued_compat<'de, D: Deserializer<'de>>(d: D) -> Result<VecDeque<Chit>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Many(VecDeque<Chit>),
        One(Chit),
    }
    Ok(match Option::<Stored>::deserialize(d)? {
        None => VecDeque::new(),
        Some(Stored::Many(chits)) => chits,
        Some(Stored::One(chit)) => VecDeque::from([chit]),
    })
}

/// A chit as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenChit {
    pub side: String,
    /// `None` when the viewer is the opponent.
    pub command: Option<String>,
}

/// What one side's phone shows of the cup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CupView {
    pub turn: Turn,
    pub current: Option<SeenChit>,
    pub moved: Vec<SeenChit>,
    /// Chits still to move after the current one.
    pub in_bag: usize,
}
