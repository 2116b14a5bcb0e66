//! Pub Battles combat: every modifier and every hit-table row, with fixed seeds whose dice
//! are written next to each test, and results worked by hand from the 3.2 rules.
//!
//! Dice of the seeds used (six d6 in throw order; in a combat round the attacker's three
//! come first, or the artillery's when it fires first):
//! - seed 0:  4 1 3 | 6 1 6
//! - seed 4:  4 4 4 | 4 4 3
//! - seed 9:  3 1 5 | 1 2 3
//! - seed 13: 4 2 4 | 2 4 5
//! - seed 19: 6 6 6 | 6 4 1

use aide::dice::combat::{
    self, Choice, Combat, CombatError, Combatant, Cover, Edition, Effect, Engagement, Exit,
    FireFacts, Flank, Modifier, Phase, Round, Shot, Side, Volley,
};
use aide::dice::{Die, RollId, Roller};
use aide::table::{Quality, Status, UnitKind};

fn roller(seed: u64) -> Roller {
    Roller::replay(RollId(seed))
}

fn piece(id: &str, kind: UnitKind) -> Combatant {
    Combatant::new(id, kind)
}

fn with(mut c: Combatant, quality: Quality, status: Status) -> Combatant {
    c.quality = quality;
    c.status = status;
    c
}

fn contact(attacker: Combatant, defender: Combatant) -> Combat {
    Combat::new(Edition::V32, Engagement::Contact, attacker, defender).unwrap()
}

/// A round with no cover or flank on either side.
fn open_round(fight: &mut Combat, seed: u64) -> Round {
    fight
        .fire(
            &mut roller(seed),
            &FireFacts::default(),
            &FireFacts::default(),
        )
        .unwrap()
}

fn shot(role: Side, round: u32, facts: FireFacts) -> Shot {
    Shot {
        edition: Edition::V32,
        engagement: Engagement::Contact,
        role,
        round,
        facts,
    }
}

/// A round-1 attacker's volley from `seed` at `target`.
fn attack(seed: u64, facts: FireFacts, shooter: Combatant, target: &mut Combatant) -> Volley {
    combat::volley(
        &mut roller(seed),
        &shot(Side::Attacker, 1, facts),
        &shooter,
        target,
    )
    .unwrap()
}

/// Modifier values of a 3.2 infantry-on-infantry shot.
fn values(role: Side, round: u32, facts: FireFacts) -> Vec<i32> {
    let plan = combat::plan(
        &shot(role, round, facts),
        &piece("a", UnitKind::Infantry),
        &piece("b", UnitKind::Infantry),
    )
    .unwrap();
    plan.modifiers.iter().map(|m| m.value).collect()
}

#[test]
fn the_seeds_throw_the_dice_written_above() {
    let six = |seed| roller(seed).roll_many(6, Die::D6);
    assert_eq!(six(0), [4, 1, 3, 6, 1, 6]);
    assert_eq!(six(4), [4, 4, 4, 4, 4, 3]);
    assert_eq!(six(9), [3, 1, 5, 1, 2, 3]);
    assert_eq!(six(13), [4, 2, 4, 2, 4, 5]);
    assert_eq!(six(19), [6, 6, 6, 6, 4, 1]);
}

#[test]
fn dice_per_piece_by_edition() {
    use UnitKind::*;
    let dice = |edition, engagement, kind| combat::dice_for(edition, engagement, &piece("x", kind));
    // 3.2: Infantry, Cavalry, Artillery 3; Dragoons 2; Detachments 1, contact or bombard.
    for (kind, n) in [
        (Infantry, 3),
        (Cavalry, 3),
        (Artillery, 3),
        (HorseArtillery, 3),
        (Dragoons, 2),
        (Detachment, 1),
    ] {
        assert_eq!(
            dice(Edition::V32, Engagement::Contact, kind),
            Ok(n),
            "{kind:?}"
        );
    }
    // 3.0 Melee / Fire: Infantry 3/2, Artillery 3/3, Cavalry 3/0, Dragoons 2/1.
    for (kind, melee, fire) in [
        (Infantry, 3, 2),
        (Artillery, 3, 3),
        (Cavalry, 3, 0),
        (Dragoons, 2, 1),
    ] {
        assert_eq!(
            dice(Edition::V30, Engagement::Contact, kind),
            Ok(melee),
            "{kind:?} melee"
        );
        assert_eq!(
            dice(Edition::V30, Engagement::FireFight, kind),
            Ok(fire),
            "{kind:?} fire"
        );
    }
    assert_eq!(
        dice(Edition::V30, Engagement::Bombardment, Artillery),
        Ok(3)
    );
    for kind in [Hq, ArmyHq, SupplyTrain] {
        assert_eq!(
            dice(Edition::V32, Engagement::Contact, kind),
            Err(CombatError::NotAFighter("x".into(), kind))
        );
    }
    // "Quality or State does not affect how it fires."
    let spent_militia = with(piece("x", Infantry), Quality::Militia, Status::Spent);
    assert_eq!(
        combat::dice_for(Edition::V32, Engagement::Contact, &spent_militia),
        Ok(3)
    );
}

