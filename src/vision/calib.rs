//! From the four corner tags to the camera: the map-plane homography, the focal length
//! when no camera file gives it, and the camera's pose over the table.
//!
//! The corner cards put tag36h11 ids 0 (top-left), 1 (top-right), 2 (bottom-right) and
//! 3 (bottom-left) with their centres 1 in in from both map edges; a tag is 1.5 in across
//! its black border. Every tag gives five points (centre and corners) whose map positions
//! are known, so the homography is fitted to twenty points, not four.

use apriltag::{DetectorBuilder, Family, Image};
use image::RgbImage;
use nalgebra::{DMatrix, Matrix3, Point3, Vector3};

use super::VisionError;
use super::camera::{Intrinsics, PinholeCamera};

/// Where the tag centres are, from the map edges.
pub const TAG_INSET_IN: f64 = 1.0;
/// A tag's size across its black border.
pub const TAG_SIZE_IN: f64 = 1.5;

/// The camera over the table, found from one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub camera: PinholeCamera,
    pub map_w_in: f64,
    pub map_h_in: f64,
    /// Root mean square distance between the tag points seen and where the fitted camera
    /// puts them, in pixels: how well the frame agrees with a flat map.
    pub reprojection_px: f64,
    /// Whether the focal length came from a camera file or was estimated from the tags.
    pub focal_from_file: bool,
}

/// One tag as found in the frame.
#[derive(Debug, Clone, Copy)]
struct SeenTag {
    centre: [f64; 2],
    corners: [[f64; 2]; 4],
}

impl Calibration {
    /// Find the tags and the camera. `intrinsics` come from a camera file; without one the
    /// principal point is the frame's centre, the lens is taken as distortion-free and
    /// the focal length is estimated from the tags.
    pub fn from_image(
        image: &RgbImage,
        map_w_in: f64,
        map_h_in: f64,
        intrinsics: Option<Intrinsics>,
    ) -> Result<Self, VisionError> {
        let intr_guess = intrinsics.unwrap_or_else(|| {
            Intrinsics::ideal(f64::from(image.width()), image.width(), image.height())
        });
        let (map_pts, img_pts) = tag_points(image, map_w_in, map_h_in, &intr_guess)?;
        let h = homography(&map_pts, &img_pts)?;
        let intr = match intrinsics {
            Some(i) => i,
            None => Intrinsics::ideal(
                estimate_focal(&h, intr_guess.cx, intr_guess.cy)
                    .unwrap_or(f64::from(image.width())),
                image.width(),
                image.height(),
            ),
        };
        let camera = pose_from_homography(&h, intr)?;
        let mut sum = 0.0;
        for (m, i) in map_pts.iter().zip(&img_pts) {
            let (u, v) = camera
                .project(Point3::new(m[0], m[1], 0.0))
                .ok_or(VisionError::Geometry("the map is behind the camera"))?;
            let (u, v) = intr.undistort_pixel(u, v);
            sum += dist2([u, v], *i);
        }
        Ok(Self {
            camera,
            map_w_in,
            map_h_in,
            reprojection_px: (sum / map_pts.len() as f64).sqrt(),
            focal_from_file: intrinsics.is_some(),
        })
    }

    /// Where the camera is: over which map point, and how high.
    pub fn camera_over(&self) -> (f64, f64, f64) {
        let c = self.camera.centre();
        (c.x, c.y, -c.z)
    }
}

/// Points of the map plane and where a frame shows them: map inches, pixels.
pub type PlanePoints = (Vec<[f64; 2]>, Vec<[f64; 2]>);

