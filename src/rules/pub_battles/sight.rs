//! Line of sight and spotting.
//!
//! "Woods, buildings and hills block line of sight. You can see into woods and buildings
//! up to the thickness of a piece: 3/8". You can see through pieces but cannot fire
//! through/over friendly pieces. You can see onto a Hill up to the crest: the central
//! point between slopes. While on a hill, you can see over woods, buildings or a lower
//! hill IF you are closer to those blocking objects than to the target." [3.2]
//! "You can spot units up to 1 full foot move in your Line of Sight in clear weather."
//!
//! Readings (DIGEST ⚠): sight runs along the line between the two footprint centres;
//! woods and buildings count only between the two footprints, and a piece standing no
//! deeper than 3/8 in inside them, measured from the wood's edge to where the line meets
//! the piece ([`SeeInto`]), does not block (a piece whose near edge is within 3/8 in of
//! the wood's edge is seen; a garrison near a village's edge sees out), so sight is
//! symmetric; "closer to those
//! blocking objects than the target" compares, along the sight line, the higher piece's
//! distance to the blocker with the other piece's; in 3.0, "pieces block".

use geo::{
    BoundingRect, Contains, Coord, Distance, Euclidean, Intersects, Line, LineIntersection, Point,
    Polygon, line_intersection::line_intersection,
};

use super::terrain::{elevation_at, kebab, near, occupancy};
use super::{PubBattles, SeeInto, Variant};
use crate::geom::{edge_distance, inside_intervals};
use crate::rules::{Blocker, SightVerdict};
use crate::scenario::{Scenario, TerrainFeature, TerrainKind};
use crate::table::{Piece, TableState};

/// Can `viewer` see `target`? Range is 1 foot move, edge to edge.
pub fn line_of_sight(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    viewer: &Piece,
    target: &Piece,
) -> SightVerdict {
    let level = |p: &Piece| occupancy(rules, &scenario.terrain, &p.footprint).hill_level;
    sight_between(
        rules,
        scenario,
        table,
        (viewer, level(viewer)),
        (target, level(target)),
    )
}

/// [`line_of_sight`] for pieces whose hill levels are already known: a whole-table
/// check computes each piece's terrain once, not once per pair.
pub(super) fn sight_between(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    (viewer, viewer_level): (&Piece, u8),
    (target, target_level): (&Piece, u8),
) -> SightVerdict {
    let range_in = scenario.measures.foot_move_in;
    let distance_in = edge_distance(&viewer.footprint.polygon(), &target.footprint.polygon());
    let mut verdict = SightVerdict {
        can_see: false,
        distance_in,
        range_in,
        blocked_by: None,
        seen_over: Vec::new(),
    };
    if distance_in > range_in {
        verdict.blocked_by = Some(Blocker {
            kind: "out-of-range".into(),
            name: None,
            at: None,
            reason: format!(
                "{distance_in:.2} in away, beyond sight range {range_in:.2} in (1 foot move)"
            ),
        });
        return verdict;
    }
    let terrain = &scenario.terrain;
    let line = Line::new(viewer.footprint.center, target.footprint.center);
    let ends = SightEnds {
        line,
        viewer_level,
        target_level,
        viewer_exit: inside_intervals(line, &viewer.footprint.polygon())
            .first()
            .map_or(0.0, |iv| iv.t1),
        target_entry: inside_intervals(line, &target.footprint.polygon())
            .last()
            .map_or(1.0, |iv| iv.t0),
    };
    let length = ends.length();
    let bbox = ends.line.bounding_rect();
    for feature in
        near(terrain, &bbox).filter(|f| f.kind.blocks_sight() || f.kind == TerrainKind::Crest)
    {
        let found = match feature.kind {
            TerrainKind::Woods | TerrainKind::Buildings => {
                woods_block(rules, scenario, &ends, feature, length)
            }
            TerrainKind::Crest => crest_block(rules, scenario, &ends, feature, viewer, target),
            TerrainKind::Hill
                if scenario
                    .terrain
                    .crest_of(feature.id.as_deref().unwrap_or(""))
                    .is_none() =>
            {
                crestless_hill_block(&ends, feature, viewer, target)
            }
            _ => None,
        };
        if let Some(block) = found {
            match block {
                Blocking::Blocked(b) => {
                    verdict.blocked_by = Some(b);
                    return verdict;
                }
                Blocking::SeenOver(b) => verdict.seen_over.push(b),
            }
        }
    }
    if rules.variant == Variant::V30 {
        // "pieces block" [3.0]. HQs never block anything.
        for other in &table.pieces {
            if other.id == viewer.id || other.id == target.id || other.kind.is_hq() {
                continue;
            }
            if other.footprint.polygon().intersects(&ends.line) {
                verdict.blocked_by = Some(Blocker {
                    kind: "piece".into(),
                    name: Some(other.id.clone()),
                    at: Some([other.footprint.center.x, other.footprint.center.y]),
                    reason: format!("{} stands in the way (pieces block sight in 3.0)", other.id),
                });
                return verdict;
            }
        }
    }
    verdict.can_see = true;
    verdict
}