#[test]
fn cover_is_minus_one_for_the_attacker_only() {
    let woods = FireFacts {
        target_cover: vec![Cover::Woods],
        ..FireFacts::default()
    };
    assert_eq!(values(Side::Attacker, 1, woods.clone()), [-1]);
    assert_eq!(values(Side::Defender, 1, woods), Vec::<i32>::new());
    // Seed 4 throws 4 4 4: at -1 they read 3 3 3, no hit; without cover, 3 hits.
    let mut target = piece("b", UnitKind::Infantry);
    let facts = FireFacts {
        target_cover: vec![Cover::Buildings],
        ..FireFacts::default()
    };
    let v = attack(4, facts, piece("a", UnitKind::Infantry), &mut target);
    let read: Vec<i32> = v.roll.dice.iter().map(|d| d.modified).collect();
    assert_eq!(read, [3, 3, 3]);
    assert_eq!((v.result.scored, v.result.effect), (0, Effect::NoEffect));
    let v = attack(
        4,
        FireFacts::default(),
        piece("a", UnitKind::Infantry),
        &mut target,
    );
    assert_eq!((v.result.scored, v.result.effect), (3, Effect::Eliminated));
}

#[test]
fn woods_on_a_hill_is_still_minus_one() {
    let facts = FireFacts {
        target_cover: vec![Cover::Woods, Cover::Hill],
        ..FireFacts::default()
    };
    let plan = combat::plan(
        &shot(Side::Attacker, 1, facts),
        &piece("a", UnitKind::Infantry),
        &piece("b", UnitKind::Infantry),
    )
    .unwrap();
    assert_eq!(plan.total_modifier(), -1);
    assert_eq!(plan.modifiers[0].reason, "target in cover (woods + hill)");
    assert!(plan.notes[0].contains("still -1, not -2"));
}

#[test]
fn flank_is_plus_one_and_firing_at_your_flanker_minus_one() {
    let flank = FireFacts {
        target_flanked: vec![Flank::Geometry],
        ..FireFacts::default()
    };
    assert_eq!(values(Side::Attacker, 1, flank.clone()), [1]);
    assert_eq!(values(Side::Defender, 3, flank), [1]);
    let flanked = FireFacts {
        shooter_flanked: vec![Flank::Geometry],
        ..FireFacts::default()
    };
    assert_eq!(values(Side::Defender, 1, flanked), [-1]);
    // Seed 9 throws 3 1 5: plain that is 1 hit; at +1 they read 4 2 6, 2 hits.
    let facts = FireFacts {
        target_flanked: vec![Flank::Geometry],
        ..FireFacts::default()
    };
    let mut target = piece("b", UnitKind::Infantry);
    let v = attack(9, facts, piece("a", UnitKind::Cavalry), &mut target);
    let read: Vec<i32> = v.roll.dice.iter().map(|d| d.modified).collect();
    assert_eq!(read, [4, 2, 6]);
    assert_eq!(
        (v.result.scored, v.result.effect),
        (2, Effect::SpentAndRetreat)
    );
    assert_eq!(target.status, Status::Spent);
}

#[test]
fn flank_adds_to_cover_and_the_defender_still_fires_at_minus_one() {
    // "Flanking attacking a Defender in the Woods would be +1 -1 = 0 for the Attacker. The
    // Defender would still fire at -1."
    let attacker = FireFacts {
        target_cover: vec![Cover::Woods],
        target_flanked: vec![Flank::Geometry],
        ..FireFacts::default()
    };
    let defender = FireFacts {
        shooter_flanked: vec![Flank::Geometry],
        ..FireFacts::default()
    };
    assert_eq!(values(Side::Attacker, 1, attacker), [-1, 1]);
    assert_eq!(values(Side::Defender, 1, defender), [-1]);
}

