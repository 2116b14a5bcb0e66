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
    // "After an Alter attempt, other Fresh HQs may roll to Alter" (3.2); "Other HQs may
    // then attempt to move before this" (3.0): the window stays open behind the jumper.
    assert_eq!(
        current(&cup),
        ("II", true),
        "the jumper moves next, and other fresh HQs may still Alter"
    );
    cup.finish_move().unwrap();
    let next = cup.draw(&mut roller(0)).unwrap();
    assert_eq!((next.roll_id, next.chit.command.as_str()), (None, "1st"));
    assert_eq!(cup.moved.last().unwrap().command, "II");
}

/// 3.2: "After an Alter attempt, other Fresh HQs may roll to Alter. Make the Alter rolls in
/// the announced order. There is no limit to the number of Alter attempts per draw as long
/// as players are willing and have Fresh HQs left." Red's 1st is drawn; Blue's II (rating
/// 3) jumps on a 3; then Red's 2nd (rating 3) jumps ahead of II on a 1. The moves run 2nd,
/// II, 1st, and only then is a new chit drawn.
#[test]
fn a_second_fresh_hq_may_jump_ahead_of_a_successful_jump() {
    let mut cup = cup();
    draw_until(&mut cup, "1st");
    let drawn_from = cup.bag.len();
    let first = cup
        .alter(&mut roller(9), attempt(AlterKind::Jump, "II", "II", false))
        .unwrap();
    assert_eq!((first.die, first.rating, first.success), (3, 3, true));
    assert_eq!(current(&cup), ("II", true));
    let second = cup
        .alter(
            &mut roller(7),
            attempt(AlterKind::Jump, "2nd", "2nd", false),
        )
        .unwrap();
    assert_eq!((second.die, second.rating, second.success), (1, 3, true));
    assert_eq!(current(&cup), ("2nd", true), "the last jumper moves first");
    assert_eq!(status(&cup, "II"), Status::Spent);
    assert_eq!(status(&cup, "2nd"), Status::Spent);
    assert_eq!(cup.bag.len(), drawn_from - 2);
    // Neither jumper left the turn: they wait outside the bag, and the views count them.
    assert_eq!(cup.view("blue").in_bag, drawn_from);
    assert_eq!(cup.view("red").in_bag, drawn_from);
    assert!(!cup.all_moved());

    // The move starts: once 2nd is done, the chits left out come up without a draw and
    // without an Alter window, in order.
    cup.finish_move().unwrap();
    for expected in ["II", "1st"] {
        assert_eq!(
            cup.alter(&mut roller(7), attempt(AlterKind::Jump, "I", "I", false)),
            Err(ChitError::NoAlterWindow)
        );
        let next = cup.draw(&mut roller(0)).unwrap();
        assert_eq!((next.roll_id, next.chit.command.as_str()), (None, expected));
        assert_eq!(current(&cup), (expected, false));
        assert_eq!(
            cup.alter(&mut roller(7), attempt(AlterKind::Jump, "I", "I", false)),
            Err(ChitError::NoAlterWindow)
        );
        cup.finish_move().unwrap();
    }
    let n = cup.moved.len();
    let order: Vec<&str> = cup.moved[n - 3..]
        .iter()
        .map(|c| c.command.as_str())
        .collect();
    assert_eq!(order, ["2nd", "II", "1st"]);
    // Then the cup draws at random again, and a random draw opens a new window.
    let next = cup.draw(&mut roller(0)).unwrap();
    assert!(next.roll_id.is_some());
    assert!(current(&cup).1);
}

/// A failed Alter after a successful Jump changes nothing but the HQ: "If you fail the
/// roll, leave your chit in the bag." II (rating 3) jumps on a 3; 2nd (rating 3) then
/// rolls a 6 and fails: II still moves first, 1st right after it.
#[test]
fn a_failed_jump_after_a_successful_one_leaves_the_order_alone() {
    let mut cup = cup();
    draw_until(&mut cup, "1st");
    assert!(
        cup.alter(&mut roller(9), attempt(AlterKind::Jump, "II", "II", false))
            .unwrap()
            .success
    );
    let failed = cup
        .alter(
            &mut roller(19),
            attempt(AlterKind::Jump, "2nd", "2nd", false),
        )
        .unwrap();
    assert_eq!((failed.die, failed.rating, failed.success), (6, 3, false));
    assert_eq!(current(&cup), ("II", true));
    assert!(cup.bag.contains(&chit("2nd", "red")));
    assert_eq!(status(&cup, "2nd"), Status::Spent);
    // The spent HQ cannot roll again this turn.
    assert_eq!(
        cup.alter(
            &mut roller(7),
            attempt(AlterKind::Jump, "2nd", "2nd", false)
        ),
        Err(ChitError::HqSpent("2nd".into()))
    );
    cup.finish_move().unwrap();
    let next = cup.draw(&mut roller(0)).unwrap();
    assert_eq!((next.roll_id, next.chit.command.as_str()), (None, "1st"));
    assert_eq!(cup.moved.last().unwrap().command, "II");
}

