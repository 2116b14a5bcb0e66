//! The chit cup: random draws, 3.2 Alter rolls, the turn die and the hidden view.
//!
//! First d6 of the seeds used for Alter rolls: seed 0 → 4, seed 7 → 1, seed 9 → 3,
//! seed 19 → 6. Against a rating of 3, 1 and 3 succeed ("less than or equal to your HQ
//! value"), 4 and 6 fail.

use aide::dice::chits::{AlterKind, Attempt, Chit, ChitCup, ChitError, Hq, SeenChit, Turn};
use aide::dice::{Die, RollId, Roller};
use aide::table::Status;

fn roller(seed: u64) -> Roller {
    Roller::replay(RollId(seed))
}

fn chit(command: &str, side: &str) -> Chit {
    Chit {
        command: command.into(),
        side: side.into(),
    }
}

fn hq(command: &str, side: &str, rating: u8, army: bool) -> Hq {
    Hq {
        command: command.into(),
        side: side.into(),
        rating,
        status: Status::Fresh,
        army,
    }
}

/// Blue I and II Corps, Red 1st and 2nd; Blue's army commander Meade rates 4, corps 3.
fn cup() -> ChitCup {
    ChitCup::new(
        Turn::new(1, 1).unwrap(),
        vec![
            chit("I", "blue"),
            chit("II", "blue"),
            chit("1st", "red"),
            chit("2nd", "red"),
        ],
        vec![
            hq("I", "blue", 3, false),
            hq("II", "blue", 3, false),
            hq("Meade", "blue", 4, true),
            hq("1st", "red", 3, false),
            hq("2nd", "red", 3, false),
        ],
    )
    .unwrap()
}

/// Draw until `command` comes up (other draws move and finish).
fn draw_until(cup: &mut ChitCup, command: &str) {
    for seed in 0.. {
        let drawn = cup.draw(&mut roller(seed)).unwrap();
        if drawn.chit.command == command {
            return;
        }
        cup.finish_move().unwrap();
    }
}

fn attempt(kind: AlterKind, hq: &str, command: &str, in_range: bool) -> Attempt {
    Attempt {
        kind,
        hq: hq.into(),
        command: command.into(),
        in_range,
    }
}

fn status(cup: &ChitCup, command: &str) -> Status {
    cup.hqs
        .iter()
        .find(|h| h.command == command)
        .unwrap()
        .status
}

fn current(cup: &ChitCup) -> (&str, bool) {
    let c = cup.current.as_ref().unwrap();
    (c.chit.command.as_str(), c.alter_open)
}

#[test]
fn the_seeds_throw_the_dice_written_above() {
    let first = |seed| roller(seed).roll(Die::D6);
    assert_eq!([first(0), first(7), first(9), first(19)], [4, 1, 3, 6]);
}

#[test]
fn eight_day_turns_then_a_night_then_a_new_day() {
    let mut turn = Turn::new(1, 1).unwrap();
    for _ in 0..8 {
        turn = turn.next();
    }
    assert_eq!(
        (turn, turn.is_night(), turn.to_string().as_str()),
        (Turn { day: 1, number: 9 }, true, "day 1, night turn")
    );
    assert_eq!(turn.next().to_string(), "day 2, turn 1");
    assert_eq!(Turn::new(1, 10), None);
    assert_eq!(Turn::new(0, 1), None);
}

#[test]
fn a_whole_turn_draws_every_chit_once_then_resets() {
    let mut cup = cup();
    let mut order = Vec::new();
    for seed in 100..104 {
        order.push(cup.draw(&mut roller(seed)).unwrap().chit.command);
        assert_eq!(
            cup.draw(&mut roller(seed)),
            Err(ChitError::StillMoving(order.last().unwrap().clone()))
        );
        cup.finish_move().unwrap();
    }
    order.sort();
    assert_eq!(order, ["1st", "2nd", "I", "II"]);
    assert!(cup.all_moved());
    assert_eq!(cup.draw(&mut roller(0)), Err(ChitError::BagEmpty));
    cup.alter(&mut roller(0), attempt(AlterKind::Jump, "I", "I", false))
        .unwrap_err();
    cup.hqs[0].status = Status::Spent;
    assert_eq!(cup.end_turn(), Ok(Turn { day: 1, number: 2 }));
    assert_eq!((cup.bag.len(), cup.moved.len()), (4, 0));
    assert!(cup.hqs.iter().all(|h| h.status == Status::Fresh));
}