#[test]
fn river_crossing_flanks_in_round_one_only_and_never_doubles_a_flank() {
    let river = FireFacts {
        target_flanked: vec![Flank::RiverCrossing],
        ..FireFacts::default()
    };
    assert_eq!(values(Side::Defender, 1, river.clone()), [1]);
    assert_eq!(values(Side::Defender, 2, river.clone()), Vec::<i32>::new());
    let plan = combat::plan(
        &shot(Side::Defender, 2, river),
        &piece("a", UnitKind::Infantry),
        &piece("b", UnitKind::Infantry),
    )
    .unwrap();
    assert!(plan.notes[0].contains("round 1 only"), "{:?}", plan.notes);
    // "still +1, not +2, since it is still only flank fire"
    let both = FireFacts {
        target_flanked: vec![Flank::RiverCrossing, Flank::Geometry],
        ..FireFacts::default()
    };
    assert_eq!(values(Side::Defender, 1, both.clone()), [1]);
    assert_eq!(values(Side::Defender, 2, both), [1]);
}

#[test]
fn road_column_and_envelopment_count_as_flanked() {
    for flank in [Flank::RoadColumn, Flank::Envelopment] {
        let facts = FireFacts {
            target_flanked: vec![flank],
            ..FireFacts::default()
        };
        assert_eq!(values(Side::Attacker, 2, facts), [1], "{flank:?}");
    }
    // A piece in road column firing at its attacker: treated as flanked, -1.
    let column = FireFacts {
        shooter_flanked: vec![Flank::RoadColumn],
        ..FireFacts::default()
    };
    assert_eq!(values(Side::Defender, 1, column), [-1]);
}

#[test]
fn defenders_in_buildings_cannot_be_flanked() {
    let facts = FireFacts {
        target_cover: vec![Cover::Buildings],
        target_flanked: vec![Flank::Geometry],
        ..FireFacts::default()
    };
    assert_eq!(values(Side::Attacker, 1, facts), [-1]);
}

#[test]
fn scenario_modifiers_come_with_their_reasons() {
    let mut guard = piece("g", UnitKind::Infantry);
    guard
        .modifiers
        .push(Modifier::new(1, "Old Guard (scenario rule)"));
    let plan = combat::plan(
        &shot(Side::Attacker, 1, FireFacts::default()),
        &guard,
        &piece("b", UnitKind::Infantry),
    )
    .unwrap();
    assert_eq!(
        plan.modifiers,
        [Modifier::new(1, "Old Guard (scenario rule)")]
    );
    assert_eq!(plan.notation().to_string(), "3d6 hits 4+ +1");
}

/// (status, quality, kind, hits) → (effect, status after), by the hit table and quality.
#[test]
fn every_row_of_the_hit_table() {
    use Effect as E;
    use Quality as Q;
    use Status as S;
    let inf = UnitKind::Infantry;
    let rows = [
        // Fresh: 1 spent, 2 spent + retreat, 3 eliminated; excess hits wasted.
        (S::Fresh, Q::Regular, inf, 0, E::NoEffect, S::Fresh),
        (S::Fresh, Q::Regular, inf, 1, E::Spent, S::Spent),
        (S::Fresh, Q::Regular, inf, 2, E::SpentAndRetreat, S::Spent),
        (S::Fresh, Q::Regular, inf, 3, E::Eliminated, S::Fresh),
        (S::Fresh, Q::Regular, inf, 5, E::Eliminated, S::Fresh),
        // Spent: 1 retreat, 2 eliminated.
        (S::Spent, Q::Regular, inf, 1, E::Retreat, S::Spent),
        (S::Spent, Q::Regular, inf, 2, E::Eliminated, S::Spent),
        // Elite (and Guard) absorb the first hit: 1 → none, 2 → spent, 3 → spent + retreat.
        (S::Fresh, Q::Elite, inf, 1, E::NoEffect, S::Fresh),
        (S::Fresh, Q::Elite, inf, 2, E::Spent, S::Spent),
        (S::Fresh, Q::Elite, inf, 3, E::SpentAndRetreat, S::Spent),
        (S::Spent, Q::Guard, inf, 2, E::Retreat, S::Spent),
        // Militia counts its first hit as 2: 1 → spent + retreat, 2 → eliminated.
        (S::Fresh, Q::Militia, inf, 1, E::SpentAndRetreat, S::Spent),
        (S::Fresh, Q::Militia, inf, 2, E::Eliminated, S::Fresh),
        (S::Spent, Q::Militia, inf, 1, E::Eliminated, S::Spent),
        // Detachments die on one hit.
        (
            S::Fresh,
            Q::Regular,
            UnitKind::Detachment,
            1,
            E::Eliminated,
            S::Fresh,
        ),
    ];
    for (status, quality, kind, hits, effect, after) in rows {
        let mut target = with(piece("t", kind), quality, status);
        let r = combat::apply_hits(&mut target, hits, Edition::V32, Engagement::Contact);
        let what = format!("{status:?} {quality:?} {kind:?} taking {hits}");
        assert_eq!(r.effect, effect, "{what}");
        assert_eq!(
            (r.status_before, r.status_after, target.status),
            (status, after, after),
            "{what}"
        );
    }
}

