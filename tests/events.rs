//! Events between two stable states, with the numbers worked by hand.
//!
//! The mini table (tests/fixtures/mini): a 40 x 30 in map; fresh blocks are
//! 1.875 x 0.375 in, spent blocks 1.875 x 0.75 in, HQ cubes 0.375 in; foot move 5.25 in,
//! mounted 7.5 in, so command range is 2.5 in and a field of fire 1.75 in deep.
//! The Test River runs along y = 15 (0.6 in wide, y 14.7..15.3) with Shallow Ford at
//! x 10..11, y 14.5..15.5.

use std::path::Path;

use aide::scenario::{Scenario, load_state};
use aide::table::{Placement, Status, TableState};
use aide::track::{Event, EventDeriver, Move};

fn mini() -> Scenario {
    Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini/scenario.toml"))
        .unwrap()
}

fn demo() -> Scenario {
    Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo/valley.toml"))
        .unwrap()
}

fn at(id: &str, x: f64, y: f64, heading: f64, status: Status) -> Placement {
    Placement {
        id: id.into(),
        x_in: x,
        y_in: y,
        heading_deg: heading,
        status,
    }
}

use Status::{Fresh, Spent};

/// The fixture's state: the red HQ at (10, 10), r1 at (10, 12.855) and r2 at
/// (13.5, 12.895) facing north, b1 spent at (10, 11) facing south toward r1.
fn mini_before() -> Vec<Placement> {
    vec![
        at("rh", 10.0, 10.0, 0.0, Fresh),
        at("r1", 10.0, 12.855, 0.0, Fresh),
        at("r2", 13.5, 12.895, 0.0, Fresh),
        at("b1", 10.0, 11.0, 180.0, Spent),
    ]
}

/// `before` with one piece replaced (or removed when `to` is None).
fn with(before: &[Placement], id: &str, to: Option<Placement>) -> Vec<Placement> {
    let mut out: Vec<Placement> = before.iter().filter(|p| p.id != id).cloned().collect();
    out.extend(to);
    out
}

fn table(s: &Scenario, placements: &[Placement]) -> TableState {
    s.table(placements).unwrap()
}

