//! A 30-vs-30 table over the demo terrain, shared by the benchmarks.
//!
//! Two battle lines of 30 blocks each face each other across the middle of the
//! Aldermoor Valley map, close enough that most pairs are within sight range and many
//! within a field of fire: the expensive case for a table at the height of a battle.

use std::path::Path;

use aide::scenario::{Scenario, Unit};
use aide::table::{Placement, Quality, Status, TableState, UnitKind};

const KINDS: [UnitKind; 10] = [
    UnitKind::Infantry,
    UnitKind::Infantry,
    UnitKind::Infantry,
    UnitKind::Infantry,
    UnitKind::Cavalry,
    UnitKind::Infantry,
    UnitKind::Artillery,
    UnitKind::Infantry,
    UnitKind::Dragoons,
    UnitKind::Infantry,
];

/// The demo scenario with its units replaced by two lines of 30, and their placements.
pub fn thirty_a_side() -> (Scenario, TableState) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo/valley.toml");
    let mut scenario = Scenario::load(&path).expect("the demo scenario loads");
    let hqs: Vec<Unit> = scenario
        .units
        .iter()
        .filter(|u| u.kind.is_hq())
        .cloned()
        .collect();
    let mut units = hqs.clone();
    let mut placements = Vec::new();
    for (side, y0, heading) in [("red", 13.2, 0.0), ("blue", 10.8, 180.0)] {
        let command = scenario
            .commands
            .iter()
            .find(|c| c.side == side)
            .expect("each side has a command")
            .id
            .clone();
        for i in 0..30 {
            let id = format!("{side}-{i}");
            let (row, col) = (i / 15, i % 15);
            let toward_rear = if side == "red" { 1.0 } else { -1.0 };
            // A small deterministic jitter in position and heading, as hands leave them.
            let jitter = ((i * 37 % 11) as f64 - 5.0) / 25.0;
            placements.push(Placement {
                id: id.clone(),
                x_in: 3.0 + col as f64 * 2.05 + jitter,
                y_in: y0 + toward_rear * row as f64 * 1.2,
                heading_deg: heading + jitter * 10.0,
                status: if i % 7 == 3 {
                    Status::Spent
                } else {
                    Status::Fresh
                },
            });
            units.push(Unit {
                id,
                name: format!("{side} {i}"),
                side: side.into(),
                command: Some(command.clone()),
                kind: KINDS[i % KINDS.len()],
                quality: Quality::Regular,
                setup: None,
                commander: false,
                weight: None,
                attached: false,
                q: None,
            });
        }
    }
    for hq in &hqs {
        if let Some(p) = scenario.setup_table().piece(&hq.id) {
            placements.push(Placement {
                id: hq.id.clone(),
                x_in: p.pose.x_in,
                y_in: p.pose.y_in,
                heading_deg: p.pose.heading_deg,
                status: p.status,
            });
        }
    }
    scenario.units = units;
    let table = scenario
        .table(&placements)
        .expect("generated placements fit the scenario");
    (scenario, table)
}
