//! Scenarios: a TOML file (sides, commands, units, measures) plus GeoJSON terrain.
//!
//! A scenario is loaded once and validated completely before anything uses it: every
//! problem is reported with the file, the line and the field, and unknown keys are
//! errors rather than silently ignored, because a typo in a rule-relevant field (a
//! command's HQ, a unit's kind) would otherwise turn into a wrong verdict at the table.

mod error;
mod file;
pub mod terrain;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use error::ScenarioError;
pub use file::{
    ArtilleryWeight, Command, HexOrientation, HexSpec, HomeEdge, MapSpec, Measures, NbcEra,
    NbcSpec, RulesId, Side, TimeOfDay, Unit, UnitSetup, Weather,
};
pub use terrain::{Terrain, TerrainFeature, TerrainKind};

use crate::geom::Footprint;
use crate::model::PieceModel;
use crate::table::{Piece, Placement, Pose, StateFile, TableState};

/// A loaded, validated scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
    /// Where the TOML came from; relative map and terrain paths resolve against its folder.
    pub path: PathBuf,
    pub name: String,
    pub description: Option<String>,
    pub rules: RulesId,
    pub map: MapSpec,
    pub measures: Measures,
    pub sides: Vec<Side>,
    pub commands: Vec<Command>,
    pub units: Vec<Unit>,
    #[serde(skip)]
    pub model: PieceModel,
    pub terrain: Terrain,
    /// The hex grid (rules "ohw-hex" only).
    pub hex: Option<HexSpec>,
    /// The battle's conditions (rules "nbc" only).
    pub nbc: Option<NbcSpec>,
}

impl Scenario {
    /// Load and validate a scenario and its terrain.
    pub fn load(path: &Path) -> Result<Self, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::io(path, e))?;
        Self::from_toml(path, &text)
    }

    /// Parse scenario text as if read from `path` (terrain resolves against its folder).
    pub fn from_toml(path: &Path, text: &str) -> Result<Self, ScenarioError> {
        let raw = file::parse(path, text)?;
        let model = PieceModel::builtin(raw.measures.model.get_ref())
            .map_err(|e| raw.error(path, text, &raw.measures.model, "measures.model", e))?;
        let folder = path.parent().unwrap_or(Path::new("."));
        let terrain = match &raw.map.terrain {
            Some(rel) => {
                let terrain_path = folder.join(rel.get_ref());
                let terrain_text = std::fs::read_to_string(&terrain_path).map_err(|e| {
                    raw.error(
                        path,
                        text,
                        rel,
                        "map.terrain",
                        format!("cannot read {}: {e}", terrain_path.display()),
                    )
                })?;
                Terrain::parse(&terrain_path, &terrain_text)?
            }
            None => Terrain::default(),
        };
        let scenario = raw.into_scenario(path, text, model, terrain)?;
        Ok(scenario)
    }

    pub fn unit(&self, id: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }

    pub fn command(&self, id: &str) -> Option<&Command> {
        self.commands.iter().find(|c| c.id == id)
    }

    pub fn side(&self, id: &str) -> Option<&Side> {
        self.sides.iter().find(|s| s.id == id)
    }

    /// The map image path, resolved against the scenario's folder.
    pub fn map_image_path(&self) -> Option<PathBuf> {
        let folder = self.path.parent().unwrap_or(Path::new("."));
        self.map.image.as_ref().map(|rel| folder.join(rel))
    }

    /// The footprint a unit has at a pose in a given state, from the piece model.
    pub fn footprint(&self, unit: &Unit, pose: Pose, status: crate::table::Status) -> Footprint {
        let shape = self
            .model
            .shape(unit.kind)
            .expect("PieceModel::parse checked every kind has a shape");
        Footprint::new(
            pose.x_in,
            pose.y_in,
            pose.heading_deg,
            shape.frontage_in,
            shape.depth_in(status),
        )
    }

    /// Put placements on this scenario's table. Unknown or repeated unit ids, and
    /// coordinates that are not finite numbers, are errors naming the piece.
    pub fn table(&self, placements: &[Placement]) -> Result<TableState, TableError> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut pieces = Vec::with_capacity(placements.len());
        for (index, p) in placements.iter().enumerate() {
            if let Some(first) = seen.insert(p.id.as_str(), index) {
                return Err(TableError::Duplicate {
                    id: p.id.clone(),
                    first,
                    second: index,
                });
            }
            let unit = self.unit(&p.id).ok_or_else(|| TableError::UnknownUnit {
                index,
                id: p.id.clone(),
                scenario: self.name.clone(),
            })?;
            for (field, value) in [
                ("x_in", p.x_in),
                ("y_in", p.y_in),
                ("heading_deg", p.heading_deg),
            ] {
                if !value.is_finite() {
                    return Err(TableError::NotFinite {
                        index,
                        id: p.id.clone(),
                        field,
                    });
                }
            }
            let pose = Pose::new(p.x_in, p.y_in, p.heading_deg);
            pieces.push(Piece {
                id: unit.id.clone(),
                side: unit.side.clone(),
                kind: unit.kind,
                quality: unit.quality,
                command: unit.command.clone(),
                pose,
                status: p.status,
                footprint: self.footprint(unit, pose, p.status),
            });
        }
        Ok(TableState { pieces })
    }

    /// The table as the scenario sets it up: every unit that has a setup pose.
    pub fn setup_table(&self) -> TableState {
        let placements: Vec<Placement> = self
            .units
            .iter()
            .filter_map(|u| {
                u.setup.map(|s| Placement {
                    id: u.id.clone(),
                    x_in: s.x_in,
                    y_in: s.y_in,
                    heading_deg: s.heading_deg,
                    status: s.status,
                })
            })
            .collect();
        self.table(&placements)
            .expect("setup ids come from the scenario itself")
    }
}

/// A state that does not fit its scenario.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("pieces[{index}]: id {id:?} is not a unit of scenario {scenario:?}")]
    UnknownUnit {
        index: usize,
        id: String,
        scenario: String,
    },
    #[error("pieces[{second}]: id {id:?} is already placed by pieces[{first}]")]
    Duplicate {
        id: String,
        first: usize,
        second: usize,
    },
    #[error("pieces[{index}] ({id}): {field} is not a finite number")]
    NotFinite {
        index: usize,
        id: String,
        field: &'static str,
    },
    #[error("{path}: {source}")]
    Parse {
        path: String,
        source: serde_json::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// Read a state file (`{"pieces":[...]}`) and put it on the scenario's table.
pub fn load_state(scenario: &Scenario, path: &Path) -> Result<TableState, TableError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| TableError::Io {
        path: shown.clone(),
        source,
    })?;
    let file: StateFile = serde_json::from_str(&text).map_err(|source| TableError::Parse {
        path: shown,
        source,
    })?;
    scenario.table(&file.pieces)
}