/// The corner tags' twenty points (each tag's centre and corners) as map positions and
/// where the frame shows them, in pixels undistorted by `intr` (a lens without
/// distortion leaves them as seen: what a camera calibration wants).
pub fn tag_points(
    image: &RgbImage,
    map_w_in: f64,
    map_h_in: f64,
    intr: &Intrinsics,
) -> Result<PlanePoints, VisionError> {
    let tags = find_tags(image)?;
    let centres = tag_centres(map_w_in, map_h_in);
    let mut map_pts = Vec::new();
    let mut img_pts = Vec::new();
    for (id, tag) in tags.iter().enumerate() {
        map_pts.push(centres[id]);
        img_pts.push(undistorted(intr, tag.centre));
    }
    // Which seen corner is which: the one nearest where the centres' homography puts it
    // (the detector's corner order depends on the tag's turn in the frame).
    let coarse = homography(&map_pts, &img_pts)?;
    for (id, tag) in tags.iter().enumerate() {
        let [cx, cy] = centres[id];
        let h = TAG_SIZE_IN / 2.0;
        for corner in [
            [cx - h, cy - h],
            [cx + h, cy - h],
            [cx + h, cy + h],
            [cx - h, cy + h],
        ] {
            let predicted = apply(&coarse, corner);
            let seen = tag
                .corners
                .iter()
                .map(|c| undistorted(intr, *c))
                .min_by(|a, b| dist2(*a, predicted).total_cmp(&dist2(*b, predicted)))
                .expect("four corners");
            map_pts.push(corner);
            img_pts.push(seen);
        }
    }
    Ok((map_pts, img_pts))
}

/// Map positions of the tag centres, by id.
pub fn tag_centres(map_w_in: f64, map_h_in: f64) -> [[f64; 2]; 4] {
    let i = TAG_INSET_IN;
    [
        [i, i],
        [map_w_in - i, i],
        [map_w_in - i, map_h_in - i],
        [i, map_h_in - i],
    ]
}

fn undistorted(intr: &Intrinsics, p: [f64; 2]) -> [f64; 2] {
    let (u, v) = intr.undistort_pixel(p[0], p[1]);
    [u, v]
}

fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

/// The four corner tags, by id; an error naming the ids seen when any is missing.
///
/// The quad search runs on a decimated copy (the tags' codes are still read at full
/// resolution): first coarse, about 640 pixels across, where the tags of a 3 ft map are
/// still 20 pixels or more and the busy map's texture mostly blurs away, which takes a
/// third of the time; then, only when a tag was missed there, at half that decimation.
fn find_tags(image: &RgbImage) -> Result<[SeenTag; 4], VisionError> {
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
    let coarse = (w as f32 / 640.0).floor().max(1.0);
    let mut best: [Option<(f32, SeenTag)>; 4] = [None; 4];
    for decimation in [coarse, (coarse / 2.0).floor().max(1.0)] {
        let mut detector = DetectorBuilder::new()
            .add_family_bits(Family::tag_36h11(), 1)
            .build()
            .map_err(|e| VisionError::Tags(e.to_string()))?;
        detector.set_decimation(decimation);
        detector.set_refine_edges(true);
        for d in detector.detect(&gray) {
            let id = d.id();
            if id > 3 {
                continue;
            }
            let margin = d.decision_margin();
            if best[id].is_none_or(|(m, _)| margin > m) {
                best[id] = Some((
                    margin,
                    SeenTag {
                        centre: d.center(),
                        corners: d.corners(),
                    },
                ));
            }
        }
        if best.iter().all(Option::is_some) || decimation == 1.0 {
            break;
        }
    }
    let seen: Vec<usize> = (0..4).filter(|&i| best[i].is_some()).collect();
    if seen.len() < 4 {
        return Err(VisionError::TagsNotFound { seen });
    }
    Ok(best.map(|b| b.expect("checked above").1))
}

/// The homography taking map points to pixels, by the normalised direct linear
/// transform (Hartley): both point sets are centred and scaled before the SVD.
pub fn homography(map: &[[f64; 2]], img: &[[f64; 2]]) -> Result<Matrix3<f64>, VisionError> {
    let (tm, nm) = normalise(map);
    let (ti, ni) = normalise(img);
    let n = map.len();
    // At least 9 rows (zeros pad four points' eight equations), so that the SVD's V
    // holds the null vector.
    let mut a = DMatrix::<f64>::zeros((2 * n).max(9), 9);
    for k in 0..n {
        let (x, y) = (nm[k][0], nm[k][1]);
        let (u, v) = (ni[k][0], ni[k][1]);
        let rows = [
            [-x, -y, -1.0, 0.0, 0.0, 0.0, u * x, u * y, u],
            [0.0, 0.0, 0.0, -x, -y, -1.0, v * x, v * y, v],
        ];
        for (r, row) in rows.iter().enumerate() {
            for (c, value) in row.iter().enumerate() {
                a[(2 * k + r, c)] = *value;
            }
        }
    }
    let svd = a.svd(false, true);
    let vt = svd
        .v_t
        .ok_or(VisionError::Geometry("the homography did not solve"))?;
    let (min_row, _) = svd
        .singular_values
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .ok_or(VisionError::Geometry("the homography did not solve"))?;
    let hn = Matrix3::from_iterator((0..9).map(|i| vt[(min_row, i)])).transpose();
    let ti_inv = ti
        .try_inverse()
        .ok_or(VisionError::Geometry("tag points coincide"))?;
    Ok(ti_inv * hn * tm)
}

