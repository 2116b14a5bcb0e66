//! Finding the four corner tags in a frame, coarse to fine.
//!
//! apriltag's time goes on its quad search, which visits every pixel of a decimated copy
//! of the frame: the fewer pixels it searches, the faster. So the first pass searches a
//! copy about 480 pixels across, where a 1.5 in tag on a map filling the frame is still
//! 15 pixels or more, and only where the grey range is at least [`CONTRAST_FIRST`]. A
//! tag that pass misses (the far one on a tilted camera, or one in shade) is looked for
//! again in a window around where the other three put it, at twice the resolution. Only
//! when two or more are missing, or the window comes up empty, are whole-frame passes at
//! finer resolution run. Codes and corners are always read at full resolution:
//! decimation only speeds up the search for candidate quads.

use std::cell::RefCell;

use apriltag::detector::QuadThresholds;
use apriltag::{Detector, DetectorBuilder, Family, Image};
use image::RgbImage;
use measurements::Angle;
use nalgebra::Matrix3;
use noisy_float::types::r32;

use super::VisionError;
use super::calib::{TAG_SIZE_IN, apply, homography};

/// One tag as found in the frame, in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SeenTag {
    pub centre: [f64; 2],
    pub corners: [[f64; 2]; 4],
}

impl SeenTag {
    /// The tag's five points (centre, then corners) as map positions paired with where
    /// the frame shows them, for the tag centred at `map_centre`. Which seen corner is
    /// which map corner: the one nearest where `guess` (map to pixels) puts it, since
    /// the detector's corner order follows the tag's turn in the frame.
    pub fn points(&self, map_centre: [f64; 2], guess: &Matrix3<f64>) -> [([f64; 2], [f64; 2]); 5] {
        let [cx, cy] = map_centre;
        let h = TAG_SIZE_IN / 2.0;
        let mut points = [(map_centre, self.centre); 5];
        let map_corners = [
            [cx - h, cy - h],
            [cx + h, cy - h],
            [cx + h, cy + h],
            [cx - h, cy + h],
        ];
        for (point, corner) in points[1..].iter_mut().zip(map_corners) {
            let predicted = apply(guess, corner);
            let seen = self
                .corners
                .iter()
                .copied()
                .min_by(|a, b| distance(*a, predicted).total_cmp(&distance(*b, predicted)))
                .expect("four corners");
            *point = (corner, seen);
        }
        points
    }
}

/// The floor on the local grey range (max minus min over a 12-pixel neighbourhood of the
/// decimated copy) where the whole-frame search looks at all: black ink on a white card
/// clears it easily, most of a printed map does not.
const CONTRAST_FIRST: u8 = 60;
/// apriltag's own default for that floor: for a dim or washed-out card.
const CONTRAST_ANY: u8 = 5;

/// Decimated width of the first whole-frame pass, and of the finer ones after it.
const FIRST_PASS_PX: f32 = 480.0;
const FALLBACK_PX: f32 = 640.0;

/// Half the side of the window a missing tag is looked for in, as a share of the map's
/// diagonal in pixels. The prediction from the other three tags is off by up to 2% of
/// the diagonal on the renderer's cameras, and a card reaches 3.5% from its centre (see
/// `tests::the_window_predicted_from_the_other_three_tags_holds_the_missing_card`).
const WINDOW_HALF_OF_DIAGONAL: f64 = 0.1;

/// The four corner tags, by id; an error naming the ids seen when any is missing.
/// `map_centres` are the tags' centres in map inches, by id.
pub(super) fn find_corner_tags(
    image: &RgbImage,
    map_centres: [[f64; 2]; 4],
) -> Result<[SeenTag; 4], VisionError> {
    let gray = gray_for_tags(image)?;
    let width = image.width() as f32;
    let mut found = Found::default();
    let first = (width / FIRST_PASS_PX).floor().max(1.0);
    found.add(search(&gray, None, first, CONTRAST_FIRST)?);
    if let Some(id) = (0..4).find(|&id| found.tags[id].is_none())
        && let Some(window) = found.window_for(id, &map_centres, (gray.width(), gray.height()))
    {
        let finer = (first / 2.0).floor().max(1.0);
        found.add(search(&gray, Some(window), finer, CONTRAST_ANY)?);
    }
    let fallback = (width / FALLBACK_PX).floor().max(1.0);
    for (decimation, contrast) in [
        (fallback, CONTRAST_FIRST),
        (fallback, CONTRAST_ANY),
        ((fallback / 2.0).floor().max(1.0), CONTRAST_ANY),
    ] {
        if found.count() == 4 {
            break;
        }
        found.add(search(&gray, None, decimation, contrast)?);
    }
    let seen: Vec<usize> = (0..4).filter(|&i| found.tags[i].is_some()).collect();
    if seen.len() < 4 {
        return Err(VisionError::TagsNotFound { seen });
    }
    Ok(found.tags.map(|t| t.expect("checked above").1))
}

