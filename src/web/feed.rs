//! Where the server's table states come from: a producer thread publishes stable
//! [`TableState`]s and its health into a `tokio::sync::watch` channel.
//!
//! The interface is deliberately narrow so the camera pipeline can be plugged in without
//! touching the server: anything that owns a [`Publisher`] and calls [`Publisher::table`]
//! when the tracker settles, and [`Publisher::status`] once in a while, is a feed. A watch
//! channel keeps only the newest value, so a slow consumer never makes the producer wait
//! and never sees a backlog of stale tables.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::watch;

use crate::journal::JournalError;
use crate::table::{Pose, Status, TableState};
use crate::track::{AssignError, Event, Identification};
use crate::vision::MapPicture;

/// Who is producing the table: a scripted replay or a folder of frames, the live camera,
/// the synthetic camera (the demo's rendered frames through the detector), or a camera
/// that has lost the table (hands over it, cable pulled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Replay,
    Camera,
    Synthetic,
    Lost,
}

/// The newest stable view and the producer's health.
#[derive(Debug, Clone)]
pub struct FeedView {
    /// Increments on every new stable table, never on a status change.
    pub seq: u64,
    pub table: Arc<TableState>,
    /// When this table entered the pipeline (for "seconds since the last stable view").
    pub stable_at: Instant,
    /// The same moment on the wall clock, microseconds since the Unix epoch: a client on
    /// the same machine measures end-to-end latency with it.
    pub stable_unix_us: u64,
    pub source: Source,
    /// Frames (camera) or states (replay) per second the producer is running at.
    pub fps: f64,
    /// Every correction the tracker made by itself since the feed started, oldest first:
    /// held pieces the camera took over, vetoes lifted (see [`Event::is_correction`]). A
    /// list, not the newest only: a watch channel may skip a view, and the journal must
    /// take every correction before the table that follows it. A person's corrections
    /// are not here: the server stores them before it answers (see [`Identify`]).
    pub corrections: Arc<Vec<Event>>,
    /// The camera's picture of the map on the frame the tracker committed the table on
    /// (the evidence view and the journal); `None` until a camera feed has committed one,
    /// and always for a scripted replay. A correction keeps it: the names changed, not
    /// the table the camera saw.
    pub picture: Option<Arc<MapPicture>>,
}

/// Microseconds since the Unix epoch, now.
pub fn unix_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// The producer's end of the feed. Clones publish into the same feed: the feed thread
/// and a person naming a piece from the page.
#[derive(Clone)]
pub struct Publisher {
    tx: Arc<watch::Sender<FeedView>>,
}

impl Publisher {
    /// A feed that starts with `initial` on the table.
    pub fn new(initial: TableState, source: Source) -> (Self, watch::Receiver<FeedView>) {
        let (tx, rx) = watch::channel(FeedView {
            seq: 0,
            table: Arc::new(initial),
            stable_at: Instant::now(),
            stable_unix_us: unix_us(),
            source,
            fps: 0.0,
            corrections: Arc::default(),
            picture: None,
        });
        (Self { tx: Arc::new(tx) }, rx)
    }

    /// A new stable table. Returns the sequence number it was given.
    pub fn table(&self, table: TableState) -> u64 {
        self.publish(table, Vec::new(), None)
    }

    /// A new stable table as the camera saw it, after the tracker's own `corrections`
    /// (the camera took over a piece placed by hand, a veto lifted), with the picture of
    /// the frame it was committed on (`None` when the frame's map could not be
    /// pictured: the last picture is then dropped rather than shown for a table it does
    /// not show).
    pub fn seen(
        &self,
        table: TableState,
        corrections: Vec<Event>,
        picture: Option<Arc<MapPicture>>,
    ) -> u64 {
        self.publish(table, corrections, Some(picture))
    }

    /// One change of the view, so no consumer sees a correction without its table, nor
    /// a table without its picture. `picture`: `Some` replaces the picture, `None` keeps
    /// it.
    fn publish(
        &self,
        table: TableState,
        corrections: Vec<Event>,
        picture: Option<Option<Arc<MapPicture>>>,
    ) -> u64 {
        let mut seq = 0;
        self.tx.send_modify(|view| {
            if !corrections.is_empty() {
                Arc::make_mut(&mut view.corrections).extend(corrections);
            }
            if let Some(picture) = picture {
                view.picture = picture;
            }
            view.seq += 1;
            seq = view.seq;
            view.table = Arc::new(table);
            view.stable_at = Instant::now();
            view.stable_unix_us = unix_us();
        });
        seq
    }

    /// The producer's health; consumers are woken only when it changed.
    pub fn status(&self, source: Source, fps: f64) {
        self.tx.send_if_modified(|view| {
            let changed = view.source != source || (view.fps - fps).abs() > 0.05;
            view.source = source;
            view.fps = fps;
            changed
        });
    }

