//! The newest frame only: a slot a grabber thread fills as fast as the camera sends, and
//! the pipeline empties when it is ready for another frame.
//!
//! A camera does not wait for the detector. If frames were queued, a detector that takes
//! 50 ms over a 33 ms frame interval would fall a little further behind with every
//! frame, and the page would show a table of seconds ago. A slot of one never lags: a
//! frame that arrives before the last was taken replaces it (counted as dropped), so the
//! frame the pipeline takes is never older than one frame interval plus the time to hand
//! it over.
//!
//! [`Grabbed`] runs the grabber thread of a network camera (MJPEG, RTSP) around such a
//! slot: it connects, reads until the stream drops, says why in the slot (the page shows
//! "lost"), and connects again after 0.1 s, doubling the wait up to 1 s, so a stream
//! that comes back is read again within about a second.

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::CaptureError;

/// A stream that sends nothing for this long has stalled: it is dropped and reopened.
pub const STALL: Duration = Duration::from_secs(2);
/// The first wait before connecting again, doubled after each failure up to
/// [`RETRY_MAX`]; reset once a connection has given a frame.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(1);
/// How long [`Grabbed::start`] waits for the first frame before refusing the camera.
const FIRST_FRAME: Duration = Duration::from_secs(5);

/// One value at a time, the newest, with the grabber's health beside it.
pub struct Newest<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
}

struct State<T> {
    value: Option<T>,
    /// Counts every value put; a taker remembers the last it saw.
    seq: u64,
    /// Values replaced before anyone took them.
    dropped: u64,
    /// Why the grabber has no values now (the stream dropped), until the next value.
    lost: Option<String>,
    /// The taker is gone: the grabber should stop.
    closed: bool,
}

/// What a taker gets instead of a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// The grabber said why it has none (and is trying again).
    Lost(String),
    /// Nothing new came within the wait.
    Late,
}

impl<T> Default for Newest<T> {
    fn default() -> Self {
        Self {
            state: Mutex::new(State {
                value: None,
                seq: 0,
                dropped: 0,
                lost: None,
                closed: false,
            }),
            changed: Condvar::new(),
        }
    }
}

impl<T> Newest<T> {
    /// A new value: it replaces one not yet taken, and clears a loss.
    pub fn put(&self, value: T) {
        let mut state = self.state.lock().expect("newest lock");
        if state.value.replace(value).is_some() {
            state.dropped += 1;
        }
        state.seq += 1;
        state.lost = None;
        self.changed.notify_all();
    }

    /// A new value folded into the one not yet taken, if any, by `merge(old, new)`: for
    /// values that must all reach the taker (H.264 pictures, each built on the one
    /// before). Clears a loss.
    pub fn put_merged(&self, value: T, merge: impl FnOnce(T, T) -> T) {
        let mut state = self.state.lock().expect("newest lock");
        let value = match state.value.take() {
            Some(old) => merge(old, value),
            None => value,
        };
        state.value = Some(value);
        state.seq += 1;
        state.lost = None;
        self.changed.notify_all();
    }

    /// The grabber has lost its source, for this reason, until it puts a value again.
    pub fn lose(&self, why: String) {
        let mut state = self.state.lock().expect("newest lock");
        state.lost = Some(why);
        self.changed.notify_all();
    }

    /// The value put after the one numbered `after`, waiting at most `wait` for it; with
    /// its number. A loss the grabber reports ends the wait at once.
    pub fn take_after(&self, after: u64, wait: Duration) -> Result<(u64, T), Missing> {
        let mut state = self.wait_after(after, wait)?;
        let value = state.value.take().expect("waited for a value");
        Ok((state.seq, value))
    }

    /// Wait as [`take_after`](Self::take_after) does, but leave the value for the next
    /// take: whether the grabber has started giving values.
    pub fn ready_after(&self, after: u64, wait: Duration) -> Result<(), Missing> {
        self.wait_after(after, wait).map(drop)
    }

    fn wait_after(
        &self,
        after: u64,
        wait: Duration,
    ) -> Result<std::sync::MutexGuard<'_, State<T>>, Missing> {
        let deadline = Instant::now() + wait;
        let mut state = self.state.lock().expect("newest lock");
        loop {
            if state.seq > after && state.value.is_some() {
                return Ok(state);
            }
            if let Some(why) = &state.lost {
                return Err(Missing::Lost(why.clone()));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Missing::Late);
            }
            state = self
                .changed
                .wait_timeout(state, left)
                .expect("newest lock")
                .0;
        }
    }

    /// How many values were replaced before they were taken.
    pub fn dropped(&self) -> u64 {
        self.state.lock().expect("newest lock").dropped
    }

    /// The taker is done; [`is_closed`](Self::is_closed) tells the grabber to stop.
    pub fn close(&self) {
        self.state.lock().expect("newest lock").closed = true;
        self.changed.notify_all();
    }

    pub fn is_closed(&self) -> bool {
        self.state.lock().expect("newest lock").closed
    }
}

