//! Finding the pieces: the frame is resampled onto the map plane, painted pixels are
//! grouped into blobs per side, and each blob's lit top face is measured.
//!
//! Working on the map plane (not the raw frame) makes every block the same size in
//! pixels wherever it stands and whatever the camera's tilt, so sizes decide what a blob
//! is. The camera sees a block's top face, not its footprint: the top face stands 3/4 in
//! (fresh) or 3/8 in (spent, HQ) above the map, so on the map plane it appears enlarged
//! by H / (H - h) about the point under the camera and pushed away from it. Both are
//! undone once the blob's width has told its height.

use std::sync::OnceLock;

use image::RgbImage;
use imageproc::region_labelling::{Connectivity, connected_components};
use nalgebra::Point3;
use serde::{Deserialize, Serialize};

use super::calib::Calibration;
use super::colour::{ColourModel, Hsv, SKIN_MIN_SATURATION, is_skin};
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

/// The word the JSON uses ("marked", "inferred", "unknown"), so a person reads the same.
impl std::fmt::Display for Facing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Facing::Marked => "marked",
            Facing::Inferred => "inferred",
            Facing::Unknown => "unknown",
        })
    }
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

/// Detect the pieces of one frame, working out where the map plane is read from first
/// (a frame read on its own: `aide detect`, the benchmark's cold frames).
pub fn detect(image: &RgbImage, calib: &Calibration, options: &DetectOptions) -> Detection {
    let sampler = PlaneSampler::new(calib, image.width(), image.height());
    detect_sampled(image, calib, &sampler, options)
}

/// Map-plane pixels along a tile's side: the full-resolution read covers only the tiles
/// near paint.
const TILE_PX: u32 = 8;
/// How far around a coarse read of paint the map is read in full, in coarse pixels each
/// way (0.6 in): more than the facing band's reach past a painted top (0.45 in) plus
/// the most a painted top's edge can lie from its nearest coarse read (0.14 in). Every
/// tile this touches is read.
const READ_MARGIN: u8 = 3;
/// The coarse pass reads every fourth map-plane pixel each way (5 px/in): an HQ cube's
/// top, 3/8 in across, holds a sample at least 0.08 in in from its edges.
const COARSE_STEP: u32 = 4;

/// How many reads ahead the coarse pass has the frame fetched ([`FrameReader::prefetch`]):
/// enough to cover memory's latency, few enough that the lines are still cached when read.
const PREFETCH_AHEAD: usize = 16;