/// The best sighting of each tag so far, with apriltag's decision margin.
#[derive(Default)]
struct Found {
    tags: [Option<(f32, SeenTag)>; 4],
}

impl Found {
    fn count(&self) -> usize {
        self.tags.iter().flatten().count()
    }

    /// Keep each sighting of ids 0 to 3 that is surer than the one held.
    fn add(&mut self, sightings: Vec<(usize, f32, SeenTag)>) {
        for (id, margin, tag) in sightings {
            if let Some(slot) = self.tags.get_mut(id)
                && slot.is_none_or(|(m, _)| margin > m)
            {
                *slot = Some((margin, tag));
            }
        }
    }

    /// The window of a `frame_w` x `frame_h` frame where tag `id` should be, when the
    /// three others are found ([`Found::predict`]).
    fn window_for(
        &self,
        id: usize,
        map_centres: &[[f64; 2]; 4],
        (frame_w, frame_h): (usize, usize),
    ) -> Option<Window> {
        let ([u, v], half) = self.predict(id, map_centres)?;
        let clamp = |v: f64, max: usize| v.clamp(0.0, max as f64) as usize;
        let window = Window {
            x0: clamp(u - half, frame_w),
            y0: clamp(v - half, frame_h),
            x1: clamp(u + half, frame_w),
            y1: clamp(v + half, frame_h),
        };
        (window.x1 > window.x0 + 8 && window.y1 > window.y0 + 8).then_some(window)
    }

    /// Where tag `id` should be, and the half side of the square to search around it,
    /// in pixels, when the three others are found: the homography through their
    /// fifteen points. (Their layout alone, an affine map, misses a tilted camera's
    /// keystone by up to a fifth of the map.)
    fn predict(&self, id: usize, map_centres: &[[f64; 2]; 4]) -> Option<([f64; 2], f64)> {
        let known: Vec<([f64; 2], SeenTag)> = (0..4)
            .filter_map(|k| self.tags[k].map(|(_, t)| (map_centres[k], t)))
            .collect();
        let [a, b, c] = known.as_slice() else {
            return None;
        };
        let layout = affine_through([(a.0, a.1.centre), (b.0, b.1.centre), (c.0, c.1.centre)])?;
        let (map, pixels): (Vec<_>, Vec<_>) = known
            .iter()
            .flat_map(|(centre, tag)| tag.points(*centre, &layout))
            .unzip();
        let to_pixels = homography(&map, &pixels).ok()?;
        let diagonal = distance(
            apply(&to_pixels, map_centres[0]),
            apply(&to_pixels, map_centres[2]),
        );
        Some((
            apply(&to_pixels, map_centres[id]),
            WINDOW_HALF_OF_DIAGONAL * diagonal,
        ))
    }
}

/// The affine map (as a matrix with last row 0 0 1) taking three map points to three
/// pixels; `None` when the points are in a line.
fn affine_through(pairs: [([f64; 2], [f64; 2]); 3]) -> Option<Matrix3<f64>> {
    let map = Matrix3::from_fn(|r, c| match c {
        2 => 1.0,
        _ => pairs[r].0[c],
    });
    let pixels = Matrix3::from_fn(|r, c| match c {
        2 => 1.0,
        _ => pairs[r].1[c],
    });
    // map * A^T = pixels, row by row.
    Some((map.try_inverse()? * pixels).transpose())
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// A part of the frame, in pixels: columns x0..x1, rows y0..y1.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Window {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
}

thread_local! {
    /// Building a tag36h11 detector fills its code table, a fifth of a millisecond: each
    /// thread keeps one and sets its decimation and contrast floor per pass.
    static DETECTOR: RefCell<Option<Detector>> = const { RefCell::new(None) };
}

