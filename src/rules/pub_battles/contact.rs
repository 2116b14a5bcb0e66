//! Contact, support and flanks.

use geo::Coord;
use serde::Serialize;

use super::fire::in_field_of_fire;
use super::terrain::{occupancy, road_column};
use super::{PubBattles, Variant};
use crate::geom::{Edge, Footprint};
use crate::scenario::{Scenario, TerrainKind, Unit};
use crate::table::{Piece, TableState, UnitKind};

/// Two footprints touching along an edge each.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Contact {
    pub edge_a: Edge,
    pub edge_b: Edge,
    /// Length of the touching stretch.
    pub overlap_in: f64,
    /// Gap between the edges (negative when they overlap a little).
    pub gap_in: f64,
}

const EDGES: [Edge; 4] = [Edge::Front, Edge::Right, Edge::Rear, Edge::Left];

fn dot(a: Coord<f64>, b: Coord<f64>) -> f64 {
    a.x * b.x + a.y * b.y
}

/// Whether edge `ea` of `a` and edge `eb` of `b` touch: parallel within the angle
/// tolerance, facing each other, no farther apart than the gap tolerance, and touching
/// along more than the overlap fraction of the shorter edge. "You must be able to move so
/// that the majority of the pieces are in contact." [3.2]
pub fn edge_contact(
    rules: &PubBattles,
    a: &Footprint,
    ea: Edge,
    b: &Footprint,
    eb: Edge,
) -> Option<Contact> {
    let o = &rules.options;
    let (la, lb) = (a.edge(ea), b.edge(eb));
    let len_a = la.delta().x.hypot(la.delta().y);
    let len_b = lb.delta().x.hypot(lb.delta().y);
    let ua = la.delta() / len_a;
    let ub = lb.delta() / len_b;
    // Outward normal of a's edge: edges run clockwise, so outward is to their left... in
    // y-down map coordinates that is (uy, -ux) rotated: compute from the centre instead.
    let mid_a = la.start + la.delta() * 0.5;
    let mut na = Coord { x: -ua.y, y: ua.x };
    if dot(na, mid_a - a.center) < 0.0 {
        na = -na;
    }
    // Edges run opposite ways when they face each other; parallel within tolerance.
    let cos = dot(ua, ub);
    if cos > -o.contact_angle_deg.to_radians().cos() {
        return None;
    }
    let mid_b = lb.start + lb.delta() * 0.5;
    if dot(mid_b - b.center, na) > 0.0 {
        // b's edge faces the same way as a's: not facing each other.
        return None;
    }
    // Project b's edge onto a's edge line.
    let s0 = dot(lb.start - la.start, ua);
    let s1 = dot(lb.end - la.start, ua);
    let (lo, hi) = (s0.min(s1).max(0.0), s0.max(s1).min(len_a));
    let overlap = hi - lo;
    if overlap <= 0.0 || overlap <= o.contact_overlap_fraction * len_a.min(len_b) {
        return None;
    }
    // Gap measured at both ends of the touching stretch, along a's outward normal.
    let gap_at = |s: f64| {
        let t = (s - s0) / (s1 - s0);
        let p = lb.start + lb.delta() * t;
        dot(p - la.start, na)
    };
    let (g0, g1) = (gap_at(lo), gap_at(hi));
    let gap = if g0.abs() > g1.abs() { g0 } else { g1 };
    (gap.abs() <= o.contact_gap_in).then_some(Contact {
        edge_a: ea,
        edge_b: eb,
        overlap_in: overlap,
        gap_in: gap,
    })
}

/// The best touching edge pair between two footprints, if any.
pub fn contact(rules: &PubBattles, a: &Footprint, b: &Footprint) -> Option<Contact> {
    if !a.may_be_within(b, rules.options.contact_gap_in) {
        return None;
    }
    EDGES
        .iter()
        .flat_map(|&ea| EDGES.iter().map(move |&eb| (ea, eb)))
        .filter_map(|(ea, eb)| edge_contact(rules, a, ea, b, eb))
        .max_by(|x, y| x.overlap_in.total_cmp(&y.overlap_in))
}

