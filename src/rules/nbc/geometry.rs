//! The measured relations of [NBC] between two bases: aspects, Directly In Front,
//! Behind the Flank, the Zone of Fire. All use "the centre of the Unit" against the
//! Target Unit's base.

use geo::Coord;
use serde::Serialize;

use crate::geom::Footprint;

/// Where a unit's centre lies around a target's base, "defined by extending the
/// diagonals of that Unit's base".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aspect {
    Frontal,
    LeftFlank,
    RightFlank,
    Rear,
}

/// Everything [NBC] defines about a point (another unit's centre) seen from a base.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Relation {
    /// "within the area defined by extending the two sides of the Target Unit's base
    /// directly forwards": ahead of the front edge and between the extended sides.
    pub directly_in_front: bool,
    /// A point on a diagonal counts as frontal (or rear): the area is "defined by" the
    /// diagonals, so the line belongs to it.
    pub aspect: Aspect,
    /// "behind the extended front line of the Target Unit"; on the line is not behind.
    pub behind_the_flank: bool,
}

/// The relation of point `p` to base `base`.
pub fn relation(base: &Footprint, p: Coord<f64>) -> Relation {
    let (lateral, ahead) = base.to_local(p);
    let (hw, hd) = (base.frontage_in / 2.0, base.depth_in / 2.0);
    // Scaled so that the diagonals are |x| = |y|.
    let (x, y) = (lateral / hw, ahead / hd);
    let aspect = if y >= x.abs() {
        Aspect::Frontal
    } else if -y >= x.abs() {
        Aspect::Rear
    } else if x > 0.0 {
        Aspect::RightFlank
    } else {
        Aspect::LeftFlank
    };
    Relation {
        directly_in_front: ahead > hd && lateral.abs() <= hw,
        aspect,
        behind_the_flank: ahead < hd,
    }
}

/// "Zone of Fire: the area between the two lines extending from both rear corners of a
/// Unit through the opposite front corners." Those lines cross at the base's centre
/// and are its diagonals, so the zone is the frontal wedge: 90 degrees wide for a
/// 50 x 50 mm base, 2 atan(25/50) = 53.1 degrees for a 25 x 50 mm battery.
pub fn in_zone_of_fire(shooter: &Footprint, p: Coord<f64>) -> bool {
    relation(shooter, p).aspect == Aspect::Frontal
}