/// Detect the pieces of one frame with a [`PlaneSampler`] kept from earlier frames of the
/// same camera: the live pipeline's path.
///
/// Two passes: every fourth map-plane pixel each way (5 px/in) finds where paint and
/// skin are; then only the tiles around paint are read at [`PX_PER_IN`], labelled and
/// measured. Most of a table is bare map, so most of it is read at a sixteenth of the
/// cost.
pub fn detect_sampled(
    image: &RgbImage,
    calib: &Calibration,
    sampler: &PlaneSampler,
    options: &DetectOptions,
) -> Detection {
    assert!(sampler.fits(image), "a sampler made for another frame size");
    let reader = FrameReader::new(image, calib);
    let classifier = Classifier::new(options.colours);
    let (w, h) = (sampler.w, sampler.h);
    let (tiles_w, tiles_h) = sampler.tiles_size();
    let (coarse_w, coarse_h) = sampler.coarse_size();
    let mut paint = image::GrayImage::new(coarse_w, coarse_h);
    let mut skin = image::GrayImage::new(coarse_w, coarse_h);
    let mut on_map = 0usize;
    for (k, ((skin_px, paint_px), tap)) in skin
        .pixels_mut()
        .zip(paint.pixels_mut())
        .zip(&sampler.coarse)
        .enumerate()
    {
        if let Some(ahead) = sampler.coarse.get(k + PREFETCH_AHEAD) {
            reader.prefetch(*ahead);
        }
        let Some(rgb) = reader.read(*tap) else {
            continue;
        };
        on_map += 1;
        match classifier.class(rgb) {
            Class::Map => {}
            Class::Skin => skin_px.0[0] = 255,
            Class::Side(_) => paint_px.0[0] = 255,
        }
    }
    // A hand is a large skin-coloured area; a tan road or a label is thin. Eroding by
    // 0.2 in (one coarse pixel) leaves the one and removes the other.
    let skin = imageproc::morphology::erode(&skin, imageproc::distance_transform::Norm::LInf, 1);
    let skin_px = skin.pixels().filter(|p| p.0[0] > 0).count();
    // The tiles read in full, and the separate regions they make.
    let near_paint = imageproc::morphology::dilate(
        &paint,
        imageproc::distance_transform::Norm::LInf,
        READ_MARGIN,
    );
    let mut read_tiles = image::GrayImage::new(tiles_w, tiles_h);
    for (cx, cy, near) in near_paint.enumerate_pixels() {
        if near.0[0] > 0 {
            let (tx, ty) = (cx * COARSE_STEP / TILE_PX, cy * COARSE_STEP / TILE_PX);
            read_tiles.put_pixel(tx, ty, image::Luma([255]));
        }
    }
    let regions = connected_components(&read_tiles, Connectivity::Eight, image::Luma([0u8]));

    let mut plane = MapPlane {
        w,
        h,
        pixels: vec![None; (w * h) as usize],
    };
    // Each region's tile bounds: first and last tile column and row.
    let mut bounds: Vec<[u32; 4]> = Vec::new();
    for (tx, ty, region) in regions.enumerate_pixels() {
        let r = region.0[0] as usize;
        if r == 0 {
            continue;
        }
        if bounds.len() < r {
            bounds.resize(r, [u32::MAX, u32::MAX, 0, 0]);
        }
        let b = &mut bounds[r - 1];
        *b = [b[0].min(tx), b[1].min(ty), b[2].max(tx), b[3].max(ty)];
    }
    // Each region's pixels by class, in a crop of its own: 0 the map (or another
    // region), side k is k + 1. Blobs are labelled region by region: a blob cannot leave
    // the tiles that were read, so the labelling need not cover the bare map between
    // the regions; and components never join pixels of different classes, so one
    // labelling serves every side.
    let mut crops: Vec<image::GrayImage> = bounds
        .iter()
        .map(|[tx0, ty0, tx1, ty1]| {
            image::GrayImage::new((tx1 - tx0 + 1) * TILE_PX, (ty1 - ty0 + 1) * TILE_PX)
        })
        .collect();
    let read_order: Vec<(u32, u32, usize)> = regions
        .enumerate_pixels()
        .filter(|(_, _, r)| r.0[0] > 0)
        .map(|(tx, ty, r)| (tx, ty, r.0[0] as usize))
        .collect();
    for (i, &(tx, ty, r)) in read_order.iter().enumerate() {
        // The next tile's frame rows are fetched while this one is read.
        if let Some(&(next_x, next_y, _)) = read_order.get(i + 1) {
            for row in sampler.tile(next_x, next_y).chunks_exact(TILE_PX as usize) {
                reader.prefetch(row[0]);
                reader.prefetch(row[row.len() - 1]);
            }
        }
        let [tx0, ty0, ..] = bounds[r - 1];
        for (k, tap) in (0..).zip(sampler.tile(tx, ty)) {
            let Some(rgb) = reader.read(*tap) else {
                continue;
            };
            let (dx, dy) = (k % TILE_PX, k / TILE_PX);
            let (x, y) = (tx * TILE_PX + dx, ty * TILE_PX + dy);
            plane.pixels[(y * w + x) as usize] = Some(rgb);
            if let Class::Side(side) = classifier.class(rgb) {
                crops[r - 1].put_pixel(
                    (tx - tx0) * TILE_PX + dx,
                    (ty - ty0) * TILE_PX + dy,
                    image::Luma([side as u8 + 1]),
                );
            }
        }
    }
    let mut blobs: Vec<(usize, Vec<(u32, u32)>)> = Vec::new();
    for (crop, [tx0, ty0, ..]) in crops.iter().zip(&bounds) {
        let (x0, y0) = (tx0 * TILE_PX, ty0 * TILE_PX);
        let labels = connected_components(crop, Connectivity::Eight, image::Luma([0u8]));
        let first = blobs.len();
        for ((x, y, l), class) in labels.enumerate_pixels().zip(crop.pixels()) {
            let l = l.0[0] as usize;
            if l == 0 {
                continue;
            }
            if blobs.len() < first + l {
                blobs.resize(first + l, (0, Vec::new()));
            }
            blobs[first + l - 1].0 = usize::from(class.0[0] - 1);
            blobs[first + l - 1].1.push((x0 + x, y0 + y));
        }
    }
    let camera = calib.camera_over();
    let found = blobs
        .iter()
        .flat_map(|(side, blob)| {
            let name = &options.colours.sides[*side].name;
            measure_blob(blob, &plane, name, camera, options)
        })
        .collect();
    Detection {
        pieces: drop_side_faces(found),
        disturbance: if on_map == 0 {
            0.0
        } else {
            skin_px as f64 / on_map as f64
        },
    }
}

/// What a map-plane pixel shows.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Class {
    Map,
    /// A side's paint, by index into the colour model's sides.
    Side(usize),
    Skin,
}

/// Tells paint and skin from the map.
struct Classifier<'a> {
    colours: &'a ColourModel,
    /// Neither paint nor skin is paler than this: most of the map is rejected on two
    /// integer comparisons before any hue is worked out.
    least_saturation: f64,
}

