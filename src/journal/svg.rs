//! A small map of one turn for the after-action report: the scenario's terrain, the
//! pieces as the turn left them, an arrow for every move (red when it broke a rule) and a
//! dashed ghost where a unit was removed.
//!
//! Drawn straight from the terrain GeoJSON and the footprints, in map inches (the SVG's
//! user unit is one inch), so what the report shows is what the rules measured, not a
//! picture that merely looks like the map.

use std::fmt::Write;

use geo::{Coord, LineString, MultiPolygon};

use crate::scenario::{Scenario, TerrainKind};
use crate::table::{Pose, Status, TableState};
use crate::track::Event;

/// Pixels per map inch in the SVG's width and height: a 36 x 24 in map is 720 x 480,
/// readable in a report without zooming.
const PX_PER_IN: f64 = 20.0;

/// Draw `table` (the state at the end of the turn) with `events` (the turn's events).
pub fn turn_map(scenario: &Scenario, table: &TableState, events: &[&Event]) -> String {
    let (w, h) = (scenario.map.width_in, scenario.map.height_in);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{pw:.0}" height="{ph:.0}" viewBox="0 0 {w} {h}" font-family="sans-serif">
<defs>
<marker id="legal" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#222222"/></marker>
<marker id="broke" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#d01010"/></marker>
</defs>
<rect x="0" y="0" width="{w}" height="{h}" fill="#f4efdf" stroke="#6b5b3e" stroke-width="0.06"/>
"##,
        pw = w * PX_PER_IN,
        ph = h * PX_PER_IN,
    );
    draw_terrain(&mut s, scenario);
    let moved: Vec<&str> = events
        .iter()
        .filter(|e| matches!(e, Event::Moved(_) | Event::Added { .. }))
        .map(|e| e.unit())
        .collect();
    for e in events {
        if let Event::Removed {
            unit,
            last_pose,
            last_status,
        } = e
        {
            draw_removed(&mut s, scenario, unit, *last_pose, *last_status);
        }
    }
    for piece in &table.pieces {
        let colour = scenario
            .side(&piece.side)
            .map(|side| side.colour.as_str())
            .unwrap_or("#444444");
        let fill_opacity = match piece.status {
            Status::Fresh => 1.0,
            Status::Spent => 0.45,
        };
        let _ = writeln!(
            s,
            r#"<polygon points="{}" fill="{colour}" fill-opacity="{fill_opacity}" stroke="{colour}" stroke-width="0.04"/>"#,
            points(&piece.footprint.corners())
        );
        let [fl, fr, ..] = piece.footprint.corners();
        let _ = writeln!(
            s,
            r##"<line x1="{:.3}" y1="{:.3}" x2="{:.3}" y2="{:.3}" stroke="#ffffff" stroke-width="0.06"/>"##,
            fl.x, fl.y, fr.x, fr.y
        );
        if moved.contains(&piece.id.as_str()) {
            label(&mut s, piece.footprint.center, &piece.id);
        }
    }
    for e in events {
        if let Event::Moved(m) = e {
            let (colour, marker) = if m.verdict.legal {
                ("#222222", "legal")
            } else {
                ("#d01010", "broke")
            };
            if m.distance_in > 0.0 {
                let _ = writeln!(
                    s,
                    r#"<line x1="{:.3}" y1="{:.3}" x2="{:.3}" y2="{:.3}" stroke="{colour}" stroke-width="0.07" marker-end="url(#{marker})"/>"#,
                    m.from.x_in, m.from.y_in, m.to.x_in, m.to.y_in
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

/// Terrain style: fill, stroke, and the order drawn (lower first: hills under woods
/// under roads, crests on top so they stay visible).
fn style(kind: TerrainKind, level: u8) -> (&'static str, &'static str, u8) {
    match kind {
        TerrainKind::Hill if level >= 2 => ("#cdb978", "#a88f4f", 1),
        TerrainKind::Hill => ("#e3d6a8", "#b9a46a", 0),
        TerrainKind::Marsh => ("#b9c9a3", "#8ea27a", 2),
        TerrainKind::Woods => ("#7fa36b", "#5d7f4c", 3),
        TerrainKind::Buildings => ("#b08f74", "#7d604a", 4),
        TerrainKind::River | TerrainKind::Stream => ("#7eb3dd", "none", 5),
        TerrainKind::Road => ("#d9c7a0", "none", 6),
        TerrainKind::Ford => ("#a9cfea", "#7eb3dd", 7),
        TerrainKind::Bridge => ("#8a7360", "none", 8),
        TerrainKind::Impassable => ("#5b6b78", "none", 9),
        TerrainKind::Crest => ("none", "#8b6f3a", 10),
        TerrainKind::Field => ("#e8e0a0", "#c9bd6a", 2),
        TerrainKind::Rough => ("#c2b59b", "#9c8e72", 2),
        TerrainKind::Entrenchment => ("#a08060", "#6f5438", 9),
    }
}

fn draw_terrain(s: &mut String, scenario: &Scenario) {
    let mut features: Vec<_> = scenario.terrain.features.iter().collect();
    features.sort_by_key(|f| style(f.kind, f.level).2);
    for f in features {
        let (fill, stroke, _) = style(f.kind, f.level);
        if f.kind == TerrainKind::Crest {
            if let Some(line) = &f.line {
                let _ = writeln!(
                    s,
                    r#"<path d="{}" fill="none" stroke="{stroke}" stroke-width="0.05" stroke-dasharray="0.2 0.12"/>"#,
                    line_path(line)
                );
            }
            continue;
        }
        let _ = writeln!(
            s,
            r#"<path d="{}" fill="{fill}" fill-rule="evenodd" stroke="{stroke}" stroke-width="0.03"/>"#,
            area_path(&f.area)
        );
    }
}

fn draw_removed(s: &mut String, scenario: &Scenario, unit: &str, pose: Pose, status: Status) {
    let Some(u) = scenario.unit(unit) else {
        return;
    };
    let corners = scenario.footprint(u, pose, status).corners();
    let _ = writeln!(
        s,
        r##"<polygon points="{}" fill="none" stroke="#555555" stroke-width="0.04" stroke-dasharray="0.1 0.07"/>"##,
        points(&corners)
    );
    let _ = writeln!(
        s,
        r##"<path d="M{:.3},{:.3} L{:.3},{:.3} M{:.3},{:.3} L{:.3},{:.3}" stroke="#555555" stroke-width="0.04"/>"##,
        corners[0].x,
        corners[0].y,
        corners[2].x,
        corners[2].y,
        corners[1].x,
        corners[1].y,
        corners[3].x,
        corners[3].y
    );
    label(
        s,
        Coord {
            x: pose.x_in,
            y: pose.y_in,
        },
        unit,
    );
}

fn label(s: &mut String, at: Coord<f64>, text: &str) {
    let _ = writeln!(
        s,
        r##"<text x="{:.3}" y="{:.3}" font-size="0.4" text-anchor="middle" fill="#111111" stroke="#f4efdf" stroke-width="0.08" paint-order="stroke">{}</text>"##,
        at.x,
        at.y - 0.5,
        escape(text)
    );
}

fn points(corners: &[Coord<f64>]) -> String {
    corners
        .iter()
        .map(|c| format!("{:.3},{:.3}", c.x, c.y))
        .collect::<Vec<_>>()
        .join(" ")
}

fn line_path(line: &LineString<f64>) -> String {
    let mut d = String::new();
    for (i, c) in line.coords().enumerate() {
        let _ = write!(
            d,
            "{}{:.3},{:.3} ",
            if i == 0 { 'M' } else { 'L' },
            c.x,
            c.y
        );
    }
    d.trim_end().to_owned()
}

fn area_path(area: &MultiPolygon<f64>) -> String {
    let mut d = String::new();
    for poly in &area.0 {
        for ring in std::iter::once(poly.exterior()).chain(poly.interiors()) {
            d.push_str(&line_path(ring));
            d.push_str(" Z ");
        }
    }
    d.trim_end().to_owned()
}

/// Unit ids come from the scenario file; keep them from breaking the markup.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
