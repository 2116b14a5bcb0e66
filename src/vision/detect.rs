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
use nalgebra::Point3;
use serde::{Deserialize, Serialize};

use super::calib::Calibration;
use super::colour::{ColourModel, Hsv, SKIN_MIN_SATURATION, hue_distance, is_skin};
use super::mask::{Labels, components, grow, label_components, shrink};
use super::reference::{MapReference, median};
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
    /// No strip, but its label was seen on its back face, which the rules turn toward
    /// its owner ("con sus pegatinas mirando hacia su jugador propietario"): facing away
    /// from the label.
    Label,
    /// No strip: facing away from its side's home edge.
    Inferred,
    /// No band and no home edge to infer from: one of the two normals, arbitrarily.
    Unknown,
}

/// The word the JSON uses ("marked", "inferred", "unknown"), so a person reads the same.
impl std::fmt::Display for Facing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Facing::Marked => "marked",
            Facing::Label => "label",
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
    /// The empty map, when it has been seen or its image is known: ink it explains is
    /// not paint.
    pub reference: Option<&'a MapReference>,
}

/// Detect the pieces of one frame, working out where the map plane is read from first
/// (a frame read on its own: `aide detect`, the benchmark's cold frames).
pub fn detect(image: &RgbImage, calib: &Calibration, options: &DetectOptions) -> Detection {
    let sampler = PlaneSampler::new(calib, image.width(), image.height());
    detect_sampled(image, calib, &sampler, options)
}

/// Map-plane pixels along a tile's side: the full-resolution read covers only the tiles
/// near paint. A coarse read's square, so the tiles read are the coarse pass's paint
/// grown by [`READ_MARGIN`] and no more: tiles of 8 px rounded the margin out to their
/// edges and read 13% more of the plane (127,600 against 111,000 pixels a 1080p frame
/// of 30 pieces, 0.1 ms of a live frame, 2026-11-28).
const TILE_PX: u32 = 4;
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
    let mut faint = image::GrayImage::new(coarse_w, coarse_h);
    let mut on_map = 0usize;
    // Reads of the map and what stands on it, to match the empty map's reference to
    // this frame: (x, y, colour, whether it reads as bare map).
    let mut reads: Vec<(u32, u32, [u8; 3], bool)> = Vec::new();
    for (k, (((skin_px, paint_px), faint_px), tap)) in skin
        .pixels_mut()
        .zip(paint.pixels_mut())
        .zip(faint.pixels_mut())
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
        let class = classifier.class(rgb);
        if options.reference.is_some() && !matches!(class, Class::Skin | Class::SkinOrFaint(_)) {
            let (cx, cy) = (k as u32 % coarse_w, k as u32 / coarse_w);
            let bare = matches!(class, Class::Map | Class::Faint(_));
            reads.push((cx * COARSE_STEP, cy * COARSE_STEP, rgb, bare));
        }
        match class {
            Class::Map => {}
            Class::Faint(side) => faint_px.0[0] = side as u8 + 1,
            Class::Skin => skin_px.0[0] = 255,
            Class::SkinOrFaint(side) => {
                skin_px.0[0] = 255;
                faint_px.0[0] = side as u8 + 1;
            }
            // A spent block's paint can be a rim too thin for this pass: its label is not.
            Class::Side(_) | Class::Paper => paint_px.0[0] = 255,
        }
    }
    // A hand is a large skin-coloured area; a tan road or a label is thin. Eroding by
    // 0.2 in (one coarse pixel) leaves the one and removes the other.
    let skin = shrink(&skin, 1);
    let skin_px = skin.pixels().filter(|p| p.0[0] > 0).count();
    let reference = options.reference.and_then(|r| r.match_to(&reads));
    // With the empty map known, a faint region is looked at only where its ink does not
    // explain it, and the map is read in full only around paint and paper it does not
    // explain: the full read drops the pixels it explains anyway, so a river or a town
    // the reference knows costs no tiles.
    if let Some(r) = &reference {
        for &(x, y, rgb, bare) in &reads {
            let mask = if bare { &mut faint } else { &mut paint };
            let at = mask.get_pixel_mut(x / COARSE_STEP, y / COARSE_STEP);
            // Bare map of no side's hue marks nothing to clear.
            if at.0[0] != 0 && r.explains(x, y, rgb) {
                at.0[0] = 0;
            }
        }
    }
    // The tiles read in full, and the separate regions they make.
    let near_paint = grow(&paint, READ_MARGIN.into());
    let faint_regions = faint_spans(&faint);
    let pale_cubes = faint_cube_spots(&faint_regions);
    let pale_blocks = faint_block_spots(&faint_regions);
    let mut read_tiles = image::GrayImage::new(tiles_w, tiles_h);
    let tile_of = |c: u32| c * COARSE_STEP / TILE_PX;
    for (cx, cy, near) in near_paint.enumerate_pixels() {
        if near.0[0] > 0 {
            read_tiles.put_pixel(tile_of(cx), tile_of(cy), image::Luma([255]));
        }
    }
    // Around each faint spot that may be a cube (its middle) or a block (its bounds).
    let faint_spots = (pale_cubes.iter().map(|&(_, [cx, cy])| [cx, cy, cx, cy]))
        .chain(pale_blocks.iter().map(|&(_, bounds)| bounds));
    for [x0, y0, x1, y1] in faint_spots {
        let first = |c: u32| tile_of(c.saturating_sub(FAINT_SPOT_READ));
        let last = |c: u32, size: u32| tile_of((c + FAINT_SPOT_READ).min(size - 1));
        for ty in first(y0)..=last(y1, coarse_h) {
            for tx in first(x0)..=last(x1, coarse_w) {
                read_tiles.put_pixel(tx, ty, image::Luma([255]));
            }
        }
    }
    let regions = label_components(&read_tiles);

    let mut plane = MapPlane {
        w,
        pixels: vec![None; (w * h) as usize],
    };
    // The paint and paper the reference takes for ink, where it does not know all the
    // map (see below): (x, y, colour).
    let mut explained: Vec<(u32, u32, [u8; 3])> = Vec::new();
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
    // region), side k is k + 1, paper [`PAPER`]. Blobs are labelled region by region: a
    // blob cannot leave the tiles that were read, so the labelling need not cover the
    // bare map between the regions; and components never join pixels of different
    // classes, so one labelling serves every side and the paper.
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
            let value = match classifier.class(rgb) {
                Class::Side(side) => side as u8 + 1,
                Class::Paper => PAPER,
                Class::Map | Class::Skin | Class::Faint(_) | Class::SkinOrFaint(_) => continue,
            };
            // Ink of the printed map that looks like paint or paper.
            if let Some(r) = &reference
                && r.explains(x, y, rgb)
            {
                if !r.knows_all() {
                    explained.push((x, y, rgb));
                }
                continue;
            }
            crops[r - 1].put_pixel(
                (tx - tx0) * TILE_PX + dx,
                (ty - ty0) * TILE_PX + dy,
                image::Luma([value]),
            );
        }
    }
    // Where the reference does not know the map yet (one learnt from the live feed has
    // not seen under earlier pieces), ink explained next to it carries on into it: a
    // river cut short where the reference's knowledge ends would leave a block-sized
    // stretch of blue, read as a block. The ink is followed pixel to pixel while its
    // colour holds; a piece's paint, standing on that ink, differs from it at its edge.
    if let Some(reference) = &reference {
        let mut queue: std::collections::VecDeque<(u32, u32, [u8; 3])> = explained.into();
        while let Some((x, y, ink)) = queue.pop_front() {
            for (nx, ny) in [
                (x.wrapping_sub(1), y),
                (x + 1, y),
                (x, y.wrapping_sub(1)),
                (x, y + 1),
            ] {
                if nx >= w || ny >= h || reference.knows(nx, ny) {
                    continue;
                }
                let (tx, ty) = (nx / TILE_PX, ny / TILE_PX);
                let r = regions.get_pixel(tx, ty).0[0] as usize;
                let Some(rgb) = plane.at(nx, ny) else {
                    continue;
                };
                if r == 0 || !super::reference::same_ink(ink, rgb) {
                    continue;
                }
                let [tx0, ty0, ..] = bounds[r - 1];
                let at = (nx - tx0 * TILE_PX, ny - ty0 * TILE_PX);
                if crops[r - 1].get_pixel(at.0, at.1).0[0] != 0 {
                    crops[r - 1].put_pixel(at.0, at.1, image::Luma([0]));
                    queue.push_back((nx, ny, rgb));
                }
            }
        }
    }
    let blobs: Vec<(Option<usize>, Vec<Px>)> = crops
        .iter()
        .zip(&bounds)
        .flat_map(|(crop, [tx0, ty0, ..])| {
            blobs_of(crop, tx0 * TILE_PX, ty0 * TILE_PX, |x, y| {
                plane.at(x, y).map_or(u16::MAX, |[r, g, b]| {
                    765 - u16::from(r) - u16::from(g) - u16::from(b)
                })
            })
        })
        .collect();
    let camera = calib.camera_over();
    let is_ink =
        |x: u32, y: u32, rgb: [u8; 3]| reference.as_ref().is_some_and(|r| r.explains(x, y, rgb));
    // Marks for the washed-out tops looked for beside pieces' paint (see [`FaintTops`]).
    let mut faint_tops = FaintTops::new(&plane);
    // Any blob, or paper alone, may hold a spent block found by its label.
    // Each blob's paper in its connected regions, where labels and strips are read alone.
    let paper_by_blob: Vec<Vec<Vec<[f64; 2]>>> =
        blobs.iter().map(|(_, blob)| paper_regions(blob)).collect();
    // Fresh marked blocks found by their facing strips alone: kept below where no piece
    // is read (see [`fresh_by_strip`]).
    let by_strips: Vec<DetectedPiece> = (blobs.iter().zip(&paper_by_blob))
        .flat_map(|((side, _), paper)| {
            fresh_by_strip(paper, *side, &plane, camera, options, &is_ink)
        })
        .collect();
    let labels_by_blob: Vec<Vec<FoundByLabel>> = (blobs.iter().zip(paper_by_blob))
        .map(|((_, blob), paper)| spent_by_label(blob, paper, &plane, camera, options, &is_ink))
        .collect();
    // Where paper between two sides was shared out with no seam to part it (a standing
    // block's strip against a spent enemy's top, the camera behind the standing block,
    // whose raised top hides the enemy's edge), one side's share may run into the
    // enemy's label, read in the enemy's own blob: that paper is the enemy's. Kept, it
    // made the standing block's paper too deep for a strip, and the block was lost or
    // read backwards (see [`share_out`] for the tables).
    let label_boxes: Vec<(usize, PaperBox)> = labels_by_blob
        .iter()
        .flatten()
        .map(|label| (label.side, label.paper_box))
        .collect();
    let mut by_labels: Vec<FoundByLabel> = Vec::new();
    let found = blobs
        .iter()
        .zip(labels_by_blob)
        .flat_map(|((side, blob), labels)| {
            let pieces = side.map_or_else(Vec::new, |side| {
                let colour = &options.colours.sides[side];
                let name = &colour.name;
                let ink_known = reference
                    .as_ref()
                    .is_some_and(|r| blob.iter().all(|p| r.knows(p.x, p.y)));
                // A label rimmed by the other side's paint is an enemy's top in contact
                // with this paint, not part of its piece; so is paper lying where the
                // enemy's label was read in its own blob.
                let in_enemy_box = |p: &Px| {
                    p.paper
                        && label_boxes
                            .iter()
                            .any(|(s, paper_box)| *s != side && paper_box.covers(p.centre()))
                };
                let enemy_paper: std::collections::HashSet<[u32; 2]> = labels
                    .iter()
                    .filter(|l| l.side != side)
                    .flat_map(|l| l.paper.iter().map(|p| p.map(|c| c as u32)))
                    .chain(blob.iter().filter(|p| in_enemy_box(p)).map(|p| [p.x, p.y]))
                    .collect();
                // A blob no piece reads whole, or whose every standing piece read is flat
                // ink by its faces (a stream's stretches, with a block standing on its
                // bank), is read again off the ink; the second reading is kept when a piece
                // of it stands up.
                let flat = |piece: &DetectedPiece| {
                    let standing = shape_of(options.model, piece)
                        .map(|shape| Standing::new(piece, camera, shape));
                    piece.status == Status::Fresh
                        && standing.is_some_and(|standing| {
                            reads_as_flat_ink(&standing, &plane, &classifier, colour, |_| false)
                        })
                };
                let measure_own = |own: &[Px]| {
                    let pieces = measure_blob(own, &plane, name, camera, options, ink_known);
                    // The faces are read last: with the ink known, or a speck, there is
                    // nothing to read again.
                    if ink_known
                        || is_speck(own.len(), options)
                        || !pieces.iter().all(|(p, _)| flat(p))
                    {
                        return pieces;
                    }
                    let again: Vec<(DetectedPiece, f64)> = off_the_ink(own, &plane)
                        .iter()
                        .flat_map(|part| measure_blob(part, &plane, name, camera, options, false))
                        .collect();
                    if pieces.is_empty() || again.iter().any(|(p, _)| !flat(p)) {
                        again
                    } else {
                        pieces
                    }
                };
                let own: std::borrow::Cow<[Px]> = if enemy_paper.is_empty() {
                    blob.into()
                } else {
                    blob.iter()
                        .filter(|p| !(p.paper && enemy_paper.contains(&[p.x, p.y])))
                        .copied()
                        .collect()
                };
                let pieces = measure_own(&own);
                // A piece found by its paint is read again with its washed-out top, which
                // tells where its top lies: each piece moves by no more than a top's
                // depth. The top alone finds no piece here (see [`faint_blocks`]).
                if pieces.is_empty() {
                    return pieces;
                }
                let faint_top = faint_tops.of(&own, side, &plane, &classifier, &is_ink);
                if faint_top.is_empty() {
                    return pieces;
                }
                let whole: Vec<Px> = own.iter().chain(&faint_top).copied().collect();
                let again = measure_own(&whole);
                // Each piece of the first reading as read again: the nearest of its kind
                // and status, within the most a top moves it.
                let read_again = |(p, _): &(DetectedPiece, f64)| {
                    again
                        .iter()
                        .enumerate()
                        .filter(|(_, (q, _))| q.kind == p.kind && q.status == p.status)
                        .map(|(k, (q, _))| (k, (q.x_in - p.x_in).hypot(q.y_in - p.y_in)))
                        .filter(|(_, moved)| *moved <= FAINT_TOP_MOST_MOVE_IN)
                        .min_by(|a, b| a.1.total_cmp(&b.1))
                        .map(|(k, _)| k)
                };
                let Some(counterparts) = pieces.iter().map(read_again).collect::<Option<Vec<_>>>()
                else {
                    return pieces;
                };
                // Two pieces of the first reading that the second reads as one: it has
                // lost a piece, and is not kept.
                let mut distinct = counterparts.clone();
                distinct.sort_unstable();
                distinct.dedup();
                if distinct.len() < counterparts.len() {
                    return pieces;
                }
                let n = pieces.len() as f64;
                let before = pieces.iter().map(|(p, _)| p.confidence).sum::<f64>() / n;
                let after = counterparts
                    .iter()
                    .map(|&k| again[k].0.confidence)
                    .sum::<f64>()
                    / n;
                // What it adds extends a line that was read: its end blocks.
                let like_those_read = again.iter().enumerate().all(|(k, (q, _))| {
                    counterparts.contains(&k)
                        || (q.kind == "block"
                            && pieces
                                .iter()
                                .any(|(p, _)| p.kind == q.kind && p.status == q.status))
                });
                if after >= before - AGAIN_LESS_SURE && like_those_read {
                    again
                } else {
                    pieces
                }
            });
            by_labels.extend(labels.into_iter().map(|mut label| {
                label.in_contact = side.is_some_and(|side| side != label.side);
                label
            }));
            pieces
        })
        .collect();
    let mut pieces = drop_side_faces(found);
    let faint = FaintReader {
        plane: &plane,
        classifier: &classifier,
        camera,
        options,
        is_ink: &is_ink,
    };
    let cubes = faint_cubes(&faint, &pale_cubes, &pieces);
    pieces.extend(cubes);
    let blocks = faint_blocks(&faint, &pale_blocks, &pieces);
    pieces.extend(blocks);
    // A block found by its strip alone, where no piece was read. A block of its side
    // read near it less surely, with no strip, but further off than a reading of the
    // strip's own block would be, is that block misread (its pale top), and gives way.
    for piece in by_strips {
        let apart = |p: &DetectedPiece| (p.x_in - piece.x_in).hypot(p.y_in - piece.y_in);
        let misread = |p: &DetectedPiece| {
            p.color == piece.color
                && p.facing != Facing::Marked
                && p.confidence < piece.confidence
                && apart(p) < STRIP_REPLACES_IN
        };
        if pieces.iter().all(|p| apart(p) >= STRIP_CLEAR_IN) {
            pieces.retain(|p| !misread(p));
            pieces.push(piece);
        }
    }
    // A label near a piece found by its paint is either that piece's, the back label of
    // a standing block seen from behind, or the top of a spent block the paint's fit
    // took for a standing one: the paint beyond the label's far edge tells which. Near a
    // spent block read by its paint, it is that block's: read by its paint less surely
    // than by its label alone, the block fitted paint not all its own (a red block lying
    // on red roofs, which also lie beyond the label's far edge), and the label reads it.
    // A label read twice (its paper in the enemy's blob and in its own side's) is in
    // contact if either reading is.
    let touched: Vec<bool> = by_labels
        .iter()
        .map(|label| {
            by_labels.iter().any(|other| {
                other.in_contact
                    && other.side == label.side
                    && (other.piece.x_in - label.piece.x_in)
                        .hypot(other.piece.y_in - label.piece.y_in)
                        < LABEL_CLEAR_IN
            })
        })
        .collect();
    let mut in_contact = Vec::new();
    for (label, touched) in by_labels.into_iter().zip(touched) {
        // An enemy's piece near the label is in contact with it, not its reading.
        let near = |p: &DetectedPiece| {
            p.color == label.piece.color
                && (p.x_in - label.piece.x_in).hypot(p.y_in - label.piece.y_in) < LABEL_CLEAR_IN
        };
        if !pieces.iter().any(near) {
            // A label in contact read twice, in both blobs, is one block.
            if touched {
                if !in_contact.iter().any(near) {
                    in_contact.push(label.piece);
                }
            } else {
                pieces.push(label.piece);
            }
        } else if pieces.iter().filter(|p| near(p)).all(|p| {
            p.kind == "block"
                && match p.status {
                    Status::Fresh => label.on_top,
                    Status::Spent => p.confidence < label.piece.confidence,
                }
        }) {
            pieces.retain(|p| !near(p));
            pieces.push(label.piece);
        }
    }
    let pieces = without_flat_ink(pieces, &plane, &classifier, camera, options);
    let mut pieces = without_overlaps(pieces, options.model);
    for piece in &mut pieces {
        read_strip_again(piece, &plane, &classifier, camera, options);
    }
    // Where the reference knows the ground, the ink is out of the paint already.
    let ink_known_at = |p: &DetectedPiece| {
        reference.as_ref().is_some_and(|r| {
            let [x, y] = [p.x_in, p.y_in].map(|v| (v * PX_PER_IN).max(0.0) as u32);
            r.knows(x, y)
        })
    };
    pieces.retain(|p| ink_known_at(p) || !is_sliver(p, &plane, camera, options.model));
    // A spent block found by a label the enemy's paint touched stands in contact with
    // that enemy: the enemy's reading, a few hundredths off toward it, may overlap it by
    // more than [`MOST_OVERLAP`] without being any part of it. Only its own side's
    // readings can be the same piece.
    for label in in_contact {
        let own_side: Vec<DetectedPiece> = pieces
            .iter()
            .filter(|p| p.color == label.color)
            .cloned()
            .chain(std::iter::once(label.clone()))
            .collect();
        if without_overlaps(own_side, options.model).contains(&label) {
            pieces.push(label);
        }
    }
    space_ranks(&mut pieces, options.model);
    Detection {
        pieces,
        disturbance: if on_map == 0 {
            0.0
        } else {
            skin_px as f64 / on_map as f64
        },
    }
}

/// The pieces read, but those that are flat ink ([`reads_as_flat_ink`]): a roof of a
/// side's hue printed a cube's size reads as that side's HQ, and a stretch of stream as
/// a block, but where the camera sees a standing piece's faces, they tell. A neighbour
/// in front (a column's front block) hides them.
///
/// Only what stands hides anything: ink lies flat under the camera's view. A river cut
/// into a row of blocks hides each cut's face toward the camera under the next cut's
/// top, and each would stand for want of a face to judge. So the judgement is made
/// again without the ink it found, until it finds no more: the cut nearest the camera
/// shows the river going on where its face would be, and once it is gone the next cut
/// shows the same. A real line's front block shows its face, and hides the next one's
/// as it stands.
fn without_flat_ink(
    mut pieces: Vec<DetectedPiece>,
    plane: &MapPlane,
    classifier: &Classifier,
    camera: (f64, f64, f64),
    options: &DetectOptions,
) -> Vec<DetectedPiece> {
    let shape_of = |p: &DetectedPiece| shape_of(options.model, p);
    // Whether `q` is near enough to hide any of `p`: within their half-diagonals and the
    // most a top moves, an inch.
    let reach = |q: &DetectedPiece| 0.5 * q.length_in.hypot(q.width_in);
    let near = |p: &DetectedPiece, q: &DetectedPiece| {
        (q.x_in - p.x_in).hypot(q.y_in - p.y_in) <= reach(p) + reach(q) + 1.0
    };
    // Which pieces to judge: at first all, then those the ink just found lay near.
    let mut judge = vec![true; pieces.len()];
    loop {
        let seen: Vec<Option<Standing>> = pieces
            .iter()
            .map(|p| shape_of(p).map(|shape| Standing::new(p, camera, shape)))
            .collect();
        let flat_ink: Vec<bool> = pieces
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let colour = options.colours.sides.iter().find(|s| s.name == p.color);
                let (true, Some(standing), Some(colour), Status::Fresh) =
                    (judge[k], &seen[k], colour, p.status)
                else {
                    return false;
                };
                let hiding: Vec<&Standing> = (pieces.iter().zip(&seen).enumerate())
                    .filter(|&(other, (q, _))| other != k && near(p, q))
                    .filter_map(|(_, (_, standing))| standing.as_ref())
                    .collect();
                let hidden = |at: [f64; 2]| {
                    hiding
                        .iter()
                        .any(|s| s.on_top(at, 0.0) || s.on_footprint(at, 0.0))
                };
                reads_as_flat_ink(standing, plane, classifier, colour, hidden)
            })
            .collect();
        if !flat_ink.contains(&true) {
            return pieces;
        }
        let ink: Vec<&DetectedPiece> = (pieces.iter().zip(&flat_ink))
            .filter_map(|(p, &flat)| flat.then_some(p))
            .collect();
        judge = (pieces.iter().zip(&flat_ink))
            .filter(|&(_, &flat)| !flat)
            .map(|(p, _)| ink.iter().any(|q| near(p, q)))
            .collect();
        let mut flat_ink = flat_ink.into_iter();
        pieces.retain(|_| !flat_ink.next().unwrap_or(false));
    }
}

/// Whether a standing block read where no face of it shows is a sliver of ink: with no
/// face to read (near the point under the camera, [`top_and_faces`]) its silhouette is
/// its top alone, as deep as the block, less what its blurred edges lose (at most twice
/// [`EDGE_BLUR_PX`], [`edge_loss_px`]) and the far edge's outer pixel. A stretch of river
/// between a bridge and a road that crosses it, cut to a block's length, is narrower. A
/// block whose strip was read is a block, however little of its pale top reads as paint
/// (the photoreal frames' b04, blurred or compressed again, reads 0.16 in deep).
///
/// On 30 river-crossing tables that no constant was set on (seeds 101 to 130), 23 of
/// the 45 phantoms were such slivers by the bridge, 0.19 to 0.23 in deep; the 15 where
/// no face shows are gone, and no piece was lost there, on the photoreal frames or on
/// their 23 perturbed sets. The narrowest unmarked block read where no face shows is
/// 0.28 in deep (the photoreal frames' b00 p0, in a pale line).
fn is_sliver(
    piece: &DetectedPiece,
    plane: &MapPlane,
    camera: (f64, f64, f64),
    model: &PieceModel,
) -> bool {
    let (true, Status::Fresh, false, Some(shape)) = (
        piece.kind == "block",
        piece.status,
        piece.facing == Facing::Marked,
        shape_of(model, piece),
    ) else {
        return false;
    };
    let least_in = shape.depth_fresh_in - 3.0 * EDGE_BLUR_PX / PX_PER_IN;
    piece.width_in < least_in
        && top_and_faces(&Standing::new(piece, camera, shape), plane, 0.5, |_| false).is_none()
}

/// The shape of a piece read: an HQ's cube, or a block's (every block is measured on
/// the infantry block's shape).
fn shape_of<'m>(model: &'m PieceModel, piece: &DetectedPiece) -> Option<&'m crate::model::Shape> {
    model.shape(if piece.kind == "hq" {
        UnitKind::Hq
    } else {
        UnitKind::Infantry
    })
}

/// Blocks of a side standing in contact, end to end in a line or front to back in a
/// column, are placed a step apart (a frontage in a line, a fresh depth in a column)
/// about where their rank was read. Where two blocks meet, the seam between them is the
/// least sure edge either has: its shadow, a label's edge or a bevel can take a tenth of
/// an inch from one block's end and give it to the other, or to neither, and both
/// centres move with it. The rank's own ends, against the map, and its count of blocks
/// are surer.
///
/// Two blocks are next in a rank when they are turned alike to [`RANK_MOST_TURN_DEG`],
/// lie within [`RANK_MOST_ASIDE_IN`] of each other's axis (in a line of fresh and spent
/// blocks, fronts level, plus half the difference of their depths), and stand a step
/// apart along it, read up to `most_short` closer (a seam read deep into both) or
/// `most_gap` farther (pushed together by hand, not quite in contact). A line may hold
/// fresh and spent blocks; a column, fresh blocks only (a spent block's depth makes its
/// step another). A rank's blocks are spaced evenly about their mean, a step apart or
/// by the rank's read length if longer; aside from the rank, each keeps where it was
/// read. A block with three neighbours in a rank is in no rank (a block of columns) and
/// is left as read; a block may be in a line and a column, spaced one way in each.
///
/// On the photoreal frames this moved 22 blocks, 19 of them nearer their truth (a blue
/// line's second block from 0.075 to 0.030 in off, a red column's front block from
/// 0.083 to 0.048; the column's rear block from 0.013 to 0.030), and the 1080p centre
/// p95 went from 0.078 to 0.067 in; on our renderer's tables of blocks touching in lines
/// and columns (`aide render --touching`, 20 at 1080p), from 0.027 to 0.024 in.
fn space_ranks(pieces: &mut [DetectedPiece], model: &PieceModel) {
    let Some(block) = model.shape(UnitKind::Infantry) else {
        return;
    };
    let line = Rank {
        axis: |h| [h.cos(), h.sin()],
        step: block.frontage_in,
        most_short: LINE_MOST_SHORT_IN,
        most_gap: LINE_MOST_GAP_IN,
        spent_too: true,
    };
    space_rank(pieces, block, &line);
    let column = Rank {
        axis: |h| [h.sin(), -h.cos()],
        step: block.depth_in(Status::Fresh),
        most_short: COLUMN_MOST_SHORT_IN,
        most_gap: COLUMN_MOST_GAP_IN,
        spent_too: false,
    };
    space_rank(pieces, block, &column);
}

/// One way blocks stand in a rank (see [`space_ranks`]).
struct Rank {
    /// The rank's direction for a block's heading, in radians.
    axis: fn(f64) -> [f64; 2],
    /// How far apart blocks in contact stand along it, inches.
    step: f64,
    /// How much closer or farther than `step` two blocks may read and be in the rank.
    most_short: f64,
    most_gap: f64,
    /// Whether spent blocks stand in it.
    spent_too: bool,
}

/// Places the blocks standing in ranks of one way, `rank` (see [`space_ranks`]).
fn space_rank(pieces: &mut [DetectedPiece], block: &crate::model::Shape, rank: &Rank) {
    let axis_of = |p: &DetectedPiece| (rank.axis)(p.heading_deg.to_radians());
    let next_in_rank = |a: &DetectedPiece, b: &DetectedPiece| {
        let turn = (a.heading_deg - b.heading_deg).rem_euclid(180.0);
        let u = axis_of(a);
        let d = sub([b.x_in, b.y_in], [a.x_in, a.y_in]);
        let (along, aside) = (dot(d, u).abs(), (d[1] * u[0] - d[0] * u[1]).abs());
        let fronts_level = 0.5 * (block.depth_in(a.status) - block.depth_in(b.status)).abs();
        a.color == b.color
            && turn.min(180.0 - turn) <= RANK_MOST_TURN_DEG
            && aside <= RANK_MOST_ASIDE_IN + fronts_level
            && (rank.step - rank.most_short..=rank.step + rank.most_gap).contains(&along)
    };
    let blocks: Vec<usize> = (0..pieces.len())
        .filter(|&k| {
            pieces[k].kind == "block" && (rank.spent_too || pieces[k].status == Status::Fresh)
        })
        .collect();
    // Each block's neighbours in a rank, by index into `blocks`.
    let neighbours: Vec<Vec<usize>> = blocks
        .iter()
        .map(|&a| {
            (0..blocks.len())
                .filter(|&j| blocks[j] != a && next_in_rank(&pieces[a], &pieces[blocks[j]]))
                .collect()
        })
        .collect();
    let mut seen = vec![false; blocks.len()];
    for start in 0..blocks.len() {
        if seen[start] || neighbours[start].is_empty() {
            continue;
        }
        // The rank: every block reached from this one, neighbour to neighbour.
        seen[start] = true;
        let mut members = vec![start];
        let mut next = 0;
        while let Some(&j) = members.get(next) {
            for &k in &neighbours[j] {
                if !seen[k] {
                    seen[k] = true;
                    members.push(k);
                }
            }
            next += 1;
        }
        if members.iter().any(|&j| neighbours[j].len() > 2) {
            continue;
        }
        let u = axis_of(&pieces[blocks[start]]);
        let along = |k: usize| dot([pieces[k].x_in, pieces[k].y_in], u);
        let mut members: Vec<usize> = members.into_iter().map(|j| blocks[j]).collect();
        members.sort_by(|&a, &b| along(a).total_cmp(&along(b)));
        let n = members.len() as f64;
        let mean = members.iter().map(|&k| along(k)).sum::<f64>() / n;
        let read_length = along(members[members.len() - 1]) - along(members[0]);
        let spacing = rank.step.max(read_length / (n - 1.0));
        let shifts: Vec<f64> = (members.iter().enumerate())
            .map(|(i, &k)| mean + (i as f64 - 0.5 * (n - 1.0)) * spacing - along(k))
            .collect();
        for (&k, shift) in members.iter().zip(shifts) {
            pieces[k].x_in += shift * u[0];
            pieces[k].y_in += shift * u[1];
        }
    }
}

/// Two blocks next in a rank are turned alike to this many degrees: blocks pushed into
/// contact stand square, and each block's axis is read to a degree or two.
const RANK_MOST_TURN_DEG: f64 = 5.0;

/// Two blocks next in a rank lie within this of each other's axis, inches.
const RANK_MOST_ASIDE_IN: f64 = 0.15;

/// Two blocks of a line are read at most this much closer than a frontage apart, inches.
const LINE_MOST_SHORT_IN: f64 = 0.4;

/// Two blocks of a line stand at most this gap apart, inches.
const LINE_MOST_GAP_IN: f64 = 0.15;

/// Two blocks of a column are read at most this much closer than a fresh depth apart,
/// inches: less than a line's, a column's step being a fifth of it.
const COLUMN_MOST_SHORT_IN: f64 = 0.15;

/// Two blocks of a column stand at most this gap apart, inches.
const COLUMN_MOST_GAP_IN: f64 = 0.1;

/// Two pieces never stand in one place: of two readings whose footprints overlap by more
/// than [`MOST_OVERLAP`] of the smaller, the less sure is some part of the other piece
/// (a side face, a shadowed end) read as a piece of its own. Pieces in contact share an
/// edge, and their readings, each within a few hundredths of an inch, overlap by little.
fn without_overlaps(pieces: Vec<DetectedPiece>, model: &PieceModel) -> Vec<DetectedPiece> {
    let footprint = |p: &DetectedPiece| {
        shape_of(model, p).map(|shape| {
            crate::geom::Footprint::new(
                p.x_in,
                p.y_in,
                p.heading_deg,
                shape.frontage_in,
                shape.depth_in(p.status),
            )
        })
    };
    let footprints: Vec<Option<crate::geom::Footprint>> = pieces.iter().map(footprint).collect();
    // The surest first; the pieces keep their order.
    let mut order: Vec<usize> = (0..pieces.len()).collect();
    order.sort_by(|&a, &b| pieces[b].confidence.total_cmp(&pieces[a].confidence));
    let mut kept = vec![false; pieces.len()];
    for i in order {
        let overlapping = footprints[i].as_ref().is_some_and(|mine| {
            let mine_alone = geo::MultiPolygon(vec![mine.polygon()]);
            (0..pieces.len())
                .filter(|&j| kept[j])
                .filter_map(|j| footprints[j].as_ref())
                .any(|theirs| {
                    mine.may_be_within(theirs, 0.0)
                        && crate::geom::area_inside_convex(&mine_alone, &theirs.corners())
                            > MOST_OVERLAP * mine.area().min(theirs.area())
                })
        });
        kept[i] = !overlapping;
    }
    pieces
        .into_iter()
        .zip(kept)
        .filter_map(|(piece, keep)| keep.then_some(piece))
        .collect()
}

/// The most two readings' footprints may overlap, as a share of the smaller footprint.
const MOST_OVERLAP: f64 = 0.25;

/// What a map-plane pixel shows.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Class {
    Map,
    /// A side's paint, by index into the colour model's sides.
    Side(usize),
    /// Off-white paper: a block's label sticker or its facing strip.
    Paper,
    Skin,
    /// A side's hue, paler than its paint by up to [`FAINT_SCALE`]: the map's ink, or a
    /// cube whose matte paint reads pale under the light (see [`faint_cubes`]).
    Faint(usize),
    /// Skin, or a side's paint washed pale: both are read there. A red block's satin
    /// top under a warm lamp is orange-red a little under red's least saturation, as
    /// skin is (on the photoreal frames, a top at hue 12 and 0.60 to 0.62 saturated).
    /// The coarse pass counts it as skin for the hands and as faint for the pieces; the
    /// pale pieces' passes read it as the side's.
    SkinOrFaint(usize),
}

/// A crop's value for paper (paint is its side's index + 1).
const PAPER: u8 = 255;

/// A paper region smaller than this (0.05 sq in; a facing strip is 0.35) is a pale fleck
/// of the map's: it joins no blob.
const LEAST_PAPER_SQ_IN: f64 = 0.05;

/// A paper region larger than this is something of the map's, never labels: it joins no
/// blob. A spent block shows about 1.3 sq in of label and strip, and the strips of spent
/// blocks end to end touch: eight in a line make one region of about 10 sq in.
const MOST_PAPER_SQ_IN: f64 = 12.0;

/// The offsets within which paper touches paint: two pixels each way (0.1 in). Between a
/// white label and red paint the camera sees a pixel or two of their mix, pink, which is
/// neither.
const CONTACT_REACH: [(i64, i64); 24] = {
    let mut offsets = [(0, 0); 24];
    let mut k = 0;
    let mut dy = -2;
    while dy <= 2 {
        let mut dx = -2;
        while dx <= 2 {
            if dx != 0 || dy != 0 {
                offsets[k] = (dx, dy);
                k += 1;
            }
            dx += 1;
        }
        dy += 1;
    }
    offsets
};

/// A pixel of a blob: where it is on the map plane, and whether it is paper (a label or
/// a facing strip) rather than the side's paint.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Px {
    x: u32,
    y: u32,
    paper: bool,
}

impl Px {
    fn centre(self) -> [f64; 2] {
        [f64::from(self.x) + 0.5, f64::from(self.y) + 0.5]
    }
}

/// The blobs of one crop (its top-left at map-plane pixel (x0, y0)): each side's
/// connected paint, with the paper that touches it. A spent block's label covers most
/// of its top and leaves a rim of paint that may fall apart into pieces: the label joins
/// them into one blob. A paper region touching paint of both sides is shared out
/// between them (see [`share_out`]; `darkness` at a map-plane position).
fn blobs_of(
    crop: &image::GrayImage,
    x0: u32,
    y0: u32,
    darkness: impl Fn(u32, u32) -> u16,
) -> Vec<(Option<usize>, Vec<Px>)> {
    let (labels, count) = components(crop);
    let mut class = vec![0u8; count];
    let mut pixels: Vec<Vec<(u32, u32)>> = vec![Vec::new(); count];
    for ((x, y, l), value) in labels.enumerate_pixels().zip(crop.pixels()) {
        let l = l.0[0] as usize;
        if l > 0 {
            class[l - 1] = value.0[0];
            pixels[l - 1].push((x, y));
        }
    }
    // Each paper region of a sticker's size, with the paint regions it touches and a
    // count a pixel pair within reach; a fleck or a sheet of paper is passed over first.
    let most_paper = (MOST_PAPER_SQ_IN * PX_PER_IN * PX_PER_IN) as usize;
    let least_paper = (LEAST_PAPER_SQ_IN * PX_PER_IN * PX_PER_IN) as usize;
    let (w, h) = crop.dimensions();
    let papers: Vec<(usize, Vec<(usize, usize)>)> = (0..count)
        .filter(|&c| class[c] == PAPER && (least_paper..=most_paper).contains(&pixels[c].len()))
        .filter(|&c| !is_a_thin_line(&pixels[c], &labels, c + 1) || lies_like_a_strip(&pixels[c]))
        .map(|c| {
            let mut touching: Vec<(usize, usize)> = Vec::new();
            let raw = labels.as_raw();
            for &(x, y) in &pixels[c] {
                for (dx, dy) in CONTACT_REACH {
                    let (nx, ny) = (
                        x.wrapping_add_signed(dx as i32),
                        y.wrapping_add_signed(dy as i32),
                    );
                    if nx >= w || ny >= h {
                        continue;
                    }
                    let n = raw[(ny * w + nx) as usize] as usize;
                    if n == 0 || n == c + 1 || class[n - 1] == PAPER {
                        continue;
                    }
                    match touching.iter_mut().find(|(q, _)| *q == n - 1) {
                        Some((_, pairs)) => *pairs += 1,
                        None => touching.push((n - 1, 1)),
                    }
                }
            }
            (c, touching)
        })
        .collect();
    // Each paper region joins the paint it touches most, with every other region of
    // that side's paint it touches. One touching both sides' paint (two facing strips
    // meeting where a block meets an enemy's flank, or a strip meeting the label of a
    // spent enemy) is shared out first, along the seam between the blocks where one
    // shows (see [`share_out`]).
    let mut group: Vec<usize> = (0..count).collect();
    fn root(group: &mut [usize], mut c: usize) -> usize {
        while group[c] != c {
            group[c] = group[group[c]];
            c = group[c];
        }
        c
    }
    let mut joined = vec![false; count];
    // Each region's size, before any shares are added.
    let sizes: Vec<usize> = pixels.iter().map(Vec::len).collect();
    for (paper, touching) in papers {
        let Some(&(most, _)) = touching.iter().max_by_key(|(q, n)| (*n, usize::MAX - q)) else {
            continue;
        };
        if touching.iter().any(|(q, _)| class[*q] != class[most]) {
            // Each side's share joins all of that side's paint the region touches, as a
            // region touching one side does.
            let darkness = |x: u32, y: u32| darkness(x0 + x, y0 + y);
            for (paint, share) in share_out(&pixels[paper], &labels, &class, &sizes, darkness) {
                let part = pixels.len();
                pixels.push(share);
                class.push(PAPER);
                group.push(part);
                joined.push(true);
                for &(q, _) in touching.iter().filter(|(q, _)| class[*q] == class[paint]) {
                    let (a, b) = (root(&mut group, part), root(&mut group, q));
                    group[a] = b;
                }
            }
            continue;
        }
        joined[paper] = true;
        for &(q, _) in &touching {
            let (a, b) = (root(&mut group, paper), root(&mut group, q));
            group[a] = b;
        }
    }
    let mut blobs: Vec<(Option<usize>, Vec<Px>)> = Vec::new();
    let mut blob_of_root: std::collections::HashMap<usize, usize> = Default::default();
    for c in 0..pixels.len() {
        // Paper touching no paint is kept only as large as a facing strip: a spent
        // block's label can hide its top but for a rim too thin, or too pale, to read
        // as paint (see [`spent_by_label`]), and a standing block's strip can be all
        // that reads of its top (see [`fresh_by_strip`]).
        if class[c] == PAPER && !joined[c] && pixels[c].len() < STRIP_MIN_PX {
            continue;
        }
        let r = root(&mut group, c);
        let b = *blob_of_root.entry(r).or_insert_with(|| {
            blobs.push((None, Vec::new()));
            blobs.len() - 1
        });
        let paper = class[c] == PAPER;
        if !paper {
            blobs[b].0 = Some(usize::from(class[c] - 1));
        }
        blobs[b].1.extend(pixels[c].iter().map(|&(x, y)| Px {
            x: x0 + x,
            y: y0 + y,
            paper,
        }));
    }
    blobs
}

