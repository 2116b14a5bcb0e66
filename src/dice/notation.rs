//! Dice notation: every roll a wargame table asks for, written the way players say it.
//!
//! ```text
//! roll    := [count] "d" sides [keep] [hits | total]
//! keep    := ("kh" | "k" | "kl" | "dh" | "dl") n      keep/drop highest/lowest n dice
//! hits    := ("hits" | "hit") ["on"] threshold "+" [["at"] ±m]
//! total   := ±m                                        added once to the sum
//! ```
//!
//! Examples: `3d6 hits 4+` (a Pub Battles volley: "4 or more is a hit"), `3d6 hits 4+ -1`
//! and `3d6 hits on 4+ at -1` (each die modified by -1 before it is read), `2d6`, `2d6+1`,
//! `d3` (the 1,1,2,2,3,3 die), `d8` (the black turn die), `4d6 dl1`, `2d6 kh1`. Case and
//! spaces between words do not matter.
//!
//! The grammar is small and fixed, so a hand-written reader is shorter than a parser crate's
//! combinators and gives the one thing players need from an error: the column of the
//! character that is wrong, with a caret under it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{Die, RollId, Roller};

/// The most dice one roll may throw; more is a typo, not a wargame.
pub const MAX_DICE: u8 = 100;
/// The most faces a die may have (d100).
pub const MAX_SIDES: u8 = 100;
/// The largest modifier or threshold accepted.
pub const MAX_ADJUST: i32 = 99;

/// Which dice of a roll count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "rule", content = "n")]
pub enum Keep {
    Highest(u8),
    Lowest(u8),
    DropHighest(u8),
    DropLowest(u8),
}

/// How the kept dice become a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum Scoring {
    /// Add the kept faces, then the modifier once.
    Sum { modifier: i32 },
    /// Add the modifier to every kept die; each die reading `threshold` or more is a hit.
    Hits { threshold: i32, modifier: i32 },
}

/// A parsed roll such as `3d6 hits 4+ -1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notation {
    pub count: u8,
    pub die: Die,
    pub keep: Option<Keep>,
    pub scoring: Scoring,
}

/// One die of a roll, before and after its modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DieRoll {
    /// The face as it landed.
    pub face: u8,
    /// False when a keep/drop rule set the die aside.
    pub kept: bool,
    /// The face plus the per-die modifier (hits mode), or the face (sum mode).
    pub modified: i32,
    /// Hits mode: whether this die scored. Always false for dropped dice and sums.
    pub hit: bool,
}

/// The result of a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum Outcome {
    Total(i32),
    Hits(u32),
}

/// Everything needed to show a roll to a person or store it in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollReport {
    pub roll_id: RollId,
    /// The roll in canonical notation (`3d6 hits 4+ -1`).
    pub notation: String,
    pub dice: Vec<DieRoll>,
    pub outcome: Outcome,
}

impl Notation {
    /// `count` dice hitting on `threshold`+ with a per-die `modifier`: a Pub Battles volley.
    pub fn hits(count: u8, threshold: i32, modifier: i32) -> Self {
        Notation {
            count,
            die: Die::D6,
            keep: None,
            scoring: Scoring::Hits {
                threshold,
                modifier,
            },
        }
    }

    /// Throw the dice and read them.
    pub fn roll(&self, roller: &mut Roller) -> RollReport {
        let faces = roller.roll_many(usize::from(self.count), self.die);
        self.read(roller.id(), &faces)
    }

    /// Read faces that have already been thrown (a replay, or dice rolled by hand).
    pub fn read(&self, roll_id: RollId, faces: &[u8]) -> RollReport {
        let kept = self.kept_mask(faces);
        let (per_die, threshold) = match self.scoring {
            Scoring::Sum { .. } => (0, None),
            Scoring::Hits {
                threshold,
                modifier,
            } => (modifier, Some(threshold)),
        };
        let dice: Vec<DieRoll> = faces
            .iter()
            .zip(kept)
            .map(|(&face, kept)| {
                let modified = i32::from(face) + per_die;
                DieRoll {
                    face,
                    kept,
                    modified,
                    hit: kept && threshold.is_some_and(|t| modified >= t),
                }
            })
            .collect();
        let outcome = match self.scoring {
            Scoring::Sum { modifier } => Outcome::Total(
                dice.iter()
                    .filter(|d| d.kept)
                    .map(|d| d.modified)
                    .sum::<i32>()
                    + modifier,
            ),
            Scoring::Hits { .. } => Outcome::Hits(count_hits(&dice)),
        };
        RollReport {
            roll_id,
            notation: self.to_string(),
            dice,
            outcome,
        }
    }