#[test]
fn a_draw_replays_from_its_roll_id() {
    let id = Roller::from_os().unwrap().id();
    let (mut a, mut b) = (cup(), cup());
    let first = a.draw(&mut Roller::replay(id)).unwrap();
    assert_eq!(first.roll_id, Some(id));
    assert_eq!(first, b.draw(&mut Roller::replay(id)).unwrap());
}

/// The first chit out of a full cup of 4, over 40,000 seeds: chi-square with 3 degrees of
/// freedom under 16.266 (the 0.999 quantile).
#[test]
fn every_chit_is_equally_likely_to_come_out_first() {
    let mut counts = [0u64; 4];
    let commands = ["I", "II", "1st", "2nd"];
    for seed in 0..40_000 {
        let drawn = cup().draw(&mut roller(seed)).unwrap().chit.command;
        counts[commands.iter().position(|c| *c == drawn).unwrap()] += 1;
    }
    let stat: f64 = counts
        .iter()
        .map(|&c| (c as f64 - 10_000.0).powi(2) / 10_000.0)
        .sum();
    eprintln!("first chit counts {counts:?}, chi-square {stat:.3}");
    assert!(stat < 16.266, "chi-square {stat} for {counts:?}");
}

#[test]
fn a_successful_delay_draws_another_chit_then_returns_yours() {
    let mut cup = cup();
    draw_until(&mut cup, "I");
    let before = cup.bag.len();
    // Seed 9 rolls 3, at or under the rating of 3.
    let report = cup
        .alter(&mut roller(9), attempt(AlterKind::Delay, "I", "I", false))
        .unwrap();
    assert_eq!((report.die, report.rating, report.success), (3, 3, true));
    let instead = report.drawn_instead.unwrap();
    assert_ne!(instead.command, "I");
    assert_eq!(
        current(&cup),
        (instead.command.as_str(), true),
        "a new draw opens a new Alter window"
    );
    assert!(cup.bag.contains(&chit("I", "blue")));
    assert_eq!(cup.bag.len(), before);
    assert_eq!(status(&cup, "I"), Status::Spent);
    // The same HQ cannot try again this turn.
    assert_eq!(
        cup.alter(&mut roller(9), attempt(AlterKind::Jump, "I", "I", false)),
        Err(ChitError::HqSpent("I".into()))
    );
}

#[test]
fn a_failed_delay_moves_now_and_still_spends_the_hq() {
    let mut cup = cup();
    draw_until(&mut cup, "I");
    // Seed 0 rolls 4, over the rating of 3.
    let report = cup
        .alter(&mut roller(0), attempt(AlterKind::Delay, "I", "I", false))
        .unwrap();
    assert_eq!(
        (report.die, report.success, report.drawn_instead),
        (4, false, None)
    );
    assert_eq!(current(&cup), ("I", true));
    assert_eq!(status(&cup, "I"), Status::Spent);
}

#[test]
fn a_successful_jump_moves_first_and_the_drawn_chit_right_after() {
    let mut cup = cup();
    draw_until(&mut cup, "1st");
    let report = cup
        .alter(&mut roller(9), attempt(AlterKind::Jump, "II", "II", false))
        .unwrap();
    assert!(report.success);
    assert_eq!(
        current(&cup),
        ("II", false),
        "the jumper moves next, no further Alter"
    );
    assert_eq!(
        cup.alter(
            &mut roller(7),
            attempt(AlterKind::Jump, "2nd", "2nd", false)
        ),
        Err(ChitError::NoAlterWindow)
    );
    cup.finish_move().unwrap();
    let next = cup.draw(&mut roller(0)).unwrap();
    assert_eq!((next.roll_id, next.chit.command.as_str()), (None, "1st"));
    assert_eq!(cup.moved.last().unwrap().command, "II");
}

#[test]
fn a_failed_jump_leaves_the_chit_in_the_bag() {
    let mut cup = cup();
    draw_until(&mut cup, "1st");
    let report = cup
        .alter(&mut roller(19), attempt(AlterKind::Jump, "II", "II", false))
        .unwrap();
    assert_eq!((report.die, report.success), (6, false));
    assert_eq!(current(&cup), ("1st", true));
    assert!(cup.bag.contains(&chit("II", "blue")));
    assert_eq!(status(&cup, "II"), Status::Spent);
}

