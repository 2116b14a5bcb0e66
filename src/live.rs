//! The live pipeline: frames from a source, what the detector makes of them, the tracker,
//! and every stable table out to the server's feed.
//!
//! It runs on the feed thread (see [`web::feed`](crate::web::feed)): capture, detection
//! and tracking are blocking, CPU-bound work that must stay off the async runtime. The
//! source is opened on that thread too, because a webcam handle cannot move between
//! threads; whether it opened is sent back so `aide serve` can refuse to start with a
//! clear error ("camera 0: no such device") instead of serving an empty table.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::capture::{self, CaptureError, FrameSource, SourceKind};
use crate::journal::{JournalError, Recorder, now_ms};
use crate::scenario::Scenario;
use crate::table::{Pose, Status, TableState};
use crate::track::{AssignError, Event, Identification, Restored};
use crate::track::{Observation, Tracker, TrackerConfig};
use crate::vision::MapPicture;
use crate::web::feed::{Feed, Identify, Keep, NotCorrected, Publisher, Source};

/// How long the detector may fail to read the table (tags hidden or out of view) before
/// the page says the camera is lost rather than that a hand is over the table.
const LOST_AFTER: Duration = Duration::from_secs(5);

/// What the detector makes of a frame.
pub trait Observer: Send {
    /// The pieces seen and how disturbed the view is; an error when the frame cannot be
    /// read at all (the corner tags are not in view).
    fn observe(&mut self, frame: &capture::Frame) -> Result<Observation, String>;

    /// The camera's picture of the map in `frame`, undistorted and cropped to it: the
    /// evidence of the table the tracker commits on this frame. `None` when the
    /// observer does not know where the map lies in the frame (no calibration yet).
    fn picture(&self, frame: &capture::Frame) -> Option<MapPicture>;

    /// The tracker settled on a new table from this frame (one the observer just
    /// observed): an observer that learns the empty map learns it where no piece stands.
    fn settled(&mut self, _frame: &capture::Frame, _table: &TableState) {}

    /// The feed stops (the server is stopping): an observer that keeps what it learnt
    /// writes it now.
    fn stopped(&mut self) {}
}

/// The tracker of a watched table, carrying on where the journal left it: from its last
/// stable state when it holds one (a restart; `start`, a state file or nothing, is where
/// the game began), with the vetoes still in force and the pieces held by hand rebuilt
/// from its events (see [`Tracker::restore`]). Returns the tracker, the table it starts
/// from (the feed's first), and what was rebuilt.
pub fn resume_tracker(
    scenario: &Arc<Scenario>,
    config: TrackerConfig,
    start: Option<TableState>,
    recorder: Option<&mut Recorder>,
) -> Result<(Tracker, Option<TableState>, Restored), JournalError> {
    let (start, journaled) = match recorder {
        Some(r) => {
            let journaled: Vec<Event> = r
                .journal()
                .events_after(None)?
                .into_iter()
                .map(|e| e.event)
                .collect();
            (r.last().cloned().or(start), journaled)
        }
        None => (start, Vec::new()),
    };
    let mut tracker = match &start {
        Some(table) => Tracker::resume(scenario.clone(), config, table.clone()),
        None => Tracker::new(scenario.clone(), config),
    };
    let restored = tracker.restore(&journaled);
    Ok((tracker, start, restored))
}

/// Opens the frame source on the feed thread.
pub type Opener = Box<dyn FnOnce() -> Result<Box<dyn FrameSource>, CaptureError> + Send>;

/// A feed driven by a frame source through the detector and the tracker.
pub struct CameraFeed {
    pub open: Opener,
    pub observer: Box<dyn Observer>,
    /// Shared with the server's [`Namer`], so a person can name a piece at once.
    pub tracker: Arc<Mutex<Tracker>>,
    /// Told once whether the source opened, with what it is ("camera 0 (HD Webcam)").
    pub opened: mpsc::Sender<Result<String, CaptureError>>,
    /// How old each frame was when the tracker had its detection: what a player waits
    /// for. Shared so `aide bench stream` and the tests can read it.
    pub ages: Arc<FrameAges>,
    /// The newest frame and the camera's controls, for the page's camera check.
    pub tap: Arc<CameraTap>,
}

