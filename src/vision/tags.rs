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

/// The frame in grey for apriltag (Rec. 601 weights in integers), rows padded to its
/// preferred stride.
fn gray_for_tags(image: &RgbImage) -> Result<Image, VisionError> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let stride = w.next_multiple_of(64);
    let mut gray =
        Image::zeros_with_stride(w, h, stride).map_err(|e| VisionError::Tags(e.to_string()))?;
    for (row_in, row_out) in image
        .as_raw()
        .chunks_exact(3 * w)
        .zip(gray.as_slice_mut().chunks_exact_mut(stride))
    {
        for (rgb, out) in row_in.chunks_exact(3).zip(row_out.iter_mut()) {
            let [r, g, b] = [rgb[0], rgb[1], rgb[2]].map(u32::from);
            *out = ((r * 77 + g * 150 + b * 29) >> 8) as u8;
        }
    }
    Ok(gray)
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
