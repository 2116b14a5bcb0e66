//! Is the camera set up well enough? One frame, its corner cards, and what the player
//! should change, in words: what `aide camera-check` prints and the page's camera step
//! shows.
//!
//! Per card: whether it was found, where its tag is in the picture, how many pixels an
//! inch of map gets there, how sharp the tag's edges are and how bright its white. From
//! the camera pose the tags give: the accuracy to expect at the map corner farthest from
//! the point under the camera, where it is worst, from three causes:
//! - resolution: a block's edge is placed to about half a pixel, so half a pixel in
//!   inches at that corner;
//! - lens: without a camera file the lens is taken as distortion-free, and what that
//!   costs shows as the tags' misfit (their reprojection error), in inches there;
//! - parallax: a block's top is 3/4 in above the map and seen displaced away from the
//!   point under the camera; the detector moves it back using the camera height it
//!   measures, so what remains is that displacement times the height's error, taken as
//!   5 %.

use image::{GrayImage, RgbImage};
use nalgebra::Point3;
use serde::Serialize;

use super::calib::{TAG_SIZE_IN, tag_points};
use super::detect::card_levels;
use super::{Calibration, Intrinsics, VisionError};

/// The tag corners' names, by id.
const CORNERS: [&str; 4] = ["top-left", "top-right", "bottom-right", "bottom-left"];
/// Below this many pixels an inch at the far corner, half a pixel is over 1/32 in.
const LEAST_PPI: f64 = 16.0;
/// A tag edge spread over more pixels than this is out of focus (a focused 1080p webcam
/// spreads it over 1.5 to 2.5).
const MOST_EDGE_PX: f64 = 3.5;
/// The white of a card below this grey level (0-255) is too dark to read colours well.
const LEAST_WHITE: f64 = 90.0;
/// The tags' black reading paler than this share of the cards' white, as the detector
/// reads them ([`card_levels`]), is a flatter picture than the detector was measured on:
/// it deepens a black up to 0.33 of the white (the photoreal frames read with every
/// value v as 40 + 0.84 v) back to 0.18, and a paler one is a camera set too bright or
/// flat, glare, or a pale print.
const MOST_BLACK_SHARE: f64 = 0.35;
/// Past this the far corner's parallax is large: the camera is low or far off-centre (a
/// camera 24 in over the middle of a 36x24 map sees 0.7 in there).
const MOST_PARALLAX_IN: f64 = 1.0;
/// A block's top over the map (fresh block, the tallest piece).
const BLOCK_TOP_IN: f64 = 0.75;

#[derive(Debug, Clone, Serialize)]
pub struct Card {
    pub id: usize,
    pub corner: &'static str,
    pub found: bool,
    /// Pixels an inch of map gets at the card.
    pub px_per_in: Option<f64>,
    /// How many pixels a tag's black-white edge is spread over (lower is sharper).
    pub edge_px: Option<f64>,
    /// The grey level of the card's white (0-255).
    pub white: Option<f64>,
    /// The grey level of its tag's black border (0-255).
    pub black: Option<f64>,
    /// The tag's corners in the picture (pixels), for drawing it.
    pub outline_px: Option<[[f64; 2]; 4]>,
}

/// What the check found, and what to fix.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub frame: (u32, u32),
    pub cards: Vec<Card>,
    /// Where the camera is: over which map point, and how high (inches).
    pub camera_over_in: Option<(f64, f64, f64)>,
    pub far_corner_in: Option<(f64, f64)>,
    pub far_px_per_in: Option<f64>,
    pub resolution_in: Option<f64>,
    pub lens_in: Option<f64>,
    pub parallax_in: Option<f64>,
    pub parallax_left_in: Option<f64>,
    /// The three together (root of the sum of squares).
    pub expected_in: Option<f64>,
    pub fix: Vec<String>,
    /// A webcam's controls held: which it took and which it refused.
    pub controls: Vec<String>,
}

