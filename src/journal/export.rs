//! The log for people: turn by turn, who moved where, how far, what it broke.
//!
//! The text form is for the terminal; the Markdown form is the after-action report,
//! with a map per turn. Both read a [`GameLog`] (the whole journal) so they never touch
//! SQLite themselves. The scenario, when it can be loaded, gives units their names.

use std::fmt::Write;

use super::{GameLog, Millis, Phase, PhaseRecord, StoredDraw, StoredState, Turn, svg};
use crate::scenario::Scenario;
use crate::table::Pose;
use crate::track::{Event, Move};
use crate::vision::MapPicture;

/// The text log: one block per turn, one line per event, the rules' numbers on it.
pub fn text_log(log: &GameLog, scenario: Option<&Scenario>) -> String {
    let mut s = String::new();
    let g = &log.game;
    let _ = writeln!(
        s,
        "{} ({}): game started {} UTC",
        g.scenario_name,
        g.rules,
        utc(g.started_ms)
    );
    let _ = writeln!(
        s,
        "scenario {} (sha256 {})",
        g.scenario_path,
        &g.scenario_sha256[..12.min(g.scenario_sha256.len())]
    );
    for turn in &log.turns {
        let _ = writeln!(s, "\n{}", turn_title(turn));
        for item in items(log, turn.turn) {
            match item {
                Item::Phase(p) => {
                    let _ = writeln!(s, "  {}", phase_title(p, scenario));
                }
                Item::State(state) => {
                    let events = events_of(log, state.seq);
                    let _ = write!(s, "  #{} {}", state.seq, clock(state.ts_ms));
                    if state.seq == log.states[0].seq {
                        let _ = write!(s, "  {} pieces on the table", state.state.pieces.len());
                    }
                    s.push('\n');
                    for e in events {
                        text_event(&mut s, e, scenario);
                    }
                }
                Item::Draw(d) => {
                    let _ = writeln!(
                        s,
                        "  {} {} ({}): {}",
                        clock(d.ts_ms),
                        d.category.as_str(),
                        d.kind,
                        d.value
                    );
                }
            }
        }
    }
    s
}

fn text_event(s: &mut String, e: &Event, scenario: Option<&Scenario>) {
    let who = name(scenario, e.unit());
    match e {
        Event::Moved(m) => {
            let _ = writeln!(
                s,
                "    {who} moved {:.2} in, {} -> {}{}: {}, {:.2} in allowed, margin {:+.2} in",
                m.distance_in,
                at(m.from),
                at(m.to),
                turned(m),
                if m.verdict.legal {
                    "legal"
                } else {
                    "NOT LEGAL"
                },
                m.verdict.allowance_in,
                crate::rules::hundredths(m.verdict.margin_in)
            );
            for p in &m.verdict.problems {
                let _ = writeln!(s, "      problem: {p}");
            }
            for w in &m.verdict.warnings {
                let _ = writeln!(s, "      warning: {w}");
            }
            if !m.terrain_crossed.is_empty() {
                let _ = writeln!(s, "      crossed: {}", crossed(m));
            }
        }
        Event::Flipped { from, to, .. } => {
            let _ = writeln!(s, "    {who} flipped {from} -> {to}");
        }
        Event::Removed {
            last_pose,
            last_status,
            ..
        } => {
            let _ = writeln!(
                s,
                "    {who} removed, last at {} facing {:.0}, {}",
                at(*last_pose),
                last_pose.heading_deg,
                last_status
            );
        }
        Event::Added {
            pose, status: st, ..
        } => {
            let _ = writeln!(
                s,
                "    {who} added at {} facing {:.0}, {}",
                at(*pose),
                pose.heading_deg,
                st
            );
        }
        Event::Identified { was, pose, .. } => {
            let was = name(scenario, was);
            let _ = writeln!(s, "    {who} named at {} (was taken for {was})", at(*pose));
        }
        Event::Vetoed { .. }
        | Event::Lifted { .. }
        | Event::Placed { .. }
        | Event::Unplaced { .. }
        | Event::Seen { .. } => {
            let _ = writeln!(s, "    {}", by_hand(e, &who));
        }
    }
}

