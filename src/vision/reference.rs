//! The empty map: what the printed map looks like where nothing stands on it, so that
//! ink (a blue river, a red roof, a red-brown road) is never taken for a piece.
//!
//! A reference is the map plane at [`PX_PER_IN`], made from a photo of the empty table
//! (`aide calibrate map`) or from the scenario's map image. Neither is in the colours
//! this frame shows it in: the light falls off across the table, a lamp tints it, and a
//! map image's colours are the printer's, not the camera's. So each frame matches the
//! reference to itself first, from the coarse reads of bare map: a brightness per 2 in
//! cell (the light) times one tone curve per channel (camera and print). A pixel of a
//! side's paint or of paper that the matched reference explains, within a pixel of
//! where it should be, is ink.
//!
//! The live feed keeps a reference made by the camera up to date, and makes one where
//! none was given ([`MapReference::unseen`]): whenever the tracker settles on a table,
//! the map is learnt where no piece stands ([`MapReference::learn`]). A phantom a person
//! marks "not a piece" leaves the tracker's table, so its ink is learnt at the next
//! settled table and is not read as paint again.

use std::path::{Path, PathBuf};

use image::{RgbImage, RgbaImage};

use super::Calibration;
use super::detect::{PX_PER_IN, PlaneSampler};
use crate::geom::Footprint;
use crate::sim::MapTexture;

/// Cells of this many map-plane pixels each way (2 in) share one brightness.
const CELL_PX: u32 = 40;

/// The least bare-map reads a cell needs for a brightness of its own; one with fewer
/// takes the frame's.
const LEAST_CELL_READS: usize = 6;

/// The tone curve's bins, of 8 levels each.
const TONE_BINS: usize = 32;

/// A colour explains a read when every channel is within this many levels plus
/// [`TOLERANCE_SHARE`] of the expected value: sensor noise and JPEG, with room for a
/// tone curve fitted from a few thousand reads.
const TOLERANCE_LEVELS: f64 = 14.0;
const TOLERANCE_SHARE: f64 = 0.08;

/// A shadow darkens the map's ink in every channel alike, by at least this share and at
/// most [`DEEPEST_SHADE`]: ink seen this much darker is still ink. A lighter shade than
/// this is not allowed for: a block's paint can be a uniformly darker copy of the ink
/// below it (a blue block on a blue river), and its side in shade is darker still.
const LIGHTEST_SHADE: f64 = 0.75;
const DEEPEST_SHADE: f64 = 0.45;

/// The least correlation between the reference's brightness and the frame's, over the
/// coarse reads, for the reference to be this table's.
const LEAST_AGREEMENT: f64 = 0.5;

/// Why a reference cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    #[error(transparent)]
    Image(#[from] crate::sim::MapImageError),
    #[error("the reference {path} cannot be read: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "the reference {path} is the empty map of a {w_in} x {h_in} in map ({PX_PER_IN} px an inch), but this map is {map_w_in} x {map_h_in} in: photograph this map with `aide calibrate map`"
    )]
    OtherMap {
        path: PathBuf,
        w_in: f64,
        h_in: f64,
        map_w_in: f64,
        map_h_in: f64,
    },
}

/// The empty map on the detector's map plane.
#[derive(Clone)]
pub struct MapReference {
    image: RgbImage,
    /// Which pixels the reference knows, row by row: `None` when it knows them all (a
    /// map image, a photo of the empty table); else those seen bare so far.
    known: Option<Vec<bool>>,
    /// Whether the image is the camera's own view of the map (a photo of the empty
    /// table, or what the live feed learnt), which later frames may bring up to date. A
    /// map image is in the printer's colours, matched to the camera's through one tone
    /// curve: pixels in the camera's colours among them would bend that curve.
    camera_made: bool,
}