struct SightEnds {
    line: Line<f64>,
    viewer_level: u8,
    target_level: u8,
    /// Where the line leaves the viewer's footprint and enters the target's, as
    /// fractions of its length.
    viewer_exit: f64,
    target_entry: f64,
}

impl SightEnds {
    fn length(&self) -> f64 {
        let d = self.line.delta();
        d.x.hypot(d.y)
    }

    fn point(&self, t: f64) -> Coord<f64> {
        self.line.start + self.line.delta() * t
    }

    /// The overlook rule: an end higher than the blocker that is nearer to it than the
    /// other end is sees over it. `t0..t1` is where the line meets the blocker.
    fn overlooks(&self, blocker_level: u8, t0: f64, t1: f64) -> bool {
        let length = self.length();
        let (to_viewer, to_target) = (t0 * length, (1.0 - t1) * length);
        (self.viewer_level > blocker_level && to_viewer < to_target)
            || (self.target_level > blocker_level && to_target < to_viewer)
    }
}

enum Blocking {
    Blocked(Blocker),
    SeenOver(Blocker),
}

fn blocker(feature: &TerrainFeature, at: Coord<f64>, reason: String) -> Blocker {
    Blocker {
        kind: kebab(feature.kind),
        name: feature.name.clone(),
        at: Some([at.x, at.y]),
        reason,
    }
}

fn woods_block(
    rules: &PubBattles,
    scenario: &Scenario,
    ends: &SightEnds,
    feature: &TerrainFeature,
    length: f64,
) -> Option<Blocking> {
    let see_into = rules.options.see_into_in;
    let what = kebab(feature.kind);
    let mut seen_over = None;
    for poly in &feature.area.0 {
        for iv in inside_intervals(ends.line, poly) {
            // Only the stretch between the two footprints counts: sight starts at the
            // viewer's edge and reaches the target's near edge.
            let (t0, t1) = (iv.t0.max(ends.viewer_exit), iv.t1.min(ends.target_entry));
            if t1 <= t0 {
                continue;
            }
            let at_viewer = t0 <= ends.viewer_exit + 1e-9;
            let at_target = t1 >= ends.target_entry - 1e-9;
            let depth = match (rules.options.see_into, at_viewer, at_target) {
                // How deep the piece stands in the wood: from the point where the line
                // leaves (or meets) it to the wood's edge.
                (SeeInto::FromTheEdge, true, false) => depth_inside(poly, ends.point(t0)),
                (SeeInto::FromTheEdge, false, true) => depth_inside(poly, ends.point(t1)),
                _ => (t1 - t0) * length,
            };
            if (at_viewer || at_target) && depth <= see_into + 1e-9 {
                continue;
            }
            let at = ends.point(t0);
            let level = elevation_at(&scenario.terrain, ends.point((t0 + t1) / 2.0));
            if !at_viewer && !at_target && ends.overlooks(level, t0, t1) {
                seen_over = Some(Blocking::SeenOver(blocker(
                    feature,
                    at,
                    format!("seen over from a hill, nearer to the {what} than the other piece is"),
                )));
                continue;
            }
            let reason = if at_viewer || at_target {
                format!(
                    "{depth:.2} in of {what} at the {} end; sight reaches {see_into:.3} in into {what}",
                    if at_target { "target's" } else { "viewer's" }
                )
            } else {
                format!("{depth:.2} in of {what} between the pieces")
            };
            return Some(Blocking::Blocked(blocker(feature, at, reason)));
        }
    }
    seen_over
}

