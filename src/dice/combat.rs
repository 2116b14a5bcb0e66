//! Pub Battles combat: dice per piece, fire modifiers with their reasons, the hit table, and
//! rounds until the combat breaks.
//!
//! The rules engine measures the table (who is in cover, who takes whom in flank, who came
//! across a river, who stands in road column) and hands those facts in as [`FireFacts`].
//! This module turns them into dice and results by the 3.2 rules (3.0 as a variant) and
//! writes down every step, so the phone can show each modifier with its reason before the
//! dice are thrown ([`plan`]) and every die before and after once they are ([`Volley`]).
//!
//! Rules quoted here are from Pub Battles 3.2 (Spanish, translated) unless marked [3.0].
//!
//! How the rules engine drives a combat:
//!
//! ```
//! use aide::dice::combat::{Choice, Combat, Combatant, Cover, Edition, Engagement, FireFacts, Phase, Side};
//! use aide::dice::Roller;
//! use aide::table::UnitKind;
//!
//! let red = Combatant::new("red-1", UnitKind::Infantry);
//! let blue = Combatant::new("blue-a", UnitKind::Infantry);
//! let mut fight = Combat::new(Edition::V32, Engagement::Contact, red, blue)?;
//! // Facts the engine measured: blue stands in woods, so red fires at -1.
//! let red_shot = FireFacts { target_cover: vec![Cover::Woods], ..FireFacts::default() };
//! let blue_shot = FireFacts::default();
//! let plans = fight.preview(&red_shot, &blue_shot)?; // shown before the dice
//! assert_eq!(plans[0].notation().to_string(), "3d6 hits 4+ -1");
//! while fight.phase != Phase::Broken {
//!     let round = fight.fire(&mut Roller::from_os()?, &red_shot, &blue_shot)?;
//!     println!("{round}"); // every modifier and die; round.volleys[i].roll.roll_id replays it
//!     for side in [Side::Defender, Side::Attacker] {
//!         let lead = if side == Side::Attacker { &fight.attacker } else { &fight.defender };
//!         let choice = if lead.exit.is_some() { Choice::Retreat } else { Choice::Stay };
//!         fight.decide(side, choice)?;
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{Notation, RollReport, Roller};
use crate::table::{Piece, Quality, Status, UnitKind};

/// "Hits with results of 4, 5, 6."
pub const HIT_ON: i32 = 4;

/// Which rule book decides dice and who fires first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Edition {
    /// 3.2, the default: one dice count per kind, combat by contact.
    #[default]
    V32,
    /// 3.0: separate Melee and Fire dice, artillery always fires first.
    V30,
}

/// How the two pieces meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engagement {
    /// Pieces in contact: every 3.2 combat, and a 3.0 Melee.
    Contact,
    /// [3.0] "A Combat is two opposing pieces in Melee (contact) or a Fire Fight (in FoF)."
    FireFight,
    /// Artillery firing, instead of moving, at a target up to one foot move away.
    Bombardment,
}

/// Which side of a combat a piece is on. Cover protects only the defender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// "The Attacker is the piece that moved creating the contact."
    Attacker,
    Defender,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::Attacker => Side::Defender,
            Side::Defender => Side::Attacker,
        }
    }
}

/// Terrain that gives the target cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cover {
    Woods,
    Buildings,
    /// A hill, when the attacker came from lower ground.
    Hill,
}

/// Why a piece counts as taken in flank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flank {
    /// "The attacker's centre must be behind the defender's front."
    Geometry,
    /// A piece that attacked across a river counts as flanked, in the first round only.
    RiverCrossing,
    /// [3.0] Road Column: "Treat as Flanked."
    RoadColumn,
    /// "When a supported defender is attacked front and rear, Support breaks. Treat this
    /// as 2 separate combats, with both defenders as Flanked."
    Envelopment,
}

/// What the table says about one shot, measured by the rules engine.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireFacts {
    /// Terrain that puts the target in cover (several kinds still count once).
    #[serde(default)]
    pub target_cover: Vec<Cover>,
    /// The ways this shot takes the target in flank.
    #[serde(default)]
    pub target_flanked: Vec<Flank>,
    /// The ways the target flanks the shooter.
    #[serde(default)]
    pub shooter_flanked: Vec<Flank>,
}

