//! Piece models: the physical size of each kind of piece, per game.
//!
//! Sizes live in `models/*.toml` so that other games (other block sizes, bases in
//! centimetres) can be added without code. The files shipped in `models/` are embedded
//! in the binary, so `aide` works from any directory.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::table::{Status, UnitKind};

/// The Pub Battles model shipped with the binary.
pub const PUB_BATTLES: &str = include_str!("../models/pub-battles.toml");
/// The Napoleonic Battlefield Commander bases (centimetres in the file).
pub const NBC: &str = include_str!("../models/nbc.toml");

/// Centimetres in an inch: a model in "cm" is converted to map inches when read.
pub const CM_PER_IN: f64 = 2.54;

/// The physical shape of one class of piece.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    pub name: String,
    pub kinds: Vec<UnitKind>,
    /// Length of the front edge.
    #[serde(alias = "frontage_cm")]
    pub frontage_in: f64,
    /// Front-to-back depth of the footprint when fresh (standing upright).
    #[serde(alias = "depth_fresh_cm")]
    pub depth_fresh_in: f64,
    /// Front-to-back depth of the footprint when spent (lying label side up).
    #[serde(alias = "depth_spent_cm")]
    pub depth_spent_in: f64,
    #[serde(alias = "height_fresh_cm")]
    pub height_fresh_in: f64,
    #[serde(alias = "height_spent_cm")]
    pub height_spent_in: f64,
}

impl Shape {
    /// Footprint depth for a piece in the given state.
    pub fn depth_in(&self, status: Status) -> f64 {
        match status {
            Status::Fresh => self.depth_fresh_in,
            Status::Spent => self.depth_spent_in,
        }
    }

    /// Height of the piece's upward face above the map.
    pub fn height_in(&self, status: Status) -> f64 {
        match status {
            Status::Fresh => self.height_fresh_in,
            Status::Spent => self.height_spent_in,
        }
    }
}

/// All the shapes of one game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceModel {
    pub name: String,
    /// Unit of every length in the file, "in" or "cm" (NBC bases); lengths are held in
    /// inches once parsed. A "cm" file writes its lengths as `frontage_cm` etc.
    pub units: String,
    pub shapes: Vec<Shape>,
}

#[derive(Debug, Error)]
pub enum ModelError {
    #[error("unknown piece model {0:?}: the built-in models are \"pub-battles\" and \"nbc\"")]
    Unknown(String),
    #[error("piece model {name}: {source}")]
    Parse {
        name: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("piece model {name}: units must be \"in\" or \"cm\", got {units:?}")]
    Units { name: String, units: String },
    #[error("piece model {name}: no shape lists the kind {kind:?}")]
    MissingKind { name: String, kind: UnitKind },
}

impl PieceModel {
    /// A model shipped with the binary, by name.
    pub fn builtin(name: &str) -> Result<Self, ModelError> {
        let text = match name {
            "pub-battles" => PUB_BATTLES,
            "nbc" => NBC,
            other => return Err(ModelError::Unknown(other.to_owned())),
        };
        Self::parse(name, text)
    }

    pub fn parse(name: &str, text: &str) -> Result<Self, ModelError> {
        let mut model: PieceModel = toml::from_str(text).map_err(|source| ModelError::Parse {
            name: name.to_owned(),
            source,
        })?;
        let scale = match model.units.as_str() {
            "in" => 1.0,
            "cm" => 1.0 / CM_PER_IN,
            other => {
                return Err(ModelError::Units {
                    name: name.to_owned(),
                    units: other.to_owned(),
                });
            }
        };
        for s in &mut model.shapes {
            for v in [
                &mut s.frontage_in,
                &mut s.depth_fresh_in,
                &mut s.depth_spent_in,
                &mut s.height_fresh_in,
                &mut s.height_spent_in,
            ] {
                *v *= scale;
            }
        }
        for kind in UnitKind::ALL {
            model.shape(kind).ok_or(ModelError::MissingKind {
                name: name.to_owned(),
                kind,
            })?;
        }
        Ok(model)
    }

    /// The shape of a kind of piece. Every kind is present once `parse` succeeded.
    pub fn shape(&self, kind: UnitKind) -> Option<&Shape> {
        self.shapes.iter().find(|s| s.kinds.contains(&kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pub_battles_block_is_one_and_seven_eighths_by_three_eighths() {
        let model = PieceModel::builtin("pub-battles").unwrap();
        let block = model.shape(UnitKind::Infantry).unwrap();
        assert_eq!(block.frontage_in, 1.875);
        assert_eq!(block.depth_in(Status::Fresh), 0.375);
        assert_eq!(block.depth_in(Status::Spent), 0.75);
        let hq = model.shape(UnitKind::Hq).unwrap();
        assert_eq!((hq.frontage_in, hq.depth_fresh_in), (0.375, 0.375));
    }

    #[test]
    fn nbc_bases_are_read_in_centimetres() {
        let model = PieceModel::builtin("nbc").unwrap();
        let brigade = model.shape(UnitKind::Infantry).unwrap();
        // 50 mm = 5 / 2.54 = 1.9685 in.
        assert!((brigade.frontage_in - 1.968_5).abs() < 1e-4);
        let battery = model.shape(UnitKind::Artillery).unwrap();
        assert!((battery.frontage_in * CM_PER_IN - 2.5).abs() < 1e-9);
        assert!((battery.depth_in(Status::Fresh) * CM_PER_IN - 5.0).abs() < 1e-9);
        let commander = model.shape(UnitKind::Hq).unwrap();
        assert!((commander.depth_fresh_in * CM_PER_IN - 3.2).abs() < 1e-9);
        let bad = PUB_BATTLES.replace("units = \"in\"", "units = \"mm\"");
        assert!(matches!(
            PieceModel::parse("x", &bad),
            Err(ModelError::Units { .. })
        ));
    }

    #[test]
    fn unknown_model_is_an_error() {
        assert!(PieceModel::builtin("chess").is_err());
    }
}
