//! The tracker's side of the journal: hand it each stable state, it finds what happened
//! since the last one and stores both.

use std::path::Path;
use std::sync::Arc;

use super::{GameInfo, Journal, JournalError, Millis, placements};
use crate::scenario::Scenario;
use crate::table::{Placement, TableState};
use crate::track::{Event, EventDeriver, Identification};
use crate::vision::MapPicture;

/// What one stable state added to the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub seq: i64,
    pub events: Vec<Event>,
}

/// Keeps the journal of one game of one scenario.
///
/// The tracker's loop, in short:
///
/// ```no_run
/// use std::{path::Path, sync::Arc};
/// use aide::journal::{self, Phase, Recorder};
/// use aide::scenario::Scenario;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let scenario = Arc::new(Scenario::load(Path::new("scenarios/demo/valley.toml"))?);
/// let mut recorder = Recorder::open(&journal::default_path("aldermoor")?, scenario.clone())?;
/// recorder.observe(&scenario.setup_table(), journal::now_ms())?; // the setup
/// recorder.journal().begin_turn(1, false, journal::now_ms())?;
/// recorder.journal().begin_phase(&Phase::Activation { command: "red-2".into() }, journal::now_ms())?;
/// # let stable_state = scenario.setup_table();
/// // ... each time the table has settled:
/// if let Some(recorded) = recorder.observe(&stable_state, journal::now_ms())? {
///     for event in &recorded.events {
///         println!("#{} {}: {}", recorded.seq, event.kind(), event.unit());
///     }
/// }
/// recorder.journal().record_roll("combat", &serde_json::json!({"dice": [6, 2]}), journal::now_ms())?;
/// # Ok(())
/// # }
/// ```
pub struct Recorder {
    journal: Journal,
    scenario: Arc<Scenario>,
    deriver: EventDeriver,
    /// The last state stored: events are always measured from it.
    last: Option<TableState>,
    /// Corrections since the last stored state, stored with the next one.
    identified: Vec<Event>,
}

impl Recorder {
    /// Open (or create) the journal at `path` for a game of `scenario`. A journal that
    /// already holds a game of it is resumed from its last stored state, so a restart
    /// after a crash does not report the whole table as new.
    pub fn open(path: &Path, scenario: Arc<Scenario>) -> Result<Self, JournalError> {
        let mut journal = Journal::open(path)?;
        let shown = || path.display().to_string();
        match journal.game()? {
            None => {
                let game = GameInfo::for_scenario(&scenario, super::now_ms())?;
                journal.start_game(&game)?;
            }
            Some(game) if game.scenario_name != scenario.name => {
                return Err(JournalError::OtherScenario {
                    path: shown(),
                    journal: game.scenario_name,
                    scenario: scenario.name.clone(),
                });
            }
            Some(game) => {
                let now = GameInfo::for_scenario(&scenario, game.started_ms)?;
                if now.scenario_sha256 != game.scenario_sha256
                    || now.terrain_sha256 != game.terrain_sha256
                {
                    tracing::warn!(
                        journal = %shown(),
                        "the scenario's files changed since this game started; verdicts may differ"
                    );
                }
            }
        }
        let last = match journal.latest_state()? {
            Some(stored) => Some(scenario.table(&stored.state.pieces).map_err(|cause| {
                JournalError::StateMismatch {
                    path: shown(),
                    seq: stored.seq,
                    cause,
                }
            })?),
            None => None,
        };
        Ok(Self {
            journal,
            deriver: EventDeriver::new(&scenario),
            scenario,
            last,
            identified: Vec::new(),
        })
    }

    /// The last state stored, with the corrections made since (the table a restart
    /// carries on from).
    pub fn last(&self) -> Option<&TableState> {
        self.last.as_ref()
    }

    /// The journal, for the turn structure, rolls and chit draws.
    pub fn journal(&mut self) -> &mut Journal {
        &mut self.journal
    }

    /// A person named a piece (see [`Identification`]): [`Self::correct`] with its
    /// `identified` event.
    pub fn identify(&mut self, identification: &Identification) -> Result<(), JournalError> {
        self.correct(&identification.clone().into())
    }

