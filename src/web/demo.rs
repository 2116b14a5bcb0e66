//! The built-in demo: scenarios/demo embedded in the binary, and a short scripted game
//! (a few moves a turn over three turns) that the replay feed loops over.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::scenario::{Scenario, ScenarioError};
use crate::table::{Placement, StateFile, Status, TableState};

pub const SCENARIO_TOML: &str = include_str!("../../scenarios/demo/valley.toml");
pub const TERRAIN_GEOJSON: &str = include_str!("../../scenarios/demo/terrain.geojson");
pub const MAP_SVG: &str = include_str!("../../scenarios/demo/map.svg");
pub const STATE_JSON: &str = include_str!("../../scenarios/demo/state.json");

/// Errors of the built-in demo: only possible if the embedded files are broken or the
/// temporary folder is not writable.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("writing the demo terrain to {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("the embedded demo state: {0}")]
    State(String),
}

/// Load the embedded demo scenario. The scenario loader resolves terrain against the
/// scenario's folder on disk (and the journal hashes both files), so both are written
/// to a folder in the temporary directory and left there for the life of the process; the
/// binary itself needs no files beside it. The write goes through a unique name and a
/// rename, so servers and tests starting at once never read a half-written file.
pub fn scenario() -> Result<Scenario, DemoError> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let folder = std::env::temp_dir().join(concat!("aide-demo-", env!("CARGO_PKG_VERSION")));
    let io = |source| DemoError::Io {
        path: folder.clone(),
        source,
    };
    std::fs::create_dir_all(&folder).map_err(io)?;
    for (name, text) in [
        ("valley.toml", SCENARIO_TOML),
        ("terrain.geojson", TERRAIN_GEOJSON),
        ("map.svg", MAP_SVG),
    ] {
        let path = folder.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text) {
            continue;
        }
        let partial = folder.join(format!(
            "{name}.{}.{}.partial",
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&partial, text).map_err(io)?;
        std::fs::rename(&partial, &path).map_err(io)?;
    }
    Ok(Scenario::from_toml(
        &folder.join("valley.toml"),
        SCENARIO_TOML,
    )?)
}

/// One scripted move: a piece to a pose and state.
struct Step {
    id: &'static str,
    x_in: f64,
    y_in: f64,
    heading_deg: f64,
    status: Status,
}

const fn step(id: &'static str, x_in: f64, y_in: f64, heading_deg: f64, spent: bool) -> Step {
    Step {
        id,
        x_in,
        y_in,
        heading_deg,
        status: if spent { Status::Spent } else { Status::Fresh },
    }
}

/// Three turns of small, plausible moves from the demo's state.json; each entry is one
/// settled table, so the replay shows one piece moving at a time.
const SCRIPT: &[Step] = &[
    // Turn 1: Blue presses towards the river, Red answers.
    step("blue-2-gd", 22.5, 15.0, 180.0, false),
    step("blue-1-art", 10.5, 7.0, 180.0, false),
    step("red-1-gren", 25.0, 17.4, 350.0, false),
    step("blue-3-hus", 33.0, 14.8, 200.0, false),
    // Turn 2.
    step("red-3-drg", 27.2, 16.5, 15.0, false),
    step("blue-ahq", 20.4, 9.4, 180.0, false),
    step("red-2-det", 4.4, 15.9, 10.0, false),
    step("blue-2-gd", 22.5, 15.4, 180.0, true),
    // Turn 3: the Guard falls back, Red's artillery turns.
    step("red-1-art", 22.6, 17.6, 15.0, false),
    step("blue-2-gd", 22.3, 14.1, 180.0, true),
    step("blue-3-hus", 32.6, 13.9, 180.0, false),
];

/// The demo's tables: the starting state, then one table after each scripted move.
pub fn tables(scenario: &Scenario) -> Result<Vec<TableState>, DemoError> {
    let start: StateFile =
        serde_json::from_str(STATE_JSON).map_err(|e| DemoError::State(e.to_string()))?;
    let mut placements: Vec<Placement> = start.pieces;
    let mut out = vec![
        scenario
            .table(&placements)
            .map_err(|e| DemoError::State(e.to_string()))?,
    ];
    for s in SCRIPT {
        let p = placements
            .iter_mut()
            .find(|p| p.id == s.id)
            .ok_or_else(|| DemoError::State(format!("script moves {}, not on the table", s.id)))?;
        p.x_in = s.x_in;
        p.y_in = s.y_in;
        p.heading_deg = s.heading_deg;
        p.status = s.status;
        out.push(
            scenario
                .table(&placements)
                .map_err(|e| DemoError::State(e.to_string()))?,
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_loads_and_each_scripted_table_moves_exactly_one_piece() {
        let scenario = scenario().unwrap();
        assert_eq!(scenario.map.width_in, 36.0);
        let tables = tables(&scenario).unwrap();
        assert_eq!(tables.len(), SCRIPT.len() + 1);
        for (pair, s) in tables.windows(2).zip(SCRIPT) {
            let changed: Vec<&str> = pair[0]
                .pieces
                .iter()
                .zip(&pair[1].pieces)
                .filter(|(a, b)| a != b)
                .map(|(a, _)| a.id.as_str())
                .collect();
            assert_eq!(changed, [s.id]);
            let moved = pair[1].piece(s.id).unwrap();
            assert_eq!((moved.pose.x_in, moved.pose.y_in), (s.x_in, s.y_in));
        }
    }
}
