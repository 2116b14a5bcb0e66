//! The pinhole camera with lens distortion, in OpenCV's convention, and where it stands
//! over the table.
//!
//! World frame: map inches, x right, y down the map, z *into* the table (so the frame is
//! right-handed); a point `h` inches above the map has `z = -h`. Camera frame: x right,
//! y down the image, z forward. `Xc = R Xw + t`.

use nalgebra::{Matrix3, Point3, Vector3};
use serde::{Deserialize, Serialize};

/// CAMERA.json: `{"fx","fy","cx","cy","dist":[k1,k2,p1,p2,k3]}` as OpenCV's
/// `calibrateCamera` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Intrinsics {
    pub fx: f64,
    pub fy: f64,
    pub cx: f64,
    pub cy: f64,
    #[serde(default)]
    pub dist: [f64; 5],
}

impl Intrinsics {
    /// A distortion-free camera with square pixels and the principal point at the
    /// image centre.
    pub fn ideal(f: f64, width: u32, height: u32) -> Self {
        Self {
            fx: f,
            fy: f,
            cx: f64::from(width) / 2.0,
            cy: f64::from(height) / 2.0,
            dist: [0.0; 5],
        }
    }

    /// Normalised (ideal) image coordinates to distorted ones.
    pub fn distort(&self, x: f64, y: f64) -> (f64, f64) {
        let [k1, k2, p1, p2, k3] = self.dist;
        let r2 = x * x + y * y;
        let radial = 1.0 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2;
        (
            x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x),
            y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y,
        )
    }

    /// The inverse of [`Intrinsics::distort`], by fixed-point iteration (OpenCV's
    /// `undistortPoints` does the same); converges in a few steps for webcam lenses.
    pub fn undistort(&self, xd: f64, yd: f64) -> (f64, f64) {
        if self.dist == [0.0; 5] {
            return (xd, yd);
        }
        let (mut x, mut y) = (xd, yd);
        for _ in 0..20 {
            let (dx, dy) = self.distort(x, y);
            x -= dx - xd;
            y -= dy - yd;
        }
        (x, y)
    }

    /// Pixel to ideal normalised coordinates (undistorted).
    pub fn pixel_to_normalized(&self, u: f64, v: f64) -> (f64, f64) {
        self.undistort((u - self.cx) / self.fx, (v - self.cy) / self.fy)
    }

    /// Ideal normalised coordinates to a pixel (with distortion).
    pub fn normalized_to_pixel(&self, x: f64, y: f64) -> (f64, f64) {
        let (xd, yd) = self.distort(x, y);
        (self.fx * xd + self.cx, self.fy * yd + self.cy)
    }

    /// The undistorted pixel: where an ideal lens would have put this pixel.
    pub fn undistort_pixel(&self, u: f64, v: f64) -> (f64, f64) {
        let (x, y) = self.pixel_to_normalized(u, v);
        (self.fx * x + self.cx, self.fy * y + self.cy)
    }

    pub fn matrix(&self) -> Matrix3<f64> {
        Matrix3::new(self.fx, 0.0, self.cx, 0.0, self.fy, self.cy, 0.0, 0.0, 1.0)
    }
}

/// A camera looking at the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PinholeCamera {
    pub intrinsics: Intrinsics,
    /// World to camera rotation.
    pub r: Matrix3<f64>,
    pub t: Vector3<f64>,
}

impl PinholeCamera {
    /// A camera at `eye` looking at `target`, the image's "down" as near to `down` as the
    /// view allows.
    pub fn look_at(
        intrinsics: Intrinsics,
        eye: Point3<f64>,
        target: Point3<f64>,
        down: Vector3<f64>,
    ) -> Self {
        let forward = (target - eye).normalize();
        let right = down.cross(&forward).normalize();
        let down = forward.cross(&right);
        let r = Matrix3::from_rows(&[right.transpose(), down.transpose(), forward.transpose()]);
        let t = -(r * eye.coords);
        Self { intrinsics, r, t }
    }

    /// Where the camera is, in map inches (z negative: above the map).
    pub fn centre(&self) -> Point3<f64> {
        Point3::from(-(self.r.transpose() * self.t))
    }

    /// The pixel a world point lands on; `None` behind the camera.
    pub fn project(&self, p: Point3<f64>) -> Option<(f64, f64)> {
        let c = self.r * p.coords + self.t;
        (c.z > 1e-9).then(|| self.intrinsics.normalized_to_pixel(c.x / c.z, c.y / c.z))
    }

    /// The ray through a pixel: from the camera centre, a unit direction in the world.
    pub fn ray(&self, u: f64, v: f64) -> (Point3<f64>, Vector3<f64>) {
        let (x, y) = self.intrinsics.pixel_to_normalized(u, v);
        let dir = self.r.transpose() * Vector3::new(x, y, 1.0);
        (self.centre(), dir.normalize())
    }

    /// Where the ray through a pixel meets the plane `h` inches above the map.
    pub fn on_plane(&self, u: f64, v: f64, h: f64) -> Option<(f64, f64)> {
        let (o, d) = self.ray(u, v);
        let z = -h;
        (d.z.abs() > 1e-12).then(|| {
            let s = (z - o.z) / d.z;
            (o.x + s * d.x, o.y + s * d.y)
        })
    }
}
