//! The map plane as the camera shows it: the frame resampled to map inches, for a person
//! to see what the detector sees (`aide detect --overlay`), for the empty map's
//! reference, and as the evidence of a stable table ([`MapPicture`]): the page draws its
//! verdicts on it and the journal keeps one per committed state.

use image::RgbImage;
use nalgebra::Point3;

use super::calib::Calibration;
use super::detect::{DetectedPiece, bilinear};

/// The whole map plane (z = 0) at `px_per_in`, pixel (0, 0) the map's top-left corner:
/// each pixel read where the camera shows that point of the map, through the lens. Where
/// the frame does not show the map, black.
pub fn map_plane_view(image: &RgbImage, calib: &Calibration, px_per_in: f64) -> RgbImage {
    let w = (calib.map_w_in * px_per_in).round() as u32;
    let h = (calib.map_h_in * px_per_in).round() as u32;
    RgbImage::from_fn(w, h, |x, y| {
        let p = Point3::new(
            (f64::from(x) + 0.5) / px_per_in,
            (f64::from(y) + 0.5) / px_per_in,
            0.0,
        );
        image::Rgb(
            calib
                .camera
                .project(p)
                .and_then(|(u, v)| bilinear(image, u, v))
                .unwrap_or([0, 0, 0]),
        )
    })
}

/// Map-plane pixels an inch of the evidence picture: the detector's own plane, so that
/// what a player sees is what was read (a 36 x 24 in map is 720 x 480 px).
pub const PICTURE_PX_PER_IN: f64 = super::detect::PX_PER_IN;

/// JPEG quality of the evidence picture: at 80 the demo's 720 x 480 map plane is about
/// 68 KB and takes 17 ms to encode, after 39 ms to resample from a 1080p frame (`cargo
/// bench --bench vision -- evidence`), and blocks, labels and the map's ink stay sharp
/// enough to argue over. Made once per committed state, not per frame.
pub const PICTURE_QUALITY: u8 = 80;

/// The camera's picture of the whole map, undistorted and cropped to it: a JPEG of the
/// map plane at [`PICTURE_PX_PER_IN`], pixel (0, 0) the map's top-left corner. The
/// stages after vision hand it on as bytes; they never look at its pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct MapPicture {
    pub jpeg: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub px_per_in: f64,
    /// When the frame was taken, ms since the Unix epoch.
    pub ts_ms: i64,
}

impl MapPicture {
    /// The map plane of `image` as `calib` sees it (see [`map_plane_view`]), as a JPEG.
    pub fn of_frame(
        image: &RgbImage,
        calib: &Calibration,
        ts_ms: i64,
    ) -> Result<Self, image::ImageError> {
        let view = map_plane_view(image, calib, PICTURE_PX_PER_IN);
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, PICTURE_QUALITY)
            .encode_image(&view)?;
        Ok(Self {
            jpeg,
            width: view.width(),
            height: view.height(),
            px_per_in: PICTURE_PX_PER_IN,
            ts_ms,
        })
    }
}

/// Draw each piece's footprint on a map-plane view made at `px_per_in`: its outline in
/// magenta, its front edge in yellow (green where the facing was inferred or unknown).
pub fn draw_footprints(view: &mut RgbImage, pieces: &[DetectedPiece], px_per_in: f64) {
    use imageproc::drawing::draw_line_segment_mut;
    for p in pieces {
        let (s, c) = p.heading_deg.to_radians().sin_cos();
        // Front (heading) and right-hand unit vectors on the map, y down.
        let front = [s, -c];
        let right = [c, s];
        let (half_l, half_w) = (p.length_in / 2.0, p.width_in / 2.0);
        let corner = |f: f64, r: f64| {
            (
                ((p.x_in + f * half_w * front[0] + r * half_l * right[0]) * px_per_in) as f32,
                ((p.y_in + f * half_w * front[1] + r * half_l * right[1]) * px_per_in) as f32,
            )
        };
        let corners = [
            corner(1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, 1.0),
            corner(-1.0, -1.0),
        ];
        let front_colour = if p.facing == super::Facing::Marked {
            image::Rgb([255, 230, 0])
        } else {
            image::Rgb([0, 220, 0])
        };
        for k in 0..4 {
            let colour = if k == 0 {
                front_colour
            } else {
                image::Rgb([255, 0, 255])
            };
            draw_line_segment_mut(view, corners[k], corners[(k + 1) % 4], colour);
        }
    }
}