/// A piece vetoed (and the veto lifted), placed by hand, taken back, or taken over by
/// the camera, in words after the unit's name `who`.
fn by_hand(e: &Event, who: &str) -> String {
    match e {
        Event::Vetoed { unit, pose, by, .. } => {
            let what = if unit.is_empty() {
                "a detection".to_owned()
            } else {
                format!("{who}'s piece")
            };
            format!("{what} at {} is not a piece, says {by}: vetoed", at(*pose))
        }
        Event::Lifted { unit, pose } => {
            let what = if unit.is_empty() {
                "a detection".to_owned()
            } else {
                format!("{who}'s piece")
            };
            format!(
                "the place where {what} was vetoed, {}, changed: seen again",
                at(*pose)
            )
        }
        Event::Placed {
            pose, status, by, ..
        } => format!(
            "{who} placed by hand by {by} at {} facing {:.0}, {status}",
            at(*pose),
            pose.heading_deg
        ),
        Event::Unplaced { pose, by, .. } => {
            format!("{who} taken back by {by} (placed by hand at {})", at(*pose))
        }
        Event::Seen { placed, pose, .. } => format!(
            "{who} seen by the camera at {} (placed by hand at {})",
            at(*pose),
            at(*placed)
        ),
        _ => who.to_owned(),
    }
}

/// A Markdown report and the files it refers to.
pub struct MarkdownReport {
    pub markdown: String,
    /// `(file name, SVG)` for each map the Markdown links to; empty when inline.
    pub maps: Vec<(String, String)>,
    /// `(file name, JPEG)` for each camera picture the Markdown links to; empty when
    /// inline.
    pub pictures: Vec<(String, Vec<u8>)>,
}

/// The after-action report. With `stem`, each turn's map is linked as
/// `{stem}-turn-{n}.svg` and each state's camera picture as `{stem}-state-{seq}.jpg`
/// (files the caller writes beside the report, from [`MarkdownReport::maps`] and
/// [`MarkdownReport::pictures`]); without, the SVG is inline in the Markdown and the
/// pictures are `data:` URIs. `pictures` are the journal's, by state.
pub fn markdown_report(
    log: &GameLog,
    scenario: &Scenario,
    stem: Option<&str>,
    pictures: &[(i64, MapPicture)],
) -> MarkdownReport {
    let report = Report::new(log, scenario, pictures);
    let mut s = String::new();
    let mut maps = Vec::new();
    let mut files = Vec::new();
    let _ = writeln!(s, "# {}\n", report.title);
    let _ = writeln!(s, "{}\n", report.summary);
    let _ = writeln!(
        s,
        "Scenario `{}` (sha256 `{}`). {}\n",
        report.scenario_path, report.scenario_sha, MEASURE_NOTE
    );
    for turn in &report.turns {
        let _ = writeln!(s, "## {}\n", turn.title);
        if let Some(map) = &turn.map {
            match stem {
                Some(stem) => {
                    let file = format!("{stem}-turn-{}.svg", turn.number);
                    let _ = writeln!(s, "![Map: {}]({file})\n", turn.title);
                    maps.push((file, map.clone()));
                }
                None => {
                    let _ = writeln!(s, "{}\n", map.trim_end());
                }
            }
        }
        let _ = writeln!(
            s,
            "| # | time | unit | what | distance | allowed | margin | rules |"
        );
        let _ = writeln!(s, "|---|---|---|---|---:|---:|---:|---|");
        for row in &turn.rows {
            let _ = writeln!(s, "{}", markdown_row(row));
        }
        s.push('\n');
        for shot in &turn.shots {
            let _ = writeln!(s, "**Camera, #{} {}**{}\n", shot.seq, shot.time, {
                let lines: Vec<String> = shot.lines.iter().map(|l| cell(l)).collect();
                if lines.is_empty() {
                    String::new()
                } else {
                    format!(": {}", lines.join("; "))
                }
            });
            let alt = format!("Camera picture of state #{}", shot.seq);
            match stem {
                Some(stem) => {
                    let file = format!("{stem}-state-{}.jpg", shot.seq);
                    let _ = writeln!(s, "![{alt}]({file})\n");
                    files.push((file, shot.picture.jpeg.clone()));
                }
                None => {
                    let _ = writeln!(s, "![{alt}]({})\n", data_uri(shot.picture));
                }
            }
        }
    }
    MarkdownReport {
        markdown: s,
        maps,
        pictures: files,
    }
}