impl Feed for CameraFeed {
    fn run(self: Box<Self>, publisher: Publisher) {
        let CameraFeed {
            open,
            mut observer,
            tracker,
            opened,
            ages,
            tap,
        } = *self;
        let mut source = match open() {
            Ok(source) => {
                let _ = opened.send(Ok(source.describe()));
                source
            }
            Err(e) => {
                let _ = opened.send(Err(e));
                return;
            }
        };
        let healthy = match source.kind() {
            SourceKind::Camera => Source::Camera,
            SourceKind::Replay => Source::Replay,
            SourceKind::Synthetic => Source::Synthetic,
        };
        let mut rate = FrameRate::default();
        let mut unreadable_since: Option<Instant> = None;
        let mut locked = false;
        while !publisher.is_closed() {
            let frame = match source.next_frame() {
                Ok(frame) => frame,
                Err(CaptureError::Lost(why)) => {
                    tracing::warn!(%why, "no frame");
                    publisher.status(Source::Lost, 0.0);
                    // Sources pace their own retries; this only keeps a source that
                    // fails at once from spinning.
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
                Err(CaptureError::Unavailable(why)) => {
                    tracing::warn!(%why, "the frame source stopped");
                    publisher.status(Source::Lost, 0.0);
                    break;
                }
            };
            let fps = rate.tick();
            let observation = match observe(observer.as_mut(), &frame) {
                Ok(observation) => {
                    unreadable_since = None;
                    publisher.status(healthy, fps);
                    if !locked {
                        // The corner cards are in view and read: the picture is right.
                        locked = true;
                        let notes = source.lock_controls();
                        for note in &notes {
                            if note.contains("not locked") {
                                tracing::warn!(%note, "camera controls");
                            } else {
                                tracing::info!(%note, "camera controls");
                            }
                        }
                        *tap.controls.lock().expect("tap lock") = notes;
                    }
                    observation
                }
                Err(unreadable) => {
                    // For long, the camera has lost the table.
                    let since = *unreadable_since.get_or_insert_with(Instant::now);
                    let status = if since.elapsed() >= LOST_AFTER {
                        Source::Lost
                    } else {
                        healthy
                    };
                    publisher.status(status, fps);
                    unreadable
                }
            };
            // Publish under the lock, so a naming from the page and a commit reach the
            // server in the order the tracker made them.
            let mut tracker = tracker.lock().expect("tracker lock");
            let settled = tracker.push(&observation);
            if let Some(table) = &settled {
                // The frame the tracker committed on is a still table with no hand over
                // it: its picture is the evidence of this state, published with it.
                let picture = observer.picture(&frame).map(Arc::new);
                publisher.seen(table.clone(), tracker.take_corrections(), picture);
            }
            drop(tracker);
            // After the table is out: learning reads the whole map, a few milliseconds
            // no player need wait for.
            if let Some(table) = settled {
                observer.settled(&frame, &table);
            }
            ages.record(now_ms().saturating_sub(frame.ts_ms).max(0) as u64);
            *tap.frame.lock().expect("tap lock") = Some(Arc::new(frame));
        }
        // Keep the feed open until the server stops, so its last table stays served.
        while !publisher.is_closed() {
            std::thread::sleep(Duration::from_millis(200));
        }
        observer.stopped();
    }
}

/// What the detector makes of a frame, or, when it cannot read it, an observation of a
/// fully disturbed table (as the `Err`): most often a hand over a corner card, and the
/// tracker holds the last stable view meanwhile.
pub fn observe(
    observer: &mut dyn Observer,
    frame: &capture::Frame,
) -> Result<Observation, Observation> {
    observer.observe(frame).map_err(|why| {
        tracing::debug!(%why, "frame not read");
        Observation {
            ts_ms: frame.ts_ms,
            sightings: Vec::new(),
            disturbance: 1.0,
        }
    })
}

/// What the feed last saw, for the page's camera check (shared with the server): the
/// newest frame read, and what the camera said when its controls were held. Holding the
/// frame costs no copy: the feed is done with it.
#[derive(Default)]
pub struct CameraTap {
    frame: Mutex<Option<Arc<capture::Frame>>>,
    controls: Mutex<Vec<String>>,
    /// The lens the detector was given (`--camera-file`).
    pub intrinsics: Option<crate::vision::Intrinsics>,
}

impl CameraTap {
    pub fn new(intrinsics: Option<crate::vision::Intrinsics>) -> Self {
        Self {
            intrinsics,
            ..Self::default()
        }
    }