#[test]
fn elite_absorbs_only_the_first_hit_of_a_combat() {
    // "A fresh elite unit that takes 2 hits in round 1 would only be spent. 1 hit in round
    // 2 would force it to retreat."
    let mut elite = with(
        piece("e", UnitKind::Infantry),
        Quality::Elite,
        Status::Fresh,
    );
    let round1 = combat::apply_hits(&mut elite, 2, Edition::V32, Engagement::Contact);
    assert_eq!((round1.counted, round1.effect), (1, Effect::Spent));
    let round2 = combat::apply_hits(&mut elite, 1, Edition::V32, Engagement::Contact);
    assert_eq!((round2.counted, round2.effect), (1, Effect::Retreat));
}

#[test]
fn militia_doubles_only_its_first_hit() {
    let mut militia = with(
        piece("m", UnitKind::Infantry),
        Quality::Militia,
        Status::Fresh,
    );
    assert_eq!(
        combat::apply_hits(&mut militia, 0, Edition::V32, Engagement::Contact).effect,
        Effect::NoEffect
    );
    militia.first_hit_taken = true;
    militia.status = Status::Fresh;
    let r = combat::apply_hits(&mut militia, 1, Edition::V32, Engagement::Contact);
    assert_eq!((r.counted, r.effect), (1, Effect::Spent));
}

#[test]
fn bombardment_cannot_eliminate_and_does_not_spend_the_elite_absorb() {
    let bombard = |target: &mut Combatant, hits| {
        combat::apply_hits(target, hits, Edition::V32, Engagement::Bombardment).effect
    };
    assert_eq!(
        bombard(&mut piece("t", UnitKind::Infantry), 3),
        Effect::SpentAndRetreat
    );
    assert_eq!(
        bombard(
            &mut with(
                piece("t", UnitKind::Infantry),
                Quality::Regular,
                Status::Spent
            ),
            2
        ),
        Effect::Retreat
    );
    // "A Detachment hit by a bombardment will simply retreat."
    assert_eq!(
        bombard(&mut piece("d", UnitKind::Detachment), 1),
        Effect::Retreat
    );
    // The elite absorbs a bombardment hit and still absorbs the first hit of the combat.
    let mut elite = with(
        piece("e", UnitKind::Infantry),
        Quality::Elite,
        Status::Fresh,
    );
    assert_eq!(bombard(&mut elite, 1), Effect::NoEffect);
    assert!(!elite.first_hit_taken);
    let r = combat::apply_hits(&mut elite, 1, Edition::V32, Engagement::Contact);
    assert_eq!((r.counted, r.effect), (0, Effect::NoEffect));
}

#[test]
fn bombard_checks_the_gun_and_trains_are_immune() {
    let gun = piece("gun", UnitKind::Artillery);
    let mut train = piece("train", UnitKind::SupplyTrain);
    assert_eq!(
        combat::bombard(
            &mut roller(19),
            Edition::V32,
            &gun,
            &mut train,
            FireFacts::default()
        )
        .unwrap_err(),
        CombatError::TrainImmune("train".into())
    );
    let spent_gun = with(gun.clone(), Quality::Regular, Status::Spent);
    let mut target = piece("t", UnitKind::Infantry);
    assert_eq!(
        combat::bombard(
            &mut roller(19),
            Edition::V32,
            &spent_gun,
            &mut target,
            FireFacts::default()
        )
        .unwrap_err(),
        CombatError::CannotBombard("gun".into())
    );
    // Seed 19 throws 6 6 6: three hits on a fresh target in woods (-1: 5 5 5 still hit),
    // capped at spent and retreat.
    let woods = FireFacts {
        target_cover: vec![Cover::Woods],
        ..FireFacts::default()
    };
    let v = combat::bombard(&mut roller(19), Edition::V32, &gun, &mut target, woods).unwrap();
    assert_eq!(v.plan.total_modifier(), -1);
    assert_eq!(
        (v.result.scored, v.result.effect),
        (3, Effect::SpentAndRetreat)
    );
    assert_eq!(target.status, Status::Spent);
}

