//! Fields of fire.
//!
//! "Infantry, Dragoons and Artillery project a Field of Fire (FoF) out to their front,
//! within a 45° arc, to a range of 1/3 Foot move, limited by Line of Sight." [3.2]
//! "You cannot end your move with the majority of your piece in an enemy FoF" [3.2], so a
//! piece is "in" a FoF when the majority of its footprint lies inside it.
//!
//! Reading (DIGEST ⚠, the diagram is lost): the field starts at the whole front edge and
//! runs 1/3 foot move deep, its sides splaying out from the front corners at
//! [`Options::fof_splay_deg`](super::Options) (45 by default). Line of sight is traced
//! centre to centre; "you cannot fire through/over friendly pieces" [3.2] is checked on
//! the same line.

use geo::{Coord, Distance, Euclidean, Intersects, Line, LineString, MultiPolygon, Point, Polygon};

use super::PubBattles;
use super::sight::line_of_sight;
use crate::geom::{Footprint, area_inside_convex};
use crate::scenario::Scenario;
use crate::table::{Piece, TableState, UnitKind};

/// The corners of a footprint's field of fire: a trapezoid in front of it, in order
/// front-left, front-right, far-right, far-left.
pub fn fof_corners(footprint: &Footprint, depth_in: f64, splay_deg: f64) -> [Coord<f64>; 4] {
    let [fl, fr, _, _] = footprint.corners();
    let ahead = footprint.forward() * depth_in;
    let aside = footprint.right() * (depth_in * splay_deg.to_radians().tan());
    [fl, fr, fr + ahead + aside, fl + ahead - aside]
}

/// The field of fire as a polygon (for drawing and for tests).
pub fn fof_polygon(footprint: &Footprint, depth_in: f64, splay_deg: f64) -> Polygon<f64> {
    let c = fof_corners(footprint, depth_in, splay_deg);
    Polygon::new(LineString::from(vec![c[0], c[1], c[2], c[3], c[0]]), vec![])
}

/// Fraction of `target`'s footprint inside `shooter`'s field of fire, ignoring sight.
pub fn fof_fraction(
    rules: &PubBattles,
    scenario: &Scenario,
    shooter: &Piece,
    target: &Piece,
) -> f64 {
    let fof = fof_corners(
        &shooter.footprint,
        scenario.measures.foot_move_in / 3.0,
        rules.options.fof_splay_deg,
    );
    let target_area = MultiPolygon(vec![target.footprint.polygon()]);
    (area_inside_convex(&target_area, &fof) / target.footprint.area()).min(1.0)
}

/// `Some(fraction inside)` when `target` is in `shooter`'s field of fire: an enemy
/// combat piece or train with the majority of its footprint inside, seen by the
/// shooter, with no friendly piece of the shooter's on the line of fire.
pub fn in_field_of_fire(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    shooter: &Piece,
    target: &Piece,
) -> Option<f64> {
    fire_given_sight(rules, scenario, table, shooter, target, || {
        line_of_sight(rules, scenario, table, shooter, target).can_see
    })
}

/// Whether a kind projects a field of fire: infantry, dragoons and artillery, and
/// detachments when [`Options::detachment_fof`](super::Options) reads them as infantry.
pub fn projects_fof(rules: &PubBattles, kind: UnitKind) -> bool {
    kind.has_field_of_fire() || (kind == UnitKind::Detachment && rules.options.detachment_fof)
}

/// [`in_field_of_fire`] with the sight test supplied, so a whole-table check can reuse
/// the sight it already traced. Sight is only asked for once the geometry holds.
pub(super) fn fire_given_sight(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    shooter: &Piece,
    target: &Piece,
    can_see: impl FnOnce() -> bool,
) -> Option<f64> {
    if !projects_fof(rules, shooter.kind) || shooter.side == target.side || target.kind.is_hq() {
        return None;
    }
    let fraction = fof_fraction(rules, scenario, shooter, target);
    if !rules.is_majority(fraction) || !can_see() {
        return None;
    }
    friend_in_line_of_fire(table, shooter, target)
        .is_none()
        .then_some(fraction)
}

/// The first friendly piece of the shooter's on the line of fire, the line between the
/// two centres: "Puedes ver a través de piezas pero no puedes disparar a través / sobre
/// piezas amigas" [3.2]. HQs never block.
pub fn friend_in_line_of_fire<'t>(
    table: &'t TableState,
    shooter: &Piece,
    target: &Piece,
) -> Option<&'t Piece> {
    let fire_line = Line::new(shooter.footprint.center, target.footprint.center);
    table.pieces.iter().find(|p| {
        p.side == shooter.side
            && p.id != shooter.id
            && p.id != target.id
            && !p.kind.is_hq()
            && Euclidean.distance(&fire_line, &Point::from(p.footprint.center))
                <= p.footprint.radius()
            && p.footprint.polygon().intersects(&fire_line)
    })
}