/// How far inside `poly` the point `p` lies: its distance to the nearest edge.
fn depth_inside(poly: &Polygon<f64>, p: Coord<f64>) -> f64 {
    let p = Point::from(p);
    std::iter::once(poly.exterior())
        .chain(poly.interiors())
        .map(|ring| Euclidean.distance(ring, &p))
        .fold(f64::INFINITY, f64::min)
}

/// Where the sight line crosses a crest, ignoring crossings inside either piece (a
/// piece astride the crest sees down both slopes). "Puedes ver sobre una Colina hasta la
/// cresta" [3.2]: two pieces on opposite slopes of one hill do not see each other unless
/// [`Options::sight_across_own_crest`](super::Options).
fn crest_block(
    rules: &PubBattles,
    scenario: &Scenario,
    ends: &SightEnds,
    crest: &TerrainFeature,
    viewer: &Piece,
    target: &Piece,
) -> Option<Blocking> {
    let line = crest.line.as_ref()?;
    let hill = scenario
        .terrain
        .features
        .iter()
        .find(|f| f.kind == TerrainKind::Hill && f.id.as_deref() == crest.hill.as_deref())?;
    let on_hill = |p: &Piece| hill.area.contains(&Point::from(p.footprint.center));
    if rules.options.sight_across_own_crest && on_hill(viewer) && on_hill(target) {
        // Both on the same hill, read as looking across its top.
        return None;
    }
    let length = ends.length();
    for seg in line.lines() {
        let hit = match line_intersection(ends.line, seg) {
            Some(LineIntersection::SinglePoint { intersection, .. }) => intersection,
            Some(LineIntersection::Collinear { intersection }) => intersection.start,
            None => continue,
        };
        let p = Point::from(hit);
        if viewer.footprint.polygon().intersects(&p) || target.footprint.polygon().intersects(&p) {
            continue;
        }
        let d = hit - ends.line.start;
        let t = d.x.hypot(d.y) / length;
        let name = hill.name.clone();
        if ends.overlooks(hill.level, t, t) {
            return Some(Blocking::SeenOver(Blocker {
                kind: "hill".into(),
                name,
                at: Some([hit.x, hit.y]),
                reason: "a lower hill seen over from a higher one".into(),
            }));
        }
        return Some(Blocking::Blocked(Blocker {
            kind: "hill".into(),
            name,
            at: Some([hit.x, hit.y]),
            reason: "the sight line crosses the hill's crest".into(),
        }));
    }
    None
}

/// A hill drawn without a crest blocks a sight line that passes right through it.
fn crestless_hill_block(
    ends: &SightEnds,
    hill: &TerrainFeature,
    viewer: &Piece,
    target: &Piece,
) -> Option<Blocking> {
    let on_hill = |p: &Piece| hill.area.contains(&Point::from(p.footprint.center));
    if on_hill(viewer) || on_hill(target) {
        return None;
    }
    for poly in &hill.area.0 {
        if let Some(iv) = inside_intervals(ends.line, poly).first() {
            let at = ends.point(iv.t0);
            if ends.overlooks(hill.level, iv.t0, iv.t1) {
                return Some(Blocking::SeenOver(blocker(
                    hill,
                    at,
                    "a lower hill seen over from a higher one".into(),
                )));
            }
            return Some(Blocking::Blocked(blocker(
                hill,
                at,
                "the sight line passes over a hill (no crest drawn)".into(),
            )));
        }
    }
    None
}