    /// A person's correction of the tracker, or the tracker's own (a piece placed by hand
    /// that the camera took over, a veto lifted): an `identified`, `vetoed`, `placed`,
    /// `unplaced`, `seen` or `lifted` event. The last stored state takes the same change (two names swapped, a
    /// phantom gone, a piece put down or taken back, a held piece at the camera's pose),
    /// so the next state is compared block for block and the correction is not mistaken
    /// for moves, removals or additions; the event itself is stored with that next state.
    /// Any other event is refused: the tables tell those.
    pub fn correct(&mut self, event: &Event) -> Result<(), JournalError> {
        if let Some(last) = &self.last {
            let mut pieces = placements(last).pieces;
            match event {
                Event::Identified { unit, was, pose } => Identification {
                    unit: unit.clone(),
                    was: was.clone(),
                    pose: *pose,
                }
                .relabel(&mut pieces),
                Event::Vetoed { unit, .. } | Event::Unplaced { unit, .. } => {
                    pieces.retain(|p| p.id != *unit)
                }
                Event::Placed {
                    unit, pose, status, ..
                } => {
                    pieces.retain(|p| p.id != *unit);
                    pieces.push(Placement {
                        id: unit.clone(),
                        x_in: pose.x_in,
                        y_in: pose.y_in,
                        heading_deg: pose.heading_deg,
                        status: *status,
                    });
                }
                Event::Seen { unit, pose, .. } => {
                    for p in pieces.iter_mut().filter(|p| p.id == *unit) {
                        (p.x_in, p.y_in, p.heading_deg) = (pose.x_in, pose.y_in, pose.heading_deg);
                    }
                }
                // The table is as it was: only what the tracker screens out changed.
                Event::Lifted { .. } => {}
                Event::Moved(_)
                | Event::Flipped { .. }
                | Event::Removed { .. }
                | Event::Added { .. } => {
                    return Err(JournalError::NotACorrection(event.kind()));
                }
            }
            let corrected =
                self.scenario
                    .table(&pieces)
                    .map_err(|cause| JournalError::Identification {
                        unit: event.unit().to_owned(),
                        cause,
                    })?;
            self.last = Some(corrected);
        }
        self.identified.push(event.clone());
        Ok(())
    }

    /// Record a new stable state. The first state of a game is stored as it is (the
    /// setup, with no events). After that, a state in which nothing moved, flipped,
    /// came or went is not stored and `None` is returned: it is the same table as far as
    /// the rules go, and comparing the next state with the last stored one keeps a slow
    /// creep of sub-threshold nudges from hiding a real move.
    pub fn observe(
        &mut self,
        table: &TableState,
        ts_ms: Millis,
    ) -> Result<Option<Recorded>, JournalError> {
        self.observe_seen(table, ts_ms, None)
    }

    /// Record a new stable state as [`Recorder::observe`] does, with the camera's
    /// picture of the frame it was committed on. When nothing changed, the picture goes
    /// to the last stored state if that has none yet: a game resumed from a state file
    /// (the demo, a restart) gets the picture of its first table from the camera's
    /// first still frame, so that every stored state of a watched game has one.
    pub fn observe_seen(
        &mut self,
        table: &TableState,
        ts_ms: Millis,
        picture: Option<&MapPicture>,
    ) -> Result<Option<Recorded>, JournalError> {
        let mut events = self.identified.clone();
        if let Some(last) = &self.last {
            let night = self.journal.current_turn()?.night;
            events.extend(self.deriver.events(&self.scenario, last, table, night));
            if events.is_empty() {
                if let Some(picture) = picture
                    && let Some(seq) = self.journal.latest_seq()?
                {
                    self.journal.keep_picture(seq, picture)?;
                }
                return Ok(None);
            }
        }
        let seq = self
            .journal
            .record_state(ts_ms, &placements(table), &events, picture)?;
        self.last = Some(table.clone());
        self.identified.clear();
        Ok(Some(Recorded { seq, events }))
    }

    /// Run `f` as one transaction (see [`Journal::atomically`]); on error the recorder
    /// also forgets the states `f` observed and the corrections it made, so it stays in
    /// step with the file (a correction the journal refused is not stored with a later
    /// state either).
    pub fn atomically<T, E: From<JournalError>>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, E>,
    ) -> Result<T, E> {
        let (last, identified) = (self.last.clone(), self.identified.clone());
        self.journal.begin()?;
        let result = f(self);
        let result = self.journal.finish(result);
        if result.is_err() {
            self.last = last;
            self.identified = identified;
        }
        result
    }
}