#[test]
fn unsupported_artillery_forced_to_retreat_is_destroyed() {
    let gun = piece("gun", UnitKind::Artillery);
    let mut alone = gun.clone();
    assert_eq!(
        combat::apply_hits(&mut alone, 1, Edition::V32, Engagement::Contact).effect,
        Effect::Spent
    );
    let mut alone = gun.clone();
    assert_eq!(
        combat::apply_hits(&mut alone, 2, Edition::V32, Engagement::Contact).effect,
        Effect::Eliminated
    );
    let mut supported = gun.clone();
    supported.supported = true;
    assert_eq!(
        combat::apply_hits(&mut supported, 2, Edition::V32, Engagement::Contact).effect,
        Effect::SpentAndRetreat
    );
    // [3.0] in melee, support or not.
    let mut melee = supported.clone();
    assert_eq!(
        combat::apply_hits(&mut melee, 2, Edition::V30, Engagement::Contact).effect,
        Effect::Eliminated
    );
}

#[test]
fn a_simultaneous_round_then_the_attacker_must_leave() {
    let mut fight = contact(
        piece("red-1", UnitKind::Infantry),
        piece("blue-a", UnitKind::Infantry),
    );
    // Seed 0: the attacker throws 4 1 3 (1 hit), the defender 6 1 6 (2 hits).
    let round = open_round(&mut fight, 0);
    assert_eq!(round.volleys.len(), 2);
    assert_eq!(round.volleys[0].plan.shooter, "red-1");
    assert_eq!(round.volleys[0].result.effect, Effect::Spent);
    assert_eq!(round.volleys[1].result.effect, Effect::SpentAndRetreat);
    assert_eq!(fight.defender.piece.status, Status::Spent);
    assert_eq!(fight.attacker.exit, Some(Exit::Retreated));
    // The defender decides first; the attacker's lead is gone, so it cannot stay.
    assert!(matches!(
        fight.decide(Side::Attacker, Choice::Stay),
        Err(CombatError::OutOfTurn(..))
    ));
    fight.decide(Side::Defender, Choice::Stay).unwrap();
    assert_eq!(
        fight.decide(Side::Attacker, Choice::Stay),
        Err(CombatError::LeadIsOut(Side::Attacker, "red-1".into()))
    );
    fight.decide(Side::Attacker, Choice::Retreat).unwrap();
    assert_eq!(fight.phase, Phase::Broken);
}

#[test]
fn defending_artillery_fires_first_in_round_one_and_a_supporter_returns_fire() {
    let mut gun = piece("gun", UnitKind::Artillery);
    gun.supported = true;
    let mut fight = contact(piece("red-1", UnitKind::Infantry), gun);
    // Seed 19: the gun throws 6 6 6 first and eliminates red-1 before it fires.
    let mut dice = roller(19);
    let round = fight
        .fire(&mut dice, &FireFacts::default(), &FireFacts::default())
        .unwrap();
    assert_eq!(round.volleys.len(), 1);
    assert_eq!(round.volleys[0].plan.shooter, "gun");
    assert_eq!(fight.attacker.exit, Some(Exit::Eliminated));
    assert!(fight.return_fire_open);
    // red-2 moves up and returns fire with the next dice, 6 4 1: 2 hits, the supported
    // gun becomes spent and retreats.
    let back = fight
        .return_fire(
            &mut dice,
            piece("red-2", UnitKind::Infantry),
            &FireFacts::default(),
        )
        .unwrap();
    assert_eq!(
        (back.result.scored, back.result.effect),
        (2, Effect::SpentAndRetreat)
    );
    assert_eq!(fight.defender.exit, Some(Exit::Retreated));
    fight.decide(Side::Defender, Choice::Retreat).unwrap();
    fight.decide(Side::Attacker, Choice::Stay).unwrap();
    assert_eq!(fight.phase, Phase::Broken);
}