/// Delay is for "your chit has been drawn and you don't want to move now"; after a Jump the
/// drawn chit "will move immediately after you, and before you draw a new chit", and 3.0
/// lets the others only "attempt to move before this". No die is thrown, no HQ is spent.
#[test]
fn no_delay_after_a_successful_jump() {
    let mut cup = cup();
    draw_until(&mut cup, "1st");
    cup.alter(&mut roller(9), attempt(AlterKind::Jump, "II", "II", false))
        .unwrap();
    assert_eq!(
        cup.alter(
            &mut roller(7),
            attempt(AlterKind::Delay, "1st", "1st", false)
        ),
        Err(ChitError::DelayAfterJump("1st".into()))
    );
    assert_eq!(
        cup.alter(
            &mut roller(7),
            attempt(AlterKind::Delay, "Meade", "II", true)
        ),
        Err(ChitError::DelayAfterJump("II".into()))
    );
    assert_eq!(status(&cup, "1st"), Status::Fresh);
    assert_eq!(status(&cup, "Meade"), Status::Fresh);
    assert_eq!(current(&cup), ("II", true));
    // A Jump still may go ahead: Meade (rating 4) for I, in range, on a 1.
    let report = cup
        .alter(&mut roller(7), attempt(AlterKind::Jump, "Meade", "I", true))
        .unwrap();
    assert!(report.success);
    assert_eq!(current(&cup), ("I", true));
}

/// The opponent learns nothing new from the chits a Jump left out: the view counts them
/// with the bag and names none.
#[test]
fn the_opponent_sees_only_colours_behind_a_jump() {
    let mut cup = cup();
    draw_until(&mut cup, "1st");
    cup.alter(&mut roller(9), attempt(AlterKind::Jump, "II", "II", false))
        .unwrap();
    cup.alter(
        &mut roller(7),
        attempt(AlterKind::Jump, "2nd", "2nd", false),
    )
    .unwrap();
    let blue = serde_json::to_value(cup.view("blue")).unwrap();
    assert_eq!(
        blue["current"],
        serde_json::json!({"side": "red", "command": null})
    );
    let text = blue.to_string();
    assert!(!text.contains("1st") && !text.contains("2nd"), "{text}");
}

/// Journals written before the queue held several chits stored `"queued": null` or one
/// chit object; both still load, and so does a cup without the field.
#[test]
fn a_cup_stored_with_the_old_single_queued_chit_still_loads() {
    let mut cup = cup();
    draw_until(&mut cup, "1st");
    cup.alter(&mut roller(9), attempt(AlterKind::Jump, "II", "II", false))
        .unwrap();
    let mut json = serde_json::to_value(&cup).unwrap();
    assert_eq!(
        json["queued"],
        serde_json::json!([{"command": "1st", "side": "red"}])
    );

    json["queued"] = serde_json::json!({"command": "1st", "side": "red"});
    let old_one: ChitCup = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(old_one, cup);

    let mut empty = cup.clone();
    empty.finish_move().unwrap();
    empty.draw(&mut roller(0)).unwrap();
    let mut json = serde_json::to_value(&empty).unwrap();
    json["queued"] = serde_json::Value::Null;
    assert_eq!(
        serde_json::from_value::<ChitCup>(json.clone()).unwrap(),
        empty
    );
    json.as_object_mut().unwrap().remove("queued");
    assert_eq!(serde_json::from_value::<ChitCup>(json).unwrap(), empty);

    // Two chits left out behind two Jumps keep their order through JSON.
    cup.alter(
        &mut roller(7),
        attempt(AlterKind::Jump, "2nd", "2nd", false),
    )
    .unwrap();
    let json = serde_json::to_value(&cup).unwrap();
    assert_eq!(
        json["queued"],
        serde_json::json!([
            {"command": "II", "side": "blue"},
            {"command": "1st", "side": "red"}
        ])
    );
    assert_eq!(serde_json::from_value::<ChitCup>(json).unwrap(), cup);
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
    assert_eq!(current(&cup), ("II", true));
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
