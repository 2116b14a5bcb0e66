//! Learning a table's colours from one frame: a person names where one block of each
//! side stands, and the paint seen there becomes that side's colour window.

use image::RgbImage;
use nalgebra::Point3;

use super::Calibration;
use super::colour::{ColourModel, Hsv, SideColour, hue_distance};
use super::detect::{bilinear, white_balance};

/// Why a colour could not be learnt at a place.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LearnError {
    #[error(
        "{side}: no painted block at ({x_in}, {y_in}): too few pixels there are saturated enough to be paint"
    )]
    NoPaint { side: String, x_in: f64, y_in: f64 },
}

/// A block's painted top, sampled around the map point where its footprint centre is
/// (the top face stands 3/4 in up at most, so it is looked for where the camera sees
/// it), white-balanced on the corner cards as the detector sees it.
fn paint_near(image: &RgbImage, calib: &Calibration, x_in: f64, y_in: f64) -> Vec<Hsv> {
    let levels = white_balance(image, calib);
    let (cx, cy, ch) = calib.camera_over();
    let mut out = Vec::new();
    // Within half an inch of where the camera sees a standing block's top centre: the
    // painted back half of the top is in it whichever way the block faces.
    let k = ch / (ch - 0.75);
    let (tx, ty) = (cx + (x_in - cx) * k, cy + (y_in - cy) * k);
    for i in -20..=20 {
        for j in -20..=20 {
            let (dx, dy) = (f64::from(i) * 0.025, f64::from(j) * 0.025);
            let (x, y) = (tx + dx, ty + dy);
            let on_map = (0.0..=calib.map_w_in).contains(&x) && (0.0..=calib.map_h_in).contains(&y);
            if dx.hypot(dy) > 0.5 || !on_map {
                continue;
            }
            let p = Point3::new(x, y, 0.0);
            if let Some(rgb) = calib
                .camera
                .project(p)
                .and_then(|(u, v)| bilinear(image, u, v))
            {
                out.push(Hsv::from_rgb(levels.apply(rgb)));
            }
        }
    }
    out
}

/// A colour model with one side per named place (`(side, x_in, y_in)`), each window
/// wide enough for the paint seen there and a margin for light across the table.
pub fn learn(
    image: &RgbImage,
    calib: &Calibration,
    places: &[(String, f64, f64)],
) -> Result<ColourModel, LearnError> {
    let defaults = ColourModel::builtin();
    let mut sides = Vec::new();
    for (side, x_in, y_in) in places {
        // Paint is saturated (the map's canvas, woods and water are not). A block's
        // painted top is about a third of the circle looked at; a tenth will do.
        let seen = paint_near(image, calib, *x_in, *y_in);
        let saturated: Vec<Hsv> = seen.iter().copied().filter(|h| h.s >= 0.45).collect();
        // The dominant paint: within 30 degrees of the saturated pixels' mean hue (a
        // neighbour of another side at the circle's edge is left out).
        let first = circular_mean(&saturated);
        let paint: Vec<Hsv> = saturated
            .into_iter()
            .filter(|h| hue_distance(h.h, first) <= 30.0)
            .collect();
        if paint.len() * 10 < seen.len() {
            return Err(LearnError::NoPaint {
                side: side.clone(),
                x_in: *x_in,
                y_in: *y_in,
            });
        }
        let hue = circular_mean(&paint);
        let mut spread: Vec<f64> = paint.iter().map(|h| hue_distance(h.h, hue)).collect();
        spread.sort_by(f64::total_cmp);
        let low = |f: fn(&Hsv) -> f64| {
            let mut v: Vec<f64> = paint.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 20]
        };
        sides.push(SideColour {
            name: side.clone(),
            hue_deg: hue,
            // The paint's own spread, doubled, and never under 8 degrees.
            hue_tolerance_deg: (2.0 * spread[spread.len() * 95 / 100]).max(8.0),
            // Shade across the table: 70% of the palest and darkest paint seen here.
            min_saturation: 0.7 * low(|h| h.s),
            min_value: 0.6 * low(|h| h.v),
        });
    }
    Ok(ColourModel { sides, ..defaults })
}

/// The mean hue of a set of colours, degrees (0 for none).
fn circular_mean(colours: &[Hsv]) -> f64 {
    let (x, y) = colours.iter().fold((0.0, 0.0), |(x, y), h| {
        (x + h.h.to_radians().cos(), y + h.h.to_radians().sin())
    });
    y.atan2(x).to_degrees().rem_euclid(360.0)
}