impl MapReference {
    /// The empty map as a map-plane image made by `aide calibrate map` (a PNG of
    /// exactly the plane's size), or as a map image (SVG, PNG or JPEG) registered to the
    /// map, whose shape must be the map's.
    pub fn from_file(path: &Path, map_w_in: f64, map_h_in: f64) -> Result<Self, ReferenceError> {
        let is_plane = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
            && image::image_dimensions(path)
                .is_ok_and(|size| size == plane_size(map_w_in, map_h_in));
        if is_plane {
            let image = image::open(path)
                .map_err(|e| ReferenceError::Unreadable {
                    path: path.to_path_buf(),
                    reason: e.to_string(),
                })?
                .into_rgb8();
            return Ok(Self::from_plane(image));
        }
        // The plane of another map, made by `aide calibrate map`: say so, rather than
        // that its shape is not the map's.
        if let Ok((got_w, got_h)) = image::image_dimensions(path)
            && got_w % PX_PER_IN as u32 == 0
            && got_h % PX_PER_IN as u32 == 0
            && got_w <= 120 * PX_PER_IN as u32
        {
            return Err(ReferenceError::OtherMap {
                path: path.to_path_buf(),
                w_in: f64::from(got_w) / PX_PER_IN,
                h_in: f64::from(got_h) / PX_PER_IN,
                map_w_in,
                map_h_in,
            });
        }
        let map = MapTexture::from_file(path, map_w_in, map_h_in)?;
        Ok(Self::from_texture(&map, map_w_in, map_h_in))
    }

    /// A printed map image sampled at the map plane's pixel centres.
    pub fn from_texture(map: &MapTexture, map_w_in: f64, map_h_in: f64) -> Self {
        let (w, h) = plane_size(map_w_in, map_h_in);
        let image = RgbImage::from_fn(w, h, |x, y| {
            let rgb = map.sample(
                (f64::from(x) + 0.5) / PX_PER_IN,
                (f64::from(y) + 0.5) / PX_PER_IN,
            );
            image::Rgb(rgb.map(|c| c.round().clamp(0.0, 255.0) as u8))
        });
        Self {
            image,
            known: None,
            camera_made: false,
        }
    }

    /// A map-plane view of the empty table (see [`super::plane::map_plane_view`]).
    pub fn from_plane(image: RgbImage) -> Self {
        Self {
            image,
            known: None,
            camera_made: true,
        }
    }

    /// A reference the live feed is to learn, knowing nothing of the map yet: until a
    /// settled table shows some of it bare, it explains no ink.
    pub fn unseen(map_w_in: f64, map_h_in: f64) -> Self {
        let (w, h) = plane_size(map_w_in, map_h_in);
        Self {
            image: RgbImage::new(w, h),
            known: Some(vec![false; (w * h) as usize]),
            camera_made: true,
        }
    }

    pub fn image(&self) -> &RgbImage {
        &self.image
    }

    /// The reference as one RGBA image: the colours, and an alpha of 255 where the
    /// reference knows the map, 0 where it does not. What [`Self::from_rgba`] reads back,
    /// to keep a learnt reference across a restart (see [`super::kept`]).
    pub fn to_rgba(&self) -> RgbaImage {
        let w = self.image.width();
        RgbaImage::from_fn(w, self.image.height(), |x, y| {
            let [r, g, b] = self.image.get_pixel(x, y).0;
            let known = self
                .known
                .as_ref()
                .is_none_or(|known| known[(y * w + x) as usize]);
            image::Rgba([r, g, b, if known { 255 } else { 0 }])
        })
    }