/// The after-action report as one self-contained HTML file: each turn's map inline,
/// each state's camera picture a `data:` URI. Every string from the scenario or the
/// journal (names, rule texts, rolls) is escaped; the maps escape their own labels.
pub fn html_report(log: &GameLog, scenario: &Scenario, pictures: &[(i64, MapPicture)]) -> String {
    use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};
    let report = Report::new(log, scenario, pictures);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{HTML_STYLE}</style>\n</head>\n<body>",
        text(&report.title)
    );
    let _ = writeln!(s, "<h1>{}</h1>", text(&report.title));
    let _ = writeln!(s, "<p>{}</p>", text(&report.summary));
    let _ = writeln!(
        s,
        "<p>Scenario <code>{}</code> (sha256 <code>{}</code>). {}</p>",
        text(&report.scenario_path),
        text(&report.scenario_sha),
        text(MEASURE_NOTE)
    );
    for turn in &report.turns {
        let _ = writeln!(s, "<section>\n<h2>{}</h2>", text(&turn.title));
        if let Some(map) = &turn.map {
            let _ = writeln!(s, "<div class=\"map\">{}</div>", map.trim_end());
        }
        let _ = writeln!(
            s,
            "<table>\n<tr><th>#</th><th>time</th><th>unit</th><th>what</th><th>distance</th><th>allowed</th><th>margin</th><th>rules</th></tr>"
        );
        for row in &turn.rows {
            let what = match &row.style {
                Style::Plain => text(&row.what).into_owned(),
                Style::Heading => format!("<strong>{}</strong>", text(&row.what)),
                Style::Code(code) => format!("{} <code>{}</code>", text(&row.what), text(code)),
            };
            let rules: Vec<String> = row.rules.iter().map(|r| text(r).into_owned()).collect();
            let verdict = match row.legal {
                Some(true) => "legal<br>".to_owned(),
                Some(false) => "<strong class=\"bad\">NOT LEGAL</strong><br>".to_owned(),
                None => String::new(),
            };
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{what}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{verdict}{}</td></tr>",
                row.seq.map(|n| n.to_string()).unwrap_or_default(),
                text(&row.time),
                text(&row.who),
                text(&row.numbers[0]),
                text(&row.numbers[1]),
                text(&row.numbers[2]),
                rules.join("<br>")
            );
        }
        let _ = writeln!(s, "</table>");
        for shot in &turn.shots {
            let caption: Vec<String> = shot.lines.iter().map(|l| text(l).into_owned()).collect();
            let _ = writeln!(
                s,
                "<figure id=\"state-{seq}\"><img src=\"{}\" width=\"{}\" height=\"{}\" alt=\"{}\"><figcaption><strong>#{seq} {}</strong>{}</figcaption></figure>",
                data_uri(shot.picture),
                shot.picture.width,
                shot.picture.height,
                attr(&format!("Camera picture of state #{}", shot.seq)),
                text(&shot.time),
                if caption.is_empty() {
                    String::new()
                } else {
                    format!(": {}", caption.join("; "))
                },
                seq = shot.seq,
            );
        }
        let _ = writeln!(s, "</section>");
    }
    let _ = writeln!(s, "</body>\n</html>");
    s
}

const MEASURE_NOTE: &str = "Distances are centre to centre in map inches; a margin is the allowance minus the distance, negative when a piece went too far.";