/// A change to every die of a volley, with the reason a person reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Modifier {
    pub value: i32,
    pub reason: String,
}

impl Modifier {
    pub fn new(value: i32, reason: impl Into<String>) -> Self {
        Modifier {
            value,
            reason: reason.into(),
        }
    }
}

/// A piece as combat sees it. The rules engine builds one from the table and scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Combatant {
    pub id: String,
    pub kind: UnitKind,
    #[serde(default)]
    pub quality: Quality,
    #[serde(default)]
    pub status: Status,
    /// A friendly piece stands behind this one in support.
    #[serde(default)]
    pub supported: bool,
    /// Scenario rules the engine adds to this piece's fire ("Guard: +1"), each with its
    /// reason; the standard cover and flank modifiers come from [`FireFacts`] instead.
    #[serde(default)]
    pub modifiers: Vec<Modifier>,
    /// The piece has taken a hit earlier in this combat, so elite and militia rules are
    /// spent. [`Combat`] keeps it; callers starting a new combat leave it false.
    #[serde(default)]
    pub first_hit_taken: bool,
}

impl Combatant {
    /// A fresh, regular, unsupported piece with no scenario modifiers.
    pub fn new(id: impl Into<String>, kind: UnitKind) -> Self {
        Combatant {
            id: id.into(),
            kind,
            quality: Quality::Regular,
            status: Status::Fresh,
            supported: false,
            modifiers: Vec::new(),
            first_hit_taken: false,
        }
    }
}

/// A piece on the table as it enters a combat: unsupported and without scenario modifiers
/// until the rules engine says otherwise.
impl From<&Piece> for Combatant {
    fn from(piece: &Piece) -> Self {
        Combatant {
            quality: piece.quality,
            status: piece.status,
            ..Combatant::new(piece.id.clone(), piece.kind)
        }
    }
}

/// What a combat or a roll was asked to do that the rules forbid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CombatError {
    #[error(
        "{0} is a {1:?}: HQs and supply trains do not fight (a train in contact at the start of combat is destroyed outright)"
    )]
    NotAFighter(String, UnitKind),
    #[error(
        "{0} is artillery: \"Artillery CAN DEFEND (even without Support) but cannot advance to attack\""
    )]
    ArtilleryCannotAttack(String),
    #[error("{0} is artillery: \"Artillery can receive Support but cannot Support\"")]
    ArtilleryCannotSupport(String),
    #[error("no attacks or bombardments at night: \"Sin ataques ni bombardeos\" (3.2, Night Turn)")]
    NightTurn,
    #[error("a bombardment is one shot, not a combat: use bombard()")]
    BombardmentIsNotACombat,
    #[error("{0} cannot bombard: only Fresh artillery bombards")]
    CannotBombard(String),
    #[error("{0} is a supply train: \"Bombardment does not affect Supply Trains\"")]
    TrainImmune(String),
    #[error(
        "{0} is unsupported artillery in contact: \"artillery can only Retreat IF it has Support\""
    )]
    ArtilleryCannotRetreat(String),
    #[error("it is not the time to {0}: the combat is at {1:?}")]
    OutOfTurn(&'static str, Phase),
    #[error(
        "the {0:?}'s lead piece {1} is out of the combat: it cannot stay, only step up a supporter or retreat"
    )]
    LeadIsOut(Side, String),
    #[error(
        "the {0:?}'s lead piece {1} is still fighting: a supporter can only step up when it is gone"
    )]
    LeadStillIn(Side, String),
}

/// Whether the dice may be thrown at all this turn. "Turno Nocturno: Saca fichas y mover
/// como siempre, excepto: Sin ataques ni bombardeos." [3.2] Every combat and bombardment
/// rolled from the table asks here first.
pub fn daylight(night: bool) -> Result<(), CombatError> {
    if night {
        Err(CombatError::NightTurn)
    } else {
        Ok(())
    }
}