    /// A reference made by the camera, read back from [`Self::to_rgba`]: a pixel with an
    /// alpha of 128 or more is known. One that knows every pixel is a whole view of the
    /// map, as a photo of the empty table is.
    pub fn from_rgba(rgba: &RgbaImage) -> Self {
        let image = RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
            let [r, g, b, _] = rgba.get_pixel(x, y).0;
            image::Rgb([r, g, b])
        });
        let known: Vec<bool> = rgba.pixels().map(|p| p.0[3] >= 128).collect();
        Self {
            image,
            known: (!known.iter().all(|k| *k)).then_some(known),
            camera_made: true,
        }
    }

    /// Whether frames of the table may bring this reference up to date (see
    /// [`Self::learn`]): it was made by the camera, not printed.
    pub fn learns(&self) -> bool {
        self.camera_made
    }

    /// The share of the map the reference knows, 0 to 1.
    pub fn known_share(&self) -> f64 {
        self.known.as_ref().map_or(1.0, |known| {
            known.iter().filter(|k| **k).count() as f64 / known.len().max(1) as f64
        })
    }

    /// Learn the empty map from a frame of a settled table whose pieces stand on
    /// `pieces`: every map-plane pixel farther than [`UNLEARNT_AROUND_IN`] from them, read
    /// as the detector reads the map. Returns how many pixels were learnt (none for a
    /// printed reference, see [`Self::learns`]).
    ///
    /// A piece the detector never saw, standing still, is learnt as map where it
    /// stands; once it moves, the next settled table learns the bare map there again.
    pub fn learn(
        &mut self,
        image: &RgbImage,
        calib: &Calibration,
        sampler: &PlaneSampler,
        pieces: &[Footprint],
    ) -> usize {
        if !self.camera_made {
            return 0;
        }
        let (w, h) = self.image.dimensions();
        let covered = covered(pieces, w, h);
        let bare = |x: u32, y: u32| !covered[(y * w + x) as usize];
        let mut learnt = 0;
        sampler.read_plane(image, calib, &bare, &mut |x, y, rgb| {
            self.image.put_pixel(x, y, image::Rgb(rgb));
            if let Some(known) = &mut self.known {
                known[(y * w + x) as usize] = true;
            }
            learnt += 1;
        });
        learnt
    }

    fn at(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        let (w, h) = self.image.dimensions();
        let known = |x: u32, y: u32| {
            self.known
                .as_ref()
                .is_none_or(|known| known[(y * w + x) as usize])
        };
        (x < w && y < h && known(x, y)).then(|| self.image.get_pixel(x, y).0)
    }

    /// Match the reference to a frame from reads spread over the map: `(x, y, rgb,
    /// bare)` at map-plane pixels, `bare` where the colour reads as neither paint nor
    /// paper. The light is told by the bare map alone; the tone curve by every read, so
    /// that the map's own blues and reds are known (pieces cover too little of any
    /// printed colour to sway its median). `None` when too few reads, or when the
    /// reference does not look like this table (see [`LEAST_AGREEMENT`]).
    pub fn match_to(&self, reads: &[(u32, u32, [u8; 3], bool)]) -> Option<MatchedReference<'_>> {
        let (w, h) = self.image.dimensions();
        let (cells_w, cells_h) = (w.div_ceil(CELL_PX), h.div_ceil(CELL_PX));
        // The light: per cell, the median ratio of the frame's brightness to the
        // reference's.
        let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); (cells_w * cells_h) as usize];
        for &(x, y, rgb, _) in reads.iter().filter(|r| r.3) {
            let Some(r) = self.at(x, y) else { continue };
            let (seen, printed) = (brightness(rgb), brightness(r));
            if printed >= 40.0 {
                ratios[((y / CELL_PX) * cells_w + x / CELL_PX) as usize].push(seen / printed);
            }
        }
        let mut all: Vec<f64> = ratios.iter().flatten().copied().collect();
        if all.len() < 100 {
            return None;
        }
        let frame_light = median(&mut all);
        let light: Vec<f64> = ratios
            .into_iter()
            .map(|mut r| {
                if r.len() >= LEAST_CELL_READS {
                    median(&mut r)
                } else {
                    frame_light
                }
            })
            .collect();
        let mut matched = MatchedReference {
            reference: self,
            cells_w,
            light,
            tone: [[0.0; 256]; 3],
        };
        // The tone curve: per channel and bin of printed level, the median of what the
        // frame shows there, the light taken out.
        let mut bins: Vec<Vec<f64>> = vec![Vec::new(); 3 * TONE_BINS];
        for &(x, y, rgb, _) in reads {
            let Some(r) = self.at(x, y) else { continue };
            let light = matched.light_at(x, y);
            for c in 0..3 {
                bins[c * TONE_BINS + usize::from(r[c]) * TONE_BINS / 256]
                    .push(f64::from(rgb[c]) / light);
            }
        }
        for c in 0..3 {
            let mut known: Vec<(f64, f64)> = Vec::new();
            for b in 0..TONE_BINS {
                let values = &mut bins[c * TONE_BINS + b];
                if values.len() >= 4 {
                    known.push((bin_level(b), median(values)));
                }
            }
            for (level, tone) in matched.tone[c].iter_mut().enumerate() {
                *tone = interpolate(&known, level as f64 + 0.5);
            }
        }
        // Whether the reference shows this table at all: where it is darker or lighter,
        // so is the frame (the light taken out). Another map's rivers and roads lie
        // elsewhere, and its brightness tells nothing of this one's. (A fitted tone
        // curve would bend any map to fit, so the brightness is compared as it is.)
        let pairs: Vec<(f64, f64)> = reads
            .iter()
            .filter_map(|&(x, y, rgb, _)| {
                let r = self.at(x, y)?;
                Some((brightness(r), brightness(rgb) / matched.light_at(x, y)))
            })
            .collect();
        let agreement = correlation(&pairs);
        tracing::debug!(agreement, "map reference matched");
        if agreement < LEAST_AGREEMENT {
            tracing::warn!(
                agreement,
                "the map reference does not look like this table (another map, or the map has moved): not used"
            );
            return None;
        }
        Some(matched)
    }
}

