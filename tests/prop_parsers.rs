//! Property tests for the two readers people type into: the scenario loader (TOML plus
//! GeoJSON terrain) and dice notation. On any input neither panics, and every error
//! points at the place to fix: a scenario error names its file and a line or field, a
//! roll's error a column inside the roll.

use std::path::{Path, PathBuf};

use aide::dice::Notation;
use aide::scenario::{Scenario, ScenarioError, Terrain};
use proptest::prelude::*;

const MINI: &str = include_str!("fixtures/mini/scenario.toml");
const MINI_TERRAIN: &str = include_str!("fixtures/mini/terrain.geojson");
const DEMO: &str = include_str!("../scenarios/demo/valley.toml");

/// The mini scenario's own path, so a mutated text still finds its terrain file and the
/// terrain is checked against it.
fn mini_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini/scenario.toml")
}

/// An error a person can act on: it names the file it came from, and a line (within the
/// text) or at least the field.
fn check_scenario_error(e: &ScenarioError, file: &Path, text: &str) -> Result<(), TestCaseError> {
    let shown = e.to_string();
    prop_assert!(!e.message.trim().is_empty(), "empty message: {shown}");
    if e.file == file
        && let Some(line) = e.line
    {
        let lines = text.lines().count().max(1);
        prop_assert!(
            (1..=lines + 1).contains(&line),
            "line {line} outside the {lines}-line text: {shown}"
        );
    }
    prop_assert!(
        e.line.is_some() || e.field.is_some(),
        "neither a line nor a field: {shown}"
    );
    prop_assert!(shown.starts_with(&e.file.display().to_string()));
    Ok(())
}

/// A small edit of a valid text: the kind of mistake a person makes (a line lost or
/// doubled, a value mistyped, the file cut short), so the loader's checks beyond TOML
/// syntax are reached too.
#[derive(Debug, Clone)]
enum Edit {
    DeleteLine(usize),
    DuplicateLine(usize),
    /// Replace the value after `=` on a line.
    ReplaceValue(usize, String),
    /// Insert a line.
    InsertLine(usize, String),
    /// Cut the text at a character.
    Truncate(usize),
    /// Replace one character.
    ReplaceChar(usize, char),
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\"\"".to_owned()),
        Just("\"red\"".to_owned()),
        Just("\"blue\"".to_owned()),
        Just("\"rh\"".to_owned()),
        Just("\"hq\"".to_owned()),
        Just("\"army-hq\"".to_owned()),
        Just("\"r-1\"".to_owned()),
        Just("\"cavalry\"".to_owned()),
        Just("\"nowhere.geojson\"".to_owned()),
        Just("nan".to_owned()),
        Just("inf".to_owned()),
        Just("-0.0".to_owned()),
        Just("[]".to_owned()),
        Just("{}".to_owned()),
        Just("{ x_in = 1.0 }".to_owned()),
        Just("{ x_in = 1.0, y_in = 1.0, heading_deg = 1e308 }".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| format!("{x:?}")),
        "[a-z0-9\"=., {}\\[\\]-]{0,12}",
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("[[units]]".to_owned()),
        Just("[[sides]]".to_owned()),
        Just("[[commands]]".to_owned()),
        Just("[map]".to_owned()),
        Just("[measures]".to_owned()),
        Just("id = \"r1\"".to_owned()),
        Just("kind = \"hq\"".to_owned()),
        Just("rules = \"ohw-hex\"".to_owned()),
        Just("rules = \"nbc\"".to_owned()),
        Just("unknown = 1".to_owned()),
        ("[a-z_]{1,12}", value()).prop_map(|(k, v)| format!("{k} = {v}")),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::DeleteLine),
        any::<usize>().prop_map(Edit::DuplicateLine),
        (any::<usize>(), value()).prop_map(|(i, v)| Edit::ReplaceValue(i, v)),
        (any::<usize>(), line()).prop_map(|(i, l)| Edit::InsertLine(i, l)),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), any::<char>()).prop_map(|(i, c)| Edit::ReplaceChar(i, c)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for edit in edits {
        let n = lines.len().max(1);
        match edit {
            Edit::DeleteLine(i) if !lines.is_empty() => {
                lines.remove(i % n);
            }
            Edit::DuplicateLine(i) if !lines.is_empty() => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Edit::ReplaceValue(i, v) if !lines.is_empty() => {
                let l = &mut lines[i % n];
                if let Some((k, _)) = l.split_once('=') {
                    *l = format!("{k}= {v}");
                }
            }
            Edit::InsertLine(i, l) => lines.insert(i % (lines.len() + 1), l.clone()),
            Edit::Truncate(i) => {
                let joined = lines.join("\n");
                let chars = joined.chars().count().max(1);
                let cut: String = joined.chars().take(i % chars).collect();
                lines = cut.lines().map(str::to_owned).collect();
            }
            Edit::ReplaceChar(i, c) => {
                let joined = lines.join("\n");
                let chars = joined.chars().count().max(1);
                let changed: String = joined
                    .chars()
                    .enumerate()
                    .map(|(j, old)| if j == i % chars { *c } else { old })
                    .collect();
                lines = changed.lines().map(str::to_owned).collect();
            }
            _ => {}
        }
    }
    lines.join("\n") + "\n"
}

