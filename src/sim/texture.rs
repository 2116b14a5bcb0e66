//! The map the synthetic camera films: a scenario's printed map image (SVG, PNG or JPEG,
//! registered to map inches), or a busy map painted procedurally per seed (canvas with
//! mottling, woods, rivers, roads, hill contours and lettering). Either is what makes
//! segmentation hard: the blue of a river, the red of a roof or a road, dark lettering
//! beside a block.

use std::path::{Path, PathBuf};

use image::{Rgb, RgbImage};
use imageproc::drawing::{
    draw_filled_circle_mut, draw_filled_rect_mut, draw_hollow_ellipse_mut, draw_line_segment_mut,
};
use imageproc::rect::Rect;
use rand::rngs::ChaCha20Rng;
use rand::{RngExt, SeedableRng};
use resvg::{tiny_skia, usvg};

/// Resolution of the procedural map: pixels per map inch.
const PX_PER_IN: f64 = 24.0;

/// Resolution an SVG map is rasterised at: finer than a 4K frame sees a 36 in map
/// (about 100 px/in across the frame, so under 50 px/in of map at the far edge, and the
/// texture is sampled bilinearly), and coarse enough to rasterise in about a second.
const SVG_PX_PER_IN: f64 = 64.0;

/// How far a map image's shape may differ from the map's before it is refused: it would
/// be stretched out of register with the corner cards.
const MAX_ASPECT_MISMATCH: f64 = 0.03;

/// A printed map image that cannot be filmed.
#[derive(Debug, thiserror::Error)]
#[error("the map image {path}: {reason}")]
pub struct MapImageError {
    pub path: PathBuf,
    pub reason: String,
}

/// The printed map, as colour per map inch.
#[derive(Clone)]
pub struct MapTexture {
    image: RgbImage,
    px_per_in: f64,
    /// Interpolated between texels (see [`MapTexture::sample`]).
    smooth: bool,
}

impl MapTexture {
    /// Read a map image and register it to the map: its full extent covers the map from
    /// (0, 0) to (`map_w_in`, `map_h_in`). SVG is rasterised (with the system's fonts, for
    /// its lettering); PNG and JPEG scans are used as they are.
    pub fn from_file(path: &Path, map_w_in: f64, map_h_in: f64) -> Result<Self, MapImageError> {
        let fail = |reason| unusable(path, reason);
        let bytes = read_map(path)?;
        let is_svg = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
        if is_svg {
            let tree = parse_svg(&bytes, path.parent()).map_err(fail)?;
            let size = tree.size();
            check_aspect(
                f64::from(size.width()),
                f64::from(size.height()),
                map_w_in,
                map_h_in,
            )
            .map_err(fail)?;
            return draw_svg(&tree, map_w_in, map_h_in).map_err(fail);
        }
        let image = image::load_from_memory(&bytes)
            .map_err(|e| fail(format!("is not a PNG or JPEG image I can read ({e})")))?
            .into_rgb8();
        check_aspect(
            f64::from(image.width()),
            f64::from(image.height()),
            map_w_in,
            map_h_in,
        )
        .map_err(fail)?;
        let px_per_in = f64::from(image.width()) / map_w_in;
        Ok(Self {
            image,
            px_per_in,
            smooth: true,
        })
    }

    /// Read an SVG map drawn at its printed size (`width="36in" height="24in"`), and
    /// that size in inches.
    pub fn from_svg_at_its_size(path: &Path) -> Result<(Self, f64, f64), MapImageError> {
        let fail = |reason| unusable(path, reason);
        let bytes = read_map(path)?;
        let tree = parse_svg(&bytes, path.parent()).map_err(fail)?;
        // usvg gives the size in CSS pixels, 96 to the inch.
        let (w_in, h_in) = (
            f64::from(tree.size().width()) / 96.0,
            f64::from(tree.size().height()) / 96.0,
        );
        if !(6.0..=120.0).contains(&w_in) || !(6.0..=120.0).contains(&h_in) {
            return Err(fail(format!(
                "is {w_in:.1} x {h_in:.1} in: give its width and height in inches, such as width=\"36in\" height=\"24in\""
            )));
        }
        Ok((draw_svg(&tree, w_in, h_in).map_err(fail)?, w_in, h_in))
    }