/// A reference matched to one frame's light and camera.
pub struct MatchedReference<'a> {
    reference: &'a MapReference,
    cells_w: u32,
    light: Vec<f64>,
    /// Per channel, the frame's level (light taken out) for each printed level.
    tone: [[f64; 256]; 3],
}

impl MatchedReference<'_> {
    fn light_at(&self, x: u32, y: u32) -> f64 {
        self.light[((y / CELL_PX) * self.cells_w + x / CELL_PX) as usize]
    }

    /// Whether the reference knows what the bare map looks like at map-plane pixel
    /// (x, y).
    pub fn knows(&self, x: u32, y: u32) -> bool {
        self.reference.at(x, y).is_some()
    }

    /// Whether the reference knows every pixel of the map (a map image, a photo of the
    /// empty table): then no ink runs on past what it knows.
    pub fn knows_all(&self) -> bool {
        self.reference.known.is_none()
    }

    /// The colour the frame should show at map-plane pixel (x, y) if nothing stood there.
    fn expected(&self, x: u32, y: u32) -> Option<[f64; 3]> {
        let r = self.reference.at(x, y)?;
        let light = self.light_at(x, y);
        Some(std::array::from_fn(|c| {
            light * self.tone[c][usize::from(r[c])]
        }))
    }

    /// Whether the bare map explains colour `rgb` read at map-plane pixel (x, y): the
    /// expected colour there, or a pixel away (the camera's registration and the ink's
    /// blurred edges), is within tolerance in every channel, as it is or in a piece's
    /// shadow.
    pub fn explains(&self, x: u32, y: u32, rgb: [u8; 3]) -> bool {
        let near = |e: [f64; 3]| {
            (0..3).all(|c| {
                (f64::from(rgb[c]) - e[c]).abs() <= TOLERANCE_LEVELS + TOLERANCE_SHARE * e[c]
            })
        };
        let seen = rgb.map(f64::from);
        let in_shade = |e: [f64; 3]| {
            let shade = (0..3).map(|c| seen[c] * e[c]).sum::<f64>()
                / (0..3).map(|c| e[c] * e[c]).sum::<f64>().max(1.0);
            (DEEPEST_SHADE..=LIGHTEST_SHADE).contains(&shade) && near(e.map(|v| v * shade))
        };
        // The pixel itself first: most ink is explained there.
        const AROUND: [(i64, i64); 9] = [
            (0, 0),
            (-1, 0),
            (1, 0),
            (0, -1),
            (0, 1),
            (-1, -1),
            (1, -1),
            (-1, 1),
            (1, 1),
        ];
        AROUND.iter().any(|&(dx, dy)| {
            let (Ok(nx), Ok(ny)) = (u32::try_from(x as i64 + dx), u32::try_from(y as i64 + dy))
            else {
                return false;
            };
            self.expected(nx, ny)
                .is_some_and(|e| near(e) || in_shade(e))
        })
    }
}

