//! The webcam, through nokhwa (cargo feature `camera`; needs libclang to build).
//!
//! A webcam on a stand at a pub table gets knocked, unplugged and plugged back in. The
//! [`Webcam`] source never gives up: when a frame cannot be read it drops the device,
//! answers [`CaptureError::Lost`], and on later calls opens it again, at most once a
//! second, so the page says "camera lost" and the service carries on by itself when the
//! cable is back.

use std::time::{Duration, Instant};

use nokhwa::Camera;
use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{
    ApiBackend, CameraFormat, CameraIndex, ControlValueSetter, FrameFormat, KnownCameraControl,
    RequestedFormat, RequestedFormatType, Resolution,
};

use super::{CaptureError, Frame, FrameSource, SourceKind, WebcamMode};
use crate::journal::now_ms;

/// How long to wait between attempts to open a lost camera.
const REOPEN_EVERY: Duration = Duration::from_secs(1);

/// Which camera and how it should run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WebcamSettings {
    /// The device index (0 is /dev/video0 on Linux).
    pub device: u32,
    pub mode: WebcamMode,
}

/// A camera the operating system lists.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CameraListing {
    pub device: String,
    pub name: String,
    pub description: String,
    /// What it can send: "1920x1080 MJPEG 30 fps", best first; empty when it could not
    /// be opened to ask (in use by another program), with the reason in `error`.
    pub modes: Vec<String>,
    pub error: Option<String>,
}

/// The cameras the operating system lists (none on a machine without /dev/video*), each
/// with its modes.
pub fn list() -> Result<Vec<CameraListing>, CaptureError> {
    let cameras = nokhwa::query(ApiBackend::Auto)
        .map_err(|e| CaptureError::Unavailable(format!("listing cameras: {e}")))?;
    Ok(cameras
        .into_iter()
        .map(|c| {
            let modes = Camera::new(
                c.index().clone(),
                RequestedFormat::new::<RgbFormat>(RequestedFormatType::None),
            )
            .and_then(|mut camera| camera.compatible_camera_formats());
            let (modes, error) = match modes {
                Ok(mut formats) => {
                    formats.sort_by_key(|f| {
                        std::cmp::Reverse((f.width() * f.height(), f.frame_rate()))
                    });
                    let modes = formats
                        .iter()
                        .map(|f| {
                            format!(
                                "{}x{} {} {} fps",
                                f.width(),
                                f.height(),
                                f.format(),
                                f.frame_rate()
                            )
                        })
                        .collect();
                    (modes, None)
                }
                Err(e) => (Vec::new(), Some(e.to_string())),
            };
            CameraListing {
                device: c.index().to_string(),
                name: c.human_name(),
                description: c.description().to_owned(),
                modes,
                error,
            }
        })
        .collect())
}

/// V4L2's switches for a webcam's automatic modes (linux/v4l2-controls.h):
/// `exposure_auto` (a menu: 1 is manual), `white_balance_temperature_auto` and
/// `focus_auto` (booleans).
const V4L2_EXPOSURE_AUTO: u128 = 0x009a_0901;
const V4L2_AUTO_WHITE_BALANCE: u128 = 0x0098_090c;
const V4L2_FOCUS_AUTO: u128 = 0x009a_090c;

/// Hold exposure, white balance and focus where the automatic modes have put them: a
/// hand entering the frame then no longer shifts every colour. Call it once the picture
/// is right (the corner cards found). Says, per control, whether the camera took it.
fn lock(camera: &mut Camera) -> Vec<String> {
    [
        (
            "exposure",
            V4L2_EXPOSURE_AUTO,
            ControlValueSetter::Integer(1),
            KnownCameraControl::Exposure,
        ),
        (
            "white balance",
            V4L2_AUTO_WHITE_BALANCE,
            ControlValueSetter::Boolean(false),
            KnownCameraControl::WhiteBalance,
        ),
        (
            "focus",
            V4L2_FOCUS_AUTO,
            ControlValueSetter::Boolean(false),
            KnownCameraControl::Focus,
        ),
    ]
    .into_iter()
    .map(|(name, switch, manual, control)| {
        // The value the automatic mode settled on, read before it is switched off.
        let held = camera.camera_control(control).map(|c| c.value());
        let done = camera
            .set_camera_control(KnownCameraControl::Other(switch), manual)
            .and_then(|()| held.and_then(|value| camera.set_camera_control(control, value)));
        match done {
            Ok(()) => format!("{name} locked"),
            Err(e) => format!("{name} not locked: the camera refused ({e})"),
        }
    })
    .collect()
}

/// A webcam that reopens itself.
pub struct Webcam {
    settings: WebcamSettings,
    camera: Option<Camera>,
    name: String,
    last_attempt: Instant,
    index: u64,
}

impl Webcam {
    /// Open the camera now: an error here (no such device, no permission) is for the
    /// person starting the service. Losses after that are handled by `next_frame`.
    pub fn open(settings: WebcamSettings) -> Result<Self, CaptureError> {
        let camera = open_camera(settings).map_err(CaptureError::Unavailable)?;
        let format = camera.camera_format();
        tracing::info!(device = settings.device, format = %format, "camera open");
        Ok(Self {
            name: camera.info().human_name(),
            settings,
            camera: Some(camera),
            last_attempt: Instant::now(),
            index: 0,
        })
    }
}

impl FrameSource for Webcam {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        if self.camera.is_none() {
            let wait = REOPEN_EVERY.saturating_sub(self.last_attempt.elapsed());
            std::thread::sleep(wait);
            self.last_attempt = Instant::now();
            let camera = open_camera(self.settings).map_err(CaptureError::Lost)?;
            tracing::info!(device = self.settings.device, "camera back");
            self.camera = Some(camera);
        }
        let camera = self.camera.as_mut().expect("opened above");
        match camera.frame().and_then(|b| b.decode_image::<RgbFormat>()) {
            Ok(image) => {
                let frame = Frame {
                    image,
                    ts_ms: now_ms(),
                    index: self.index,
                };
                self.index += 1;
                Ok(frame)
            }
            Err(e) => {
                tracing::warn!(device = self.settings.device, error = %e, "camera lost");
                self.camera = None;
                self.last_attempt = Instant::now();
                Err(CaptureError::Lost(format!(
                    "camera {} lost: {e}",
                    self.settings.device
                )))
            }
        }
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Camera
    }

    fn describe(&self) -> String {
        format!("camera {} ({})", self.settings.device, self.name)
    }

    fn lock_controls(&mut self) -> Vec<String> {
        self.camera.as_mut().map(lock).unwrap_or_default()
    }
}

fn open_camera(s: WebcamSettings) -> Result<Camera, String> {
    let wanted = CameraFormat::new(
        Resolution::new(s.mode.width, s.mode.height),
        FrameFormat::MJPEG,
        s.mode.fps,
    );
    let format = RequestedFormat::new::<RgbFormat>(RequestedFormatType::Closest(wanted));
    let mut camera = Camera::new(CameraIndex::Index(s.device), format)
        .map_err(|e| format!("camera {}: {e}", s.device))?;
    camera
        .open_stream()
        .map_err(|e| format!("camera {}: {e}", s.device))?;
    Ok(camera)
}
