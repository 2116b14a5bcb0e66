//! Finding the pieces: the frame is resampled onto the map plane, painted pixels are
//! grouped into blobs per side, and each blob's lit top face is measured.
//!
//! Working on the map plane (not the raw frame) makes every block the same size in
//! pixels wherever it stands and whatever the camera's tilt, so sizes decide what a blob
//! is. The camera sees a block's top face, not its footprint: the top face stands 3/4 in
//! (fresh) or 3/8 in (spent, HQ) above the map, so on the map plane it appears enlarged
//! by H / (H - h) about the point under the camera and pushed away from it. Both are
//! undone once the blob's width has told its height.

use image::RgbImage;
use imageproc::region_labelling::{Connectivity, connected_components};
use nalgebra::Point3;
use serde::{Deserialize, Serialize};

use super::calib::Calibration;
use super::colour::{ColourModel, Hsv, is_skin};
use crate::model::PieceModel;
use crate::table::{Status, UnitKind};

/// Map-plane resolution the detector works at.
pub const PX_PER_IN: f64 = 20.0;

/// How a piece's heading was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Facing {
    /// From the off-white band on its front.
    Marked,
    /// No band: facing away from its side's home edge.
    Inferred,
    /// No band and no home edge to infer from: one of the two normals, arbitrarily.
    Unknown,
}

/// A piece found in a frame, in map inches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectedPiece {
    /// "block" or "hq".
    pub kind: String,
    pub color: String,
    pub x_in: f64,
    pub y_in: f64,
    pub heading_deg: f64,
    pub status: Status,
    pub facing: Facing,
    /// The footprint measured, after the height correction.
    pub length_in: f64,
    pub width_in: f64,
    /// How well the measured size fits the model's: 1 exact, toward 0 for a poor fit.
    pub confidence: f64,
}

/// Everything the detector made of one frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Detection {
    pub pieces: Vec<DetectedPiece>,
    /// Fraction of the map covered by skin-coloured pixels (hands and arms).
    pub disturbance: f64,
}

/// What to look for and how to tell facing without a band.
pub struct DetectOptions<'a> {
    pub colours: &'a ColourModel,
    pub model: &'a PieceModel,
    /// The heading that faces away from each side's home edge, by colour name.
    pub facing_away: &'a dyn Fn(&str) -> Option<f64>,
}

/// Detect the pieces of one frame.
pub fn detect(image: &RgbImage, calib: &Calibration, options: &DetectOptions) -> Detection {
    let plane = MapPlane::resample(image, calib);
    let n_sides = options.colours.sides.len();
    let mut masks = vec![image::GrayImage::new(plane.w, plane.h); n_sides];
    let mut skin = image::GrayImage::new(plane.w, plane.h);
    let mut on_map = 0usize;
    for y in 0..plane.h {
        for x in 0..plane.w {
            let Some(rgb) = plane.at(x, y) else { continue };
            on_map += 1;
            let hsv = Hsv::from_rgb(rgb);
            if let Some(side) = options.colours.side_of(hsv) {
                masks[side].put_pixel(x, y, image::Luma([255]));
            } else if is_skin(hsv) {
                skin.put_pixel(x, y, image::Luma([255]));
            }
        }
    }
    // A hand is a large skin-coloured area; a tan road or a label is thin. Eroding by
    // 0.15 in leaves the one and removes the other.
    let skin = imageproc::morphology::erode(&skin, imageproc::distance_transform::Norm::LInf, 3);
    let skin_px = skin.pixels().filter(|p| p.0[0] > 0).count();
    let (cam_x, cam_y, cam_h) = calib.camera_over();
    let mut found: Vec<(DetectedPiece, f64)> = Vec::new();
    for (side, mask) in masks.iter().enumerate() {
        let name = &options.colours.sides[side].name;
        let labels = connected_components(mask, Connectivity::Eight, image::Luma([0u8]));
        let mut blobs: Vec<Vec<(u32, u32)>> = Vec::new();
        for (x, y, l) in labels.enumerate_pixels() {
            let l = l.0[0] as usize;
            if l == 0 {
                continue;
            }
            if blobs.len() < l {
                blobs.resize(l, Vec::new());
            }
            blobs[l - 1].push((x, y));
        }
        for blob in blobs {
            let camera = (cam_x, cam_y, cam_h);
            if let Some(piece) = measure(&blob, &plane, name, camera, options) {
                found.push(piece);
            }
        }
    }
    Detection {
        pieces: drop_side_faces(found),
        disturbance: if on_map == 0 {
            0.0
        } else {
            skin_px as f64 / on_map as f64
        },
    }
}