    /// The newest frame read, if any yet.
    pub fn frame(&self) -> Option<Arc<capture::Frame>> {
        self.frame.lock().expect("tap lock").clone()
    }

    /// Which of the camera's controls were held and which it refused (empty until the
    /// corner cards were first read, and for sources with none).
    pub fn controls(&self) -> Vec<String> {
        self.controls.lock().expect("tap lock").clone()
    }
}

/// Names pieces of the tracker a [`CameraFeed`] runs, for a person on the page: at once,
/// not at the next frame (a camera being reopened may not give one for a while).
pub struct Namer {
    pub tracker: Arc<Mutex<Tracker>>,
    pub publisher: Publisher,
}

impl Namer {
    /// Make one correction under the tracker's lock, as [`Identify`] says: tried on a copy
    /// of the tracker, kept by `keep`, and only then made and published. The feed waits
    /// on the lock meanwhile, so the journal sees this table before the camera's next.
    fn correct<T: Clone + Into<Event>>(
        &self,
        keep: Keep,
        f: impl FnOnce(&mut Tracker) -> Result<T, AssignError>,
    ) -> Result<T, NotCorrected> {
        let mut tracker = self.tracker.lock().expect("tracker lock");
        let mut tried = tracker.clone();
        let done = f(&mut tried)?;
        let table = tried.stable().expect("corrected on it").clone();
        keep(&done.clone().into(), &table)?;
        *tracker = tried;
        self.publisher.table(table);
        Ok(done)
    }
}

impl Identify for Namer {
    fn identify(
        &self,
        unit: &str,
        x_in: f64,
        y_in: f64,
        keep: Keep,
    ) -> Result<Identification, NotCorrected> {
        self.correct(keep, |t| t.assign(unit, x_in, y_in))
    }

    fn veto(&self, x_in: f64, y_in: f64, by: &str, keep: Keep) -> Result<Event, NotCorrected> {
        self.correct(keep, |t| t.veto(x_in, y_in, by))
    }

    fn place(
        &self,
        unit: &str,
        pose: Pose,
        status: Status,
        by: &str,
        keep: Keep,
    ) -> Result<Event, NotCorrected> {
        self.correct(keep, |t| t.place(unit, pose, status, by))
    }

    fn unplace(&self, unit: &str, by: &str, keep: Keep) -> Result<Event, NotCorrected> {
        self.correct(keep, |t| t.unplace(unit, by))
    }
}

/// The ages of the last frames (ms from capture to their detection reaching the
/// tracker and the feed). Sources hand out their newest frame (see
/// [`capture::newest`]), so a slow detector shows here as fewer frames, not older ones.
#[derive(Default)]
pub struct FrameAges {
    ages_ms: Mutex<VecDeque<u64>>,
}

impl FrameAges {
    /// Ages kept: a minute at 30 frames a second.
    const KEPT: usize = 1800;

    pub fn record(&self, age_ms: u64) {
        let mut ages = self.ages_ms.lock().expect("ages lock");
        if ages.len() == Self::KEPT {
            ages.pop_front();
        }
        ages.push_back(age_ms);
    }

    /// How many ages are kept (at most the last [`Self::KEPT`]).
    pub fn len(&self) -> usize {
        self.ages_ms.lock().expect("ages lock").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The age that fraction `q` (0 to 1) of the kept frames were no older than.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        let mut ages: Vec<u64> = self
            .ages_ms
            .lock()
            .expect("ages lock")
            .iter()
            .copied()
            .collect();
        if ages.is_empty() {
            return None;
        }
        ages.sort_unstable();
        let rank = (q.clamp(0.0, 1.0) * ages.len() as f64).ceil() as usize;
        Some(ages[rank.clamp(1, ages.len()) - 1])
    }

    /// Forget the ages so far (a bench's warm-up).
    pub fn clear(&self) {
        self.ages_ms.lock().expect("ages lock").clear();
    }
}

/// Frames per second over the last second.
#[derive(Default)]
struct FrameRate {
    stamps: std::collections::VecDeque<Instant>,
}

impl FrameRate {
    fn tick(&mut self) -> f64 {
        let now = Instant::now();
        self.stamps.push_back(now);
        while self
            .stamps
            .front()
            .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(1))
        {
            self.stamps.pop_front();
        }
        self.stamps.len() as f64
    }
}
