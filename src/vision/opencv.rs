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

/// Lowest and highest HSV of a paint, in OpenCV's ranges.
type HsvRange = ([f64; 3], [f64; 3]);

/// Pixels per map inch of the plain detector's warped map (as ours).
const PLAIN_PX_PER_IN: f64 = 20.0;

/// The plain OpenCV detector `aide bench vision` measures ours against, as a competent
/// OpenCV user would first write it: warp the frame onto the map plane with the corner
/// tags' four map corners (`getPerspectiveTransform`, `warpPerspective`), threshold each
/// paint in HSV (`inRange`), take outer contours (`findContours`) and their rotated
/// rectangles (`minAreaRect`). A rectangle's centre is the piece's; its size tells a
/// block from a cube and fresh from spent. No parallax correction, no facing band, no
/// lens model beyond the tags': the yardstick, not a rival.
pub fn plain_detect(
    image: &image::RgbImage,
    calibration: &super::Calibration,
) -> Result<Vec<super::DetectedPiece>, opencv::Error> {
    use opencv::core::{self as cv, Point2f as P};
    use opencv::imgproc;

    let (w, h) = (image.width() as i32, image.height() as i32);
    let mut frame = Mat::new_rows_cols_with_default(h, w, cv::CV_8UC3, cv::Scalar::all(0.0))?;
    frame.data_bytes_mut()?.copy_from_slice(image.as_raw());
    let (map_w, map_h) = (calibration.map_w_in, calibration.map_h_in);
    let seen = |x: f64, y: f64| {
        calibration
            .camera
            .project(nalgebra::Point3::new(x, y, 0.0))
            .map(|(u, v)| P::new(u as f32, v as f32))
            .ok_or_else(|| opencv::Error::new(cv::StsError, "the map is behind the camera"))
    };
    let from: Vector<P> = Vector::from_iter([
        seen(0.0, 0.0)?,
        seen(map_w, 0.0)?,
        seen(map_w, map_h)?,
        seen(0.0, map_h)?,
    ]);
    let (out_w, out_h) = (
        (map_w * PLAIN_PX_PER_IN) as f32,
        (map_h * PLAIN_PX_PER_IN) as f32,
    );
    let to: Vector<P> = Vector::from_iter([
        P::new(0.0, 0.0),
        P::new(out_w, 0.0),
        P::new(out_w, out_h),
        P::new(0.0, out_h),
    ]);
    let warp = imgproc::get_perspective_transform(&from, &to, cv::DECOMP_LU)?;
    let mut map = Mat::default();
    imgproc::warp_perspective(
        &frame,
        &mut map,
        &warp,
        Size::new(out_w as i32, out_h as i32),
        imgproc::INTER_LINEAR,
        cv::BORDER_CONSTANT,
        cv::Scalar::all(0.0),
    )?;
    let mut hsv = Mat::default();
    imgproc::cvt_color_def(&map, &mut hsv, imgproc::COLOR_RGB2HSV)?;
    // Hue in OpenCV's 0-180; red wraps around 0.
    let paints: [(&str, &[HsvRange]); 2] = [
        (
            "red",
            &[
                ([0.0, 110.0, 60.0], [10.0, 255.0, 255.0]),
                ([170.0, 110.0, 60.0], [180.0, 255.0, 255.0]),
            ],
        ),
        ("blue", &[([100.0, 110.0, 40.0], [130.0, 255.0, 255.0])]),
    ];
    let mut pieces = Vec::new();
    for (colour, ranges) in paints {
        let mut mask = Mat::default();
        for (lo, hi) in ranges {
            let mut part = Mat::default();
            cv::in_range(
                &hsv,
                &cv::Scalar::new(lo[0], lo[1], lo[2], 0.0),
                &cv::Scalar::new(hi[0], hi[1], hi[2], 0.0),
                &mut part,
            )?;
            if mask.empty() {
                mask = part;
            } else {
                let mut both = Mat::default();
                cv::bitwise_or_def(&mask, &part, &mut both)?;
                mask = both;
            }
        }
        let mut contours: Vector<Vector<cv::Point>> = Vector::new();
        imgproc::find_contours_def(
            &mask,
            &mut contours,
            imgproc::RETR_EXTERNAL,
            imgproc::CHAIN_APPROX_SIMPLE,
        )?;
        for contour in contours {
            let rect = imgproc::min_area_rect(&contour)?;
            let (a, b) = (
                f64::from(rect.size.width) / PLAIN_PX_PER_IN,
                f64::from(rect.size.height) / PLAIN_PX_PER_IN,
            );
            let (long, short) = (a.max(b), a.min(b));
            // Smaller than a quarter of a cube's face: noise.
            if long < 0.2 || short < 0.2 {
                continue;
            }
            let block = long > 1.0;
            // The long axis's direction; a block faces across it, which way is unknown.
            let along = if a >= b {
                f64::from(rect.angle)
            } else {
                f64::from(rect.angle) + 90.0
            };
            pieces.push(super::DetectedPiece {
                kind: if block { "block" } else { "hq" }.into(),
                color: colour.into(),
                x_in: f64::from(rect.center.x) / PLAIN_PX_PER_IN,
                y_in: f64::from(rect.center.y) / PLAIN_PX_PER_IN,
                heading_deg: (along + 270.0).rem_euclid(360.0),
                status: if block && short > 0.56 {
                    crate::table::Status::Spent
                } else {
                    crate::table::Status::Fresh
                },
                facing: super::Facing::Unknown,
                length_in: long,
                width_in: short,
                confidence: 1.0,
            });
        }
    }
    Ok(pieces)
}