/// A paper region holding fewer interior pixels (all four neighbours its own) than
/// this share of its pixels is a line, not a sticker: a facing strip is 0.19 in (3.75
/// px) wide and a label 0.6 in, so a third or more of either is interior even where
/// the strip's edges blur into paint; a river bank's pale outline, a road's edge or a
/// lettering stroke is one or two pixels wide along its length and has next to none.
/// Such a line touching a block would join its blob and stretch it past any piece.
const LEAST_PAPER_INTERIOR: f64 = 0.2;

/// Whether a paper region (`region`, its pixels; `label`, its number in `labels`) is a
/// thin line of the map's (see [`LEAST_PAPER_INTERIOR`]).
fn is_a_thin_line(region: &[(u32, u32)], labels: &Labels, label: usize) -> bool {
    let (w, h) = labels.dimensions();
    let own = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && x < i64::from(w)
            && y < i64::from(h)
            && labels.get_pixel(x as u32, y as u32).0[0] as usize == label
    };
    let interior = region
        .iter()
        .filter(|&&(x, y)| {
            let (x, y) = (i64::from(x), i64::from(y));
            own(x - 1, y) && own(x + 1, y) && own(x, y - 1) && own(x, y + 1)
        })
        .count();
    (interior as f64) < LEAST_PAPER_INTERIOR * region.len() as f64
}

/// Whether a paper region too thin to have an interior (see [`is_a_thin_line`]) is the
/// facing strip along a standing block's top all the same: straight, no more than
/// [`THIN_STRIP_MOST_WIDTH_PX`] across but two pixels wide on the whole, and as long
/// as a top, from [`THIN_STRIP_LEAST_LENGTH_IN`] to [`THIN_STRIP_MOST_LENGTH_IN`].
/// Where the camera sees a strip's 0.19 in across only a few frame pixels (a low camera
/// far to the side, at 1080p, or a soft lens), its edges blur into the paint on both
/// sides, pink, and the paper left is two map-plane pixels wide: on the photoreal
/// frames, both strips of two red blocks in a column, 19 in from the point under a
/// camera 24.5 in up. Left out, the column read as one block and the other was missed.
/// A river bank's outline or a road's edge bends, or runs on past a top's length; a
/// lettering stroke is short.
fn lies_like_a_strip(region: &[(u32, u32)]) -> bool {
    let centres: Vec<[f64; 2]> = region
        .iter()
        .map(|&(x, y)| [f64::from(x) + 0.5, f64::from(y) + 0.5])
        .collect();
    let (length_px, width_px) = size_on_own_axes(&centres);
    width_px <= THIN_STRIP_MOST_WIDTH_PX
        && region.len() as f64 >= THIN_STRIP_LEAST_MEAN_WIDTH_PX * length_px
        && (THIN_STRIP_LEAST_LENGTH_IN * PX_PER_IN..=THIN_STRIP_MOST_LENGTH_IN * PX_PER_IN)
            .contains(&length_px)
}

/// The least a thin strip's paper holds per pixel of its length: a strip blurred to two
/// pixels' width holds two (the photoreal strips above, 2.3 and 2.4), while the map's
/// pale lines one pixel wide (a road's edge, a card's border, a lettering stroke: on
/// the photoreal frames, 0.9 to 1.1) hold one.
const THIN_STRIP_LEAST_MEAN_WIDTH_PX: f64 = 1.5;

/// The widest a thin strip's paper reads (map-plane pixels, its 2nd to 98th
/// percentile across, plus one): a line with no interior is two pixels wide, and
/// turned off the pixel grid it steps across it (the photoreal strips above read 3.2).
const THIN_STRIP_MOST_WIDTH_PX: f64 = 3.5;

/// The shortest a thin strip's paper reads (inches): longer than any label. A strip runs
/// the top's whole length (1.875 in; the photoreal strips above read 1.72 and 1.81 in
/// with their ends' blur), while a label is 1.6 in, raised on a back face by at most
/// 5 % from a camera as low as 16 in. A label on a back face seen edge-on is as thin as
/// a blurred strip beside the top (on our renderer's tables, 1.5 to 1.6 in), and taken
/// for a strip it would move its block.
const THIN_STRIP_LEAST_LENGTH_IN: f64 = 1.05 * LABEL_LENGTH_IN;

/// The longest a thin strip's paper reads (inches): a block's top, 1.875 in, as the
/// plane shows it from a camera as low as 16 in (5 % longer), with its ends' blur.
const THIN_STRIP_MOST_LENGTH_IN: f64 = 2.1;

/// A paper region's pixels (crop positions) shared out among the paint regions (by
/// component, as `labels` numbers them from 1) that reach them first through the
/// region, the brightest paper first (`darkness`, at a map-plane position: 765 less
/// the sum of the channels, by steps of [`SEAM_STEP_DARKER`]): a flood from the paint
/// that crosses a dark line last. Those within [`CONTACT_REACH`] of paint start from
/// the nearest such paint, the rest follow their neighbours.
///
/// Two blocks in contact meet along a seam darker than the paper either side: the crack
/// between them, their bevels, the taller block's face. Shared by distance alone, a
/// fresh block's strip, 0.19 in deep, against a spent enemy's band and label, 0.68 in
/// deep, drew the line through the label: the fresh block read spent and 0.2 in off,
/// and the enemy was lost. On our renderer, a marked fresh blue block face to face with
/// a red one (6 seeds x 8 headings x sharp and 0.04 in rounded edges; the red block
/// spent and marked, spent and unmarked, or fresh: 288 tables), the red block was
/// misread on 35 tables and the blue on 53; flooded brightest first, 15 and 47. Where
/// no seam shows (the camera behind the fresh block, whose top hides the enemy's band)
/// paper floods as distance shares it, and the fresh block's share runs into the spent
/// enemy's label: [`detect_sampled`] gives the paper where that label was read back to
/// the enemy, and the blue block was then misread on 7 of the 288 tables (the red on
/// 13).
fn share_out(
    region: &[(u32, u32)],
    labels: &Labels,
    class: &[u8],
    sizes: &[usize],
    darkness: impl Fn(u32, u32) -> u16,
) -> Vec<(usize, Vec<(u32, u32)>)> {
    const UNSET: usize = usize::MAX;
    let (w, h) = labels.dimensions();
    let index: std::collections::HashMap<(u32, u32), usize> =
        region.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let mut owner = vec![UNSET; region.len()];
    // Pixels owned and not yet spread from: the brightest first, by steps of
    // [`SEAM_STEP_DARKER`], then the first owned.
    let level = |x: u32, y: u32| darkness(x, y) / SEAM_STEP_DARKER;
    let mut queue = std::collections::BinaryHeap::new();
    let mut pushed = 0usize;
    let paint_at = |x: u32, y: u32, dx: i64, dy: i64| {
        let (nx, ny) = (x as i64 + dx, y as i64 + dy);
        if nx < 0 || ny < 0 || nx >= i64::from(w) || ny >= i64::from(h) {
            return None;
        }
        let n = labels.get_pixel(nx as u32, ny as u32).0[0] as usize;
        (n > 0 && class[n - 1] != PAPER && sizes[n - 1] >= LEAST_SHARING_PAINT_PX).then(|| n - 1)
    };
    for reach in 1..=2 {
        for (i, &(x, y)) in region.iter().enumerate() {
            if owner[i] != UNSET {
                continue;
            }
            let ring = CONTACT_REACH
                .iter()
                .filter(|(dx, dy)| dx.abs().max(dy.abs()) == reach);
            if let Some(paint) = ring.filter_map(|&(dx, dy)| paint_at(x, y, dx, dy)).next() {
                owner[i] = paint;
                queue.push(std::cmp::Reverse((level(x, y), pushed, i)));
                pushed += 1;
            }
        }
    }
    while let Some(std::cmp::Reverse((_, _, i))) = queue.pop() {
        let (x, y) = region[i];
        for (dx, dy) in CONTACT_REACH
            .iter()
            .filter(|(dx, dy)| dx.abs().max(dy.abs()) == 1)
        {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            if nx < 0 || ny < 0 {
                continue;
            }
            if let Some(&j) = index.get(&(nx as u32, ny as u32))
                && owner[j] == UNSET
            {
                owner[j] = owner[i];
                let (jx, jy) = region[j];
                queue.push(std::cmp::Reverse((level(jx, jy), pushed, j)));
                pushed += 1;
            }
        }
    }
    let mut shares: Vec<(usize, Vec<(u32, u32)>)> = Vec::new();
    for (i, &p) in region.iter().enumerate() {
        if owner[i] == UNSET {
            continue;
        }
        match shares.iter_mut().find(|(paint, _)| *paint == owner[i]) {
            Some((_, share)) => share.push(p),
            None => shares.push((owner[i], vec![p])),
        }
    }
    shares
}

/// How much darker paper reads (in the sum of its channels, of 765) for the flood that
/// shares it out to reach it a step later (see [`share_out`]): a sixteenth of the
/// scale. Within a step, paper floods in the order it is reached, as distance shares
/// it: flooded by its every shade, the flood ran along the paper's noise, and two fresh
/// blocks face to face on our renderer, whose strips meet with no seam between, read
/// off (in the scan above, 12 of 192 pieces, none before).
const SEAM_STEP_DARKER: u16 = 48;

/// Paint regions smaller than this (map-plane pixels) claim no paper when it is shared:
/// the seam between two blocks in contact, a dark line through their paper, reads as a
/// few specks of the taller block's paint, and flooding from them would take the
/// other's paper beside the seam before its own paint reached it.
const LEAST_SHARING_PAINT_PX: usize = 12;

/// How much darker than the colour model's band value paper may be and still read as
/// paper: the far corner of a table under one lamp gets about a quarter less light.
const PAPER_IN_SHADE: f64 = 0.75;

/// Tells paint, paper and skin from the map.
struct Classifier<'a> {
    colours: &'a ColourModel,
    /// By a pixel's brightest channel (0-255): the least spread between its brightest
    /// and dimmest channels that may be paint or skin, 256 when none may. Neither is
    /// paler than the least saturation of the two, so most of the map is rejected on
    /// two table look-ups before any hue is worked out.
    least_spread: [u16; 256],
    /// By a pixel's brightest channel: the most spread paper (labels, facing strips)
    /// shows, -1 when paper is never that dark.
    paper_spread: [i16; 256],
}

impl<'a> Classifier<'a> {
    /// Neither paint nor skin is paler than this.
    fn least_saturation(colours: &ColourModel) -> f64 {
        colours
            .sides
            .iter()
            .map(|s| FAINT_SCALE * s.min_saturation)
            .fold(SKIN_MIN_SATURATION, f64::min)
    }

    /// Paper is at least this bright, 0-255: the colour model's band value, with room
    /// for a corner of the table the light reaches less.
    fn paper_min_value(colours: &ColourModel) -> f64 {
        PAPER_IN_SHADE * colours.band_min_value * 255.0
    }

    fn new(colours: &'a ColourModel) -> Self {
        let least_saturation = Self::least_saturation(colours);
        let paper_min_value = Self::paper_min_value(colours);
        // Each table holds where a comparison in f64 changes its answer as the spread
        // grows, for each brightest channel: worked out here with the very comparisons
        // it stands for, so every pixel gets the answer those would give.
        let spreads = || (0..=255u8).map(f64::from);
        Self {
            colours,
            least_spread: std::array::from_fn(|max| {
                let max = max as f64;
                if max == 0.0 {
                    return 1; // black has no hue: never paint or skin
                }
                spreads()
                    .take_while(|&d| d < least_saturation * max)
                    .count() as u16
            }),
            paper_spread: std::array::from_fn(|max| {
                let max = max as f64;
                if max >= paper_min_value {
                    let paper = |&d: &f64| d <= colours.band_max_saturation * max;
                    spreads().take_while(paper).count() as i16 - 1
                } else {
                    -1
                }
            }),
        }
    }

    // Every pixel the coarse pass and the tile reads take goes through here: inlined
    // there, the table lookups stay in the loop (left to the compiler, the call was kept
    // out of line when `detect_sampled` grew, at 0.4 ms a 1080p frame).
    #[inline(always)]
    fn class(&self, rgb: [u8; 3]) -> Class {
        let max = rgb.iter().copied().max().unwrap_or(0);
        let min = rgb.iter().copied().min().unwrap_or(0);
        let spread = max - min;
        if u16::from(spread) < self.least_spread[usize::from(max)] {
            let paper = i16::from(spread) <= self.paper_spread[usize::from(max)];
            return if paper { Class::Paper } else { Class::Map };
        }
        Self::by_hue(self.colours, rgb)
    }

    /// The class of a pixel saturated enough to be paint or skin.
    fn by_hue(colours: &ColourModel, rgb: [u8; 3]) -> Class {
        let hsv = Hsv::from_rgb(rgb);
        match colours.side_of(hsv) {
            Some(side) => Class::Side(side),
            None if is_skin(hsv) => colours
                .side_of_paler(hsv, FAINT_SCALE)
                .map_or(Class::Skin, Class::SkinOrFaint),
            None => colours
                .side_of_paler(hsv, FAINT_SCALE)
                .map_or(Class::Map, Class::Faint),
        }
    }
}

#[cfg(test)]
mod classifier_tests {
    use super::{Class, Classifier};
    use crate::vision::colour::ColourModel;

    /// The classification as worked out in f64 for every pixel before the tables
    /// (`Classifier::least_spread`, `Classifier::paper_spread`) took its first step.
    fn reference(colours: &ColourModel, rgb: [u8; 3]) -> Class {
        let least_saturation = Classifier::least_saturation(colours);
        let paper_min_value = Classifier::paper_min_value(colours);
        let max = rgb.iter().copied().max().unwrap_or(0);
        let min = rgb.iter().copied().min().unwrap_or(0);
        if max == 0 || f64::from(max - min) < least_saturation * f64::from(max) {
            let paper = f64::from(max - min) <= colours.band_max_saturation * f64::from(max)
                && f64::from(max) >= paper_min_value;
            return if paper { Class::Paper } else { Class::Map };
        }
        Classifier::by_hue(colours, rgb)
    }

    /// Every one of the 16.7 million RGB values gets the built-in model's class the
    /// f64 reference gives it.
    #[test]
    fn the_classes_are_the_f64_references_for_every_rgb_value() {
        let colours = ColourModel::builtin();
        let classifier = Classifier::new(&colours);
        let mut counts = [0usize; 6];
        for r in 0..=255u8 {
            for g in 0..=255u8 {
                for b in 0..=255u8 {
                    let class = classifier.class([r, g, b]);
                    assert_eq!(class, reference(&colours, [r, g, b]), "rgb {r} {g} {b}");
                    counts[match class {
                        Class::Map => 0,
                        Class::Side(_) => 1,
                        Class::Paper => 2,
                        Class::Skin => 3,
                        Class::Faint(_) => 4,
                        Class::SkinOrFaint(_) => 5,
                    }] += 1;
                }
            }
        }
        // Each class is somewhere in the cube: the comparison covered all six.
        assert!(counts.iter().all(|&n| n > 1000), "{counts:?}");
    }

    /// The tables stand for the comparisons whatever the model's thresholds: models a
    /// calibration may learn (low and high saturations, dim and bright paper, a
    /// threshold falling exactly on a spread over a brightest channel) give the
    /// reference's class for every pair of brightest and dimmest channel, which is all
    /// the tables depend on.
    #[test]
    fn the_tables_agree_with_the_reference_on_any_model() {
        let builtin = ColourModel::builtin();
        let mut models = Vec::new();
        for (min_saturation, band_max_saturation, band_min_value) in [
            (0.05, 0.0, 0.0),
            (0.25, 0.25, 0.5),
            (0.5, 0.1, 1.0),
            (1.0, 1.0, 0.3),
            (1.5, 0.2, 1.5),
            (0.0, 0.15, 0.8),
        ] {
            let mut model = builtin.clone();
            for side in &mut model.sides {
                side.min_saturation = min_saturation;
            }
            model.band_max_saturation = band_max_saturation;
            model.band_min_value = band_min_value;
            models.push(model);
        }
        for colours in &models {
            let classifier = Classifier::new(colours);
            for max in 0..=255u8 {
                for min in 0..=max {
                    for rgb in [
                        [max, min, min],
                        [min, max, min],
                        [min, min + (max - min) / 2, max],
                    ] {
                        assert_eq!(
                            classifier.class(rgb),
                            reference(colours, rgb),
                            "rgb {rgb:?}, model {colours:?}"
                        );
                    }
                }
            }
        }
    }
}

/// A block's front side can show as a blob of its own, cut off from the painted top by
/// the facing band. It is in shade: a blob of the same paint next to a much brighter one
/// (within half that one's length and [`SIDE_FACE_REACH_IN`] of its middle) is that
/// brighter piece's side, not a piece, when it was read less surely than the brighter
/// one, or lies within its reading grown by the reach (a face is part of the body whose
/// top was read).
///
/// A reading surer than the brighter one that reaches past it is a piece of its own: ink
/// of the side's hue read as a piece can be the brighter (printed blue is paler than a
/// block's paint). On our renderer's market-town map, a marked block standing across a
/// stream, read with confidence 0.95, its end on the stream's stretch read as a block
/// (0.59), was dropped as that stretch's face, though it reached a block's length past
/// the stretch's side. Of the other six readings dropped on 60 of our tables, 20
/// touching tables and the four photoreal frames, none is surer than the brighter one
/// and reaches past it; a phantom these rules drop, a block-and-a-quarter reading across
/// the joint of two blocks in a line (a photoreal frame compressed again), reaches past.
fn drop_side_faces(found: Vec<(DetectedPiece, f64)>) -> Vec<DetectedPiece> {
    // Whether `p`'s two ends lie within `q`'s reading grown by the reach.
    let within = |p: &DetectedPiece, q: &DetectedPiece| {
        let axis = |h: f64| [h.to_radians().cos(), h.to_radians().sin()];
        let (p_axis, q_axis) = (axis(p.heading_deg), axis(q.heading_deg));
        [-0.5, 0.5].iter().all(|end| {
            let offset = [
                p.x_in + end * p.length_in * p_axis[0] - q.x_in,
                p.y_in + end * p.length_in * p_axis[1] - q.y_in,
            ];
            let along = offset[0] * q_axis[0] + offset[1] * q_axis[1];
            let across = offset[0] * q_axis[1] - offset[1] * q_axis[0];
            along.abs() <= 0.5 * q.length_in + SIDE_FACE_REACH_IN
                && across.abs() <= 0.5 * q.width_in + SIDE_FACE_REACH_IN
        })
    };
    let keep: Vec<bool> = found
        .iter()
        .map(|(p, bright)| {
            !found.iter().any(|(q, q_bright)| {
                q.color == p.color
                    && *q_bright > 1.15 * bright
                    && (q.x_in - p.x_in).hypot(q.y_in - p.y_in)
                        < 0.5 * q.length_in + SIDE_FACE_REACH_IN
                    && (p.confidence <= q.confidence || within(p, q))
            })
        })
        .collect();
    found
        .into_iter()
        .zip(keep)
        .filter_map(|((p, _), k)| k.then_some(p))
        .collect()
}

/// How far past a piece's reading its side face, read as a piece of its own, may reach
/// ([`drop_side_faces`]): a block's face, 0.75 in tall, seen from the camera's side.
const SIDE_FACE_REACH_IN: f64 = 0.4;

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

    /// Every map-plane pixel that `wanted` asks for, read from `image` as the detector
    /// reads the map (through the lens, white-balanced on the corner cards) and handed
    /// to `put`: what the empty map's reference learns from the live feed (see
    /// [`super::MapReference::learn`]). Pixels on a corner card or out of the frame are
    /// not read.
    pub fn read_plane(
        &self,
        image: &RgbImage,
        calib: &Calibration,
        wanted: &dyn Fn(u32, u32) -> bool,
        put: &mut dyn FnMut(u32, u32, [u8; 3]),
    ) {
        let reader = FrameReader::new(image, calib);
        let (tiles_w, tiles_h) = self.tiles_size();
        for (tx, ty) in (0..tiles_h).flat_map(|ty| (0..tiles_w).map(move |tx| (tx, ty))) {
            for (k, tap) in (0..).zip(self.tile(tx, ty)) {
                let (x, y) = (tx * TILE_PX + k % TILE_PX, ty * TILE_PX + k / TILE_PX);
                if x >= self.w || y >= self.h || !wanted(x, y) {
                    continue;
                }
                if let Some(rgb) = reader.read(*tap) {
                    put(x, y, rgb);
                }
            }
        }
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
    /// The levels' black, subtracted first, and gains in 1/256ths ([`Levels`]).
    black: [u32; 3],
    gains: [u32; 3],
}

impl<'a> FrameReader<'a> {
    fn new(image: &'a RgbImage, calib: &Calibration) -> Self {
        let levels = white_balance(image, calib);
        Self {
            data: image.as_raw().as_slice(),
            stride: 3 * image.width() as usize,
            black: levels.black.map(|b| b.round() as u32),
            gains: levels.gains.map(|g| (g * 256.0).round() as u32),
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
            let v = v.saturating_sub(self.black[c]);
            *value = ((v * self.gains[c] + 128) >> 8).min(255) as u8;
        }
        Some(out)
    }
}

/// The map plane (z = 0) as read at [`PX_PER_IN`], white-balanced, where it was read.
struct MapPlane {
    w: u32,
    /// `None` where the map point falls outside the frame, on a corner card, or far from
    /// any paint (not read).
    pixels: Vec<Option<[u8; 3]>>,
}

impl MapPlane {
    fn at(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        self.pixels[(y * self.w + x) as usize]
    }

    /// The pixel at (x, y), `None` off the plane or where it is not read.
    fn at_checked(&self, x: i64, y: i64) -> Option<[u8; 3]> {
        let h = i64::from(self.pixels.len() as u32 / self.w);
        let inside = (0..i64::from(self.w)).contains(&x) && (0..h).contains(&y);
        inside.then(|| self.at(x as u32, y as u32)).flatten()
    }
}

/// How a frame's raw channel values are read: `black` taken off, then times `gains`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Levels {
    pub black: [f64; 3],
    pub gains: [f64; 3],
}

impl Levels {
    pub fn apply(&self, rgb: [u8; 3]) -> [u8; 3] {
        [0, 1, 2].map(|c| {
            ((f64::from(rgb[c]) - self.black[c]).max(0.0) * self.gains[c]).min(255.0) as u8
        })
    }
}

/// Per-channel gains that make the corner cards' white margins grey: the light's colour
/// cast taken out, so paint and band colours read the same under a warm pub lamp as
/// under daylight. The light's brightness is kept, but where the cards read darker than
/// [`LEAST_CARD_WHITE`]: a dim room, or a camera that exposes for the dark map, is
/// brought up to it. And where the tags' black reads paler against the cards' white than
/// [`MOST_TAG_BLACK`] (a camera's flat picture, haze, glare on the lens), what it reads
/// above that is taken off every pixel first.
pub(super) fn white_balance(image: &RgbImage, calib: &Calibration) -> Levels {
    let CardLevels { white, tag } = card_levels(image, calib);
    if white.iter().any(|m| *m < 40.0) {
        // the cards are not lit enough to tell
        return Levels {
            black: [0.0; 3],
            gains: [1.0; 3],
        };
    }
    let grey = white.iter().sum::<f64>() / 3.0;
    let black = black_above_floor(white, tag);
    let lift = (LEAST_CARD_WHITE / grey).max(1.0);
    Levels {
        black,
        gains: [0, 1, 2].map(|c| lift * grey / (white[c] - black[c])),
    }
}

/// The corner cards' white and their tags' black, each channel's median over the four
/// cards, as the frame reads them (0-255).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct CardLevels {
    pub white: [f64; 3],
    pub tag: [f64; 3],
}

/// Reads [`CardLevels`] where `calib` places the cards: each card's white margin between
/// its edge and its tag, 0.12 in in, and its tag's black border, a cell (0.1875 in)
/// wide from 0.25 in in, along its middle.
pub(super) fn card_levels(image: &RgbImage, calib: &Calibration) -> CardLevels {
    let (mw, mh) = (calib.map_w_in, calib.map_h_in);
    // Each card's spots, about its top-left corner.
    let margin = |t: f64| [(t, 0.12), (t, 1.88), (0.12, t), (1.88, t)];
    let border = |t: f64| [(t, 0.344), (t, 1.656), (0.344, t), (1.656, t)];
    let read = |spots: &dyn Fn(f64) -> [(f64, f64); 4], from: f64, to: f64| {
        let mut samples: [Vec<f64>; 3] = Default::default();
        for (x0, y0) in [
            (0.0, 0.0),
            (mw - 2.0, 0.0),
            (mw - 2.0, mh - 2.0),
            (0.0, mh - 2.0),
        ] {
            for k in 0..16 {
                let t = from + (to - from) * f64::from(k) / 15.0;
                for (x, y) in spots(t) {
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
        samples.map(|mut v| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        })
    };
    CardLevels {
        white: read(&margin, 0.2, 1.8),
        tag: read(&border, 0.4, 1.6),
    }
}

/// What to take off each channel so that the tags' black border, read at `tag`, reads
/// no paler than [`MOST_TAG_BLACK`] of the cards' `white`: taking b off every value and
/// scaling the white back, (tag - b) / (white - b) is the share. A border reading half
/// as bright as the white or more is not seen as black (hands over the cards, glare),
/// and nothing is taken off.
fn black_above_floor(white: [f64; 3], tag: [f64; 3]) -> [f64; 3] {
    if (0..3).any(|c| tag[c] >= 0.5 * white[c]) {
        return [0.0; 3];
    }
    [0, 1, 2].map(|c| ((tag[c] - MOST_TAG_BLACK * white[c]) / (1.0 - MOST_TAG_BLACK)).max(0.0))
}

/// The palest the corner tags' black border reads, as a share of the cards' white (in
/// the frame's 8-bit values, channel by channel): the palest of the frames where the
/// brightness and saturation floors of paint and paper were measured, the photoreal
/// frames at 0.173 to 0.179 (our renderer's tables read 0.10 to 0.11). A camera whose
/// picture is flatter (its blacks lifted, as a webcam's tone curve, haze or glare on
/// the lens lift them) washes paint toward grey, and is read as if its black were
/// there. The photoreal frames with their contrast cut by a fifth about mid-grey lost
/// 54 of their 117 pieces, and with every value v read as 40 + 0.84 v, 67; brought
/// down to 0.2 of the white, the first still lost 6 and the second 67 (the photoreal
/// red tops' saturation lies within 0.04 of paint's floor).
const MOST_TAG_BLACK: f64 = 0.18;

/// The least grey level (0-255) the corner cards' white margins are read at: three
/// quarters of full scale. The brightness floors of paper, the facing band and paint,
/// and the steps of brightness that part two blocks' paper, were measured on frames
/// whose cards read 193 to 237 (our renderer's tables) and 200 to 225 (the photoreal
/// frames); a frame darker than those is read as if its cards were at their edge.
/// Without it, with 60 % of the light, 10 tables on each of our four maps lost 44 % of
/// their pieces (recall 0.993 as rendered, 0.563 so; 0.994 with it): labels and strips
/// fell below paper's floor. On a photoreal frame with 75 % of the light, a block's
/// label on its back face, in shade, did: its faces read as neither paint nor paper, and
/// it was taken for ink. Frames at the level or above are read as they come: brought
/// up to one level, the photoreal frames whose cards read 200 and 206 read worse
/// (heading p95 1.37 to 1.97 deg).
const LEAST_CARD_WHITE: f64 = 0.75 * 255.0;

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

/// The lit paint of a blob: its paint as bright as its brightest tenth allows (the sides
/// are in shade), as pixel centres, and the brightness (HSV value) it was told by.
/// `None` when the blob has no paint.
fn lit_paint(blob: &[Px], plane: &MapPlane) -> Option<(f64, Vec<[f64; 2]>)> {
    let value = |p: &Px| {
        (!p.paper)
            .then(|| plane.at(p.x, p.y))
            .flatten()
            .map(|rgb| Hsv::from_rgb(rgb).v)
    };
    let mut values: Vec<f64> = blob.iter().filter_map(value).collect();
    if values.is_empty() {
        return None;
    }
    let ninth_decile = (values.len() * 9) / 10;
    let bright = nth_smallest(&mut values, ninth_decile);
    let lit = blob
        .iter()
        .filter(|p| value(p).is_some_and(|v| v >= 0.8 * bright))
        .map(|p| p.centre())
        .collect();
    Some((bright, lit))
}

/// Where a block's top ends toward the camera when its lit paint runs past the top: the
/// side face toward the camera, lit nearly as the top (by a lamp on that side, as under
/// the photoreal frames' lights), has joined it. The top ends where the brightness steps
/// down from the top's own middle to the side face's, halfway, read between two pixels'
/// middles. `None` where no step shows (under 5% of the top's brightness: the JPEG's
/// noise and a top's own shading are that large).
///
/// `[far, near]` are the lit paint's edges on `unit`, the far one bordering the map;
/// only the paint within `band` (an axis, and the stretch of it) counts, the middle of
/// the top across, where no end face or corner mixes in.
fn top_step(
    blob: &[Px],
    plane: &MapPlane,
    centre: [f64; 2],
    unit: [f64; 2],
    band: ([f64; 2], f64, f64),
    [far, near]: [f64; 2],
    top_px: f64,
) -> Option<f64> {
    let inward = if near > far { 1.0 } else { -1.0 };
    let seen = (near - far).abs();
    // Each paint pixel's depth in from the far edge, and its brightness, by depth.
    let mut tones: Vec<(f64, f64)> = paint_tones(blob, plane, centre, unit, band)
        .map(|(at, v)| ((at - far) * inward, v))
        .filter(|(depth, _)| (0.0..=seen).contains(depth))
        .collect();
    tones.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median_in = |from: f64, to: f64| {
        let start = tones.partition_point(|(d, _)| *d < from);
        let end = tones.partition_point(|(d, _)| *d < to);
        let mut v: Vec<f64> = tones[start..end].iter().map(|(_, v)| *v).collect();
        let n = v.len();
        (n > 0).then(|| nth_smallest(&mut v, n / 2))
    };
    let top = median_in(0.25 * top_px, 0.75 * top_px)?;
    let side = median_in(top_px + EDGE_BLUR_PX, seen)?;
    if top - side < 0.05 * top {
        return None;
    }
    let half = 0.5 * (top + side);
    // One pixel at a time toward the camera, from a few pixels short of where the top
    // ends (or its middle, on a top that narrow): a dip nearer its far edge is the top's
    // own (its strip's edge, its label's print, a satin sheen), not its end.
    let (mut depth, mut before) = ((top_px - TOP_STEP_REACH_PX).max(0.5 * top_px), top);
    while depth < seen {
        if let Some(v) = median_in(depth, depth + 1.0) {
            if v < half {
                let crossing = ((before - half) / (before - v)).clamp(0.0, 1.0);
                return Some(far + inward * (depth - 0.5 + crossing));
            }
            before = v;
        }
        depth += 1.0;
    }
    None
}

/// A blob's paint within `band` (an axis, and the stretch of it), as each pixel's offset
/// from `centre` along `unit` and its brightness (HSV value): what a step in brightness
/// along a top is looked for in ([`top_step`], [`seam_near`]).
fn paint_tones<'a>(
    blob: &'a [Px],
    plane: &'a MapPlane,
    centre: [f64; 2],
    unit: [f64; 2],
    (across, from, to): ([f64; 2], f64, f64),
) -> impl Iterator<Item = (f64, f64)> + 'a {
    blob.iter()
        .filter(move |p| !p.paper && (from..=to).contains(&dot(sub(p.centre(), centre), across)))
        .filter_map(move |p| {
            let v = Hsv::from_rgb(plane.at(p.x, p.y)?).v;
            Some((dot(sub(p.centre(), centre), unit), v))
        })
}

/// How far short of a top's size from its far edge its step in brightness may lie, in
/// map-plane pixels: the far edge is found to a pixel, and the bevel and blur at the
/// step take another pixel or two.
const TOP_STEP_REACH_PX: f64 = 3.0;

/// How far a piece's paint may differ in saturation from the ink it stands on and still
/// be taken for that ink, at the least: the ink's own spread is added (see
/// [`off_the_ink`]).
const TONE_STEP: f64 = 0.1;

/// The parts of a blob that no piece reads whole (a river, a stream or a road of a
/// side's colour, with whatever stands on it joined) whose paint differs from the ink's.
///
/// Most of such a blob is the ink: its saturation is the blob's median. Saturation,
/// unlike brightness, is the same in a shadow and in the light, so a piece's shadow on
/// the ink stays ink, while a block standing on a river shows its own paint: deeper or
/// paler than the print (a navy block on a light-blue stream, a satin block on a
/// washed-out river). Pixels further from the median than [`TONE_STEP`] and three
/// times the ink's spread, with the blob's paper (a piece's label or strip), are
/// grouped into connected parts; each part holding paint is a blob to measure.
fn off_the_ink(blob: &[Px], plane: &MapPlane) -> Vec<Vec<Px>> {
    let saturation = |p: &Px| plane.at(p.x, p.y).map(|rgb| Hsv::from_rgb(rgb).s);
    let mut ink: Vec<f64> = blob
        .iter()
        .filter(|p| !p.paper)
        .filter_map(saturation)
        .collect();
    if ink.len() < 2 {
        return Vec::new();
    }
    let half = ink.len() / 2;
    let median = nth_smallest(&mut ink, half);
    let mut deviations: Vec<f64> = ink.iter().map(|s| (s - median).abs()).collect();
    // The median absolute deviation, as a normal distribution's sigma.
    let spread = 1.4826 * nth_smallest(&mut deviations, half);
    let step = TONE_STEP.max(3.0 * spread);
    let apart: Vec<Px> = blob
        .iter()
        .filter(|p| p.paper || saturation(p).is_some_and(|s| (s - median).abs() > step))
        .copied()
        .collect();
    connected_parts(&apart)
        .into_iter()
        .filter(|part| part.iter().any(|p| !p.paper))
        .collect()
}

/// A pixel's eight neighbours, as (dx, dy).
const NEIGHBOURS: [(i64, i64); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// How much paler than a side's least saturation a pixel of its hue may be and still
/// be looked at as a cube's (see [`faint_cubes`]). A cube's matte top under a ceiling
/// light reads paler than a block's, whose side faces and label keep it above the floor.
const FAINT_SCALE: f64 = 0.8;

/// A faint spot of the coarse pass is a cube's when it spans no more coarse pixels than
/// this each way (0.6 in: a cube's top with its side face).
const FAINT_CUBE_COARSE: u32 = 3;

/// Tiles within this many coarse pixels of a faint spot that may be a cube or a block are
/// read in full.
const FAINT_SPOT_READ: u32 = 3;

/// The coarse pass's faint regions, each as its side and its bounds (first and last
/// coarse column and row).
fn faint_spans(faint: &image::GrayImage) -> Vec<(usize, [u32; 4])> {
    let labels = label_components(faint);
    let mut spans: Vec<(u8, [u32; 4])> = Vec::new();
    for (x, y, l) in labels.enumerate_pixels() {
        let l = l.0[0] as usize;
        if l == 0 {
            continue;
        }
        if spans.len() < l {
            spans.resize(l, (0, [u32::MAX, u32::MAX, 0, 0]));
        }
        let (side, b) = &mut spans[l - 1];
        *side = faint.get_pixel(x, y).0[0];
        *b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
    }
    spans
        .into_iter()
        .map(|(side, bounds)| (usize::from(side - 1), bounds))
        .collect()
}

/// The coarse pass's faint spots small enough to be a cube: (side, coarse centre). A
/// river, a road or a town's roofs in a side's hue make larger faint regions.
fn faint_cube_spots(spans: &[(usize, [u32; 4])]) -> Vec<(usize, [u32; 2])> {
    spans
        .iter()
        .filter(|(_, [x0, y0, x1, y1])| x1 - x0 < FAINT_CUBE_COARSE && y1 - y0 < FAINT_CUBE_COARSE)
        .map(|&(side, [x0, y0, x1, y1])| (side, [(x0 + x1) / 2, (y0 + y1) / 2]))
        .collect()
}

/// A faint region of the coarse pass may be a block's top when it is larger than a
/// cube's and spans no more coarse pixels than this each way (2.6 in: a block's top
/// with its end face, along its length).
const FAINT_BLOCK_COARSE: u32 = 13;

/// The coarse pass's faint regions the size of a block's top: (side, coarse bounds).
fn faint_block_spots(spans: &[(usize, [u32; 4])]) -> Vec<(usize, [u32; 4])> {
    spans
        .iter()
        .filter(|(_, [x0, y0, x1, y1])| {
            let (w, h) = (x1 - x0, y1 - y0);
            w.max(h) >= FAINT_CUBE_COARSE && w.max(h) < FAINT_BLOCK_COARSE
        })
        .copied()
        .collect()
}

/// HQ cubes whose paint reads paler than their side's least saturation: each faint spot
/// of the coarse pass with no piece's footprint within [`FAINT_CUBE_CLEAR_IN`] has been
/// read in full, and the pixels of its side's hue (paint or faint) connected to it are
/// a cube when they stand alone, with no more of that hue in a ring around them (a
/// river, or a roof among roofs, is ink that goes on), are mostly faint (on the
/// photoreal frames such cubes are 5 to 32 % paint; a roof of the town map whose
/// outline reads faint, 92 %), and measure as a cube.
fn faint_cubes(
    faint: &FaintReader,
    spots: &[(usize, [u32; 2])],
    found: &[DetectedPiece],
) -> Vec<DetectedPiece> {
    // How far around a spot its cube is looked for, in map-plane pixels.
    const WINDOW_PX: i64 = 16;
    // A cube's silhouette, its top with a side face, is at most 0.6 in square: more
    // pixels of the hue connected to the spot are ink that goes on.
    const MOST_PX: usize = 144;
    // The ring around a cube that must be bare of its hue: from 2 to 4 px out.
    const RING: std::ops::RangeInclusive<i64> = 2..=4;
    let mut cubes: Vec<DetectedPiece> = Vec::new();
    for &(side, [cx, cy]) in spots {
        let centre = [i64::from(cx * COARSE_STEP), i64::from(cy * COARSE_STEP)];
        // Clear of every piece's footprint (as read): a spot at a block's edge is its
        // blurred rim, or its shade.
        let clear = |p: &DetectedPiece| {
            let at = [centre[0] as f64 / PX_PER_IN, centre[1] as f64 / PX_PER_IN];
            off_footprint_in(p, at) >= FAINT_CUBE_CLEAR_IN
        };
        if !found.iter().chain(&cubes).all(clear) {
            continue;
        }
        let of_hue = |p: [i64; 2]| faint.of_side_hue(side, p);
        let around =
            (-2..=2).flat_map(|dy| (-2..=2).map(move |dx| [centre[0] + dx, centre[1] + dy]));
        let Some(seen) = flood_of_hue(around, centre, WINDOW_PX, MOST_PX, of_hue) else {
            continue;
        };
        // Alone: nothing of its hue in the ring around it.
        let near = |[x, y]: [i64; 2], reach: i64| {
            seen.iter()
                .any(|&[u, v]| (u - x).abs() <= reach && (v - y).abs() <= reach)
        };
        let (x0, x1) = (
            seen.iter().map(|p| p[0]).min(),
            seen.iter().map(|p| p[0]).max(),
        );
        let (y0, y1) = (
            seen.iter().map(|p| p[1]).min(),
            seen.iter().map(|p| p[1]).max(),
        );
        let (Some(x0), Some(x1), Some(y0), Some(y1)) = (x0, x1, y0, y1) else {
            continue;
        };
        let outer = *RING.end();
        let ring_hue = (y0 - outer..=y1 + outer)
            .flat_map(|y| (x0 - outer..=x1 + outer).map(move |x| [x, y]))
            .filter(|&p| !near(p, *RING.start() - 1) && near(p, outer))
            .filter(|&p| of_hue(p))
            .count();
        if ring_hue > 0 {
            continue;
        }
        let read = faint.measure(&seen, side);
        cubes.extend(read.into_iter().filter(|piece| piece.kind == "hq"));
    }
    cubes
}

/// What the passes for faint pieces ([`faint_cubes`], [`faint_blocks`]) read with.
#[derive(Clone, Copy)]
struct FaintReader<'a> {
    plane: &'a MapPlane,
    classifier: &'a Classifier<'a>,
    camera: (f64, f64, f64),
    options: &'a DetectOptions<'a>,
    /// Whether the empty map explains a colour read at a map-plane pixel as its ink.
    is_ink: &'a dyn Fn(u32, u32, [u8; 3]) -> bool,
}