/// A block's front side can show as a blob of its own, cut off from the painted top by
/// the facing band. It is in shade: a blob of the same paint next to a much brighter one
/// is that brighter piece's side, not a piece.
fn drop_side_faces(found: Vec<(DetectedPiece, f64)>) -> Vec<DetectedPiece> {
    let keep: Vec<bool> = found
        .iter()
        .map(|(p, bright)| {
            !found.iter().any(|(q, q_bright)| {
                q.color == p.color
                    && *q_bright > 1.15 * bright
                    && (q.x_in - p.x_in).hypot(q.y_in - p.y_in) < 0.5 * q.length_in + 0.4
            })
        })
        .collect();
    found
        .into_iter()
        .zip(keep)
        .filter_map(|((p, _), k)| k.then_some(p))
        .collect()
}

/// The frame resampled onto the map plane (z = 0) at [`PX_PER_IN`].
struct MapPlane {
    w: u32,
    h: u32,
    /// `None` where the map point falls outside the frame, or on a corner card.
    pixels: Vec<Option<[u8; 3]>>,
}

impl MapPlane {
    fn resample(image: &RgbImage, calib: &Calibration) -> Self {
        let w = (calib.map_w_in * PX_PER_IN).round() as u32;
        let h = (calib.map_h_in * PX_PER_IN).round() as u32;
        let gains = white_balance(image, calib);
        let mut pixels = Vec::with_capacity((w * h) as usize);
        let card = 2.0 * PX_PER_IN;
        for y in 0..h {
            for x in 0..w {
                let (fx, fy) = (f64::from(x), f64::from(y));
                let near = |v: f64, max: u32| v < card || v > f64::from(max) - card;
                if near(fx, w) && near(fy, h) {
                    pixels.push(None);
                    continue;
                }
                let p = Point3::new((fx + 0.5) / PX_PER_IN, (fy + 0.5) / PX_PER_IN, 0.0);
                pixels.push(
                    calib
                        .camera
                        .project(p)
                        .and_then(|(u, v)| bilinear(image, u, v))
                        .map(|rgb| {
                            let mut out = [0u8; 3];
                            for c in 0..3 {
                                out[c] = (f64::from(rgb[c]) * gains[c]).round().min(255.0) as u8;
                            }
                            out
                        }),
                );
            }
        }
        Self { w, h, pixels }
    }

    fn at(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        self.pixels[(y * self.w + x) as usize]
    }
}

/// Per-channel gains that make the corner cards' white margins grey: the light's colour
/// cast taken out, its brightness kept, so paint and band colours read the same under a
/// warm pub lamp as under daylight.
pub(super) fn white_balance(image: &RgbImage, calib: &Calibration) -> [f64; 3] {
    let (mw, mh) = (calib.map_w_in, calib.map_h_in);
    let mut samples: [Vec<f64>; 3] = Default::default();
    // The 0.25 in margin between a card's edge and its tag, sampled 0.12 in in.
    for (x0, y0) in [
        (0.0, 0.0),
        (mw - 2.0, 0.0),
        (mw - 2.0, mh - 2.0),
        (0.0, mh - 2.0),
    ] {
        for k in 0..16 {
            let t = 0.2 + 1.6 * f64::from(k) / 15.0;
            for (x, y) in [(t, 0.12), (t, 1.88), (0.12, t), (1.88, t)] {
                let p = Point3::new(x0 + x, y0 + y, 0.0);
                if let Some(rgb) = calib
                    .camera
                    .project(p)
                    .and_then(|(u, v)| bilinear(image, u, v))
                {
                    for c in 0..3 {
                        samples[c].push(f64::from(rgb[c]));
                    }
                }
            }
        }
    }
    let medians = samples.map(|mut v| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    });
    let grey = medians.iter().sum::<f64>() / 3.0;
    if medians.iter().any(|m| *m < 40.0) {
        return [1.0; 3]; // the cards are not lit enough to tell
    }
    medians.map(|m| grey / m)
}

pub(super) fn bilinear(image: &RgbImage, u: f64, v: f64) -> Option<[u8; 3]> {
    let (x, y) = (u - 0.5, v - 0.5);
    if x < 0.0 || y < 0.0 {
        return None;
    }
    let (x0, y0) = (x.floor() as u32, y.floor() as u32);
    if x0 + 1 >= image.width() || y0 + 1 >= image.height() {
        return None;
    }
    let (fx, fy) = (x - x.floor(), y - y.floor());
    let p = |dx, dy| image.get_pixel(x0 + dx, y0 + dy).0.map(f64::from);
    let (a, b, c, d) = (p(0, 0), p(1, 0), p(0, 1), p(1, 1));
    let mut out = [0u8; 3];
    for i in 0..3 {
        let top = a[i] * (1.0 - fx) + b[i] * fx;
        let bottom = c[i] * (1.0 - fx) + d[i] * fx;
        out[i] = (top * (1.0 - fy) + bottom * fy).round() as u8;
    }
    Some(out)
}