impl<'a> Classifier<'a> {
    fn new(colours: &'a ColourModel) -> Self {
        let least_saturation = colours
            .sides
            .iter()
            .map(|s| s.min_saturation)
            .fold(SKIN_MIN_SATURATION, f64::min);
        Self {
            colours,
            least_saturation,
        }
    }

    fn class(&self, rgb: [u8; 3]) -> Class {
        let max = rgb.iter().copied().max().unwrap_or(0);
        let min = rgb.iter().copied().min().unwrap_or(0);
        if max == 0 || f64::from(max - min) < self.least_saturation * f64::from(max) {
            return Class::Map;
        }
        let hsv = Hsv::from_rgb(rgb);
        match self.colours.side_of(hsv) {
            Some(side) => Class::Side(side),
            None if is_skin(hsv) => Class::Skin,
            None => Class::Map,
        }
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

/// The lattice of projected points is this many map-plane pixels apart (0.2 in): the
/// coarse pass's reads fall on it, and building it takes a sixteenth of the projections
/// of the plane.
const LATTICE_STEP: u32 = 4;

/// Where the map-plane pixels at [`PX_PER_IN`] are read in the frame.
///
/// Projecting through the lens costs more than reading the pixels, so it is done for
/// every [`LATTICE_STEP`]th pixel each way and the pixels between blend their lattice
/// neighbours' positions: over 0.2 in the projection is straight to within a hundredth
/// of a pixel. A camera on a stand does not move, so the live pipeline keeps the
/// sampler for as long as the calibration, and with it each tile's reads, worked out
/// the first time a piece stands near that tile.
pub struct PlaneSampler {
    w: u32,
    h: u32,
    frame_w: u32,
    frame_h: u32,
    /// Frame positions (u, v) of map-plane pixels (LATTICE_STEP i, LATTICE_STEP j), one
    /// more row and column than the plane needs; `None` behind the camera or on a
    /// corner card.
    lattice: Vec<Option<[f64; 2]>>,
    lattice_w: u32,
    /// The coarse pass's reads, row by row.
    coarse: Vec<Tap>,
    /// Each tile's reads, row by row, once a frame has needed them.
    tiles: Vec<OnceLock<Box<[Tap]>>>,
}

/// A map-plane pixel's read: the byte offset of the top-left frame pixel of four, and
/// the weights of the right and lower ones in 1/256ths. `offset == u32::MAX`: the point
/// falls outside the frame, or on a corner card.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tap {
    offset: u32,
    fx: u16,
    fy: u16,
}

impl Tap {
    const NONE: Tap = Tap {
        offset: u32::MAX,
        fx: 0,
        fy: 0,
    };
}

impl PlaneSampler {
    pub fn new(calib: &Calibration, frame_w: u32, frame_h: u32) -> Self {
        let w = (calib.map_w_in * PX_PER_IN).round() as u32;
        let h = (calib.map_h_in * PX_PER_IN).round() as u32;
        let camera = &calib.camera;
        let card = 2.0 * PX_PER_IN;
        let near = |v: f64, max: u32| v < card || v > f64::from(max) - card;
        let (lattice_w, lattice_h) = (w / LATTICE_STEP + 1, h / LATTICE_STEP + 1);
        let mut lattice = Vec::with_capacity((lattice_w * lattice_h) as usize);
        for j in 0..lattice_h {
            let fy = f64::from(LATTICE_STEP * j);
            // Camera coordinates are affine along a row: one column of R per step.
            let row = camera.r.column(1) * ((fy + 0.5) / PX_PER_IN) + camera.t;
            for i in 0..lattice_w {
                let fx = f64::from(LATTICE_STEP * i);
                let c = row + camera.r.column(0) * ((fx + 0.5) / PX_PER_IN);
                lattice.push((!(near(fx, w) && near(fy, h)) && c.z > 1e-9).then(|| {
                    let (u, v) = camera.intrinsics.normalized_to_pixel(c.x / c.z, c.y / c.z);
                    [u, v]
                }));
            }
        }
        let mut sampler = Self {
            w,
            h,
            frame_w,
            frame_h,
            lattice,
            lattice_w,
            coarse: Vec::new(),
            tiles: Vec::new(),
        };
        let (coarse_w, coarse_h) = sampler.coarse_size();
        sampler.coarse = (0..coarse_h)
            .flat_map(|cy| (0..coarse_w).map(move |cx| (cx, cy)))
            .map(|(cx, cy)| sampler.tap(COARSE_STEP * cx, COARSE_STEP * cy))
            .collect();
        let (tiles_w, tiles_h) = sampler.tiles_size();
        sampler.tiles = (0..tiles_w * tiles_h).map(|_| OnceLock::new()).collect();
        sampler
    }

    fn coarse_size(&self) -> (u32, u32) {
        (self.w.div_ceil(COARSE_STEP), self.h.div_ceil(COARSE_STEP))
    }