/// For each piece, the indices of enemy combat pieces (and trains) it touches. HQs
/// "cannot attack or be attacked" [3.2] and are never in contact.
pub(super) fn all_enemy_contacts(rules: &PubBattles, table: &TableState) -> Vec<Vec<usize>> {
    let n = table.pieces.len();
    let mut out = vec![Vec::new(); n];
    for i in 0..n {
        for j in (i + 1)..n {
            let (a, b) = (&table.pieces[i], &table.pieces[j]);
            if a.side == b.side || a.kind.is_hq() || b.kind.is_hq() {
                continue;
            }
            if contact(rules, &a.footprint, &b.footprint).is_some() {
                out[i].push(j);
                out[j].push(i);
            }
        }
    }
    out
}

/// "Attacker's center must be behind the defender's front" [3.2]: behind the line
/// extended along the defender's front edge. "They do not have to be perfectly aligned."
pub fn is_behind_front_line(defender: &Footprint, attacker_centre: Coord<f64>) -> bool {
    let (_, ahead) = defender.to_local(attacker_centre);
    ahead < defender.depth_in / 2.0
}

/// Enemies in contact that flank piece `i`, by the variant's rule.
///
/// - 3.2: an attacker in contact whose centre is behind the defender's front line.
///   "Defenders cannot be Flanked" in Buildings; a piece in Road Column, or enveloped
///   ([`enveloped_with`]), is treated as flanked by every attacker in contact.
/// - 3.0: "IF they are in your FoF but the majority of your piece is not in the enemy's
///   FoF": enemies that hold the defender in their FoF without standing in its FoF.
/// - Quick start: "a single unit is contacting the rear of a unit, or a unit is contacted
///   by more than one enemy"; "A single defender cannot be flanked by a single attacker"
///   other than from the rear.
pub fn flanked_by(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    i: usize,
    contacts: &[Vec<usize>],
) -> Vec<String> {
    let defender = &table.pieces[i];
    if !defender.kind.is_combat() && defender.kind != UnitKind::SupplyTrain {
        return Vec::new();
    }
    let touching = contacts[i].iter().map(|&j| &table.pieces[j]);
    let flankers: Vec<String> = match rules.variant {
        Variant::V32 => {
            let column = !contacts[i].is_empty()
                && (road_column(rules, &scenario.terrain, defender).is_some()
                    || enveloped_with(rules, table, i, contacts).is_some());
            touching
                .filter(|a| column || is_behind_front_line(&defender.footprint, a.footprint.center))
                .map(|a| a.id.clone())
                .collect()
        }
        Variant::V30 => table
            .pieces
            .iter()
            .filter(|a| a.side != defender.side && a.kind.is_combat())
            .filter(|a| in_field_of_fire(rules, scenario, table, a, defender).is_some())
            .filter(|a| in_field_of_fire(rules, scenario, table, defender, a).is_none())
            .map(|a| a.id.clone())
            .collect(),
        Variant::QuickStart => {
            let touching: Vec<&Piece> = touching.collect();
            let from_rear = |a: &&Piece| {
                contact(rules, &defender.footprint, &a.footprint)
                    .is_some_and(|c| c.edge_a == Edge::Rear)
            };
            let several = touching.len() > 1;
            touching
                .into_iter()
                .filter(|a| several || from_rear(a))
                .map(|a| a.id.clone())
                .collect()
        }
    };
    // Checked last: the terrain query costs more than finding no attacker.
    let in_buildings = !flankers.is_empty()
        && occupancy(rules, &scenario.terrain, &defender.footprint).kind
            == Some(TerrainKind::Buildings);
    if in_buildings { Vec::new() } else { flankers }
}

