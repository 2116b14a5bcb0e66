//! OpenCV, behind the `opencv` cargo feature: the camera's lens from several photos of the
//! corner cards (`calibrateCamera`), and the plain OpenCV detector `aide bench vision`
//! measures ours against.
//!
//! The calibration target is what every table already has: the four corner cards, whose
//! twenty tag points (centres and corners) lie at known places on a plane. Photos taken
//! from different heights, offsets and tilts pin down the focal length, the principal
//! point and the radial distortion. Twenty points per photo is sparse for tangential and
//! sixth-order terms, so those are held at zero (`CALIB_ZERO_TANGENT_DIST`,
//! `CALIB_FIX_K3`): webcam lenses are described well by k1 and k2.

use opencv::calib3d;
use opencv::core::{Mat, Point2f, Point3f, Size, TermCriteria, TermCriteria_Type, Vector};
use opencv::prelude::*;

use super::Intrinsics;
use super::calib::PlanePoints;

/// What a calibration found.
#[derive(Debug, Clone, Copy)]
pub struct LensCalibration {
    pub intrinsics: Intrinsics,
    /// Root mean square reprojection error over every point of every view, in pixels.
    pub rms_px: f64,
}

/// Why a calibration failed.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    #[error("{0} usable photos: calibration needs at least 3, taken from different angles")]
    TooFewViews(usize),
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// Calibrate a camera from views of points on a plane: each view's map positions (inches,
/// z = 0) and where the photo shows them (pixels as seen, distortion and all).
pub fn calibrate_lens(
    views: &[PlanePoints],
    width: u32,
    height: u32,
) -> Result<LensCalibration, CalibrationError> {
    if views.len() < 3 {
        return Err(CalibrationError::TooFewViews(views.len()));
    }
    let mut object: Vector<Vector<Point3f>> = Vector::new();
    let mut image: Vector<Vector<Point2f>> = Vector::new();
    for (map, px) in views {
        object.push(
            map.iter()
                .map(|p| Point3f::new(p[0] as f32, p[1] as f32, 0.0))
                .collect(),
        );
        image.push(
            px.iter()
                .map(|p| Point2f::new(p[0] as f32, p[1] as f32))
                .collect(),
        );
    }
    let mut camera = Mat::default();
    let mut dist = Mat::default();
    let mut rvecs: Vector<Mat> = Vector::new();
    let mut tvecs: Vector<Mat> = Vector::new();
    let criteria = TermCriteria::new(
        TermCriteria_Type::COUNT as i32 + TermCriteria_Type::EPS as i32,
        200,
        1e-12,
    )?;
    let rms = calib3d::calibrate_camera(
        &object,
        &image,
        Size::new(width as i32, height as i32),
        &mut camera,
        &mut dist,
        &mut rvecs,
        &mut tvecs,
        calib3d::CALIB_ZERO_TANGENT_DIST | calib3d::CALIB_FIX_K3,
        criteria,
    )?;
    let k = |r: i32, c: i32| camera.at_2d::<f64>(r, c).copied();
    let d = |i: i32| dist.at::<f64>(i).copied();
    Ok(LensCalibration {
        intrinsics: Intrinsics {
            fx: k(0, 0)?,
            fy: k(1, 1)?,
            cx: k(0, 2)?,
            cy: k(1, 2)?,
            dist: [d(0)?, d(1)?, d(2)?, d(3)?, d(4)?],
        },
        rms_px: rms,
    })
}