    fn tiles_size(&self) -> (u32, u32) {
        (self.w.div_ceil(TILE_PX), self.h.div_ceil(TILE_PX))
    }

    /// The reads of tile (tx, ty), row by row; [`Tap::NONE`] past the plane's edge.
    fn tile(&self, tx: u32, ty: u32) -> &[Tap] {
        let (tiles_w, _) = self.tiles_size();
        self.tiles[(ty * tiles_w + tx) as usize].get_or_init(|| {
            // Each row of the tile blends the lattice's rows once at the lattice columns
            // it spans, then each pixel blends two of those.
            const SPAN: usize = (TILE_PX / LATTICE_STEP) as usize + 1;
            let i0 = tx * TILE_PX / LATTICE_STEP;
            let mut taps = Vec::with_capacity((TILE_PX * TILE_PX) as usize);
            for y in ty * TILE_PX..(ty + 1) * TILE_PX {
                let columns: [_; SPAN] =
                    std::array::from_fn(|c| self.column_position(i0 + c as u32, y));
                for x in tx * TILE_PX..(tx + 1) * TILE_PX {
                    let c = (x / LATTICE_STEP - i0) as usize;
                    let position = (x < self.w && y < self.h)
                        .then(|| blend(columns[c], columns[c + 1], x))
                        .flatten();
                    taps.push(
                        position
                            .map_or(Tap::NONE, |[u, v]| tap_at(u, v, self.frame_w, self.frame_h)),
                    );
                }
            }
            taps.into_boxed_slice()
        })
    }

    /// Whether this sampler reads frames of this size.
    pub fn fits(&self, image: &RgbImage) -> bool {
        (self.frame_w, self.frame_h) == image.dimensions()
    }

    /// Where the frame shows map-plane pixel (x, y)'s centre: the bilinear blend of the
    /// lattice points around it (only those it lies between count).
    fn position(&self, x: u32, y: u32) -> Option<[f64; 2]> {
        let i = x / LATTICE_STEP;
        blend(
            self.column_position(i, y),
            self.column_position(i + 1, y),
            x,
        )
    }

    /// Where the frame shows lattice column `i` at map-plane row `y`: a blend of the
    /// lattice points above and below.
    fn column_position(&self, i: u32, y: u32) -> Option<[f64; 2]> {
        let j = y / LATTICE_STEP;
        if i >= self.lattice_w {
            return None;
        }
        let at = |j: u32| {
            self.lattice
                .get((j * self.lattice_w + i) as usize)
                .copied()
                .flatten()
        };
        blend(at(j), at(j + 1), y)
    }

    /// How map-plane pixel (x, y) is read.
    fn tap(&self, x: u32, y: u32) -> Tap {
        self.position(x, y)
            .map_or(Tap::NONE, |[u, v]| tap_at(u, v, self.frame_w, self.frame_h))
    }
}

/// The position a map-plane coordinate `t` takes between its lattice neighbours' `a`
/// and `b`; `b` is not needed (and may be `None`) when `t` falls on `a`.
fn blend(a: Option<[f64; 2]>, b: Option<[f64; 2]>, t: u32) -> Option<[f64; 2]> {
    let w = f64::from(t % LATTICE_STEP) / f64::from(LATTICE_STEP);
    let a = a?;
    if w == 0.0 {
        return Some(a);
    }
    let b = b?;
    Some([a[0] + w * (b[0] - a[0]), a[1] + w * (b[1] - a[1])])
}

/// The read of pixel position (u, v) (pixel centres at +0.5), as [`bilinear`] reads it.
fn tap_at(u: f64, v: f64, frame_w: u32, frame_h: u32) -> Tap {
    let (x, y) = (u - 0.5, v - 0.5);
    if !(x >= 0.0 && y >= 0.0 && x < f64::from(frame_w) && y < f64::from(frame_h)) {
        return Tap::NONE;
    }
    // Truncation is the floor here (both are non-negative), without a libm call.
    let (x0, y0) = (x as u32, y as u32);
    if x0 + 1 >= frame_w || y0 + 1 >= frame_h {
        return Tap::NONE;
    }
    Tap {
        offset: 3 * (y0 * frame_w + x0),
        fx: ((x - f64::from(x0)) * 256.0) as u16,
        fy: ((y - f64::from(y0)) * 256.0) as u16,
    }
}

/// Reads a frame's pixels by [`Tap`], white-balanced, all in integers.
struct FrameReader<'a> {
    data: &'a [u8],
    stride: usize,
    /// The white balance's gains in 1/256ths.
    gains: [u32; 3],
}

impl<'a> FrameReader<'a> {
    fn new(image: &'a RgbImage, calib: &Calibration) -> Self {
        Self {
            data: image.as_raw().as_slice(),
            stride: 3 * image.width() as usize,
            gains: white_balance(image, calib).map(|g| (g * 256.0).round() as u32),
        }
    }