impl FaintReader<'_> {
    /// Whether the pixel at `[x, y]` is of side `side`'s hue, its paint or faint, and not
    /// the map's ink as the empty map knows it.
    fn of_side_hue(&self, side: usize, [x, y]: [i64; 2]) -> bool {
        self.plane.at_checked(x, y).is_some_and(|rgb| {
            let of_side = match self.classifier.class(rgb) {
                Class::Side(s) | Class::Faint(s) | Class::SkinOrFaint(s) => s == side,
                _ => false,
            };
            of_side && !(self.is_ink)(x as u32, y as u32, rgb)
        })
    }

    /// The pieces a faint region of side `side`'s hue (`seen`, its pixels) reads as, by
    /// [`measure_blob`]; none when it is mostly paint: paint read mostly in full is the
    /// first pass's to judge (a roof of the side's hue, whose outline reads faint, is not
    /// read again with it).
    fn measure(&self, seen: &[[i64; 2]], side: usize) -> Vec<DetectedPiece> {
        let is_paint = |&[x, y]: &[i64; 2]| {
            self.plane
                .at(x as u32, y as u32)
                .is_some_and(|rgb| self.classifier.class(rgb) == Class::Side(side))
        };
        if 2 * seen.iter().filter(|p| is_paint(p)).count() >= seen.len() {
            return Vec::new();
        }
        let blob: Vec<Px> = seen
            .iter()
            .map(|&[x, y]| Px {
                x: x as u32,
                y: y as u32,
                paper: false,
            })
            .collect();
        let name = &self.options.colours.sides[side].name;
        measure_blob(&blob, self.plane, name, self.camera, self.options, false)
            .into_iter()
            .map(|(piece, _)| piece)
            .collect()
    }
}

/// The pixels that `of_hue` takes, connected (each to its eight neighbours) to the
/// `seeds` it takes, in the order found; `None` when there are none, or when they run
/// past `window_px` of `centre` either way or past `most_px` pixels: ink that goes on.
fn flood_of_hue(
    seeds: impl Iterator<Item = [i64; 2]>,
    centre: [i64; 2],
    window_px: i64,
    most_px: usize,
    of_hue: impl Fn([i64; 2]) -> bool,
) -> Option<Vec<[i64; 2]>> {
    // Marks on a grid the window's size.
    let span = 2 * window_px + 1;
    let cell = |[x, y]: [i64; 2]| {
        let (dx, dy) = (x - centre[0], y - centre[1]);
        (dx.abs() <= window_px && dy.abs() <= window_px)
            .then(|| ((dy + window_px) * span + dx + window_px) as usize)
    };
    let mut marked = vec![false; (span * span) as usize];
    let mut seen: Vec<[i64; 2]> = Vec::new();
    for p in seeds.filter(|&p| of_hue(p)) {
        let c = cell(p)?;
        if !marked[c] {
            marked[c] = true;
            seen.push(p);
        }
    }
    let mut stack = seen.clone();
    while let Some([x, y]) = stack.pop() {
        for (dx, dy) in NEIGHBOURS {
            let n = [x + dx, y + dy];
            let at = cell(n);
            if at.is_some_and(|c| marked[c]) || !of_hue(n) {
                continue;
            }
            let c = at.filter(|_| seen.len() < most_px)?;
            marked[c] = true;
            seen.push(n);
            stack.push(n);
        }
    }
    (!seen.is_empty()).then_some(seen)
}

/// Blocks whose paint reads paler than their side's least saturation all over, side
/// faces too: a paler paint, or satin under a lamp (on the photoreal frames, a blue
/// block reads 0.41 to 0.47 saturated on its top and 0.28 to 0.37 on its side face,
/// under the floor of 0.5). Such a block makes no blob of paint, and [`FaintTops`] never
/// looks at it.
///
/// Each faint region of the coarse pass a block's size ([`faint_block_spots`]) has been
/// read in full. The pixels of its side's hue (faint or paint) connected to it, more
/// than [`FAINT_BLOCK_CLEAR_IN`] from every piece found, within 1.6 in of it and no more
/// than a block's silhouette holds, are measured when they are mostly faint (paint read
/// mostly in full is the first pass's to judge). A river's stretch between two bridges,
/// or a roof, is ink of the same pale hue cut to a block's size: a block is kept only
/// where it stands up ([`stands_up`]).
fn faint_blocks(
    faint: &FaintReader,
    spots: &[(usize, [u32; 4])],
    found: &[DetectedPiece],
) -> Vec<DetectedPiece> {
    let FaintReader {
        plane,
        classifier,
        camera,
        options,
        ..
    } = *faint;
    // How far around a spot's middle its block is looked for, in map-plane pixels: half
    // a block's length, its end face and a margin.
    const WINDOW_PX: i64 = 32;
    // A block's silhouette, its top with its side and end faces, is at most 2.6 by
    // 1.2 in: more pixels of the hue connected to the spot are ink that goes on.
    const MOST_PX: usize = 1200;
    let Some(block) = options.model.shape(UnitKind::Infantry) else {
        return Vec::new();
    };
    let mut blocks: Vec<DetectedPiece> = Vec::new();
    for &(side, [x0, y0, x1, y1]) in spots {
        let centre = [
            i64::from((x0 + x1) / 2 * COARSE_STEP),
            i64::from((y0 + y1) / 2 * COARSE_STEP),
        ];
        // The pieces that may lie within the clearance of a pixel the flood can reach
        // (one within the window): those farther off, by their half-diagonal, cannot.
        let window_in = (WINDOW_PX as f64 + 1.0) * std::f64::consts::SQRT_2 / PX_PER_IN;
        let middle_in = [centre[0] as f64 / PX_PER_IN, centre[1] as f64 / PX_PER_IN];
        let near: Vec<&DetectedPiece> = found
            .iter()
            .chain(&blocks)
            .filter(|p| {
                let reach = window_in + FAINT_BLOCK_CLEAR_IN + 0.5 * p.length_in.hypot(p.width_in);
                (p.x_in - middle_in[0]).hypot(p.y_in - middle_in[1]) <= reach
            })
            .collect();
        let clear = |[x, y]: [i64; 2]| {
            let at = [(x as f64 + 0.5) / PX_PER_IN, (y as f64 + 0.5) / PX_PER_IN];
            near.iter()
                .all(|p| off_footprint_in(p, at) >= FAINT_BLOCK_CLEAR_IN)
        };
        let of_hue = |p: [i64; 2]| faint.of_side_hue(side, p) && clear(p);
        // The spot's own reads of the coarse pass.
        let step = i64::from(COARSE_STEP);
        let reads = (y0..=y1)
            .flat_map(|y| (x0..=x1).map(move |x| [i64::from(x) * step, i64::from(y) * step]));
        let Some(seen) = flood_of_hue(reads, centre, WINDOW_PX, MOST_PX, of_hue) else {
            continue;
        };
        let colour = &options.colours.sides[side];
        let read = faint.measure(&seen, side);
        blocks.extend(read.into_iter().filter(|piece| {
            piece.kind == "block" && stands_up(piece, plane, classifier, colour, camera, block)
        }));
    }
    blocks
}

/// How far from a piece found the pixels of a faint block are looked for, in inches:
/// the blurred rim and the shade beside a piece's paint read faint.
const FAINT_BLOCK_CLEAR_IN: f64 = 0.1;

/// How far a point (map inches) lies outside a piece's footprint as read, in inches.
fn off_footprint_in(piece: &DetectedPiece, at: [f64; 2]) -> f64 {
    let d = [at[0] - piece.x_in, at[1] - piece.y_in];
    let h = piece.heading_deg.to_radians();
    let along = dot(d, [h.cos(), h.sin()]).abs() - 0.5 * piece.length_in;
    let across = dot(d, [-h.sin(), h.cos()]).abs() - 0.5 * piece.width_in;
    along.max(0.0).hypot(across.max(0.0))
}

/// How much darker than its top a block's painted side face toward the camera reads,
/// at the least, for the block to be taken as standing: a face turned from a lamp
/// overhead. On the photoreal frames the side faces beside washed-out tops read 0.68 to
/// 0.82 of their top's brightness; ink is one flat colour.
const SIDE_FACE_MOST_LIGHT: f64 = 0.9;

/// Where a piece standing on the map shows on the map plane: its footprint, and its top
/// `h` above the map, pushed away from the point under the camera (see [`Silhouette`]).
/// The part of the footprint the top leaves bare, toward the camera, is filled by the
/// faces the camera sees from the side.
struct Standing {
    centre: [f64; 2],
    top_centre: [f64; 2],
    /// The piece's length and its front (its depth, as [`heading_of`] reads a heading).
    length: [f64; 2],
    front: [f64; 2],
    /// The footprint's half length and half depth, inches.
    half: [f64; 2],
    /// How much larger than the footprint the top shows.
    grow: f64,
    /// Whether it is an HQ's cube, whose faces carry no label.
    cube: bool,
}

impl Standing {
    fn new(
        piece: &DetectedPiece,
        (cam_x, cam_y, cam_h): (f64, f64, f64),
        shape: &crate::model::Shape,
    ) -> Self {
        let h = piece.heading_deg.to_radians();
        let grow = top_grow(shape.height_in(piece.status), cam_h);
        let centre = [piece.x_in, piece.y_in];
        Self {
            centre,
            top_centre: [
                cam_x + (centre[0] - cam_x) * (1.0 + grow),
                cam_y + (centre[1] - cam_y) * (1.0 + grow),
            ],
            length: [h.cos(), h.sin()],
            front: [h.sin(), -h.cos()],
            half: [0.5 * shape.frontage_in, 0.5 * shape.depth_in(piece.status)],
            grow,
            cube: piece.kind == "hq",
        }
    }

    /// Whether a point lies in a rectangle of the footprint's shape about `middle`,
    /// scaled and grown by `margin_in` (negative: shrunk) each way.
    fn within(&self, p: [f64; 2], middle: [f64; 2], scale: f64, margin_in: f64) -> bool {
        let d = sub(p, middle);
        dot(d, self.length).abs() <= self.half[0] * scale + margin_in
            && dot(d, self.front).abs() <= self.half[1] * scale + margin_in
    }

    fn on_top(&self, p: [f64; 2], margin_in: f64) -> bool {
        self.within(p, self.top_centre, 1.0 + self.grow, margin_in)
    }

    fn on_footprint(&self, p: [f64; 2], margin_in: f64) -> bool {
        self.within(p, self.centre, 1.0, margin_in)
    }

    /// The footprint's length in whole map-plane pixels: a row of pixels along it.
    fn length_px(&self) -> usize {
        (2.0 * self.half[0] * PX_PER_IN) as usize
    }

    /// Whether `p` lies past either end of the footprint, `from_in` to `to_in` beyond
    /// it along the length, and within its width less `from_in`.
    fn past_end(&self, p: [f64; 2], from_in: f64, to_in: f64) -> bool {
        let d = sub(p, self.centre);
        let along = dot(d, self.length).abs() - self.half[0];
        (from_in..=to_in).contains(&along) && dot(d, self.front).abs() <= self.half[1] - from_in
    }

    /// The map-plane pixels, columns and rows, that the footprint and the top lie within.
    fn pixel_bounds(&self) -> [std::ops::RangeInclusive<i64>; 2] {
        let corners = [(self.centre, 1.0), (self.top_centre, 1.0 + self.grow)]
            .into_iter()
            .flat_map(|(middle, scale)| {
                [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]].map(|[a, b]| {
                    let along = scale * self.half[0] * a;
                    let across = scale * self.half[1] * b;
                    [
                        middle[0] + along * self.length[0] + across * self.front[0],
                        middle[1] + along * self.length[1] + across * self.front[1],
                    ]
                })
            });
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for corner in corners {
            for axis in 0..2 {
                lo[axis] = lo[axis].min(corner[axis]);
                hi[axis] = hi[axis].max(corner[axis]);
            }
        }
        [0, 1].map(|axis| {
            (lo[axis] * PX_PER_IN).floor() as i64..=(hi[axis] * PX_PER_IN).floor() as i64
        })
    }
}

/// The colours of the map-plane pixels a standing piece shows as its top and as its faces
/// toward the camera.
struct TopAndFaces {
    top: Vec<[u8; 3]>,
    faces: Vec<[u8; 3]>,
}

impl TopAndFaces {
    /// Whether the faces hold a pixel's width along the piece's length: its side face
    /// shows, not its end's alone.
    fn faces_along_length(&self, standing: &Standing) -> bool {
        self.faces.len() >= standing.length_px()
    }
}

/// How deep a band past a piece's footprint, toward the camera, [`reads_as_flat_ink`]
/// reads, in map-plane pixels.
const BEYOND_FOOTPRINT_PX: f64 = 2.0;

/// The map-plane pixels a piece `standing` shows as its top and as its faces toward the
/// camera, but those `hidden` (under another piece's top or face). A margin of
/// `margin_px` keeps each blurred edge out of both. `None` when the top holds less than
/// a pixel's width along the piece's length, or the faces do and the end face toward the
/// camera is less than two pixels deep (two rows of its width): within a few inches of
/// the point under the camera the faces are too thin to read. Where the camera looks
/// along a block, its end face alone shows.
fn top_and_faces(
    standing: &Standing,
    plane: &MapPlane,
    margin_px: f64,
    hidden: impl Fn([f64; 2]) -> bool,
) -> Option<TopAndFaces> {
    let margin_in = margin_px / PX_PER_IN;
    let [columns, rows] = standing.pixel_bounds();
    let (mut top, mut faces) = (Vec::new(), Vec::new());
    for y in rows {
        for x in columns.clone() {
            let Some(rgb) = plane.at_checked(x, y) else {
                continue;
            };
            let p = [(x as f64 + 0.5) / PX_PER_IN, (y as f64 + 0.5) / PX_PER_IN];
            if standing.on_top(p, -margin_in) {
                if !hidden(p) {
                    top.push(rgb);
                }
            } else if standing.on_footprint(p, -margin_in)
                && !standing.on_top(p, margin_in)
                && !hidden(p)
            {
                faces.push(rgb);
            }
        }
    }
    // The rows of the end face toward the camera clear of both margins.
    let end_rows = dot(sub(standing.top_centre, standing.centre), standing.length).abs()
        * PX_PER_IN
        - 2.0 * margin_px;
    let seen = TopAndFaces { top, faces };
    let end_px = 2.0 * (2.0 * standing.half[1] * PX_PER_IN);
    let enough =
        seen.faces_along_length(standing) || (end_rows >= 2.0 && seen.faces.len() as f64 >= end_px);
    (enough && seen.top.len() >= standing.length_px()).then_some(seen)
}

/// The colours of the map just past the end of a piece `standing`'s footprint toward the
/// camera, but those `hidden`: [`BEYOND_FOOTPRINT_PX`] deep past a margin of
/// `margin_px`, as wide as the footprint less that margin. A block ends at its footprint;
/// a stream it was cut from goes on there.
fn past_end_toward_camera(
    standing: &Standing,
    plane: &MapPlane,
    margin_px: f64,
    hidden: impl Fn([f64; 2]) -> bool,
) -> Vec<[u8; 3]> {
    let margin_in = margin_px / PX_PER_IN;
    let beyond_in = margin_in + BEYOND_FOOTPRINT_PX / PX_PER_IN;
    let [columns, rows] = standing.pixel_bounds();
    let reach = BEYOND_FOOTPRINT_PX.ceil() as i64 + 1;
    let mut beyond = Vec::new();
    for y in rows.start() - reach..=rows.end() + reach {
        for x in columns.start() - reach..=columns.end() + reach {
            let p = [(x as f64 + 0.5) / PX_PER_IN, (y as f64 + 0.5) / PX_PER_IN];
            // The end away from the camera lies under the top, which overhangs it.
            if standing.past_end(p, margin_in, beyond_in)
                && !standing.on_top(p, beyond_in)
                && let Some(rgb) = plane.at_checked(x, y).filter(|_| !hidden(p))
            {
                beyond.push(rgb);
            }
        }
    }
    beyond
}

/// Whether a block read at `piece` stands up there, as ink printed on the map cannot: at
/// least half of the faces it shows toward the camera ([`top_and_faces`]) are those
/// faces: paint of the side's hue (to [`FAINT_HUE_SLACK_DEG`]: shade shifts it toward
/// the map's), darker than the top by [`SIDE_FACE_MOST_LIGHT`] at the median; or the
/// label on a block's back face, turned to the camera, as paper. Where the faces are too
/// thin to read (within a few inches of the point under the camera), or its end face
/// alone shows, nothing shows the block standing, and it is not taken.
fn stands_up(
    piece: &DetectedPiece,
    plane: &MapPlane,
    classifier: &Classifier,
    colour: &super::colour::SideColour,
    camera: (f64, f64, f64),
    block: &crate::model::Shape,
) -> bool {
    let standing = Standing::new(piece, camera, block);
    let Some(TopAndFaces { top, faces }) = top_and_faces(&standing, plane, 1.0, |_| false)
        .filter(|seen| seen.faces_along_length(&standing))
    else {
        return false;
    };
    let mut top: Vec<f64> = top.into_iter().map(|rgb| Hsv::from_rgb(rgb).v).collect();
    let mut painted: Vec<f64> = faces
        .iter()
        .map(|&rgb| Hsv::from_rgb(rgb))
        .filter(|c| of_side_hue_in_shade(c, colour))
        .map(|c| c.v)
        .collect();
    let label = faces
        .iter()
        .filter(|&&rgb| classifier.class(rgb) == Class::Paper)
        .count();
    let shaded =
        !painted.is_empty() && median(&mut painted) <= SIDE_FACE_MOST_LIGHT * median(&mut top);
    2 * (painted.len() + label) >= faces.len() && (shaded || 2 * label >= faces.len())
}

/// How close to its top's brightness, either way, a standing piece's face toward the
/// camera may read and still be taken for the top's own colour, as a share of it.
const FACE_AS_TOP_VALUE: f64 = 0.1;

/// How much of its top's saturation, at the median, a standing piece's face toward the
/// camera keeps at the least to be taken for the top's own colour.
const FACE_AS_TOP_SATURATION: f64 = 0.8;

/// The least share of the pixels of a standing piece's faces toward the camera that read
/// as a face ([`reads_as_flat_ink`]): its side's hue, shade or paper.
const LEAST_FACE_AS_FACE: f64 = 1.0 / 3.0;

/// Whether a standing piece (a cube, or a fresh block) read as `standing` is flat ink: a
/// roof of the side's hue printed a cube's size, or a stretch of stream a block's. Where
/// the camera sees its faces ([`top_and_faces`]), they read as no standing piece's do:
/// - for at least half their pixels, as its top does: the side's hue (to
///   [`FAINT_HUE_SLACK_DEG`]), as saturated to [`FACE_AS_TOP_SATURATION`] and as bright
///   to [`FACE_AS_TOP_VALUE`]. Ink reads so where it is larger than the piece read. A
///   face turned from the light reads darker; one turned to a lamp, lighter or of
///   another tint; a block's back face carries its label. Where a block's end face alone
///   shows (the camera looks along it), the paint must also go on past the footprint's
///   end, as a stream does and a block cannot: an end face turned to a lamp reads as
///   its top (the photoreal frames' b04 p2, whose end face reads 22 of 32 pixels so).
///   On 30 river-crossing tables of our renderer that no constant was set on (seeds
///   101 to 130), the stream's stretches read as blocks went from 51 to 45, none of the
///   855 pieces found was lost, and one more was found; the photoreal frames and their
///   23 perturbed sets read the same pieces, with 3 phantoms fewer.
/// - or for less than [`LEAST_FACE_AS_FACE`] of them, as a face at all: the side's hue,
///   darker than the top by more than [`FACE_AS_TOP_VALUE`], or paper (a block's label,
///   or paint washed white by a lamp); for a cube, whose faces carry no label, paint in
///   shade or washed by a lamp ([`CUBE_FACE_MOST_LIGHT`]). Ink reads so where it is no
///   larger than the piece read: the faces are then the map beside it, or another roof.
///
/// Measured with `aide detect` on 60 of our renderer's 1080p tables (10 each on the
/// procedural and demo maps, 20 each on river-crossing and market-town) and the four
/// photoreal frames, where faces show: of 237 cubes, at most 0.29 of a face read as its
/// top, and of 867 fresh blocks, at most 0.33; of 41 roofs read as cubes, 21 read so for
/// half or more, and of 19 stretches of ink read as blocks, 6. On the same tables, with
/// hidden pixels left out, every cube's face read as a face for 0.57 or more (a
/// photoreal HQ's face toward the warm lamp reads as paper) and every fresh block's for
/// 0.63 or more (a photoreal block's back face, its label in shade); of 20 roofs read as
/// cubes, 5 read as a face for under a third, and of 10 stretches of ink read as blocks
/// (the canvas beside a road, the river under a bridge), 7. Near the point under the
/// camera, where no face shows, this cannot tell, and keeps the piece: the empty map's
/// reference tells there.
fn reads_as_flat_ink(
    standing: &Standing,
    plane: &MapPlane,
    classifier: &Classifier,
    colour: &super::colour::SideColour,
    hidden: impl Fn([f64; 2]) -> bool,
) -> bool {
    let Some(seen) = top_and_faces(standing, plane, 0.5, &hidden) else {
        return false;
    };
    let along_length = seen.faces_along_length(standing);
    let TopAndFaces { top, faces } = seen;
    let top: Vec<Hsv> = top.into_iter().map(Hsv::from_rgb).collect();
    let value = median(&mut top.iter().map(|c| c.v).collect::<Vec<_>>());
    let saturation = median(&mut top.iter().map(|c| c.s).collect::<Vec<_>>());
    // Darker than this reads as a face in shade.
    let shaded = if standing.cube {
        CUBE_FACE_MOST_LIGHT
    } else {
        1.0 - FACE_AS_TOP_VALUE
    } * value;
    let reads_as_top = |c: &Hsv| {
        of_side_hue_in_shade(c, colour)
            && c.s >= FACE_AS_TOP_SATURATION * saturation
            && (c.v - value).abs() <= FACE_AS_TOP_VALUE * value
    };
    let (mut as_top, mut as_face) = (0, 0);
    for &rgb in &faces {
        let c = Hsv::from_rgb(rgb);
        if of_side_hue_in_shade(&c, colour) {
            let as_saturated = c.s >= FACE_AS_TOP_SATURATION * saturation;
            if reads_as_top(&c) {
                as_top += 1;
            }
            if !standing.cube || !as_saturated || c.v < shaded {
                as_face += 1;
            }
        } else if c.v < shaded || classifier.class(rgb) == Class::Paper {
            as_face += 1;
        }
    }
    let paint_goes_on = || {
        let beyond = past_end_toward_camera(standing, plane, 0.5, &hidden);
        let goes_on = beyond
            .iter()
            .filter(|&&rgb| reads_as_top(&Hsv::from_rgb(rgb)))
            .count();
        !beyond.is_empty() && 2 * goes_on >= beyond.len()
    };
    (2 * as_top >= faces.len() && (along_length || paint_goes_on()))
        || (as_face as f64) < LEAST_FACE_AS_FACE * faces.len() as f64
}

/// How much darker than its top, at the least, a cube's face toward the camera reads to
/// be taken for its face in shade, as a share of the top's brightness; paler paint (a
/// face washed by a lamp) or paper is a face too. A cube carries no label, so its face
/// is its top's paint, in shade or in a lamp's light; ink of the side's hue as saturated
/// as the top and nearly as bright is a neighbouring roof printed a shade darker or
/// lighter (the town map's roofs differ by up to a fifth in brightness, at one
/// saturation). A block's back face carries its label, which in shade reads as neither
/// paint nor paper, and keeps [`FACE_AS_TOP_VALUE`].
///
/// Measured with `aide detect` on the same 60 tables and four photoreal frames as
/// [`reads_as_flat_ink`] (our renderer paints a cube's faces 0.5 and 0.62 of its top's
/// light): with this floor, each of the 237 cubes read as a face for 0.42 or more (the
/// least, a photoreal cube's). Of the 16 roofs read as cubes whose faces the floor
/// before (any paint of the side's hue) kept, 11 read as a face for under a third. On
/// 20 more town tables (seeds 21 to 40) the roofs read as cubes where faces show and
/// kept went from 7 to 4, and none of the 67 cubes was lost.
const CUBE_FACE_MOST_LIGHT: f64 = 0.8;

/// How far past its side's hue window a side face in shade may read, in degrees: dim
/// and pale, it mixes with the map's colour at its edges (on the photoreal frames, a
/// blue block's face reads 200 to 208 degrees against blue's window of 204 to 240).
const FAINT_HUE_SLACK_DEG: f64 = 10.0;

/// Whether a colour is of a side's hue, to [`FAINT_HUE_SLACK_DEG`] past its window, and
/// saturated enough (0.1) for its hue to mean anything: a face in shade.
fn of_side_hue_in_shade(c: &Hsv, colour: &super::colour::SideColour) -> bool {
    c.s >= 0.1
        && hue_distance(c.h, colour.hue_deg) <= colour.hue_tolerance_deg + FAINT_HUE_SLACK_DEG
}

/// A lit top's paint can read paler than its side's least saturation: satin paint
/// under a lamp overhead returns some of the light white, and the top, facing the lamp,
/// washes out while its side faces keep their colour. The blob then holds the side
/// faces alone, and the piece is read a top's depth off, its facing strip unseen (on the
/// photoreal frames, a red block's top reads 0.58 to 0.61 saturated against the floor
/// of 0.62, its side face 0.64 to 0.72).
///
/// Like a hysteresis threshold, the regions of the side's faint pixels ([`FAINT_SCALE`],
/// with any specks of its paint among them) that touch the blob and could be its top:
/// - no more than [`MOST_FAINT_TOP_PX`] pixels and [`MOST_FAINT_TOP_SPAN_PX`] either
///   way, within the pixels read (a river or a road of the side's hue goes on);
/// - thick: at least [`LEAST_FAINT_TOP_CORE_PX`] pixels with their four neighbours in
///   the region (the blurred rim around any paint, a pixel or two wide, has none);
/// - lying along the paint: at least half its span touches the blob, as a top meets its
///   side face along its length (a river's stretch under a block meets it across the
///   river's width);
/// - lit: as bright as the paint beside it, to [`FAINT_TOP_LEAST_LIGHT`] (a shadow or a
///   face in shade is darker).
///
/// Pixels the empty map explains are ink, and are not looked at. A region is looked at
/// once, for the first blob it touches.
struct FaintTops {
    w: u32,
    /// By map-plane pixel: the number of the last blob that held it (from 1).
    own: Vec<u32>,
    /// By map-plane pixel: whether a region looked at already took it, or it was found
    /// to be no part of one.
    taken: Vec<bool>,
    blobs: u32,
}

impl FaintTops {
    fn new(plane: &MapPlane) -> Self {
        Self {
            w: plane.w,
            own: vec![0; plane.pixels.len()],
            taken: vec![false; plane.pixels.len()],
            blobs: 0,
        }
    }

    /// The washed-out tops beside a blob of a side's paint (see the type's comment).
    fn of(
        &mut self,
        blob: &[Px],
        side: usize,
        plane: &MapPlane,
        classifier: &Classifier,
        is_ink: &dyn Fn(u32, u32, [u8; 3]) -> bool,
    ) -> Vec<Px> {
        self.blobs += 1;
        let blob_number = self.blobs;
        let w = self.w;
        let h = self.own.len() as u32 / w;
        let index = |[x, y]: [u32; 2]| (x < w && y < h).then(|| (y * w + x) as usize);
        for p in blob {
            self.own[(p.y * w + p.x) as usize] = blob_number;
        }
        let is_own = |own: &[u32], p: [u32; 2]| index(p).is_some_and(|i| own[i] == blob_number);
        // Whether a pixel may be part of a washed-out top (`Some(true)`), may border one
        // (`Some(false)`), or is not read (`None`): the region may go on there.
        let top_at = |p: [u32; 2]| {
            let rgb = plane.at_checked(i64::from(p[0]), i64::from(p[1]))?;
            Some(match classifier.class(rgb) {
                Class::Side(s) => s == side,
                Class::Faint(s) | Class::SkinOrFaint(s) => s == side && !is_ink(p[0], p[1], rgb),
                _ => false,
            })
        };
        let four_neighbours = |[x, y]: [u32; 2]| {
            [
                [x.wrapping_sub(1), y],
                [x + 1, y],
                [x, y.wrapping_sub(1)],
                [x, y + 1],
            ]
        };
        let neighbours = |[x, y]: [u32; 2]| {
            NEIGHBOURS.map(|(dx, dy)| {
                [
                    x.wrapping_add_signed(dx as i32),
                    y.wrapping_add_signed(dy as i32),
                ]
            })
        };
        let is_paint = |p: &[u32; 2]| {
            plane.at(p[0], p[1]).map(|rgb| classifier.class(rgb)) == Some(Class::Side(side))
        };
        // The mean brightest channel of some pixels.
        let light = |pixels: &mut dyn Iterator<Item = [u32; 2]>| {
            let (sum, n) = pixels
                .filter_map(|[x, y]| plane.at(x, y))
                .fold((0u64, 0u64), |(sum, n), rgb| {
                    (sum + u64::from(rgb.into_iter().max().unwrap_or(0)), n + 1)
                });
            sum as f64 / n.max(1) as f64
        };
        let mut tops: Vec<Px> = Vec::new();
        for p in blob {
            // A top meets its side face along an edge: its four neighbours will do.
            for start in four_neighbours([p.x, p.y]) {
                let Some(i) = index(start) else { continue };
                if self.own[i] == blob_number || self.taken[i] {
                    continue;
                }
                if top_at(start) != Some(true) {
                    // Nothing of a top: no blob need look at it again.
                    self.taken[i] = true;
                    continue;
                }
                // A top meets its side face with its breadth: the pixel and its four
                // neighbours are the blob's or may be the top's. A blurred rim, a pixel
                // wide, is not followed round the blob.
                let thick = four_neighbours(start)
                    .into_iter()
                    .all(|n| is_own(&self.own, n) || top_at(n) == Some(true));
                if !thick {
                    continue;
                }
                // The region from here, pixel to pixel, up to where it goes on.
                let mut region = vec![start];
                self.taken[i] = true;
                let (mut x0, mut y0, mut x1, mut y1) = (start[0], start[1], start[0], start[1]);
                let mut goes_on = false;
                let mut next = 0;
                while next < region.len() && !goes_on {
                    for n in neighbours(region[next]) {
                        let Some(j) = index(n) else {
                            goes_on = true;
                            continue;
                        };
                        if self.own[j] == blob_number || self.taken[j] {
                            continue;
                        }
                        match top_at(n) {
                            None => goes_on = true,
                            Some(false) => {}
                            Some(true) => {
                                self.taken[j] = true;
                                region.push(n);
                                (x0, y0) = (x0.min(n[0]), y0.min(n[1]));
                                (x1, y1) = (x1.max(n[0]), y1.max(n[1]));
                            }
                        }
                    }
                    next += 1;
                    goes_on |= region.len() > MOST_FAINT_TOP_PX
                        || (x1 - x0).max(y1 - y0) >= MOST_FAINT_TOP_SPAN_PX;
                }
                if goes_on {
                    continue;
                }
                // The region's own pixels, in its bounding box.
                let (bw, bh) = (x1 - x0 + 1, y1 - y0 + 1);
                let mut inside = vec![false; (bw * bh) as usize];
                for &[x, y] in &region {
                    inside[((y - y0) * bw + (x - x0)) as usize] = true;
                }
                let in_region = |[x, y]: [u32; 2]| {
                    (x0..=x1).contains(&x)
                        && (y0..=y1).contains(&y)
                        && inside[((y - y0) * bw + (x - x0)) as usize]
                };
                let core = region
                    .iter()
                    .filter(|&&p| four_neighbours(p).into_iter().all(in_region))
                    .count();
                let contact = region
                    .iter()
                    .filter(|&&p| neighbours(p).into_iter().any(|n| is_own(&self.own, n)))
                    .count();
                let mut beside: Vec<[u32; 2]> = region
                    .iter()
                    .flat_map(|&p| neighbours(p))
                    .filter(|&n| is_own(&self.own, n) && is_paint(&n))
                    .collect();
                beside.sort_unstable();
                beside.dedup();
                let lit = light(&mut region.iter().copied())
                    >= FAINT_TOP_LEAST_LIGHT * light(&mut beside.into_iter());
                if core >= LEAST_FAINT_TOP_CORE_PX && 2 * contact >= bw.max(bh) as usize && lit {
                    tops.extend(region.iter().map(|&[x, y]| Px { x, y, paper: false }));
                }
            }
        }
        tops
    }
}

/// The most pixels a washed-out top may hold (1 sq in): a standing block's top, 1.875 x
/// 0.375 in, is 0.7, and 0.86 enlarged by the camera's view from 24 in up with a
/// blurred pixel all round. A spent block's top is its label.
const MOST_FAINT_TOP_PX: usize = (PX_PER_IN * PX_PER_IN) as usize;

/// The most a washed-out top may span either way on the map plane, in pixels (2.1 in):
/// a block's length, enlarged and blurred likewise, is 2.04 in.
const MOST_FAINT_TOP_SPAN_PX: u32 = (2.1 * PX_PER_IN) as u32;

/// A washed-out top is at least this bright against the paint it touches (their mean
/// brightest channel): it faces the light. The tops on the photoreal frames read 0.99
/// to 1.19 of their side faces; shadows and faces in shade beside a block, 0.72 to 0.82.
const FAINT_TOP_LEAST_LIGHT: f64 = 0.9;

/// How far a washed-out top may move a piece's reading, in inches: a fresh block's
/// depth, 0.375 in, and a blurred pixel. A reading that moves further has taken in ink
/// (a river's stretch beside the block), not its top.
const FAINT_TOP_MOST_MOVE_IN: f64 = 0.43;

/// How much less sure (the mean confidence) the pieces of a reading may be once read
/// again with the washed-out tops beside them, for the second reading to be kept. A
/// line whose end blocks' tops washed out gains them and is cut anew, and its middle
/// blocks' fits move a little (on the photoreal 4K frame compressed once more, 0.971
/// to 0.966). Ink taken in is far less sure: a river's bank along a block read as a
/// wider block at 0.15 against 0.96. The pieces the second reading adds are not held
/// to it (the ends' fits are looser), but each must be a block of a status it had read
/// before: a line's end blocks. On the town map, with the empty map known, a washed-out
/// patch beside a spent block read as an HQ cube at 0.34, and a roof beside a roof read
/// as a cube as another cube.
const AGAIN_LESS_SURE: f64 = 0.05;

/// The least core a faint region joined to paint holds (its pixels with all four
/// neighbours in it): a cube's top, 0.375 in (7.5 px) square, has 30; a rim two pixels
/// wide, none.
const LEAST_FAINT_TOP_CORE_PX: usize = 25;

/// A faint spot this near a piece already found (inches from its footprint) is part of
/// it: its shaded side, its blurred rim, or its shadow's edge. Its top shows up to 0.4
/// in past the footprint where the camera is low and far off.
const FAINT_CUBE_CLEAR_IN: f64 = 0.45;

/// A label's area, 1.6 x 0.6 in, in map-plane pixels.
const LABEL_PX: f64 = LABEL_LENGTH_IN * LABEL_WIDTH_IN * PX_PER_IN * PX_PER_IN;

/// A label's area at the least (0.45 sq in; a spent block's shows about 0.96, a facing
/// strip 0.35): paper this large lies on a top, and a top that holds it is a top.
const LABEL_MIN_PX: usize = (0.45 * PX_PER_IN * PX_PER_IN) as usize;

/// The paper of a blob in its connected regions (eight-connected), as pixel centres;
/// regions of fewer than four pixels are specks of glare and left out.
fn paper_regions(blob: &[Px]) -> Vec<Vec<[f64; 2]>> {
    let paper: Vec<Px> = blob.iter().copied().filter(|p| p.paper).collect();
    connected_parts(&paper)
        .into_iter()
        .filter(|region| region.len() >= 4)
        .map(|region| region.iter().map(|p| p.centre()).collect())
        .collect()
}

/// A blob without its paper that is neither a label nor a facing strip. Paper on a piece
/// is one or the other, and each runs most of the top's length: a label 1.6 in of 1.875,
/// a strip all of it. Pale grey beside a piece that reads as paper is a shorter patch
/// of its own: a lamp's shadow on pale canvas (on the photoreal frames, one red block's
/// shadow widened its silhouette to a spent block's depth), or grey ink of the map's.
/// A patch that touches a label or a strip is one region with it, and is kept.
fn without_stray_paper(blob: &[Px]) -> std::borrow::Cow<'_, [Px]> {
    let paper: Vec<Px> = blob.iter().copied().filter(|p| p.paper).collect();
    if paper.is_empty() {
        return blob.into();
    }
    let stray: std::collections::HashSet<[u32; 2]> = connected_parts(&paper)
        .into_iter()
        .filter(|part| {
            let centres: Vec<[f64; 2]> = part.iter().map(|p| p.centre()).collect();
            size_on_own_axes(&centres).0 < STRAY_PAPER_LENGTH_IN * PX_PER_IN
        })
        .flat_map(|part| part.into_iter().map(|p| [p.x, p.y]))
        .collect();
    if stray.is_empty() {
        return blob.into();
    }
    blob.iter()
        .copied()
        .filter(|p| !(p.paper && stray.contains(&[p.x, p.y])))
        .collect()
}

