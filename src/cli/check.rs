//! `aide check`: every measuring question for every piece of a table state.

use std::fmt::Write as _;
use std::path::PathBuf;

use aide::rules::{Measures, PieceReport, TableReport, for_scenario, hundredths};
use aide::scenario::{Scenario, load_state};
use anyhow::Context;

/// Check command range, fields of fire, sight and flanks for a table state.
#[derive(clap::Args)]
pub struct Args {
    /// Scenario file (TOML).
    #[arg(long)]
    pub scenario: PathBuf,
    /// Table state: {"pieces":[{"id","x_in","y_in","heading_deg","status"}]}.
    #[arg(long)]
    pub state: PathBuf,
    /// Print JSON instead of text for a person.
    #[arg(long)]
    pub json: bool,
    /// The table before this turn's moves (same format as --state): rules where only
    /// units that did not move may shoot (ohw-hex) compare against it.
    #[arg(long)]
    pub previous: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let scenario = Scenario::load(&args.scenario)?;
    let table = load_state(&scenario, &args.state)?;
    let rules = for_scenario(&scenario);
    let report = match &args.previous {
        Some(path) => rules.check_turn(&scenario, &load_state(&scenario, path)?, &table),
        None => rules.check_table(&scenario, &table),
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).context("serialising the report")?
        );
    } else {
        print!("{}", for_a_person(&scenario, &report));
    }
    Ok(())
}

/// An enum as it is spelled in files and JSON ("pub-battles-3.2", "infantry").
fn label<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

/// The report as a person reads it: one paragraph per piece, margins in inches.
pub fn for_a_person(scenario: &Scenario, report: &TableReport) -> String {
    let mut out = String::new();
    match &report.measures {
        Measures::Inches(m) => {
            let _ = writeln!(
                out,
                "{} ({}): foot move {:.2} in, mounted move {:.2} in; command range {:.2} in, field of fire {:.2} in deep, sight {:.2} in\n",
                scenario.name,
                label(&report.rules),
                m.foot_move_in,
                m.mounted_move_in,
                m.command_range_in,
                m.fof_depth_in,
                m.sight_range_in
            );
        }
        Measures::Hex(m) => {
            let _ = writeln!(
                out,
                "{} ({}): hexes {:.2} in across sides; infantry and artillery move {} hex, cavalry {}; small arms range {} hex, artillery {}\n",
                scenario.name,
                label(&report.rules),
                m.hex_step_in,
                m.infantry_move_hex,
                m.cavalry_move_hex,
                m.small_arms_range_hex,
                m.artillery_range_hex
            );
        }
        Measures::Cm(m) => {
            let _ = writeln!(
                out,
                "{} ({}): contact zone {} cm, flanked within {} cm, visibility {} cm ({} cm from a vantage point)\n",
                scenario.name,
                label(&report.rules),
                m.contact_zone_cm,
                m.flank_cm,
                m.visibility_cm,
                m.vantage_visibility_cm
            );
        }
    }
    for p in &report.pieces {
        let _ = writeln!(out, "{}", piece_paragraph(scenario, p));
    }
    out
}

