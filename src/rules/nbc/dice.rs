//! The dice of [NBC]: the Pot and artillery fire.
//!
//! "A Pot is a transparent container holding 5 dice. One red, two white and two green.
//! This allows all variations of 1 through to 5 dice to be thrown with one action".

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{Aspect, Nbc};
use crate::dice::{Die, RollId, Roller};
use crate::rules::{RuleSet as _, TableRollError};
use crate::scenario::{ArtilleryWeight, Scenario};
use crate::table::{TableState, UnitKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PotColour {
    Red,
    White,
    Green,
}

/// The Pot's five dice in a fixed order: red, white, white, green, green.
pub const POT: [PotColour; 5] = [
    PotColour::Red,
    PotColour::White,
    PotColour::White,
    PotColour::Green,
    PotColour::Green,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PotDie {
    pub colour: PotColour,
    pub value: u8,
    /// Whether the die counts for the number of dice the throw is for.
    pub counts: bool,
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error("the Pot throws 1 to 5 dice, not {0}")]
pub struct PotError(pub usize);

/// Which Pot dice count for `n` dice: "1 die Red die only counts. 2 dice Both white dice
/// only count. 3 dice Both white dice and the red die count. 4 dice Both white dice and
/// both green dice count. 5 dice All dice count."
pub fn counting(n: usize) -> Result<[bool; 5], PotError> {
    Ok(match n {
        1 => [true, false, false, false, false],
        2 => [false, true, true, false, false],
        3 => [true, true, true, false, false],
        4 => [false, true, true, true, true],
        5 => [true; 5],
        other => return Err(PotError(other)),
    })
}

/// Throw the Pot for `n` dice: all five are thrown, the right colours count.
pub fn throw_pot(roller: &mut Roller, n: usize) -> Result<Vec<PotDie>, PotError> {
    let counts = counting(n)?;
    Ok(POT
        .iter()
        .zip(counts)
        .map(|(&colour, counts)| PotDie {
            colour,
            value: roller.roll(Die::D6),
            counts,
        })
        .collect())
}

/// The artillery range bands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Band {
    Short,
    Medium,
    Long,
}

/// The band and base dice for a weight at a distance (cm), or None beyond Long range.
/// "Heavy 0-10cm (4) 11-20cm (3) 21-30cm (2); Medium 0-8cm (4) 9-17cm (3) 18-25cm (1);
/// Light 0-7cm (5) 8-13cm (2) 14-20cm (1)". The bands are whole centimetres; a distance
/// belongs to a band up to and including its upper figure (10.0 cm is Short for a heavy
/// battery, 10.01 cm Medium). Light at Short reads 5 dice in the text, more than a
/// heavy battery's 4; the digest flags it as a likely typo, but it is what is printed.
pub fn band(weight: ArtilleryWeight, distance_cm: f64) -> Option<(Band, u32)> {
    let table: [(f64, Band, u32); 3] = match weight {
        ArtilleryWeight::Heavy => [
            (10.0, Band::Short, 4),
            (20.0, Band::Medium, 3),
            (30.0, Band::Long, 2),
        ],
        ArtilleryWeight::Medium => [
            (8.0, Band::Short, 4),
            (17.0, Band::Medium, 3),
            (25.0, Band::Long, 1),
        ],
        ArtilleryWeight::Light => [
            (7.0, Band::Short, 5),
            (13.0, Band::Medium, 2),
            (20.0, Band::Long, 1),
        ],
    };
    table
        .into_iter()
        .find(|(max, _, _)| distance_cm <= *max)
        .map(|(_, b, d)| (b, d))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fatigue {
    #[default]
    Fresh,
    Tired,
    Exhausted,
}

/// Everything an artillery shot needs that the table does not show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtilleryFire {
    pub weight: ArtilleryWeight,
    pub distance_cm: f64,
    /// The battery's quality rating Q1 to Q6.
    pub q: u8,
    /// "If the artillery Unit is at a different level to its target".
    pub different_level: bool,
    /// The target has skirmishers deployed.
    pub target_skirmishers: bool,
    /// The battery is Disordered: hits only on a 6.
    pub disordered: bool,
    pub fatigue: Fatigue,
    /// Reasons for the bonus re-roll of misses: "Firing into Flank of Target. Target is
    /// within 5cm of un-disordered enemy cavalry. Target is subject to a Redeploy or
    /// Strategic Movement Formation Order."
    pub reroll_because: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirePlan {
    pub band: Band,
    pub dice: u32,
    /// Each change to the dice, with its reason.
    pub adjustments: Vec<(i32, String)>,
    /// The lowest modified score that hits.
    pub hit_on: u8,
    /// Taken off every die: "Tired units get -1 to die rolls and Exhausted Units get -2".
    pub die_modifier: i32,
    pub reroll_misses: bool,
}

#[derive(Debug, Error, PartialEq)]
#[error("{distance_cm} cm is beyond Long range for this battery")]
pub struct OutOfRange {
    pub distance_cm: f64,
}

/// The dice an artillery shot throws and what hits.
pub fn plan(fire: &ArtilleryFire) -> Result<FirePlan, OutOfRange> {
    let (band, base) = band(fire.weight, fire.distance_cm).ok_or(OutOfRange {
        distance_cm: fire.distance_cm,
    })?;
    let mut adjustments = Vec::new();
    if fire.q >= 5 {
        adjustments.push((1, format!("Q{} battery: one extra dice", fire.q)));
    }
    let plunging = fire.different_level && band != Band::Short;
    if plunging {
        adjustments.push((-1, "plunging fire: different level, not at Short".into()));
    }
    if fire.target_skirmishers && band != Band::Long && !plunging {
        adjustments.push((-1, "target's skirmishers at Short or Medium range".into()));
    }
    let dice = (base as i32 + adjustments.iter().map(|(v, _)| v).sum::<i32>()).max(0) as u32;
    Ok(FirePlan {
        band,
        dice,
        adjustments,
        hit_on: if fire.disordered { 6 } else { 5 },
        die_modifier: match fire.fatigue {
            Fatigue::Fresh => 0,
            Fatigue::Tired => -1,
            Fatigue::Exhausted => -2,
        },
        reroll_misses: !fire.reroll_because.is_empty(),
    })
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FireResult {
    pub plan: FirePlan,
    pub first: Vec<u8>,
    /// The re-thrown misses ("Re-roll misses once only"), if any.
    pub rerolled: Vec<u8>,
    pub hits: u32,
}

/// Throw an artillery shot: the dice (six-sided; a 6-die shot is more than one Pot
/// holds, so plain dice are thrown), the hits, and the misses re-thrown once if a
/// bonus re-roll applies.
pub fn fire(roller: &mut Roller, fire: &ArtilleryFire) -> Result<FireResult, OutOfRange> {
    let plan = plan(fire)?;
    let first = roller.roll_many(plan.dice as usize, Die::D6);
    let hits_in = |dice: &[u8]| {
        dice.iter()
            .filter(|&&d| i32::from(d) + plan.die_modifier >= i32::from(plan.hit_on))
            .count() as u32
    };
    let first_hits = hits_in(&first);
    let rerolled = if plan.reroll_misses {
        roller.roll_many(first.len() - first_hits as usize, Die::D6)
    } else {
        Vec::new()
    };
    let hits = first_hits + hits_in(&rerolled);
    Ok(FireResult {
        plan,
        first,
        rerolled,
        hits,
    })
}

/// A battery's fire rolled on the table, as `aide roll --bombard` and the page roll it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableFire {
    pub gun: String,
    pub target: String,
    pub roll_id: RollId,
    pub fire: ArtilleryFire,
    pub result: FireResult,
}

/// GUN fires at TARGET if the table allows it; a GUN that is no battery is refused with
/// the reason the page has no other combat for NBC (the text has no Close Combat). The battery is taken as Fresh and
/// un-disordered and the target without skirmishers: the table does not show those
/// markers. The bonus re-roll of misses is earned by "Firing into Flank of Target" and
/// "Target is within 5cm of un-disordered enemy cavalry".
pub fn fire_on_table(
    scenario: &Scenario,
    table: &TableState,
    gun: &str,
    target: &str,
    roller: &mut Roller,
) -> Result<TableFire, TableRollError> {
    let on_table = |id: &str| {
        table
            .piece(id)
            .ok_or_else(|| TableRollError::NotOnTable(id.to_owned()))
    };
    let (gun_piece, target_piece) = (on_table(gun)?, on_table(target)?);
    if !gun_piece.kind.is_artillery() {
        return Err(TableRollError::Refused(format!(
            "{gun} is not a battery, and only artillery fire is rolled here: NBC's Firefight and Close Combat are not in the rules text (v1.1 pages 1-24, which stop in the Artillery Phase); roll their dice with dice notation"
        )));
    }
    let report = Nbc.check_table(scenario, table);
    let shot = report
        .pieces
        .iter()
        .find(|p| p.id == gun)
        .and_then(|p| p.nbc.as_ref())
        .and_then(|n| n.artillery.iter().find(|t| t.target == target))
        .ok_or_else(|| {
            TableRollError::Refused(format!(
                "{target} is not within Long range of battery {gun:?}"
            ))
        })?;
    if !shot.allowed {
        return Err(TableRollError::Refused(format!(
            "{gun} may not fire at {target}: {}",
            shot.reason
        )));
    }
    let unit = scenario
        .unit(gun)
        .ok_or_else(|| TableRollError::NotOnTable(gun.to_owned()))?;
    let weight = unit
        .weight
        .ok_or_else(|| TableRollError::Refused(format!("{gun} is not a battery")))?;
    let mut reroll_because = Vec::new();
    if matches!(shot.into, Aspect::LeftFlank | Aspect::RightFlank) {
        reroll_because.push("firing into the target's flank".to_owned());
    }
    if let Some(cav) = table.pieces.iter().find(|p| {
        p.side == gun_piece.side
            && matches!(p.kind, UnitKind::Cavalry | UnitKind::Dragoons)
            && crate::geom::edge_distance(&p.footprint.polygon(), &target_piece.footprint.polygon())
                * crate::model::CM_PER_IN
                <= 5.0
    }) {
        reroll_because.push(format!("target within 5 cm of {} (cavalry)", cav.id));
    }
    let fire = ArtilleryFire {
        weight,
        distance_cm: shot.distance_cm,
        q: unit.q.unwrap_or(3),
        different_level: shot.different_level,
        target_skirmishers: false,
        disordered: false,
        fatigue: Fatigue::Fresh,
        reroll_because,
    };
    let roll_id = roller.id();
    let result = self::fire(roller, &fire).map_err(|e| TableRollError::Refused(e.to_string()))?;
    Ok(TableFire {
        gun: gun.to_owned(),
        target: target.to_owned(),
        roll_id,
        fire,
        result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::RollId;

    #[test]
    fn pot_counts_the_right_colours() {
        let colours = |n| -> Vec<PotColour> {
            POT.iter()
                .zip(counting(n).unwrap())
                .filter(|(_, c)| *c)
                .map(|(p, _)| *p)
                .collect()
        };
        assert_eq!(colours(1), vec![PotColour::Red]);
        assert_eq!(colours(2), vec![PotColour::White; 2]);
        assert_eq!(
            colours(3),
            vec![PotColour::Red, PotColour::White, PotColour::White]
        );
        assert_eq!(
            colours(4),
            vec![
                PotColour::White,
                PotColour::White,
                PotColour::Green,
                PotColour::Green
            ]
        );
        assert_eq!(colours(5).len(), 5);
        assert_eq!(counting(0), Err(PotError(0)));
        assert_eq!(counting(6), Err(PotError(6)));
        let mut roller = Roller::replay(RollId(9));
        let pot = throw_pot(&mut roller, 3).unwrap();
        assert_eq!(pot.len(), 5);
        assert_eq!(pot.iter().filter(|d| d.counts).count(), 3);
        assert_eq!(pot, throw_pot(&mut Roller::replay(RollId(9)), 3).unwrap());
    }

    #[test]
    fn bands_either_side_of_each_limit() {
        use ArtilleryWeight::*;
        assert_eq!(band(Heavy, 10.0), Some((Band::Short, 4)));
        assert_eq!(band(Heavy, 10.01), Some((Band::Medium, 3)));
        assert_eq!(band(Heavy, 30.0), Some((Band::Long, 2)));
        assert_eq!(band(Heavy, 30.01), None);
        assert_eq!(band(Medium, 8.0), Some((Band::Short, 4)));
        assert_eq!(band(Medium, 17.5), Some((Band::Long, 1)));
        assert_eq!(band(Medium, 25.01), None);
        assert_eq!(band(Light, 7.0), Some((Band::Short, 5)));
        assert_eq!(band(Light, 13.0), Some((Band::Medium, 2)));
        assert_eq!(band(Light, 20.0), Some((Band::Long, 1)));
        assert_eq!(band(Light, 20.5), None);
    }

    fn shot(weight: ArtilleryWeight, d: f64) -> ArtilleryFire {
        ArtilleryFire {
            weight,
            distance_cm: d,
            q: 3,
            different_level: false,
            target_skirmishers: false,
            disordered: false,
            fatigue: Fatigue::Fresh,
            reroll_because: Vec::new(),
        }
    }

    #[test]
    fn dice_adjustments() {
        // Heavy at 15 cm (Medium, 3 dice), Q5: 4 dice.
        let mut f = shot(ArtilleryWeight::Heavy, 15.0);
        f.q = 5;
        assert_eq!(plan(&f).unwrap().dice, 4);
        // Plus plunging fire: 3. Skirmishers do not stack with plunging: still 3.
        f.different_level = true;
        f.target_skirmishers = true;
        assert_eq!(plan(&f).unwrap().dice, 3);
        // At Short range plunging does not apply, skirmishers do: 4 + 1 - 1 = 4.
        f.distance_cm = 5.0;
        assert_eq!(plan(&f).unwrap().dice, 4);
        // At Long range skirmishers do not apply; plunging does: 2 + 1 - 1 = 2.
        f.distance_cm = 25.0;
        assert_eq!(plan(&f).unwrap().dice, 2);
        f.disordered = true;
        f.fatigue = Fatigue::Exhausted;
        let p = plan(&f).unwrap();
        assert_eq!((p.hit_on, p.die_modifier), (6, -2));
        assert!(plan(&shot(ArtilleryWeight::Light, 21.0)).is_err());
    }

    #[test]
    fn hits_on_five_or_six_and_misses_rerolled_once() {
        let f = shot(ArtilleryWeight::Light, 5.0);
        let r = fire(&mut Roller::replay(RollId(3)), &f).unwrap();
        assert_eq!(r.first.len(), 5);
        assert_eq!(r.hits, r.first.iter().filter(|&&d| d >= 5).count() as u32);
        assert!(r.rerolled.is_empty());
        let mut f2 = f.clone();
        f2.reroll_because = vec!["into flank".into()];
        let r2 = fire(&mut Roller::replay(RollId(3)), &f2).unwrap();
        // Same first throw (same seed); every miss thrown again.
        assert_eq!(r2.first, r.first);
        assert_eq!(r2.rerolled.len() as u32, 5 - r.hits);
        assert_eq!(
            r2.hits,
            r.hits + r2.rerolled.iter().filter(|&&d| d >= 5).count() as u32
        );
        // Exhausted: -2 on every die, so nothing hits (6 - 2 = 4 < 5).
        let mut f3 = f.clone();
        f3.fatigue = Fatigue::Exhausted;
        assert_eq!(fire(&mut Roller::replay(RollId(3)), &f3).unwrap().hits, 0);
    }
}