fn only_move(events: &[Event]) -> &Move {
    match events {
        [Event::Moved(m)] => m,
        other => panic!("expected one move, got {other:?}"),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-4
}

#[test]
fn a_turn_on_the_mini_table_gives_one_event_per_change_and_none_for_jitter() {
    let s = mini();
    let before = mini_before();
    let after = vec![
        // The HQ is brushed by a hand: 0.036 in and 2 degrees, under both thresholds.
        at("rh", 10.03, 10.02, 2.0, Fresh),
        // r1 lies down where it stood.
        at("r1", 10.0, 12.855, 0.0, Spent),
        // r2 marches 3 in straight ahead (north).
        at("r2", 13.5, 9.895, 0.0, Fresh),
        // b1 is gone; the hussars arrive on the High Road (y = 28).
        at("rc", 20.0, 28.0, 90.0, Fresh),
    ];
    let events = EventDeriver::new(&s).events(&s, &table(&s, &before), &table(&s, &after), false);
    let kinds: Vec<(&str, &str)> = events.iter().map(|e| (e.kind(), e.unit())).collect();
    assert_eq!(
        kinds,
        [
            ("flipped", "r1"),
            ("moved", "r2"),
            ("added", "rc"),
            ("removed", "b1")
        ]
    );
    assert!(matches!(
        &events[0],
        Event::Flipped {
            from: Fresh,
            to: Spent,
            ..
        }
    ));
    let Event::Moved(m) = &events[1] else {
        unreachable!()
    };
    // 12.895 - 9.895 = 3 in along its own heading: no facing change, no terrain,
    // nothing near, so the full foot move of 5.25 in is allowed: margin 2.25 in.
    assert!(close(m.distance_in, 3.0));
    assert_eq!(m.facing_change_deg, 0.0);
    assert!(m.terrain_crossed.is_empty());
    assert!(m.verdict.legal);
    assert!(close(m.verdict.allowance_in, 5.25));
    assert!(close(m.verdict.margin_in, 2.25));
    assert!(m.verdict.problems.is_empty() && m.verdict.warnings.is_empty());
    match &events[3] {
        Event::Removed {
            last_pose,
            last_status,
            ..
        } => {
            assert_eq!(
                (last_pose.x_in, last_pose.y_in, last_pose.heading_deg),
                (10.0, 11.0, 180.0)
            );
            assert_eq!(*last_status, Spent);
        }
        other => panic!("{other:?}"),
    }
    match &events[2] {
        Event::Added { pose, status, .. } => {
            assert_eq!((pose.x_in, pose.y_in, pose.heading_deg), (20.0, 28.0, 90.0));
            assert_eq!(*status, Fresh);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_move_past_the_allowance_is_reported_with_how_far_over() {
    let s = mini();
    let before = mini_before();
    // 12.895 - 6.895 = 6 in straight ahead against 5.25 allowed: 0.75 in too far.
    let after = with(&before, "r2", Some(at("r2", 13.5, 6.895, 0.0, Fresh)));
    let events = EventDeriver::new(&s).events(&s, &table(&s, &before), &table(&s, &after), false);
    let m = only_move(&events);
    assert!(close(m.distance_in, 6.0));
    assert!(!m.verdict.legal);
    assert!(close(m.verdict.margin_in, -0.75));
    assert_eq!(
        m.verdict.problems,
        ["moves 6.00 in, 0.75 in more than its 5.25 in"]
    );
}

#[test]
fn crossing_at_the_ford_costs_a_third_and_names_the_river_and_the_ford() {
    let s = mini();
    let before = mini_before();
    // r1 about-faces and goes south over Shallow Ford to (10.5, 17): the path is
    // (0.5, 4.145), sqrt(0.25 + 17.181025) = 4.17505 in, 6.9 degrees off its new
    // heading of 180 (one free facing change of 180 degrees). The river at a ford is
    // difficult terrain: 5.25 - 1.75 = 3.5 in allowed, 0.67505 in too far.
    let after = with(&before, "r1", Some(at("r1", 10.5, 17.0, 180.0, Fresh)));
    let events = EventDeriver::new(&s).events(&s, &table(&s, &before), &table(&s, &after), false);
    let m = only_move(&events);
    assert!(close(m.distance_in, 4.17505));
    assert_eq!(m.facing_change_deg, 180.0);
    let names: Vec<&str> = m
        .terrain_crossed
        .iter()
        .filter_map(|t| t.name.as_deref())
        .collect();
    assert_eq!(names, ["Test River", "Shallow Ford"]);
    assert!(close(m.verdict.allowance_in, 3.5));
    assert!(close(m.verdict.margin_in, -0.67505));
    assert!(!m.verdict.legal);
}

#[test]
fn crossing_the_river_away_from_a_ford_is_a_problem() {
    let s = mini();
    let before = mini_before();
    // Straight south from (13.5, 12.895) to (13.5, 17): 4.105 in, over open river.
    let after = with(&before, "r2", Some(at("r2", 13.5, 17.0, 180.0, Fresh)));
    let events = EventDeriver::new(&s).events(&s, &table(&s, &before), &table(&s, &after), false);
    let m = only_move(&events);
    assert!(close(m.distance_in, 4.105));
    assert!(
        m.verdict
            .problems
            .contains(&"Test River: rivers are crossed only at bridges and fords".to_string()),
        "{:?}",
        m.verdict.problems
    );
}

#[test]
fn stepping_forward_inside_an_enemy_field_of_fire_without_attacking_is_a_warning() {
    let s = mini();
    let before = mini_before();
    // r1 steps 0.5 in north to (10, 12.355): its front edge at 12.1675 is 0.7925 in
    // from b1's front edge (11.375), so no contact, and the whole block lies in b1's
    // field of fire (y 11.375..13.125). It started in that field of fire too, so it may
    // stay ("puedes permanecer allí SI: estás a cubierto; otra pieza amiga Ataca … a ese
    // enemigo" [3.2]): legal (margin 5.25 - 0.5 = 4.75) with a warning naming the terms.
    let after = with(&before, "r1", Some(at("r1", 10.0, 12.355, 0.0, Fresh)));
    let events = EventDeriver::new(&s).events(&s, &table(&s, &before), &table(&s, &after), false);
    let m = only_move(&events);
    assert!(close(m.distance_in, 0.5));
    assert!(m.verdict.legal);
    assert!(close(m.verdict.margin_in, 4.75));
    assert_eq!(
        m.verdict.warnings,
        [
            "stays in the field of fire of b1 without cover: allowed only if another piece attacks b1 this move; else it must attack or leave"
        ]
    );
}

#[test]
fn an_attack_by_a_piece_out_of_command_is_a_problem_and_at_night_it_is_two() {
    let s = mini();
    // r2 starts at (11, 14): its front edge (13.8125) is 13.8125 - 10.1875 = 3.625 in
    // from the HQ cube, 1.125 in outside the 2.5 in command range. It moves to
    // (10, 11.5625), front edge on b1's front edge (y 11.375) along b1's whole width:
    // contact. The path (-1, -2.4375) is sqrt(1 + 5.94140625) = 2.63465 in, 22.3 degrees
    // off its heading: no facing change, margin 5.25 - 2.63465 = 2.61535 in.
    let before = with(&mini_before(), "r2", Some(at("r2", 11.0, 14.0, 0.0, Fresh)));
    let after = with(&before, "r2", Some(at("r2", 10.0, 11.5625, 0.0, Fresh)));
    let deriver = EventDeriver::new(&s);
    let (b, a) = (table(&s, &before), table(&s, &after));
    let day = deriver.events(&s, &b, &a, false);
    let m = only_move(&day);
    assert!(close(m.distance_in, 2.63465));
    assert!(close(m.verdict.margin_in, 2.61535));
    assert_eq!(
        m.verdict.problems,
        ["to attack, a piece must begin its move within command range (2.50 in of its HQ)"]
    );
    assert!(
        m.verdict.warnings.is_empty(),
        "an attack is allowed into a field of fire"
    );
    let night = deriver.events(&s, &b, &a, true);
    let m = only_move(&night);
    assert!(
        m.verdict
            .problems
            .contains(&"no attacks at night".to_string())
    );
}

#[test]
fn a_pivot_in_place_is_a_move_and_a_move_with_a_flip_gives_both_events() {
    let s = mini();
    let before = mini_before();
    // r2 turns to face east where it stands: 0 in, 90 degrees, one free facing change.
    let pivot = with(&before, "r2", Some(at("r2", 13.5, 12.895, 90.0, Fresh)));
    let deriver = EventDeriver::new(&s);
    let events = deriver.events(&s, &table(&s, &before), &table(&s, &pivot), false);
    let m = only_move(&events);
    assert_eq!(m.distance_in, 0.0);
    assert_eq!(m.facing_change_deg, 90.0);
    assert_eq!(m.verdict.costs, ["one free facing change (90 degrees)"]);
    // r2 falls back 1 in, still facing north, and lies down: a move and a flip, in that
    // order.
    let back = with(&before, "r2", Some(at("r2", 13.5, 13.895, 0.0, Spent)));
    let events = deriver.events(&s, &table(&s, &before), &table(&s, &back), false);
    let kinds: Vec<&str> = events.iter().map(Event::kind).collect();
    assert_eq!(kinds, ["moved", "flipped"]);
}

#[test]
fn the_readme_guard_move_on_the_demo_table_gives_the_readme_numbers() {
    let s = demo();
    let before = load_state(
        &s,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo/state.json"),
    )
    .unwrap();
    let mut after_placements: Vec<Placement> = before
        .pieces
        .iter()
        .map(|p| {
            at(
                &p.id,
                p.pose.x_in,
                p.pose.y_in,
                p.pose.heading_deg,
                p.status,
            )
        })
        .collect();
    let gd = after_placements
        .iter_mut()
        .find(|p| p.id == "red-2-gd")
        .unwrap();
    (gd.x_in, gd.y_in, gd.heading_deg) = (16.5, 16.2, 340.0);
    let events = EventDeriver::new(&s).events(&s, &before, &table(&s, &after_placements), false);
    let m = only_move(&events);
    // From (17.75, 19) to (16.5, 16.2): sqrt(1.25^2 + 2.8^2) = sqrt(9.4025) = 3.06635 in
    // of the 5.25 in foot move: margin 2.18365 in; 0 -> 340 is a 20 degree turn.
    assert_eq!(m.unit, "red-2-gd");
    assert!(close(m.distance_in, 3.06635));
    assert!(close(m.verdict.margin_in, 2.18365));
    assert_eq!(m.facing_change_deg, 20.0);
    assert!(m.verdict.legal);
}

#[test]
fn hand_jitter_over_the_whole_demo_table_is_no_event() {
    let s = demo();
    let before = s.setup_table();
    // Every piece nudged by (0.03, -0.03) in (0.042 in) and 2.5 degrees alternately
    // clockwise and anticlockwise: under 0.05 in and 3 degrees, so nothing moved.
    let nudged: Vec<Placement> = before
        .pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let turn = if i % 2 == 0 { 2.5 } else { -2.5 };
            at(
                &p.id,
                p.pose.x_in + 0.03,
                p.pose.y_in - 0.03,
                p.pose.heading_deg + turn,
                p.status,
            )
        })
        .collect();
    let events = EventDeriver::new(&s).events(&s, &before, &table(&s, &nudged), false);
    assert!(events.is_empty(), "{events:?}");
}

#[test]
fn events_survive_a_round_trip_through_json() {
    let s = mini();
    let before = mini_before();
    let after = with(&before, "r1", Some(at("r1", 10.5, 17.0, 180.0, Spent)));
    let events = EventDeriver::new(&s).events(&s, &table(&s, &before), &table(&s, &after), false);
    let json = serde_json::to_string(&events).unwrap();
    assert!(
        json.starts_with(r#"[{"event":"moved","unit":"r1""#),
        "{json}"
    );
    let back: Vec<Event> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, events);
}

#[test]
fn dragoons_over_the_alder_and_windmill_knoll_name_every_feature_crossed() {
    let s = demo();
    let before = load_state(
        &s,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo/state.json"),
    )
    .unwrap();
    let mut after: Vec<Placement> = before
        .pieces
        .iter()
        .map(|p| {
            at(
                &p.id,
                p.pose.x_in,
                p.pose.y_in,
                p.pose.heading_deg,
                p.status,
            )
        })
        .collect();
    let drg = after.iter_mut().find(|p| p.id == "red-3-drg").unwrap();
    drg.y_in = 8.9;
    let events = EventDeriver::new(&s).events(&s, &before, &table(&s, &after), false);
    let m = only_move(&events);
    // Straight north along x = 26.5 from y 16.9 to 8.9: 8 in. On the way: Ford Lane
    // (y 14.70 there, between its points (26.224, 14.737) and (27.027, 14.618)), the
    // Alder 2.4 in west of Ravens Ford, Windmill Knoll and its crest ((25.702, 9.636) to
    // (28.619, 9.371): y 9.56 at x 26.5). The slope is difficult: dragoons move mounted,
    // 7.5 - 2.5 = 5 in allowed, 3 in too far, and the river is no crossing.
    assert!(close(m.distance_in, 8.0));
    let names: Vec<&str> = m
        .terrain_crossed
        .iter()
        .filter_map(|t| t.name.as_deref())
        .collect();
    assert_eq!(
        names,
        [
            "River Alder",
            "Windmill Knoll",
            "Windmill Knoll crest",
            "Ford Lane"
        ]
    );
    assert!(close(m.verdict.allowance_in, 5.0));
    assert!(close(m.verdict.margin_in, -3.0));
    assert_eq!(
        m.verdict.problems,
        [
            "River Alder: rivers are crossed only at bridges and fords",
            "moves 8.00 in, 3.00 in more than its 5.00 in"
        ]
    );
}

#[test]
fn two_pieces_moved_under_one_hand_are_each_judged_against_the_table_before() {
    let s = mini();
    let before = mini_before();
    // r2 marches 3 in north (margin 2.25); r1 falls back 0.5 in south, still facing
    // north: a path 180 degrees off its facing is turn, move, turn, so one change costs
    // 1/3: 5.25 - 1.75 = 3.5 in allowed, margin 3.0 in. Neither sees the other's move.
    let after = with(
        &with(&before, "r2", Some(at("r2", 13.5, 9.895, 0.0, Fresh))),
        "r1",
        Some(at("r1", 10.0, 13.355, 0.0, Fresh)),
    );
    let events = EventDeriver::new(&s).events(&s, &table(&s, &before), &table(&s, &after), false);
    let moves: Vec<(&str, f64, f64)> = events
        .iter()
        .map(|e| match e {
            Event::Moved(m) => (m.unit.as_str(), m.distance_in, m.verdict.margin_in),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[0].0, "r2");
    assert!(close(moves[0].1, 3.0) && close(moves[0].2, 2.25));
    assert_eq!(moves[1].0, "r1");
    assert!(close(moves[1].1, 0.5) && close(moves[1].2, 3.0));
}
