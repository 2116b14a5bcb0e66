//! What a piece stands in: the majority rule, hill level, cover and road column.

use geo::{BoundingRect, Contains, Coord, Distance, Euclidean, Intersects, Point, Rect};
use serde::Serialize;

use super::PubBattles;
use crate::geom::{Footprint, heading_difference, vector_heading};
use crate::scenario::{Terrain, TerrainFeature, TerrainKind};
use crate::table::Piece;

/// The terrain under a footprint.
#[derive(Debug, Clone, Serialize)]
pub struct Occupancy {
    /// "Be in only 1 type of terrain: the type under the majority of the piece" [3.2].
    /// Hills are levels, not a type here, so woods on a hill is woods at level 1.
    pub kind: Option<TerrainKind>,
    pub name: Option<String>,
    /// The highest hill level under the majority of the footprint.
    pub hill_level: u8,
    /// Fraction of the footprint over each terrain type present.
    pub fractions: Vec<(TerrainKind, f64)>,
}

impl Occupancy {
    /// "woods", "hill" (open hillside), "clear", ...
    pub fn terrain_name(&self) -> String {
        match (self.kind, self.hill_level) {
            (Some(k), _) => kebab(k),
            (None, l) if l > 0 => "hill".into(),
            (None, _) => "clear".into(),
        }
    }

    /// "-1 to Attacker's die rolls if the Defender has Cover." Woods and Buildings are
    /// Cover against anyone [3.2 Terrain chart]; hills only against an attacker from
    /// lower ground, which a single position cannot tell.
    pub fn cover(&self) -> Option<&'static str> {
        match self.kind {
            Some(TerrainKind::Woods) => Some("woods"),
            Some(TerrainKind::Buildings) => Some("buildings"),
            _ => None,
        }
    }
}

pub(super) fn kebab(kind: TerrainKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn rect_overlaps(a: &Rect<f64>, b: &Rect<f64>) -> bool {
    a.min().x <= b.max().x
        && b.min().x <= a.max().x
        && a.min().y <= b.max().y
        && b.min().y <= a.max().y
}

/// Features whose bounding box touches `bbox`.
pub(super) fn near<'t>(
    terrain: &'t Terrain,
    bbox: &Rect<f64>,
) -> impl Iterator<Item = &'t TerrainFeature> {
    terrain
        .features
        .iter()
        .filter(move |f| rect_overlaps(&f.bbox, bbox))
}

/// The terrain under the majority of a footprint. "Estar sólo en 1 tipo de terreno: el
/// que esté bajo la mayor parte de la pieza" [3.2]: the majority is counted per terrain
/// type, so a block lying across two touching woods is in woods; hills per level, so a
/// block across two touching hills of one level stands at that level. Features of one
/// type are taken not to overlap (their fractions add, up to the whole piece).
pub fn occupancy(rules: &PubBattles, terrain: &Terrain, footprint: &Footprint) -> Occupancy {
    let poly = footprint.polygon();
    let bbox = poly.bounding_rect().expect("a footprint has four corners");
    let mut fractions: Vec<(TerrainKind, f64)> = Vec::new();
    let mut levels: Vec<(u8, f64)> = Vec::new();
    // The feature of each type holding most of the piece, for the name.
    let mut largest: Vec<(&TerrainFeature, f64)> = Vec::new();
    for f in near(terrain, &bbox) {
        if !f.kind.is_occupiable() || !f.area.intersects(&poly) {
            continue;
        }
        let fraction = footprint.fraction_inside(&f.area);
        add(&mut fractions, f.kind, fraction);
        if f.kind == TerrainKind::Hill {
            add(&mut levels, f.level, fraction);
        } else {
            match largest.iter_mut().find(|(g, _)| g.kind == f.kind) {
                Some(entry) if entry.1 < fraction => *entry = (f, fraction),
                Some(_) => {}
                None => largest.push((f, fraction)),
            }
        }
    }
    let hill_level = levels
        .iter()
        .filter(|(_, total)| rules.is_majority(*total))
        .map(|(level, _)| *level)
        .max()
        .unwrap_or(0);
    let kind = fractions
        .iter()
        .filter(|(k, total)| *k != TerrainKind::Hill && rules.is_majority(*total))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| *k);
    let name = kind.and_then(|k| {
        largest
            .iter()
            .find(|(f, _)| f.kind == k)
            .and_then(|(f, _)| f.name.clone())
    });
    Occupancy {
        kind,
        name,
        hill_level,
        fractions,
    }
}

/// Add `fraction` to `key`'s total, at most the whole piece.
fn add<K: PartialEq>(totals: &mut Vec<(K, f64)>, key: K, fraction: f64) {
    match totals.iter_mut().find(|(k, _)| *k == key) {
        Some((_, total)) => *total = (*total + fraction).min(1.0),
        None => totals.push((key, fraction)),
    }
}

/// Hill level at a point: the highest hill containing it.
pub fn elevation_at(terrain: &Terrain, p: Coord<f64>) -> u8 {
    let point = Point::from(p);
    terrain
        .features
        .iter()
        .filter(|f| f.kind == TerrainKind::Hill && f.area.contains(&point))
        .map(|f| f.level)
        .max()
        .unwrap_or(0)
}

/// The road a piece stands in column on, if any: "Turn piece lengthwise along the road"
/// [3.2], so its long (frontage) axis lies along the road and most of it is on the road.
pub fn road_column<'t>(
    rules: &PubBattles,
    terrain: &'t Terrain,
    piece: &Piece,
) -> Option<&'t TerrainFeature> {
    if !piece.kind.is_combat() && piece.kind != crate::table::UnitKind::SupplyTrain {
        return None;
    }
    let fp = &piece.footprint;
    let poly = fp.polygon();
    let bbox = poly.bounding_rect()?;
    let long_axis_deg = fp.heading_deg + 90.0;
    near(terrain, &bbox)
        .filter(|f| f.kind == TerrainKind::Road)
        .find(|road| {
            let on_road = fp.fraction_inside(&road.area);
            if !rules.is_majority(on_road) {
                return false;
            }
            match &road.line {
                Some(line) => {
                    let centre = Point::from(fp.center);
                    let nearest = line
                        .lines()
                        .min_by(|a, b| distance_to(a, centre).total_cmp(&distance_to(b, centre)));
                    nearest.is_some_and(|seg| {
                        let road_deg = vector_heading(seg.delta());
                        let off = heading_difference(road_deg, long_axis_deg);
                        off.min(180.0 - off) <= rules.options.road_column_angle_deg
                    })
                }
                // A road drawn as a polygon has no direction; a block can only have most of
                // its footprint on a narrow road when it lies along it.
                None => true,
            }
        })
}

fn distance_to(seg: &geo::Line<f64>, p: Point<f64>) -> f64 {
    Euclidean.distance(seg, &p)
}