fn piece_paragraph(scenario: &Scenario, p: &PieceReport) -> String {
    let name = scenario
        .unit(&p.id)
        .map_or(p.id.as_str(), |u| u.name.as_str());
    let mut s = format!(
        "{} — {name} ({}, {}, {})\n",
        p.id,
        p.side,
        label(&p.kind),
        label(&p.status)
    );
    let hq = p.kind == aide::table::UnitKind::Hq;
    let what = if hq {
        "army commander's range"
    } else {
        "command"
    };
    let hill = match (p.hill_level, p.terrain.as_str()) {
        (0, _) => String::new(),
        (level, "hill") => format!(" (level {level})"),
        (level, _) => format!(" on a hill (level {level})"),
    };
    let cover = p
        .cover
        .as_ref()
        .map_or(String::new(), |c| format!(", cover ({c})"));
    let _ = writeln!(s, "  terrain: {}{hill}{cover}", p.terrain);
    if let Some(h) = &p.hex {
        let _ = writeln!(
            s,
            "  hex ({}, {}){}, facing side {} ({:.0} deg) toward ({}, {}){}",
            h.hex.col,
            h.hex.row,
            if h.on_grid { "" } else { " OFF THE GRID" },
            h.facing_side,
            h.facing_deg,
            h.faces.col,
            h.faces.row,
            if h.commander {
                ", commander attached"
            } else {
                ""
            }
        );
        if let Some(e) = &h.must_turn_to_face {
            let _ = writeln!(s, "  must turn to face {e}");
        }
        let moved = match h.moved {
            Some(true) => "moved this turn, may not shoot",
            Some(false) => "did not move, may shoot",
            None => "no previous state: assumed not moved",
        };
        let _ = writeln!(s, "  {moved}");
        for shot in &h.shots {
            let _ = writeln!(
                s,
                "  {} {} at {} hex{}: {}",
                if shot.allowed {
                    "may shoot"
                } else {
                    "may not shoot"
                },
                shot.target,
                shot.range_hex,
                shot.target_cover
                    .as_ref()
                    .map_or(String::new(), |c| format!(" (in cover: {c})")),
                shot.reason
            );
        }
    }
    if let Some(n) = &p.nbc {
        nbc_lines(&mut s, n);
    }
    match (p.in_command, p.command_margin_in, &p.commanded_by) {
        _ if p.nbc.is_some() => {}
        (Some(true), Some(m), Some(hq)) => {
            let _ = writeln!(s, "  {what}: in range of {hq} by {:.2} in", hundredths(m));
        }
        (Some(false), Some(m), Some(hq)) => {
            let _ = writeln!(
                s,
                "  {what}: OUT of range, {:.2} in beyond {hq}'s range",
                hundredths(-m)
            );
        }
        (Some(_), _, _) => {
            let _ = writeln!(
                s,
                "  {what}: OUT of range, {} not on the table",
                if hq { "the army HQ is" } else { "its HQ is" }
            );
        }
        (None, _, _) => {}
    }
    if !p.fof_detail.is_empty() {
        let fof: Vec<String> = p
            .fof_detail
            .iter()
            .map(|f| format!("{} ({:.0}% inside)", f.id, f.fraction_inside * 100.0))
            .collect();
        let _ = writeln!(s, "  in the field of fire of: {}", fof.join(", "));
    }
    let _ = writeln!(s, "  can see: {}", list(&p.can_see));
    if !p.in_contact_with.is_empty() && p.nbc.is_none() {
        let _ = writeln!(s, "  in contact with: {}", list(&p.in_contact_with));
    }
    if !p.flanked_by.is_empty() && p.nbc.is_none() {
        let _ = writeln!(s, "  FLANKED by: {}", list(&p.flanked_by));
    }
    if let Some(sup) = &p.supported_by {
        let _ = writeln!(s, "  supported by: {sup}");
    }
    if p.in_road_column {
        let _ = writeln!(s, "  in road column");
    }
    if let Some(r) = &p.rally
        && p.status == aide::table::Status::Spent
    {
        let _ = writeln!(
            s,
            "  rally: {} ({})",
            if r.possible { "yes" } else { "no" },
            r.reason
        );
    }
    s
}

/// The NBC lines of a piece's paragraph, in centimetres.
fn nbc_lines(s: &mut String, n: &aide::rules::nbc::NbcPieceReport) {
    let _ = writeln!(s, "  base {} x {} cm", n.frontage_cm, n.depth_cm);
    if let Some(c) = &n.command {
        match (c.distance_cm, c.margin_cm) {
            (Some(d), Some(m)) => {
                let _ = writeln!(
                    s,
                    "  command: {} from {} ({}), radius {} cm, {d:.1} cm away: {}",
                    if c.in_command { "IN" } else { "OUT OF COMMAND" },
                    c.commander,
                    c.formation,
                    c.radius_cm,
                    if m >= 0.0 {
                        format!("{:.2} cm to spare", hundredths(m))
                    } else {
                        format!("{:.2} cm too far", hundredths(-m))
                    }
                );
            }
            _ => {
                let _ = writeln!(s, "  command: OUT OF COMMAND ({})", c.reason);
            }
        }
    }
    if let Some(a) = &n.army_commander {
        let _ = writeln!(
            s,
            "  army commander {}: {:.1} cm away, sees {} cm{}: {}{}",
            a.id,
            a.distance_cm,
            a.visibility_cm,
            if a.on_vantage_point {
                " (vantage point)"
            } else {
                ""
            },
            if a.within_visibility {
                "within sight"
            } else {
                "out of sight"
            },
            if a.within_10cm {
                ", within 10 cm (+1 Quality Check)"
            } else {
                ""
            }
        );
    }
    let near = |v: &[aide::rules::nbc::Neighbour]| {
        v.iter()
            .map(|e| format!("{} ({:.1} cm)", e.id, e.distance_cm))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !n.contact_zone.is_empty() {
        let _ = writeln!(s, "  contact zone: {}", near(&n.contact_zone));
    }
    if !n.flanked_by.is_empty() {
        let _ = writeln!(s, "  FLANKED by: {}", near(&n.flanked_by));
    }
    for t in &n.artillery {
        let _ = writeln!(
            s,
            "  {} {} at {:.1} cm, {}: {}",
            if t.allowed {
                "may fire at"
            } else {
                "may not fire at"
            },
            t.target,
            t.distance_cm,
            if t.allowed {
                format!("{} dice", t.dice)
            } else {
                label(&t.band)
            },
            t.reason
        );
    }
}
