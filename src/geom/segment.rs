//! Where a segment runs inside a polygon: the basis of every sight-line test.

use geo::{Contains, Coord, Line, LineIntersection, Polygon, line_intersection::line_intersection};

/// A stretch of a segment, as fractions of its length from its start: 0 ≤ `t0` < `t1` ≤ 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub t0: f64,
    pub t1: f64,
}

/// The stretches of `segment` that lie inside `polygon` (holes respected), in order.
///
/// Works by cutting the segment at every crossing of the polygon's rings and testing the
/// midpoint of each piece. A segment running exactly along a boundary counts as outside.
pub fn inside_intervals(segment: Line<f64>, polygon: &Polygon<f64>) -> Vec<Interval> {
    let length_sq = {
        let d = segment.delta();
        d.x * d.x + d.y * d.y
    };
    if length_sq == 0.0 {
        return Vec::new();
    }
    let param = |p: Coord<f64>| {
        let d = p - segment.start;
        let s = segment.delta();
        ((d.x * s.x + d.y * s.y) / length_sq).clamp(0.0, 1.0)
    };
    let mut cuts = vec![0.0, 1.0];
    for ring in std::iter::once(polygon.exterior()).chain(polygon.interiors()) {
        for edge in ring.lines() {
            match line_intersection(segment, edge) {
                Some(LineIntersection::SinglePoint { intersection, .. }) => {
                    cuts.push(param(intersection))
                }
                Some(LineIntersection::Collinear { intersection }) => {
                    cuts.push(param(intersection.start));
                    cuts.push(param(intersection.end));
                }
                None => {}
            }
        }
    }
    cuts.sort_by(f64::total_cmp);
    cuts.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    let mut out: Vec<Interval> = Vec::new();
    for pair in cuts.windows(2) {
        let (t0, t1) = (pair[0], pair[1]);
        let mid = segment.start + segment.delta() * ((t0 + t1) / 2.0);
        if polygon.contains(&mid) {
            match out.last_mut() {
                Some(last) if (last.t1 - t0).abs() < 1e-12 => last.t1 = t1,
                _ => out.push(Interval { t0, t1 }),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::polygon;

    #[test]
    fn a_segment_through_a_square_is_inside_for_its_middle_third() {
        let square =
            polygon![(x: 1.0, y: -1.0), (x: 2.0, y: -1.0), (x: 2.0, y: 1.0), (x: 1.0, y: 1.0)];
        let seg = Line::new(Coord { x: 0.0, y: 0.0 }, Coord { x: 3.0, y: 0.0 });
        let got = inside_intervals(seg, &square);
        assert_eq!(got.len(), 1);
        assert!((got[0].t0 - 1.0 / 3.0).abs() < 1e-12 && (got[0].t1 - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_segment_starting_inside_reports_from_zero() {
        let square =
            polygon![(x: -1.0, y: -1.0), (x: 1.0, y: -1.0), (x: 1.0, y: 1.0), (x: -1.0, y: 1.0)];
        let seg = Line::new(Coord { x: 0.0, y: 0.0 }, Coord { x: 4.0, y: 0.0 });
        let got = inside_intervals(seg, &square);
        assert_eq!(got, vec![Interval { t0: 0.0, t1: 0.25 }]);
    }

    #[test]
    fn a_segment_missing_the_polygon_is_never_inside() {
        let square =
            polygon![(x: 1.0, y: 1.0), (x: 2.0, y: 1.0), (x: 2.0, y: 2.0), (x: 1.0, y: 2.0)];
        let seg = Line::new(Coord { x: 0.0, y: 0.0 }, Coord { x: 3.0, y: 0.0 });
        assert!(inside_intervals(seg, &square).is_empty());
    }
}
