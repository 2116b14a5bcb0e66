//! Dice notation: parsing, reading thrown dice by hand-worked arithmetic, and errors that
//! point at the offending character.

use aide::dice::{Die, Keep, Notation, Outcome, ParseError, RollId, Roller, Scoring};

fn parse(text: &str) -> Notation {
    text.parse()
        .unwrap_or_else(|e| panic!("`{text}` should parse: {e}"))
}

fn error(text: &str) -> ParseError {
    text.parse::<Notation>()
        .expect_err(&format!("`{text}` should not parse"))
}

#[test]
fn every_form_a_table_needs_parses() {
    assert_eq!(parse("3d6 hits 4+ -1"), Notation::hits(3, 4, -1));
    assert_eq!(parse("3D6 Hits On 4+ At -1"), Notation::hits(3, 4, -1));
    assert_eq!(parse("  3d6   hits 4+  "), Notation::hits(3, 4, 0));
    assert_eq!(parse("2d6 hit 5+ +1"), Notation::hits(2, 5, 1));
    let sum = |count, die, keep, modifier| Notation {
        count,
        die,
        keep,
        scoring: Scoring::Sum { modifier },
    };
    assert_eq!(parse("2d6"), sum(2, Die::D6, None, 0));
    assert_eq!(parse("2d6+1"), sum(2, Die::D6, None, 1));
    assert_eq!(parse("d3"), sum(1, Die::D3, None, 0));
    assert_eq!(parse("d8"), sum(1, Die::D8, None, 0));
    assert_eq!(parse("d100"), sum(1, Die::Sides(100), None, 0));
    assert_eq!(
        parse("4d6 dl1"),
        sum(4, Die::D6, Some(Keep::DropLowest(1)), 0)
    );
    assert_eq!(
        parse("4d6dh1"),
        sum(4, Die::D6, Some(Keep::DropHighest(1)), 0)
    );
    assert_eq!(parse("2d6 k1"), sum(2, Die::D6, Some(Keep::Highest(1)), 0));
    assert_eq!(parse("2d6 kl1"), sum(2, Die::D6, Some(Keep::Lowest(1)), 0));
}

#[test]
fn hits_apply_the_modifier_to_each_die_before_the_threshold() {
    // 3d6 hits 4+ -1 on faces 5, 3, 4: read 4, 2, 3 → only the first die hits.
    let report = parse("3d6 hits 4+ -1").read(RollId(0), &[5, 3, 4]);
    let read: Vec<i32> = report.dice.iter().map(|d| d.modified).collect();
    let hits: Vec<bool> = report.dice.iter().map(|d| d.hit).collect();
    assert_eq!(read, [4, 2, 3]);
    assert_eq!(hits, [true, false, false]);
    assert_eq!(report.outcome, Outcome::Hits(1));
    // The same faces at +1 read 6, 4, 5: three hits.
    let report = parse("3d6 hits 4+ +1").read(RollId(0), &[5, 3, 4]);
    assert_eq!(report.outcome, Outcome::Hits(3));
}

#[test]
fn keep_and_drop_pick_the_right_dice() {
    let faces = [2, 6, 3, 6];
    let total = |text: &str| parse(text).read(RollId(0), &faces).outcome;
    assert_eq!(total("4d6"), Outcome::Total(17));
    assert_eq!(total("4d6 dl1"), Outcome::Total(15)); // 6 + 3 + 6
    assert_eq!(total("4d6 dh1"), Outcome::Total(11)); // 2 + 3 + 6: one six dropped
    assert_eq!(total("4d6 kh2"), Outcome::Total(12)); // 6 + 6
    assert_eq!(total("4d6 kl1"), Outcome::Total(2));
    assert_eq!(total("4d6 kh2+1"), Outcome::Total(13));
    // Dropped dice never hit: keep the two lowest (2, 3), at +1 they read 3, 4: one hit.
    assert_eq!(total("4d6 kl2 hits 4+ +1"), Outcome::Hits(1));
}

#[test]
fn a_seeded_roll_shows_the_same_dice_every_time() {
    let notation = parse("3d6 hits 4+ -1");
    let first = notation.roll(&mut Roller::replay(RollId(7)));
    let again = notation.roll(&mut Roller::replay("r0000000000000007".parse().unwrap()));
    assert_eq!(first, again);
    assert_eq!(first.roll_id.to_string(), "r0000000000000007");
    assert_eq!(first.notation, "3d6 hits 4+ -1");
    // Seed 7 throws 1, 1, 6; at -1 they read 0, 0, 5: one hit.
    let faces: Vec<u8> = first.dice.iter().map(|d| d.face).collect();
    let read: Vec<i32> = first.dice.iter().map(|d| d.modified).collect();
    assert_eq!(faces, [1, 1, 6]);
    assert_eq!(read, [0, 0, 5]);
    assert_eq!(first.outcome, Outcome::Hits(1));
}

#[test]
fn d3_only_reads_one_to_three() {
    let mut roller = Roller::replay(RollId(1));
    let report = parse("60d3").roll(&mut roller);
    assert!(report.dice.iter().all(|d| (1..=3).contains(&d.face)));
}

#[test]
fn errors_point_at_the_offending_character() {
    let cases: [(&str, usize, &str); 14] = [
        ("3x6", 1, "expected `d` (as in 3d6), found `x`"),
        ("", 0, "expected `d` (as in 3d6), the roll ends"),
        ("3d", 2, "expected number of sides, the roll ends"),
        ("3d1", 2, "number of sides must be 2 to 100, not 1"),
        ("0d6", 0, "dice count must be 1 to 100, not 0"),
        ("101d6", 0, "dice count must be 1 to 100, not 101"),
        (
            "3d6 hits 4",
            10,
            "expected `+` after the hit threshold (4+), the roll ends",
        ),
        ("3d6 hits x+", 9, "expected hit threshold, found `x`"),
        (
            "3d6 hits 4+ 1",
            12,
            "expected a per-die modifier such as -1, found `1`",
        ),
        (
            "3d6 hits 4+ -1 x",
            15,
            "expected the end of the roll, found `x`",
        ),
        (
            "3d6 hots 4+",
            4,
            "expected `hits 4+`, a keep rule (kh, kl, dh, dl) or a modifier such as +1, found `h`",
        ),
        ("2d6 dl2", 6, "keep/drop count must be 1 to 1, not 2"),
        ("d6 dl1", 5, "cannot drop dice from a roll of 1"),
        (
            "3d6 hits 4+ -999999999999",
            13,
            "per-die modifier 999999999999 is too large",
        ),
    ];
    for (text, column, message) in cases {
        let e = error(text);
        assert_eq!(
            (e.column, e.message.as_str()),
            (column, message),
            "for `{text}`"
        );
    }
}

#[test]
fn the_error_text_draws_a_caret_under_the_column() {
    let shown = error("3d6 hits 4+ -1 x").to_string();
    assert_eq!(
        shown,
        "expected the end of the roll, found `x` at column 16\n  3d6 hits 4+ -1 x\n                 ^"
    );
}