    /// Every consumer is gone (the server stopped): the producer should stop too.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

/// A person's corrections of the tracker from the page: name a piece, veto one, place a
/// missed one by hand or take it back. A tracking feed implements it (it owns the names
/// and the pieces); a scripted replay does not, and the server refuses these with 409.
///
/// Each is tried on the tracker, handed to `keep` with the tracker's table after it, and
/// made (the tracker changed, the corrected table published) only when `keep` succeeds:
/// the server stores it in the journal there, so a person told it was done is never
/// told wrong by a kill, and a journal that fails leaves the table as it was. `keep`
/// runs while the feed waits, so that no table the camera settles on comes between the
/// correction and its table.
pub trait Identify: Send + Sync {
    /// The piece nearest `(x_in, y_in)` is `unit`.
    fn identify(
        &self,
        unit: &str,
        x_in: f64,
        y_in: f64,
        keep: Keep,
    ) -> Result<Identification, NotCorrected>;
    /// The piece nearest `(x_in, y_in)` is not a piece (see
    /// [`Tracker::veto`](crate::track::Tracker::veto)); `by` is the seat that says so.
    fn veto(&self, x_in: f64, y_in: f64, by: &str, keep: Keep) -> Result<Event, NotCorrected>;
    /// `unit` stands at `pose`, though the camera misses it.
    fn place(
        &self,
        unit: &str,
        pose: Pose,
        status: Status,
        by: &str,
        keep: Keep,
    ) -> Result<Event, NotCorrected>;
    /// Take back `unit`, placed by hand and not yet seen by the camera.
    fn unplace(&self, unit: &str, by: &str, keep: Keep) -> Result<Event, NotCorrected>;
}

/// Stores a correction (its event, and the tracker's table after it) before it is made;
/// see [`Identify`].
pub type Keep<'a> = &'a mut dyn FnMut(&Event, &TableState) -> Result<(), JournalError>;

/// Why a correction was not made.
#[derive(Debug, thiserror::Error)]
pub enum NotCorrected {
    /// The tracker refused it (an unknown unit, nothing where the person tapped…).
    #[error(transparent)]
    Refused(#[from] AssignError),
    /// The journal did not store it, so it was not made.
    #[error(transparent)]
    NotKept(#[from] JournalError),
}

/// A producer of stable tables. It runs on its own thread (detection and tracking are
/// blocking, CPU-bound work that must stay off the async runtime) until
/// [`Publisher::is_closed`].
pub trait Feed: Send + 'static {
    fn run(self: Box<Self>, publisher: Publisher);
}

/// Start a feed on its own thread.
pub fn spawn(feed: Box<dyn Feed>, publisher: Publisher) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("aide-feed".into())
        .spawn(move || feed.run(publisher))
}

/// Replays a scripted list of tables forth and back, one every `1 / rate` seconds, so that
/// each step is one scripted change (a loop would jump every piece home at once); a rate
/// of 0 holds the first table (a still table, for tests and for a state file).
pub struct Replay {
    pub tables: Vec<TableState>,
    /// States per second.
    pub rate: f64,
}

/// Indices of a forth-and-back replay after the first table: 1, 2 … n-1, n-2 … 0, 1 …
fn replay_order(n: usize) -> impl Iterator<Item = usize> {
    (0..n).chain((1..n - 1).rev()).cycle().skip(1)
}

impl Feed for Replay {
    fn run(self: Box<Self>, publisher: Publisher) {
        let Some(first) = self.tables.first() else {
            return;
        };
        publisher.table(first.clone());
        publisher.status(Source::Replay, self.rate.max(0.0));
        if self.rate <= 0.0 || self.tables.len() < 2 {
            // Nothing will change; keep the channel open until the server stops.
            while !publisher.is_closed() {
                std::thread::sleep(Duration::from_millis(200));
            }
            return;
        }
        let period = Duration::from_secs_f64(1.0 / self.rate);
        let mut next = Instant::now() + period;
        for table in replay_order(self.tables.len()).map(|i| &self.tables[i]) {
            // Sleep to a schedule, not a fixed pause, so the rate holds under load.
            let now = Instant::now();
            if next > now {
                std::thread::sleep(next - now);
            }
            next += period;
            if publisher.is_closed() {
                return;
            }
            publisher.table(table.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::replay_order;

    #[test]
    fn replay_goes_forth_and_back_one_step_at_a_time() {
        let order: Vec<usize> = replay_order(4).take(10).collect();
        assert_eq!(order, [1, 2, 3, 2, 1, 0, 1, 2, 3, 2]);
    }
}