    /// Which dice the keep/drop rule keeps; among equal faces the earlier die is kept.
    fn kept_mask(&self, faces: &[u8]) -> Vec<bool> {
        let Some(keep) = self.keep else {
            return vec![true; faces.len()];
        };
        // Dice ranked highest first; ties in throw order.
        let mut ranked: Vec<usize> = (0..faces.len()).collect();
        ranked.sort_by(|&a, &b| faces[b].cmp(&faces[a]).then(a.cmp(&b)));
        let len = faces.len();
        let keep_ranks = match keep {
            Keep::Highest(n) => 0..usize::from(n),
            Keep::DropLowest(n) => 0..len - usize::from(n),
            Keep::Lowest(n) => len - usize::from(n)..len,
            Keep::DropHighest(n) => usize::from(n)..len,
        };
        let mut mask = vec![false; len];
        for &die in &ranked[keep_ranks] {
            mask[die] = true;
        }
        mask
    }
}

fn count_hits(dice: &[DieRoll]) -> u32 {
    dice.iter().filter(|d| d.hit).count() as u32
}

impl RollReport {
    /// Dice that scored a hit; 0 for a sum.
    pub fn hits(&self) -> u32 {
        count_hits(&self.dice)
    }
}

fn signed(f: &mut fmt::Formatter<'_>, value: i32) -> fmt::Result {
    if value != 0 {
        write!(f, "{value:+}")?;
    }
    Ok(())
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count != 1 {
            write!(f, "{}", self.count)?;
        }
        write!(f, "{}", self.die)?;
        match self.keep {
            Some(Keep::Highest(n)) => write!(f, " kh{n}")?,
            Some(Keep::Lowest(n)) => write!(f, " kl{n}")?,
            Some(Keep::DropHighest(n)) => write!(f, " dh{n}")?,
            Some(Keep::DropLowest(n)) => write!(f, " dl{n}")?,
            None => {}
        }
        match self.scoring {
            Scoring::Sum { modifier } => signed(f, modifier),
            Scoring::Hits {
                threshold,
                modifier,
            } => {
                write!(f, " hits {threshold}+")?;
                if modifier != 0 {
                    f.write_str(" ")?;
                }
                signed(f, modifier)
            }
        }
    }
}

/// A breakdown for a person: one line per die, before and after its modifier, then the
/// result.
impl fmt::Display for RollReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}  (roll {})", self.notation, self.roll_id)?;
        for (i, die) in self.dice.iter().enumerate() {
            write!(f, "  die {}: {}", i + 1, die.face)?;
            let adjust = die.modified - i32::from(die.face);
            if adjust != 0 {
                write!(f, " {adjust:+} = {}", die.modified)?;
            }
            match (die.kept, &self.outcome) {
                (false, _) => f.write_str("  dropped")?,
                (true, Outcome::Hits(_)) => {
                    f.write_str(if die.hit { "  hit" } else { "  miss" })?
                }
                (true, Outcome::Total(_)) => {}
            }
            writeln!(f)?;
        }
        match self.outcome {
            Outcome::Hits(1) => write!(f, "  1 hit"),
            Outcome::Hits(n) => write!(f, "  {n} hits"),
            Outcome::Total(total) => {
                let dice: i32 = self
                    .dice
                    .iter()
                    .filter(|d| d.kept)
                    .map(|d| d.modified)
                    .sum();
                match total - dice {
                    0 => write!(f, "  total {total}"),
                    adjust => write!(f, "  total {dice} {adjust:+} = {total}"),
                }
            }
        }
    }
}

/// A roll that cannot be read, with the 0-based column of the offending character.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message} at column {}\n  {input}\n  {caret}^", column + 1, caret = " ".repeat(*column))]
pub struct ParseError {
    pub input: String,
    pub column: usize,
    pub message: String,
}

impl FromStr for Notation {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Reader::new(s).notation()
    }
}