/// Dice a piece throws.
///
/// 3.2: "Infantry, Cavalry & Artillery 3; Dragoons 2; Detachments 1", and "the Quality or
/// State (Fresh / Spent) of the unit does not affect how it fires".
/// [3.0] Melee / Fire: Infantry 3/2, Artillery 3/3, Cavalry 3/0, Dragoons 2/1;
/// "Bombardment uses Fire dice". 3.0 has no detachments; they keep their 3.2 single die.
pub fn dice_for(
    edition: Edition,
    engagement: Engagement,
    piece: &Combatant,
) -> Result<u8, CombatError> {
    use UnitKind::*;
    let melee = matches!(
        (edition, engagement),
        (Edition::V32, _) | (Edition::V30, Engagement::Contact)
    );
    Ok(match piece.kind {
        Hq | ArmyHq | SupplyTrain => {
            return Err(CombatError::NotAFighter(piece.id.clone(), piece.kind));
        }
        Detachment => 1,
        Artillery | HorseArtillery => 3,
        Infantry if melee => 3,
        Infantry => 2,
        Cavalry if melee => 3,
        Cavalry => 0,
        Dragoons if melee => 2,
        Dragoons => 1,
    })
}

fn flank_word(flank: Flank) -> &'static str {
    match flank {
        Flank::Geometry => "flank",
        Flank::RiverCrossing => "attacked across a river",
        Flank::RoadColumn => "road column",
        Flank::Envelopment => "enveloped",
    }
}

fn cover_word(cover: Cover) -> &'static str {
    match cover {
        Cover::Woods => "woods",
        Cover::Buildings => "buildings",
        Cover::Hill => "hill",
    }
}

/// Which flank reasons hold this round: "The blue piece in front would get a +1 flank
/// bonus, but only for round 1" (attacking across a river).
fn flanks_this_round(flanks: &[Flank], round: u32, notes: &mut Vec<String>) -> Vec<Flank> {
    let mut held: Vec<Flank> = Vec::new();
    for &flank in flanks {
        if flank == Flank::RiverCrossing && round > 1 {
            notes.push(format!(
                "river crossing no longer counts as a flank in round {round}: it holds for round 1 only"
            ));
        } else if !held.contains(&flank) {
            held.push(flank);
        }
    }
    held
}

fn joined<T: Copy>(items: &[T], word: fn(T) -> &'static str) -> String {
    items
        .iter()
        .map(|&i| word(i))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The modifiers of one shot and the notes explaining rules that held a modifier back.
///
/// - "Attackers firing at a Defender in Cover suffer a -1 modifier." Bombardment fires
///   "with terrain effects", so it counts as an attacker here.
/// - "Firing at a Defender on a Hill and in the Woods is still -1, not -2, since it is
///   still only Cover."
/// - "Firing at the Flank of a unit gives you +1. Firing at a unit that flanks you is -1."
/// - "Firing at the flank of a unit that has just attacked across a river is still +1, not
///   +2, since it is still only flank fire."
/// - "Flanking (including river and road column effects) is in addition to Cover. So
///   Flanking attacking a Defender in the Woods would be +1 -1 = 0 for the Attacker. The
///   Defender would still fire at -1."
/// - Terrain chart, Buildings: "Defenders cannot be Flanked."
fn modifiers(
    role: Side,
    round: u32,
    facts: &FireFacts,
    shooter: &Combatant,
) -> (Vec<Modifier>, Vec<String>) {
    let mut mods = Vec::new();
    let mut notes = Vec::new();
    let mut cover = facts.target_cover.clone();
    cover.dedup();
    if !cover.is_empty() {
        if role == Side::Attacker {
            mods.push(Modifier::new(
                -1,
                format!("target in cover ({})", joined(&cover, cover_word)),
            ));
            if cover.len() > 1 {
                notes.push(
                    "several kinds of cover are still -1, not -2: it is still only cover".into(),
                );
            }
        } else {
            notes.push("the attacker's cover does not count: only attackers firing at a defender in cover suffer -1".into());
        }
    }
    let target_flanked = flanks_this_round(&facts.target_flanked, round, &mut notes);
    if !target_flanked.is_empty() {
        if role == Side::Attacker && cover.contains(&Cover::Buildings) {
            notes.push("defenders in buildings cannot be flanked: no +1".into());
        } else {
            mods.push(Modifier::new(
                1,
                format!(
                    "firing at the target's flank ({})",
                    joined(&target_flanked, flank_word)
                ),
            ));
            if target_flanked.len() > 1 {
                notes.push("a flank is +1 however many ways it is flanked, not +2".into());
            }
        }
    }
    let shooter_flanked = flanks_this_round(&facts.shooter_flanked, round, &mut notes);
    if !shooter_flanked.is_empty() {
        mods.push(Modifier::new(
            -1,
            format!(
                "firing at a piece that flanks you ({})",
                joined(&shooter_flanked, flank_word)
            ),
        ));
    }
    mods.extend(shooter.modifiers.iter().cloned());
    (mods, notes)
}

/// One shot as it will be thrown: shown to the players before the dice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirePlan {
    pub shooter: String,
    pub target: String,
    pub dice: u8,
    /// Each die hits on this or more after the modifiers.
    pub threshold: i32,
    pub modifiers: Vec<Modifier>,
    /// Rules that held a modifier back, in words.
    pub notes: Vec<String>,
}