#[test]
fn artillery_fires_first_only_in_round_one_in_3_2_and_always_in_3_0() {
    let gun = piece("gun", UnitKind::Artillery);
    let mut fight = contact(piece("red", UnitKind::Infantry), gun.clone());
    // Seed 9, round 1: the gun first, 3 1 5 = 1 hit, red spent; red returns 1 2 3, none.
    let round = open_round(&mut fight, 9);
    let order: Vec<&str> = round
        .volleys
        .iter()
        .map(|v| v.plan.shooter.as_str())
        .collect();
    assert_eq!(order, ["gun", "red"]);
    assert_eq!(round.volleys[0].result.effect, Effect::Spent);
    assert_eq!(round.volleys[1].result.effect, Effect::NoEffect);
    fight.decide(Side::Defender, Choice::Stay).unwrap();
    fight.decide(Side::Attacker, Choice::Stay).unwrap();
    assert_eq!((fight.round, fight.phase), (2, Phase::Fire));
    // Round 2 is simultaneous, the attacker's dice first. Seed 4: red 4 4 4 = 3 hits, the
    // gun is eliminated; the gun still fires 4 4 3 = 2 hits on spent red: eliminated.
    let round = open_round(&mut fight, 4);
    let order: Vec<&str> = round
        .volleys
        .iter()
        .map(|v| v.plan.shooter.as_str())
        .collect();
    assert_eq!(order, ["red", "gun"]);
    assert_eq!(round.volleys[0].result.effect, Effect::Eliminated);
    assert_eq!(round.volleys[1].result.effect, Effect::Eliminated);
    // 3.0: the artillery fires first in every round.
    let mut old = Combat::new(
        Edition::V30,
        Engagement::Contact,
        piece("red", UnitKind::Infantry),
        gun,
    )
    .unwrap();
    old.round = 2;
    let round = open_round(&mut old, 0);
    assert_eq!(round.volleys[0].plan.shooter, "gun");
}

#[test]
fn artillery_cannot_support_so_it_cannot_step_up() {
    let mut fight = contact(
        piece("red", UnitKind::Infantry),
        piece("blue", UnitKind::Infantry),
    );
    // Seed 19: red 6 6 6 eliminates blue; blue 6 4 1 = 2 hits, red spent and retreats.
    open_round(&mut fight, 19);
    assert_eq!(
        fight.decide(
            Side::Defender,
            Choice::StepUp(piece("gun", UnitKind::Artillery))
        ),
        Err(CombatError::ArtilleryCannotSupport("gun".into()))
    );
    fight
        .decide(
            Side::Defender,
            Choice::StepUp(piece("blue-2", UnitKind::Infantry)),
        )
        .unwrap();
    fight
        .decide(
            Side::Attacker,
            Choice::StepUp(piece("red-2", UnitKind::Infantry)),
        )
        .unwrap();
    assert_eq!((fight.round, fight.phase), (2, Phase::Fire));
    assert_eq!(
        (
            fight.attacker.piece.id.as_str(),
            fight.defender.piece.id.as_str()
        ),
        ("red-2", "blue-2")
    );
}

#[test]
fn rounds_continue_until_one_side_breaks() {
    let mut fight = contact(
        piece("red", UnitKind::Infantry),
        with(
            piece("blue", UnitKind::Infantry),
            Quality::Elite,
            Status::Fresh,
        ),
    );
    // Round 1, seed 9: red 3 1 5 = 1 hit, absorbed by the elite; blue 1 2 3 = no hit.
    let r1 = open_round(&mut fight, 9);
    assert_eq!(
        (r1.volleys[0].result.counted, r1.volleys[0].result.effect),
        (0, Effect::NoEffect)
    );
    fight.decide(Side::Defender, Choice::Stay).unwrap();
    fight.decide(Side::Attacker, Choice::Stay).unwrap();
    // Round 2, seed 0: red 4 1 3 = 1 hit, now counted: blue spent; blue 6 1 6 = 2 hits:
    // red spent and retreats.
    let r2 = open_round(&mut fight, 0);
    assert_eq!((r2.round, r2.volleys[0].result.effect), (2, Effect::Spent));
    assert_eq!(r2.volleys[1].result.effect, Effect::SpentAndRetreat);
    // Blue chooses to leave too: a spent piece simply retreats.
    assert_eq!(
        fight.decide(Side::Defender, Choice::Retreat).unwrap(),
        ["blue retreats"]
    );
    // Red's supporter steps up, but blue is gone: the combat is broken.
    fight
        .decide(
            Side::Attacker,
            Choice::StepUp(piece("red-2", UnitKind::Infantry)),
        )
        .unwrap();
    assert_eq!(fight.phase, Phase::Broken);
}

