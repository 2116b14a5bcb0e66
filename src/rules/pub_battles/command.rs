//! Command range and rally range.

use serde::Serialize;

use super::{PubBattles, Variant};
use crate::geom::edge_distance;
use crate::rules::RallyVerdict;
use crate::scenario::Scenario;
use crate::table::{Piece, Status, TableState, UnitKind};

/// Command range for one piece, measured to the nearer of its commanding HQs.
#[derive(Debug, Clone, Serialize)]
pub struct CommandVerdict {
    pub in_command: bool,
    /// Range minus distance; null when no commanding HQ is on the table.
    pub margin_in: Option<f64>,
    pub distance_in: Option<f64>,
    pub range_in: f64,
    pub hq: Option<String>,
}

/// "To attack, troops must begin their move within command range: 1/3 Mounted Move of a
/// commanding HQ. Move HQs first, THEN determine command range. This range only has to
/// touch the piece, not extend across the majority." [3.2] "Army Commanders may order
/// attacks for all units of their army" [3.2], so the army HQ commands every unit too.
///
/// Measured edge to edge in every variant: the quick start says it outright, "Command
/// Range – 1/3 mounted move as measured from closest edges" (QS); its "command is
/// determined from one point" means the HQ commands from one place per activation
/// ("you cannot move and command from different places"), not from its centre.
///
/// A corps HQ is measured to its army HQ, the range in which "the Army Commander may
/// roll to Alter for a subordinate". `None` when the piece has no commanding HQ.
pub fn command_range(
    scenario: &Scenario,
    table: &TableState,
    piece: &Piece,
) -> Option<CommandVerdict> {
    let range_in = scenario.measures.mounted_move_in / 3.0;
    let army_hqs = table
        .pieces
        .iter()
        .filter(|p| p.kind == UnitKind::ArmyHq && p.side == piece.side);
    let hq_ids: Vec<&str> = match piece.kind {
        UnitKind::ArmyHq => return None,
        UnitKind::Hq => {
            let ids: Vec<&str> = scenario
                .units
                .iter()
                .filter(|u| u.kind == UnitKind::ArmyHq && u.side == piece.side)
                .map(|u| u.id.as_str())
                .collect();
            if ids.is_empty() {
                return None;
            }
            ids
        }
        _ => {
            let corps_hq = piece
                .command
                .as_deref()
                .and_then(|c| scenario.command(c))
                .and_then(|c| c.hq.as_deref())?;
            std::iter::once(corps_hq)
                .chain(army_hqs.map(|p| p.id.as_str()))
                .collect()
        }
    };
    let nearest = hq_ids
        .iter()
        .filter_map(|id| table.piece(id))
        .map(|hq| {
            (
                hq,
                edge_distance(&hq.footprint.polygon(), &piece.footprint.polygon()),
            )
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    Some(match nearest {
        Some((hq, d)) => CommandVerdict {
            in_command: d <= range_in,
            margin_in: Some(range_in - d),
            distance_in: Some(d),
            range_in,
            hq: Some(hq.id.clone()),
        },
        None => CommandVerdict {
            in_command: false,
            margin_in: None,
            distance_in: None,
            range_in,
            hq: None,
        },
    })
}

/// What rally eligibility depends on besides range.
#[derive(Debug, Clone, Copy, Default)]
pub struct RallyContext {
    /// This piece, or the piece it supports, touches an enemy.
    pub in_contact: bool,
    /// The majority of this piece lies in an enemy field of fire.
    pub in_enemy_fof: bool,
    /// An enemy is within 1/3 foot move.
    pub enemy_within_third_foot: bool,
    /// The majority of the piece stands in buildings.
    pub in_buildings: bool,
}

/// Whether a Spent piece may rally where it stands.
///
/// [3.2] "Instead of moving, a piece may Rally (turn Fresh) IF it is within 1/3 Mounted
/// Move of any friendly, unpacked Supply Train – this range only has to touch the piece.
/// Cavalry does not need Supply Trains to Rally. You cannot Rally if you or a piece you
/// support is in contact with the enemy." A train lying flat is unpacked.
/// [3.0] "cannot Rally while in contact… or in enemy FoF"; the train range is its
/// Baggage option, applied here as in 3.2.
/// (QS) a unit rallies if "not within 1/3 foot move of an enemy unit and does not move".
///
/// Terrain chart, Buildings [3.0/3.2]: "Pieces in Buildings become Spent and cannot
/// Rally." The quick start has no buildings rule; the chart is applied to it as well.
///
/// `None` for pieces that never rally (HQs, trains).
pub fn rally(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    piece: &Piece,
    ctx: RallyContext,
) -> Option<RallyVerdict> {
    if !piece.kind.is_combat() {
        return None;
    }
    let range_in = scenario.measures.mounted_move_in / 3.0;
    let nearest = table
        .pieces
        .iter()
        .filter(|t| {
            t.kind == UnitKind::SupplyTrain && t.side == piece.side && t.status == Status::Spent
        })
        .map(|t| {
            (
                t,
                edge_distance(&t.footprint.polygon(), &piece.footprint.polygon()),
            )
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let (train, margin_in) = match nearest {
        Some((t, d)) => (Some(t.id.clone()), Some(range_in - d)),
        None => (None, None),
    };
    let train_verdict = || match (&train, margin_in) {
        (Some(t), Some(m)) if m >= 0.0 => (
            true,
            format!("within range of unpacked train {t} by {m:.2} in"),
        ),
        (Some(t), Some(m)) => (
            false,
            format!("{:.2} in beyond range of unpacked train {t}", -m),
        ),
        _ => (
            false,
            "no unpacked friendly supply train on the table (a train lying flat is unpacked)"
                .to_owned(),
        ),
    };
    let (possible, reason) = if piece.status == Status::Fresh {
        (false, "already fresh".to_owned())
    } else if ctx.in_buildings {
        (
            false,
            "in buildings: \"Pieces in Buildings become Spent and cannot Rally\"".to_owned(),
        )
    } else {
        match rules.variant {
            Variant::QuickStart if ctx.enemy_within_third_foot => {
                (false, "an enemy is within 1/3 foot move".to_owned())
            }
            Variant::QuickStart => (true, "no enemy within 1/3 foot move".to_owned()),
            _ if ctx.in_contact => (
                false,
                "in contact with the enemy (or supporting a piece that is)".to_owned(),
            ),
            Variant::V30 if ctx.in_enemy_fof => (false, "in an enemy field of fire".to_owned()),
            _ if piece.kind == UnitKind::Cavalry => {
                (true, "cavalry rallies without a supply train".to_owned())
            }
            _ => train_verdict(),
        }
    };
    Some(RallyVerdict {
        possible,
        train,
        margin_in,
        reason,
    })
}