    /// The busy procedural map of `seed`.
    pub fn procedural(map_w_in: f64, map_h_in: f64, seed: u64) -> Self {
        let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x3a9);
        let (w, h) = (
            (map_w_in * PX_PER_IN) as u32 + 1,
            (map_h_in * PX_PER_IN) as u32 + 1,
        );
        let mut image = RgbImage::from_pixel(w, h, Rgb([214, 203, 170]));
        let px = |inches: f64| (inches * PX_PER_IN) as f32;
        let at = |rng: &mut ChaCha20Rng| {
            (
                rng.random_range(0.0..map_w_in),
                rng.random_range(0.0..map_h_in),
            )
        };
        // Mottled canvas: large faint blotches.
        for _ in 0..60 {
            let (x, y) = at(&mut rng);
            let shade: u8 = rng.random_range(190..225);
            let r = px(rng.random_range(1.0..3.5)) as i32;
            draw_filled_circle_mut(
                &mut image,
                (px(x) as i32, px(y) as i32),
                r,
                Rgb([shade, shade.saturating_sub(12), shade.saturating_sub(45)]),
            );
        }
        // Hills: concentric brown contour rings.
        for _ in 0..5 {
            let (x, y) = at(&mut rng);
            let (a, b) = (rng.random_range(2.0..5.0), rng.random_range(1.0..3.0));
            for k in 0..4 {
                let s = 1.0 - 0.22 * f64::from(k);
                draw_hollow_ellipse_mut(
                    &mut image,
                    (px(x) as i32, px(y) as i32),
                    px(a * s) as i32,
                    px(b * s) as i32,
                    Rgb([150, 118, 80]),
                );
            }
        }
        // Woods: clumps of green circles with darker tree dots.
        for _ in 0..7 {
            let (x, y) = at(&mut rng);
            for _ in 0..14 {
                let (dx, dy) = (rng.random_range(-2.0..2.0), rng.random_range(-1.5..1.5));
                let r = px(rng.random_range(0.5..1.1)) as i32;
                draw_filled_circle_mut(
                    &mut image,
                    (px(x + dx) as i32, px(y + dy) as i32),
                    r,
                    Rgb([118, 140, 84]),
                );
            }
            for _ in 0..40 {
                let (dx, dy) = (rng.random_range(-2.3..2.3), rng.random_range(-1.8..1.8));
                draw_filled_circle_mut(
                    &mut image,
                    (px(x + dx) as i32, px(y + dy) as i32),
                    px(0.08) as i32,
                    Rgb([78, 102, 60]),
                );
            }
        }
        // Rivers (blue-grey, thick) and roads (tan, with a red-brown edge line).
        for (count, width_in, colour) in [
            (2, 0.35, Rgb([122, 156, 178])),
            (3, 0.18, Rgb([188, 156, 110])),
            (2, 0.05, Rgb([150, 78, 58])),
        ] {
            for _ in 0..count {
                let mut p = at(&mut rng);
                for _ in 0..12 {
                    let q = (
                        (p.0 + rng.random_range(-4.0..4.0)).clamp(0.0, map_w_in),
                        (p.1 + rng.random_range(-4.0..4.0)).clamp(0.0, map_h_in),
                    );
                    thick_line(&mut image, p, q, width_in, colour);
                    p = q;
                }
            }
        }
        // Lettering: rows of small dark marks.
        for _ in 0..25 {
            let (x, y) = at(&mut rng);
            let letters = rng.random_range(4..10);
            for k in 0..letters {
                let lx = px(x + 0.14 * f64::from(k)) as i32;
                let tall = rng.random_bool(0.3);
                draw_filled_rect_mut(
                    &mut image,
                    Rect::at(lx, px(y) as i32).of_size(2, if tall { 6 } else { 4 }),
                    Rgb([62, 52, 44]),
                );
            }
        }
        Self {
            image,
            px_per_in: PX_PER_IN,
            smooth: false,
        }
    }

    /// The map's colour at a map point: a printed image's interpolated between the four
    /// nearest texels; the procedural map's the nearest texel's (its hard-edged print is
    /// what the rendered benchmarks and tests have always measured).
    pub fn sample(&self, x_in: f64, y_in: f64) -> [f64; 3] {
        let (w, h) = self.image.dimensions();
        if !self.smooth {
            let u = ((x_in * self.px_per_in) as u32).min(w - 1);
            let v = ((y_in * self.px_per_in) as u32).min(h - 1);
            return self.image.get_pixel(u, v).0.map(f64::from);
        }
        let fx = (x_in * self.px_per_in - 0.5).clamp(0.0, f64::from(w - 1));
        let fy = (y_in * self.px_per_in - 0.5).clamp(0.0, f64::from(h - 1));
        let (x0, y0) = (fx.floor() as u32, fy.floor() as u32);
        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
        let (tx, ty) = (fx - f64::from(x0), fy - f64::from(y0));
        let texel = |x: u32, y: u32| self.image.get_pixel(x, y).0.map(f64::from);
        let (a, b, c, d) = (texel(x0, y0), texel(x1, y0), texel(x0, y1), texel(x1, y1));
        std::array::from_fn(|i| {
            let top = a[i] + (b[i] - a[i]) * tx;
            let bottom = c[i] + (d[i] - c[i]) * tx;
            top + (bottom - top) * ty
        })
    }
}