#[test]
fn voluntary_retreat_spends_a_fresh_piece_and_guns_need_support() {
    let mut fight = contact(
        piece("red", UnitKind::Infantry),
        piece("gun", UnitKind::Artillery),
    );
    // Seed 9: the gun first, 3 1 5 = 1 hit, red spent; red 1 2 3, no hit.
    open_round(&mut fight, 9);
    assert_eq!(
        fight.decide(Side::Defender, Choice::Retreat),
        Err(CombatError::ArtilleryCannotRetreat("gun".into()))
    );
    fight.decide(Side::Defender, Choice::Stay).unwrap();
    assert_eq!(
        fight.decide(Side::Attacker, Choice::Retreat).unwrap(),
        ["red retreats"]
    );

    let mut fight = contact(
        piece("red", UnitKind::Infantry),
        piece("blue", UnitKind::Infantry),
    );
    // Seed 17: 2 2 2 and 6 6 2: red takes 2 hits, blue none.
    open_round(&mut fight, 17);
    assert_eq!(
        fight.decide(Side::Defender, Choice::Retreat).unwrap(),
        ["blue retreats voluntarily and becomes spent"]
    );
    assert_eq!(fight.defender.piece.status, Status::Spent);
}

#[test]
fn combats_refuse_what_the_rules_forbid() {
    let inf = piece("inf", UnitKind::Infantry);
    assert_eq!(
        Combat::new(
            Edition::V32,
            Engagement::Contact,
            piece("gun", UnitKind::Artillery),
            inf.clone()
        )
        .unwrap_err(),
        CombatError::ArtilleryCannotAttack("gun".into())
    );
    assert!(matches!(
        Combat::new(
            Edition::V32,
            Engagement::Contact,
            inf.clone(),
            piece("train", UnitKind::SupplyTrain)
        ),
        Err(CombatError::NotAFighter(..))
    ));
    let mut fight = contact(inf.clone(), piece("b", UnitKind::Infantry));
    assert!(matches!(
        fight.decide(Side::Defender, Choice::Stay),
        Err(CombatError::OutOfTurn("decide", Phase::Fire))
    ));
    assert!(matches!(
        fight.return_fire(&mut roller(0), inf.clone(), &FireFacts::default()),
        Err(CombatError::OutOfTurn(..))
    ));
    open_round(&mut fight, 9);
    assert!(matches!(
        fight.fire(&mut roller(9), &FireFacts::default(), &FireFacts::default()),
        Err(CombatError::OutOfTurn("fire", _))
    ));
    assert_eq!(
        fight.decide(Side::Defender, Choice::StepUp(inf)),
        Err(CombatError::LeadStillIn(Side::Defender, "b".into()))
    );
}

#[test]
fn a_combat_round_replays_exactly_and_survives_json() {
    let start = contact(
        piece("red", UnitKind::Infantry),
        piece("blue", UnitKind::Infantry),
    );
    let facts = FireFacts {
        target_cover: vec![Cover::Woods],
        ..FireFacts::default()
    };
    let id = Roller::from_os().unwrap().id();
    let (mut a, mut b) = (start.clone(), start);
    let first = a
        .fire(&mut Roller::replay(id), &facts, &FireFacts::default())
        .unwrap();
    let again = b
        .fire(&mut Roller::replay(id), &facts, &FireFacts::default())
        .unwrap();
    assert_eq!(first, again);
    assert_eq!(a, b);
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(serde_json::from_str::<Combat>(&json).unwrap(), a);
}

#[test]
fn a_volley_prints_every_modifier_and_die() {
    let facts = FireFacts {
        target_cover: vec![Cover::Woods],
        target_flanked: vec![Flank::Geometry],
        ..FireFacts::default()
    };
    let mut target = with(
        piece("blue-a", UnitKind::Infantry),
        Quality::Elite,
        Status::Fresh,
    );
    let v = attack(19, facts, piece("red-1", UnitKind::Infantry), &mut target);
    assert_eq!(
        v.to_string(),
        "red-1 fires 3 dice at blue-a, hits on 4+
  -1  target in cover (woods)
  +1  firing at the target's flank (flank)
  3d6 hits 4+  (roll r0000000000000013)
    die 1: 6  hit
    die 2: 6  hit
    die 3: 6  hit
    3 hits
  blue-a becomes spent and retreats (3 hits counted as 2)
  note: elite: absorbs the first hit of the combat"
    );
}