/// Check `image` of a `map_w` x `map_h` in map, with the lens if known.
pub fn check(image: &RgbImage, map_w: f64, map_h: f64, intrinsics: Option<Intrinsics>) -> Report {
    let gray = image::imageops::grayscale(image);
    let raw = Intrinsics::ideal(f64::from(image.width()), image.width(), image.height());
    let mut fix = Vec::new();
    let (seen, points) = match tag_points(image, map_w, map_h, &raw) {
        Ok((_, img)) => ((0..4).collect::<Vec<_>>(), Some(img)),
        Err(VisionError::TagsNotFound { seen }) => (seen, None),
        Err(_) => (Vec::new(), None),
    };
    let mut cards: Vec<Card> = (0..4)
        .map(|id| Card {
            id,
            corner: CORNERS[id],
            found: seen.contains(&id),
            px_per_in: None,
            edge_px: None,
            white: None,
            black: None,
            outline_px: None,
        })
        .collect();
    for card in cards.iter().filter(|c| !c.found) {
        fix.push(format!(
            "card {} ({}) is hidden or out of the picture: uncover it, or raise the camera \
             until all four cards are in view",
            card.id, card.corner
        ));
    }
    if let Some(points) = &points {
        // Five points a tag, in id order: the centre, then its corners.
        for (card, tag) in cards.iter_mut().zip(points.chunks(5)) {
            let corners = &tag[1..];
            card.outline_px = Some([corners[0], corners[1], corners[2], corners[3]]);
            let side_px = (0..4)
                .map(|i| distance(corners[i], corners[(i + 1) % 4]))
                .sum::<f64>()
                / 4.0;
            card.px_per_in = Some(round2(side_px / TAG_SIZE_IN));
            let (edge, white, black) = edge_and_levels(&gray, corners);
            card.edge_px = edge.map(round2);
            card.white = white.map(|w| w.round());
            card.black = black.map(|b| b.round());
        }
    }
    for card in &cards {
        if let Some(edge) = card.edge_px
            && edge > MOST_EDGE_PX
        {
            fix.push(format!(
                "card {} ({}) is blurred (edges spread over {edge:.1} px): refocus the camera \
                 on the map, or clean the lens",
                card.id, card.corner
            ));
        }
        if let Some(white) = card.white
            && white < LEAST_WHITE
        {
            fix.push(format!(
                "card {} ({}) is dark (its white is grey level {white:.0}): more light on the \
                 table",
                card.id, card.corner
            ));
        }
    }
    let mut report = Report {
        frame: image.dimensions(),
        cards,
        camera_over_in: None,
        far_corner_in: None,
        far_px_per_in: None,
        resolution_in: None,
        lens_in: None,
        parallax_in: None,
        parallax_left_in: None,
        expected_in: None,
        fix,
        controls: Vec::new(),
    };
    if points.is_none() {
        return report;
    }
    let Ok(calib) = Calibration::from_image(image, map_w, map_h, intrinsics) else {
        report
            .fix
            .push("the cards do not fit a flat map of this size: check --map".into());
        return report;
    };
    // The cards as the detector reads them: its black is taken off up to this share.
    let levels = card_levels(image, &calib);
    let (black, white) = (grey(levels.tag), grey(levels.white));
    if white > 0.0 && black / white > MOST_BLACK_SHARE {
        report.fix.push(format!(
            "the picture is flat: the tags' black reads grey level {black:.0} against the \
             cards' {white:.0} ({:.2} of it): lower the camera's brightness or contrast \
             setting, shade the lens from glare, or reprint the cards at best quality on \
             matte paper",
            black / white
        ));
    }
    let (cx, cy, height) = calib.camera_over();
    let far = [[0.0, 0.0], [map_w, 0.0], [map_w, map_h], [0.0, map_h]]
        .into_iter()
        .max_by(|a, b| distance(*a, [cx, cy]).total_cmp(&distance(*b, [cx, cy])))
        .expect("four corners");
    let camera = calib.camera;
    // Pixels an inch there: the shorter of a step along x and along y, inward.
    let step = |dx: f64, dy: f64| -> Option<f64> {
        let a = camera.project(Point3::new(far[0], far[1], 0.0))?;
        let b = camera.project(Point3::new(far[0] + dx, far[1] + dy, 0.0))?;
        Some(distance([a.0, a.1], [b.0, b.1]))
    };
    let inward_x = if far[0] > 0.0 { -1.0 } else { 1.0 };
    let inward_y = if far[1] > 0.0 { -1.0 } else { 1.0 };
    let Some(ppi) = step(inward_x, 0.0)
        .zip(step(0.0, inward_y))
        .map(|(a, b)| a.min(b))
    else {
        return report;
    };
    let resolution = 0.5 / ppi;
    let lens = if calib.focal_from_file {
        0.0
    } else {
        calib.reprojection_px / ppi
    };
    let parallax = BLOCK_TOP_IN * distance(far, [cx, cy]) / (height - BLOCK_TOP_IN).max(1.0);
    let parallax_left = 0.05 * parallax;
    let expected = (resolution.powi(2) + lens.powi(2) + parallax_left.powi(2)).sqrt();
    report.camera_over_in = Some((round2(cx), round2(cy), round2(height)));
    report.far_corner_in = Some((far[0], far[1]));
    report.far_px_per_in = Some(round2(ppi));
    report.resolution_in = Some(round3(resolution));
    report.lens_in = Some(round3(lens));
    report.parallax_in = Some(round3(parallax));
    report.parallax_left_in = Some(round3(parallax_left));
    report.expected_in = Some(round3(expected));
    if ppi < LEAST_PPI {
        report.fix.push(format!(
            "{ppi:.0} pixels an inch at the far corner: use a higher resolution (1080p or 4K), \
             or bring the camera nearer that corner"
        ));
    }
    if parallax > MOST_PARALLAX_IN {
        report.fix.push(format!(
            "the camera is {height:.0} in up and far from the middle: raise the camera, or \
             move it over the map's centre (a block's top shows {parallax:.2} in off at the far \
             corner)"
        ));
    }
    if !calib.focal_from_file && calib.reprojection_px > 1.5 {
        report.fix.push(format!(
            "the lens bends the picture (the cards misfit by {:.1} px): make a camera file \
             (hardware.md) and give it with --camera-file",
            calib.reprojection_px
        ));
    }
    report
}