impl FirePlan {
    /// The sum of all modifiers, applied to every die.
    pub fn total_modifier(&self) -> i32 {
        self.modifiers.iter().map(|m| m.value).sum()
    }

    /// The shot as dice notation, e.g. `3d6 hits 4+ -1`.
    pub fn notation(&self) -> Notation {
        Notation::hits(self.dice, self.threshold, self.total_modifier())
    }
}

/// One shot: who fires at whom in which round, and what the table says about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shot {
    pub edition: Edition,
    pub engagement: Engagement,
    /// The shooter's side; a bombardment counts as an attacker.
    pub role: Side,
    /// Combat round, from 1.
    pub round: u32,
    pub facts: FireFacts,
}

/// Dice and modifiers for a shot, before anything is thrown.
pub fn plan(shot: &Shot, shooter: &Combatant, target: &Combatant) -> Result<FirePlan, CombatError> {
    let dice = dice_for(shot.edition, shot.engagement, shooter)?;
    // The same check refuses targets that do not fight (HQs, trains).
    dice_for(shot.edition, shot.engagement, target)?;
    let (modifiers, mut notes) = modifiers(shot.role, shot.round, &shot.facts, shooter);
    if dice == 0 {
        notes.push(format!("{} has no dice in a 3.0 fire fight", shooter.id));
    }
    Ok(FirePlan {
        shooter: shooter.id.clone(),
        target: target.id.clone(),
        dice,
        threshold: HIT_ON,
        modifiers,
        notes,
    })
}

/// A row of the hit table, after quality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    NoEffect,
    Spent,
    SpentAndRetreat,
    Retreat,
    Eliminated,
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Effect::NoEffect => "no effect",
            Effect::Spent => "becomes spent",
            Effect::SpentAndRetreat => "becomes spent and retreats",
            Effect::Retreat => "must retreat",
            Effect::Eliminated => "eliminated",
        })
    }
}

/// What the hits of one volley did to the target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HitResult {
    /// Hits the dice scored.
    pub scored: u32,
    /// Hits after elite absorbed or militia doubled the first.
    pub counted: u32,
    pub status_before: Status,
    pub effect: Effect,
    pub status_after: Status,
    /// Each rule that changed the result, in words.
    pub notes: Vec<String>,
}

/// The hit table:
///
/// | hits | Fresh unit        | Spent unit  |
/// |------|-------------------|-------------|
/// | 1    | becomes Spent     | must Retreat|
/// | 2    | Spent and Retreats| Eliminated  |
/// | 3    | Eliminated        | Eliminated  |
///
/// "Apply these hits per round." "Excess hits are wasted. Do not apply them to the
/// supporting pieces."
fn hit_table(status: Status, hits: u32) -> Effect {
    match (status, hits) {
        (_, 0) => Effect::NoEffect,
        (Status::Fresh, 1) => Effect::Spent,
        (Status::Fresh, 2) => Effect::SpentAndRetreat,
        (Status::Spent, 1) => Effect::Retreat,
        _ => Effect::Eliminated,
    }
}