/// The report's look: readable on a phone, the pictures no wider than the screen.
const HTML_STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:60rem;margin:auto;padding:0 0.8rem;color:#222}table{border-collapse:collapse;width:100%;font-size:0.9rem}td,th{border-bottom:1px solid #ccc;padding:0.2rem 0.4rem;text-align:left;vertical-align:top}td.n{text-align:right;white-space:nowrap}.bad{color:#b00}img,svg{max-width:100%;height:auto}figure{margin:0.8rem 0}figcaption{font-size:0.9rem}";

/// A picture as a `data:` URI, for a report that carries its pictures inside it.
fn data_uri(picture: &MapPicture) -> String {
    use base64::Engine;
    format!(
        "data:image/jpeg;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&picture.jpeg)
    )
}

/// The after-action report's content, before it is written as Markdown or HTML: plain
/// text everywhere, each writer marks it up and escapes it its own way.
struct Report<'l> {
    title: String,
    summary: String,
    scenario_path: String,
    scenario_sha: String,
    turns: Vec<TurnReport<'l>>,
}

struct TurnReport<'l> {
    number: u32,
    title: String,
    /// The turn's map (SVG), when its last state fits the scenario.
    map: Option<String>,
    rows: Vec<Row>,
    /// The camera's picture of each of the turn's states that has one.
    shots: Vec<Shot<'l>>,
}

/// One line of a turn's table.
struct Row {
    seq: Option<i64>,
    time: String,
    who: String,
    what: String,
    style: Style,
    /// Distance, allowance and margin of a move; empty otherwise.
    numbers: [String; 3],
    /// Whether a move kept to the rules (`None`: not a move).
    legal: Option<bool>,
    rules: Vec<String>,
}

enum Style {
    Plain,
    /// A phase: the turn's structure.
    Heading,
    /// A roll or a draw: `what`, then its stored value as code.
    Code(String),
}

/// A state's camera picture and what happened in it.
struct Shot<'l> {
    seq: i64,
    time: String,
    picture: &'l MapPicture,
    /// "who what" of each of its events.
    lines: Vec<String>,
}

impl<'l> Report<'l> {
    fn new(log: &'l GameLog, scenario: &Scenario, pictures: &'l [(i64, MapPicture)]) -> Self {
        let g = &log.game;
        let moves = log
            .events
            .iter()
            .filter(|e| matches!(e.event, Event::Moved(_)))
            .count();
        let broken = log
            .events
            .iter()
            .filter(|e| matches!(&e.event, Event::Moved(m) if !m.verdict.legal))
            .count();
        let summary = format!(
            "{} · started {} UTC · {} turns after the setup · {} stable states · {} moves, {} of them against the rules",
            g.rules,
            utc(g.started_ms),
            log.turns.iter().filter(|t| t.turn > 0).count(),
            log.states.len(),
            moves,
            broken
        );
        let mut turns = Vec::new();
        for turn in &log.turns {
            let Some(last) = log.states.iter().rev().find(|st| st.turn == turn.turn) else {
                continue;
            };
            let turn_events: Vec<&Event> = log
                .events
                .iter()
                .filter(|e| {
                    log.states
                        .iter()
                        .any(|st| st.seq == e.seq && st.turn == turn.turn)
                })
                .map(|e| &e.event)
                .collect();
            let map = scenario
                .table(&last.state.pieces)
                .ok()
                .map(|table| svg::turn_map(scenario, &table, &turn_events));
            let mut rows = Vec::new();
            let mut shots = Vec::new();
            for item in items(log, turn.turn) {
                match item {
                    Item::Phase(p) => rows.push(Row {
                        time: clock(p.ts_ms),
                        what: phase_title(p, Some(scenario)),
                        style: Style::Heading,
                        ..Row::blank(None)
                    }),
                    Item::State(state) => {
                        if state.seq == log.states[0].seq {
                            rows.push(Row {
                                time: clock(state.ts_ms),
                                what: format!("{} pieces on the table", state.state.pieces.len()),
                                ..Row::blank(Some(state.seq))
                            });
                        }
                        let first = rows.len();
                        rows.extend(
                            events_of(log, state.seq).map(|e| report_row(state, e, scenario)),
                        );
                        if let Some((_, picture)) =
                            pictures.iter().find(|(seq, _)| *seq == state.seq)
                        {
                            shots.push(Shot {
                                seq: state.seq,
                                time: clock(state.ts_ms),
                                picture,
                                lines: rows[first..]
                                    .iter()
                                    .map(|r| format!("{} {}", r.who, r.what))
                                    .collect(),
                            });
                        }
                    }
                    Item::Draw(d) => rows.push(Row {
                        time: clock(d.ts_ms),
                        what: format!("{} ({}):", d.category.as_str(), d.kind),
                        style: Style::Code(d.value.to_string()),
                        ..Row::blank(None)
                    }),
                }
            }
            turns.push(TurnReport {
                number: turn.turn,
                title: turn_title(turn),
                map,
                rows,
                shots,
            });
        }
        Report {
            title: format!("After-action report: {}", g.scenario_name),
            summary,
            scenario_path: g.scenario_path.clone(),
            scenario_sha: g.scenario_sha256[..12.min(g.scenario_sha256.len())].to_owned(),
            turns,
        }
    }
}