/// Measure one blob of a side's paint; `None` when it is no piece (a road line, a speck).
fn measure(
    blob: &[(u32, u32)],
    plane: &MapPlane,
    colour: &str,
    camera: (f64, f64, f64),
    options: &DetectOptions,
) -> Option<(DetectedPiece, f64)> {
    let block = options.model.shape(UnitKind::Infantry)?;
    let hq = options.model.shape(UnitKind::Hq)?;
    let px_area = |w: f64, d: f64| w * d * PX_PER_IN * PX_PER_IN;
    // Smaller than half an HQ cube's top: a speck.
    if (blob.len() as f64) < 0.5 * px_area(hq.frontage_in, hq.depth_fresh_in) {
        return None;
    }
    // The lit top face: the brighter part of the blob (the sides are in shade).
    let mut values: Vec<f64> = blob
        .iter()
        .filter_map(|&(x, y)| plane.at(x, y))
        .map(|rgb| Hsv::from_rgb(rgb).v)
        .collect();
    values.sort_by(f64::total_cmp);
    let bright = values[(values.len() * 9) / 10];
    let top: Vec<[f64; 2]> = blob
        .iter()
        .filter(|&&(x, y)| {
            plane
                .at(x, y)
                .is_some_and(|rgb| Hsv::from_rgb(rgb).v >= 0.8 * bright)
        })
        .map(|&(x, y)| [f64::from(x) + 0.5, f64::from(y) + 0.5])
        .collect();
    if top.len() < 4 {
        return None;
    }
    let axes = principal_axes(&top);
    let (mut lo_n, mut hi_n) = extent(&top, axes.centre, axes.normal);
    let (lo_l, hi_l) = extent(&top, axes.centre, axes.along);
    // The band beside the painted top; HQ cubes (painted tops far shorter than a block)
    // carry none, so a pale map spot beside one is not read as a band.
    let cube = (hi_l - lo_l + 1.0) / PX_PER_IN < 0.5 * block.frontage_in;
    let band = if cube {
        None
    } else {
        band_beside(&top, &axes, plane, options.colours, bright)
    };
    let mut front_sign = 0.0;
    let painted_width = hi_n - lo_n;
    if let Some(band) = band.filter(|b| b.columns as f64 >= 0.25 * (hi_l - lo_l)) {
        front_sign = band.sign;
        if band.sign > 0.0 {
            hi_n += band.depth_px;
        } else {
            lo_n -= band.depth_px;
        }
    }
    // Sizes on the map plane, in inches, before the height correction.
    let length0 = (hi_l - lo_l + 1.0) / PX_PER_IN;
    let width0 = (hi_n - lo_n + 1.0) / PX_PER_IN;
    let thin_line = painted_width + 1.0 < 0.12 * PX_PER_IN;
    if thin_line || length0 > 1.5 * block.frontage_in {
        return None;
    }
    // Which shape and status fits the measured size best, once scaled back to its height.
    let (_, _, cam_h) = camera;
    let candidates = [
        (
            "block",
            Status::Fresh,
            block.frontage_in,
            block.depth_fresh_in,
            block.height_fresh_in,
        ),
        (
            "block",
            Status::Spent,
            block.frontage_in,
            block.depth_spent_in,
            block.height_spent_in,
        ),
        (
            "hq",
            Status::Fresh,
            hq.frontage_in,
            hq.depth_fresh_in,
            hq.height_fresh_in,
        ),
    ];
    let (kind, status, height, err) = candidates
        .iter()
        .map(|&(kind, status, f, d, h)| {
            let k = (cam_h - h) / cam_h;
            let err = ((length0 * k - f) / f).abs() + ((width0 * k - d) / d).abs();
            (kind, status, h, err)
        })
        .min_by(|a, b| a.3.total_cmp(&b.3))?;
    if err > 0.9 {
        return None;
    }
    let k = (cam_h - height) / cam_h;
    // The top face's centre, taken back down the camera's ray to the footprint.
    let mid_n = 0.5 * (lo_n + hi_n);
    let mid_l = 0.5 * (lo_l + hi_l);
    let top_centre = [
        (axes.centre[0] + mid_n * axes.normal[0] + mid_l * axes.along[0]) / PX_PER_IN,
        (axes.centre[1] + mid_n * axes.normal[1] + mid_l * axes.along[1]) / PX_PER_IN,
    ];
    let x_in = camera.0 + (top_centre[0] - camera.0) * k;
    let y_in = camera.1 + (top_centre[1] - camera.1) * k;
    // Heading: the normal toward the band; else away from the home edge.
    let (heading_deg, facing) = if kind == "hq" {
        // A cube looks the same from every side: its facing cannot be seen, and no rule
        // asks for it. It faces away from its home edge when that is known.
        match (options.facing_away)(colour) {
            Some(away) => (away, Facing::Inferred),
            None => (0.0, Facing::Unknown),
        }
    } else if front_sign != 0.0 {
        (heading_of(scale(axes.normal, front_sign)), Facing::Marked)
    } else {
        let n = heading_of(axes.normal);
        match (options.facing_away)(colour) {
            Some(away) => {
                let pick = if crate::geom::heading_difference(n, away) <= 90.0 {
                    n
                } else {
                    (n + 180.0).rem_euclid(360.0)
                };
                (pick, Facing::Inferred)
            }
            None => (n, Facing::Unknown),
        }
    };
    Some((
        DetectedPiece {
            kind: kind.to_owned(),
            color: colour.to_owned(),
            x_in,
            y_in,
            heading_deg,
            status,
            facing,
            length_in: length0 * k,
            width_in: width0 * k,
            confidence: (1.0 - err).clamp(0.0, 1.0),
        },
        bright,
    ))
}