/// Apply a volley's hits to its target and change the target's status.
///
/// - "Elite troops absorb the first hit of a combat without effect. If the unit absorbed 1
///   hit from a bombardment earlier in the turn, it will still absorb the first hit in a
///   combat. It does not carry over." Gold stickers are Guards, elite troops: they absorb
///   too.
/// - "Green/militia troops count their first hit in a combat as 2 hits."
/// - "Detachments roll only 1 die in a combat and are destroyed by 1 hit. They are not
///   destroyed if hit by a bombardment. They simply retreat."
/// - "Bombardment can force pieces to retreat, but cannot destroy them."
/// - "A Retreat result on unsupported Artillery destroys it" (in contact).
///   [3.0] "Artillery forced to retreat (as a result of hits) in Melee, is destroyed."
pub fn apply_hits(
    target: &mut Combatant,
    scored: u32,
    edition: Edition,
    engagement: Engagement,
) -> HitResult {
    let bombardment = engagement == Engagement::Bombardment;
    let mut notes = Vec::new();
    let mut counted = scored;
    // A bombardment is not a combat: its first hit is elite-absorbed (or militia-doubled)
    // on its own, and the combat's first hit is still to come ("It does not carry over").
    let first = scored > 0 && (bombardment || !target.first_hit_taken);
    if first && !bombardment {
        target.first_hit_taken = true;
    }
    if first {
        match target.quality {
            Quality::Elite | Quality::Guard => {
                counted -= 1;
                notes.push("elite: absorbs the first hit of the combat".into());
            }
            Quality::Militia => {
                counted += 1;
                notes.push("militia: the first hit of the combat counts as 2".into());
            }
            Quality::Regular => {}
        }
    }
    let mut effect = if target.kind == UnitKind::Detachment && counted > 0 {
        notes.push("detachment: destroyed by 1 hit".into());
        Effect::Eliminated
    } else {
        hit_table(target.status, counted)
    };
    if bombardment && effect == Effect::Eliminated {
        effect = match (target.kind, target.status) {
            (UnitKind::Detachment, _) | (_, Status::Spent) => Effect::Retreat,
            (_, Status::Fresh) => Effect::SpentAndRetreat,
        };
        notes.push("bombardment cannot destroy: the piece retreats instead".into());
    }
    let gun_cannot_retreat = engagement == Engagement::Contact
        && target.kind.is_artillery()
        && (edition == Edition::V30 || !target.supported);
    if gun_cannot_retreat && matches!(effect, Effect::Retreat | Effect::SpentAndRetreat) {
        effect = Effect::Eliminated;
        notes.push(match edition {
            Edition::V32 => {
                "unsupported artillery forced to retreat from contact is destroyed".into()
            }
            Edition::V30 => "artillery forced to retreat in melee is destroyed".into(),
        });
    }
    let status_before = target.status;
    if matches!(effect, Effect::Spent | Effect::SpentAndRetreat) {
        target.status = Status::Spent;
    }
    HitResult {
        scored,
        counted,
        status_before,
        effect,
        status_after: target.status,
        notes,
    }
}

/// One shot thrown and applied: the breakdown shown after the dice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Volley {
    pub plan: FirePlan,
    /// Every die before and after the modifiers.
    pub roll: RollReport,
    pub result: HitResult,
}

/// Plan, throw and apply one shot. The rules engine uses this for the extra pieces of a
/// multi-piece combat, which "fire in the order they became involved".
///
/// Terrain chart, Buildings [3.0/3.2]: "Pieces in Buildings become Spent and cannot
/// Rally." A target the facts put in buildings takes its hits as Spent whichever side
/// is up: one hit makes it retreat, two destroy it.
pub fn volley(
    roller: &mut Roller,
    shot: &Shot,
    shooter: &Combatant,
    target: &mut Combatant,
) -> Result<Volley, CombatError> {
    let plan = plan(shot, shooter, target)?;
    let roll = plan.notation().roll(roller);
    let spent_by_buildings =
        shot.facts.target_cover.contains(&Cover::Buildings) && target.status == Status::Fresh;
    if spent_by_buildings {
        target.status = Status::Spent;
    }
    let mut result = apply_hits(target, roll.hits(), shot.edition, shot.engagement);
    if spent_by_buildings {
        result.notes.insert(
            0,
            format!(
                "{} is in buildings: \"Pieces in Buildings become Spent\", so it takes the hits as spent",
                target.id
            ),
        );
    }
    Ok(Volley { plan, roll, result })
}