/// Paper shorter than this (inches, along its own longest axis) is no label or strip:
/// half a label's length.
const STRAY_PAPER_LENGTH_IN: f64 = 0.5 * LABEL_LENGTH_IN;

/// `pixels` in their eight-connected parts.
fn connected_parts(pixels: &[Px]) -> Vec<Vec<Px>> {
    let Some((x0, y0, x1, y1)) = pixels.iter().fold(None, |b, p| {
        let (x0, y0, x1, y1) = b.unwrap_or((p.x, p.y, p.x, p.y));
        Some((x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y)))
    }) else {
        return Vec::new();
    };
    // A margin of one pixel all round: imageproc's labelling fails on an image one
    // pixel wide or high.
    let mut mask = image::GrayImage::new(x1 - x0 + 3, y1 - y0 + 3);
    for p in pixels {
        mask.put_pixel(p.x - x0 + 1, p.y - y0 + 1, image::Luma([255]));
    }
    let labels = label_components(&mask);
    let mut parts: Vec<Vec<Px>> = Vec::new();
    for &p in pixels {
        let l = labels.get_pixel(p.x - x0 + 1, p.y - y0 + 1).0[0] as usize;
        if parts.len() < l {
            parts.resize(l, Vec::new());
        }
        parts[l - 1].push(p);
    }
    parts
}

/// The top a blob shows: its lit paint with its labels (large paper regions), as pixel
/// centres, and the paint's brightness. Two blocks of a column have their painted tops
/// parted by a facing strip, which is not a label; a spent block's rim of paint falls
/// apart around its label, which holds it together.
fn lit_top(blob: &[Px], plane: &MapPlane) -> Option<(f64, Vec<[f64; 2]>)> {
    let (bright, mut top) = lit_paint(blob, plane)?;
    top.extend(labels(blob));
    (top.len() >= 4).then_some((bright, top))
}

/// The pixel centres of a blob's labels: its paper regions of a label's size.
fn labels(blob: &[Px]) -> impl Iterator<Item = [f64; 2]> {
    paper_regions(blob)
        .into_iter()
        .filter(|r| r.len() >= LABEL_MIN_PX)
        .flatten()
}

/// The pieces in one blob of a side's paint (with its paper). Blocks of a side standing
/// end to end in a line are one blob: their lit tops make one strip as many frontages
/// long as there are blocks. Such a strip is cut across its long axis into equal
/// lengths, one per block (the blocks of a line have the same frontage whether fresh or
/// spent), and each part is measured as a blob of its own.
///
/// `ink_known`: the empty map's reference knows the ground under the blob, so the map's
/// ink there is out of its paint already.
fn measure_blob(
    blob: &[Px],
    plane: &MapPlane,
    colour: &str,
    camera: (f64, f64, f64),
    options: &DetectOptions,
    ink_known: bool,
) -> Vec<(DetectedPiece, f64)> {
    // Most blobs on a busy map are specks of paint-coloured print: no part of one can
    // be a piece.
    if is_speck(blob.len(), options) {
        return Vec::new();
    }
    let blocks = lit_top(blob, plane).zip(options.model.shape(UnitKind::Infantry));
    let Some(((_, top), block)) = blocks else {
        return Vec::new();
    };
    let nadir = [camera.0 * PX_PER_IN, camera.1 * PX_PER_IN];
    let whole_top_px = block.frontage_in * block.depth_fresh_in * PX_PER_IN * PX_PER_IN;
    if let Some(parts) = split_by_tops(blob, &top, nadir, whole_top_px) {
        let pieces: Vec<(DetectedPiece, f64)> = parts
            .iter()
            .flat_map(|part| measure_blob(part, plane, colour, camera, options, ink_known))
            .collect();
        // A marked block's side face, lit as its top, is parted from the top's paint by
        // the strip: two lit pieces, of one standing block. Two blocks in a column are
        // wider than one standing block can show; a blob that reads as one standing
        // block at least as surely as its least sure part is one. Of its parts, the
        // one nearest the whole's reading is the block (a part measures its edges more
        // closely than the whole, whose silhouette mixes top and side face).
        if pieces.len() > 1
            && let Some((whole, _)) = measure(blob, plane, colour, camera, options, None, ink_known)
            && reads_as_one_standing_block(&whole, &pieces)
        {
            let off = |p: &DetectedPiece| (p.x_in - whole.x_in).hypot(p.y_in - whole.y_in);
            return pieces
                .into_iter()
                .min_by(|a, b| off(&a.0).total_cmp(&off(&b.0)))
                .into_iter()
                .collect();
        }
        return pieces;
    }
    let axes = principal_axes(&top);
    // The strip's ends by count, not by share: a fresh block's narrow top at one end of
    // a line holds far fewer pixels per column than a spent one's.
    let (lo, hi) = span_along(top.iter().copied(), &axes);
    let length_in = (hi - lo + 1.0) / PX_PER_IN;
    let (mut lo, mut hi, mut frontages) = (lo, hi, length_in / block.frontage_in);
    // A block at the end of a line whose top reads dim (in shade, or under its strip)
    // is left out of the lit top's length, but not of the blob's: taken whole into the
    // last part, it makes a part two frontages long. The blob's length, less the end
    // face a standing block shows at the end nearer the camera, counts it. So does it
    // when it is nearer a whole number of frontages than the lit top's: a spent block
    // in a column shows its label, not paint, and a fresh one its strip, so the lit top
    // stops short by a fraction of a frontage.
    let off_whole = |f: f64| (f - f.round()).abs();
    if let Some(whole) = line_by_silhouette(blob, &axes, camera, block)
        && (whole.2.round() > frontages.round() || off_whole(whole.2) < off_whole(frontages))
    {
        (lo, hi, frontages) = whole;
    }
    let count = frontages.round().max(1.0) as usize;
    if count == 1 {
        let whole = measure(blob, plane, colour, camera, options, None, ink_known);
        // Read whole, two marked blocks in a column are a spent block's size, but their
        // strips are no label on its top ([`LEAST_LABEL_DEPTH`]): no piece. Their paper
        // then tells them from ink (two roofs side by side) that no piece reads.
        let strips =
            || blob.iter().filter(|p| p.paper).count() as f64 >= LEAST_PAPER_READ * LABEL_PX;
        if whole
            .as_ref()
            .map_or_else(strips, |(one, _)| one.kind == "block")
            && labels(blob).next().is_none()
        {
            let pieces: Vec<(DetectedPiece, f64)> = column_parts(blob, &top, &axes, camera, block)
                .iter()
                .flatten()
                .filter_map(|part| measure(part, plane, colour, camera, options, None, ink_known))
                .collect();
            if !whole
                .as_ref()
                .is_some_and(|(one, _)| reads_as_one_standing_block(one, &pieces))
                && let [(a, _), (b, _)] = pieces.as_slice()
                && is_standing_block(a)
                && is_standing_block(b)
                && one_behind_the_other(a, b, block.depth_fresh_in)
            {
                return pieces;
            }
        }
        return whole.into_iter().collect();
    }
    if !is_a_line(blob, &top, &axes, (lo, hi), frontages, block) {
        tracing::trace!(
            at_in = ?[axes.centre[0] / PX_PER_IN, axes.centre[1] / PX_PER_IN],
            frontages,
            "a long blob that is no line of blocks"
        );
        return Vec::new();
    }
    let part_px = (hi - lo) / count as f64;
    let margin = CUT_MARGIN_IN * PX_PER_IN;
    let mut parts = vec![Vec::new(); count];
    for &px in blob {
        let along = dot(sub(px.centre(), axes.centre), axes.along);
        let at = (along - lo) / part_px;
        let part = at.floor().clamp(0.0, (count - 1) as f64) as usize;
        let into = (at - part as f64) * part_px;
        let near_cut = (part > 0 && into < margin) || (part + 1 < count && into > part_px - margin);
        if !near_cut {
            parts[part].push(px);
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
            measure(part, plane, colour, camera, options, Some(cut), ink_known)
        })
        .collect()
}

/// Whether a piece reads as a fresh block, standing up.
fn is_standing_block(piece: &DetectedPiece) -> bool {
    piece.kind == "block" && piece.status == Status::Fresh
}

/// Whether a blob read whole as `whole` is one standing block rather than the `parts` it
/// was parted into: it reads as a standing block at least as surely as its least sure
/// part reads.
fn reads_as_one_standing_block(whole: &DetectedPiece, parts: &[(DetectedPiece, f64)]) -> bool {
    let least_sure = parts
        .iter()
        .map(|(p, _)| p.confidence)
        .fold(f64::INFINITY, f64::min);
    is_standing_block(whole) && whole.confidence >= least_sure
}

/// A column of two standing blocks, one behind the other in contact, parted across its
/// axis where their tops meet: the far block's top, then the near one's with the faces
/// the camera sees below it.
///
/// Two tops side by side are a spent block's top in size (1.875 by 0.75 in), and a strip
/// parts them only where the near block carries one: two unmarked blocks, or a marked
/// one behind an unmarked one, show one top of paint. A spent block lies label up
/// ("Gíralas con la cara adhesiva hacia arriba" [3.2]). So a blob of one frontage that
/// reads as a block but shows no label is taken for such a column where both its parts
/// read as standing blocks, each at least as surely as the whole reads as one standing
/// block, and stand as a column does ([`one_behind_the_other`]). A blob that reads as
/// nothing is left so: parted, river and roof patches the size of a spent top made
/// pairs of phantoms on our river and town maps. Our renderer drew columns of marked
/// blocks only, and there the strips part them (`split_by_tops`); on a test table, 16
/// blocks in mixed columns gave 11 detections, and 16 unmarked ones 5 (2026-11-28).
///
/// The tops meet a fresh block's depth, as the plane shows a top at that height, in from
/// the far edge of the lit top and its paper (the silhouette's far edge is the top's,
/// whatever the light makes of the side faces). Paint within a pixel of the seam is left
/// to neither part.
///
/// `None` where the lit top and its paper reach less than [`COLUMN_LEAST_TOPS`] of a
/// top's depth across: the near block's top would be less than half there, and a blob
/// of one standing block is not parted and measured three times over. On our renderer's
/// tables (10 seeds, apart and touching, 2026-11-28) the single blocks' tops reached
/// 1.01 to 1.85 depths (99 in 100 under 1.63), the two columns read 2.04 and 2.07; on
/// the photoreal frames 0.59 to 2.23, and none was a column. The parting was 0.4 ms of
/// a 6.4 ms live frame. The benchmark's figures stayed as they were on our renderer's
/// tables apart, touching and on the printed maps, and on the photoreal frames. On its
/// tables with edges rounded by 0.04 in three blocks read otherwise, each still within a
/// sixteenth: at 4K one whose top and side face, a part of a larger blob, had been
/// parted as a false column of two (tops 1.03 depths across), its top kept for being
/// nearest the whole's reading (0.008 in off, now 0.036 with the side face); at 1080p two
/// more, 0.022 and 0.008 in off before, 0.046 and 0.033 now.
fn column_parts(
    blob: &[Px],
    top: &[[f64; 2]],
    axes: &Axes,
    (cam_x, cam_y, cam_h): (f64, f64, f64),
    block: &crate::model::Shape,
) -> Option<[Vec<Px>; 2]> {
    let across = |p: [f64; 2]| dot(sub(p, axes.centre), axes.normal);
    // A facing strip on the far block's front half is paper, not a label: the tops' far
    // edge is the strip's there.
    let strips = blob.iter().filter(|p| p.paper).map(|p| p.centre());
    let tops: Vec<[f64; 2]> = top.iter().copied().chain(strips).collect();
    let (lo, hi) = extent(&tops, axes.centre, axes.normal);
    let nadir = across([cam_x * PX_PER_IN, cam_y * PX_PER_IN]);
    let toward = if nadir >= 0.5 * (lo + hi) { 1.0 } else { -1.0 };
    let far = if toward > 0.0 { lo - 0.5 } else { hi + 0.5 };
    let depth_px =
        block.depth_fresh_in * (1.0 + top_grow(block.height_fresh_in, cam_h)) * PX_PER_IN;
    if hi - lo + 1.0 < COLUMN_LEAST_TOPS * depth_px {
        return None;
    }
    let seam = far + toward * depth_px;
    let mut parts = [Vec::new(), Vec::new()];
    for &p in blob {
        let beyond = (across(p.centre()) - seam) * toward;
        if beyond.abs() > EDGE_BLUR_PX {
            parts[usize::from(beyond > 0.0)].push(p);
        }
    }
    Some(parts)
}

/// How many tops' depths across the lit top and paper of a column of two standing blocks
/// reach at the least (two, where both tops show): the near top at least half there.
const COLUMN_LEAST_TOPS: f64 = 1.5;

/// Whether two standing blocks read from one blob stand as a column does: side by side
/// along their length (their axes within [`COLUMN_MOST_TURN_DEG`]), a block's depth
/// apart across it to [`COLUMN_DEPTH_SLACK_IN`], and not shifted along it by more than
/// that. Two parts of a patch of ink the size of a spent block's top, cut in two, need
/// not be.
fn one_behind_the_other(a: &DetectedPiece, b: &DetectedPiece, depth_in: f64) -> bool {
    let (h, hb) = (a.heading_deg.to_radians(), b.heading_deg.to_radians());
    let length_a = [h.cos(), h.sin()];
    let turn = turn_deg(length_a, [hb.cos(), hb.sin()]);
    let d = [b.x_in - a.x_in, b.y_in - a.y_in];
    let along = dot(d, length_a).abs();
    let across = dot(d, [h.sin(), -h.cos()]).abs();
    turn <= COLUMN_MOST_TURN_DEG
        && (across - depth_in).abs() <= COLUMN_DEPTH_SLACK_IN
        && along <= COLUMN_DEPTH_SLACK_IN
}

/// How far two blocks of a column may turn from each other: blocks pushed into contact
/// stand square, and each block's axis is read to a degree or two.
const COLUMN_MOST_TURN_DEG: f64 = 5.0;

/// How far from a block's depth apart two blocks of a column may read, and how far
/// shifted along each other: a fifth of a fresh block's depth, for a gap between blocks
/// in contact and each centre's error (a sixteenth of an inch at the most, where read
/// right).
const COLUMN_DEPTH_SLACK_IN: f64 = 0.075;

/// How near a cut between two blocks of a line a pixel is left out of both parts:
/// blocks of a line may be turned a few degrees to each other (their seam is not square
/// to the line), and a fresh block's end stands above a spent neighbour's top.
const CUT_MARGIN_IN: f64 = 0.15;

/// Where two blocks' tops meet near `at` (on `axes`' long axis, in map-plane pixels
/// from its centre), where their seam shows: a step along the axis whose paint is
/// darker than the paint two or three pixels before and after it, by [`SEAM_DARKER`]
/// at least, read in the middle of the tops across (`across`, on the normal) where no
/// side face mixes in. The darkest such step within [`SEAM_REACH_IN`] of `at`; `None`
/// where none shows.
///
/// On the photoreal frames a block in a line of four read 0.17 in along the line from
/// where it stood: its part of the line ran 0.15 in past its own end, over the next
/// block's top. The seams between the tops, a map-plane pixel wide, read at 0.72 and
/// 0.74 of the tops' brightness.
fn seam_near(
    blob: &[Px],
    plane: &MapPlane,
    axes: &Axes,
    (from, to): (f64, f64),
    at: f64,
) -> Option<f64> {
    const FLANK: usize = 3;
    let reach = (SEAM_REACH_IN * PX_PER_IN).round() as usize;
    let steps = 2 * (reach + FLANK) + 1;
    let first = at - (reach + FLANK) as f64 - 0.5;
    // Each step's brightnesses, and where along the axis its pixels lie.
    let mut tones: Vec<Vec<f64>> = vec![Vec::new(); steps];
    let mut along: Vec<f64> = vec![0.0; steps];
    for (a, v) in paint_tones(
        blob,
        plane,
        axes.centre,
        axes.along,
        (axes.normal, from, to),
    ) {
        let step = (a - first).floor();
        if (0.0..steps as f64).contains(&step) {
            tones[step as usize].push(v);
            along[step as usize] += a;
        }
    }
    let mean_along: Vec<f64> = along
        .iter()
        .zip(&tones)
        .map(|(sum, v)| sum / v.len().max(1) as f64)
        .collect();
    let medians: Vec<Option<f64>> = tones
        .iter_mut()
        .map(|v| {
            let n = v.len();
            (n > 0).then(|| nth_smallest(v, n / 2))
        })
        .collect();
    (FLANK..steps - FLANK)
        .filter_map(|i| {
            let here = medians[i]?;
            // The tops either side, two or three steps off: a sliver of the next
            // block's top past its own end may be two pixels long.
            let flank = |steps: [usize; 2]| {
                steps
                    .into_iter()
                    .filter_map(|j| medians[j])
                    .reduce(f64::max)
            };
            let before = flank([i - FLANK, i - FLANK + 1])?;
            let after = flank([i + FLANK - 1, i + FLANK])?;
            (here <= SEAM_DARKER * before.min(after)).then_some((i, here))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| mean_along[i])
}

/// How far from where a block's lit paint ends a seam is looked for.
const SEAM_REACH_IN: f64 = 0.3;

/// How much darker than the tops beside it a seam between two blocks' tops reads, at
/// the least: the bevels meeting there and the crack between, a map-plane pixel wide.
/// A top's own shading (a lamp's fall-off, a satin sheen) and the JPEG's noise stay
/// within 5 % of its brightness over three pixels.
const SEAM_DARKER: f64 = 0.85;

/// Where `points` begin and end along `axes`' long axis, the three outermost at each end
/// left out (stray pixels of the map's at a blob's edge).
fn span_along(points: impl Iterator<Item = [f64; 2]>, axes: &Axes) -> (f64, f64) {
    let mut along: Vec<f64> = points
        .map(|p| dot(sub(p, axes.centre), axes.along))
        .collect();
    let trim = 3.min(along.len() / 2);
    let last = along.len() - 1;
    (
        nth_smallest(&mut along, trim),
        nth_smallest(&mut along, last - trim),
    )
}

/// A blob's length along a line's axis, as (low end, high end, frontages), with the end
/// face a standing block shows at the end nearer the camera taken off: the span its tops
/// make. `None` when that is no whole number of frontages (within 0.3).
fn line_by_silhouette(
    blob: &[Px],
    axes: &Axes,
    (cam_x, cam_y, cam_h): (f64, f64, f64),
    block: &crate::model::Shape,
) -> Option<(f64, f64, f64)> {
    let (mut lo, mut hi) = span_along(blob.iter().map(|p| p.centre()), axes);
    let nadir = dot(
        sub([cam_x * PX_PER_IN, cam_y * PX_PER_IN], axes.centre),
        axes.along,
    );
    let grow = top_grow(block.height_fresh_in, cam_h);
    if nadir < lo {
        lo += (lo - nadir) * grow;
    } else if nadir > hi {
        hi -= (nadir - hi) * grow;
    }
    let frontages = (hi - lo + 1.0) / PX_PER_IN / block.frontage_in;
    ((frontages - frontages.round()).abs() <= 0.3).then_some((lo, hi, frontages))
}

/// The longest line a table holds, in block frontages: a division of eight, end to end.
const MOST_BLOCKS_IN_LINE: f64 = 8.4;

/// Whether a long blob (its lit top `top` `frontages` block frontages long between
/// `lo` and `hi` on `axes`) is blocks standing end to end: a whole number of frontages,
/// and a straight band that the blob's paint fills. A river or a road of a side's colour
/// winds, or swells and narrows, and runs on for inches.
///
/// The band is each block's own, across the stretch of the line it holds: a marked
/// block's lit top is the half its strip leaves (0.19 in), an unmarked one's all of it
/// (0.375 in), and blocks end to end stand a little off each other's line. One band
/// across the whole line, as wide as its widest block, was half empty over a marked
/// block's stretch: on the photoreal frames a line of two marked blocks and an unmarked
/// one, with its map-plane sampling moved by half a pixel, read 0.45 filled and was
/// lost whole. No block's band is wider than a spent block's top with its side face and
/// the blur each side: a river's stretch, fitted a band of its own, is.
fn is_a_line(
    blob: &[Px],
    top: &[[f64; 2]],
    axes: &Axes,
    (lo, hi): (f64, f64),
    frontages: f64,
    block: &crate::model::Shape,
) -> bool {
    if frontages > MOST_BLOCKS_IN_LINE || (frontages - frontages.round()).abs() > 0.3 {
        return false;
    }
    let count = frontages.round().max(1.0) as usize;
    let part_px = (hi - lo + 1.0) / count as f64;
    let widest_band_px =
        (block.depth_spent_in + block.height_spent_in) * PX_PER_IN + 2.0 * EDGE_BLUR_PX;
    let line_band = extent(top, axes.centre, axes.normal);
    let part_of = |p: [f64; 2]| {
        let along = dot(sub(p, axes.centre), axes.along);
        (lo - 0.5..=hi + 0.5)
            .contains(&along)
            .then(|| (((along - lo + 0.5) / part_px) as usize).min(count - 1))
    };
    let mut tops: Vec<Vec<[f64; 2]>> = vec![Vec::new(); count];
    for &p in top {
        if let Some(part) = part_of(p) {
            tops[part].push(p);
        }
    }
    // A block whose top reads dim (in shade, or washed out) has none of the lit top: its
    // band is the line's.
    let bands: Vec<(f64, f64)> = tops
        .iter()
        .map(|own| {
            if own.is_empty() {
                line_band
            } else {
                extent(own, axes.centre, axes.normal)
            }
        })
        .collect();
    if bands
        .iter()
        .any(|(n_lo, n_hi)| n_hi - n_lo + 1.0 > widest_band_px)
    {
        return false;
    }
    let band_area: f64 = bands
        .iter()
        .map(|(n_lo, n_hi)| part_px * (n_hi - n_lo + 1.0))
        .sum();
    let inside = blob
        .iter()
        .filter(|p| {
            part_of(p.centre()).is_some_and(|part| {
                let (n_lo, n_hi) = bands[part];
                (n_lo..=n_hi).contains(&dot(sub(p.centre(), axes.centre), axes.normal))
            })
        })
        .count();
    // A line's paint fills most of its band (a bevel, a seam, a side face in deep shade
    // take some); a stream's bends leave most of it bare.
    inside as f64 >= 0.5 * band_area
}

/// A blob whose lit top falls apart into several sizeable pieces, split into one blob per
/// piece: each of its pixels goes with the lit piece it is nearest to through the blob.
/// Two blocks of a side in a column have their tops parted by the facing band of the one
/// behind, but their shaded ends, side by side, join them into one blob of paint.
/// `whole_top_px`: a fresh block's top, in map-plane pixels.
fn split_by_tops(
    blob: &[Px],
    top: &[[f64; 2]],
    nadir: [f64; 2],
    whole_top_px: f64,
) -> Option<Vec<Vec<Px>>> {
    // Smaller than a quarter of an HQ cube's top: a speck of light, not a top.
    const LEAST_TOP_PX: usize = 15;
    let (x0, y0) = blob
        .iter()
        .fold((u32::MAX, u32::MAX), |(x, y), p| (x.min(p.x), y.min(p.y)));
    let (x1, y1) = blob
        .iter()
        .fold((0, 0), |(x, y), p| (x.max(p.x), y.max(p.y)));
    let (w, h) = (x1 - x0 + 1, y1 - y0 + 1);
    let mut lit = image::GrayImage::new(w, h);
    for p in top {
        lit.put_pixel(p[0] as u32 - x0, p[1] as u32 - y0, image::Luma([255]));
    }
    let labels = label_components(&lit);
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
    // Grow every sizeable top through the blob's paint, breadth first.
    const UNSET: usize = usize::MAX;
    let mut owner = vec![UNSET; (w * h) as usize];
    // 1 paint, 2 paper, 0 neither.
    let mut class = vec![0u8; (w * h) as usize];
    for p in blob {
        class[((p.y - y0) * w + (p.x - x0)) as usize] = if p.paper { 2 } else { 1 };
    }
    let within = move |x: u32, y: u32, offsets: &'static [(i64, i64)]| {
        offsets.iter().filter_map(move |&(dx, dy)| {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            (nx >= 0 && ny >= 0 && nx < i64::from(w) && ny < i64::from(h))
                .then(|| (nx as u32, ny as u32, (ny as u32 * w + nx as u32) as usize))
        })
    };
    let neighbours = move |x: u32, y: u32| within(x, y, &NEIGHBOURS);
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
        for (nx, ny, at) in neighbours(x, y) {
            if class[at] == 1 && owner[at] == UNSET {
                owner[at] = part;
                queue.push_back((nx, ny));
            }
        }
    }
    // Then the paper, a region at a time, whole: a facing strip lies along its own
    // block's top and, in a column, against the back of the block ahead, so it touches
    // two parts alike. The strips of a column go with their parts all one way
    // ([`strips_one_way`]). Failing that, each block carries one strip: a region
    // touching one part goes with it, and one touching several with the part that has
    // the least paper yet; between two such parts, with the one whose lit top the strip
    // halves ([`strip_owner_by_lit_top`]), else the first found. A region the paint
    // touches nowhere (a thin strip, its edges
    // blurred pink on both sides: see [`lies_like_a_strip`]) touches the parts within
    // [`CONTACT_REACH`], as it joined the blob.
    let centres: Vec<[f64; 2]> = blob.iter().map(|p| p.centre()).collect();
    let across = principal_axes(&centres).normal;
    // Where a pixel of the crop (by index) lies across the blob.
    let across_at = |at: usize| {
        let p = [
            f64::from(x0 + at as u32 % w) + 0.5,
            f64::from(y0 + at as u32 / w) + 0.5,
        ];
        dot(p, across)
    };
    let mut regions: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    // Each region's contacts within reach with each part, on its low and its high side
    // across the blob.
    let mut sided: Vec<(Vec<[usize; 2]>, f64)> = Vec::new();
    let mut seen = vec![false; (w * h) as usize];
    for start in 0..(w * h) as usize {
        if class[start] != 2 || owner[start] != UNSET || seen[start] {
            continue;
        }
        let mut sides = vec![[0usize; 2]; tops.len()];
        let (mut pixels, mut touching, mut within_reach) = (Vec::new(), Vec::new(), Vec::new());
        seen[start] = true;
        let mut stack = vec![start];
        while let Some(at) = stack.pop() {
            pixels.push(at);
            let (x, y) = (at as u32 % w, at as u32 / w);
            for (_, _, n) in neighbours(x, y) {
                if class[n] == 2 && owner[n] == UNSET && !seen[n] {
                    seen[n] = true;
                    stack.push(n);
                } else if owner[n] != UNSET && !touching.contains(&owner[n]) {
                    touching.push(owner[n]);
                }
            }
            for (nx, ny, n) in within(x, y, &CONTACT_REACH) {
                if class[n] == 1 && owner[n] != UNSET {
                    if !within_reach.contains(&owner[n]) {
                        within_reach.push(owner[n]);
                    }
                    let off = [f64::from(nx) - f64::from(x), f64::from(ny) - f64::from(y)];
                    let n_off = dot(off, across);
                    if n_off.abs() >= 0.5 {
                        sides[owner[n]][usize::from(n_off > 0.0)] += 1;
                    }
                }
            }
        }
        if touching.is_empty() {
            touching = within_reach;
        }
        let region_across =
            pixels.iter().map(|&at| across_at(at)).sum::<f64>() / pixels.len() as f64;
        regions.push((pixels, touching));
        sided.push((sides, region_across));
    }
    // Parts' places across the blob, and which way the camera lies.
    let mut part_across = vec![(0.0, 0usize); tops.len()];
    for (i, &o) in owner.iter().enumerate() {
        if o != UNSET {
            part_across[o].0 += across_at(i);
            part_across[o].1 += 1;
        }
    }
    let part_across: Vec<f64> = part_across
        .iter()
        .map(|&(sum, n)| sum / n.max(1) as f64)
        .collect();
    let toward_camera = dot(nadir, across);
    if let Some(assigned) = strips_one_way(&sided, &part_across, toward_camera) {
        for ((pixels, _), part) in regions.iter().zip(assigned) {
            if let Some(part) = part {
                for &at in pixels {
                    owner[at] = part;
                }
            }
        }
    } else {
        let mut regions: Vec<_> = regions
            .into_iter()
            .zip(sided.into_iter().map(|(sides, _)| sides))
            .collect();
        regions.sort_by_key(|((_, touching), _)| touching.len());
        let lit: Vec<usize> = tops.iter().map(|&t| sizes[t]).collect();
        let mut paper_of = vec![0usize; tops.len()];
        for ((pixels, touching), sides) in regions {
            let Some(least) = touching.iter().map(|&t| paper_of[t]).min() else {
                continue;
            };
            let barest: Vec<usize> = touching
                .into_iter()
                .filter(|&t| paper_of[t] == least)
                .collect();
            // A part lit over more than the longest line of blocks is ink (a stretch of
            // river, joined to a block standing at its bank): paper touching it and a
            // part a piece's size is that piece's. Given to the river, found first, a
            // marked block's strip was lost and the block read backwards.
            let piece_sized: Vec<usize> = barest
                .iter()
                .copied()
                .filter(|&t| lit[t] as f64 <= MOST_BLOCKS_IN_LINE * whole_top_px)
                .collect();
            let barest = if piece_sized.is_empty() {
                barest
            } else {
                piece_sized
            };
            let Some(part) = strip_owner_by_lit_top(&barest, &lit, &sides, whole_top_px)
                .or(barest.iter().min().copied())
            else {
                continue;
            };
            paper_of[part] += pixels.len();
            for at in pixels {
                owner[at] = part;
            }
        }
    }
    let mut parts = vec![Vec::new(); tops.len()];
    for &p in blob {
        let part = owner[((p.y - y0) * w + (p.x - x0)) as usize];
        if part != UNSET {
            parts[part].push(p);
        }
    }
    Some(parts)
}

/// The parts of a column the facing strips of its blocks go with, read one way: every
/// block of a column faces the same way, so each strip lies on the same side of its own
/// top's paint, and each top carries one strip. `sided` holds each paper region's
/// contacts with each part on its low and high side across the column, and where the
/// region lies across it; `part_across`, where each part lies; `toward_camera`, where
/// the point under the camera does.
///
/// Read with the paint on each region's low side, and then on its high side: a region
/// goes with the part it touches most on that side (at least [`LEAST_STRIP_CONTACTS`]
/// pairs within reach, and a quarter of all its contacts), or with none. A reading
/// that gives a part two regions is not the column's. Of the two, the one that places
/// more regions is; where both place as many, the one whose parts and regions left
/// over lie nearest the camera: a part left without a strip is a side face, and paper
/// left without a top is the label on the back face, and the camera sees both on its
/// own side of the column. On the photoreal frames, two red blocks in a column facing
/// the camera show face, strip, top, strip, top; on our renderer's, two facing away
/// from it show strip, top, strip, top, label. `None` where neither reading holds, or
/// fewer than two regions touch.
///
/// Taking each region to the part it touches alone, then to the one with the least
/// paper yet, gave both strips of a column to one part where each touched it and the
/// other part lay a pink pixel farther off: that part read a strip on each half, and
/// its block read facing backwards.
fn strips_one_way(
    sided: &[(Vec<[usize; 2]>, f64)],
    part_across: &[f64],
    toward_camera: f64,
) -> Option<Vec<Option<usize>>> {
    const LEAST_STRIP_CONTACTS: usize = 3;
    if sided.len() < 2 {
        return None;
    }
    let read = |side: usize| -> Option<(usize, f64, Vec<Option<usize>>)> {
        let assigned: Vec<Option<usize>> = sided
            .iter()
            .map(|(parts, _)| {
                let all: usize = parts.iter().map(|c| c[0] + c[1]).sum();
                let least = LEAST_STRIP_CONTACTS.max(all.div_ceil(4));
                (0..parts.len())
                    .filter(|&p| parts[p][side] >= least)
                    .max_by_key(|&p| parts[p][side])
            })
            .collect();
        let mut placed: Vec<usize> = assigned.iter().flatten().copied().collect();
        let count = placed.len();
        placed.sort_unstable();
        placed.dedup();
        if placed.len() < count {
            return None;
        }
        // How near the camera the parts and regions left over lie, at the nearest.
        let left_over = (0..part_across.len())
            .filter(|p| !placed.contains(p))
            .map(|p| part_across[p])
            .chain(
                sided
                    .iter()
                    .zip(&assigned)
                    .filter(|(_, part)| part.is_none())
                    .map(|((_, across), _)| *across),
            )
            .map(|across| (across - toward_camera).abs())
            .fold(f64::INFINITY, f64::min);
        Some((count, left_over, assigned))
    };
    let better = |a: &(usize, f64, Vec<Option<usize>>), b: &(usize, f64, Vec<Option<usize>>)| {
        a.0 > b.0 || (a.0 == b.0 && a.1 < b.1)
    };
    match (read(0), read(1)) {
        (Some(low), Some(high)) if better(&low, &high) => Some(low.2),
        (Some(low), Some(high)) if better(&high, &low) => Some(high.2),
        (Some(_), Some(_)) | (None, None) => None,
        (Some(one), None) | (None, Some(one)) => (one.0 > 0).then_some(one.2),
    }
}

/// Of two parts a paper region lies between, the one whose top it lies on, where their
/// lit tops tell: a facing strip covers the front half of its block's top, so in a
/// column of a marked block behind an unmarked one, the marked block's lit top is about
/// half the other's (a quarter to two thirds of it: rounded edges take a pixel more off
/// the narrow half top than off the whole one), and the strip between the two is its.
/// `lit` holds each part's lit top in pixels; `sides`, the region's contacts with each
/// part on its low and high side across the blob (see [`split_by_tops`]). Between means
/// each part's paint mostly on its own side of the region, and as much of it on one side
/// as on the other, within a factor of two. The larger part must show the unmarked
/// block's whole top, less its edges: at least half of `whole_top_px`, a fresh block's
/// top. `None` for any other pair: a marked block's own narrow lit top and the few lit
/// pixels of its side face, two blocks end to end (a strip along one and against the
/// other's end only), whose lit sizes say nothing of the strip.
///
/// On our renderer's columns of one marked block and one unmarked, the strip had gone
/// to the part found first, and the marked block behind an unmarked one read facing
/// backwards where that was the front block. On the columns of
/// `blocks_in_columns_are_found_marked_or_not`, the marked block's lit top was 0.47 to
/// 0.49 of the unmarked one's with sharp edges and 0.29 to 0.41 with edges rounded by
/// 0.04 in, beside unmarked tops of 265 to 289 px (a whole top is 281). Left to the old
/// rule: a spent block's top and a sliver of lit side face, a tenth of it, on the
/// photoreal frames; two blocks end to end, whose shared strip touched one five times as
/// much as the other; a lone marked block with rounded edges, its lit top 79 px and its
/// dark side face 21, which the share alone gave the strip to the face.
fn strip_owner_by_lit_top(
    parts: &[usize],
    lit: &[usize],
    sides: &[[usize; 2]],
    whole_top_px: f64,
) -> Option<usize> {
    let &[a, b] = parts else {
        return None;
    };
    let low_side = |p: usize| sides[p][0] > sides[p][1];
    let [touch_a, touch_b] = [a, b].map(|p| sides[p][0] + sides[p][1]);
    let between = low_side(a) != low_side(b) && 2 * touch_a.min(touch_b) >= touch_a.max(touch_b);
    let (small, large) = if lit[a] <= lit[b] { (a, b) } else { (b, a) };
    let share = lit[small] as f64 / lit[large].max(1) as f64;
    let a_whole_top = lit[large] as f64 >= 0.5 * whole_top_px;
    (between && a_whole_top && (0.25..=2.0 / 3.0).contains(&share)).then_some(small)
}

/// Whether a blob of this many pixels is too small to be a piece: smaller than half an
/// HQ cube's top (or the model has no cube to compare with).
fn is_speck(pixels: usize, options: &DetectOptions) -> bool {
    options.model.shape(UnitKind::Hq).is_none_or(|hq| {
        (pixels as f64) < 0.5 * hq.frontage_in * hq.depth_fresh_in * PX_PER_IN * PX_PER_IN
    })
}

/// Which ends of a part of a line (along `axis`) are cuts, not a block's own ends.
#[derive(Debug, Clone, Copy)]
struct Cut {
    axis: [f64; 2],
    low_end: bool,
    high_end: bool,
}

/// How much larger than its footprint a face `height_in` above the map shows on the map
/// plane, less one, under a camera `cam_h` above it: s - 1 for s = H / (H - h) (see
/// [`Silhouette`]). A top is pushed away from the point under the camera by this share
/// of its distance from it.
fn top_grow(height_in: f64, cam_h: f64) -> f64 {
    height_in / (cam_h - height_in)
}

/// A blob's silhouette on its own axes, in map-plane pixels from the axes' centre: its
/// extents (pixel centres, the 2nd to the 98th percentile) and where the point under
/// the camera is.
///
/// A piece's top face, h above the map, shows on the map plane enlarged by
/// s = H / (H - h) about the point under the camera (H the camera's height), so pushed
/// away from it; the faces the camera sees from the side fill the gap between the top
/// and the footprint, on the side toward that point. The silhouette's far edge (away
/// from the point) is therefore the top's far edge, whatever the light makes of the side
/// faces; its near edge is the footprint's where the side faces are seen as paint and the
/// top's where they are too dark.
struct Silhouette {
    along: (f64, f64),
    normal: (f64, f64),
    /// The point under the camera: along, normal.
    nadir: [f64; 2],
    /// The variance of its pixels along the camera's ray on the map (away from the point
    /// under the camera) and across it, in square pixels ([`ray_spread`]).
    ray_spread: [f64; 2],
}

/// The variance of `points` along the camera's ray on the map through their middle (the
/// line from `nadir`, the point under the camera) and across it, in square pixels. Under
/// the camera, where the ray has no direction, along the x axis.
fn ray_spread(points: &[[f64; 2]], nadir: [f64; 2]) -> [f64; 2] {
    let (middle, [sxx, syy, sxy]) = second_moments(points);
    let away = sub(middle, nadir);
    let reach = away[0].hypot(away[1]);
    let [c, s] = if reach > 1e-6 {
        [away[0] / reach, away[1] / reach]
    } else {
        [1.0, 0.0]
    };
    let n = points.len().max(1) as f64;
    // The variance along a unit axis (c, s) is (c² xx + 2 c s xy + s² yy) / n.
    let along = (c * c * sxx + 2.0 * c * s * sxy + s * s * syy) / n;
    let across = (s * s * sxx - 2.0 * c * s * sxy + c * c * syy) / n;
    [along, across]
}