struct Axes {
    centre: [f64; 2],
    /// Unit vector along the blob's long axis, and its normal.
    along: [f64; 2],
    normal: [f64; 2],
}

/// Centre and axes of a point set from its second moments.
fn principal_axes(points: &[[f64; 2]]) -> Axes {
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p[0] / n, y + p[1] / n));
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for p in points {
        let (dx, dy) = (p[0] - mx, p[1] - my);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
    Axes {
        centre: [mx, my],
        along: [angle.cos(), angle.sin()],
        normal: [-angle.sin(), angle.cos()],
    }
}

/// The facing band beside a painted top: which long side it is on, along how many
/// columns it was seen, and how deep it is (the median over those columns, so a
/// neighbour's band touching a few columns does not deepen it).
struct Band {
    sign: f64,
    columns: usize,
    depth_px: f64,
}

/// Look for the band beside both long sides of the painted top. The band is off-white:
/// unsaturated and brighter than the paint beside it, whatever the light is like in that
/// part of the frame. One mixed pixel at the paint's edge is stepped over.
fn band_beside(
    top: &[[f64; 2]],
    axes: &Axes,
    plane: &MapPlane,
    colours: &ColourModel,
    painted_v: f64,
) -> Option<Band> {
    let is_band = |rgb: [u8; 3]| {
        let hsv = Hsv::from_rgb(rgb);
        hsv.s <= colours.band_max_saturation
            && hsv.v >= colours.band_min_value.min(1.05 * painted_v)
    };
    let (lo_l, hi_l) = extent(top, axes.centre, axes.along);
    let (lo_n, hi_n) = extent(top, axes.centre, axes.normal);
    let reach = (0.45 * PX_PER_IN).ceil() as i32;
    let mut best: Option<Band> = None;
    for (edge, sign) in [(hi_n, 1.0), (lo_n, -1.0)] {
        let mut depths = Vec::new();
        for i in 0..=(hi_l - lo_l).ceil() as i32 {
            let l = lo_l + f64::from(i);
            let mut depth = 0;
            for j in 1..=reach {
                let nrm = edge + sign * f64::from(j);
                let x = (axes.centre[0] + l * axes.along[0] + nrm * axes.normal[0]).floor();
                let y = (axes.centre[1] + l * axes.along[1] + nrm * axes.normal[1]).floor();
                if x < 0.0 || y < 0.0 || x >= f64::from(plane.w) || y >= f64::from(plane.h) {
                    break;
                }
                if plane.at(x as u32, y as u32).is_some_and(is_band) {
                    depth = j;
                } else if j > 1 {
                    break;
                }
            }
            if depth > 0 {
                depths.push(f64::from(depth));
            }
        }
        if depths.len() > best.as_ref().map_or(0, |b| b.columns) {
            depths.sort_by(f64::total_cmp);
            best = Some(Band {
                sign,
                columns: depths.len(),
                depth_px: depths[depths.len() / 2],
            });
        }
    }
    best
}

/// The 2nd and 98th percentile of the points' offsets along `axis` from `centre`.
fn extent(points: &[[f64; 2]], centre: [f64; 2], axis: [f64; 2]) -> (f64, f64) {
    let mut d: Vec<f64> = points.iter().map(|p| dot(sub(*p, centre), axis)).collect();
    d.sort_by(f64::total_cmp);
    let pick = |q: f64| d[((d.len() - 1) as f64 * q).round() as usize];
    (pick(0.02), pick(0.98))
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn scale(a: [f64; 2], s: f64) -> [f64; 2] {
    [a[0] * s, a[1] * s]
}

/// The heading a map-plane direction points along (0 toward the map's top, clockwise).
fn heading_of(d: [f64; 2]) -> f64 {
    d[0].atan2(-d[1]).to_degrees().rem_euclid(360.0)
}