#[test]
fn a_round_is_previewed_with_its_modifiers_then_printed_in_full() {
    let fight = contact(
        piece("red", UnitKind::Infantry),
        piece("gun", UnitKind::Artillery),
    );
    let red_facts = FireFacts {
        target_cover: vec![Cover::Woods],
        ..FireFacts::default()
    };
    let plans = fight.preview(&red_facts, &FireFacts::default()).unwrap();
    let shown: Vec<(String, String)> = plans
        .iter()
        .map(|p| (p.shooter.clone(), p.notation().to_string()))
        .collect();
    assert_eq!(
        shown,
        [
            ("gun".into(), "3d6 hits 4+".into()),
            ("red".into(), "3d6 hits 4+ -1".into())
        ]
    );
    // Seed 0: the gun first, 4 1 3 = 1 hit, red spent. Red answers 6 1 6 at -1 (woods):
    // 5 0 5 = 2 hits, spent and retreat, which destroys unsupported artillery.
    let mut fight = fight;
    let round = fight
        .fire(&mut roller(0), &red_facts, &FireFacts::default())
        .unwrap();
    assert_eq!(
        round.to_string(),
        "round 1
gun is artillery and fires first
gun fires 3 dice at red, hits on 4+
  3d6 hits 4+  (roll r0000000000000000)
    die 1: 4  hit
    die 2: 1  miss
    die 3: 3  miss
    1 hit
  red becomes spent
red fires 3 dice at gun, hits on 4+
  -1  target in cover (woods)
  3d6 hits 4+ -1  (roll r0000000000000000)
    die 1: 6 -1 = 5  hit
    die 2: 1 -1 = 0  miss
    die 3: 6 -1 = 5  hit
    2 hits
  gun eliminated
  note: unsupported artillery forced to retreat from contact is destroyed"
    );
    assert_eq!(fight.defender.exit, Some(Exit::Eliminated));
}

#[test]
fn a_table_piece_becomes_a_combatant() {
    use aide::geom::Footprint;
    use aide::table::{Piece, Pose};
    let table_piece = Piece {
        id: "blue-a".into(),
        side: "blue".into(),
        kind: UnitKind::Dragoons,
        quality: Quality::Militia,
        command: Some("I".into()),
        pose: Pose::new(10.0, 5.0, 90.0),
        status: Status::Spent,
        footprint: Footprint::new(10.0, 5.0, 90.0, 1.875, 0.375),
    };
    let c = Combatant::from(&table_piece);
    assert_eq!(
        (c.id.as_str(), c.kind, c.quality, c.status),
        (
            "blue-a",
            UnitKind::Dragoons,
            Quality::Militia,
            Status::Spent
        )
    );
    assert!(!c.supported && c.modifiers.is_empty() && !c.first_hit_taken);
}

#[test]
fn no_combat_and_no_bombardment_at_night() {
    // "Turno Nocturno: … Sin ataques ni bombardeos." [3.2]
    assert_eq!(combat::daylight(false), Ok(()));
    let err = combat::daylight(true).unwrap_err();
    assert_eq!(err, CombatError::NightTurn);
    assert!(
        err.to_string().contains("Sin ataques ni bombardeos"),
        "{err}"
    );
}

#[test]
fn a_piece_in_buildings_takes_its_hits_as_spent() {
    // "Pieces in Buildings become Spent and cannot Rally" [3.2 Terrain chart]. Seed 9
    // throws 3 1 5; at -1 for cover that is 2 0 4: one hit. A fresh target
    // in woods becomes spent; the same fresh piece in buildings takes it as spent: it
    // must retreat.
    let woods = FireFacts {
        target_cover: vec![Cover::Woods],
        ..FireFacts::default()
    };
    let mut target = piece("b", UnitKind::Infantry);
    let v = attack(9, woods, piece("a", UnitKind::Infantry), &mut target);
    assert_eq!((v.roll.hits(), v.result.effect), (1, Effect::Spent));
    let buildings = FireFacts {
        target_cover: vec![Cover::Buildings],
        ..FireFacts::default()
    };
    let mut target = piece("b", UnitKind::Infantry);
    let v = attack(9, buildings, piece("a", UnitKind::Infantry), &mut target);
    assert_eq!(
        (v.roll.hits(), v.result.status_before, v.result.effect),
        (1, Status::Spent, Effect::Retreat)
    );
    assert!(
        v.result.notes[0].contains("in buildings"),
        "{:?}",
        v.result.notes
    );
}