/// "Instead of moving, Fresh artillery not in contact may change facing and fire once at
/// one target, up to a range of 1 full foot move. Fire and apply hits normally with terrain
/// effects." Contact, range and sight are the rules engine's to check; this checks what the
/// pieces themselves say.
pub fn bombard(
    roller: &mut Roller,
    edition: Edition,
    gun: &Combatant,
    target: &mut Combatant,
    facts: FireFacts,
) -> Result<Volley, CombatError> {
    if !gun.kind.is_artillery() || gun.status != Status::Fresh {
        return Err(CombatError::CannotBombard(gun.id.clone()));
    }
    if target.kind == UnitKind::SupplyTrain {
        return Err(CombatError::TrainImmune(target.id.clone()));
    }
    let shot = Shot {
        edition,
        engagement: Engagement::Bombardment,
        role: Side::Attacker,
        round: 1,
        facts,
    };
    volley(roller, &shot, gun, target)
}

impl fmt::Display for Volley {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.plan;
        writeln!(
            f,
            "{} fires {} dice at {}, hits on {}+",
            p.shooter, p.dice, p.target, p.threshold
        )?;
        for m in &p.modifiers {
            writeln!(f, "  {:+}  {}", m.value, m.reason)?;
        }
        for note in &p.notes {
            writeln!(f, "  note: {note}")?;
        }
        writeln!(f, "  {}", self.roll.to_string().replace('\n', "\n  "))?;
        let r = &self.result;
        write!(f, "  {} {}", p.target, r.effect)?;
        if r.counted != r.scored {
            write!(f, " ({} hits counted as {})", r.scored, r.counted)?;
        }
        for note in &r.notes {
            write!(f, "\n  note: {note}")?;
        }
        Ok(())
    }
}

/// A supporter may take a lead's place: "Artillery can receive Support but cannot
/// Support" (3.2), and HQs and trains never fight.
fn check_supporter(
    edition: Edition,
    engagement: Engagement,
    supporter: &Combatant,
) -> Result<(), CombatError> {
    dice_for(edition, engagement, supporter)?;
    if edition == Edition::V32 && supporter.kind.is_artillery() {
        return Err(CombatError::ArtilleryCannotSupport(supporter.id.clone()));
    }
    Ok(())
}

/// Where a combat stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// The lead pieces are about to fire.
    Fire,
    /// The side must choose to stay, retreat, or step a supporter up. The defender first.
    Decide(Side),
    /// Contact is broken: the combat is over.
    Broken,
}

/// Why a lead piece left the combat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exit {
    Eliminated,
    Retreated,
}

/// One side's lead piece: "Only the lead piece counts for Combat."
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lead {
    pub piece: Combatant,
    pub exit: Option<Exit>,
}

impl Lead {
    fn new(mut piece: Combatant) -> Self {
        piece.first_hit_taken = false;
        Lead { piece, exit: None }
    }

    fn take(&mut self, effect: Effect) {
        self.exit = match effect {
            Effect::Eliminated => Some(Exit::Eliminated),
            Effect::Retreat | Effect::SpentAndRetreat => Some(Exit::Retreated),
            Effect::NoEffect | Effect::Spent => self.exit,
        };
    }
}

/// What a side does at the end of a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Choice {
    /// Fight another round.
    Stay,
    /// Leave the combat. "A Fresh unit that retreats voluntarily becomes Spent."
    Retreat,
    /// The lead piece is gone; its supporter "can advance to take its place and continue
    /// the combat (the same terrain benefits apply)".
    StepUp(Combatant),
}

/// The volleys of one round, in the order they were fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    pub round: u32,
    pub volleys: Vec<Volley>,
    /// Why a piece did not fire, or fired first.
    pub notes: Vec<String>,
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "round {}", self.round)?;
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        for volley in &self.volleys {
            write!(f, "\n{volley}")?;
        }
        Ok(())
    }
}