/// A cursor over the characters of one roll.
struct Reader<'a> {
    input: &'a str,
    chars: Vec<char>,
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(input: &'a str) -> Self {
        Reader {
            input,
            chars: input.chars().collect(),
            pos: 0,
        }
    }

    fn error_at(&self, column: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            input: self.input.to_owned(),
            column,
            message: message.into(),
        }
    }

    /// An error at the current character, naming it (or the end of the roll).
    fn unexpected(&self, expected: &str) -> ParseError {
        let found = match self.chars.get(self.pos) {
            Some(c) => format!("found `{c}`"),
            None => "the roll ends".to_owned(),
        };
        self.error_at(self.pos, format!("expected {expected}, {found}"))
    }

    fn skip_spaces(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_spaces();
        self.pos == self.chars.len()
    }

    /// Consume `word` (case-insensitive) if it comes next.
    fn eat(&mut self, word: &str) -> bool {
        self.skip_spaces();
        let n = word.chars().count();
        let next = self.chars.iter().skip(self.pos).take(n);
        if next.clone().count() == n
            && next
                .zip(word.chars())
                .all(|(a, b)| a.eq_ignore_ascii_case(&b))
        {
            self.pos += n;
            true
        } else {
            false
        }
    }

    /// A run of digits, with the column where it starts.
    fn number(&mut self, what: &str) -> Result<(i32, usize), ParseError> {
        self.skip_spaces();
        let start = self.pos;
        while self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.unexpected(what));
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        match digits.parse::<i32>() {
            Ok(n) if n <= i32::from(u8::MAX) => Ok((n, start)),
            _ => Err(self.error_at(start, format!("{what} {digits} is too large"))),
        }
    }

    /// A number between `min` and `max`, explaining the bounds when it is not.
    fn bounded(&mut self, what: &str, min: i32, max: i32) -> Result<i32, ParseError> {
        let (n, at) = self.number(what)?;
        if (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(self.error_at(at, format!("{what} must be {min} to {max}, not {n}")))
        }
    }

    /// `+m` or `-m`; `expected` says what else could have stood here.
    fn signed(&mut self, what: &str, expected: &str) -> Result<i32, ParseError> {
        let sign = if self.eat("+") {
            1
        } else if self.eat("-") {
            -1
        } else {
            return Err(self.unexpected(expected));
        };
        Ok(sign * self.bounded(what, 0, MAX_ADJUST)?)
    }

    fn notation(&mut self) -> Result<Notation, ParseError> {
        self.skip_spaces();
        let count = if self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
            self.bounded("dice count", 1, i32::from(MAX_DICE))? as u8
        } else {
            1
        };
        if !self.eat("d") {
            return Err(self.unexpected("`d` (as in 3d6)"));
        }
        let die = match self.bounded("number of sides", 2, i32::from(MAX_SIDES))? as u8 {
            3 => Die::D3,
            n => Die::Sides(n),
        };
        let keep = self.keep(count)?;
        let scoring = if self.eat("hits") || self.eat("hit") {
            self.eat("on");
            let threshold = self.bounded("hit threshold", 1, MAX_ADJUST)?;
            if !self.eat("+") {
                return Err(self.unexpected("`+` after the hit threshold (4+)"));
            }
            self.eat("at");
            let modifier = if self.at_end() {
                0
            } else {
                self.signed("per-die modifier", "a per-die modifier such as -1")?
            };
            Scoring::Hits {
                threshold,
                modifier,
            }
        } else if self.at_end() {
            Scoring::Sum { modifier: 0 }
        } else {
            Scoring::Sum {
                modifier: self.signed(
                    "modifier",
                    "`hits 4+`, a keep rule (kh, kl, dh, dl) or a modifier such as +1",
                )?,
            }
        };
        if !self.at_end() {
            return Err(self.unexpected("the end of the roll"));
        }
        Ok(Notation {
            count,
            die,
            keep,
            scoring,
        })
    }

    /// `kh2`, `k2`, `kl1`, `dh1`, `dl1`; a keep must leave at least one die and drop none
    /// that is not there.
    fn keep(&mut self, count: u8) -> Result<Option<Keep>, ParseError> {
        // (rule, whether it drops): a keep leaves 1..=count dice, a drop removes 1..count.
        let (rule, drops): (fn(u8) -> Keep, bool) = if self.eat("kh") {
            (Keep::Highest, false)
        } else if self.eat("kl") {
            (Keep::Lowest, false)
        } else if self.eat("dh") {
            (Keep::DropHighest, true)
        } else if self.eat("dl") {
            (Keep::DropLowest, true)
        } else if self.eat("k") {
            (Keep::Highest, false)
        } else {
            return Ok(None);
        };
        let max = if drops {
            i32::from(count) - 1
        } else {
            i32::from(count)
        };
        if max < 1 {
            return Err(self.error_at(self.pos, format!("cannot drop dice from a roll of {count}")));
        }
        Ok(Some(rule(self.bounded("keep/drop count", 1, max)? as u8)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_round_trips() {
        for text in [
            "3d6 hits 4+ -1",
            "3d6 hits 4+",
            "2d6",
            "2d6+1",
            "d3",
            "d8",
            "4d6 dl1",
            "2d6 kh1",
            "5d10 kl2 hits 6+ +2",
        ] {
            let parsed: Notation = text.parse().unwrap();
            assert_eq!(parsed.to_string(), text);
        }
    }

    #[test]
    fn read_marks_kept_dice_and_ties_keep_the_earlier_die() {
        let n: Notation = "4d6 kh2".parse().unwrap();
        let report = n.read(RollId(0), &[5, 2, 5, 6]);
        let kept: Vec<bool> = report.dice.iter().map(|d| d.kept).collect();
        assert_eq!(kept, [true, false, false, true]);
        assert_eq!(report.outcome, Outcome::Total(11));
    }
}