/// How many pixels a tag's border edge spreads over, the grey of the card's white around
/// it and of the border's black: from the grey levels on a line across the middle of
/// each side, where the black border meets the white card.
fn edge_and_levels(
    gray: &GrayImage,
    corners: &[[f64; 2]],
) -> (Option<f64>, Option<f64>, Option<f64>) {
    let centre = [
        corners.iter().map(|c| c[0]).sum::<f64>() / 4.0,
        corners.iter().map(|c| c[1]).sum::<f64>() / 4.0,
    ];
    let mut edges = Vec::new();
    let mut whites = Vec::new();
    let mut blacks = Vec::new();
    for side in 0..4 {
        // The middle of a side, and the line across it from inside to outside.
        let a = corners[side];
        let b = corners[(side + 1) % 4];
        let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
        let out = [mid[0] - centre[0], mid[1] - centre[1]];
        let len = (out[0].powi(2) + out[1].powi(2)).sqrt();
        if len < 4.0 {
            continue;
        }
        let dir = [out[0] / len, out[1] / len];
        // From the middle of the black border (an eighth of the tag wide) to as far
        // out on the card's white margin.
        let reach = len / 8.0;
        let profile: Vec<f64> = (-(reach.ceil()) as i64..=reach.ceil() as i64)
            .filter_map(|t| {
                let x = mid[0] + dir[0] * t as f64;
                let y = mid[1] + dir[1] * t as f64;
                (x >= 0.0 && y >= 0.0 && (x as u32) < gray.width() && (y as u32) < gray.height())
                    .then(|| f64::from(gray.get_pixel(x as u32, y as u32)[0]))
            })
            .collect();
        if profile.len() < 4 {
            continue;
        }
        let lo = profile.iter().copied().fold(f64::MAX, f64::min);
        let hi = profile.iter().copied().fold(f64::MIN, f64::max);
        if hi - lo < 20.0 {
            continue;
        }
        // A step from black to white in one pixel is an edge 1 px wide; blurred over k
        // pixels, the steepest step is about a k-th of the rise.
        let steepest = profile
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f64::max);
        edges.push((hi - lo) / steepest);
        whites.push(hi);
        blacks.push(lo);
    }
    let median = |mut v: Vec<f64>| {
        (!v.is_empty()).then(|| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
    };
    (median(edges), median(whites), median(blacks))
}

/// The mean of three channels.
fn grey(rgb: [f64; 3]) -> f64 {
    rgb.iter().sum::<f64>() / 3.0
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}