/// A combat between two lead pieces, round by round until it breaks.
///
/// "Resolve Combat in Rounds as follows: 1. The lead piece for the Defender and the
/// Attacker in Contact Fire. Apply hits simultaneously. 2. The Defender decides to Retreat
/// or stay another round. 3. The Attacker decides to Retreat or stay for another round.
/// 4. Repeat until contact is broken."
///
/// Serde keeps it between requests and in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Combat {
    pub edition: Edition,
    pub engagement: Engagement,
    pub round: u32,
    pub attacker: Lead,
    pub defender: Lead,
    pub phase: Phase,
    /// In round 1 the defending artillery's first fire put the attacking lead out before
    /// it could fire: "a supporting attacker can move up and return fire during the first
    /// round" ([`Combat::return_fire`]).
    pub return_fire_open: bool,
}

impl Combat {
    /// Open a combat. Elite and militia first-hit rules start afresh.
    pub fn new(
        edition: Edition,
        engagement: Engagement,
        attacker: Combatant,
        defender: Combatant,
    ) -> Result<Self, CombatError> {
        if engagement == Engagement::Bombardment {
            return Err(CombatError::BombardmentIsNotACombat);
        }
        for piece in [&attacker, &defender] {
            dice_for(edition, engagement, piece)?;
        }
        if edition == Edition::V32 && attacker.kind.is_artillery() {
            return Err(CombatError::ArtilleryCannotAttack(attacker.id));
        }
        Ok(Combat {
            edition,
            engagement,
            round: 1,
            attacker: Lead::new(attacker),
            defender: Lead::new(defender),
            phase: Phase::Fire,
            return_fire_open: false,
        })
    }

    fn lead(&mut self, side: Side) -> &mut Lead {
        match side {
            Side::Attacker => &mut self.attacker,
            Side::Defender => &mut self.defender,
        }
    }

    /// Who fires first this round, if anyone does.
    ///
    /// 3.2: "Only in the first round, defending Artillery Fires First: apply losses to the
    /// attacker immediately. If they survive, they can return fire."
    /// [3.0] "Artillery Fires First: Apply their hits first, then other pieces return fire."
    fn fires_first(&self) -> Option<Side> {
        let gun = |lead: &Lead| lead.piece.kind.is_artillery();
        match self.edition {
            Edition::V32 => (self.round == 1 && gun(&self.defender)).then_some(Side::Defender),
            Edition::V30 => match (gun(&self.attacker), gun(&self.defender)) {
                (true, false) => Some(Side::Attacker),
                (false, true) => Some(Side::Defender),
                _ => None,
            },
        }
    }

    fn shot(&self, role: Side, facts: &FireFacts) -> Shot {
        Shot {
            edition: self.edition,
            engagement: self.engagement,
            role,
            round: self.round,
            facts: facts.clone(),
        }
    }

    /// Fire one side's lead at the other's and apply the hits.
    fn fire_side(
        &mut self,
        roller: &mut Roller,
        side: Side,
        facts: &FireFacts,
    ) -> Result<Volley, CombatError> {
        let shot = self.shot(side, facts);
        let shooter = self.lead(side).piece.clone();
        let target = self.lead(side.other());
        let volley = volley(roller, &shot, &shooter, &mut target.piece)?;
        target.take(volley.result.effect);
        Ok(volley)
    }

    /// The sides in the order they fire this round, and whether the first fires alone
    /// before the second may answer.
    fn firing_order(&self) -> ([Side; 2], bool) {
        match self.fires_first() {
            Some(first) => ([first, first.other()], true),
            None => ([Side::Attacker, Side::Defender], false),
        }
    }

    /// What this round's volleys will be, in firing order, before any die is thrown: the
    /// page shows each modifier with its reason first.
    pub fn preview(
        &self,
        attacker: &FireFacts,
        defender: &FireFacts,
    ) -> Result<Vec<FirePlan>, CombatError> {
        let (order, _) = self.firing_order();
        order
            .iter()
            .map(|&side| {
                let (shooter, target, facts) = match side {
                    Side::Attacker => (&self.attacker, &self.defender, attacker),
                    Side::Defender => (&self.defender, &self.attacker, defender),
                };
                plan(&self.shot(side, facts), &shooter.piece, &target.piece)
            })
            .collect()
    }

