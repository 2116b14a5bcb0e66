//! Area of a polygon inside a small convex region: the majority rule's hot path.
//!
//! Every footprint and every field of fire is convex, so the area of any terrain
//! polygon inside one is found by Sutherland–Hodgman clipping of each ring against the
//! convex region's edges: linear in the ring's vertices, with no allocation beyond two
//! buffers. A general boolean operation (geo's `BooleanOps`) gives the same area but
//! builds the full overlay, which cost ~20x more per piece on the demo terrain.

use geo::{Coord, LineString, MultiPolygon, Polygon};

/// Area of `subject` (holes subtracted) inside the convex polygon `convex`, whose
/// vertices are given in order (either winding), without repeating the first.
pub fn area_inside_convex(subject: &MultiPolygon<f64>, convex: &[Coord<f64>]) -> f64 {
    subject
        .0
        .iter()
        .map(|p| polygon_area_inside(p, convex))
        .sum::<f64>()
        .max(0.0)
}

fn polygon_area_inside(poly: &Polygon<f64>, convex: &[Coord<f64>]) -> f64 {
    let outer = ring_area_inside(poly.exterior(), convex);
    let holes: f64 = poly
        .interiors()
        .iter()
        .map(|h| ring_area_inside(h, convex))
        .sum();
    outer - holes
}

fn cross(o: Coord<f64>, a: Coord<f64>, b: Coord<f64>) -> f64 {
    (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
}

fn ring_area_inside(ring: &LineString<f64>, convex: &[Coord<f64>]) -> f64 {
    let n = convex.len();
    if n < 3 {
        return 0.0;
    }
    // Orientation of the clip polygon decides which side of each edge is inside.
    let orientation = (0..n)
        .map(|i| cross(convex[0], convex[i], convex[(i + 1) % n]))
        .sum::<f64>()
        .signum();
    let mut current: Vec<Coord<f64>> = ring.0.clone();
    if current.len() > 1 && current.first() == current.last() {
        current.pop();
    }
    let mut next = Vec::with_capacity(current.len() + n);
    for i in 0..n {
        let (a, b) = (convex[i], convex[(i + 1) % n]);
        let inside = |p: Coord<f64>| cross(a, b, p) * orientation >= 0.0;
        next.clear();
        for k in 0..current.len() {
            let p = current[k];
            let q = current[(k + 1) % current.len()];
            let (pin, qin) = (inside(p), inside(q));
            if pin {
                next.push(p);
            }
            if pin != qin {
                let (dp, dq) = (cross(a, b, p), cross(a, b, q));
                let t = dp / (dp - dq);
                next.push(p + (q - p) * t);
            }
        }
        std::mem::swap(&mut current, &mut next);
        if current.is_empty() {
            return 0.0;
        }
    }
    let m = current.len();
    let twice: f64 = (0..m)
        .map(|k| {
            let (p, q) = (current[k], current[(k + 1) % m]);
            p.x * q.y - q.x * p.y
        })
        .sum();
    twice.abs() / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::{Area, BooleanOps, polygon};

    fn square(x0: f64, y0: f64, s: f64) -> Vec<Coord<f64>> {
        vec![
            Coord { x: x0, y: y0 },
            Coord { x: x0 + s, y: y0 },
            Coord {
                x: x0 + s,
                y: y0 + s,
            },
            Coord { x: x0, y: y0 + s },
        ]
    }

    #[test]
    fn matches_a_general_boolean_intersection_on_a_concave_polygon_with_a_hole() {
        // An L-shaped polygon with a square hole, clipped by a tilted quad.
        let l = Polygon::new(
            LineString::from(vec![
                (0.0, 0.0),
                (6.0, 0.0),
                (6.0, 2.0),
                (2.0, 2.0),
                (2.0, 6.0),
                (0.0, 6.0),
                (0.0, 0.0),
            ]),
            vec![LineString::from(vec![
                (0.5, 0.5),
                (1.5, 0.5),
                (1.5, 1.5),
                (0.5, 1.5),
                (0.5, 0.5),
            ])],
        );
        let quad = vec![
            Coord { x: 1.0, y: -1.0 },
            Coord { x: 4.0, y: 1.0 },
            Coord { x: 2.0, y: 4.0 },
            Coord { x: -1.0, y: 2.0 },
        ];
        let clip = Polygon::new(
            LineString::from(quad.iter().copied().chain([quad[0]]).collect::<Vec<_>>()),
            vec![],
        );
        let expected = l.intersection(&clip).unsigned_area();
        let got = area_inside_convex(&MultiPolygon(vec![l]), &quad);
        // geo's overlay snaps to a fixed-point grid, so it agrees to about 1e-8 only.
        assert!((got - expected).abs() < 1e-7, "{got} vs {expected}");
        assert!(expected > 1.0);
    }

    #[test]
    fn either_winding_and_no_overlap() {
        let p = MultiPolygon(vec![
            polygon![(x: 0.0, y: 0.0), (x: 2.0, y: 0.0), (x: 2.0, y: 2.0), (x: 0.0, y: 2.0)],
        ]);
        let mut sq = square(1.0, 1.0, 2.0);
        assert!((area_inside_convex(&p, &sq) - 1.0).abs() < 1e-12);
        sq.reverse();
        assert!((area_inside_convex(&p, &sq) - 1.0).abs() < 1e-12);
        assert_eq!(area_inside_convex(&p, &square(5.0, 5.0, 1.0)), 0.0);
    }
}