/// Whether `supporter` may support `lead` by kind.
/// [3.2] "Artillery can receive Support but cannot Support."
/// (QS) only infantry supports infantry or artillery; only cavalry supports cavalry.
pub(super) fn may_support(variant: Variant, supporter: UnitKind, lead: UnitKind) -> bool {
    if !supporter.is_combat() || !lead.is_combat() || supporter.is_artillery() {
        return false;
    }
    match variant {
        Variant::QuickStart => match supporter {
            UnitKind::Infantry => lead == UnitKind::Infantry || lead.is_artillery(),
            UnitKind::Cavalry => lead == UnitKind::Cavalry,
            _ => false,
        },
        _ => true,
    }
}

/// The one friendly piece "directly behind" `lead`: its front edge touching `lead`'s
/// rear edge. "One piece (no more) may move up behind another in its Support." [3.2]
pub fn support_for<'t>(
    rules: &PubBattles,
    table: &'t TableState,
    lead: &Piece,
) -> Option<&'t Piece> {
    table
        .pieces
        .iter()
        .filter(|p| {
            p.side == lead.side
                && p.id != lead.id
                && may_support(rules.variant, p.kind, lead.kind)
                && p.footprint
                    .may_be_within(&lead.footprint, rules.options.contact_gap_in)
        })
        .filter_map(|p| {
            edge_contact(
                rules,
                &lead.footprint,
                Edge::Rear,
                &p.footprint,
                Edge::Front,
            )
            .map(|c| (p, c))
        })
        .max_by(|(_, a), (_, b)| a.overlap_in.total_cmp(&b.overlap_in))
        .map(|(p, _)| p)
}

/// The other piece of an envelopment piece `i` is caught in, by index. "Envolvimiento:
/// Cuando un defensor apoyado es atacado por delante y por detrás, el Apoyo se rompe.
/// Trata esto como 2 combates separados, con ambos defensores como Flanqueados." [3.2]
///
/// A lead and the piece directly behind it in support, each touching an enemy (the lead
/// from the front, the supporter from behind: their attackers can touch them nowhere
/// else without touching the pair's shared edge). Only 3.2 has the rule.
pub fn enveloped_with(
    rules: &PubBattles,
    table: &TableState,
    i: usize,
    contacts: &[Vec<usize>],
) -> Option<usize> {
    if rules.variant != Variant::V32 || contacts[i].is_empty() {
        return None;
    }
    let piece = &table.pieces[i];
    let index = |p: &Piece| table.pieces.iter().position(|q| q.id == p.id);
    if let Some(s) = support_for(rules, table, piece).and_then(index)
        && !contacts[s].is_empty()
    {
        return Some(s);
    }
    (0..table.pieces.len()).find(|&j| {
        j != i
            && !contacts[j].is_empty()
            && table.pieces[j].side == piece.side
            && support_for(rules, table, &table.pieces[j]).is_some_and(|s| s.id == piece.id)
    })
}

/// The reserve piece that supports `lead` from behind its HQ. "Si tu HQ está
/// directamente detrás de una pieza, puedes contar la primera pieza en Reserva como
/// Apoyo." [3.2 Reservas Ocultas]
///
/// The lead's own command HQ with a face touching the lead's rear edge (as a supporter
/// would), and the first unit of that command, in the scenario's order, that is off the
/// table and may support the lead by kind: off the table is where Reserve pieces wait,
/// on the HQ's Reserve card. Only 3.2 has the rule.
pub fn reserve_support<'s>(
    rules: &PubBattles,
    scenario: &'s Scenario,
    table: &TableState,
    lead: &Piece,
) -> Option<&'s Unit> {
    if rules.variant != Variant::V32 || !lead.kind.is_combat() {
        return None;
    }
    let command = lead.command.as_deref()?;
    let hq = table.piece(scenario.command(command)?.hq.as_deref()?)?;
    let behind = EDGES
        .iter()
        .any(|&e| edge_contact(rules, &lead.footprint, Edge::Rear, &hq.footprint, e).is_some());
    if !behind {
        return None;
    }
    scenario.units.iter().find(|u| {
        u.command.as_deref() == Some(command)
            && u.side == lead.side
            && table.piece(&u.id).is_none()
            && may_support(rules.variant, u.kind, lead.kind)
    })
}