    /// Step 1 of a round: the lead pieces fire. `attacker` and `defender` are the facts of
    /// each side's shot. Both volleys come from one roll id, the attacker's dice first.
    pub fn fire(
        &mut self,
        roller: &mut Roller,
        attacker: &FireFacts,
        defender: &FireFacts,
    ) -> Result<Round, CombatError> {
        if self.phase != Phase::Fire {
            return Err(CombatError::OutOfTurn("fire", self.phase));
        }
        let mut notes = Vec::new();
        let mut volleys = Vec::new();
        let facts = |side| match side {
            Side::Attacker => attacker,
            Side::Defender => defender,
        };
        let ([first, second], first_alone) = self.firing_order();
        if first_alone {
            notes.push(format!(
                "{} is artillery and fires first",
                self.lead(first).piece.id
            ));
        }
        volleys.push(self.fire_side(roller, first, facts(first))?);
        if !first_alone || self.lead(second).exit.is_none() {
            // Simultaneous fire: a piece hit this round still fires, so both volleys are
            // thrown against the state at the start of the round.
            volleys.push(self.fire_side(roller, second, facts(second))?);
        } else {
            notes.push(format!(
                "{} is out before it can return fire",
                self.lead(second).piece.id
            ));
            self.return_fire_open = self.edition == Edition::V32 && second == Side::Attacker;
        }
        self.phase = Phase::Decide(Side::Defender);
        Ok(Round {
            round: self.round,
            volleys,
            notes,
        })
    }

    /// Round 1 only, after defending artillery fired first and put the attacking lead out:
    /// "If the lead attacker was destroyed or retreated by this, a supporting attacker can
    /// move up and return fire during the first round."
    pub fn return_fire(
        &mut self,
        roller: &mut Roller,
        supporter: Combatant,
        facts: &FireFacts,
    ) -> Result<Volley, CombatError> {
        if !self.return_fire_open {
            return Err(CombatError::OutOfTurn("return fire", self.phase));
        }
        check_supporter(self.edition, self.engagement, &supporter)?;
        self.return_fire_open = false;
        self.attacker = Lead::new(supporter);
        self.fire_side(roller, Side::Attacker, facts)
    }

    /// Steps 2 and 3: the defender, then the attacker, stays or retreats, or steps a
    /// supporter up in place of a lead piece that is gone. Returns the notes of what the
    /// choice did. When both have chosen, the combat either breaks or starts a new round.
    pub fn decide(&mut self, side: Side, choice: Choice) -> Result<Vec<String>, CombatError> {
        if self.phase != Phase::Decide(side) {
            return Err(CombatError::OutOfTurn("decide", self.phase));
        }
        let edition = self.edition;
        let engagement = self.engagement;
        let lead = self.lead(side);
        let mut notes = Vec::new();
        match (choice, lead.exit) {
            (Choice::Stay, None) => notes.push(format!("{} stays", lead.piece.id)),
            (Choice::Stay, Some(_)) => {
                return Err(CombatError::LeadIsOut(side, lead.piece.id.clone()));
            }
            (Choice::Retreat, None) => {
                let piece = &mut lead.piece;
                if edition == Edition::V32 && piece.kind.is_artillery() && !piece.supported {
                    return Err(CombatError::ArtilleryCannotRetreat(piece.id.clone()));
                }
                if piece.status == Status::Fresh {
                    piece.status = Status::Spent;
                    notes.push(format!(
                        "{} retreats voluntarily and becomes spent",
                        piece.id
                    ));
                } else {
                    notes.push(format!("{} retreats", piece.id));
                }
                lead.exit = Some(Exit::Retreated);
            }
            (Choice::Retreat, Some(_)) => {
                notes.push(format!("{}'s side leaves the combat", lead.piece.id))
            }
            (Choice::StepUp(_), None) => {
                return Err(CombatError::LeadStillIn(side, lead.piece.id.clone()));
            }
            (Choice::StepUp(supporter), Some(_)) => {
                check_supporter(edition, engagement, &supporter)?;
                notes.push(format!(
                    "{} steps up in place of {}",
                    supporter.id, lead.piece.id
                ));
                *lead = Lead::new(supporter);
            }
        }
        self.return_fire_open = false;
        self.phase = match side {
            Side::Defender => Phase::Decide(Side::Attacker),
            Side::Attacker if self.attacker.exit.is_some() || self.defender.exit.is_some() => {
                Phase::Broken
            }
            Side::Attacker => {
                self.round += 1;
                Phase::Fire
            }
        };
        Ok(notes)
    }
}
