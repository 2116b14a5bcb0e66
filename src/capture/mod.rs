//! Where frames come from: a webcam, a folder of recorded frames, or the synthetic demo.
//!
//! Every source is a [`FrameSource`]: ask it for the next frame, get an RGB image with a
//! timestamp, or an error that says whether to try again ([`CaptureError::Lost`]: the
//! camera was unplugged, a frame failed to decode) or to stop. Sources pace themselves:
//! a replay hands out frames at its set rate, a camera at the rate it runs, so the
//! pipeline thread simply loops on `next_frame`.

#[cfg(feature = "camera")]
pub mod camera;
pub mod replay;

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
}