impl Silhouette {
    /// Whether the silhouette spreads as a cube's does, seen from the camera: its top, a
    /// square of `top_px` a side, stretched along the camera's ray only, by the side face
    /// the camera sees, `shift_px` at most (the top's shift), where that face reads as
    /// paint. A square spreads alike every way, whatever its turn (a² / 12), and the
    /// side face lengthens it along the ray, by at most (2 a d + d²) / 12 for a stretch
    /// d. So across the ray a cube spreads as its top does, and along it as much or more,
    /// each give or take a blurred edge ([`EDGE_BLUR_PX`]) a side: a square roof bigger
    /// than a cube's top, a long roof turned across the ray or along it farther than a
    /// side face reaches, is flat ink. A solid's cue the map cannot show: no print
    /// stretches along the camera's ray by as much as it stands.
    ///
    /// On our renderer's 72 tables at 1080p (procedural sharp and rounded, apart and
    /// touching, 12 each; the demo, river and town maps, 8 each) and the four photoreal
    /// frames, the 328 readings of real cubes all spread so; of the 55 cube readings
    /// where there is none, all 54 roofs of the town map but one patch by a block, 28
    /// do not. What it costs: a cube standing against a roof of its colour is one blob
    /// with it, spreads as neither, and is lost (2 cubes on 24 tables of the town map at
    /// 720p, where the phantoms went from 142 to 85).
    fn spreads_as_a_cube(&self, top_px: f64, shift_px: f64) -> bool {
        let blur = EDGE_BLUR_PX;
        let [along, across] = self.ray_spread;
        let widest = top_px + 2.0 * blur;
        // Along the ray less than across by no more than a blurred pixel at each end:
        // the top's far edge blurs into the map, and its near edge into a dark side face.
        let shortest = top_px - 2.0 * blur;
        let least_stretch = -(top_px * top_px - shortest * shortest) / 12.0;
        let side = shift_px + 2.0 * blur;
        let most_stretch = (2.0 * top_px * side + side * side) / 12.0;
        across <= widest * widest / 12.0
            && (least_stretch..=most_stretch).contains(&(along - across))
    }

    /// The silhouette's size in pixels (pixel edges, not centres): across the axis and
    /// along it.
    fn size_px(&self) -> (f64, f64) {
        (
            self.normal.1 - self.normal.0 + 1.0,
            self.along.1 - self.along.0 + 1.0,
        )
    }

    /// Which way the point under the camera lies from the silhouette's middle, along and
    /// normal to the axis: +1 or -1.
    fn toward_camera(&self) -> [f64; 2] {
        let mid = |(lo, hi): (f64, f64)| 0.5 * (lo + hi);
        [
            if self.nadir[0] >= mid(self.along) {
                1.0
            } else {
                -1.0
            },
            if self.nadir[1] >= mid(self.normal) {
                1.0
            } else {
                -1.0
            },
        ]
    }

    /// The far edge along (0) or normal (1) to the axis, at the pixels' outer edge.
    fn far_edge(&self, axis: usize) -> f64 {
        let (lo, hi) = if axis == 0 { self.along } else { self.normal };
        if self.toward_camera()[axis] > 0.0 {
            lo - 0.5
        } else {
            hi + 0.5
        }
    }
}

/// How much of a block's top a rounded edge may take off its flat face, at each edge:
/// wooden blocks come sanded round by about a millimetre. The rounding slopes away from
/// the light, and does not read as the lit top: on our renderer's frames with its edges
/// taken off by 0.04 in, the lit top along a block read 1.1 map-plane pixels short of
/// the top's size at each end (0.45 with sharp edges), and on the photoreal frames,
/// whose blocks are bevelled, 1.0 to 1.4 at its far end.
const ROUNDED_EDGE_IN: f64 = 0.05;

/// How far a piece's edge may blur on the map plane, in its pixels: the lens, the
/// sensor and JPEG's half-resolution colour spread paint over about a frame pixel, half
/// a map-plane pixel at 1080p, each way.
const EDGE_BLUR_PX: f64 = 1.0;

/// A piece shape's fit to a silhouette: the shape, its status, its top's height and its
/// footprint (frontage, depth) in inches, and how far the silhouette lies from the sizes
/// the shape can show (0 within them; in relative units of the shape's size).
struct Fit {
    kind: &'static str,
    status: Status,
    height_in: f64,
    frontage_in: f64,
    depth_in: f64,
    err: f64,
    /// Held against a spent reading whose label lies off its top (see [`fit_shapes`]).
    misplaced_label: f64,
}

