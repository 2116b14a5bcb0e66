//! Oriented rectangular footprints of pieces.

use geo::{Coord, Line, LineString, Polygon};
use serde::{Deserialize, Serialize};

use super::{area_inside_convex, heading_vector};
use geo::MultiPolygon;

/// A piece's footprint on the map: an oriented rectangle whose front edge is
/// `frontage_in` long and faces `heading_deg`, `depth_in` deep from front to rear.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Footprint {
    pub center: Coord<f64>,
    pub heading_deg: f64,
    pub frontage_in: f64,
    pub depth_in: f64,
}

/// The four sides of a footprint, named from the piece's own point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Edge {
    Front,
    Right,
    Rear,
    Left,
}

impl Footprint {
    pub fn new(x_in: f64, y_in: f64, heading_deg: f64, frontage_in: f64, depth_in: f64) -> Self {
        Self {
            center: Coord { x: x_in, y: y_in },
            heading_deg: heading_deg.rem_euclid(360.0),
            frontage_in,
            depth_in,
        }
    }

    /// Unit vector toward the front.
    pub fn forward(&self) -> Coord<f64> {
        heading_vector(self.heading_deg)
    }

    /// Unit vector toward the piece's right hand (forward turned 90 degrees clockwise).
    pub fn right(&self) -> Coord<f64> {
        heading_vector(self.heading_deg + 90.0)
    }

    /// A point given in the piece's frame: `lateral` to its right, `ahead` to its front.
    pub fn point_at(&self, lateral: f64, ahead: f64) -> Coord<f64> {
        self.center + self.right() * lateral + self.forward() * ahead
    }

    /// A map point in the piece's frame: (lateral to the right, ahead to the front).
    pub fn to_local(&self, p: Coord<f64>) -> (f64, f64) {
        let d = p - self.center;
        let (r, f) = (self.right(), self.forward());
        (d.x * r.x + d.y * r.y, d.x * f.x + d.y * f.y)
    }

    /// Corners in order front-left, front-right, rear-right, rear-left.
    pub fn corners(&self) -> [Coord<f64>; 4] {
        let (hw, hd) = (self.frontage_in / 2.0, self.depth_in / 2.0);
        [
            self.point_at(-hw, hd),
            self.point_at(hw, hd),
            self.point_at(hw, -hd),
            self.point_at(-hw, -hd),
        ]
    }

    /// One side as a segment, running clockwise around the piece.
    pub fn edge(&self, edge: Edge) -> Line<f64> {
        let [fl, fr, rr, rl] = self.corners();
        match edge {
            Edge::Front => Line::new(fl, fr),
            Edge::Right => Line::new(fr, rr),
            Edge::Rear => Line::new(rr, rl),
            Edge::Left => Line::new(rl, fl),
        }
    }

    pub fn polygon(&self) -> Polygon<f64> {
        let c = self.corners();
        Polygon::new(LineString::from(vec![c[0], c[1], c[2], c[3], c[0]]), vec![])
    }

    pub fn area(&self) -> f64 {
        self.frontage_in * self.depth_in
    }

    /// Radius of the circle through the corners: with it, two footprints whose centres
    /// are farther apart than the sum of their radii plus a distance are surely farther
    /// apart than that distance, without computing the exact edge-to-edge distance.
    pub fn radius(&self) -> f64 {
        self.frontage_in.hypot(self.depth_in) / 2.0
    }

    /// Whether another footprint may lie within `distance` of this one (a cheap test
    /// that never says no wrongly).
    pub fn may_be_within(&self, other: &Footprint, distance: f64) -> bool {
        let d = self.center - other.center;
        let reach = self.radius() + other.radius() + distance;
        d.x * d.x + d.y * d.y <= reach * reach
    }

    /// Fraction of this footprint lying inside `area`, in [0, 1].
    pub fn fraction_inside(&self, area: &MultiPolygon<f64>) -> f64 {
        (area_inside_convex(area, &self.corners()) / self.area()).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Coord<f64>, b: (f64, f64)) -> bool {
        (a.x - b.0).abs() < 1e-9 && (a.y - b.1).abs() < 1e-9
    }

    #[test]
    fn a_block_facing_north_has_its_front_edge_toward_smaller_y() {
        let f = Footprint::new(10.0, 10.0, 0.0, 1.875, 0.375);
        let [fl, fr, rr, rl] = f.corners();
        assert!(close(fl, (9.0625, 9.8125)));
        assert!(close(fr, (10.9375, 9.8125)));
        assert!(close(rr, (10.9375, 10.1875)));
        assert!(close(rl, (9.0625, 10.1875)));
    }

    #[test]
    fn a_block_facing_east_has_its_front_edge_toward_larger_x() {
        let f = Footprint::new(0.0, 0.0, 90.0, 2.0, 1.0);
        let front = f.edge(Edge::Front);
        assert!(close(front.start, (0.5, -1.0)) && close(front.end, (0.5, 1.0)));
        let (lateral, ahead) = f.to_local(Coord { x: 3.0, y: 1.0 });
        assert!((lateral - 1.0).abs() < 1e-12 && (ahead - 3.0).abs() < 1e-12);
    }
}