    /// Ask the CPU to start fetching the frame rows a read will need. The map plane's
    /// reads land all over a 6 MB frame, which no cache holds: on its own each read
    /// waits for memory. A hint only: it changes no result, and elsewhere than x86-64 it
    /// does nothing. (Measured together with the selections of `nth_smallest`: a
    /// 1080p frame from nothing went from 0.5 to 1.0 ms slower than the plain OpenCV
    /// pipeline to 1.6 to 1.9 ms faster, in alternating runs.)
    fn prefetch(&self, tap: Tap) {
        if tap.offset == u32::MAX {
            return;
        }
        let o = tap.offset as usize;
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: a prefetch never faults and reads nothing into the program; the
            // addresses are inside the frame anyway (the slices are bounds-checked).
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(self.data[o..].as_ptr().cast());
                _mm_prefetch::<_MM_HINT_T0>(self.data[o + self.stride..].as_ptr().cast());
            }
        }
    }

    fn read(&self, tap: Tap) -> Option<[u8; 3]> {
        if tap.offset == u32::MAX {
            return None;
        }
        let o = tap.offset as usize;
        let (fx, fy) = (u32::from(tap.fx), u32::from(tap.fy));
        let upper = &self.data[o..o + 6];
        let lower = &self.data[o + self.stride..o + self.stride + 6];
        let mut out = [0u8; 3];
        for (c, value) in out.iter_mut().enumerate() {
            let row = |r: &[u8]| u32::from(r[c]) * (256 - fx) + u32::from(r[c + 3]) * fx;
            let v = (row(upper) * (256 - fy) + row(lower) * fy + (1 << 15)) >> 16;
            *value = ((v * self.gains[c] + 128) >> 8).min(255) as u8;
        }
        Some(out)
    }
}

/// The map plane (z = 0) as read at [`PX_PER_IN`], white-balanced, where it was read.
struct MapPlane {
    w: u32,
    h: u32,
    /// `None` where the map point falls outside the frame, on a corner card, or far from
    /// any paint (not read).
    pixels: Vec<Option<[u8; 3]>>,
}