/// The shapes a silhouette may be, best first: a fresh or spent block or an HQ cube (only
/// blocks for a part of a line, whose length is a block's by construction).
///
/// Across the axis a shape of depth W shows between W s (its top alone: the side face
/// too dark to read as paint) and W s plus the side face's depth, its top's shift; along
/// the axis likewise. A silhouette inside both ranges fits exactly; outside, by its
/// distance from them. A quarter of its distance from the middle of the ranges breaks
/// ties where two shapes' ranges overlap, far from the point under the camera. A top is
/// one flat face, lit alike: the share of the paint that is in shade (`shaded`, given
/// the stretch across the axis) within where a shape's top would be counts against it.
fn fit_shapes(
    sil: &Silhouette,
    cut: Option<Cut>,
    cam_h: f64,
    model: &PieceModel,
    shaded: &dyn Fn(f64, f64) -> f64,
    paper_share: &dyn Fn(f64, f64) -> Option<f64>,
) -> Vec<Fit> {
    let (Some(block), Some(hq)) = (model.shape(UnitKind::Infantry), model.shape(UnitKind::Hq))
    else {
        return Vec::new();
    };
    let shapes = [
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
    let mid = |(lo, hi): (f64, f64)| 0.5 * (lo + hi);
    let (width, length) = sil.size_px();
    let mut fits: Vec<Fit> = shapes
        .iter()
        .filter(|s| cut.is_none() || s.0 == "block")
        .map(|&(kind, status, frontage, depth, h)| {
            let grow = top_grow(h, cam_h);
            let scale = 1.0 + grow;
            // The top's shift from the footprint, in pixels along and across the axis.
            let shift_along = ((mid(sil.along) - sil.nadir[0]) * grow).abs();
            let shift_across = ((mid(sil.normal) - sil.nadir[1]) * grow).abs();
            let miss = |seen: f64, size_in: f64, shift: f64| {
                let least = size_in * scale * PX_PER_IN - EDGE_BLUR_PX;
                let most = size_in * scale * PX_PER_IN + shift + 2.0 * EDGE_BLUR_PX;
                let outside = (least - seen).max(seen - most).max(0.0);
                (outside + 0.25 * (seen - 0.5 * (least + most)).abs()) / (size_in * PX_PER_IN)
            };
            let along_err = if cut.is_some() {
                0.0
            } else {
                miss(length, frontage, shift_along)
            };
            // The top's far edge blurs into the map: its outer pixel is left out.
            let toward = sil.toward_camera()[1];
            let far = sil.far_edge(1) + toward * EDGE_BLUR_PX;
            let inner = sil.far_edge(1) + toward * depth * scale * PX_PER_IN;
            // A spent block's label lies on its top, over the half away from the camera
            // too; a standing block's label seen beside its top lies toward the camera
            // only, with the lit top's paint away from it.
            let half = sil.far_edge(1) + toward * 0.5 * depth * scale * PX_PER_IN;
            let label_off_top = status == Status::Spent
                && kind == "block"
                && paper_share(far.min(half), far.max(half)).is_some_and(|share| share < 0.25);
            Fit {
                kind,
                status,
                height_in: h,
                frontage_in: frontage,
                depth_in: depth,
                err: along_err
                    + miss(width, depth, shift_across)
                    + shaded(far.min(inner), far.max(inner)),
                // Ranks the shapes, but is no reason to doubt that a blob is a piece.
                misplaced_label: if label_off_top { 0.5 } else { 0.0 },
            }
        })
        .collect();
    fits.sort_by(|a, b| (a.err + a.misplaced_label).total_cmp(&(b.err + b.misplaced_label)));
    fits
}

/// The least share of a standing block's top length its silhouette shows, where the
/// empty map does not explain the ink. An end in deep shade or under a neighbour's corner
/// shortens it: whole blocks read at 0.73 of it at the least (our renderer's five maps,
/// 8 tables each, and the photoreal frames), and 0.88 but for two. Roofs a block wide
/// and shorter than one read at 0.47 to 0.65 on the market-town map.
const LEAST_LENGTH_SHOWN: f64 = 0.7;

/// The least paper, as a share of a label's area, whose place in a blob is read: where
/// a spent block's label lies, or whether two blocks in a column show their strips.
const LEAST_PAPER_READ: f64 = 0.25;

/// How deep across a spent block's axis the paper on its top lies at the least, its
/// middle 80 %, as a share of its label's width: the label covers the top but for a
/// rim. A standing block's facing strip is no label: read with a neighbour's paint (a
/// red block among red roofs) as a top a spent block's size, it made a fresh block
/// spent. Measured with `aide detect` on 60 of our renderer's 1080p tables (10 each on
/// the procedural and demo maps, 20 each on river-crossing and market-town) and the four
/// photoreal frames: every spent block's paper lay 8.7 px deep or more (0.72 of its
/// label's 12 at 20 px an inch), and four of the five fresh blocks among the town's
/// roofs read as spent 3.8 to 4.6 px.
const LEAST_LABEL_DEPTH: f64 = 0.5;

/// Whether a fit is something the map's ink cannot be, for a blob where the empty map
/// does not explain the ink:
/// - "Gíralas con la cara adhesiva hacia arriba para mostrar que una unidad está
///   Agotada" [3.2]: a spent block lies label up. A flat reading with no label on it
///   (`label_on_top`: paper [`LEAST_LABEL_DEPTH`] deep, not a strip) is ink cut to a
///   block's size (a stretch of river between a bridge and a road), not a block. A
///   supply train unpacked lies "label down touching the map" [3.2]: there it is
///   missed, and is placed by hand.
/// - A standing block shows its length: a silhouette, not cut from a line, shorter than
///   [`LEAST_LENGTH_SHOWN`] of its top is a roof or a stretch of ink, not a block.
/// - A cube is as wide as it is long and all paint on top (no label, no strip): its
///   silhouette is at least its top's size, less what its blurred edges lose under the
///   side's least saturation (`edge_loss_px`, from [`edge_loss_px`]), both ways. A
///   narrower stretch of the side's colour (a roof's edge, a sliver of river) is no
///   cube. It stands: its silhouette spreads as its top does, stretched along the
///   camera's ray by its side face only ([`Silhouette::spreads_as_a_cube`]).
///
/// Where the reference explains the ink it is out of the paint already, and may have
/// taken part of a piece's paint with it: these do not apply there. A `part` of a line
/// has a cut for an end, and its length is a block's by construction.
fn not_ink(
    fit: &Fit,
    sil: &Silhouette,
    cam_h: f64,
    label_on_top: bool,
    part: bool,
    edge_loss_px: f64,
) -> bool {
    match (fit.kind, fit.status) {
        ("block", Status::Spent) => label_on_top,
        ("block", Status::Fresh) if !part => {
            let grow = top_grow(fit.height_in, cam_h);
            let top_px = fit.frontage_in * (1.0 + grow) * PX_PER_IN;
            sil.size_px().1 >= LEAST_LENGTH_SHOWN * top_px
        }
        ("hq", _) => {
            let grow = top_grow(fit.height_in, cam_h);
            let top_px = fit.depth_in * (1.0 + grow) * PX_PER_IN;
            let (width, length) = sil.size_px();
            let shift_px = sil.nadir[0].hypot(sil.nadir[1]) * grow;
            width.min(length) >= top_px - edge_loss_px && sil.spreads_as_a_cube(top_px, shift_px)
        }
        _ => true,
    }
}

/// How far across a piece's silhouette falls short of its top where the paint's
/// saturation `saturation` lies near its side's least, `floor`: a blurred edge pixel
/// that is a share `a` paint, beside a map far from the side's hue, reads about `a`
/// times the paint's saturation and is paint from `a` = floor / saturation. Its
/// silhouette ends there, not at the middle of the blur: over a blur of
/// [`EDGE_RAMP_PX`] each side loses (floor / saturation - 1/2) of it. Never less than
/// [`EDGE_BLUR_PX`] in all (the blur's own share), nor more than twice it.
fn edge_loss_px(floor: f64, saturation: f64) -> f64 {
    (2.0 * EDGE_RAMP_PX * (floor / saturation.max(1e-6) - 0.5))
        .clamp(EDGE_BLUR_PX, 2.0 * EDGE_BLUR_PX)
}

/// How wide an edge's blur is on the map plane, in its pixels: a frame pixel of lens
/// and sensor, and JPEG's chroma halved, at about two frame pixels a map-plane pixel
/// at 1080p.
const EDGE_RAMP_PX: f64 = 1.5;

/// Measure one blob of a side's paint and its paper; `None` when it is no piece (a road
/// line, a speck).
///
/// The blob is the piece's silhouette ([`Silhouette`]): its shape and status are those
/// whose sizes it fits ([`fit_shapes`]), and its footprint lies a depth from the far
/// edge, taken back down the camera's ray. The facing strip is paper on the top; a
/// standing block's label is on its back face, which the camera sees only from behind,
/// between the top and the point under the camera.
fn measure(
    blob: &[Px],
    plane: &MapPlane,
    colour: &str,
    camera: (f64, f64, f64),
    options: &DetectOptions,
    cut: Option<Cut>,
    ink_known: bool,
) -> Option<(DetectedPiece, f64)> {
    let block = options.model.shape(UnitKind::Infantry)?;
    if is_speck(blob.len(), options) {
        return None;
    }
    let own_paper = without_stray_paper(blob);
    let blob: &[Px] = &own_paper;
    let (bright, lit) = lit_paint(blob, plane)?;
    if lit.len() < 4 {
        return None;
    }
    let everything: Vec<[f64; 2]> = lit
        .iter()
        .copied()
        .chain(blob.iter().filter(|p| p.paper).map(|p| p.centre()))
        .collect();
    // The axes from the lit top and its label: a standing block's label on its back
    // face shows slanted, and would turn them.
    let label: Vec<[f64; 2]> = labels(blob).collect();
    let top: Vec<[f64; 2]> = lit.iter().chain(&label).copied().collect();
    let axes = principal_axes(&top);
    let (cam_x, cam_y, cam_h) = camera;
    let nadir = sub([cam_x * PX_PER_IN, cam_y * PX_PER_IN], axes.centre);
    // The silhouette reaches past the lit top by a side face at most: paint farther off
    // is another piece's, joined to this one by a corner.
    let lit_top = (
        extent(&everything, axes.centre, axes.along),
        extent(&everything, axes.centre, axes.normal),
    );
    let reach = {
        let tallest = block.height_fresh_in;
        nadir[0].hypot(nadir[1]) * top_grow(tallest, cam_h) + 2.0 * EDGE_BLUR_PX
    };
    let near_top = |(lo, hi): (f64, f64), v: f64| (lo - reach..=hi + reach).contains(&v);
    let outline: Vec<[f64; 2]> = blob
        .iter()
        .map(|p| p.centre())
        .filter(|p| {
            let d = sub(*p, axes.centre);
            near_top(lit_top.0, dot(d, axes.along)) && near_top(lit_top.1, dot(d, axes.normal))
        })
        .collect();
    let sil = Silhouette {
        along: extent(&outline, axes.centre, axes.along),
        normal: extent(&outline, axes.centre, axes.normal),
        nadir: [dot(nadir, axes.along), dot(nadir, axes.normal)],
        ray_spread: ray_spread(&outline, [cam_x * PX_PER_IN, cam_y * PX_PER_IN]),
    };
    let (width0, length0) = {
        let (width, length) = sil.size_px();
        (width / PX_PER_IN, length / PX_PER_IN)
    };
    // Each pixel's offset across the axis, and whether it is paint in shade.
    let lit_from = 0.8 * bright;
    let across: Vec<(f64, Option<bool>)> = blob
        .iter()
        .map(|p| {
            let n = dot(sub(p.centre(), axes.centre), axes.normal);
            let shade = (!p.paper)
                .then(|| plane.at(p.x, p.y))
                .flatten()
                .map(|rgb| Hsv::from_rgb(rgb).v < lit_from);
            (n, shade)
        })
        .collect();
    let shaded = |lo: f64, hi: f64| {
        let (mut dark, mut paint) = (0usize, 0usize);
        for &(n, shade) in &across {
            if let Some(dim) = shade.filter(|_| (lo..=hi).contains(&n)) {
                dark += usize::from(dim);
                paint += 1;
            }
        }
        if paint == 0 {
            0.0
        } else {
            dark as f64 / paint as f64
        }
    };
    // The share of the blob's paper that lies in a stretch across the axis; `None`
    // when the blob holds less paper than [`LEAST_PAPER_READ`] of a label. In order,
    // for the depth a label's paper spans.
    let mut paper: Vec<f64> = blob
        .iter()
        .filter(|p| p.paper)
        .map(|p| dot(sub(p.centre(), axes.centre), axes.normal))
        .collect();
    paper.sort_unstable_by(f64::total_cmp);
    let paper_share = |lo: f64, hi: f64| {
        ((paper.len() as f64) >= LEAST_PAPER_READ * LABEL_PX).then(|| {
            paper.iter().filter(|n| (lo..=hi).contains(*n)).count() as f64 / paper.len() as f64
        })
    };
    let label_on_top = paper_share(f64::NEG_INFINITY, f64::INFINITY).is_some() && {
        let tenth = paper.len() / 10;
        paper[paper.len() - 1 - tenth] - paper[tenth]
            >= LEAST_LABEL_DEPTH * LABEL_WIDTH_IN * PX_PER_IN
    };
    // What a cube's blurred edges lose under its side's floor, by the paint's median
    // saturation: asked only where a cube may be judged against ink (a part of a line is
    // a block; where the reference knows the ink, nothing is).
    let side = options.colours.sides.iter().find(|s| s.name == colour);
    let edge_loss = if cut.is_some() || ink_known {
        EDGE_BLUR_PX
    } else {
        let floor = side.map_or(0.0, |s| s.min_saturation);
        let mut saturations: Vec<f64> = blob
            .iter()
            .filter(|p| !p.paper)
            .filter_map(|p| plane.at(p.x, p.y))
            .map(|rgb| Hsv::from_rgb(rgb).s)
            .collect();
        if saturations.is_empty() {
            EDGE_BLUR_PX
        } else {
            edge_loss_px(floor, median(&mut saturations))
        }
    };
    let fits: Vec<Fit> = fit_shapes(&sil, cut, cam_h, options.model, &shaded, &paper_share)
        .into_iter()
        .filter(|f| ink_known || not_ink(f, &sil, cam_h, label_on_top, cut.is_some(), edge_loss))
        .collect();
    tracing::trace!(
        at_in = ?[axes.centre[0] / PX_PER_IN, axes.centre[1] / PX_PER_IN],
        along_px = ?sil.along,
        across_px = ?sil.normal,
        ray_spread_px2 = ?sil.ray_spread,
        fits = ?fits.iter().map(|f| (f.kind, f.status, f.err)).collect::<Vec<_>>(),
        "blob measured"
    );
    if width0 < 0.12 || (cut.is_none() && length0 > 1.5 * block.frontage_in + 0.5) {
        return None;
    }
    let fit = fits.into_iter().next()?;
    if fit.err > 0.9 {
        return None;
    }
    // A piece shows at least part of its top as paint or paper; a few scattered pixels
    // whose span is a piece's (a river bank's pale outline, specks of its blue) are not.
    let top_px = fit.frontage_in * fit.depth_in * PX_PER_IN * PX_PER_IN;
    if (blob.len() as f64) < LEAST_TOP_SHOWN * top_px {
        return None;
    }
    // A cube's top is one face of paint, solid to its middle. A ring of the side's hue
    // round a hollow is not one: on our renderer's 4K frames of the river map, with the
    // empty map known, the soft edge of a block's shadow on the river (a little darker
    // than the river in full light, lighter than the river in shade) read as a ring
    // 0.6 in across, and as a blue HQ cube.
    if fit.kind == "hq" {
        let middle = axes.centre;
        let reach = std::f64::consts::SQRT_2 * EDGE_BLUR_PX;
        if !top.iter().any(|p| {
            let d = sub(*p, middle);
            dot(d, d) <= reach * reach
        }) {
            return None;
        }
    }
    let grow = top_grow(fit.height_in, cam_h);
    let k = 1.0 / (1.0 + grow);
    let toward = sil.toward_camera();
    // A top edge seen on the plane, taken back to the footprint's edge below it.
    let to_footprint = |axis: usize, edge: f64| sil.nadir[axis] + (edge - sil.nadir[axis]) * k;
    // A spent block lies label up, its 0.6 in label on a 0.75 in deep top: a rim of paint
    // 0.075 in wide runs along each long edge. Blurred between the label's white and the
    // map beyond, the rim at the top's far edge reads as neither paint nor paper, and the
    // silhouette ends at the label, a rim short of the top. The rim is there when what
    // lies just past the label is of the side's hue, at a saturation of 0.1 at least (a
    // greyer pixel's hue means nothing); past a label stuck flush with the edge lies the
    // map. No more saturation is asked for: that pixel is mostly label and map, paler
    // than half the side's least ([`rim_side`]'s test lost three of the photoreal
    // frames' rims). The rims at the ends, 0.14 in, are wide enough to read as paint.
    let past_rim = |axis: usize, far_edge: f64| {
        let spent_block = fit.kind == "block" && fit.status == Status::Spent;
        let Some(side) = side.filter(|_| spent_block && axis == 1) else {
            return far_edge;
        };
        let rim_px = 0.5 * (fit.depth_in - LABEL_WIDTH_IN).max(0.0) * (1.0 + grow) * PX_PER_IN;
        let (mut at_edge, mut paper, mut read, mut of_side) = (0usize, 0usize, 0usize, 0usize);
        for p in blob {
            if (dot(sub(p.centre(), axes.centre), axes.normal) - far_edge).abs() > 1.0 {
                continue;
            }
            at_edge += 1;
            if !p.paper {
                continue;
            }
            paper += 1;
            let past = sub(p.centre(), scale(axes.normal, toward[1] * 1.5));
            let under = plane.at_checked(past[0].floor() as i64, past[1].floor() as i64);
            if let Some(hsv) = under.map(Hsv::from_rgb) {
                read += 1;
                of_side += usize::from(
                    hsv.s >= 0.1 && hue_distance(hsv.h, side.hue_deg) <= side.hue_tolerance_deg,
                );
            }
        }
        if 2 * paper > at_edge && 2 * of_side > read {
            far_edge - toward[1] * rim_px
        } else {
            far_edge
        }
    };
    // The footprint's middle between its far edge and its near one: the silhouette's
    // near edge where the side face reads as paint, the top's taken down where it does
    // not, whichever gives the shape's size; failing both, its size in from the far edge.
    // (Between two edges, whatever the lens and the JPEG add to both sides cancels.)
    let footprint_middle = |axis: usize, size_px: f64| {
        let (lo, hi) = if axis == 0 { sil.along } else { sil.normal };
        let far_foot = to_footprint(axis, past_rim(axis, sil.far_edge(axis)));
        let near = if toward[axis] > 0.0 {
            hi + 0.5
        } else {
            lo - 0.5
        };
        [near, to_footprint(axis, near)]
            .into_iter()
            .map(|edge| (edge, ((edge - far_foot).abs() - size_px).abs()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .filter(|(_, miss)| *miss <= 0.3 * size_px)
            .map_or(far_foot + toward[axis] * 0.5 * size_px, |(edge, _)| {
                0.5 * (far_foot + edge)
            })
    };
    // Where the top alone is lit (its side faces in shade), its middle, taken down to
    // the footprint, is surest of all.
    // It is the top alone when it is nearer the top's size than the top's with its side
    // face. A block's lit paint that runs past its top has the side face toward the
    // camera in it, and ends at the top's step in brightness ([`top_step`]); a spent
    // block's far edge may be its label's, a rim short of its top's. Its flat top may
    // fall short of its size by a rounded edge at each end ([`ROUNDED_EDGE_IN`]): the
    // middle of what is lit is still the top's.
    let top_middle = |axis: usize, size_px: f64| {
        let (lo, hi) = if axis == 0 { lit_top.0 } else { lit_top.1 };
        let seen = hi - lo + 1.0;
        let shift = ((0.5 * (lo + hi) - sil.nadir[axis]) * grow).abs();
        let room = (0.15 * size_px + EDGE_BLUR_PX).min(0.5 * shift).max(0.5);
        let top_px = size_px * (1.0 + grow);
        let rounded_px = 2.0 * ROUNDED_EDGE_IN * PX_PER_IN * (1.0 + grow);
        (seen - top_px <= room && top_px - seen <= room + rounded_px).then(|| {
            let (far, near) = if toward[axis] > 0.0 {
                (lo - 0.5, hi + 0.5)
            } else {
                (hi + 0.5, lo - 0.5)
            };
            let near = if seen > top_px + EDGE_BLUR_PX {
                let (unit, across, (a_lo, a_hi)) = if axis == 0 {
                    (axes.along, axes.normal, lit_top.1)
                } else {
                    (axes.normal, axes.along, lit_top.0)
                };
                let quarter = 0.25 * (a_hi - a_lo);
                let band = (across, a_lo + quarter, a_hi - quarter);
                top_step(blob, plane, axes.centre, unit, band, [far, near], top_px).unwrap_or(near)
            } else {
                near
            };
            to_footprint(axis, 0.5 * (past_rim(axis, far) + near))
        })
    };
    let depth_px = fit.depth_in * PX_PER_IN;
    let centre_n = top_middle(1, depth_px).unwrap_or_else(|| footprint_middle(1, depth_px));
    // Along it: from the far end where the top's shift shows, else from the middle; for
    // a part of a line, from the end that is the block's own.
    let frontage_px = fit.frontage_in * PX_PER_IN;
    let (cut_low, cut_high) = match cut {
        Some(c) if dot(c.axis, axes.along) >= 0.0 => (c.low_end, c.high_end),
        Some(c) => (c.high_end, c.low_end),
        None => (false, false),
    };
    let centre_a = match (cut_low, cut_high) {
        (true, true) => to_footprint(0, 0.5 * (sil.along.0 + sil.along.1)),
        (false, false) => {
            top_middle(0, frontage_px).unwrap_or_else(|| footprint_middle(0, frontage_px))
        }
        (low_is_cut, _) => {
            // The block's own end of its lit top, placed as the top's, and the top's
            // middle a frontage (as the plane shows it) from there. Where the part's
            // lit paint is longer than its top, less what the cut leaves out, by a
            // sliver (up to [`SEAM_REACH_IN`]; longer, it is ink joined to it), it runs
            // on over the next block's top (two blocks' paint may fall into blobs
            // parted a little off their seam): its end is the seam there.
            let (lo, hi) = lit_top.0;
            let top_px = frontage_px * (1.0 + grow);
            let inward = if low_is_cut { -1.0 } else { 1.0 };
            let lit_end = if low_is_cut { hi + 0.5 } else { lo - 0.5 };
            let past_own_end = hi - lo + 1.0 - (top_px - CUT_MARGIN_IN * PX_PER_IN);
            let across = {
                let (n_lo, n_hi) = lit_top.1;
                let quarter = 0.25 * (n_hi - n_lo);
                (n_lo + quarter, n_hi - quarter)
            };
            let sliver_px = EDGE_BLUR_PX..=SEAM_REACH_IN * PX_PER_IN;
            let own_end = sliver_px
                .contains(&past_own_end)
                .then(|| seam_near(blob, plane, &axes, across, lit_end))
                .flatten()
                .filter(|seam| {
                    let sliver = (seam - lit_end) * inward;
                    // The lit paint's far end and the cut's margin are each read to
                    // a pixel's blur.
                    sliver > EDGE_BLUR_PX && sliver <= past_own_end + 2.0 * EDGE_BLUR_PX
                })
                .unwrap_or(lit_end);
            to_footprint(0, own_end + inward * 0.5 * top_px)
        }
    };
    // A cube has no axes of its own to read on: it is placed on the camera's.
    let centre = if fit.kind == "hq" {
        cube_middle(&top, axes.centre, [cam_x * PX_PER_IN, cam_y * PX_PER_IN], k)
    } else {
        [
            axes.centre[0] + centre_a * axes.along[0] + centre_n * axes.normal[0],
            axes.centre[1] + centre_a * axes.along[1] + centre_n * axes.normal[1],
        ]
    };
    let (x_in, y_in) = (centre[0] / PX_PER_IN, centre[1] / PX_PER_IN);
    // The top on the axes: across, from its far edge a depth (as the plane shows it)
    // toward the camera; along, the silhouette's ends.
    let far_n = sil.far_edge(1);
    let top_n = {
        let inner = far_n + toward[1] * depth_px * (1.0 + grow);
        (far_n.min(inner), far_n.max(inner))
    };
    let facing_sign = if fit.kind == "hq" {
        Sign::None
    } else if fit.status == Status::Fresh {
        let back_face_px = sil.nadir[1].abs() * grow;
        fresh_facing(
            blob,
            &axes,
            &sil,
            top_n,
            grow * depth_px.max(1.0),
            back_face_px,
        )
    } else {
        // The top's ends from its middle: a part of a line has a cut for an end.
        let top_a = sil.nadir[0] + (centre_a - sil.nadir[0]) * (1.0 + grow);
        let half = 0.5 * frontage_px * (1.0 + grow);
        spent_strip_side(blob, &axes, [top_a - half, top_a + half, top_n.0, top_n.1])
    };
    let facing_away = || (options.facing_away)(colour);
    let (heading_deg, facing) = match facing_sign {
        _ if fit.kind == "hq" => {
            // A cube looks the same from every side: its facing cannot be seen, and no
            // rule asks for it. It faces away from its home edge when that is known.
            match facing_away() {
                Some(away) => (away, Facing::Inferred),
                None => (0.0, Facing::Unknown),
            }
        }
        sign => {
            // A spent block's label, or a standing block's lit top along the length
            // the block's top shows (a part of a line has a cut for an end, and its
            // axes are the line's).
            let refined = if fit.status == Status::Spent {
                edge_axes(&label, &axes, None)
            } else if cut.is_none() {
                let top_a = sil.nadir[0] + (centre_a - sil.nadir[0]) * (1.0 + grow);
                let half = 0.5 * frontage_px * (1.0 + grow);
                edge_axes(&top, &axes, Some((top_a - half, top_a + half)))
            } else {
                None
            };
            block_heading(sign, refined.as_ref().unwrap_or(&axes), facing_away)
        }
    };
    Some((
        DetectedPiece {
            kind: fit.kind.to_owned(),
            color: colour.to_owned(),
            x_in,
            y_in,
            heading_deg,
            status: fit.status,
            facing,
            length_in: length0 * k,
            width_in: width0 * k,
            confidence: (1.0 - fit.err).clamp(0.0, 1.0),
        },
        bright,
    ))
}

/// A block's axes from the long edges of its label (spent) or its lit top (standing),
/// where the blob's own axes have been turned by paint or paper that is not its top's.
/// In melee the enemy's facing strip blurs into a spent block's label along one edge,
/// and the principal axes of the blob's paint and label together turn toward it (on
/// the photoreal frames, two pairs of spent blocks in melee read 3 to 6 degrees off by
/// it; on the market-town map, labels whose strip's paper ran into the pale map beside
/// them up to 5); a standing block's back label or a neighbour's paint joined to its
/// blob turns them too (two photoreal blocks, 2.5 and 3.8 degrees). A label's and a
/// top's long edges are straight lines: each is fitted ([`straight_edge`]) along
/// `span` (offsets on `axes.along`; the points' own extent if `None`). Where both fit
/// and agree within [`EDGES_AGREE_DEG`], their mean is the block's direction; where one
/// fits and the other does not (it runs into the enemy's paper), the one that fits.
/// Where both fit and disagree, neither is straight enough to overrule the axes. An
/// edge of 20-odd pixel columns reads its direction to about 0.7 degrees, and a clean
/// blob's axes read better, so the edges are taken only where they turn from the axes
/// by more than [`EDGES_OFF_DEG`]. `None`: the blob's axes stand.
fn edge_axes(points: &[[f64; 2]], axes: &Axes, span: Option<(f64, f64)>) -> Option<Axes> {
    let edges = [-1.0, 1.0].map(|outward| straight_edge(points, axes, outward, span));
    let direction = match edges {
        [Some(a), Some(b)] if turn_deg(a.along, b.along) <= EDGES_AGREE_DEG => {
            let b_along = scale(b.along, dot(a.along, b.along).signum());
            [a.along[0] + b_along[0], a.along[1] + b_along[1]]
        }
        [Some(edge), None] | [None, Some(edge)] => edge.along,
        _ => return None,
    };
    let mended = Axes::toward(axes.centre, direction);
    (turn_deg(mended.along, axes.along) > EDGES_OFF_DEG).then_some(mended)
}

/// The angle between two lines' unit directions, degrees (0 to 90).
fn turn_deg(a: [f64; 2], b: [f64; 2]) -> f64 {
    dot(a, b).abs().min(1.0).acos().to_degrees()
}

/// How far apart a block's two long edges may turn and still be read as one direction,
/// degrees: twice what one edge reads to.
const EDGES_AGREE_DEG: f64 = 1.5;

/// How far a block's edges must turn from its blob's axes to be taken instead, degrees:
/// three times what one edge reads to.
const EDGES_OFF_DEG: f64 = 2.0;

/// A cube's footprint middle from its lit top (`lit`, map-plane pixel centres round
/// `centre`), with the point under the camera at `nadir` and the top taken down to the
/// map by `k` (1 / (1 + [`top_grow`])).
///
/// A cube's axes cannot be told from its second moments (a square's are alike every
/// way), nor, eight map-plane pixels across, from its edges to a degree; so it is
/// measured on the axes toward the point under the camera and across it. The top
/// shows pushed away from that point, and the side faces the camera sees fill the gap
/// toward it. Across, both edges of the lit paint are the top's. Along, its far edge is,
/// and its near edge too unless a side face, lit as the top by a lamp on that side,
/// has joined it (as under the photoreal frames' lights). A square's extent is the same
/// on any two square axes however it is turned, so the lit extent across tells which:
/// a lit extent along longer than that by more than the blur ends at a side face, and
/// the top's middle is then half the extent across in from the far edge.
fn cube_middle(lit: &[[f64; 2]], centre: [f64; 2], nadir: [f64; 2], k: f64) -> [f64; 2] {
    let to_nadir = sub(nadir, centre);
    let reach = to_nadir[0].hypot(to_nadir[1]);
    // Right under the camera no side face shows, and any two axes serve.
    let toward = if reach > 1.0 {
        scale(to_nadir, 1.0 / reach)
    } else {
        [1.0, 0.0]
    };
    let across = [-toward[1], toward[0]];
    let (far, near) = extent(lit, centre, toward);
    let (lo, hi) = extent(lit, centre, across);
    let top_px = hi - lo + 1.0;
    let along_top = if near - far + 1.0 <= top_px + EDGE_BLUR_PX {
        0.5 * (far + near)
    } else {
        far - 0.5 + 0.5 * top_px
    };
    let across_top = 0.5 * (lo + hi);
    let top = [
        centre[0] + along_top * toward[0] + across_top * across[0],
        centre[1] + along_top * toward[1] + across_top * across[1],
    ];
    [
        nadir[0] + (top[0] - nadir[0]) * k,
        nadir[1] + (top[1] - nadir[1]) * k,
    ]
}

/// A label's size, 1.6 x 0.6 in: a block's unit sticker.
const LABEL_LENGTH_IN: f64 = 1.6;
const LABEL_WIDTH_IN: f64 = 0.6;

/// A spent block found by its label alone is dropped when a piece found by its paint
/// stands this near (inches between centres): it is that piece's label. A standing
/// block's back label, taken for a spent top, is placed about 0.2 in behind the block's
/// centre; a block beside a spent one stands 0.56 in or more from it.
const LABEL_CLEAR_IN: f64 = 0.4;

/// A spent block found by its label.
struct FoundByLabel {
    piece: DetectedPiece,
    /// Its side, by index into the colour model's sides.
    side: usize,
    /// The label's paper: pixel centres on the map plane.
    paper: Vec<[f64; 2]>,
    /// The rectangle that paper fills.
    paper_box: PaperBox,
    /// No more paint lies beyond the label's far edge than a rim: the label is on a
    /// top, not on a standing block's back face.
    on_top: bool,
    /// The label touched the other side's paint and was taken out of its blob: an
    /// enemy stands in contact with it.
    in_contact: bool,
}

/// The rectangle a label's paper fills: its axes and, on them, the paper's extents
/// along and across (pixel centres, in map-plane pixels from the axes' centre).
#[derive(Clone, Copy)]
struct PaperBox {
    axes: Axes,
    along: (f64, f64),
    across: (f64, f64),
}

impl PaperBox {
    /// Whether a pixel (its centre on the map plane) lies in the rectangle, to the outer
    /// edge of its pixels.
    fn covers(&self, p: [f64; 2]) -> bool {
        let d = sub(p, self.axes.centre);
        (self.along.0 - 0.5..=self.along.1 + 0.5).contains(&dot(d, self.axes.along))
            && (self.across.0 - 0.5..=self.across.1 + 0.5).contains(&dot(d, self.axes.normal))
    }
}

/// Spent blocks found by their labels, in a blob or in paper alone.
///
/// A spent block lies label up, and its label covers its top but for a rim: 0.075 in
/// along its long sides and 0.14 in at its ends. Mixed with the label's white and the
/// map, that rim can read too pale for the side's paint; the block is then a label
/// alone, or a label with a few pixels of paint. A label is told from the map's pale
/// ink by its size and its fill (a rectangle, though its print leaves holes in it), and
/// its side from the rim and side faces around it: their hue is the side's, though
/// their saturation is as low as half its paint's.
fn spent_by_label(
    blob: &[Px],
    paper: Vec<Vec<[f64; 2]>>,
    plane: &MapPlane,
    camera: (f64, f64, f64),
    options: &DetectOptions,
    is_ink: &dyn Fn(u32, u32, [u8; 3]) -> bool,
) -> Vec<FoundByLabel> {
    let Some(block) = options.model.shape(UnitKind::Infantry) else {
        return Vec::new();
    };
    let (cam_x, cam_y, cam_h) = camera;
    let grow = top_grow(block.height_spent_in, cam_h);
    let scale = 1.0 + grow;
    let blur_in = EDGE_BLUR_PX / PX_PER_IN;
    paper
        .into_iter()
        .flat_map(|region| labels_end_to_end(region, block.frontage_in * scale))
        .flat_map(|region| labels_side_by_side(region, block.depth_spent_in * scale))
        .filter(|(region, _)| region.len() >= LABEL_MIN_PX)
        .filter_map(|(region, axes)| {
            let axes = axes.unwrap_or_else(|| principal_axes(&region));
            let along = extent(&region, axes.centre, axes.along);
            let across = extent(&region, axes.centre, axes.normal);
            let (length_px, width_px) = (along.1 - along.0 + 1.0, across.1 - across.0 + 1.0);
            let (length_in, width_in) =
                (length_px / PX_PER_IN / scale, width_px / PX_PER_IN / scale);
            // A label alone, or with the facing strip beside it, which runs the top's
            // length. The extents leave out the outer 2% of the pixels each way, and
            // the blur takes a pixel off paper's edge.
            let sized = (LABEL_LENGTH_IN - 3.0 * blur_in..=block.frontage_in + 2.0 * blur_in)
                .contains(&length_in)
                && (LABEL_WIDTH_IN - 3.0 * blur_in..=block.depth_spent_in + 2.0 * blur_in)
                    .contains(&width_in);
            let filled = region.len() as f64 >= LEAST_LABEL_FILL * length_px * width_px;
            tracing::trace!(
                at_in = ?[axes.centre[0] / PX_PER_IN, axes.centre[1] / PX_PER_IN],
                length_in,
                width_in,
                fill = region.len() as f64 / (length_px * width_px),
                "paper that may be a label"
            );
            if !sized || !filled {
                return None;
            }
            let mut mid = [0.5 * (along.0 + along.1), 0.5 * (across.0 + across.1)];
            let at = |mid: [f64; 2]| {
                [
                    axes.centre[0] + mid[0] * axes.along[0] + mid[1] * axes.normal[0],
                    axes.centre[1] + mid[0] * axes.along[1] + mid[1] * axes.normal[1],
                ]
            };
            let rim = rim_side(
                plane,
                &axes,
                at(mid),
                [length_px, width_px],
                camera,
                options,
                is_ink,
            )?;
            let side = rim.side;
            // Paper wider than a label, lined along one long edge by the enemy's paint,
            // takes in the enemy's facing strip, blurred into it: the label lies against
            // the other edge, its own rim's.
            let label_px = LABEL_WIDTH_IN * scale * PX_PER_IN;
            let takes_enemy_strip =
                rim.enemy_along.is_some() && width_px > label_px + 2.0 * EDGE_BLUR_PX;
            if let Some(enemy) = rim.enemy_along
                && takes_enemy_strip
            {
                mid[1] = if enemy > 0.0 {
                    across.0 - 0.5 + 0.5 * label_px
                } else {
                    across.1 + 0.5 - 0.5 * label_px
                };
            }
            let top_centre = at(mid);
            // The top's middle taken down the camera's ray to the footprint's.
            let nadir = [cam_x * PX_PER_IN, cam_y * PX_PER_IN];
            let centre = [0, 1].map(|i| nadir[i] + (top_centre[i] - nadir[i]) / scale);
            let colour = &options.colours.sides[side].name;
            let sign = label_strip_side(&region, &axes, along, across);
            let (heading_deg, facing) =
                block_heading(sign, &axes, || (options.facing_away)(colour));
            // What lies beyond the label's far edge (away from the camera), on average
            // across it: a spent block's rim, or a standing block's top when the label
            // is on its back face. That top is paint, and on a marked block its facing
            // strip's paper as well: the strip fills the top's front half, and with the
            // top's edges rounded the paint left beside it is narrower than half a
            // top (on our renderer's rounded blocks seen from behind, about 3 px of a
            // fresh top's 7.5, and the block read spent). Paper is counted within a
            // fresh top's depth of the label, past its blurred edge: further off lies
            // another piece.
            let far = -dot(sub(nadir, top_centre), axes.normal).signum();
            let far_edge = mid[1] + far * 0.5 * width_px;
            let fresh_top_px =
                block.depth_fresh_in * (1.0 + top_grow(block.height_fresh_in, cam_h)) * PX_PER_IN;
            let beyond = blob
                .iter()
                .filter(|p| {
                    let d = sub(p.centre(), axes.centre);
                    let past = (dot(d, axes.normal) - far_edge) * far;
                    (along.0..=along.1).contains(&dot(d, axes.along))
                        && if p.paper {
                            (EDGE_BLUR_PX..=fresh_top_px).contains(&past)
                        } else {
                            past > 0.0
                        }
                })
                .count() as f64
                / length_px;
            let on_top = beyond < 0.5 * block.depth_fresh_in * PX_PER_IN;
            let piece = DetectedPiece {
                kind: "block".to_owned(),
                color: colour.clone(),
                x_in: centre[0] / PX_PER_IN,
                y_in: centre[1] / PX_PER_IN,
                heading_deg,
                status: Status::Spent,
                facing,
                length_in: block.frontage_in,
                width_in: block.depth_spent_in,
                confidence: LABEL_CONFIDENCE,
            };
            // The enemy's strip stays the enemy's: taken out of its blob with the
            // label, its block would be left a top of paint with no strip.
            let (paper, across) = if takes_enemy_strip {
                let reach = 0.5 * label_px + EDGE_BLUR_PX;
                let off_mid = |p: &[f64; 2]| dot(sub(*p, axes.centre), axes.normal) - mid[1];
                let paper = region
                    .into_iter()
                    .filter(|p| off_mid(p).abs() <= reach)
                    .collect();
                (paper, (mid[1] - reach, mid[1] + reach))
            } else {
                (region, across)
            };
            Some(FoundByLabel {
                piece,
                side,
                paper,
                paper_box: PaperBox {
                    axes,
                    along,
                    across,
                },
                on_top,
                in_contact: false,
            })
        })
        .collect()
}

/// Fresh marked blocks found by their facing strip alone, in a blob's paper regions
/// (`paper`; the blob of `blob_side`'s paint, or paper alone).
///
/// A marked block's strip covers the front half of its top and runs its whole length;
/// the top's paint fills the back half. Where that paint reads too pale, or too thin, to
/// be the side's (a pale picture, colour at a quarter of the pixels blurring a sliver
/// of paint into the strip's white), no reading of the paint finds the block, but the
/// strip is still there: paper as long as a top ([`THIN_STRIP_LEAST_LENGTH_IN`] to
/// [`THIN_STRIP_MOST_LENGTH_IN`]), as wide as a strip, filled, with the side's hue, in
/// shade or washed out (see [`of_side_hue_in_shade`]), along most of one long edge. That
/// edge is the top's back; where both edges show it (the camera before the block sees
/// its front face too), the back is the edge away from the camera. The hue beyond the
/// edge away from the camera alone is a top only where the camera sees no face toward
/// it; otherwise the paper is an unmarked block's back label seen edge-on. A label is
/// three strips wide, and the map's pale lines are thinner or bend
/// ([`is_a_thin_line`]).
fn fresh_by_strip(
    paper: &[Vec<[f64; 2]>],
    blob_side: Option<usize>,
    plane: &MapPlane,
    camera: (f64, f64, f64),
    options: &DetectOptions,
    is_ink: &dyn Fn(u32, u32, [u8; 3]) -> bool,
) -> Vec<DetectedPiece> {
    let Some(block) = options.model.shape(UnitKind::Infantry) else {
        return Vec::new();
    };
    let (cam_x, cam_y, cam_h) = camera;
    let raised = 1.0 + top_grow(block.height_fresh_in, cam_h);
    let nadir = [cam_x * PX_PER_IN, cam_y * PX_PER_IN];
    let strip_px = 0.5 * block.depth_fresh_in * raised * PX_PER_IN;
    paper
        .iter()
        .filter(|region| region.len() >= STRIP_MIN_PX)
        .filter_map(|region| {
            let axes = principal_axes(region);
            let along = extent(region, axes.centre, axes.along);
            let across = extent(region, axes.centre, axes.normal);
            let (length_px, width_px) = (along.1 - along.0 + 1.0, across.1 - across.0 + 1.0);
            let sized = (THIN_STRIP_LEAST_LENGTH_IN * PX_PER_IN
                ..=THIN_STRIP_MOST_LENGTH_IN * PX_PER_IN)
                .contains(&length_px)
                && width_px <= strip_px + 2.0 * EDGE_BLUR_PX;
            let filled = region.len() as f64 >= LEAST_LABEL_FILL * length_px * width_px;
            if !sized || !filled {
                return None;
            }
            let at = |l: f64, n: f64| {
                [
                    axes.centre[0] + l * axes.along[0] + n * axes.normal[0],
                    axes.centre[1] + l * axes.along[1] + n * axes.normal[1],
                ]
            };
            // Each side's count of the pixels in a band beyond a long edge (`sign`, the
            // way across), `depths` px past it, and the pixels looked at there, read or
            // not. The ends' blur is left out.
            let band = |sign: f64, depths: std::ops::RangeInclusive<f64>| {
                let edge = if sign < 0.0 {
                    across.0 - 0.5
                } else {
                    across.1 + 0.5
                };
                let mut counts = vec![0usize; options.colours.sides.len()];
                let mut looked = 0usize;
                let mut l = along.0 + 2.0 * EDGE_BLUR_PX;
                while l <= along.1 - 2.0 * EDGE_BLUR_PX {
                    let mut depth = *depths.start();
                    while depth <= *depths.end() {
                        let [x, y] = at(l, edge + sign * depth);
                        let (x, y) = (x.floor() as i64, y.floor() as i64);
                        looked += 1;
                        if let Some(rgb) = plane.at_checked(x, y) {
                            let hsv = Hsv::from_rgb(rgb);
                            let ink = is_ink(x as u32, y as u32, rgb);
                            for (k, colour) in options.colours.sides.iter().enumerate() {
                                counts[k] +=
                                    usize::from(!ink && of_side_hue_in_shade(&hsv, colour));
                            }
                        }
                        depth += 1.0;
                    }
                    l += 1.0;
                }
                (counts, looked)
            };
            // Half the band the side's: a band off the plane, or on a corner card, holds
            // no paint (a card's white margin cut by the plane's edge is a strip's size).
            let rimmed = |(counts, looked): &(Vec<usize>, usize)| {
                (0..counts.len()).find(|&k| {
                    blob_side.is_none_or(|s| s == k) && counts[k] as f64 >= 0.5 * *looked as f64
                })
            };
            // The camera's offset across the strip: the edge toward it, and how deep the
            // face below that edge shows.
            let offset = dot(sub(nadir, at(0.0, 0.0)), axes.normal);
            let toward_camera = if offset < 0.0 { -1.0 } else { 1.0 };
            let face_px = offset.abs() * (raised - 1.0);
            // Before the block, the camera sees its front face below the strip and the
            // top's paint beyond it; behind, the top's paint between the strip and the
            // camera. Paint beyond the far edge alone, with a face toward the camera deep
            // enough to read ([`LEAST_BACK_FACE_PX`]), is the top behind a label on a
            // back face seen edge-on, as thin as a strip: an unmarked block seen from
            // behind. Where both edges show the hue, the far one's paint must end past a
            // top's depth: where it goes on, it is ink of the side's hue (a river beyond
            // a block seen from behind) or another block (a column's), and which edge is
            // the back is not told.
            let (near, far) = (toward_camera, -toward_camera);
            let top_band = EDGE_BLUR_PX..=strip_px;
            let near_side = rimmed(&band(near, top_band.clone()));
            let far_side = rimmed(&band(far, top_band));
            let far_ends = |side: usize| {
                let past = strip_px + 2.0 * EDGE_BLUR_PX;
                let (counts, looked) = band(far, past..=past + strip_px);
                (counts[side] as f64) < 0.5 * looked as f64
            };
            let (side, back) = match (near_side, far_side) {
                (Some(a), Some(b)) if a == b && far_ends(a) => (a, far),
                (Some(a), None) => (a, near),
                (None, Some(b)) if face_px < LEAST_BACK_FACE_PX => (b, far),
                _ => return None,
            };
            let front_edge = if back < 0.0 {
                across.1 + 0.5
            } else {
                across.0 - 0.5
            };
            let top_centre = at(0.5 * (along.0 + along.1), front_edge + back * strip_px);
            let centre = [0, 1].map(|i| nadir[i] + (top_centre[i] - nadir[i]) / raised);
            tracing::trace!(
                at_in = ?[centre[0] / PX_PER_IN, centre[1] / PX_PER_IN],
                length_px,
                width_px,
                "a facing strip alone reads a block"
            );
            Some(DetectedPiece {
                kind: "block".to_owned(),
                color: options.colours.sides[side].name.clone(),
                x_in: centre[0] / PX_PER_IN,
                y_in: centre[1] / PX_PER_IN,
                heading_deg: heading_of(scale(axes.normal, -back)),
                status: Status::Fresh,
                facing: Facing::Marked,
                length_in: block.frontage_in,
                width_in: block.depth_fresh_in,
                confidence: STRIP_CONFIDENCE,
            })
        })
        .collect()
}

/// The least paper a facing strip alone holds: the shortest strip read
/// ([`THIN_STRIP_LEAST_LENGTH_IN`]), blurred to the least mean width of a thin one
/// ([`THIN_STRIP_LEAST_MEAN_WIDTH_PX`]); 50 px, where a label holds at least 180.
const STRIP_MIN_PX: usize =
    (THIN_STRIP_LEAST_MEAN_WIDTH_PX * THIN_STRIP_LEAST_LENGTH_IN * PX_PER_IN) as usize;

/// How sure a block found by its facing strip alone is: less than by a label, whose
/// paper is three times a strip's.
const STRIP_CONFIDENCE: f64 = 0.4;

/// A block of the side read less surely than by a strip alone, with no strip seen,
/// between [`STRIP_CLEAR_IN`] and this far from a block found by its strip (inches
/// between centres), is that block misread, not a neighbour: the nearest a block of a
/// line stands to another is a fresh depth, 0.375 in, and then the two are side by
/// side, each with its own strip. (On the photoreal frames compressed again, a marked
/// blue block's pale top read 0.37 in off, 0.12 sure, beside its strip's reading.)
const STRIP_REPLACES_IN: f64 = 0.5;

/// A block found by its strip alone is dropped when a piece already read stands this
/// near (inches between centres): the strip is that piece's. Two blocks of a column
/// stand a fresh depth (0.375 in) apart.
const STRIP_CLEAR_IN: f64 = 0.3;

/// A paper region cut in two where it is two labels side by side. Two spent blocks flank
/// to flank (a column, or enemies in melee) show their labels about 0.15 in apart, with
/// their rims (and facing strips) between, and at 1080p the gap blurs into the paper:
/// the two labels are one region, between two labels and two spent tops
/// (`top_depth_in`, on the plane) wide across them. The cut follows what is left of the
/// gap: of the lines along the labels, within [`SEAM_TURN_DEG`] of the direction across
/// which the region is thinnest and in its middle third, the one crossing the fewest
/// pixels. (Where the blocks stand offset along their length, neither the region's own
/// principal axis nor its thinnest direction is quite theirs, and a cut a few degrees
/// off gives one half a corner of the other label.) Each half is given the cut's axes;
/// any other region is left whole, its axes to be found.
fn labels_side_by_side(
    region: Vec<[f64; 2]>,
    top_depth_in: f64,
) -> Vec<(Vec<[f64; 2]>, Option<Axes>)> {
    if (region.len() as f64) < 2.0 * LEAST_LABEL_FILL * LABEL_PX {
        return vec![(region, None)];
    }
    let centre = centroid(&region);
    let across_at = |deg: i32| {
        let t = f64::from(deg).to_radians();
        [t.cos(), t.sin()]
    };
    let (thinnest, width_px) = (0..180)
        .map(|deg| {
            let (low, high) = extent(&region, centre, across_at(deg));
            (deg, high - low + 1.0)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("180 directions");
    let two_labels = 2.0 * LABEL_WIDTH_IN * PX_PER_IN;
    let two_tops = 2.0 * top_depth_in * PX_PER_IN + EDGE_BLUR_PX;
    if !(two_labels..=two_tops).contains(&width_px) {
        return vec![(region, None)];
    }
    // The best line so far: the pixels within half a pixel of it, its direction across,
    // and where it crosses.
    let mut seam: Option<(usize, [f64; 2], f64)> = None;
    for deg in thinnest - SEAM_TURN_DEG..=thinnest + SEAM_TURN_DEG {
        let across = across_at(deg);
        // Sorted once: its 2nd and 98th percentile are `extent`'s, and the pixels near a
        // line are a slice of it.
        let mut offsets: Vec<f64> = region
            .iter()
            .map(|p| dot(sub(*p, centre), across))
            .collect();
        offsets.sort_by(f64::total_cmp);
        let at_share = |q: f64| offsets[((offsets.len() - 1) as f64 * q).round() as usize];
        let (low, high) = (at_share(0.02), at_share(0.98));
        let third = (high - low) / 3.0;
        let mut at = low + third;
        while at <= high - third {
            let crossed = offsets.partition_point(|d| *d < at + 0.5)
                - offsets.partition_point(|d| *d <= at - 0.5);
            if seam.is_none_or(|(fewest, ..)| crossed < fewest) {
                seam = Some((crossed, across, at));
            }
            at += 0.5;
        }
    }
    let Some((_, across, at)) = seam else {
        return vec![(region, None)];
    };
    let (one, other): (Vec<[f64; 2]>, Vec<[f64; 2]>) = region
        .into_iter()
        .partition(|p| dot(sub(*p, centre), across) < at);
    [(one, -1.0), (other, 1.0)]
        .into_iter()
        .filter(|(half, _)| !half.is_empty())
        .map(|(half, outward)| {
            let cut_axes = Axes {
                centre: centroid(&half),
                along: [across[1], -across[0]],
                normal: across,
            };
            // The cut runs a few degrees off the labels' where the blocks stand offset
            // along their length (two spent blocks in melee on the photoreal frames read
            // 3 degrees off by it): each label's outer edge, away from the cut, is its
            // own, and is taken where it turns from the cut by more than it reads to
            // (see [`edge_axes`]).
            let axes = straight_edge(&half, &cut_axes, outward, None)
                .filter(|edge| turn_deg(edge.along, cut_axes.along) > EDGES_OFF_DEG)
                .unwrap_or(cut_axes);
            (half, Some(axes))
        })
        .collect()
}

/// A block's axes from one long edge of its label or lit top (`points`): a rectangle,
/// its long edges straight lines, which give its axes where paint or paper beside it
/// has turned the axes it was read on (`approx`).
///
/// `outward` is the sign, on `approx.normal`, of the edge's side. Along the middle of
/// `span` (offsets on `approx.along`; the points' extent if `None`), its ends' corners
/// left out, each pixel column's outermost point is an edge point, and the line through
/// them is their principal axis. `None` where too few columns are read, or they lie
/// farther than a blurred pixel from the line, or it turns more than [`SEAM_TURN_DEG`]
/// from `approx`: no straight edge shows there.
fn straight_edge(
    points: &[[f64; 2]],
    approx: &Axes,
    outward: f64,
    span: Option<(f64, f64)>,
) -> Option<Axes> {
    // Most of the 19 columns a label's middle gives at 20 px an inch: fewer fit no line.
    const LEAST_COLUMNS: usize = 12;
    if points.len() < LEAST_COLUMNS {
        return None;
    }
    let (low, high) = span.unwrap_or_else(|| extent(points, approx.centre, approx.along));
    // A fifth of the length at each end, where a corner, a rounded print or the next
    // label's corner may lie.
    let margin = 0.2 * (high - low);
    let columns = ((high - low - 2.0 * margin).floor() as usize).max(1);
    let mut outermost = vec![f64::NEG_INFINITY; columns];
    for p in points {
        let d = sub(*p, approx.centre);
        let t = dot(d, approx.along) - (low + margin);
        if t < 0.0 {
            continue;
        }
        if let Some(column) = outermost.get_mut(t as usize) {
            *column = column.max(outward * dot(d, approx.normal));
        }
    }
    let edge: Vec<[f64; 2]> = outermost
        .iter()
        .enumerate()
        .filter(|(_, n)| n.is_finite())
        .map(|(i, &n)| [i as f64 + 0.5, n])
        .collect();
    if edge.len() < LEAST_COLUMNS {
        return None;
    }
    // The line through the edge points (along, outward), and how far they lie from it.
    let line = principal_axes(&edge);
    let misfit = (edge
        .iter()
        .map(|p| dot(sub(*p, line.centre), line.normal).powi(2))
        .sum::<f64>()
        / edge.len() as f64)
        .sqrt();
    let slope = line.along[1] / line.along[0];
    if misfit > EDGE_BLUR_PX || slope.atan().abs() > f64::from(SEAM_TURN_DEG).to_radians() {
        return None;
    }
    // The edge turns by `slope` outward per pixel along: as a direction on the plane.
    let turn = outward * slope;
    let direction = [
        approx.along[0] + turn * approx.normal[0],
        approx.along[1] + turn * approx.normal[1],
    ];
    Some(Axes::toward(approx.centre, direction))
}

/// A paper region cut where it is a label with facing strips or other labels end to end
/// with it. In a column (blocks end to end along their length, "en columna"), a spent
/// block's label lies 0.14 in from each end of its top, and the next block's facing strip
/// or label begins just past the seam: at 1080p the gap blurs into the paper, and the
/// label and the strips make one region longer than any label (`top_length_in`, a top's
/// length on the plane). A label is 0.6 in wide and a strip a tenth of that: along the
/// region's axis, a label is where the paper is at least half a label wide. Each such
/// stretch at least a label long is a region of its own; any other region is left whole.
fn labels_end_to_end(region: Vec<[f64; 2]>, top_length_in: f64) -> Vec<Vec<[f64; 2]>> {
    let blur_in = EDGE_BLUR_PX / PX_PER_IN;
    if (region.len() as f64) < LEAST_LABEL_FILL * LABEL_PX {
        return vec![region];
    }
    let axes = principal_axes(&region);
    let along: Vec<f64> = region
        .iter()
        .map(|p| dot(sub(*p, axes.centre), axes.along))
        .collect();
    let (low, high) = along
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), a| {
            (lo.min(*a), hi.max(*a))
        });
    if (high - low + 1.0) / PX_PER_IN <= top_length_in + 2.0 * blur_in {
        return vec![region];
    }
    // The paper's width at each pixel step along the axis.
    let bins = (high - low).floor() as usize + 1;
    let mut width = vec![0usize; bins];
    for a in &along {
        width[((a - low).floor() as usize).min(bins - 1)] += 1;
    }
    let half_label = 0.5 * LABEL_WIDTH_IN * PX_PER_IN;
    let least_run = ((LABEL_LENGTH_IN - 3.0 * blur_in) * PX_PER_IN).ceil() as usize;
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, &w) in width.iter().chain(std::iter::once(&0)).enumerate() {
        match (w as f64 >= half_label, start) {
            (true, None) => start = Some(i),
            (false, Some(first)) => {
                if i - first >= least_run {
                    runs.push((first, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    if runs.is_empty() {
        return vec![region];
    }
    runs.into_iter()
        .map(|(first, end)| {
            region
                .iter()
                .zip(&along)
                .filter(|(_, a)| (first..end).contains(&((*a - low).floor() as usize)))
                .map(|(p, _)| *p)
                .collect()
        })
        .collect()
}

/// How far the cut between two labels side by side may turn from the direction across
/// which their region is thinnest, degrees: that direction is flat near its least,
/// and lies a few degrees off the labels' where they stand offset along their length.
const SEAM_TURN_DEG: i32 = 10;

/// A label's paper fills at least this share of its box: its print (the unit's name,
/// its symbol) leaves holes; a curve of the map's pale ink fills little of its box.
const LEAST_LABEL_FILL: f64 = 0.6;

/// How sure a block found by its label alone is: its side rests on a rim of a few
/// pixels.
const LABEL_CONFIDENCE: f64 = 0.5;

/// Which side's paint rims a label (its box `size` in pixels, `along` x `across`,
/// centred at `centre` on `axes`): the pixels between the label's edge and the top's,
/// and the side faces the camera sees. Each counts for the side whose hue window holds
/// it, at half that side's least saturation and at its least value, unless the empty
/// map explains it as ink (`is_ink`: a river beside the block). The side that has
/// most along three of the label's four edges; failing that, the side with most, if it
/// has enough and three times the other sides' together.
fn rim_side(
    plane: &MapPlane,
    axes: &Axes,
    centre: [f64; 2],
    [length_px, width_px]: [f64; 2],
    camera: (f64, f64, f64),
    options: &DetectOptions,
    is_ink: &dyn Fn(u32, u32, [u8; 3]) -> bool,
) -> Option<Rim> {
    let block = options.model.shape(UnitKind::Infantry)?;
    let (cam_x, cam_y, cam_h) = camera;
    let grow = top_grow(block.height_spent_in, cam_h);
    // The top's rim beyond the label, plus the blur, each way; and toward the camera
    // the side faces, the top's shift off the footprint.
    let rim_along = 0.5 * (block.frontage_in - LABEL_LENGTH_IN) * PX_PER_IN + EDGE_BLUR_PX;
    let rim_across = 0.5 * (block.depth_spent_in - LABEL_WIDTH_IN) * PX_PER_IN + EDGE_BLUR_PX;
    let to_nadir = sub([cam_x * PX_PER_IN, cam_y * PX_PER_IN], centre);
    let shift = [dot(to_nadir, axes.along), dot(to_nadir, axes.normal)].map(|d| d * grow);
    let (half_l, half_w) = (0.5 * length_px, 0.5 * width_px);
    let outer = |d: f64, half: f64, rim: f64, toward: f64| {
        let lo = -half - rim + toward.min(0.0);
        let hi = half + rim + toward.max(0.0);
        (lo..=hi).contains(&d)
    };
    let reach = (half_l + rim_along + shift[0].abs()).max(half_w + rim_across + shift[1].abs());
    let (x0, y0) = (
        (centre[0] - reach).max(0.0) as u32,
        (centre[1] - reach).max(0.0) as u32,
    );
    let (x1, y1) = ((centre[0] + reach) as u32, (centre[1] + reach) as u32);
    let mut votes = vec![0usize; options.colours.sides.len()];
    // The same by edge of the label: its two ends, then its two long sides.
    let mut by_edge = vec![vec![0usize; options.colours.sides.len()]; 4];
    for y in y0..=y1 {
        for x in x0..=x1 {
            let d = sub([f64::from(x) + 0.5, f64::from(y) + 0.5], centre);
            let (a, n) = (dot(d, axes.along), dot(d, axes.normal));
            let on_label = a.abs() <= half_l && n.abs() <= half_w;
            if on_label
                || !outer(a, half_l, rim_along, shift[0])
                || !outer(n, half_w, rim_across, shift[1])
            {
                continue;
            }
            let Some(rgb) = plane.at(x, y).filter(|rgb| !is_ink(x, y, *rgb)) else {
                continue;
            };
            let hsv = Hsv::from_rgb(rgb);
            if let Some(side) = options.colours.side_of_paler(hsv, 0.5) {
                votes[side] += 1;
                let edge = if a.abs() - half_l > n.abs() - half_w {
                    usize::from(a > 0.0)
                } else {
                    2 + usize::from(n > 0.0)
                };
                by_edge[edge][side] += 1;
            }
        }
    }
    // A spent block's rim runs round its label; paint beside it along one edge is a
    // neighbour's (a block in contact, flank to flank or end to end). The side whose
    // paint rims three edges or more is the label's. An edge showing less than
    // [`LEAST_RIM_READ`] of the rim's pixels there is not read: an end where the rim
    // washed pale, or where a standing enemy's top hides it, says nothing. With an edge
    // unread, a side whose paint rims two of the others, the third the enemy's at most,
    // is the label's.
    let won_by = |edge: &[usize]| {
        let (winner, &most) = edge.iter().enumerate().max_by_key(|(_, v)| **v)?;
        (most > edge.iter().sum::<usize>() - most).then_some(winner)
    };
    let rim_px = [
        rim_along * width_px,
        rim_along * width_px,
        rim_across * length_px,
        rim_across * length_px,
    ];
    let read =
        |edge: usize| by_edge[edge].iter().sum::<usize>() as f64 >= LEAST_RIM_READ * rim_px[edge];
    let mut edges_won = vec![0usize; votes.len()];
    let mut read_edges = 0;
    for edge in (0..4).filter(|&edge| read(edge)) {
        read_edges += 1;
        if let Some(winner) = won_by(&by_edge[edge]) {
            edges_won[winner] += 1;
        }
    }
    let total: usize = votes.iter().sum();
    let (most_side, &most) = votes.iter().enumerate().max_by_key(|(_, v)| **v)?;
    // At least the rim along one long side: a label's length of pixels.
    let enough = (LABEL_LENGTH_IN * PX_PER_IN) as usize;
    let side = (edges_won.iter().position(|&won| won >= 3))
        .or_else(|| {
            edges_won
                .iter()
                .position(|&won| won >= 2 && read_edges == 3)
        })
        .or_else(|| (most >= enough && most >= 3 * (total - most)).then_some(most_side))?;
    let enemy_along = [(2, -1.0), (3, 1.0)]
        .into_iter()
        .find(|&(edge, _)| won_by(&by_edge[edge]).is_some_and(|winner| winner != side))
        .map(|(_, sign)| sign);
    Some(Rim { side, enemy_along })
}

/// The side whose paint rims a label, and which long edge of it (-1 or +1 across the
/// label's axes) another side's paint lines, if one does: an enemy in contact.
/// The least share of a label's rim pixels along one of its edges that must show some
/// side's paint for the edge to be read ([`rim_side`]).
const LEAST_RIM_READ: f64 = 0.25;

struct Rim {
    side: usize,
    enemy_along: Option<f64>,
}

/// Which long side of a label's paper (`region` on `axes`, its extents `along` and
/// `across`) carries the facing strip. The strip runs the top's length and the label
/// stops 0.14 in short of its ends: near the ends, paper lies on the strip's side only.
fn label_strip_side(
    region: &[[f64; 2]],
    axes: &Axes,
    along: (f64, f64),
    across: (f64, f64),
) -> Sign {
    let end = 0.1 * PX_PER_IN;
    let third = (across.1 - across.0) / 3.0;
    let mut counts = [0usize; 2];
    for p in region {
        let d = sub(*p, axes.centre);
        let (l, n) = (dot(d, axes.along), dot(d, axes.normal));
        if l > along.0 + end && l < along.1 - end {
            continue;
        }
        if n < across.0 + third {
            counts[0] += 1;
        } else if n > across.1 - third {
            counts[1] += 1;
        }
    }
    // The two end zones of one third: how many pixels each holds when filled.
    let zone = 2.0 * end * third;
    let share = |c: usize| c as f64 / zone;
    strip_between(share(counts[0]), share(counts[1]))
}

impl Sign {
    /// This reading, or failing a strip, a thin strip in one half of a standing block's
    /// top (`low`, `high`: its halves' paper and all their pixels in the blob): at least
    /// [`THIN_STRIP_LEAST_SHARE`] paper against none at all in the other half. A strip
    /// seen over a few frame pixels blurs into the paint on both its edges, pink, and
    /// its paper is as little as half its depth ([`lies_like_a_strip`]); its half of the
    /// top also takes in the first pixel of the side face beyond it.
    fn or_thin_strip(self, low: [usize; 2], high: [usize; 2]) -> Sign {
        let share = |[paper, all]: [usize; 2]| paper as f64 / all.max(1) as f64;
        match self {
            Sign::None if low[0] == 0 && high[1] >= 4 && share(high) >= THIN_STRIP_LEAST_SHARE => {
                Sign::Strip(1.0)
            }
            Sign::None if high[0] == 0 && low[1] >= 4 && share(low) >= THIN_STRIP_LEAST_SHARE => {
                Sign::Strip(-1.0)
            }
            sign => sign,
        }
    }
}

/// The least share of its half of the top a thin strip's paper fills (see
/// [`Sign::or_thin_strip`]): on the photoreal frames, 0.37 for a red block's strip two
/// map-plane pixels wide of its half's 3.85.
const THIN_STRIP_LEAST_SHARE: f64 = 0.3;

/// Which of two zones on either side of a block's axis (their shares of paper, low and
/// high along the normal) holds the facing strip: one mostly paper, the other mostly
/// not.
fn strip_between(low: f64, high: f64) -> Sign {
    if high >= 0.5 && low <= 0.25 {
        Sign::Strip(1.0)
    } else if low >= 0.5 && high <= 0.25 {
        Sign::Strip(-1.0)
    } else {
        Sign::None
    }
}

/// A block's heading and how it was decided, from what tells its front (`sign` along
/// `axes`' normal), failing that from the way its side faces (`facing_away`).
fn block_heading(sign: Sign, axes: &Axes, facing_away: impl Fn() -> Option<f64>) -> (f64, Facing) {
    match sign {
        Sign::Strip(sign) => (heading_of(scale(axes.normal, sign)), Facing::Marked),
        Sign::Label(sign) => (heading_of(scale(axes.normal, sign)), Facing::Label),
        Sign::None => {
            let n = heading_of(axes.normal);
            match facing_away() {
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
        }
    }
}

/// The least share of its top's area a piece's blob holds: the top's paint in shade
/// and its label's print can leave parts of it out, never most of it.
const LEAST_TOP_SHOWN: f64 = 0.25;

/// How deep a standing block's back face must show, in map-plane pixels, for paper
/// beside its top to be read as the label on it: a blurred edge each side
/// ([`EDGE_BLUR_PX`]). Shallower, the paper there is the top's own strip pushed off the
/// top's place (a far edge read past the block, into a river of its colour) or blur. On
/// our renderer's 60 tables of the four maps and the photoreal frames (2026-11-29),
/// the five blocks read by a label showed back faces 0.27, 0.91, 1.15 and 1.69 px deep,
/// all four read backwards, and 9.3 px, read right.
const LEAST_BACK_FACE_PX: f64 = 2.0 * EDGE_BLUR_PX;

/// What tells a block's front, as a sign along its axes' normal.
enum Sign {
    /// The facing strip is on that side.
    Strip(f64),
    /// No strip; the label on the back face shows on the other side.
    Label(f64),
    None,
}

/// A fresh block's front: the half of its top (`top_n`, across the axis) that is paper
/// is its facing strip; failing that, paper beside the top toward the camera, within
/// the side face's depth (`side_px`), is the label on its back, where that face shows
/// at least [`LEAST_BACK_FACE_PX`] deep (`back_face_px`: the camera's offset across the
/// block times the top's growth).
fn fresh_facing(
    blob: &[Px],
    axes: &Axes,
    sil: &Silhouette,
    top_n: (f64, f64),
    side_px: f64,
    back_face_px: f64,
) -> Sign {
    let middle = 0.5 * (top_n.0 + top_n.1);
    let toward = sil.toward_camera()[1];
    // Paper and all pixels: the low half of the top, its high half, beside it.
    let mut counts = [[0usize; 2]; 3];
    for p in blob {
        let n = dot(sub(p.centre(), axes.centre), axes.normal);
        let zone = if (top_n.0..middle).contains(&n) {
            0
        } else if (middle..=top_n.1).contains(&n) {
            1
        } else if (n - middle) * toward > 0.0
            && (n - middle).abs() <= (top_n.1 - middle) + side_px + 1.0
        {
            2
        } else {
            continue;
        };
        counts[zone][0] += usize::from(p.paper);
        counts[zone][1] += 1;
    }
    let share = |[paper, all]: [usize; 2]| {
        if all < 4 {
            0.0
        } else {
            paper as f64 / all as f64
        }
    };
    let (low, high, beside) = (share(counts[0]), share(counts[1]), share(counts[2]));
    // A strip is read against the paint of the top's other half: where that half
    // shows next to nothing (a satin top's far half too pale to read as paint), the
    // paper may as well be the top's far half as its strip.
    let half_top_px = 0.5 * (sil.along.1 - sil.along.0) * (top_n.1 - top_n.0);
    let both_halves_seen = counts[..2]
        .iter()
        .all(|[_, all]| *all as f64 >= LEAST_HALF_TOP_SEEN * half_top_px);
    if let strip @ Sign::Strip(_) = strip_between(low, high).or_thin_strip(counts[0], counts[1])
        && both_halves_seen
    {
        strip
    } else if beside >= 0.3 && low.max(high) <= 0.25 && back_face_px >= LEAST_BACK_FACE_PX {
        Sign::Label(-toward)
    } else {
        Sign::None
    }
}

/// A block whose blob showed no strip, its strip read again where the block's top lies,
/// now that its place and axis are known. A standing block's strip can part its top's
/// paint (the rim behind the strip from the side face lit beside it, as under the
/// photoreal frames' lamp) and its blob then be measured in parts, none holding the
/// strip; two strips end to end in a line leave each part a sliver of paint. A spent
/// block's rim at its ends, blurred between its label and the map, can be too pale to
/// join its blob, which then shows paper at both ends.
///
/// The top is the footprint raised by the block's height along the camera's ray
/// ([`top_grow`]), read a pixel in from its long edges, where the map and the side face
/// blur into it. A standing block's strip is one half of its top paper and the other
/// not ([`strip_between`]); a spent block's is its front third, reaching the block's
/// ends, where its label stops 0.14 in short of them: the thirds are compared over the
/// last 0.12 in of each end (the plane's pixels there, paint, rim or map, not the
/// blob's). Where the side's paint runs on past the top's far edge (half the top's depth
/// of it, at least half paint), the top is not where the block was placed: a side face
/// taken into it moves it toward the camera, and the strip would then read on the wrong
/// side. It is left unread.
///
/// A standing block's strip that does not read where the block was placed is looked for
/// up to [`STRIP_SEARCH_PX`] across, toward the front or the back: the block was placed
/// by the edges of its paint, which a washed-out satin top or a side face lit like it
/// blurs (on the photoreal frames' 1080p tables, 0.06 to 0.12 in off across), while the
/// strip's edges are paper against paint. Moved, the top must end where the map begins:
/// at most a quarter of what lies past its far edge is paint of either side or paper (an
/// enemy's block in melee there, its own strip beside this top, is not this block's).
/// The block is then moved there and marked.
fn read_strip_again(
    piece: &mut DetectedPiece,
    plane: &MapPlane,
    classifier: &Classifier,
    (cam_x, cam_y, cam_h): (f64, f64, f64),
    options: &DetectOptions,
) {
    let unread = matches!(piece.facing, Facing::Inferred | Facing::Unknown);
    if !unread || piece.kind != "block" {
        return;
    }
    let block = options.model.shape(UnitKind::Infantry);
    let side = options
        .colours
        .sides
        .iter()
        .position(|s| s.name == piece.color);
    let (Some(block), Some(side)) = (block, side) else {
        return;
    };
    let spent = piece.status == Status::Spent;
    let grow = top_grow(block.height_in(piece.status), cam_h);
    let footprint = [piece.x_in * PX_PER_IN, piece.y_in * PX_PER_IN];
    let nadir = [cam_x * PX_PER_IN, cam_y * PX_PER_IN];
    let top = [0, 1].map(|i| footprint[i] + (footprint[i] - nadir[i]) * grow);
    let heading = piece.heading_deg.to_radians();
    let front = [heading.sin(), -heading.cos()];
    let along = [-front[1], front[0]];
    let half_along = 0.5 * block.frontage_in * (1.0 + grow) * PX_PER_IN;
    let half_across = 0.5 * block.depth_in(piece.status) * (1.0 + grow) * PX_PER_IN - 1.0;
    // A spent block's strip is read at its ends only, on its two outer thirds.
    let end_px = SPENT_STRIP_END_IN * (1.0 + grow) * PX_PER_IN;
    let in_zone = |l: f64, n: f64| {
        if !spent {
            return l.abs() <= half_along;
        }
        let at_end = (half_along - end_px..=half_along - 0.5).contains(&l.abs());
        at_end && n.abs() >= half_across / 3.0
    };
    // The top's far edge, along `front`: away from the camera.
    let away = -dot(sub(nadir, top), front).signum();
    // Paper and all pixels read on the top's back and front (halves, or thirds at the
    // ends); the side's paint and all pixels read past its far edge. The third count is
    // of paint of either side and paper. With the top moved `shift` pixels along
    // `front`.
    let read_at = |shift: f64| {
        let top = [top[0] + front[0] * shift, top[1] + front[1] * shift];
        let mut counts = [[0usize; 3]; 3];
        let reach = half_along.hypot(2.0 * half_across).ceil() as i64 + 2;
        let (x0, y0) = (top[0].floor() as i64, top[1].floor() as i64);
        for y in y0 - reach..=y0 + reach {
            for x in x0 - reach..=x0 + reach {
                let d = sub([x as f64 + 0.5, y as f64 + 0.5], top);
                let (l, n) = (dot(d, along), dot(d, front));
                let past_far_edge = n * away - half_across - 1.0;
                let zone = if n.abs() <= half_across {
                    if !in_zone(l, n) {
                        continue;
                    }
                    usize::from(n > 0.0)
                } else if l.abs() <= half_along && (0.0..=half_across).contains(&past_far_edge) {
                    2
                } else {
                    continue;
                };
                let Some(class) = plane.at_checked(x, y).map(|rgb| classifier.class(rgb)) else {
                    continue;
                };
                let counted = if zone == 2 {
                    class == Class::Side(side)
                } else {
                    class == Class::Paper
                };
                counts[zone][0] += usize::from(counted);
                counts[zone][1] += 1;
                counts[zone][2] += usize::from(matches!(class, Class::Paper | Class::Side(_)));
            }
        }
        counts
    };
    // Half of what each zone holds on the plane, at the least.
    let zone_px = if spent {
        2.0 * (end_px - 0.5) * (2.0 / 3.0) * half_across
    } else {
        half_along * half_across
    };
    let least = [0.5 * zone_px, 0.5 * zone_px, 0.5 * half_along * half_across];
    let share = |[paper, all, _]: [usize; 3]| paper as f64 / all.max(1) as f64;
    let strip_in = |counts: [[usize; 3]; 3], shift: f64| {
        let [back, front_zone, past] = counts;
        let seen = counts
            .iter()
            .zip(least)
            .all(|([_, all, _], least)| *all as f64 >= least);
        let not_bare_map = shift != 0.0 && 4 * past[2] > past[1];
        if !seen || 2 * past[0] > past[1] || not_bare_map {
            return None;
        }
        let (back, front_zone) = (share(back), share(front_zone));
        match strip_between(back, front_zone) {
            Sign::Strip(sign) => Some((sign, (front_zone - back) * sign)),
            Sign::Label(_) | Sign::None => None,
        }
    };
    // Where the block was placed; a standing block's, failing that, where its halves
    // differ most (the strip's edge on the top's middle), the nearest of equals.
    let placed = read_at(0.0);
    let shifts = (1..=STRIP_SEARCH_PX)
        .filter(|_| !spent)
        .flat_map(|px| [f64::from(px), -f64::from(px)]);
    // Where the block was placed, a half that holds half paper or more, and more than
    // the other by [`STRIP_LEADS`], is where the strip lies, even where the other half
    // holds too much paper for [`strip_between`]: a strip as deep as half the top, on
    // a block whose edges are rounded, is deeper than half its flat top and runs past
    // the middle. A strip found on the top moved must lie on that side. Moved a few
    // pixels toward the front, the top's back half holds the whole strip, its front
    // half the rounded edge and the map, and the strip reads on the back: on our
    // renderer's tables of blocks in contact, edges rounded by 0.04 in, 7 marked
    // blocks of 470 read facing backwards that way.
    let strip_side = {
        let (back, front_zone) = (share(placed[0]), share(placed[1]));
        if front_zone >= 0.5 && front_zone - back >= STRIP_LEADS {
            Some(1.0)
        } else if back >= 0.5 && back - front_zone >= STRIP_LEADS {
            Some(-1.0)
        } else {
            None
        }
    };
    let found = strip_in(placed, 0.0)
        .map(|(sign, _)| (0.0, sign))
        .or_else(|| {
            shifts
                .filter_map(|shift| {
                    strip_in(read_at(shift), shift).map(|(sign, contrast)| (shift, sign, contrast))
                })
                .filter(|(_, sign, _)| strip_side.is_none_or(|side| side == *sign))
                .reduce(|best, next| if next.2 > best.2 { next } else { best })
                .map(|(shift, sign, _)| (shift, sign))
        });
    if let Some((shift, sign)) = found {
        let moved = shift / (1.0 + grow) / PX_PER_IN;
        piece.x_in += front[0] * moved;
        piece.y_in += front[1] * moved;
        piece.heading_deg = heading_of(scale(front, sign));
        piece.facing = Facing::Marked;
    }
}

/// How much more of its half a strip's paper fills than of the other half, at the
/// least, for [`read_strip_again`] to take that side for the strip's.
const STRIP_LEADS: f64 = 0.3;

/// How far across its top, in map-plane pixels (0.15 in), a standing block's strip is
/// looked for when it does not read where the block was placed: less than half the
/// top's depth (0.19 in), so the two halves of a sharp top cannot trade places. (A
/// rounded top's strip runs past its middle, and the halves could: the side it was
/// placed on holds it there; see [`read_strip_again`].)
const STRIP_SEARCH_PX: u8 = 3;

/// How much of a spent block's top, from each end, its strip is read on (inches): its
/// label stops 0.14 in short of the ends, and its edge blurs.
const SPENT_STRIP_END_IN: f64 = 0.12;

/// The least share of each half of a standing block's top its blob must hold for a
/// strip to be read on one half (see [`fresh_facing`]).
const LEAST_HALF_TOP_SEEN: f64 = 0.25;

/// Which long side of a spent block's top (`[lo_l, hi_l, lo_n, hi_n]` on `axes`) carries
/// the facing strip: +1 or -1 along the normal, 0 for none. The label stops short of the
/// block's ends (by 0.14 in) and the strip runs to them, so at the ends the strip's third
/// of the width is paper and the other long side's third is paint; unmarked, both are
/// paint.
fn spent_strip_side(blob: &[Px], axes: &Axes, [lo_l, hi_l, lo_n, hi_n]: [f64; 4]) -> Sign {
    let end = 0.1 * PX_PER_IN;
    let third = (hi_n - lo_n) / 3.0;
    // Paper and all pixels in the end zones, on the low and the high side.
    let mut counts = [[0usize; 2]; 2];
    for p in blob {
        let d = sub(p.centre(), axes.centre);
        let (l, n) = (dot(d, axes.along), dot(d, axes.normal));
        let at_end = (lo_l..lo_l + end).contains(&l) || (hi_l - end..=hi_l).contains(&l);
        let side = if (lo_n..lo_n + third).contains(&n) {
            0
        } else if (hi_n - third..=hi_n).contains(&n) {
            1
        } else {
            continue;
        };
        if at_end {
            counts[side][0] += usize::from(p.paper);
            counts[side][1] += 1;
        }
    }
    let share = |[paper, all]: [usize; 2]| {
        if all < 3 {
            f64::NAN
        } else {
            paper as f64 / all as f64
        }
    };
    strip_between(share(counts[0]), share(counts[1]))
}

#[derive(Clone, Copy)]
struct Axes {
    centre: [f64; 2],
    /// Unit vector along the blob's long axis, and its normal.
    along: [f64; 2],
    normal: [f64; 2],
}

impl Axes {
    /// Axes about `centre` whose long axis points along `direction` (of any length).
    fn toward(centre: [f64; 2], direction: [f64; 2]) -> Self {
        let along = scale(direction, 1.0 / direction[0].hypot(direction[1]));
        Self {
            centre,
            along,
            normal: [-along[1], along[0]],
        }
    }
}

/// The mean of a point set.
fn centroid(points: &[[f64; 2]]) -> [f64; 2] {
    let n = points.len() as f64;
    points
        .iter()
        .fold([0.0, 0.0], |c, p| [c[0] + p[0] / n, c[1] + p[1] / n])
}

/// Centre and axes of a point set from its second moments.
fn principal_axes(points: &[[f64; 2]]) -> Axes {
    let (centre, [sxx, syy, sxy]) = second_moments(points);
    let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
    Axes {
        centre,
        along: [angle.cos(), angle.sin()],
        normal: [-angle.sin(), angle.cos()],
    }
}

/// The points' centroid and their summed second moments about it: xx, yy, xy.
fn second_moments(points: &[[f64; 2]]) -> ([f64; 2], [f64; 3]) {
    let [mx, my] = centroid(points);
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for p in points {
        let (dx, dy) = (p[0] - mx, p[1] - my);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    ([mx, my], [sxx, syy, sxy])
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

/// A point set's length and width on its own principal axes, in pixels: the span of its
/// pixel centres (2nd to 98th percentile, [`extent`]) plus one, each way.
fn size_on_own_axes(points: &[[f64; 2]]) -> (f64, f64) {
    let axes = principal_axes(points);
    let (lo, hi) = extent(points, axes.centre, axes.along);
    let (n_lo, n_hi) = extent(points, axes.centre, axes.normal);
    (hi - lo + 1.0, n_hi - n_lo + 1.0)
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

    use super::{
        Axes, Classifier, Cut, DetectOptions, DetectedPiece, EDGE_BLUR_PX, Facing, FaintTops,
        MapPlane, PAPER, PX_PER_IN, PlaneSampler, Px, Sign, Silhouette, Standing, blobs_of,
        centroid, cube_middle, edge_loss_px, fit_shapes, fresh_by_strip, fresh_facing, is_a_line,
        measure, not_ink, paper_regions, ray_spread, read_strip_again, reads_as_flat_ink, rim_side,
        space_ranks, split_by_tops, stands_up, top_grow, without_overlaps,
    };

    use crate::sim;
    use crate::table::{Status, UnitKind};
    use crate::vision::Calibration;
    use crate::vision::colour::ColourModel;

    /// A person's output (`aide detect`, the log) says the words `--json` says.
    #[test]
    fn facing_and_status_read_as_their_json_words() {
        for facing in [
            Facing::Marked,
            Facing::Label,
            Facing::Inferred,
            Facing::Unknown,
        ] {
            let json = serde_json::to_value(facing).unwrap();
            assert_eq!(serde_json::Value::String(facing.to_string()), json);
        }
        for status in [Status::Fresh, Status::Spent] {
            let json = serde_json::to_value(status).unwrap();
            assert_eq!(serde_json::Value::String(status.to_string()), json);
        }
    }

    /// A fresh block (side 0) face to face with a spent enemy (side 1): the fresh top's
    /// paint (4 px deep), its strip (4 px), the seam between the blocks (a dark line,
    /// with specks of the fresh block's paint and gaps of paper), the enemy's band and
    /// label (12 px) and its rim (2 px). All the paper is one region. Shared by distance,
    /// the fresh block would take the paper to about halfway, 9 px from its paint; the
    /// seam gives it its strip and the gaps in the seam.
    #[test]
    fn paper_between_two_sides_is_shared_out_along_the_seam() {
        let mut crop = image::GrayImage::new(60, 40);
        let fill = |crop: &mut image::GrayImage, rows: std::ops::Range<u32>, value: u8| {
            for y in rows {
                for x in 10..50 {
                    crop.put_pixel(x, y, image::Luma([value]));
                }
            }
        };
        fill(&mut crop, 4..8, 1);
        fill(&mut crop, 8..12, PAPER);
        for x in 10..50 {
            let seam = match x % 10 {
                0 => 1,
                5 => PAPER,
                _ => 0,
            };
            crop.put_pixel(x, 12, image::Luma([seam]));
        }
        fill(&mut crop, 13..25, PAPER);
        fill(&mut crop, 25..27, 2);
        let darkness = |_: u32, y: u32| if y == 12 { 600 } else { 0 };
        let blobs = blobs_of(&crop, 0, 0, darkness);
        let paper_of = |side: usize| {
            let blob = blobs
                .iter()
                .find(|(s, _)| *s == Some(side))
                .expect("a blob");
            let rows: Vec<u32> = blob.1.iter().filter(|p| p.paper).map(|p| p.y).collect();
            (
                rows.len(),
                rows.iter().copied().max(),
                rows.iter().copied().min(),
            )
        };
        assert_eq!(
            paper_of(0),
            (4 * 40 + 4, Some(12), Some(8)),
            "the strip and the gaps"
        );
        assert_eq!(
            paper_of(1),
            (12 * 40, Some(24), Some(13)),
            "the band and the label"
        );
    }

    /// Paper touching a block joins its blob when it is a sticker, a facing strip 0.19
    /// in (4 px) wide, and not when it is a line one or two pixels wide (a river bank's
    /// pale outline): the line would stretch the blob 2 in past the block, and no piece
    /// would fit it.
    #[test]
    fn a_thin_pale_line_touching_a_block_stays_out_of_its_blob() {
        // A fresh block's top, 1.875 x 0.375 in (38 x 8 px), side 0's paint (value 1).
        let mut crop = image::GrayImage::new(100, 60);
        for y in 20..28 {
            for x in 30..68 {
                crop.put_pixel(x, y, image::Luma([1]));
            }
        }
        // Its facing strip along the near edge, 4 px wide; and a bank's outline, 2 px
        // wide, running 1.5 in on from the top's far corner.
        for y in 28..32 {
            for x in 31..67 {
                crop.put_pixel(x, y, image::Luma([PAPER]));
            }
        }
        for k in 0..30 {
            for w in 0..2 {
                crop.put_pixel(68 + k, 19 - k / 2 + w, image::Luma([PAPER]));
            }
        }
        let blobs = blobs_of(&crop, 0, 0, |_, _| 0);
        let block = blobs
            .iter()
            .find(|(side, _)| *side == Some(0))
            .expect("the block's blob");
        let paper = block.1.iter().filter(|p| p.paper).count();
        let reach = block.1.iter().map(|p| p.x).max().unwrap();
        assert_eq!(paper, 36 * 4, "the strip's pixels, and the line's none");
        assert_eq!(reach, 67, "the blob ends at the top's edge");
    }

    /// A cube 0.375 in on a side, 30 in under the camera and 5 in from the point below
    /// it, shows a top of 0.375 x 30 / 29.625 in = 7.6 px at 20 px an inch. An 8 x 8 px
    /// silhouette is that cube; one 8 x 5 px (a roof's edge) is narrower than its top
    /// less a blurred pixel (6.6 px), and is no cube. One 8 x 6.3 px is a cube only
    /// where its paint is as pale as red's least saturation (0.62): at 0.63 its blurred
    /// edges lose 2 x 1.5 x (0.62 / 0.63 - 1/2) = 1.45 px, and 7.6 - 1.45 = 6.15 px is
    /// the least it shows; saturated at 0.9 they lose the one blurred pixel.
    #[test]
    fn a_cube_shows_its_whole_top() {
        let model = crate::model::PieceModel::builtin("pub-battles").unwrap();
        let fits_with = |across: (f64, f64), edge_loss: f64| {
            let width = across.1 - across.0 + 1.0;
            let sil = Silhouette {
                along: (-3.5, 3.5),
                normal: across,
                nadir: [100.0, 0.0],
                ray_spread: [8.0 * 8.0 / 12.0, width * width / 12.0],
            };
            let fits = fit_shapes(&sil, None, 30.0, &model, &|_, _| 0.0, &|_, _| None);
            let cube = fits.into_iter().find(|f| f.kind == "hq").unwrap();
            (
                cube.err,
                not_ink(&cube, &sil, 30.0, false, false, edge_loss),
            )
        };
        let fits = |across: (f64, f64)| fits_with(across, EDGE_BLUR_PX);
        let (err, square) = fits((-3.5, 3.5));
        assert!(err < 0.1 && square, "a square top: err {err}");
        let (_, narrow) = fits((-2.0, 2.0));
        assert!(!narrow, "no cube 5 px wide");
        let pale = edge_loss_px(0.62, 0.63);
        assert!((pale - 1.452).abs() < 0.001, "{pale}");
        assert_eq!(edge_loss_px(0.62, 0.9), EDGE_BLUR_PX);
        assert_eq!(edge_loss_px(0.62, 0.5), 2.0 * EDGE_BLUR_PX);
        assert!(fits_with((-2.65, 2.65), pale).1, "a pale cube 6.3 px wide");
        let saturated = edge_loss_px(0.62, 0.9);
        assert!(
            !fits_with((-2.65, 2.65), saturated).1,
            "saturated, 6.3 px is no cube"
        );
    }

    /// A cube 0.375 in on a side, 30 in under the camera and 10 in from the point below
    /// it (200 px), shows a top of 7.6 px shifted 200 x 0.375 / 29.625 = 2.5 px away from
    /// its footprint. Its silhouette, the top swept back toward the footprint over its
    /// side face, spreads as a cube's at any turn, with the side face read as paint or
    /// not; so does a top seen from right above. Flat rectangles of a roof's sizes do
    /// not: 0.5 in square (across the ray it spreads as a square of 10 px, more than the
    /// top and a blurred pixel each side, 9.6), 0.45 x 0.3 in with its length across the
    /// ray (narrower along the ray than across), 0.6 x 0.4 in with its length along the
    /// ray 2 in from the point under the camera (where a side face stretches a cube by
    /// 0.5 px, and the roof is 4 px longer than wide).
    #[test]
    fn a_cube_spreads_along_the_camera_ray_only() {
        let cam_h = 30.0;
        let grow = top_grow(0.375, cam_h);
        let top_px = 0.375 * (1.0 + grow) * PX_PER_IN;
        // The pixel centres of a rectangle (w along the ray, h across it, in pixels)
        // turned by `turn` degrees from the ray, swept `sweep` px back toward the point
        // under the camera, `reach` px out along a ray 30 degrees from the x axis.
        let shape = |w: f64, h: f64, turn: f64, sweep: f64, reach: f64| {
            let ray = [30f64.to_radians().cos(), 30f64.to_radians().sin()];
            let centre = [reach * ray[0], reach * ray[1]];
            let (sin, cos) = (turn + 30.0).to_radians().sin_cos();
            let mut points = Vec::new();
            for i in -20..=20 {
                for j in -20..=20 {
                    let p = [
                        centre[0].round() + f64::from(i),
                        centre[1].round() + f64::from(j),
                    ];
                    let inside = (0..=20).any(|k| {
                        let back = sweep * f64::from(k) / 20.0;
                        let d = [
                            p[0] - centre[0] + back * ray[0],
                            p[1] - centre[1] + back * ray[1],
                        ];
                        let (u, v) = (d[0] * cos + d[1] * sin, -d[0] * sin + d[1] * cos);
                        u.abs() <= 0.5 * w && v.abs() <= 0.5 * h
                    });
                    if inside {
                        points.push(p);
                    }
                }
            }
            let sil = Silhouette {
                along: (0.0, 0.0),
                normal: (0.0, 0.0),
                nadir: [0.0, 0.0],
                ray_spread: ray_spread(&points, [0.0, 0.0]),
            };
            sil.spreads_as_a_cube(top_px, reach * grow)
        };
        let shift = 200.0 * grow;
        assert!((shift - 2.53).abs() < 0.01, "{shift}");
        for turn in [0.0, 10.0, 20.0, 30.0, 45.0, 60.0, 80.0] {
            assert!(
                shape(top_px, top_px, turn, shift, 200.0),
                "a cube turned {turn}"
            );
            assert!(
                shape(top_px, top_px, turn, 0.0, 200.0),
                "its top alone, {turn}"
            );
            assert!(shape(top_px, top_px, turn, 0.0, 0.0), "right below, {turn}");
            assert!(
                !shape(10.0, 10.0, turn, 0.0, 200.0),
                "a 0.5 in roof, {turn}"
            );
        }
        assert!(!shape(6.0, 9.0, 0.0, 0.0, 200.0), "a roof across the ray");
        assert!(!shape(12.0, 8.0, 0.0, 0.0, 40.0), "a roof along the ray");
        assert!(
            shape(top_px, top_px, 0.0, 40.0 * grow, 40.0),
            "a cube 2 in out"
        );
    }

    /// The heading and facing [`read_strip_again`] gives a red block of `status` at
    /// (5, 6) in, read unmarked facing south (heading 180), under a camera 30 in over
    /// (5, 2): its top pushed south (away from the camera) by the top's growth. `paint`
    /// gives the plane's colour at a point (inches along the block, east; across it,
    /// south of the top's middle, its back), `None` for the map.
    fn facing_after_read_again(
        status: Status,
        paint: impl Fn(f64, f64) -> Option<[u8; 3]>,
    ) -> (f64, Facing) {
        let piece = read_again(status, paint);
        (piece.heading_deg, piece.facing)
    }

    /// The block [`facing_after_read_again`] reads, with its place.
    fn read_again(status: Status, paint: impl Fn(f64, f64) -> Option<[u8; 3]>) -> DetectedPiece {
        builtin_options(|options| {
            let camera = (5.0, 2.0, 30.0);
            let height = if status == Status::Fresh { 0.75 } else { 0.375 };
            let top_y = 6.0 + (6.0 - camera.1) * top_grow(height, camera.2);
            let w = 200u32;
            let pixels = (0..w * w)
                .map(|i| {
                    let x = f64::from(i % w) / PX_PER_IN + 0.025;
                    let y = f64::from(i / w) / PX_PER_IN + 0.025;
                    Some(paint(x - 5.0, y - top_y).unwrap_or([200, 190, 150]))
                })
                .collect();
            let mut piece = DetectedPiece {
                kind: "block".into(),
                color: "red".into(),
                x_in: 5.0,
                y_in: 6.0,
                heading_deg: 180.0,
                status,
                facing: Facing::Unknown,
                length_in: 1.875,
                width_in: 0.375,
                confidence: 1.0,
            };
            let classifier = Classifier::new(options.colours);
            read_strip_again(
                &mut piece,
                &MapPlane { w, pixels },
                &classifier,
                camera,
                options,
            );
            piece
        })
    }

    /// `marked` (the strip on the block's north side) is read facing north (heading 0),
    /// marked; `unread` stays as it was given, facing south, unread.
    fn turned_north_or_left(
        status: Status,
        marked: impl Fn(f64, f64) -> Option<[u8; 3]>,
        unread: impl Fn(f64, f64) -> Option<[u8; 3]>,
    ) {
        let (heading, facing) = facing_after_read_again(status, marked);
        assert_eq!(facing, Facing::Marked);
        assert!(heading.min(360.0 - heading) < 1e-6, "heading {heading}");
        assert_eq!(
            facing_after_read_again(status, unread),
            (180.0, Facing::Unknown)
        );
    }

    const RED: [u8; 3] = [200, 40, 40];
    const PAPER_RGB: [u8; 3] = [240, 238, 230];

    /// A standing block placed by its paint but not its strip (its blob was measured in
    /// parts) has its strip read where its top lies: facing north, the north half of its
    /// top paper, the north side face in shade. Given the wrong way round and unread, it
    /// is turned to heading 0, marked. With the block's paint running on past the top's
    /// far edge (a block placed a side face toward the camera), the strip is left
    /// unread.
    #[test]
    fn a_standing_block_has_its_strip_read_again_where_its_top_lies() {
        let grow = top_grow(0.75, 30.0);
        let (half_l, half_d) = (0.5 * 1.875 * (1.0 + grow), 0.5 * 0.375 * (1.0 + grow));
        let side_face = 4.0 * grow;
        let block = |paint_past_far_edge: bool| {
            move |l: f64, n: f64| {
                if l.abs() > half_l {
                    None
                } else if (-half_d..0.0).contains(&n) {
                    Some(PAPER_RGB)
                } else if (0.0..=half_d).contains(&n) {
                    Some(RED)
                } else if (-half_d - side_face..-half_d).contains(&n) {
                    Some([120, 24, 24])
                } else {
                    (paint_past_far_edge && (half_d..=3.0 * half_d).contains(&n)).then_some(RED)
                }
            }
        };
        turned_north_or_left(Status::Fresh, block(false), block(true));
    }

    /// A standing block placed 0.1 in south of where its top shows (two map-plane
    /// pixels; its top's north half is the strip, its south half red paint, and the map
    /// past both) is moved onto its strip: 0.1 in taken down to the map, 0.0975 in
    /// north, and marked facing north. Placed 0.25 in off, more than half the top's
    /// depth, it is not looked for so far and stays as given. An unmarked block whose
    /// far (south) edge meets an enemy's blue block in melee, that block's strip
    /// against it, is not moved onto the enemy's strip: past the top's far edge, so
    /// moved, lies blue paint, not the map.
    #[test]
    fn a_standing_block_placed_off_its_top_is_moved_onto_its_strip() {
        const BLUE: [u8; 3] = [40, 60, 200];
        let grow = top_grow(0.75, 30.0);
        let (half_l, half_d) = (0.5 * 1.875 * (1.0 + grow), 0.5 * 0.375 * (1.0 + grow));
        let marked_at = |off: f64| {
            move |l: f64, n: f64| {
                let n = n + off;
                (l.abs() <= half_l && n.abs() <= half_d).then_some(if n < 0.0 {
                    PAPER_RGB
                } else {
                    RED
                })
            }
        };
        let piece = read_again(Status::Fresh, marked_at(0.1));
        assert_eq!(piece.facing, Facing::Marked);
        assert!(piece.heading_deg.min(360.0 - piece.heading_deg) < 1e-6);
        let moved = 6.0 - piece.y_in;
        assert!(
            (moved - 0.1 / (1.0 + grow)).abs() < 1e-9,
            "moved {moved} in"
        );
        assert!(piece.x_in == 5.0);
        let too_far = read_again(Status::Fresh, marked_at(0.25));
        assert_eq!((too_far.y_in, too_far.facing), (6.0, Facing::Unknown));
        let in_melee = |l: f64, n: f64| {
            if l.abs() > half_l {
                None
            } else if n.abs() <= half_d {
                Some(RED)
            } else if (half_d..half_d + 0.15).contains(&n) {
                Some(PAPER_RGB)
            } else {
                (half_d + 0.15..half_d + 0.5).contains(&n).then_some(BLUE)
            }
        };
        let unmarked = read_again(Status::Fresh, in_melee);
        assert_eq!((unmarked.y_in, unmarked.facing), (6.0, Facing::Unknown));
    }

    /// A spent block's strip is read at its ends: label up, facing north, its label
    /// (1.6 x 0.6 in) in the middle of its 1.875 x 0.75 in top and its strip on the top's
    /// north third, reaching both ends. Read unmarked facing south, it is turned to
    /// heading 0, marked. Unmarked (paint at both ends across), it stays unread.
    #[test]
    fn a_spent_block_has_its_strip_read_again_at_its_ends() {
        let grow = top_grow(0.375, 30.0);
        let scale = 1.0 + grow;
        let (half_l, half_d) = (0.5 * 1.875 * scale, 0.5 * 0.75 * scale);
        let block = |marked: bool| {
            move |l: f64, n: f64| {
                let label = l.abs() <= 0.8 * scale && n.abs() <= 0.3 * scale;
                let strip = marked && n < -half_d / 3.0;
                if l.abs() > half_l || n.abs() > half_d {
                    None
                } else if label || strip {
                    Some(PAPER_RGB)
                } else {
                    Some(RED)
                }
            }
        };
        turned_north_or_left(Status::Spent, block(true), block(false));
    }

    /// A red block's side face, 36 x 5 px of paint (0.77 saturated), seen beside its top,
    /// 36 x 8 px, whose paint the light washed out to 0.575 (under the floor of 0.62, above
    /// 0.8 of it): the top is the blob's, all 288 pixels of it. Not so what merely touches
    /// the paint in the side's paler hue: the same top in shade (a shadow, 0.39 bright
    /// against the paint's 0.59); a band as deep running on past any top (a river's bank,
    /// 100 px); a stretch as wide crossing under the block's end (a river, touching it
    /// along 8 of its 30 px); a rim two pixels wide round the paint. A top a warm lamp
    /// washed toward orange (hue 15, 0.59 saturated), a colour skin shares, is the
    /// blob's too.
    #[test]
    fn a_washed_out_top_joins_its_side_face_and_ink_does_not() {
        const MAP: [u8; 3] = [200, 190, 150];
        const SIDE_FACE: [u8; 3] = [150, 40, 35];
        const WASHED: [u8; 3] = [200, 95, 85];
        const WASHED_ORANGE: [u8; 3] = [171, 96, 70];
        const IN_SHADE: [u8; 3] = [100, 50, 45];
        let tops_with = |pale: &dyn Fn(u32, u32) -> Option<[u8; 3]>| {
            builtin_options(|options| {
                let w = 120u32;
                let side_face = |x: u32, y: u32| (40..76).contains(&x) && (60..65).contains(&y);
                let pixels = (0..w * w)
                    .map(|i| {
                        let (x, y) = (i % w, i / w);
                        Some(if side_face(x, y) {
                            SIDE_FACE
                        } else {
                            pale(x, y).unwrap_or(MAP)
                        })
                    })
                    .collect();
                let plane = MapPlane { w, pixels };
                let blob = paint_blob(w, w, side_face);
                let classifier = Classifier::new(options.colours);
                FaintTops::new(&plane).of(&blob, 0, &plane, &classifier, &|_, _, _| false)
            })
        };
        let top = |colour: [u8; 3]| {
            move |x: u32, y: u32| ((40..76).contains(&x) && (52..60).contains(&y)).then_some(colour)
        };
        let washed = tops_with(&top(WASHED));
        assert_eq!(washed.len(), 36 * 8);
        assert!(washed.iter().all(|p| (52..60).contains(&p.y) && !p.paper));
        assert_eq!(tops_with(&top(WASHED_ORANGE)).len(), 36 * 8);
        assert!(tops_with(&top(IN_SHADE)).is_empty());
        let bank =
            |x: u32, y: u32| ((10..110).contains(&x) && (52..60).contains(&y)).then_some(WASHED);
        assert!(tops_with(&bank).is_empty());
        let crossing =
            |x: u32, y: u32| ((76..84).contains(&x) && (45..75).contains(&y)).then_some(WASHED);
        assert!(tops_with(&crossing).is_empty());
        let rim =
            |x: u32, y: u32| ((38..78).contains(&x) && (58..67).contains(&y)).then_some(WASHED);
        assert!(tops_with(&rim).is_empty());
    }

    /// A cube 15 in from the point under the camera, turned 30 degrees on the map:
    /// its top (7.5 map-plane pixels, 0.375 in, grown by 1.25 %) shows pushed
    /// 3.7 px away from its footprint. Whether the side faces between read as lit paint
    /// or not, the footprint's middle is found to 0.6 px (0.03 in: the extents' 2nd and
    /// 98th percentiles, which keep a stray pixel out, trim a turned top's far corner
    /// more than its sides when the side faces add pixels); the middle of the lit paint
    /// with the side faces in it lies 1.8 px off.
    #[test]
    fn a_cube_is_placed_whether_its_side_faces_are_lit_or_not() {
        let grow = 0.0125;
        let nadir = [300.0, 110.0];
        let footprint = [20.3, 10.7];
        let top = [
            nadir[0] + (footprint[0] - nadir[0]) * (1.0 + grow),
            nadir[1] + (footprint[1] - nadir[1]) * (1.0 + grow),
        ];
        let side = 7.5 * (1.0 + grow);
        let turn = 30f64.to_radians();
        let in_top_at = |p: [f64; 2], at: [f64; 2]| {
            let (dx, dy) = (p[0] - at[0], p[1] - at[1]);
            let u = dx * turn.cos() + dy * turn.sin();
            let v = -dx * turn.sin() + dy * turn.cos();
            u.abs() <= 0.5 * side && v.abs() <= 0.5 * side
        };
        let pixels = |with_side_faces: bool| -> Vec<[f64; 2]> {
            let mut lit = Vec::new();
            for y in 0..30 {
                for x in 5..40 {
                    let p = [f64::from(x) + 0.5, f64::from(y) + 0.5];
                    // The side faces fill what the top sweeps on its way to the footprint.
                    let steps = if with_side_faces { 20 } else { 0 };
                    let swept = (0..=steps).any(|i| {
                        let t = f64::from(i) / 20.0;
                        let at = [
                            top[0] + (footprint[0] - top[0]) * t,
                            top[1] + (footprint[1] - top[1]) * t,
                        ];
                        in_top_at(p, at)
                    });
                    if swept {
                        lit.push(p);
                    }
                }
            }
            lit
        };
        for with_side_faces in [false, true] {
            let lit = pixels(with_side_faces);
            let found = cube_middle(&lit, centroid(&lit), nadir, 1.0 / (1.0 + grow));
            let off = (found[0] - footprint[0]).hypot(found[1] - footprint[1]);
            assert!(
                off < 0.6,
                "side faces lit {with_side_faces}: {found:?} is {off} px off"
            );
        }
        let lit = pixels(true);
        let middle = centroid(&lit);
        let naive = [
            nadir[0] + (middle[0] - nadir[0]) / (1.0 + grow),
            nadir[1] + (middle[1] - nadir[1]) / (1.0 + grow),
        ];
        assert!((naive[0] - footprint[0]).hypot(naive[1] - footprint[1]) > 1.5);
    }

    /// The part of a line of red blocks (along x, 20 px an inch) whose low end is a cut:
    /// its top from the cut (x 40, 3 px left out) to its own end, and 3 px of the next
    /// block's top past a seam (x 79, at 0.72 of the tops' brightness), which the
    /// part's paint took in. The camera is 30 in up over (5, 2.5) in, so the top, 38.5
    /// px long, ends at the seam's middle (79.5): its middle at 60.25 px, 61.24 px once
    /// taken down to the map (3.062 in). With no seam showing, the top is read to the
    /// lit paint's end (83), and 0.17 in farther.
    #[test]
    fn a_part_of_a_line_ends_at_the_seam_its_paint_runs_past() {
        const MAP: [u8; 3] = [200, 190, 150];
        const TOP: [u8; 3] = [180, 40, 35];
        const SEAM: [u8; 3] = [130, 29, 25];
        let read = |seam: [u8; 3]| {
            builtin_options(|options| {
                let w = 200u32;
                let paint = |x: u32, y: u32| (43..=82).contains(&x) && (46..=53).contains(&y);
                let pixels = (0..w * 100)
                    .map(|i| {
                        let (x, y) = (i % w, i / w);
                        Some(match (x, y) {
                            (79, _) if paint(x, y) => seam,
                            _ if paint(x, y) => TOP,
                            _ => MAP,
                        })
                    })
                    .collect();
                let plane = MapPlane { w, pixels };
                let blob = paint_blob(w, 100, paint);
                let cut = Cut {
                    axis: [1.0, 0.0],
                    low_end: true,
                    high_end: false,
                };
                let camera = (5.0, 2.5, 30.0);
                let (piece, _) =
                    measure(&blob, &plane, "red", camera, options, Some(cut), false).unwrap();
                assert_eq!(
                    (piece.kind.as_str(), piece.status),
                    ("block", Status::Fresh)
                );
                piece.x_in
            })
        };
        let at_seam = read(SEAM);
        assert!((at_seam - 3.062).abs() < 0.02, "{at_seam}");
        let no_seam = read(TOP);
        assert!((no_seam - 3.233).abs() < 0.02, "{no_seam}");
    }

    /// Three blocks end to end along x, 37.5 px (a frontage) each: the first two marked,
    /// their lit tops the 3 px their strips leave, the third unmarked, its 8 px top
    /// standing 2 px off their line. One band across all three (10 px, rows 10 to 19)
    /// would be 14/30 filled, under half; each block's own is full. A river's stretch
    /// of the same length, 26 px wide (wider than any block's top with its side face),
    /// is no line, however full.
    #[test]
    fn a_line_of_marked_and_unmarked_blocks_is_a_line_and_a_river_is_not() {
        let line = |x: u32, y: u32| {
            if x < 75 {
                (10..=12).contains(&y)
            } else {
                (12..=19).contains(&y)
            }
        };
        let river = |_: u32, y: u32| (4..=29).contains(&y);
        let judge = |paint: &dyn Fn(u32, u32) -> bool| {
            let blob = paint_blob(113, 40, paint);
            let top: Vec<[f64; 2]> = blob.iter().map(|p| p.centre()).collect();
            let axes = Axes::toward(centroid(&top), [1.0, 0.0]);
            let lo = -axes.centre[0] + 0.5;
            let hi = lo + 112.0;
            builtin_options(|options| {
                let block = options.model.shape(UnitKind::Infantry).unwrap();
                is_a_line(&blob, &top, &axes, (lo, hi), 3.0, block)
            })
        };
        assert!(judge(&line));
        assert!(!judge(&river));
    }

    /// A cube's top, 8 x 8 px of paint 5 in from the point under a camera 30 in up, is
    /// read as a cube; the same outline two pixels wide round a hollow (a shadow's soft
    /// edge on ink of the side's hue, around the shadow's core the empty map explains)
    /// is no piece.
    #[test]
    fn a_cube_is_solid_paint_and_a_ring_is_not() {
        const MAP: [u8; 3] = [200, 190, 150];
        const TOP: [u8; 3] = [200, 40, 35];
        let read = |paint: &dyn Fn(u32, u32) -> bool| {
            builtin_options(|options| {
                let w = 200u32;
                let pixels = (0..w * 200)
                    .map(|i| Some(if paint(i % w, i / w) { TOP } else { MAP }))
                    .collect();
                let plane = MapPlane { w, pixels };
                let blob = paint_blob(w, 200, paint);
                measure(&blob, &plane, "red", (5.0, 0.0, 30.0), options, None, false)
                    .map(|(piece, _)| piece.kind)
            })
        };
        let square = |x: u32, y: u32| (96..104).contains(&x) && (96..104).contains(&y);
        assert_eq!(read(&square).as_deref(), Some("hq"));
        let ring =
            |x: u32, y: u32| square(x, y) && !((98..102).contains(&x) && (98..102).contains(&y));
        assert_eq!(read(&ring), None);
    }

    /// A blue block 5 in from the map's edge at (5, 5) in, facing up the map (its length
    /// along x), the camera 30 in up over (5, -10): its top, 0.75 in up, shows pushed
    /// away by 15 x 0.75 / 29.25 = 0.385 in, 7.7 px, more than the block's depth, so
    /// the whole footprint (rows 96.25 to 103.75) is filled by the face toward the
    /// camera and the top lies on rows 103.85 to 111.5. Painted as a block (a pale top,
    /// a darker face of its hue) it stands up, and so it does with its label on that
    /// face; printed flat in one colour, or as a top alone with the map where the face
    /// would be, it does not. Under the camera (its face a pixel thin) nothing shows it
    /// standing.
    #[test]
    fn a_pale_block_stands_up_where_ink_does_not() {
        const MAP: [u8; 3] = [200, 190, 150];
        const PALE_TOP: [u8; 3] = [81, 112, 148];
        const FACE: [u8; 3] = [68, 88, 102];
        const LABEL: [u8; 3] = [235, 232, 225];
        let stands = |top: [u8; 3], face: [u8; 3], camera: (f64, f64, f64)| {
            builtin_options(|options| {
                let w = 200u32;
                let pixels = (0..w * w)
                    .map(|i| {
                        let (x, y) = (i % w, i / w);
                        Some(match (x, y) {
                            (81..=118, 96..=103) => face,
                            (81..=118, 104..=111) => top,
                            _ => MAP,
                        })
                    })
                    .collect();
                let plane = MapPlane { w, pixels };
                let piece = DetectedPiece {
                    kind: "block".into(),
                    color: "blue".into(),
                    x_in: 5.0,
                    y_in: 5.0,
                    heading_deg: 0.0,
                    status: Status::Fresh,
                    facing: Facing::Unknown,
                    length_in: 1.875,
                    width_in: 0.375,
                    confidence: 1.0,
                };
                let classifier = Classifier::new(options.colours);
                let block = options.model.shape(UnitKind::Infantry).unwrap();
                let blue = &options.colours.sides[1];
                assert_eq!(blue.name, "blue");
                stands_up(&piece, &plane, &classifier, blue, camera, block)
            })
        };
        let beside = (5.0, -10.0, 30.0);
        assert!(stands(PALE_TOP, FACE, beside));
        assert!(stands(PALE_TOP, LABEL, beside));
        assert!(!stands(PALE_TOP, PALE_TOP, beside));
        assert!(!stands(PALE_TOP, MAP, beside));
        assert!(!stands(PALE_TOP, FACE, (5.0, 5.0, 30.0)));
    }

    /// The photoreal frame b00's cards read white 215 and tag black 38 (0.18): nothing
    /// is taken off. Read as a flat webcam picture, 40 + 0.84 v, they read 221 and 72
    /// (0.33): taking off 39.3 and scaling back brings the black to 0.18 of the white
    /// again. A border half as bright as the white is no black seen.
    #[test]
    fn a_flat_picture_s_black_is_brought_down_to_the_tags_floor() {
        assert_eq!(super::black_above_floor([215.0; 3], [38.0; 3]), [0.0; 3]);
        let flat = |v: f64| 40.0 + v * 215.0 / 255.0;
        let (white, tag) = (flat(215.0), flat(38.0));
        let [black, ..] = super::black_above_floor([white; 3], [tag; 3]);
        assert!((black - 39.3).abs() < 0.05, "{black}");
        assert!(((tag - black) / (white - black) - super::MOST_TAG_BLACK).abs() < 1e-9);
        assert_eq!(super::black_above_floor([200.0; 3], [100.0; 3]), [0.0; 3]);
    }

    /// A red cube 0.375 in (7.5 px) on a side at (5, 5) in, the camera 30 in up and 15 in
    /// north of it: its top shows 15 x 0.375 / 29.625 = 0.19 in (3.8 px) south of its
    /// footprint, and its north face fills the rows it leaves bare (y 96 to 99). Shaded or
    /// lit by a lamp, the face reads otherwise than the top; a roof printed the cube's size
    /// reads the same there, a roof no larger than the cube shows the canvas beside it,
    /// and one against a roof printed a shade darker shows that roof: paint as saturated
    /// as the top and 0.89 as bright (a face in shade reads 0.8 or less). Under the camera
    /// no face shows, and a cube is kept.
    #[test]
    fn a_cube_shows_a_face_a_roof_does_not() {
        let beside = (5.0, -10.0, 30.0);
        let flat_ink = |face, camera| flat_ink_beside("hq", face, camera);
        assert!(!flat_ink(SHADED, beside));
        assert!(!flat_ink(LAMP_LIT, beside));
        assert!(!flat_ink(LABEL, beside));
        assert!(flat_ink(TOP, beside));
        assert!(flat_ink(MAP, beside));
        assert!(flat_ink(DARKER_ROOF, beside));
        assert!(!flat_ink(TOP, (5.0, 5.0, 30.0)));
        assert!(!flat_ink(MAP, (5.0, 5.0, 30.0)));
    }

    /// A red block standing at (5, 5) in, its length east-west, the camera 30 in up and
    /// 15 in north of it: its top, 0.75 in up, shows 15 x 0.75 / 29.25 = 0.38 in (7.7 px)
    /// south, and the whole footprint (y 96 to 103) is its north face: shaded paint, or
    /// its label. A stretch of stream read as a block shows its top's colour there, and
    /// one no wider than the block the canvas beside it.
    #[test]
    fn a_standing_block_shows_a_face_a_stream_does_not() {
        let beside = (5.0, -10.0, 30.0);
        let flat_ink = |face| flat_ink_beside("block", face, beside);
        assert!(!flat_ink(SHADED));
        assert!(!flat_ink(LABEL));
        assert!(flat_ink(TOP));
        assert!(flat_ink(MAP));
    }

    /// The same block, the camera 30 in up and 10 in east of it, along its length: its
    /// top shows 10 x 0.75 / 29.25 = 0.26 in (5.1 px) west (x 76 to 114), and its east
    /// end face fills the footprint's last columns (x 115 to 118). A face lit like the
    /// top is no proof of ink there: a block ends at its footprint, and a stream it was
    /// cut from goes on past it. Before this was read, the end face alone (18 pixels
    /// clear of the blurred edges) was too few to judge, and a stream cut into blocks
    /// along the camera's ray was kept.
    #[test]
    fn a_stream_goes_on_past_an_end_face_a_block_does_not() {
        let flat_ink = |face, stream| {
            builtin_options(|options| {
                let plane = east_west_row(|x| {
                    if (115..=118).contains(&x) {
                        face
                    } else if (76..=114).contains(&x) || (stream && (119..160).contains(&x)) {
                        TOP
                    } else {
                        MAP
                    }
                });
                let shape = options.model.shape(UnitKind::Infantry).unwrap();
                let piece = standing_red("block", 5.0, shape);
                let red = &options.colours.sides[0];
                let standing = Standing::new(&piece, (15.0, 5.0, 30.0), shape);
                let classifier = Classifier::new(options.colours);
                reads_as_flat_ink(&standing, &plane, &classifier, red, |_| false)
            })
        };
        assert!(flat_ink(TOP, true));
        assert!(!flat_ink(TOP, false));
        assert!(!flat_ink(SHADED, false));
        assert!(!flat_ink(SHADED, true));
    }

    /// Two red blocks read end to end west of the camera (30 in up at (15, 5) in), along
    /// its ray: A at (5, 5) in, B a frontage west. A's top, shifted 0.26 in west, hides
    /// B's end face. Cut from a stream that goes on east of A, A is ink, and once it is
    /// gone B's end face shows the stream too. A real line's front block shows its face
    /// in shade and stands, and the block behind it, its face hidden, stands with it.
    #[test]
    fn a_row_cut_from_a_stream_along_the_ray_is_ink_block_by_block() {
        let kept = |front_face| {
            builtin_options(|options| {
                let plane = east_west_row(|x| {
                    if (115..=118).contains(&x) {
                        front_face
                    } else if (20..160).contains(&x) {
                        TOP
                    } else {
                        MAP
                    }
                });
                let shape = options.model.shape(UnitKind::Infantry).unwrap();
                let pieces = vec![
                    standing_red("block", 5.0, shape),
                    standing_red("block", 5.0 - shape.frontage_in, shape),
                ];
                let classifier = Classifier::new(options.colours);
                super::without_flat_ink(pieces, &plane, &classifier, (15.0, 5.0, 30.0), options)
                    .len()
            })
        };
        assert_eq!(kept(TOP), 0);
        assert_eq!(kept(SHADED), 2);
    }

    /// A red block read 0.2 in deep where no face shows (the camera right above it) is a
    /// sliver of ink: its top alone reads 0.375 in deep, less 0.15 in of blurred edges
    /// at the most. Read 0.3 in deep, or with its strip read, it is a block; and where
    /// its faces show (the camera 15 in north), its side face alone may be what was read.
    #[test]
    fn a_block_read_narrower_than_its_top_where_no_face_shows_is_a_sliver() {
        builtin_options(|options| {
            let plane = east_west_row(|_| MAP);
            let shape = options.model.shape(UnitKind::Infantry).unwrap();
            let read = |width_in, facing| DetectedPiece {
                width_in,
                facing,
                ..standing_red("block", 5.0, shape)
            };
            let (above, north) = ((5.0, 5.0, 30.0), (5.0, -10.0, 30.0));
            let sliver = |piece: &DetectedPiece, camera| {
                super::is_sliver(piece, &plane, camera, options.model)
            };
            assert!(sliver(&read(0.2, Facing::Unknown), above));
            assert!(sliver(&read(0.2, Facing::Inferred), above));
            assert!(!sliver(&read(0.3, Facing::Unknown), above));
            assert!(!sliver(&read(0.16, Facing::Marked), above));
            assert!(!sliver(&read(0.2, Facing::Unknown), north));
        });
    }

    const TOP: [u8; 3] = [178, 48, 40];
    const SHADED: [u8; 3] = [112, 32, 28];
    const LAMP_LIT: [u8; 3] = [225, 130, 96];
    const LABEL: [u8; 3] = [235, 232, 225];
    /// A roof of the town map's darkest red beside one of [`TOP`]'s: 0.89 of its
    /// brightness, 0.97 of its saturation.
    const DARKER_ROOF: [u8; 3] = [158, 47, 39];
    /// Canvas: as bright as [`TOP`] or brighter, of another hue, too saturated for paper.
    const MAP: [u8; 3] = [200, 190, 150];

    /// Whether a red standing piece of `kind` at (5, 5) in, heading 0, reads as flat ink
    /// on a map plane where its top is painted [`TOP`] south of y = 100 px (a cube's top
    /// 7.5 px deep from y 100, a block's 8 px from y 104) and the rows north of it, to
    /// its footprint's edge (y 96), `face`.
    fn flat_ink_beside(kind: &str, face: [u8; 3], camera: (f64, f64, f64)) -> bool {
        builtin_options(|options| {
            let (unit, first_top_row, [x0, x1]) = match kind {
                "hq" => (UnitKind::Hq, 100, [96, 103]),
                _ => (UnitKind::Infantry, 104, [81, 118]),
            };
            let shape = options.model.shape(unit).unwrap();
            let w = 200u32;
            let pixels = (0..w * w)
                .map(|i| {
                    let (x, y) = (i % w, i / w);
                    let across = (x0..=x1).contains(&x);
                    Some(if across && (96..first_top_row).contains(&y) {
                        face
                    } else if across && (first_top_row..first_top_row + 8).contains(&y) {
                        TOP
                    } else {
                        MAP
                    })
                })
                .collect();
            let plane = MapPlane { w, pixels };
            let piece = standing_red(kind, 5.0, shape);
            let red = &options.colours.sides[0];
            assert_eq!(red.name, "red");
            let classifier = Classifier::new(options.colours);
            let standing = Standing::new(&piece, camera, shape);
            reads_as_flat_ink(&standing, &plane, &classifier, red, |_| false)
        })
    }

    /// A fresh red piece of `kind` read at (`x_in`, 5) in, heading 0 (east-west), the
    /// size of `shape`.
    fn standing_red(kind: &str, x_in: f64, shape: &crate::model::Shape) -> DetectedPiece {
        DetectedPiece {
            kind: kind.into(),
            color: "red".into(),
            x_in,
            y_in: 5.0,
            heading_deg: 0.0,
            status: Status::Fresh,
            facing: Facing::Unknown,
            length_in: shape.frontage_in,
            width_in: shape.depth_fresh_in,
            confidence: 1.0,
        }
    }

    /// A 200 px map plane of [`MAP`] with a row 8 px deep (y 96 to 103, a block's depth
    /// at (x, 5) in) painted `paint(x)` along it.
    fn east_west_row(paint: impl Fn(u32) -> [u8; 3]) -> MapPlane {
        let w = 200u32;
        let pixels = (0..w * w)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                Some(if (96..=103).contains(&y) {
                    paint(x)
                } else {
                    MAP
                })
            })
            .collect();
        MapPlane { w, pixels }
    }

    /// A river's stretch lit 60 x 66 px (more than the longest line of blocks, 8.4 tops
    /// of 281 px) and a marked block's lit half top, 38 x 4 px below it, with the block's
    /// strip (40 x 4 px) between them, touching the river at its west end and the top
    /// along its length: the strip is the block's.
    #[test]
    fn a_strip_between_a_river_and_its_block_is_the_block_s() {
        let river = |x: u32, y: u32| x < 60 && y < 66;
        let strip = |x: u32, y: u32| (60..100).contains(&x) && (62..66).contains(&y);
        let top = |x: u32, y: u32| (62..100).contains(&x) && (66..70).contains(&y);
        let blob: Vec<Px> = (0..100 * 70)
            .map(|i| (i % 100, i / 100))
            .filter(|&(x, y)| river(x, y) || strip(x, y) || top(x, y))
            .map(|(x, y)| Px {
                x,
                y,
                paper: strip(x, y),
            })
            .collect();
        let lit: Vec<[f64; 2]> = blob
            .iter()
            .filter(|p| !p.paper)
            .map(|p| p.centre())
            .collect();
        let parts = split_by_tops(&blob, &lit, [300.0, 300.0], 37.5 * 7.5).unwrap();
        assert_eq!(parts.len(), 2);
        let block = parts
            .iter()
            .find(|part| part.iter().any(|p| top(p.x, p.y)))
            .unwrap();
        assert!(block.iter().all(|p| !river(p.x, p.y)));
        assert_eq!(block.iter().filter(|p| p.paper).count(), 160);
    }

    /// A standing block's top, 37 x 8 px of paint, with 4 rows of paper beside it toward
    /// the camera (south): the label on its back face where the camera sees that face
    /// 5 px deep, and no reading where it would show half a pixel (the paper is then the
    /// strip pushed off the top's place, or blur).
    #[test]
    fn a_label_is_read_on_a_back_face_only_where_that_face_shows() {
        let blob: Vec<Px> = (32..69)
            .flat_map(|x| {
                (46..58).map(move |y| Px {
                    x,
                    y,
                    paper: y >= 54,
                })
            })
            .collect();
        let axes = Axes {
            centre: [50.0, 50.0],
            along: [1.0, 0.0],
            normal: [0.0, 1.0],
        };
        let sil = Silhouette {
            along: (-18.0, 18.0),
            normal: (-4.0, 8.0),
            nadir: [0.0, 200.0],
            ray_spread: [0.0, 0.0],
        };
        let facing =
            |back_face_px| fresh_facing(&blob, &axes, &sil, (-4.0, 4.0), 4.0, back_face_px);
        assert!(matches!(facing(5.0), Sign::Label(sign) if sign < 0.0));
        assert!(matches!(facing(0.5), Sign::None));
    }

    /// A spent red block's label (32 x 12 px) in contact with a blue block along one long
    /// side: red rim along the other long side and both ends (1 to 2 px out), blue
    /// paint 2 px deep along the whole of the contact side. Counted all together
    /// neither side has three times the other's pixels; counted by edge, red rims three
    /// edges of four, and the label is red. Rimmed by blue all round, it is blue; but
    /// not where the empty map explains that blue as ink. With the rim at one end washed
    /// to the map's colour but for the blue block's corner, 8 px (b00's red block in
    /// melee on the photoreal frames, its picture flattened or compressed again: 1 red
    /// and 6 blue pixels there), that end is not read, and red rims the two other edges
    /// read: red. Before, blue won that end and neither side had three.
    #[test]
    fn a_label_is_the_side_whose_paint_rims_it() {
        builtin_options(|options| {
            let (red, blue) = ([200, 40, 40], [40, 60, 200]);
            let side_of_with =
                |contact: [u8; 3],
                 rim: [u8; 3],
                 washed_end: bool,
                 is_ink: &dyn Fn(u32, u32, [u8; 3]) -> bool| {
                    let w = 200;
                    let mut pixels = vec![Some([200, 190, 150]); (w * w) as usize];
                    for y in 80..120u32 {
                        for x in 70..130u32 {
                            let (a, n) = (f64::from(x) + 0.5 - 100.0, f64::from(y) + 0.5 - 100.0);
                            let off_a = a.abs() - 16.0;
                            let off_n = n.abs() - 6.0;
                            let colour = if off_a <= 0.0 && off_n <= 0.0 {
                                [240, 240, 235] // the label
                            } else if off_a <= 0.0 && n > 0.0 && off_n <= 2.0 {
                                contact
                            } else if off_a <= 2.0 && off_n <= 2.0 && off_a.max(off_n) >= 0.5 {
                                match (washed_end && a > 0.0 && off_a > 0.0, n > 4.0) {
                                    (false, _) => rim,
                                    (true, true) => contact,
                                    (true, false) => continue,
                                }
                            } else {
                                continue;
                            };
                            pixels[(y * w + x) as usize] = Some(colour);
                        }
                    }
                    let plane = MapPlane { w, pixels };
                    let axes = Axes {
                        centre: [100.0, 100.0],
                        along: [1.0, 0.0],
                        normal: [0.0, 1.0],
                    };
                    rim_side(
                        &plane,
                        &axes,
                        [100.0, 100.0],
                        [32.0, 12.0],
                        (5.0, 5.0, 30.0),
                        options,
                        is_ink,
                    )
                    .map(|rim| rim.side)
                };
            let side_of = |contact, rim| side_of_with(contact, rim, false, &|_, _, _| false);
            assert_eq!(side_of(blue, red), Some(0), "red, blue in contact");
            assert_eq!(side_of(blue, blue), Some(1), "blue all round");
            let washed = side_of_with(blue, red, true, &|_, _, _| false);
            assert_eq!(washed, Some(0), "red, one end washed out");
            // Blue the empty map explains (a river beside the block) is ink, and no vote.
            let river = |_: u32, _: u32, rgb: [u8; 3]| rgb == blue;
            assert_eq!(
                side_of_with(blue, red, false, &river),
                Some(0),
                "red, a river beside"
            );
            let all_round = side_of_with(blue, blue, false, &river);
            assert_eq!(all_round, None, "a river all round");
        });
    }

    /// A marked block whose top's paint reads too pale for its side is found by its strip.
    /// The strip: paper 38 x 4 px along x, rows 100 to 103, columns 80 to 117 (its
    /// centre (99, 102)); pale red (180, 120, 120: red's hue, saturated 0.33, under red's
    /// floor) in rows 104 to 107 behind it; the map elsewhere. The camera stands 30 in up
    /// over (100, 60) px, before the strip. Worked by hand:
    /// - a fresh top 0.75 in up is raised by 1 + 0.75 / 29.25 = 1.025641, so the strip,
    ///   half a top, is 0.5 x 0.375 x 1.025641 x 20 = 3.846 px deep;
    /// - the band behind the strip (rows 105 to 107) is all pale red, the band before it
    ///   (rows 97 to 99) the map: the top's back is at +y, and the block faces -y, 0 deg;
    /// - the top's middle lies 3.846 px behind the strip's front edge (y 100): (99,
    ///   103.846) px; taken down the camera's ray, (100 - 1 / 1.025641, 60 + 43.846 /
    ///   1.025641) = (99.025, 102.750) px = (4.9513, 5.1375) in.
    ///
    /// With a front face of pale red before the strip as well (rows 96 to 99, as the
    /// camera before the block sees it), the back is the edge away from the camera: the
    /// same block. (The face toward this camera is |60 - 102| x 0.025641 = 1.1 px deep,
    /// too shallow to read, so the paint beyond the far edge alone is a top.) Pale red
    /// going on past a top's depth behind the strip is a block standing in a river of
    /// its hue; with the hue before the strip too, it is not told which edge is the
    /// back, and no block is read. A label's width of paper (12 px), paper with the map
    /// on both edges, and a strip in a blue blob read no block.
    #[test]
    fn a_strip_alone_reads_its_block() {
        builtin_options(|options| {
            let pale_red = [180, 120, 120];
            let read_from = |camera: (f64, f64, f64),
                             paper_rows: std::ops::Range<u32>,
                             behind: u32,
                             before: u32,
                             blob_side: Option<usize>| {
                let w = 200;
                let mut pixels = vec![Some([200, 190, 150]); (w * w) as usize];
                let mut blob = Vec::new();
                for x in 80..118u32 {
                    for y in 90..120u32 {
                        let paper = paper_rows.contains(&y);
                        let paint = (paper_rows.end..paper_rows.end + behind).contains(&y)
                            || (paper_rows.start - before..paper_rows.start).contains(&y);
                        if paper {
                            pixels[(y * w + x) as usize] = Some([240, 240, 235]);
                            blob.push(Px { x, y, paper: true });
                        } else if paint {
                            pixels[(y * w + x) as usize] = Some(pale_red);
                        }
                    }
                }
                let plane = MapPlane { w, pixels };
                let paper = paper_regions(&blob);
                fresh_by_strip(&paper, blob_side, &plane, camera, options, &|_, _, _| false)
            };
            let read = |paper_rows, behind, before, blob_side| {
                read_from((5.0, 3.0, 30.0), paper_rows, behind, before, blob_side)
            };
            for (before, case) in [(0, "the top's paint behind"), (4, "a front face too")] {
                let found = read(100..104, 4, before, Some(0));
                assert_eq!(found.len(), 1, "{case}");
                let block = &found[0];
                assert_eq!(
                    (block.color.as_str(), block.status, block.facing),
                    ("red", Status::Fresh, Facing::Marked),
                    "{case}"
                );
                assert!(
                    (block.x_in - 4.9513).abs() < 0.001,
                    "{case}: x {}",
                    block.x_in
                );
                assert!(
                    (block.y_in - 5.1375).abs() < 0.001,
                    "{case}: y {}",
                    block.y_in
                );
                let heading = (block.heading_deg + 180.0).rem_euclid(360.0) - 180.0;
                assert!(
                    heading.abs() < 0.01,
                    "{case}: heading {}",
                    block.heading_deg
                );
            }
            // The camera behind the block, over (100, 200) px: the top's paint lies
            // between the strip and the camera. (100 - 1 / 1.025641, 200 - 96.154 /
            // 1.025641) = (99.025, 106.250) px = (4.9513, 5.3125) in, facing 0 deg.
            let behind = read_from((5.0, 10.0, 30.0), 100..104, 4, 0, Some(0));
            assert_eq!(behind.len(), 1, "the camera behind");
            assert!((behind[0].x_in - 4.9513).abs() < 0.001, "{:?}", behind[0]);
            assert!((behind[0].y_in - 5.3125).abs() < 0.001, "{:?}", behind[0]);
            assert!(behind[0].heading_deg.min(360.0 - behind[0].heading_deg) < 0.01);
            // The camera far before it, over (100, -100) px: the face toward it would
            // show 202 x 0.025641 = 5.2 px deep, and shows the map. The paint beyond
            // the far edge is the top behind a back label seen edge-on.
            let label = read_from((5.0, -5.0, 30.0), 100..104, 4, 0, Some(0));
            assert!(label.is_empty(), "a back label seen edge-on: {label:?}");
            // Pale red going on 16 rows behind the strip, past a top's 3.8 px: a block
            // standing in a river of its hue, the only edge that shows it still its back.
            let river = read(100..104, 16, 0, Some(0));
            assert_eq!(river.len(), 1, "in a river");
            assert!((river[0].y_in - 5.1375).abs() < 0.001, "{:?}", river[0]);
            // The camera behind the block again, and a river of pale red before it, 16
            // rows: both edges show the hue, and the far one's goes on past a top's
            // depth. Ink, or a column's next block: which edge is the back is not told.
            let with_river = read_from((5.0, 10.0, 30.0), 100..104, 7, 16, Some(0));
            assert!(with_river.is_empty(), "a river before: {with_river:?}");
            assert!(read(100..104, 4, 0, None).len() == 1, "paper alone");
            assert!(read(100..112, 4, 0, Some(0)).is_empty(), "a label's width");
            assert!(
                read(100..104, 0, 0, Some(0)).is_empty(),
                "the map both ways"
            );
            assert!(read(100..104, 4, 0, Some(1)).is_empty(), "in a blue blob");
        });
    }

    /// The pixels where `paint` holds on a plane `w` x `h` px, as a blob of paint.
    fn paint_blob(w: u32, h: u32, paint: impl Fn(u32, u32) -> bool) -> Vec<Px> {
        (0..w * h)
            .map(|i| (i % w, i / w))
            .filter(|&(x, y)| paint(x, y))
            .map(|(x, y)| Px { x, y, paper: false })
            .collect()
    }

    /// `f` run with the built-in colours and Pub Battles pieces, no home edges, no
    /// empty map.
    fn builtin_options<T>(f: impl FnOnce(&DetectOptions) -> T) -> T {
        let colours = ColourModel::builtin();
        let model = crate::model::PieceModel::builtin("pub-battles").unwrap();
        f(&DetectOptions {
            colours: &colours,
            model: &model,
            facing_away: &|_| None,
            reference: None,
        })
    }

    /// A fresh block 1.875 in long and 0.75 in tall, 30 in under the camera, shows a top
    /// of 1.875 x 30 / 29.25 in = 38.5 px at 20 px an inch. A 38 px silhouette is that
    /// block; a 24 px one (a roof a block wide, 1.2 in long) is shorter than 0.7 of its
    /// top (26.9 px) and is no block, unless it is a part of a line, cut to length.
    #[test]
    fn a_standing_block_shows_its_length() {
        let model = crate::model::PieceModel::builtin("pub-battles").unwrap();
        let fresh = |length_px: f64, part: bool| {
            let sil = Silhouette {
                along: (-0.5 * length_px + 0.5, 0.5 * length_px - 0.5),
                normal: (-3.5, 3.5),
                nadir: [0.0, 100.0],
                ray_spread: [64.0 / 12.0, length_px * length_px / 12.0],
            };
            let fits = fit_shapes(&sil, None, 30.0, &model, &|_, _| 0.0, &|_, _| None);
            let block = fits
                .into_iter()
                .find(|f| f.kind == "block" && f.status == Status::Fresh)
                .unwrap();
            not_ink(&block, &sil, 30.0, false, part, EDGE_BLUR_PX)
        };
        assert!(fresh(38.0, false), "a whole block");
        assert!(!fresh(24.0, false), "a roof 1.2 in long");
        assert!(fresh(24.0, true), "a part of a line");
    }

    /// A spent block's label (1.6 x 0.6 in, 32 x 12 px, with print holes in it) in a
    /// column, turned 20 degrees, between the facing strips (1.875 x 0.1 in, 38 x 2 px) of
    /// the fresh blocks ahead of and behind it, the gaps between blurred into paper: one
    /// region 5.5 in long, no label. The cut leaves the label alone: a label's size, its
    /// middle within a pixel of the label's. A label alone is left whole.
    #[test]
    fn a_label_between_facing_strips_end_to_end_is_cut_out() {
        let t = 20.0_f64.to_radians();
        let (along, across) = ([t.cos(), t.sin()], [-t.sin(), t.cos()]);
        let local = |p: [f64; 2]| {
            let d = [p[0] - 200.0, p[1] - 200.0];
            (
                d[0] * along[0] + d[1] * along[1],
                d[0] * across[0] + d[1] * across[1],
            )
        };
        let (mut column, mut alone) = (Vec::new(), Vec::new());
        for y in 100..300 {
            for x in 100..300 {
                let p = [f64::from(x) + 0.5, f64::from(y) + 0.5];
                let (u, v) = local(p);
                let label = u.abs() <= 16.0 && v.abs() <= 6.0 && (x * 7 + y * 3) % 11 != 0;
                let strip = (16.0..=55.0).contains(&u.abs()) && (-6.0..-4.0).contains(&v);
                if label {
                    alone.push(p);
                }
                if label || strip {
                    column.push(p);
                }
            }
        }
        let parts = super::labels_end_to_end(column, 1.875 * 1.013);
        assert_eq!(parts.len(), 1, "one label");
        let axes = super::principal_axes(&parts[0]);
        let long = super::extent(&parts[0], axes.centre, axes.along);
        let wide = super::extent(&parts[0], axes.centre, axes.normal);
        let (long, wide) = (long.1 - long.0 + 1.0, wide.1 - wide.0 + 1.0);
        assert!((30.0..=34.0).contains(&long), "{long} px long");
        assert!((11.0..=15.0).contains(&wide), "{wide} px wide");
        let middle = super::centroid(&parts[0]);
        let off = (middle[0] - 200.0).hypot(middle[1] - 200.0);
        assert!(off < 1.0, "middle {off} px off");
        let pixels = alone.len();
        let whole = super::labels_end_to_end(alone, 1.875 * 1.013);
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0].len(), pixels, "a label alone is left whole");
    }

    /// Two labels (1.6 x 0.6 in, 32 x 12 px) of spent blocks flank to flank, turned
    /// `turn_deg`, 0.75 in apart across and 0.4 in offset along, with two thirds of the
    /// 0.15 in gap between them read as paper: one paper region, and the two labels'
    /// middles.
    fn two_labels_flank_to_flank(turn_deg: f64) -> (Vec<[f64; 2]>, [[f64; 2]; 2]) {
        let t = turn_deg.to_radians();
        let (along, across) = ([t.cos(), t.sin()], [-t.sin(), t.cos()]);
        let at = |u: f64, v: f64| {
            [
                200.0 + u * along[0] + v * across[0],
                200.0 + u * along[1] + v * across[1],
            ]
        };
        let middles = [at(0.0, 0.0), at(8.0, 15.0)];
        let local = |p: [f64; 2], m: [f64; 2]| {
            let d = [p[0] - m[0], p[1] - m[1]];
            (
                d[0] * along[0] + d[1] * along[1],
                d[0] * across[0] + d[1] * across[1],
            )
        };
        let mut region = Vec::new();
        for y in 150..250 {
            for x in 150..250 {
                let p = [f64::from(x) + 0.5, f64::from(y) + 0.5];
                let on_label = middles.iter().any(|m| {
                    let (u, v) = local(p, *m);
                    u.abs() <= 16.0 && v.abs() <= 6.0
                });
                let (u, v) = local(p, middles[0]);
                let in_gap = (6.0..9.0).contains(&v) && (-8.0..=16.0).contains(&u);
                if on_label || (in_gap && (x + y) % 3 != 0) {
                    region.push(p);
                }
            }
        }
        (region, middles)
    }

    /// Two labels flank to flank, turned 46 degrees: one region, cut into the two
    /// labels. Each part is a label's size along its axes (within a blurred pixel or
    /// two) and holds one label's middle. Without the cut the region is 2.0 in long and
    /// 1.35 wide, no label.
    #[test]
    fn two_labels_side_by_side_are_cut_apart() {
        let (region, middles) = two_labels_flank_to_flank(46.0);
        let parts = super::labels_side_by_side(region, 0.75 * 1.013);
        assert_eq!(parts.len(), 2, "two labels");
        for (part, axes) in &parts {
            let axes = axes.as_ref().expect("the cut's axes");
            let long = super::extent(part, axes.centre, axes.along);
            let wide = super::extent(part, axes.centre, axes.normal);
            let (long, wide) = (long.1 - long.0 + 1.0, wide.1 - wide.0 + 1.0);
            assert!((30.0..=34.0).contains(&long), "{long} px long");
            assert!((11.0..=15.0).contains(&wide), "{wide} px wide");
            let holds = middles
                .iter()
                .filter(|m| part.iter().any(|p| (p[0] - m[0]).hypot(p[1] - m[1]) < 0.75));
            assert_eq!(holds.count(), 1, "one label's middle");
        }
    }

    /// How far axes lie from a line turned `turn_deg` on the plane, degrees (-90 to 90).
    fn off_deg(axes: &super::Axes, turn_deg: f64) -> f64 {
        let read = axes.along[1].atan2(axes.along[0]).to_degrees();
        (read - turn_deg + 90.0).rem_euclid(180.0) - 90.0
    }

    /// Two labels flank to flank, offset 0.4 in along, at several turns: each label's
    /// axes are within 2 degrees of its own. The cut between them follows the direction
    /// across which the offset pair is thinnest, in whole degrees, and runs up to 4
    /// degrees off (at 0 degrees; two spent blocks in melee read 3 off on the photoreal
    /// frames); each label's outer edge, read to about 0.7 degrees, is taken where it
    /// turns from the cut by more than 2.
    #[test]
    fn each_of_two_labels_side_by_side_takes_its_axes_from_its_outer_edge() {
        for turn_deg in [0.0, 17.0, 46.0, 103.0, 161.0] {
            let (region, _) = two_labels_flank_to_flank(turn_deg);
            let parts = super::labels_side_by_side(region, 0.75 * 1.013);
            assert_eq!(parts.len(), 2, "two labels at {turn_deg} deg");
            for (_, axes) in &parts {
                let off = off_deg(axes.as_ref().expect("the labels' axes"), turn_deg);
                assert!(off.abs() <= 2.0 + 1e-9, "at {turn_deg} deg, {off:.2} off");
            }
        }
    }

    /// A spent block's label (1.6 x 0.6 in, 32 x 12 px) turned 28 degrees, with the
    /// enemy's paper (its facing strip and the blurred gap, 6 px wide) joined along a
    /// third of one long edge, as in melee.
    /// The principal axes of label and strip turn toward the strip by degrees; the
    /// label's clean edge gives its direction to half a degree. A clean label keeps the
    /// axes it was read on (`None`).
    #[test]
    fn a_label_in_melee_takes_its_axes_from_its_clean_edge() {
        let turn_deg = 28.0_f64;
        let t = turn_deg.to_radians();
        let (along, across) = ([t.cos(), t.sin()], [-t.sin(), t.cos()]);
        let paper = |with_strip: bool| {
            let mut region = Vec::new();
            for y in 150..250 {
                for x in 150..250 {
                    let p = [f64::from(x) + 0.5, f64::from(y) + 0.5];
                    let d = [p[0] - 200.0, p[1] - 200.0];
                    let (u, v) = (super::dot(d, along), super::dot(d, across));
                    let label = u.abs() <= 16.0 && v.abs() <= 6.0;
                    let strip = (6.0..=16.0).contains(&u) && (6.0..=12.0).contains(&v);
                    if label || (with_strip && strip) {
                        region.push(p);
                    }
                }
            }
            region
        };
        let direction = |axes: &super::Axes| off_deg(axes, turn_deg);
        let in_melee = paper(true);
        let turned = super::principal_axes(&in_melee);
        assert!(direction(&turned).abs() > 3.0, "{:.2}", direction(&turned));
        let axes = super::edge_axes(&in_melee, &turned, None).expect("the clean edge");
        assert!(direction(&axes).abs() <= 0.5, "{:.2} off", direction(&axes));
        let clean = paper(false);
        assert!(super::edge_axes(&clean, &super::principal_axes(&clean), None).is_none());
    }

    /// A standing block's lit top (1.875 x 0.375 in and its side face, 38 x 10 px)
    /// turned 20 degrees, with a river of its side's colour (3 px wide) running on from
    /// one end at 35 degrees and joined to its blob. The blob's principal axes turn 6.6
    /// degrees toward the river; the top's edges, read along the length its top shows,
    /// give its direction to within a degree (0.46). Read along the whole blob, the
    /// river's bank takes the place of an edge, and the axes are not mended.
    #[test]
    fn a_standing_top_takes_its_axes_from_its_edges_along_its_own_length() {
        let turn_deg = 20.0_f64;
        let t = turn_deg.to_radians();
        let (along, across) = ([t.cos(), t.sin()], [-t.sin(), t.cos()]);
        let r = 35.0_f64.to_radians();
        let (river, bank) = ([r.cos(), r.sin()], [-r.sin(), r.cos()]);
        let end = [200.0 + 19.0 * along[0], 200.0 + 19.0 * along[1]];
        let mut blob = Vec::new();
        for y in 150..260 {
            for x in 150..260 {
                let p = [f64::from(x) + 0.5, f64::from(y) + 0.5];
                let d = [p[0] - 200.0, p[1] - 200.0];
                let top = super::dot(d, along).abs() <= 19.0 && super::dot(d, across).abs() <= 5.0;
                let e = [p[0] - end[0], p[1] - end[1]];
                let on_river = (0.0..=40.0).contains(&super::dot(e, river))
                    && super::dot(e, bank).abs() <= 1.5;
                if top || on_river {
                    blob.push(p);
                }
            }
        }
        let direction = |axes: &super::Axes| off_deg(axes, turn_deg);
        let turned = super::principal_axes(&blob);
        assert!(direction(&turned).abs() > 3.0, "{:.2}", direction(&turned));
        let middle = super::dot(
            [200.0 - turned.centre[0], 200.0 - turned.centre[1]],
            turned.along,
        );
        let span = Some((middle - 19.0, middle + 19.0));
        let axes = super::edge_axes(&blob, &turned, span).expect("the top's edges");
        assert!(direction(&axes).abs() <= 1.0, "{:.2} off", direction(&axes));
        let whole = super::edge_axes(&blob, &turned, None).map(|a| direction(&a));
        assert!(whole.is_none_or(|off| off.abs() > 1.0), "{whole:?}");
    }

    /// Two pieces never stand in one place: on photoreal b09 a red block's lit front
    /// face and strip were read as a second red block 0.34 in off, lying half over the
    /// blue spent block beside it. Of two readings overlapping by more than a quarter
    /// of the smaller, the less sure is dropped. Blocks in contact, flank to flank or end
    /// to end, a column, and an HQ against a block's flank are each kept.
    #[test]
    fn of_two_readings_of_one_place_the_surer_is_kept_and_pieces_in_contact_stay() {
        let model = crate::model::PieceModel::builtin("pub-battles").unwrap();
        let piece = |kind: &str, x_in, y_in, heading_deg, status, confidence| DetectedPiece {
            kind: kind.to_owned(),
            color: if x_in < 10.0 { "red" } else { "blue" }.to_owned(),
            x_in,
            y_in,
            heading_deg,
            status,
            facing: Facing::Unknown,
            length_in: 1.875,
            width_in: 0.375,
            confidence,
        };
        let read = vec![
            piece("block", 9.48, 10.54, 101.0, Status::Fresh, 0.91),
            piece("block", 9.79, 10.69, 95.0, Status::Fresh, 0.71),
            piece("block", 10.07, 11.07, 281.0, Status::Spent, 0.75),
            // A line: a fresh block 0.375 deep beside a spent one 0.75 deep, flank to
            // flank, and a column behind; an HQ cube against the last one's flank.
            piece("block", 20.0, 5.0, 0.0, Status::Fresh, 0.6),
            piece("block", 21.875, 5.0, 0.0, Status::Spent, 0.9),
            piece("block", 21.875, 5.5625, 0.0, Status::Fresh, 0.95),
            piece("hq", 23.0, 5.5625, 0.0, Status::Fresh, 0.99),
        ];
        let kept = without_overlaps(read.clone(), &model);
        let mut expected = read;
        expected.remove(1);
        assert_eq!(kept, expected);
    }

    /// Blocks end to end in a line stand a frontage apart (1.875 in, the built-in
    /// model's): a seam read 0.07 in into the third block of four moves it along, and
    /// spacing the line puts each on the even step about the line's mean (worked by
    /// hand: the mean is 12.8125 + 0.07 / 4 = 12.83 in along x, the step 5.625 / 3). Two
    /// blocks read 0.2 in into each other are set a frontage apart about their middle;
    /// two 0.1 in apart (pushed together by hand, not in contact) keep their gap; a
    /// block of the other side, or turned across, is no part of a line. A column of two
    /// read 0.3 in apart, front to back, is set a fresh depth (0.375 in) apart; a fresh
    /// and a spent block end to end, fronts level, are a line.
    #[test]
    fn blocks_in_a_rank_are_spaced_a_step_apart_about_where_it_was_read() {
        let model = crate::model::PieceModel::builtin("pub-battles").unwrap();
        let block = |color: &str, x_in: f64, y_in: f64, heading_deg: f64| DetectedPiece {
            kind: "block".to_owned(),
            color: color.to_owned(),
            x_in,
            y_in,
            heading_deg,
            status: Status::Fresh,
            facing: Facing::Unknown,
            length_in: 1.8,
            width_in: 0.375,
            confidence: 0.9,
        };
        let mut read = vec![
            // A red line of four along x, its seam between the 2nd and 3rd read late.
            block("red", 10.0, 5.0, 0.0),
            block("red", 11.875, 5.0, 180.0),
            block("red", 13.82, 5.02, 1.0),
            block("red", 15.625, 5.0, 0.0),
            // Two blue blocks read into each other along y, and two 0.1 in apart.
            block("blue", 5.0, 10.0, 90.0),
            block("blue", 5.0, 11.675, 90.0),
            block("blue", 20.0, 10.0, 90.0),
            block("blue", 20.0, 11.975, 90.0),
            // Red, but turned across the line's end.
            block("red", 17.5, 5.0, 90.0),
            // A red column of two, read 0.075 in closer than a depth apart.
            block("red", 30.0, 10.0, 0.0),
            block("red", 30.0, 10.3, 0.0),
            // A blue line of a fresh block and a spent one, fronts level (the spent
            // block's middle 0.1875 in farther back), read 0.175 in into each other.
            block("blue", 5.0, 15.0, 0.0),
            DetectedPiece {
                status: Status::Spent,
                width_in: 0.75,
                ..block("blue", 6.7, 15.1875, 0.0)
            },
        ];
        let before = read.clone();
        space_ranks(&mut read, &model);
        let mean = (10.0 + 11.875 + 13.82 + 15.625) / 4.0;
        for (k, x) in [-1.5, -0.5, 0.5, 1.5].into_iter().enumerate() {
            let want = mean + x * 1.875;
            assert!((read[k].x_in - want).abs() < 1e-9, "block {k}: {read:?}");
        }
        // (block, where it stands after, x and y): the line's third block keeps its y
        // as read, the blue pair in contact is set a frontage apart about 10.8375, the
        // column a depth apart about 10.15.
        let placed = [
            (2, [mean + 0.5 * 1.875, 5.02]),
            (4, [5.0, 10.8375 - 0.9375]),
            (5, [5.0, 10.8375 + 0.9375]),
            (9, [30.0, 10.15 - 0.1875]),
            (10, [30.0, 10.15 + 0.1875]),
            (11, [5.85 - 0.9375, 15.0]),
            (12, [5.85 + 0.9375, 15.1875]),
        ];
        for (k, [x, y]) in placed {
            let off = (read[k].x_in - x).hypot(read[k].y_in - y);
            assert!(off < 1e-9, "block {k} {off} in off: {:?}", read[k]);
        }
        for (k, (after, before)) in read.iter().zip(&before).enumerate().take(9).skip(6) {
            let moved = (after.x_in - before.x_in).hypot(after.y_in - before.y_in);
            assert!(moved < 1e-9, "block {k} moved {moved} in");
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