impl Row {
    fn blank(seq: Option<i64>) -> Self {
        Row {
            seq,
            time: String::new(),
            who: String::new(),
            what: String::new(),
            style: Style::Plain,
            numbers: Default::default(),
            legal: None,
            rules: Vec::new(),
        }
    }
}

fn report_row(state: &StoredState, e: &Event, scenario: &Scenario) -> Row {
    let mut row = Row {
        time: clock(state.ts_ms),
        who: name(Some(scenario), e.unit()),
        ..Row::blank(Some(state.seq))
    };
    row.what = match e {
        Event::Moved(m) => {
            row.legal = Some(m.verdict.legal);
            row.rules
                .extend(m.verdict.problems.iter().map(|p| format!("problem: {p}")));
            row.rules
                .extend(m.verdict.warnings.iter().map(|w| format!("warning: {w}")));
            if !m.terrain_crossed.is_empty() {
                row.rules.push(format!("crossed: {}", crossed(m)));
            }
            row.numbers = [
                format!("{:.2} in", m.distance_in),
                format!("{:.2} in", m.verdict.allowance_in),
                format!("{:+.2} in", crate::rules::hundredths(m.verdict.margin_in)),
            ];
            format!("moved {} → {}{}", at(m.from), at(m.to), turned(m))
        }
        Event::Flipped { from, to, .. } => format!("flipped {from} → {to}"),
        Event::Removed { last_pose, .. } => format!("removed, last at {}", at(*last_pose)),
        Event::Added { pose, .. } => format!("added at {}", at(*pose)),
        Event::Identified { was, pose, .. } => format!(
            "named at {} (was taken for {})",
            at(*pose),
            name(Some(scenario), was)
        ),
        Event::Vetoed { .. }
        | Event::Lifted { .. }
        | Event::Placed { .. }
        | Event::Unplaced { .. }
        | Event::Seen { .. } => by_hand(e, &row.who),
    };
    row
}

/// A row of the Markdown table; every cell's `|` escaped.
fn markdown_row(row: &Row) -> String {
    let what = match &row.style {
        Style::Plain => cell(&row.what),
        Style::Heading => format!("**{}**", cell(&row.what)),
        Style::Code(code) => format!("{} `{}`", cell(&row.what), cell(code)),
    };
    let mut rules: Vec<String> = Vec::new();
    match row.legal {
        Some(true) => rules.push("legal".into()),
        Some(false) => rules.push("**NOT LEGAL**".into()),
        None => {}
    }
    rules.extend(row.rules.iter().map(|r| cell(r)));
    format!(
        "| {} | {} | {} | {what} | {} | {} | {} | {} |",
        row.seq.map(|n| n.to_string()).unwrap_or_default(),
        row.time,
        cell(&row.who),
        row.numbers[0],
        row.numbers[1],
        row.numbers[2],
        rules.join("<br>")
    )
}

