//! The webcam, through nokhwa (cargo feature `camera`; needs libclang to build).
//!
//! A webcam on a stand at a pub table gets knocked, unplugged and plugged back in, and a
//! V4L2 driver queues a few frames of its own, which a detector slower than the camera
//! would read ever later. So the webcam is read as the network cameras are
//! ([`Grabbed`]): a grabber thread opens it (a nokhwa handle stays on the thread that
//! opened it), reads every frame as it comes and keeps the newest, still compressed; the
//! pipeline decodes only the one it takes. When a frame cannot be read the grabber drops
//! the device, the page says "lost", and it opens the camera again with back-off, so the
//! service carries on by itself when the cable is back. A camera opened again has its
//! automatic exposure, white balance and focus back on: once they were locked, the
//! grabber locks them again after each reopen.
//!
//! None of this can be tested without a webcam: the tests run the same [`Grabbed`] with
//! network streams (tests/capture_stream.rs).

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{
    ApiBackend, CameraFormat, CameraIndex, ControlValueSetter, FrameFormat, KnownCameraControl,
    RequestedFormat, RequestedFormatType, Resolution,
};
use nokhwa::{Buffer, Camera};

use super::newest::Grabbed;
use super::{CaptureError, Frame, FrameSource, SourceKind, WebcamMode};
use crate::journal::{Millis, now_ms};

/// How long [`Webcam::lock_controls`] waits for the grabber to lock them.
const LOCK_WAIT: Duration = Duration::from_secs(2);
/// Frames a reopened camera runs on its automatic modes before they are locked again:
/// about a second, for its exposure to settle on the table.
const SETTLE_FRAMES: u64 = 30;

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

/// The lock the pipeline asked for, done on the grabber thread (which owns the camera).
#[derive(Default)]
struct Locking {
    state: Mutex<LockState>,
    done: Condvar,
}

#[derive(Default)]
struct LockState {
    /// The pipeline asked for the controls to be held (and so after every reopen).
    wanted: bool,
    /// What the camera said at the last lock, since it was opened; `None` until then.
    notes: Option<Vec<String>>,
}

impl LockState {
    /// Whether to lock now, `frames` into this opening of the camera: at once the first
    /// time (the pipeline asks once the picture is right), after [`SETTLE_FRAMES`] when
    /// the camera was opened again.
    fn due(&self, reopened: bool, frames: u64) -> bool {
        self.wanted && self.notes.is_none() && (!reopened || frames >= SETTLE_FRAMES)
    }
}

/// A webcam that reopens itself.
pub struct Webcam {
    settings: WebcamSettings,
    name: Arc<Mutex<String>>,
    grabbed: Grabbed<(Buffer, Millis)>,
    locking: Arc<Locking>,
    index: u64,
}

impl Webcam {
    /// Open the camera and wait for its first frame: an error here (no such device, no
    /// permission) is for the person starting the service. Losses after that are
    /// handled by the grabber.
    pub fn open(settings: WebcamSettings) -> Result<Self, CaptureError> {
        let name = Arc::new(Mutex::new(String::new()));
        let locking = Arc::new(Locking::default());
        let grabbed = {
            let (name, locking) = (name.clone(), locking.clone());
            Grabbed::start(
                &format!("camera {}", settings.device),
                "aide-webcam",
                move |slot, frames| {
                    let mut camera = open_camera(settings)?;
                    tracing::info!(device = settings.device, format = %camera.camera_format(), "camera open");
                    *name.lock().expect("name lock") = camera.info().human_name();
                    // Opened again: its automatic modes are back on.
                    let reopened = locking
                        .state
                        .lock()
                        .expect("lock state")
                        .notes
                        .take()
                        .is_some();
                    while !slot.is_closed() {
                        let buffer = camera
                            .frame()
                            .map_err(|e| format!("camera {} lost: {e}", settings.device))?;
                        *frames += 1;
                        slot.put((buffer, now_ms()));
                        locking.lock_if_due(&mut camera, reopened, *frames);
                    }
                    Ok(())
                },
            )?
        };
        Ok(Self {
            settings,
            name,
            grabbed,
            locking,
            index: 0,
        })
    }
}

impl Locking {
    /// On the grabber thread, after a frame: lock the controls if the pipeline wants
    /// them held and this opening of the camera has not yet (see [`LockState::due`]).
    fn lock_if_due(&self, camera: &mut Camera, reopened: bool, frames: u64) {
        let mut state = self.state.lock().expect("lock state");
        if !state.due(reopened, frames) {
            return;
        }
        let notes = lock(camera);
        for note in &notes {
            tracing::info!(%note, "camera controls");
        }
        state.notes = Some(notes);
        self.done.notify_all();
    }
}

impl FrameSource for Webcam {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        let (buffer, ts_ms) = self.grabbed.take()?;
        let image = buffer.decode_image::<RgbFormat>().map_err(|e| {
            CaptureError::Lost(format!(
                "camera {}: a frame would not decode: {e}",
                self.settings.device
            ))
        })?;
        let frame = Frame {
            image,
            ts_ms,
            index: self.index,
        };
        self.index += 1;
        Ok(frame)
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Camera
    }

    fn describe(&self) -> String {
        format!(
            "camera {} ({})",
            self.settings.device,
            self.name.lock().expect("name lock")
        )
    }

    /// Asks the grabber to hold the controls (now, and after every reopen) and waits
    /// for what the camera said.
    fn lock_controls(&mut self) -> Vec<String> {
        let mut state = self.locking.state.lock().expect("lock state");
        state.wanted = true;
        let (state, _) = self
            .locking
            .done
            .wait_timeout_while(state, LOCK_WAIT, |s| s.notes.is_none())
            .expect("lock state");
        state.notes.clone().unwrap_or_else(|| {
            vec![format!(
                "controls not locked yet: no frame from the camera within {} s; they will \
                 be once it sends one",
                LOCK_WAIT.as_secs()
            )]
        })
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

#[cfg(test)]
mod tests {
    use super::{LockState, SETTLE_FRAMES};

    #[test]
    fn controls_lock_when_asked_and_again_a_second_after_a_reopen() {
        let mut state = LockState::default();
        assert!(!state.due(false, 1), "not asked");
        state.wanted = true;
        assert!(state.due(false, 1), "asked: at once");
        assert!(!state.due(true, SETTLE_FRAMES - 1), "reopened: settling");
        assert!(state.due(true, SETTLE_FRAMES));
        state.notes = Some(Vec::new());
        assert!(!state.due(true, SETTLE_FRAMES), "done for this opening");
    }
}