impl MapPlane {
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

/// The lit top face of a blob: its brighter part (the sides are in shade), as pixel
/// centres, and the brightness (HSV value) it was told by. `None` for too few pixels.
fn lit_top(blob: &[(u32, u32)], plane: &MapPlane) -> Option<(f64, Vec<[f64; 2]>)> {
    let mut values: Vec<f64> = blob
        .iter()
        .filter_map(|&(x, y)| plane.at(x, y))
        .map(|rgb| Hsv::from_rgb(rgb).v)
        .collect();
    if values.is_empty() {
        return None;
    }
    let ninth_decile = (values.len() * 9) / 10;
    let bright = nth_smallest(&mut values, ninth_decile);
    let top: Vec<[f64; 2]> = blob
        .iter()
        .filter(|&&(x, y)| {
            plane
                .at(x, y)
                .is_some_and(|rgb| Hsv::from_rgb(rgb).v >= 0.8 * bright)
        })
        .map(|&(x, y)| [f64::from(x) + 0.5, f64::from(y) + 0.5])
        .collect();
    (top.len() >= 4).then_some((bright, top))
}

/// The pieces in one blob of a side's paint. Blocks of a side standing end to end in a
/// line are one blob: their lit tops make one strip as many frontages long as there are
/// blocks. Such a strip is cut across its long axis into equal lengths, one per block
/// (the blocks of a line have the same frontage whether fresh or spent), and each part
/// is measured as a blob of its own.
fn measure_blob(
    blob: &[(u32, u32)],
    plane: &MapPlane,
    colour: &str,
    camera: (f64, f64, f64),
    options: &DetectOptions,
) -> Vec<(DetectedPiece, f64)> {
    // Most blobs on a busy map are specks of paint-coloured print: no part of one can
    // be a piece.
    if is_speck(blob, options) {
        return Vec::new();
    }
    let blocks = lit_top(blob, plane).zip(options.model.shape(UnitKind::Infantry));
    let Some(((bright, top), block)) = blocks else {
        return Vec::new();
    };
    if let Some(parts) = split_by_tops(blob, &top) {
        return parts
            .iter()
            .flat_map(|part| measure_blob(part, plane, colour, camera, options))
            .collect();
    }
    let axes = principal_axes(&top);
    // The strip's ends by count, not by share: a fresh block's narrow top at one end of
    // a line holds far fewer pixels per column than a spent one's.
    let mut along: Vec<f64> = top
        .iter()
        .map(|p| dot(sub(*p, axes.centre), axes.along))
        .collect();
    let trim = 3.min(along.len() / 2);
    let last = along.len() - 1;
    let (lo, hi) = (
        nth_smallest(&mut along, trim),
        nth_smallest(&mut along, last - trim),
    );
    let length_in = (hi - lo + 1.0) / PX_PER_IN;
    let count = (length_in / block.frontage_in).round().clamp(1.0, 4.0) as usize;
    if count == 1 {
        return measure(blob, (bright, top), plane, colour, camera, options, None)
            .into_iter()
            .collect();
    }
    // Pixels this near a cut are left out of both parts: blocks of a line may be turned
    // a few degrees to each other (their seam is not square to the line), and a fresh
    // block's end stands above a spent neighbour's top.
    let margin = 0.15 * PX_PER_IN;
    let part_px = (hi - lo) / count as f64;
    let mut parts = vec![Vec::new(); count];
    for &(x, y) in blob {
        let along = dot(
            sub([f64::from(x) + 0.5, f64::from(y) + 0.5], axes.centre),
            axes.along,
        );
        let at = (along - lo) / part_px;
        let part = at.floor().clamp(0.0, (count - 1) as f64) as usize;
        let into = (at - part as f64) * part_px;
        let near_cut = (part > 0 && into < margin) || (part + 1 < count && into > part_px - margin);
        if !near_cut {
            parts[part].push((x, y));
        }
    }
    parts
        .iter()
        .enumerate()
        .filter_map(|(i, part)| {
            let cut = Cut {
                axis: axes.along,
                low_end: i > 0,
                high_end: i + 1 < count,
            };
            let lit = lit_top(part, plane)?;
            measure(part, lit, plane, colour, camera, options, Some(cut))
        })
        .collect()
}

/// A blob whose lit top falls apart into several sizeable pieces, split into one blob per
/// piece: each of its pixels goes with the lit piece it is nearest to through the blob.
/// Two blocks of a side in a column have their tops parted by the facing band of the one
/// behind, but their shaded ends, side by side, join them into one blob of paint.
fn split_by_tops(blob: &[(u32, u32)], top: &[[f64; 2]]) -> Option<Vec<Vec<(u32, u32)>>> {
    // Smaller than a quarter of an HQ cube's top: a speck of light, not a top.
    const LEAST_TOP_PX: usize = 15;
    let (x0, y0) = blob
        .iter()
        .fold((u32::MAX, u32::MAX), |(x, y), p| (x.min(p.0), y.min(p.1)));
    let (x1, y1) = blob
        .iter()
        .fold((0, 0), |(x, y), p| (x.max(p.0), y.max(p.1)));
    let (w, h) = (x1 - x0 + 1, y1 - y0 + 1);
    let mut lit = image::GrayImage::new(w, h);
    for p in top {
        lit.put_pixel(p[0] as u32 - x0, p[1] as u32 - y0, image::Luma([255]));
    }
    let labels = connected_components(&lit, Connectivity::Eight, image::Luma([0u8]));
    let mut sizes: Vec<usize> = Vec::new();
    for l in labels.pixels() {
        let l = l.0[0] as usize;
        if l > 0 {
            if sizes.len() < l {
                sizes.resize(l, 0);
            }
            sizes[l - 1] += 1;
        }
    }
    let tops: Vec<usize> = (0..sizes.len())
        .filter(|&i| sizes[i] >= LEAST_TOP_PX)
        .collect();
    if tops.len() < 2 {
        return None;
    }
    // Grow every sizeable top through the blob's pixels, breadth first.
    const UNSET: usize = usize::MAX;
    let mut owner = vec![UNSET; (w * h) as usize];
    let in_blob = {
        let mut mask = vec![false; (w * h) as usize];
        for &(x, y) in blob {
            mask[((y - y0) * w + (x - x0)) as usize] = true;
        }
        mask
    };
    let mut queue = std::collections::VecDeque::new();
    for (x, y, l) in labels.enumerate_pixels() {
        let l = l.0[0] as usize;
        if let Some(part) = tops.iter().position(|&t| l == t + 1) {
            owner[(y * w + x) as usize] = part;
            queue.push_back((x, y));
        }
    }
    while let Some((x, y)) = queue.pop_front() {
        let part = owner[(y * w + x) as usize];
        for (dx, dy) in [
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ] {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            if nx < 0 || ny < 0 || nx >= i64::from(w) || ny >= i64::from(h) {
                continue;
            }
            let at = (ny as u32 * w + nx as u32) as usize;
            if in_blob[at] && owner[at] == UNSET {
                owner[at] = part;
                queue.push_back((nx as u32, ny as u32));
            }
        }
    }
    let mut parts = vec![Vec::new(); tops.len()];
    for &(x, y) in blob {
        let part = owner[((y - y0) * w + (x - x0)) as usize];
        if part != UNSET {
            parts[part].push((x, y));
        }
    }
    Some(parts)
}

/// Whether a blob is too small to be a piece: smaller than half an HQ cube's top (or the
/// model has no cube to compare with).
fn is_speck(blob: &[(u32, u32)], options: &DetectOptions) -> bool {
    options.model.shape(UnitKind::Hq).is_none_or(|hq| {
        (blob.len() as f64) < 0.5 * hq.frontage_in * hq.depth_fresh_in * PX_PER_IN * PX_PER_IN
    })
}

/// Which ends of a part of a line (along `axis`) are cuts, not a block's own ends.
#[derive(Debug, Clone, Copy)]
struct Cut {
    axis: [f64; 2],
    low_end: bool,
    high_end: bool,
}

/// Measure one blob of a side's paint, given its lit top ([`lit_top`]); `None` when it is
/// no piece (a road line, a speck).
fn measure(
    blob: &[(u32, u32)],
    (bright, top): (f64, Vec<[f64; 2]>),
    plane: &MapPlane,
    colour: &str,
    camera: (f64, f64, f64),
    options: &DetectOptions,
    cut: Option<Cut>,
) -> Option<(DetectedPiece, f64)> {
    let block = options.model.shape(UnitKind::Infantry)?;
    let hq = options.model.shape(UnitKind::Hq)?;
    if is_speck(blob, options) {
        return None;
    }
    let axes = principal_axes(&top);
    let (mut lo_n, mut hi_n) = extent(&top, axes.centre, axes.normal);
    let (mut lo_l, mut hi_l) = extent(&top, axes.centre, axes.along);
    // A part of a line: which of its ends along its own axis were cut.
    let (cut_low, cut_high) = match cut {
        Some(c) if dot(c.axis, axes.along) >= 0.0 => (c.low_end, c.high_end),
        Some(c) => (c.high_end, c.low_end),
        None => (false, false),
    };
    // The band beside the painted top; HQ cubes (painted tops far shorter than a block)
    // carry none, so a pale map spot beside one is not read as a band.
    let cube = (hi_l - lo_l + 1.0) / PX_PER_IN < 0.5 * block.frontage_in;
    let band = if cube {
        None
    } else {
        band_beside(&top, &axes, plane, options.colours, bright, colour)
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
    if thin_line || (cut.is_none() && length0 > 1.5 * block.frontage_in) {
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
        .filter(|c| cut.is_none() || c.0 == "block")
        .map(|&(kind, status, f, d, h)| {
            let k = (cam_h - h) / cam_h;
            // A part of a line is a block's frontage long by construction.
            let length_err = if cut.is_some() {
                0.0
            } else {
                ((length0 * k - f) / f).abs()
            };
            (kind, status, h, length_err + ((width0 * k - d) / d).abs())
        })
        .min_by(|a, b| a.3.total_cmp(&b.3))?;
    if err > 0.9 {
        return None;
    }
    let k = (cam_h - height) / cam_h;
    // A cut end is placed from the block's other end and its frontage as the map plane
    // shows it at its height (pixel centres: a span of n pixels is n - 1 between them).
    let frontage_px = block.frontage_in * PX_PER_IN / k;
    match (cut_low, cut_high) {
        (true, false) => lo_l = hi_l + 1.0 - frontage_px,
        (false, true) => hi_l = lo_l - 1.0 + frontage_px,
        _ => {}
    }
    let length0 = if cut.is_some() {
        block.frontage_in / k
    } else {
        length0
    };
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
    /// Columns where the side's lit paint follows the band: a neighbour's top, so the
    /// band may be the neighbour's own (see [`band_beside`]).
    backed_by_paint: usize,
}

/// Look for the band beside both long sides of the painted top. The band is off-white:
/// unsaturated and brighter than the paint beside it, whatever the light is like in that
/// part of the frame. One mixed pixel at the paint's edge is stepped over.
///
/// In a column, the block behind shows its band against the back of the block in front,
/// which then has a band on both sides; its own is the one with no paint beyond it.
fn band_beside(
    top: &[[f64; 2]],
    axes: &Axes,
    plane: &MapPlane,
    colours: &ColourModel,
    painted_v: f64,
    colour: &str,
) -> Option<Band> {
    // A neighbour's top is lit like this one; the block's own sides are in shade.
    let is_lit_paint = |rgb: [u8; 3]| {
        let hsv = Hsv::from_rgb(rgb);
        hsv.v >= 0.8 * painted_v
            && colours
                .side_of(hsv)
                .is_some_and(|side| colours.sides[side].name == colour)
    };
    let is_band = |rgb: [u8; 3]| {
        let hsv = Hsv::from_rgb(rgb);
        hsv.s <= colours.band_max_saturation
            && hsv.v >= colours.band_min_value.min(1.05 * painted_v)
    };
    let (lo_l, hi_l) = extent(top, axes.centre, axes.along);
    let (lo_n, hi_n) = extent(top, axes.centre, axes.normal);
    let reach = (0.45 * PX_PER_IN).ceil() as i32;
    let mut sides: Vec<Band> = Vec::new();
    for (edge, sign) in [(hi_n, 1.0), (lo_n, -1.0)] {
        let mut depths = Vec::new();
        let mut backed_by_paint = 0;
        for i in 0..=(hi_l - lo_l).ceil() as i32 {
            let l = lo_l + f64::from(i);
            let pixel = |j: i32| {
                let nrm = edge + sign * f64::from(j);
                let x = (axes.centre[0] + l * axes.along[0] + nrm * axes.normal[0]).floor();
                let y = (axes.centre[1] + l * axes.along[1] + nrm * axes.normal[1]).floor();
                let inside =
                    x >= 0.0 && y >= 0.0 && x < f64::from(plane.w) && y < f64::from(plane.h);
                inside.then(|| plane.at(x as u32, y as u32)).flatten()
            };
            let mut depth = 0;
            for j in 1..=reach {
                if pixel(j).is_some_and(is_band) {
                    depth = j;
                } else if j > 1 {
                    break;
                }
            }
            if depth > 0 {
                depths.push(f64::from(depth));
                if (1..=2).any(|j| pixel(depth + j).is_some_and(is_lit_paint)) {
                    backed_by_paint += 1;
                }
            }
        }
        if !depths.is_empty() {
            let middle = depths.len() / 2;
            sides.push(Band {
                sign,
                columns: depths.len(),
                depth_px: nth_smallest(&mut depths, middle),
                backed_by_paint,
            });
        }
    }
    // The free band wins only against a paint-backed one about as long: a pale patch of
    // map beside the back of the block behind is no band.
    let most = sides.iter().map(|b| b.columns).max().unwrap_or(0);
    let free = |b: &Band| 2 * b.backed_by_paint < b.columns && 5 * b.columns >= 4 * most;
    sides.into_iter().max_by_key(|b| (free(b), b.columns))
}

/// The 2nd and 98th percentile of the points' offsets along `axis` from `centre`.
fn extent(points: &[[f64; 2]], centre: [f64; 2], axis: [f64; 2]) -> (f64, f64) {
    let mut d: Vec<f64> = points.iter().map(|p| dot(sub(*p, centre), axis)).collect();
    let mut pick = |q: f64| {
        let k = ((d.len() - 1) as f64 * q).round() as usize;
        nth_smallest(&mut d, k)
    };
    (pick(0.02), pick(0.98))
}

/// The `k`th smallest of `values` (from 0), where sorting would put it: a selection,
/// linear in the count, since the detector needs a few order statistics of a blob's
/// hundreds of pixels and never the whole order.
fn nth_smallest(values: &mut [f64], k: usize) -> f64 {
    *values.select_nth_unstable_by(k, f64::total_cmp).1
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

#[cfg(test)]
mod tests {
    use nalgebra::Point3;

    use super::{Facing, PX_PER_IN, PlaneSampler};
    use crate::sim;
    use crate::table::Status;
    use crate::vision::Calibration;

    /// A person's output (`aide detect`, the log) says the words `--json` says.
    #[test]
    fn facing_and_status_read_as_their_json_words() {
        for facing in [Facing::Marked, Facing::Inferred, Facing::Unknown] {
            let json = serde_json::to_value(facing).unwrap();
            assert_eq!(serde_json::Value::String(facing.to_string()), json);
        }
        for status in [Status::Fresh, Status::Spent] {
            let json = serde_json::to_value(status).unwrap();
            assert_eq!(serde_json::Value::String(status.to_string()), json);
        }
    }

    /// The pixels between lattice points blend their neighbours' positions: within a
    /// hundredth of a pixel of the projection itself, lens distortion included.
    #[test]
    fn the_sampler_puts_every_map_pixel_where_the_camera_shows_it() {
        let scene = sim::random_scene(7, 36.0, 24.0, 1920, 1080);
        let camera = scene.pinhole();
        assert!(camera.intrinsics.dist[0] != 0.0, "a distorting lens");
        let calib = Calibration {
            camera,
            map_w_in: 36.0,
            map_h_in: 24.0,
            reprojection_px: 0.0,
            focal_from_file: true,
        };
        let sampler = PlaneSampler::new(&calib, 1920, 1080);
        let mut worst: f64 = 0.0;
        let mut checked = 0;
        for y in (41..sampler.h - 41).step_by(7) {
            for x in (41..sampler.w - 41).step_by(5) {
                let centre = |v: u32| (f64::from(v) + 0.5) / PX_PER_IN;
                let (u, v) = camera
                    .project(Point3::new(centre(x), centre(y), 0.0))
                    .expect("in front");
                let [su, sv] = sampler.position(x, y).expect("on the map");
                worst = worst.max((su - u).hypot(sv - v));
                checked += 1;
            }
        }
        assert!(checked > 7000, "{checked} pixels checked");
        assert!(worst < 0.01, "{worst:.4} px off");
    }
}