/// Keep a `|` in a name or a rule text from splitting the table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

enum Item<'l> {
    Phase(&'l PhaseRecord),
    State(&'l StoredState),
    Draw(&'l StoredDraw),
}

/// A turn's phases, states and draws in the order they happened: by time, a phase
/// before the states it holds, and a draw after the state it followed.
fn items(log: &GameLog, turn: u32) -> Vec<Item<'_>> {
    let mut items: Vec<(Millis, u8, i64, Item)> = Vec::new();
    items.extend(
        log.phases
            .iter()
            .filter(|p| p.turn == turn)
            .map(|p| (p.ts_ms, 0, p.id, Item::Phase(p))),
    );
    items.extend(
        log.states
            .iter()
            .filter(|st| st.turn == turn)
            .map(|st| (st.ts_ms, 1, st.seq, Item::State(st))),
    );
    items.extend(
        log.draws
            .iter()
            .filter(|d| d.turn == turn)
            .map(|d| (d.ts_ms, 2, d.id, Item::Draw(d))),
    );
    items.sort_by_key(|(ts, order, id, _)| (*ts, *order, *id));
    items.into_iter().map(|(.., item)| item).collect()
}

fn events_of(log: &GameLog, seq: i64) -> impl Iterator<Item = &Event> {
    log.events
        .iter()
        .filter(move |e| e.seq == seq)
        .map(|e| &e.event)
}

fn turn_title(turn: &Turn) -> String {
    match (turn.turn, turn.night) {
        (0, _) => "Setup".into(),
        (n, false) => format!("Turn {n} (day)"),
        (n, true) => format!("Turn {n} (night)"),
    }
}

fn phase_title(p: &PhaseRecord, scenario: Option<&Scenario>) -> String {
    match &p.phase {
        Phase::Activation { command } => match scenario.and_then(|s| s.command(command)) {
            Some(c) => format!("Activation: {} ({command})", c.name),
            None => format!("Activation: {command}"),
        },
        Phase::Combat => "Combat".into(),
    }
}

/// "Guard Grenadiers (red-2-gd)" when the scenario is at hand, else the id.
fn name(scenario: Option<&Scenario>, unit: &str) -> String {
    match scenario.and_then(|s| s.unit(unit)) {
        Some(u) => format!("{} ({unit})", u.name),
        None => unit.to_owned(),
    }
}

fn at(p: Pose) -> String {
    format!("({:.2}, {:.2})", p.x_in, p.y_in)
}

fn turned(m: &Move) -> String {
    if m.facing_change_deg >= 0.5 {
        format!(", turned {:.0}°", m.facing_change_deg)
    } else {
        String::new()
    }
}

fn crossed(m: &Move) -> String {
    m.terrain_crossed
        .iter()
        .map(|t| {
            let kind = serde_json::to_value(t.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            match &t.name {
                Some(n) => format!("{n} ({kind})"),
                None => kind,
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// "2026-11-22 08:31:05" from journal milliseconds.
pub fn utc(ms: Millis) -> String {
    let secs = ms.div_euclid(1000);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02} {}", clock(ms))
}

/// "08:31:05" (UTC) from journal milliseconds.
fn clock(ms: Millis) -> String {
    let day = ms.div_euclid(1000).rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", day / 3600, day / 60 % 60, day % 60)
}

/// Year, month, day of a count of days since 1970-01-01 (Howard Hinnant's algorithm):
/// the one date conversion the log needs, without a date library.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_come_out_right_across_leap_years() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        // 2000-02-29 12:00:00 UTC = 951825600 s.
        assert_eq!(utc(951_825_600_000), "2000-02-29 12:00:00");
        // 2026-11-22 08:04:25 UTC = 1795334665 s.
        assert_eq!(utc(1_795_334_665_000), "2026-11-22 08:04:25");
    }
}