/// The tags apriltag finds in `window` of the frame (all of it when `None`), searching
/// for quads at `decimation` where the local grey range reaches `min_contrast`: id,
/// decision margin and the tag in frame pixels.
fn search(
    gray: &Image,
    window: Option<Window>,
    decimation: f32,
    min_contrast: u8,
) -> Result<Vec<(usize, f32, SeenTag)>, VisionError> {
    let crop;
    let (image, offset) = match window {
        Some(w) => {
            crop = cropped(gray, w)?;
            (&crop, [w.x0 as f64, w.y0 as f64])
        }
        None => (gray, [0.0, 0.0]),
    };
    DETECTOR.with_borrow_mut(|slot| {
        let detector = match slot {
            Some(d) => d,
            None => slot.insert(
                DetectorBuilder::new()
                    .add_family_bits(Family::tag_36h11(), 1)
                    .build()
                    .map_err(|e| VisionError::Tags(e.to_string()))?,
            ),
        };
        detector.set_decimation(decimation);
        detector.set_refine_edges(true);
        detector.set_thresholds(QuadThresholds {
            min_cluster_pixels: 5,
            max_maxima_number: 10,
            min_angle: Angle::from_degrees(10.0),
            // apriltag-rs 0.4 hands this value to the C field `cos_critical_rad` as it
            // is, in radians: passing the cosine of apriltag's 10 degrees keeps its
            // default.
            min_opposite_angle: Angle::from_radians(10f64.to_radians().cos()),
            max_mse: r32(10.0),
            min_white_black_diff: min_contrast,
            deglitch: false,
        });
        let shift = |[x, y]: [f64; 2]| [x + offset[0], y + offset[1]];
        Ok(detector
            .detect(image)
            .iter()
            .map(|d| {
                let tag = SeenTag {
                    centre: shift(d.center()),
                    corners: d.corners().map(shift),
                };
                (d.id(), d.decision_margin(), tag)
            })
            .collect())
    })
}

/// A copy of `window` of the grey frame.
fn cropped(gray: &Image, w: Window) -> Result<Image, VisionError> {
    let (cw, ch) = (w.x1 - w.x0, w.y1 - w.y0);
    let stride = cw.next_multiple_of(64);
    let mut crop =
        Image::zeros_with_stride(cw, ch, stride).map_err(|e| VisionError::Tags(e.to_string()))?;
    let source = gray.as_slice();
    for (y, row) in crop.as_slice_mut().chunks_exact_mut(stride).enumerate() {
        let from = (w.y0 + y) * gray.stride() + w.x0;
        row[..cw].copy_from_slice(&source[from..from + cw]);
    }
    Ok(crop)
}

/// The frame in grey for apriltag (Rec. 601 weights in integers, [`grey`]), rows padded
/// to its preferred stride. (Writing each frame over the last one's grey buffer saved
/// its page faults, but raised the benchmark's peak memory from 78 to 108 MiB.)
fn gray_for_tags(image: &RgbImage) -> Result<Image, VisionError> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let stride = w.next_multiple_of(64);
    let mut gray =
        Image::zeros_with_stride(w, h, stride).map_err(|e| VisionError::Tags(e.to_string()))?;
    let avx2 = has_avx2();
    for (row_in, row_out) in image
        .as_raw()
        .chunks_exact(3 * w)
        .zip(gray.as_slice_mut().chunks_exact_mut(stride))
    {
        let row_out = &mut row_out[..w];
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { grey_row_avx2(row_in, row_out) };
            continue;
        }
        grey_row(row_in, row_out);
    }
    Ok(gray)
}

/// Whether the CPU can run [`grey_row_avx2`] (the standard library caches the answer).
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// One pixel's grey: Rec. 601 weights in 256ths. The weighted sum is at most
/// 256 * 255, so sixteen bits hold it, and sixteen-bit lanes let the compiler work on
/// sixteen pixels at once.
fn grey([r, g, b]: [u8; 3]) -> u8 {
    ((u16::from(r) * 77 + u16::from(g) * 150 + u16::from(b) * 29) >> 8) as u8
}

/// Pixels [`grey_row`] converts a step: a whole number of 256-bit registers of
/// sixteen-bit lanes, enough for the compiler to unzip the RGB bytes with shuffles.
const GREY_STEP: usize = 32;

/// One row of RGB bytes in grey, [`GREY_STEP`] pixels a step.
#[inline(always)]
fn grey_row(rgb: &[u8], out: &mut [u8]) {
    let mut rgb_steps = rgb.chunks_exact(3 * GREY_STEP);
    let mut out_steps = out.chunks_exact_mut(GREY_STEP);
    for (rgb, out) in (&mut rgb_steps).zip(&mut out_steps) {
        for (i, value) in out.iter_mut().enumerate() {
            *value = grey([rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]]);
        }
    }
    for (rgb, value) in rgb_steps
        .remainder()
        .chunks_exact(3)
        .zip(out_steps.into_remainder())
    {
        *value = grey([rgb[0], rgb[1], rgb[2]]);
    }
}