/// How far around a piece's footprint the map is not learnt, in inches: the top of a
/// block 3/4 in high shows up to 0.65 in off its footprint at a map corner under a camera
/// 30 in up, its side faces fill the gap, and a lamp to one side casts its shadow about
/// as far again; the rest is the tracker's error.
const UNLEARNT_AROUND_IN: f64 = 1.0;

/// The map-plane pixels (row by row, [`PX_PER_IN`]) within [`UNLEARNT_AROUND_IN`] of a
/// piece's footprint.
fn covered(pieces: &[Footprint], w: u32, h: u32) -> Vec<bool> {
    let mut covered = vec![false; (w * h) as usize];
    for f in pieces {
        let (half_l, half_d) = (
            f.frontage_in / 2.0 + UNLEARNT_AROUND_IN,
            f.depth_in / 2.0 + UNLEARNT_AROUND_IN,
        );
        let reach = half_l.hypot(half_d);
        let range = |centre: f64, size: u32| {
            let lo = ((centre - reach) * PX_PER_IN).floor().max(0.0) as u32;
            let hi = (((centre + reach) * PX_PER_IN).ceil().max(0.0) as u32).min(size);
            lo..hi
        };
        for y in range(f.center.y, h) {
            for x in range(f.center.x, w) {
                let at = geo::coord! {
                    x: (f64::from(x) + 0.5) / PX_PER_IN,
                    y: (f64::from(y) + 0.5) / PX_PER_IN,
                };
                let (lateral, ahead) = f.to_local(at);
                if lateral.abs() <= half_l && ahead.abs() <= half_d {
                    covered[(y * w + x) as usize] = true;
                }
            }
        }
    }
    covered
}

/// Whether two neighbouring pixels' colours are one ink: every channel within the
/// tolerance the reference explains a read by.
pub fn same_ink(a: [u8; 3], b: [u8; 3]) -> bool {
    (0..3).all(|c| {
        let (a, b) = (f64::from(a[c]), f64::from(b[c]));
        (a - b).abs() <= TOLERANCE_LEVELS + TOLERANCE_SHARE * a.max(b)
    })
}

/// The map plane's size in pixels for a map.
pub fn plane_size(map_w_in: f64, map_h_in: f64) -> (u32, u32) {
    (
        (map_w_in * PX_PER_IN).round() as u32,
        (map_h_in * PX_PER_IN).round() as u32,
    )
}

fn brightness(rgb: [u8; 3]) -> f64 {
    rgb.iter().map(|&c| f64::from(c)).sum::<f64>() / 3.0
}

fn bin_level(b: usize) -> f64 {
    (b as f64 + 0.5) * 256.0 / TONE_BINS as f64
}

/// Linear between the known (level, value) points, and along the nearest two beyond
/// them; the identity where nothing is known.
fn interpolate(known: &[(f64, f64)], level: f64) -> f64 {
    match known {
        [] => level,
        [(l, v)] => v * level / l.max(1.0),
        _ => {
            let i = known
                .windows(2)
                .position(|p| level <= p[1].0)
                .unwrap_or(known.len() - 2);
            let ((l0, v0), (l1, v1)) = (known[i], known[i + 1]);
            (v0 + (v1 - v0) * (level - l0) / (l1 - l0)).max(0.0)
        }
    }
}

/// Pearson's correlation of the pairs; 0 when either side does not vary.
fn correlation(pairs: &[(f64, f64)]) -> f64 {
    let n = pairs.len() as f64;
    let (mx, my) = pairs
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return 0.0;
    }
    sxy / (sxx * syy).sqrt()
}

/// The median of some values (the upper one of an even count; NaN for none); `values`
/// is reordered.
pub(super) fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mid = values.len() / 2;
    *values.select_nth_unstable_by(mid, f64::total_cmp).1
}
