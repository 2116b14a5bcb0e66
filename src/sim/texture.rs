//! A busy printed map, painted procedurally per seed: canvas with mottling, woods, rivers,
//! roads, hill contours and lettering. It is what makes segmentation hard: the blue of a
//! river, the red-brown of a road or a label, dark lettering beside a block.

use image::{Rgb, RgbImage};
use imageproc::drawing::{
    draw_filled_circle_mut, draw_filled_rect_mut, draw_hollow_ellipse_mut, draw_line_segment_mut,
};
use imageproc::rect::Rect;
use rand::rngs::ChaCha20Rng;
use rand::{RngExt, SeedableRng};

/// Texture resolution: pixels per map inch.
const PX_PER_IN: f64 = 24.0;

pub struct MapTexture {
    image: RgbImage,
}

impl MapTexture {
    pub fn paint(map_w_in: f64, map_h_in: f64, seed: u64) -> Self {
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
        Self { image }
    }

    /// The map's colour at a map point (nearest texel).
    pub fn sample(&self, x_in: f64, y_in: f64) -> [f64; 3] {
        let (w, h) = self.image.dimensions();
        let u = ((x_in * PX_PER_IN) as u32).min(w - 1);
        let v = ((y_in * PX_PER_IN) as u32).min(h - 1);
        self.image.get_pixel(u, v).0.map(f64::from)
    }
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
