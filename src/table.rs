//! The table as the rules see it: which unit stands where, facing which way, fresh or spent.
//!
//! A [`TableState`] is what the detector and tracker produce and what the rules, dice and
//! journal consume. Positions are map inches (origin top-left, x right, y down); a pose is
//! the centre of the piece's footprint on the map plane and the heading its front faces.

use serde::{Deserialize, Serialize};

use crate::geom::Footprint;

/// What a unit is. Decides its movement class, field of fire, dice and shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnitKind {
    Infantry,
    Cavalry,
    Dragoons,
    Artillery,
    HorseArtillery,
    Detachment,
    Hq,
    ArmyHq,
    SupplyTrain,
}

impl UnitKind {
    pub const ALL: [UnitKind; 9] = [
        UnitKind::Infantry,
        UnitKind::Cavalry,
        UnitKind::Dragoons,
        UnitKind::Artillery,
        UnitKind::HorseArtillery,
        UnitKind::Detachment,
        UnitKind::Hq,
        UnitKind::ArmyHq,
        UnitKind::SupplyTrain,
    ];

    /// HQs and the army commander: they command, never fight, never block.
    pub fn is_hq(self) -> bool {
        matches!(self, UnitKind::Hq | UnitKind::ArmyHq)
    }

    /// Combat pieces: everything that can attack or be attacked.
    pub fn is_combat(self) -> bool {
        !self.is_hq() && self != UnitKind::SupplyTrain
    }

    pub fn is_artillery(self) -> bool {
        matches!(self, UnitKind::Artillery | UnitKind::HorseArtillery)
    }

    /// "Infantry, Dragoons and Artillery project a Field of Fire" [3.2]; cavalry does not.
    pub fn has_field_of_fire(self) -> bool {
        matches!(self, UnitKind::Infantry | UnitKind::Dragoons) || self.is_artillery()
    }

    /// "Infantry, Artillery and Supply Trains move at foot speed. Cavalry and HQs move at
    /// mounted speed." [3.2] Horse artillery moves mounted (digest, section D).
    pub fn movement_class(self) -> MovementClass {
        match self {
            UnitKind::Cavalry
            | UnitKind::Dragoons
            | UnitKind::HorseArtillery
            | UnitKind::Hq
            | UnitKind::ArmyHq => MovementClass::Mounted,
            UnitKind::Infantry
            | UnitKind::Artillery
            | UnitKind::Detachment
            | UnitKind::SupplyTrain => MovementClass::Foot,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MovementClass {
    Foot,
    Mounted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quality {
    #[default]
    Regular,
    Elite,
    Militia,
    Guard,
}

/// Fresh blocks stand upright; Spent blocks lie label side up. A supply train lying
/// flat is unpacked ("label down touching the map" [3.2]); the camera sees both as flat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    #[default]
    Fresh,
    Spent,
}

/// The word the JSON uses ("fresh", "spent"), so the log and the CLI say the same.
impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Status::Fresh => "fresh",
            Status::Spent => "spent",
        })
    }
}

/// Where a piece stands: footprint centre in map inches and the heading its front faces.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    pub x_in: f64,
    pub y_in: f64,
    /// 0 = toward the map's top edge, 90 = toward +x, clockwise, [0, 360).
    pub heading_deg: f64,
}

impl Pose {
    pub fn new(x_in: f64, y_in: f64, heading_deg: f64) -> Self {
        Self {
            x_in,
            y_in,
            heading_deg: heading_deg.rem_euclid(360.0),
        }
    }
}

/// One piece on the table, with everything the rules need to know about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    /// The scenario's unit id.
    pub id: String,
    pub side: String,
    pub kind: UnitKind,
    pub quality: Quality,
    /// The command (corps) the unit belongs to, if any.
    pub command: Option<String>,
    pub pose: Pose,
    pub status: Status,
    /// The footprint on the map plane, derived from the pose, status and piece model.
    pub footprint: Footprint,
}

/// Every piece on the table at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableState {
    pub pieces: Vec<Piece>,
}

impl TableState {
    pub fn piece(&self, id: &str) -> Option<&Piece> {
        self.pieces.iter().find(|p| p.id == id)
    }
}

/// One line of a state file: a scenario unit put at a pose. This is the plain form the
/// CLI reads (`aide check --state`) and the tracker writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub id: String,
    pub x_in: f64,
    pub y_in: f64,
    pub heading_deg: f64,
    #[serde(default)]
    pub status: Status,
}

/// The JSON state file: `{"pieces":[{"id","x_in","y_in","heading_deg","status"}]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    pub pieces: Vec<Placement>,
}