/// The taker's side of a grabber thread that keeps a network stream's newest frame in a
/// slot and reconnects by itself.
pub struct Grabbed<T> {
    /// The stream's address, for messages.
    url: String,
    slot: Arc<Newest<T>>,
    /// The number of the last value taken.
    seen: u64,
    thread: Option<JoinHandle<()>>,
}

impl<T: Send + 'static> Grabbed<T> {
    /// Start a thread named `thread` that calls `connect` until the taker is dropped.
    /// One call is one connection: it puts each frame into the slot and counts it in its
    /// second argument, and returns when the stream ends (`Ok`) or fails (the reason,
    /// starting with the address). Then wait for the first frame: an address that is
    /// wrong, or a server that sends nothing usable, is an error for the person starting
    /// the service. Drops after that are retried by themselves.
    pub fn start(
        url: &str,
        thread: &str,
        mut connect: impl FnMut(&Newest<T>, &mut u64) -> Result<(), String> + Send + 'static,
    ) -> Result<Self, CaptureError> {
        let slot = Arc::new(Newest::default());
        let handle = {
            let (slot, address) = (slot.clone(), url.to_owned());
            std::thread::Builder::new()
                .name(thread.into())
                .spawn(move || {
                    let mut retry = RETRY_FIRST;
                    while !slot.is_closed() {
                        let mut frames = 0u64;
                        let why = match connect(&slot, &mut frames) {
                            Ok(()) => format!("{address}: the stream ended"),
                            Err(why) => why,
                        };
                        if slot.is_closed() {
                            break;
                        }
                        tracing::warn!(%why, frames, "stream lost");
                        slot.lose(why);
                        if frames > 0 {
                            retry = RETRY_FIRST;
                        }
                        std::thread::sleep(retry);
                        retry = (retry * 2).min(RETRY_MAX);
                    }
                })
                .map_err(|e| CaptureError::Unavailable(format!("{url}: {e}")))?
        };
        let grabbed = Self {
            url: url.to_owned(),
            slot,
            seen: 0,
            thread: Some(handle),
        };
        match grabbed.slot.ready_after(0, FIRST_FRAME) {
            Ok(()) => Ok(grabbed),
            Err(Missing::Lost(why)) => Err(CaptureError::Unavailable(why)),
            Err(Missing::Late) => Err(CaptureError::Unavailable(format!(
                "{url}: no frame within {} s",
                FIRST_FRAME.as_secs()
            ))),
        }
    }

    /// The newest frame not yet taken, waiting for it; lost (saying why) while the
    /// stream is down or has sent nothing for [`STALL`].
    pub fn take(&mut self) -> Result<T, CaptureError> {
        match self.slot.take_after(self.seen, STALL) {
            Ok((seq, value)) => {
                self.seen = seq;
                Ok(value)
            }
            Err(Missing::Lost(why)) => Err(CaptureError::Lost(why)),
            Err(Missing::Late) => Err(CaptureError::Lost(format!(
                "{}: no frame for {} s",
                self.url,
                STALL.as_secs()
            ))),
        }
    }

    /// How many frames arrived that the taker never took.
    pub fn dropped(&self) -> u64 {
        self.slot.dropped()
    }
}

impl<T> Drop for Grabbed<T> {
    fn drop(&mut self) {
        self.slot.close();
        // The grabber notices within one read timeout; no need to wait for it.
        drop(self.thread.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_slow_taker_gets_the_newest_value_and_the_rest_are_counted_dropped() {
        let slot = Newest::default();
        for v in 1..=5 {
            slot.put(v);
        }
        assert_eq!(slot.take_after(0, Duration::ZERO), Ok((5, 5)));
        assert_eq!(slot.dropped(), 4);
        // Nothing newer: a short wait ends late, not with the old value again.
        assert_eq!(
            slot.take_after(5, Duration::from_millis(5)),
            Err(Missing::Late)
        );
    }

    #[test]
    fn a_waiting_taker_wakes_for_a_value_or_a_loss() {
        let slot = Arc::new(Newest::default());
        let grabber = {
            let slot = slot.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                slot.put("frame");
                std::thread::sleep(Duration::from_millis(20));
                slot.lose("stream closed".into());
            })
        };
        let started = Instant::now();
        assert_eq!(slot.take_after(0, Duration::from_secs(5)), Ok((1, "frame")));
        assert_eq!(
            slot.take_after(1, Duration::from_secs(5)),
            Err(Missing::Lost("stream closed".into()))
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        grabber.join().unwrap();
    }
}
