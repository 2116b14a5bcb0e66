//! The hex grid laid over the map: where each hex is, which hex a piece stands in, which
//! hex side it faces, and the hexes a straight line touches.
//!
//! Hexes are addressed by column and row ("offset" coordinates, what a player reads off
//! the table); distances and neighbours are computed in cube coordinates. The geometry
//! is in map inches like everything else, so the page can draw the grid over the map.

use geo::Coord;
use serde::Serialize;

use crate::geom::heading_vector;
use crate::scenario::{HexOrientation, HexSpec, MapSpec};

const SQRT3: f64 = 1.732_050_807_568_877_2;

/// One hex, by column (along x) and row (along y), both from 0 at the map's top-left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Hex {
    pub col: i32,
    pub row: i32,
}

impl Hex {
    pub fn new(col: i32, row: i32) -> Self {
        Self { col, row }
    }
}

impl std::fmt::Display for Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.col, self.row)
    }
}

/// A laid-out grid: the spec plus the size and origin that place it on the map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HexGrid {
    pub orientation: HexOrientation,
    pub columns: i32,
    pub rows: i32,
    /// Centre-to-corner length (= side length), inches.
    pub size_in: f64,
    /// Centre of hex (0, 0).
    pub origin: Coord<f64>,
}

impl HexGrid {
    /// Lay the scenario's grid on its map: the given hex size, or the largest that fits,
    /// centred on the map either way.
    pub fn new(spec: &HexSpec, map: &MapSpec) -> Self {
        let (cols, rows) = (f64::from(spec.columns), f64::from(spec.rows));
        // Extent of the grid in units of the hex size, and the first centre's offset.
        let (w_units, h_units) = match spec.orientation {
            HexOrientation::Flat => (
                1.5 * (cols - 1.0) + 2.0,
                SQRT3 * (rows + if spec.columns > 1 { 0.5 } else { 0.0 }),
            ),
            HexOrientation::Pointy => (
                SQRT3 * (cols + if spec.rows > 1 { 0.5 } else { 0.0 }),
                1.5 * (rows - 1.0) + 2.0,
            ),
        };
        let size_in = spec
            .size_in
            .unwrap_or_else(|| (map.width_in / w_units).min(map.height_in / h_units));
        let (first_x, first_y) = match spec.orientation {
            HexOrientation::Flat => (1.0, SQRT3 / 2.0),
            HexOrientation::Pointy => (SQRT3 / 2.0, 1.0),
        };
        let origin = Coord {
            x: (map.width_in - w_units * size_in) / 2.0 + first_x * size_in,
            y: (map.height_in - h_units * size_in) / 2.0 + first_y * size_in,
        };
        Self {
            orientation: spec.orientation,
            columns: i32::from(spec.columns),
            rows: i32::from(spec.rows),
            size_in,
            origin,
        }
    }

    /// Centre-to-centre distance between neighbouring hexes.
    pub fn step_in(&self) -> f64 {
        SQRT3 * self.size_in
    }

    pub fn contains(&self, hex: Hex) -> bool {
        (0..self.columns).contains(&hex.col) && (0..self.rows).contains(&hex.row)
    }

    pub fn centre(&self, hex: Hex) -> Coord<f64> {
        let s = self.size_in;
        let (x, y) = match self.orientation {
            HexOrientation::Flat => (
                1.5 * s * f64::from(hex.col),
                SQRT3 * s * (f64::from(hex.row) + 0.5 * f64::from(hex.col & 1)),
            ),
            HexOrientation::Pointy => (
                SQRT3 * s * (f64::from(hex.col) + 0.5 * f64::from(hex.row & 1)),
                1.5 * s * f64::from(hex.row),
            ),
        };
        self.origin + Coord { x, y }
    }

    /// The six corners, clockwise from the top (pointy) or top-right (flat).
    pub fn corners(&self, hex: Hex) -> [Coord<f64>; 6] {
        let c = self.centre(hex);
        let first = match self.orientation {
            HexOrientation::Flat => 30.0,
            HexOrientation::Pointy => 0.0,
        };
        std::array::from_fn(|i| c + heading_vector(first + 60.0 * i as f64) * self.size_in)
    }