fn unusable(path: &Path, reason: String) -> MapImageError {
    MapImageError {
        path: path.to_path_buf(),
        reason,
    }
}

fn read_map(path: &Path) -> Result<Vec<u8>, MapImageError> {
    std::fs::read(path).map_err(|e| unusable(path, format!("cannot be read: {e}")))
}

fn parse_svg(bytes: &[u8], resources: Option<&Path>) -> Result<usvg::Tree, String> {
    let mut options = usvg::Options {
        resources_dir: resources.map(Path::to_path_buf),
        ..usvg::Options::default()
    };
    options.fontdb_mut().load_system_fonts();
    usvg::Tree::from_data(bytes, &options)
        .map_err(|e| format!("is not an SVG drawing I can read ({e})"))
}

/// An SVG map drawn over the map's extent at [`SVG_PX_PER_IN`], over white canvas (what
/// shows where the drawing leaves the map transparent).
fn draw_svg(tree: &usvg::Tree, map_w_in: f64, map_h_in: f64) -> Result<MapTexture, String> {
    let (w, h) = (
        (map_w_in * SVG_PX_PER_IN).round() as u32,
        (map_h_in * SVG_PX_PER_IN).round() as u32,
    );
    let mut pixmap = tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| format!("a {map_w_in} x {map_h_in} in map is too large to draw"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    let size = tree.size();
    let scale = tiny_skia::Transform::from_scale(w as f32 / size.width(), h as f32 / size.height());
    resvg::render(tree, scale, &mut pixmap.as_mut());
    // Opaque over white, so the premultiplied pixels are the colours themselves.
    let rgb = pixmap
        .pixels()
        .iter()
        .flat_map(|p| [p.red(), p.green(), p.blue()])
        .collect();
    Ok(MapTexture {
        image: RgbImage::from_raw(w, h, rgb).expect("w x h pixels"),
        px_per_in: SVG_PX_PER_IN,
        smooth: true,
    })
}

fn check_aspect(w: f64, h: f64, map_w_in: f64, map_h_in: f64) -> Result<(), String> {
    let (image, map) = (w / h, map_w_in / map_h_in);
    if (image / map - 1.0).abs() > MAX_ASPECT_MISMATCH {
        return Err(format!(
            "is {w} x {h}, a width to height of {image:.3}, but the map is {map_w_in} x {map_h_in} in ({map:.3}): it would not lie on the map as printed"
        ));
    }
    Ok(())
}

fn thick_line(image: &mut RgbImage, a: (f64, f64), b: (f64, f64), width_in: f64, colour: Rgb<u8>) {
    let steps = (width_in * PX_PER_IN).ceil().max(1.0) as i32;
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy).max(1e-9);
    let (nx, ny) = (-dy / len, dx / len);
    for k in 0..steps {
        let off = (f64::from(k) / PX_PER_IN) - width_in / 2.0;
        let p = |q: (f64, f64)| {
            (
                ((q.0 + nx * off) * PX_PER_IN) as f32,
                ((q.1 + ny * off) * PX_PER_IN) as f32,
            )
        };
        draw_line_segment_mut(image, p(a), p(b), colour);
    }
}