/// [`grey_row`] compiled for AVX2: about three times as fast as the baseline x86-64
/// build of the same loop (1.6 to 0.5 ms a 1080p frame), the grey conversion being
/// over a third of the tag search's time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn grey_row_avx2(rgb: &[u8], out: &mut [u8]) {
    grey_row(rgb, out);
}

#[cfg(test)]
mod tests {
    use nalgebra::Point3;

    use super::{Found, SeenTag};
    use crate::sim;
    use crate::vision::calib::{TAG_SIZE_IN, tag_centres};

    /// On every camera the renderer places (24 to 36 in up, up to 6 in off-centre and
    /// looking at the map's centre, turned, with lens distortion), and with the tag
    /// corners 0.3 px off as the detector may see them, the window predicted from any
    /// three tags holds the fourth tag's whole card with room to spare.
    #[test]
    fn the_window_predicted_from_the_other_three_tags_holds_the_missing_card() {
        let centres = tag_centres(36.0, 24.0);
        let mut least_room = f64::INFINITY;
        for seed in 0..200 {
            let camera = sim::random_scene(seed, 36.0, 24.0, 1920, 1080).pinhole();
            let mut noise = sim_noise(seed);
            let mut seen = |[x, y]: [f64; 2], wobble: f64| {
                let (u, v) = camera.project(Point3::new(x, y, 0.0)).expect("in front");
                [u + wobble * noise(), v + wobble * noise()]
            };
            let h = TAG_SIZE_IN / 2.0;
            let tags: Vec<SeenTag> = centres
                .iter()
                .map(|&[cx, cy]| SeenTag {
                    centre: seen([cx, cy], 0.3),
                    // The detector's own order: starting at the bottom-left.
                    corners: [[-h, h], [h, h], [h, -h], [-h, -h]]
                        .map(|[dx, dy]| seen([cx + dx, cy + dy], 0.3)),
                })
                .collect();
            for missing in 0..4 {
                let mut found = Found::default();
                for k in (0..4).filter(|&k| k != missing) {
                    found.tags[k] = Some((100.0, tags[k]));
                }
                let ([pu, pv], half) = found.predict(missing, &centres).expect("a prediction");
                let [cx, cy] = centres[missing];
                for [dx, dy] in [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]] {
                    let [u, v] = seen([cx + dx, cy + dy], 0.0);
                    let reach = (u - pu).abs().max((v - pv).abs());
                    least_room = least_room.min(1.0 - reach / half);
                }
            }
        }
        assert!(
            least_room > 0.3,
            "a card corner comes within {:.0}% of the window's half side of its edge",
            100.0 * least_room
        );
    }

    /// The grey frame is Rec. 601 in 256ths, `(77 r + 150 g + 29 b) >> 8`, for every
    /// pixel, whichever path converts its row (the AVX2 one, the baseline one, the
    /// remainder of a row past the last whole step).
    #[test]
    fn the_grey_frame_is_rec_601_in_every_pixel() {
        let mut noise = sim_noise(3);
        for (w, h) in [(67, 5), (64, 3), (32 * 9 + 31, 4), (1, 2)] {
            let image = image::RgbImage::from_fn(w, h, |_, _| {
                image::Rgb([0; 3].map(|_: u8| (128.0 + 128.0 * noise()).min(255.0) as u8))
            });
            let gray = super::gray_for_tags(&image).expect("a grey frame");
            let reference = |x: u32, y: u32| {
                let [r, g, b] = image.get_pixel(x, y).0.map(u32::from);
                ((r * 77 + g * 150 + b * 29) >> 8) as u8
            };
            for y in 0..h {
                for x in 0..w {
                    let at = y as usize * gray.stride() + x as usize;
                    assert_eq!(gray.as_slice()[at], reference(x, y), "{w}x{h}: ({x}, {y})");
                }
            }
            let mut baseline = vec![0; w as usize];
            super::grey_row(&image.as_raw()[..3 * w as usize], &mut baseline);
            assert!((0..w).all(|x| baseline[x as usize] == reference(x, 0)));
        }
        // Every value of each channel, the others at their extremes.
        for v in 0..=255u8 {
            for [r, g, b] in [
                [v, 0, 0],
                [0, v, 0],
                [0, 0, v],
                [v, 255, 255],
                [255, v, 255],
            ] {
                let (r32, g32, b32) = (u32::from(r), u32::from(g), u32::from(b));
                let expected = ((r32 * 77 + g32 * 150 + b32 * 29) >> 8) as u8;
                assert_eq!(super::grey([r, g, b]), expected);
            }
        }
    }

    /// Uniform noise in [-1, 1], repeatable by seed.
    fn sim_noise(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }
}