    /// The hex a map point lies in (cube rounding); it may be off the grid.
    pub fn hex_at(&self, p: Coord<f64>) -> Hex {
        let d = p - self.origin;
        let s = self.size_in;
        let (q, r) = match self.orientation {
            HexOrientation::Flat => {
                let q = d.x / (1.5 * s);
                (q, d.y / (SQRT3 * s) - q / 2.0)
            }
            HexOrientation::Pointy => {
                let r = d.y / (1.5 * s);
                (d.x / (SQRT3 * s) - r / 2.0, r)
            }
        };
        let (q, r) = cube_round(q, r);
        self.hex_of_axial(q, r)
    }

    /// Heading (degrees, map convention) from a hex's centre through its side `side`
    /// (0..6, clockwise from the topmost side).
    pub fn side_heading(&self, side: u8) -> f64 {
        let first = match self.orientation {
            HexOrientation::Flat => 0.0,
            HexOrientation::Pointy => 30.0,
        };
        (first + 60.0 * f64::from(side)).rem_euclid(360.0)
    }

    /// The hex side nearest to a heading, and how far (degrees) the heading is off it.
    pub fn nearest_side(&self, heading_deg: f64) -> (u8, f64) {
        let first = self.side_heading(0);
        let steps = ((heading_deg - first) / 60.0).round();
        let side = (steps as i64).rem_euclid(6) as u8;
        let off = crate::geom::heading_difference(heading_deg, self.side_heading(side));
        (side, off)
    }

    /// The hex side `side` of `hex`, as a segment between its two corners.
    pub fn side_line(&self, hex: Hex, side: u8) -> geo::Line<f64> {
        let c = self.corners(hex);
        let s = usize::from(side % 6);
        match self.orientation {
            // Flat: corner i at 30 + 60i deg, side s at 60s deg, between corners s-1 and s.
            HexOrientation::Flat => geo::Line::new(c[(s + 5) % 6], c[s]),
            // Pointy: corner i at 60i deg, side s at 30 + 60s deg, between corners s and s+1.
            HexOrientation::Pointy => geo::Line::new(c[s], c[(s + 1) % 6]),
        }
    }

    /// The neighbour across side `side`.
    pub fn neighbour(&self, hex: Hex, side: u8) -> Hex {
        self.hex_at(self.centre(hex) + heading_vector(self.side_heading(side)) * self.step_in())
    }

    pub fn neighbours(&self, hex: Hex) -> [Hex; 6] {
        std::array::from_fn(|i| self.neighbour(hex, i as u8))
    }

    /// The side of `from` that `to` lies across, if they are neighbours.
    pub fn side_toward(&self, from: Hex, to: Hex) -> Option<u8> {
        (0..6).find(|&s| self.neighbour(from, s) == to)
    }

    /// Hexes between two hexes, counted as a unit moves or a gun ranges.
    pub fn distance(&self, a: Hex, b: Hex) -> u32 {
        let (aq, ar) = self.axial_of(a);
        let (bq, br) = self.axial_of(b);
        let (dq, dr) = (aq - bq, ar - br);
        ((dq.abs() + dr.abs() + (dq + dr).abs()) / 2) as u32
    }

    /// Every hex other than the two ends that the centre-to-centre line touches,
    /// including a line that only grazes a corner or runs along a side: "checking the
    /// ruler does not cross a hex occupied by a unit or blocking terrain" [OHW].
    pub fn hexes_touched(&self, a: Hex, b: Hex) -> Vec<Hex> {
        let (pa, pb) = (self.centre(a), self.centre(b));
        let eps = 1e-9 * self.size_in;
        let n = self.distance(a, b) as i32;
        let mut out = Vec::new();
        for dc in -n - 1..=n + 1 {
            for dr in -n - 1..=n + 1 {
                let h = Hex::new(a.col + dc, a.row + dr);
                if h == a || h == b {
                    continue;
                }
                let c = self.corners(h);
                let touched = (0..6).any(|i| segment_distance(pa, pb, c[i], c[(i + 1) % 6]) <= eps);
                if touched {
                    out.push(h);
                }
            }
        }
        out.sort_by(|x, y| {
            let dx = self.centre(*x) - pa;
            let dy = self.centre(*y) - pa;
            (dx.x.hypot(dx.y)).total_cmp(&dy.x.hypot(dy.y))
        });
        out
    }

