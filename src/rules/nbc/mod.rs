//! Napoleonic Battlefield Commander: not built yet; its scenarios are refused by
//! `aide check` until it is.

use serde::Serialize;

use super::{MoveVerdict, RuleSet, SightVerdict, TableReport};
use crate::scenario::{RulesId, Scenario};
use crate::table::{Piece, Pose, Status, TableState};

#[derive(Debug, Clone, Copy, Default)]
pub struct Nbc;

#[derive(Debug, Clone, Serialize)]
pub struct CmMeasures {
    pub unit: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct NbcPieceReport {}

impl RuleSet for Nbc {
    fn id(&self) -> RulesId {
        RulesId::Nbc
    }
    fn check_table(&self, _: &Scenario, _: &TableState) -> TableReport {
        unimplemented!("NBC")
    }
    fn check_move(
        &self,
        _: &Scenario,
        _: &TableState,
        _: &Piece,
        _: Pose,
        _: Status,
        _: bool,
    ) -> MoveVerdict {
        unimplemented!("NBC")
    }
    fn sight(&self, _: &Scenario, _: &TableState, _: &Piece, _: &Piece) -> SightVerdict {
        unimplemented!("NBC")
    }
}
