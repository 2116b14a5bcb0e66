//! The served game's journal, and how far into the feed it has read.
//!
//! Two writers store tables and the tracker's corrections: the hub, which stores each
//! stable table the feed publishes (with the corrections the tracker made by itself),
//! and a person's correction from the page (a naming, a veto, a piece placed by hand or
//! taken back), which is stored before the server answers, so that a 2xx means the
//! journal file holds it and a kill the moment after loses nothing. Both go through
//! [`Journaling`] under one lock, and each feed view is taken once: a correction first
//! takes the view the camera published before it (so the journal compares tables in
//! the order the tracker made them), and the hub passes over a view already taken.

use crate::journal::{JournalError, Recorder, now_ms};
use crate::table::TableState;
use crate::track::Event;

use super::feed::FeedView;

/// The recorder, with the newest feed view it has taken.
pub struct Journaling {
    pub recorder: Recorder,
    /// The sequence number of the newest feed view taken; `None` before the first.
    taken: Option<u64>,
    /// How many of the feed's corrections the recorder has taken.
    corrected: usize,
}

impl Journaling {
    pub fn new(recorder: Recorder) -> Self {
        Self {
            recorder,
            taken: None,
            corrected: 0,
        }
    }

    /// Store `view`'s table after the corrections the tracker made since the last view
    /// taken, unless a newer view was taken already. A table in which nothing changed
    /// is not stored (see [`Recorder::observe_seen`]). Returns the journal's newest
    /// state after it.
    pub fn take(&mut self, view: &FeedView) -> Result<Option<i64>, JournalError> {
        if self.taken.is_none_or(|taken| view.seq > taken) {
            // Counted as taken even when the journal fails: a correction it took stays
            // with the recorder for the next state, and the feed moves on either way.
            let corrections = view.corrections.get(self.corrected..).unwrap_or_default();
            self.taken = Some(view.seq);
            self.corrected = view.corrections.len();
            for correction in corrections {
                self.recorder.correct(correction)?;
            }
            self.recorder
                .observe_seen(&view.table, now_ms(), view.picture.as_deref())?;
        }
        self.recorder.journal().latest_seq()
    }

    /// Store a person's correction `event`, with `table` (the tracker's table after it),
    /// in one transaction, after `view`, the feed's newest view (the table the person
    /// corrected). Keeps the picture the camera took of it: the names changed, not the
    /// table the camera saw. On error nothing of the correction is stored, and the
    /// recorder is as it was.
    pub fn keep(
        &mut self,
        view: &FeedView,
        event: &Event,
        table: &TableState,
    ) -> Result<(), JournalError> {
        self.take(view)?;
        self.recorder.atomically(|r| {
            r.correct(event)?;
            r.observe_seen(table, now_ms(), view.picture.as_deref())
        })?;
        Ok(())
    }
}