    fn axial_of(&self, h: Hex) -> (i32, i32) {
        match self.orientation {
            HexOrientation::Flat => (h.col, h.row - (h.col - (h.col & 1)) / 2),
            HexOrientation::Pointy => (h.col - (h.row - (h.row & 1)) / 2, h.row),
        }
    }

    fn hex_of_axial(&self, q: i32, r: i32) -> Hex {
        match self.orientation {
            HexOrientation::Flat => Hex::new(q, r + (q - (q & 1)) / 2),
            HexOrientation::Pointy => Hex::new(q + (r - (r & 1)) / 2, r),
        }
    }

    /// Every hex of the grid with its centre and corners, for drawing.
    pub fn geometry(&self) -> GridGeometry {
        let round = |c: Coord<f64>| [round4(c.x), round4(c.y)];
        let mut hexes = Vec::new();
        for row in 0..self.rows {
            for col in 0..self.columns {
                let h = Hex::new(col, row);
                hexes.push(HexCell {
                    col,
                    row,
                    centre: round(self.centre(h)),
                    corners: self.corners(h).map(round),
                });
            }
        }
        GridGeometry {
            orientation: self.orientation,
            columns: self.columns,
            rows: self.rows,
            size_in: round4(self.size_in),
            side_headings_deg: std::array::from_fn(|i| self.side_heading(i as u8)),
            hexes,
        }
    }
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn cube_round(q: f64, r: f64) -> (i32, i32) {
    let s = -q - r;
    let (mut rq, mut rr, rs) = (q.round(), r.round(), s.round());
    let (dq, dr, ds) = ((rq - q).abs(), (rr - r).abs(), (rs - s).abs());
    if dq > dr && dq > ds {
        rq = -rr - rs;
    } else if dr > ds {
        rr = -rq - rs;
    }
    (rq as i32, rr as i32)
}

/// Shortest distance between segments ab and cd.
fn segment_distance(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>, d: Coord<f64>) -> f64 {
    let cross = |o: Coord<f64>, p: Coord<f64>, q: Coord<f64>| {
        (p.x - o.x) * (q.y - o.y) - (p.y - o.y) * (q.x - o.x)
    };
    let (d1, d2) = (cross(a, b, c), cross(a, b, d));
    let (d3, d4) = (cross(c, d, a), cross(c, d, b));
    if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
        return 0.0;
    }
    point_segment(c, a, b)
        .min(point_segment(d, a, b))
        .min(point_segment(a, c, d))
        .min(point_segment(b, c, d))
}

fn point_segment(p: Coord<f64>, a: Coord<f64>, b: Coord<f64>) -> f64 {
    let ab = b - a;
    let len_sq = ab.x * ab.x + ab.y * ab.y;
    let t = if len_sq == 0.0 {
        0.0
    } else {
        (((p.x - a.x) * ab.x + (p.y - a.y) * ab.y) / len_sq).clamp(0.0, 1.0)
    };
    let q = a + ab * t;
    (p.x - q.x).hypot(p.y - q.y)
}

/// The grid as the page draws it.
#[derive(Debug, Clone, Serialize)]
pub struct GridGeometry {
    pub orientation: HexOrientation,
    pub columns: i32,
    pub rows: i32,
    pub size_in: f64,
    /// Heading through side 0..5 of every hex: the facings a unit may take.
    pub side_headings_deg: [f64; 6],
    pub hexes: Vec<HexCell>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HexCell {
    pub col: i32,
    pub row: i32,
    pub centre: [f64; 2],
    pub corners: [[f64; 2]; 6],
}
