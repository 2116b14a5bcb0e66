//! Map-plane geometry in inches, on top of `geo`.
//!
//! Every piece is an oriented rectangle ([`Footprint`]); the rules ask this module for
//! edge-to-edge distances, fields of fire, sight segments against terrain and area
//! fractions. Conventions (shared with every stage): origin at the map's top-left
//! corner, x right, y down; a heading of 0 faces the top edge, 90 faces +x, clockwise.

mod clip;
mod footprint;
mod segment;

pub use clip::area_inside_convex;

pub use footprint::{Edge, Footprint};
pub use segment::{Interval, inside_intervals};

use geo::{Coord, Distance, Euclidean, Polygon};

/// Unit vector a heading points along, in map coordinates (y down).
pub fn heading_vector(heading_deg: f64) -> Coord<f64> {
    let h = heading_deg.to_radians();
    Coord {
        x: h.sin(),
        y: -h.cos(),
    }
}

/// The heading (degrees, [0, 360)) of a direction vector in map coordinates.
pub fn vector_heading(v: Coord<f64>) -> f64 {
    v.x.atan2(-v.y).to_degrees().rem_euclid(360.0)
}

/// Smallest absolute difference between two headings, in [0, 180].
pub fn heading_difference(a_deg: f64, b_deg: f64) -> f64 {
    let d = (a_deg - b_deg).rem_euclid(360.0);
    d.min(360.0 - d)
}

/// Closest edge to closest edge; 0 when the shapes touch or overlap.
pub fn edge_distance(a: &Polygon<f64>, b: &Polygon<f64>) -> f64 {
    Euclidean.distance(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_follow_the_map_convention() {
        let up = heading_vector(0.0);
        assert!((up.x - 0.0).abs() < 1e-12 && (up.y + 1.0).abs() < 1e-12);
        let right = heading_vector(90.0);
        assert!((right.x - 1.0).abs() < 1e-12 && right.y.abs() < 1e-12);
        assert!((vector_heading(Coord { x: 0.0, y: 1.0 }) - 180.0).abs() < 1e-12);
        assert!((vector_heading(Coord { x: -1.0, y: 0.0 }) - 270.0).abs() < 1e-12);
        assert_eq!(heading_difference(350.0, 10.0), 20.0);
        assert_eq!(heading_difference(0.0, 180.0), 180.0);
    }
}
