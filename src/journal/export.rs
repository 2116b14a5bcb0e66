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
        | Event::Placed { .. }
        | Event::Unplaced { .. }
        | Event::Seen { .. } => {
            let _ = writeln!(s, "    {}", by_hand(e, &who));
        }
    }
}

/// A piece vetoed, placed by hand, taken back, or taken over by the camera, in words
/// after the unit's name `who`.
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

/// A Markdown report and the maps it refers to.
pub struct MarkdownReport {
    pub markdown: String,
    /// `(file name, SVG)` for each map the Markdown links to; empty when inline.
    pub maps: Vec<(String, String)>,
}

/// The after-action report. With `map_stem`, each turn's map is linked as
/// `{map_stem}-turn-{n}.svg` (files the caller writes beside the report, from
/// [`MarkdownReport::maps`]); without, the SVG is inline in the Markdown.
pub fn markdown_report(
    log: &GameLog,
    scenario: &Scenario,
    map_stem: Option<&str>,
) -> MarkdownReport {
    let mut s = String::new();
    let mut maps = Vec::new();
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
    let _ = writeln!(s, "# After-action report: {}\n", g.scenario_name);
    let _ = writeln!(
        s,
        "{} · started {} UTC · {} turns after the setup · {} stable states · {} moves, {} of them against the rules\n",
        g.rules,
        utc(g.started_ms),
        log.turns.iter().filter(|t| t.turn > 0).count(),
        log.states.len(),
        moves,
        broken
    );
    let _ = writeln!(
        s,
        "Scenario `{}` (sha256 `{}`). Distances are centre to centre in map inches; a margin is the allowance minus the distance, negative when a piece went too far.\n",
        g.scenario_path,
        &g.scenario_sha256[..12.min(g.scenario_sha256.len())]
    );
    for turn in &log.turns {
        let Some(last) = log.states.iter().rev().find(|st| st.turn == turn.turn) else {
            continue;
        };
        let _ = writeln!(s, "## {}\n", turn_title(turn));
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
        if let Ok(table) = scenario.table(&last.state.pieces) {
            let map = svg::turn_map(scenario, &table, &turn_events);
            match map_stem {
                Some(stem) => {
                    let file = format!("{stem}-turn-{}.svg", turn.turn);
                    let _ = writeln!(s, "![Map: {}]({file})\n", turn_title(turn));
                    maps.push((file, map));
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
        for item in items(log, turn.turn) {
            match item {
                Item::Phase(p) => {
                    let _ = writeln!(
                        s,
                        "| | {} | | **{}** | | | | |",
                        clock(p.ts_ms),
                        phase_title(p, Some(scenario))
                    );
                }
                Item::State(state) => {
                    let events = events_of(log, state.seq);
                    if state.seq == log.states[0].seq {
                        let _ = writeln!(
                            s,
                            "| {} | {} | | {} pieces on the table | | | | |",
                            state.seq,
                            clock(state.ts_ms),
                            state.state.pieces.len()
                        );
                    }
                    for e in events {
                        let _ = writeln!(s, "{}", markdown_row(state, e, scenario));
                    }
                }
                Item::Draw(d) => {
                    let _ = writeln!(
                        s,
                        "| | {} | | {} ({}): `{}` | | | | |",
                        clock(d.ts_ms),
                        d.category.as_str(),
                        d.kind,
                        d.value
                    );
                }
            }
        }
        s.push('\n');
    }
    MarkdownReport { markdown: s, maps }
}

fn markdown_row(state: &StoredState, e: &Event, scenario: &Scenario) -> String {
    let who = cell(&name(Some(scenario), e.unit()));
    let (seq, time) = (state.seq, clock(state.ts_ms));
    match e {
        Event::Moved(m) => {
            let mut rules: Vec<String> = Vec::new();
            rules.push(if m.verdict.legal {
                "legal".into()
            } else {
                "**NOT LEGAL**".into()
            });
            rules.extend(m.verdict.problems.iter().map(|p| format!("problem: {p}")));
            rules.extend(m.verdict.warnings.iter().map(|w| format!("warning: {w}")));
            if !m.terrain_crossed.is_empty() {
                rules.push(format!("crossed: {}", crossed(m)));
            }
            format!(
                "| {seq} | {time} | {who} | moved {} → {}{} | {:.2} in | {:.2} in | {:+.2} in | {} |",
                at(m.from),
                at(m.to),
                turned(m),
                m.distance_in,
                m.verdict.allowance_in,
                m.verdict.margin_in,
                cell(&rules.join("<br>"))
            )
        }
        Event::Flipped { from, to, .. } => {
            format!("| {seq} | {time} | {who} | flipped {from} → {to} | | | | |")
        }
        Event::Removed { last_pose, .. } => format!(
            "| {seq} | {time} | {who} | removed, last at {} | | | | |",
            at(*last_pose)
        ),
        Event::Added { pose, .. } => format!(
            "| {seq} | {time} | {who} | added at {} | | | | |",
            at(*pose)
        ),
        Event::Identified { was, pose, .. } => format!(
            "| {seq} | {time} | {who} | named at {} (was taken for {}) | | | | |",
            at(*pose),
            cell(&name(Some(scenario), was))
        ),
        Event::Vetoed { .. }
        | Event::Placed { .. }
        | Event::Unplaced { .. }
        | Event::Seen { .. } => {
            format!(
                "| {seq} | {time} | {who} | {} | | | | |",
                cell(&by_hand(e, &who))
            )
        }
    }
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