/// A roll as players might type it, right or wrong: pieces of the grammar in any order,
/// with numbers of any size.
fn roll_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("d".to_owned()),
        Just("D".to_owned()),
        Just("hits".to_owned()),
        Just("hit".to_owned()),
        Just("on".to_owned()),
        Just("at".to_owned()),
        Just("+".to_owned()),
        Just("-".to_owned()),
        Just("k".to_owned()),
        Just("kh".to_owned()),
        Just("kl".to_owned()),
        Just("dh".to_owned()),
        Just("dl".to_owned()),
        Just(" ".to_owned()),
        Just("\u{a0}".to_owned()),
        Just("é".to_owned()),
        "[0-9]{1,12}",
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(token, 0..10).prop_map(|t| t.concat())
}

fn check_roll(text: &str) -> Result<(), TestCaseError> {
    match text.parse::<Notation>() {
        Ok(notation) => {
            // What was read prints as a roll that reads back the same.
            let canonical = notation.to_string();
            let again: Notation = canonical
                .parse()
                .map_err(|e| TestCaseError::fail(format!("`{canonical}` from `{text}`: {e}")))?;
            prop_assert_eq!(again, notation, "`{}` printed as `{}`", text, canonical);
        }
        Err(e) => {
            // The column is a character of the roll, or just past its end.
            prop_assert_eq!(&e.input, text);
            let chars = text.chars().count();
            prop_assert!(
                e.column <= chars,
                "column {} past the end of `{}` ({} characters)",
                e.column,
                text,
                chars
            );
            prop_assert!(!e.message.is_empty());
            let shown = e.to_string();
            prop_assert!(
                shown.contains(&format!("at column {}", e.column + 1)),
                "{shown}"
            );
        }
    }
    Ok(())
}

// proptest's default: 256 cases, or PROPTEST_CASES.
proptest! {
    #[test]
    fn scenario_loader_never_panics_on_any_text(text in "\\PC{0,200}") {
        let path = Path::new("any.toml");
        if let Err(e) = Scenario::from_toml(path, &text) {
            check_scenario_error(&e, path, &text)?;
        }
    }

    #[test]
    fn scenario_loader_names_the_place_of_every_mistake(
        base in prop_oneof![Just(MINI), Just(DEMO)],
        edits in proptest::collection::vec(edit(), 1..4),
    ) {
        let text = apply(base, &edits);
        // The demo's terrain path is relative to its own folder: give it that folder.
        let path = if base == MINI {
            mini_path()
        } else {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo/valley.toml")
        };
        if let Err(e) = Scenario::from_toml(&path, &text) {
            check_scenario_error(&e, &path, &text)?;
        }
    }

    #[test]
    fn terrain_parser_never_panics_and_names_a_line(
        edits in proptest::collection::vec(
            prop_oneof![
                any::<usize>().prop_map(Edit::Truncate),
                (any::<usize>(), any::<char>()).prop_map(|(i, c)| Edit::ReplaceChar(i, c)),
                (any::<usize>(), prop_oneof![
                    Just("-1".to_owned()), Just("1e400".to_owned()), Just("null".to_owned()),
                    Just("[]".to_owned()), Just("{}".to_owned()), Just("\"hill\"".to_owned()),
                    Just("[[0,0],[0,0]]".to_owned()), Just("[[[0,0],[1,0],[0,0]]]".to_owned()),
                ]).prop_map(|(i, v)| Edit::ReplaceValue(i, v)),
                any::<usize>().prop_map(Edit::DeleteLine),
                any::<usize>().prop_map(Edit::DuplicateLine),
            ],
            1..4,
        ),
    ) {
        // GeoJSON's "key": value lines: ReplaceValue splits at '=', so use ':' here.
        let text = apply(&MINI_TERRAIN.replace("\": ", "\" = "), &edits).replace("\" = ", "\": ");
        let path = Path::new("t.geojson");
        if let Err(e) = Terrain::parse(path, &text) {
            check_scenario_error(&e, path, &text)?;
            prop_assert!(e.line.is_some(), "no line: {e}");
        }
    }

    #[test]
    fn dice_notation_never_panics_and_errors_point_inside_the_roll(text in roll_text()) {
        check_roll(&text)?;
    }

    #[test]
    fn dice_notation_never_panics_on_any_text(text in "\\PC{0,40}") {
        check_roll(&text)?;
    }
}