/// Centre on the mean and scale to a mean distance of sqrt(2).
fn normalise(points: &[[f64; 2]]) -> (Matrix3<f64>, Vec<[f64; 2]>) {
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p[0] / n, y + p[1] / n));
    let mean_d = points
        .iter()
        .map(|p| (p[0] - mx).hypot(p[1] - my))
        .sum::<f64>()
        / n;
    let s = std::f64::consts::SQRT_2 / mean_d.max(1e-12);
    let t = Matrix3::new(s, 0.0, -s * mx, 0.0, s, -s * my, 0.0, 0.0, 1.0);
    let out = points
        .iter()
        .map(|p| [s * (p[0] - mx), s * (p[1] - my)])
        .collect();
    (t, out)
}

pub fn apply(h: &Matrix3<f64>, p: [f64; 2]) -> [f64; 2] {
    let q = h * Vector3::new(p[0], p[1], 1.0);
    [q.x / q.z, q.y / q.z]
}

/// The focal length (square pixels, principal point known) that makes the homography's
/// first two columns orthogonal and of equal length, as the images of the map's x and y
/// axes must be (Zhang). `None` when the view is too square-on to tell.
fn estimate_focal(h: &Matrix3<f64>, cx: f64, cy: f64) -> Option<f64> {
    let shift = Matrix3::new(1.0, 0.0, -cx, 0.0, 1.0, -cy, 0.0, 0.0, 1.0);
    let m = shift * h;
    let (h1, h2) = (m.column(0), m.column(1));
    // a / f^2 + b = 0 for both constraints; least squares in 1 / f^2.
    let pairs = [
        (h1[0] * h2[0] + h1[1] * h2[1], h1[2] * h2[2]),
        (
            h1[0] * h1[0] + h1[1] * h1[1] - h2[0] * h2[0] - h2[1] * h2[1],
            h1[2] * h1[2] - h2[2] * h2[2],
        ),
    ];
    let num: f64 = pairs.iter().map(|(a, b)| a * b).sum();
    let den: f64 = pairs.iter().map(|(a, _)| a * a).sum();
    let inv_f2 = -num / den;
    (inv_f2.is_finite() && inv_f2 > 0.0).then(|| 1.0 / inv_f2.sqrt())
}

/// The camera's pose from the map-plane homography and the intrinsics:
/// `H ~ K [r1 r2 t]` for points on the plane z = 0.
fn pose_from_homography(h: &Matrix3<f64>, intr: Intrinsics) -> Result<PinholeCamera, VisionError> {
    let k_inv = intr
        .matrix()
        .try_inverse()
        .ok_or(VisionError::Geometry("a singular camera matrix"))?;
    let m = k_inv * h;
    let mut lambda = 2.0 / (m.column(0).norm() + m.column(1).norm());
    if m[(2, 2)] * lambda < 0.0 {
        lambda = -lambda; // the map is in front of the camera
    }
    let r1 = m.column(0) * lambda;
    let r2 = m.column(1) * lambda;
    let r3 = r1.cross(&r2);
    let t = m.column(2) * lambda;
    let approx = Matrix3::from_columns(&[r1, r2, r3]);
    // The nearest rotation (noise leaves the columns slightly off orthonormal).
    let svd = approx.svd(true, true);
    let (u, vt) = (
        svd.u.ok_or(VisionError::Geometry("no rotation fits"))?,
        svd.v_t.ok_or(VisionError::Geometry("no rotation fits"))?,
    );
    let r = u * vt;
    Ok(PinholeCamera {
        intrinsics: intr,
        r,
        t: Vector3::new(t[0], t[1], t[2]),
    })
}
