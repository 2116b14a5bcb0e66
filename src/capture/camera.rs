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
    ApiBackend, CameraFormat, CameraIndex, FrameFormat, RequestedFormat, RequestedFormatType,
    Resolution,
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
}

/// The cameras the operating system lists (none on a machine without /dev/video*).
pub fn list() -> Result<Vec<CameraListing>, CaptureError> {
    let cameras = nokhwa::query(ApiBackend::Auto)
        .map_err(|e| CaptureError::Unavailable(format!("listing cameras: {e}")))?;
    Ok(cameras
        .into_iter()
        .map(|c| CameraListing {
            device: c.index().to_string(),
            name: c.human_name(),
            description: c.description().to_owned(),
        })
        .collect())
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
