//! Where frames come from: a webcam, a network camera (MJPEG over HTTP, H.264 over
//! RTSP), a video file, a folder of recorded frames, or the synthetic demo.
//!
//! Every source is a [`FrameSource`]: ask it for the next frame, get an RGB image with a
//! timestamp, or an error that says whether to try again ([`CaptureError::Lost`]: the
//! camera was unplugged, a frame failed to decode) or to stop. Sources pace themselves:
//! a replay hands out frames at its set rate, a camera at the rate it runs, so the
//! pipeline thread simply loops on `next_frame`.

#[cfg(feature = "camera")]
pub mod camera;
pub mod h264;
pub mod loopback;
pub mod mjpeg;
pub mod newest;
pub mod replay;
pub mod rtsp;
pub mod serve_mjpeg;
pub mod serve_rtsp;
pub mod video;

use image::RgbImage;
use serde::Serialize;

use crate::journal::Millis;

/// One frame from a source.
#[derive(Debug, Clone)]
pub struct Frame {
    pub image: RgbImage,
    /// When the frame was taken (wall clock, ms since the Unix epoch); a replay stamps
    /// frames as it hands them out.
    pub ts_ms: Millis,
    /// Counts frames from 0 since the source opened.
    pub index: u64,
}

/// What kind of source, for the page's status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    Camera,
    Replay,
    Synthetic,
}

/// Why a source gave no frame.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// Gone for now (camera unplugged, a bad frame): the source tries again on the next
    /// call, and the service says so on the page meanwhile.
    #[error("{0}")]
    Lost(String),
    /// The source cannot run at all (no such camera, no frames in the folder).
    #[error("{0}")]
    Unavailable(String),
}

/// A stream of frames. Not `Send`: a webcam handle must stay on the thread that opened
/// it, so the capture thread opens its source itself and keeps it.
pub trait FrameSource {
    /// The next frame, waiting for it if need be.
    fn next_frame(&mut self) -> Result<Frame, CaptureError>;

    fn kind(&self) -> SourceKind;

    /// Where the frames come from, for a person: "camera 0 (HD Webcam)", a folder.
    fn describe(&self) -> String;

    /// Hold the camera's exposure, white balance and focus as they are now, where it
    /// allows; one line per control saying whether it took. Sources with nothing to
    /// lock (a stream, a file) say nothing.
    fn lock_controls(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// What `--camera` names: a webcam's number, a network stream's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CameraSpec {
    /// Webcam N (cargo feature `camera`).
    Webcam(u32),
    /// `http://…`: an MJPEG stream.
    Mjpeg(String),
    /// `rtsp://…`: an H.264 stream.
    Rtsp(String),
    /// A recorded game: H.264 video in an MP4 file.
    Video(std::path::PathBuf),
}

impl std::str::FromStr for CameraSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Ok(n) = text.parse() {
            return Ok(Self::Webcam(n));
        }
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("http://") {
            return Ok(Self::Mjpeg(text.to_owned()));
        }
        if lower.starts_with("rtsp://") {
            return Ok(Self::Rtsp(text.to_owned()));
        }
        if [".mp4", ".m4v", ".mov"]
            .iter()
            .any(|ext| lower.ends_with(ext))
        {
            return Ok(Self::Video(text.into()));
        }
        if lower.starts_with("https://") {
            return Err(format!(
                "{text}: https is not read; phone camera apps serve their stream on \
                 http:// on the local network"
            ));
        }
        Err(format!(
            "{text}: give a webcam's number (0 is the first), a stream's address \
             (http://PHONE:8080/video, rtsp://CAMERA:554/stream) or a video file (.mp4)"
        ))
    }
}

impl CameraSpec {
    /// Open the camera: an error says what is wrong with it for the person starting the
    /// service. Must be called on the thread that will read it (a webcam handle stays
    /// on its thread).
    pub fn open(&self, options: CameraOptions) -> Result<Box<dyn FrameSource>, CaptureError> {
        let webcam = options.webcam;
        match self {
            Self::Mjpeg(url) => Ok(Box::new(mjpeg::MjpegStream::open(url)?)),
            Self::Rtsp(url) => Ok(Box::new(rtsp::RtspStream::open(url)?)),
            Self::Video(path) => Ok(Box::new(video::VideoFile::open(path, options.pace)?)),
            #[cfg(feature = "camera")]
            Self::Webcam(device) => Ok(Box::new(camera::Webcam::open(camera::WebcamSettings {
                device: *device,
                mode: webcam,
            })?)),
            #[cfg(not(feature = "camera"))]
            Self::Webcam(device) => {
                let _ = webcam;
                Err(CaptureError::Unavailable(format!(
                    "camera {device}: this build reads no webcam; build it with \
                     `cargo build --release --features camera` (needs libclang), or give \
                     a stream's address"
                )))
            }
        }
    }
}

/// How to run what `--camera` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CameraOptions {
    pub webcam: WebcamMode,
    pub pace: video::Pace,
}

/// The resolution and rate to ask a webcam for (it gives the nearest it offers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebcamMode {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
}

impl Default for WebcamMode {
    /// 1080p at 30 frames a second over MJPEG: what a good USB webcam gives.
    fn default() -> Self {
        Self {
            width: 1920,
            height: 1080,
            fps: 30,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CameraSpec;

    #[test]
    fn a_camera_is_a_number_an_address_or_a_video_and_anything_else_says_what_to_give() {
        let spec = |s: &str| s.parse::<CameraSpec>();
        assert_eq!(spec("0"), Ok(CameraSpec::Webcam(0)));
        assert_eq!(
            spec("http://10.0.0.5:8080/video"),
            Ok(CameraSpec::Mjpeg("http://10.0.0.5:8080/video".into()))
        );
        assert_eq!(
            spec("games/Club.MP4"),
            Ok(CameraSpec::Video("games/Club.MP4".into()))
        );
        assert_eq!(
            spec("RTSP://phone:8554/h264"),
            Ok(CameraSpec::Rtsp("RTSP://phone:8554/h264".into()))
        );
        assert!(
            spec("https://phone/video")
                .unwrap_err()
                .contains("https is not read")
        );
        assert!(
            spec("webcam")
                .unwrap_err()
                .contains("give a webcam's number")
        );
    }
}