#[test]
fn the_army_commander_rolls_for_a_subordinate_in_range_even_after_it_failed() {
    let mut cup = cup();
    draw_until(&mut cup, "1st");
    assert!(
        !cup.alter(&mut roller(19), attempt(AlterKind::Jump, "II", "II", false))
            .unwrap()
            .success
    );
    assert_eq!(
        cup.alter(
            &mut roller(7),
            attempt(AlterKind::Jump, "Meade", "II", false)
        ),
        Err(ChitError::OutOfRange("Meade".into(), "II".into()))
    );
    assert_eq!(
        cup.alter(&mut roller(7), attempt(AlterKind::Jump, "I", "II", true)),
        Err(ChitError::NotArmyCommander("I".into()))
    );
    assert_eq!(
        cup.alter(
            &mut roller(7),
            attempt(AlterKind::Jump, "Meade", "2nd", true)
        ),
        Err(ChitError::WrongSide("2nd".into()))
    );
    // Seed 7 rolls 1, under Meade's 4.
    let report = cup
        .alter(
            &mut roller(7),
            attempt(AlterKind::Jump, "Meade", "II", true),
        )
        .unwrap();
    assert_eq!((report.die, report.rating, report.success), (1, 4, true));
    assert_eq!(current(&cup), ("II", false));
    assert_eq!(status(&cup, "Meade"), Status::Spent);
}

#[test]
fn the_cup_refuses_what_the_rules_do_not_allow() {
    let mut cup = cup();
    assert_eq!(
        cup.alter(&mut roller(0), attempt(AlterKind::Jump, "I", "I", false)),
        Err(ChitError::NoAlterWindow)
    );
    assert_eq!(cup.finish_move(), Err(ChitError::NothingMoving));
    assert_eq!(cup.end_turn(), Err(ChitError::TurnNotOver(4)));
    draw_until(&mut cup, "I");
    assert_eq!(
        cup.alter(&mut roller(0), attempt(AlterKind::Delay, "II", "II", false)),
        Err(ChitError::NotTheDrawnChit("I".into()))
    );
    assert_eq!(
        cup.alter(&mut roller(0), attempt(AlterKind::Jump, "I", "I", false)),
        Err(ChitError::NotInBag("I".into()))
    );
    assert_eq!(
        cup.alter(
            &mut roller(0),
            attempt(AlterKind::Jump, "Lee", "Lee", false)
        ),
        Err(ChitError::UnknownHq("Lee".into()))
    );
    let turn = Turn::new(1, 1).unwrap();
    assert_eq!(
        ChitCup::new(turn, vec![chit("I", "blue"), chit("I", "blue")], vec![]),
        Err(ChitError::DuplicateChit("I".into()))
    );
    assert_eq!(
        ChitCup::new(turn, vec![], vec![hq("I", "blue", 7, false)]),
        Err(ChitError::BadRating("I".into(), 7))
    );
}

#[test]
fn a_delay_needs_another_chit_to_move_instead() {
    let mut cup = ChitCup::new(
        Turn::new(1, 1).unwrap(),
        vec![chit("I", "blue")],
        vec![hq("I", "blue", 3, false)],
    )
    .unwrap();
    cup.draw(&mut roller(0)).unwrap();
    assert_eq!(
        cup.alter(&mut roller(9), attempt(AlterKind::Delay, "I", "I", false)),
        Err(ChitError::NothingToDrawInstead)
    );
}

#[test]
fn the_opponent_sees_only_the_colour_of_a_draw() {
    let mut cup = cup();
    draw_until(&mut cup, "I");
    let own = cup.view("blue");
    let other = cup.view("red");
    let seen = |side: &str, command: Option<&str>| SeenChit {
        side: side.into(),
        command: command.map(String::from),
    };
    assert_eq!(own.current, Some(seen("blue", Some("I"))));
    assert_eq!(other.current, Some(seen("blue", None)));
    assert_eq!(own.in_bag + own.moved.len() + 1, 4);
    for (mine, theirs) in own.moved.iter().zip(&other.moved) {
        assert_eq!(mine.side, theirs.side);
        assert_eq!(theirs.command.is_some(), theirs.side == "red");
    }
}

#[test]
fn the_cup_survives_json() {
    let mut cup = cup();
    cup.draw(&mut roller(5)).unwrap();
    let jumper = cup.bag[0].command.clone();
    cup.alter(
        &mut roller(9),
        attempt(AlterKind::Jump, &jumper, &jumper, false),
    )
    .unwrap();
    let json = serde_json::to_string(&cup).unwrap();
    assert_eq!(serde_json::from_str::<ChitCup>(&json).unwrap(), cup);
}
