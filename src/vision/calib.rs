//! From the four corner tags to the camera: the map-plane homography, the focal length
//! when no camera file gives it, and the camera's pose over the table.
//!
//! The corner cards put tag36h11 ids 0 (top-left), 1 (top-right), 2 (bottom-right) and
//! 3 (bottom-left) with their centres 1 in in from both map edges; a tag is 1.5 in across
//! its black border. Every tag gives five points (centre and corners) whose map positions
//! are known, so the homography is fitted to twenty points, not four.

use image::RgbImage;
use nalgebra::{DMatrix, Matrix3, Point3, Vector3};

use super::VisionError;
use super::camera::{Intrinsics, PinholeCamera};
use super::tags::{SeenTag, find_corner_tags};

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
    let centres = tag_centres(map_w_in, map_h_in);
    let tags = find_corner_tags(image, centres)?.map(|tag| SeenTag {
        centre: undistorted(intr, tag.centre),
        corners: tag.corners.map(|c| undistorted(intr, c)),
    });
    let seen_centres: Vec<[f64; 2]> = tags.iter().map(|t| t.centre).collect();
    let coarse = homography(&centres, &seen_centres)?;
    let (map_pts, img_pts) = tags
        .iter()
        .zip(centres)
        .flat_map(|(tag, centre)| tag.points(centre, &coarse))
        .unzip();
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
