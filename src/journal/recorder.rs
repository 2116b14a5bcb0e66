//! The tracker's side of the journal: hand it each stable state, it finds what happened
//! since the last one and stores both.

use std::path::Path;

use super::{GameInfo, Journal, JournalError, Millis, placements};
use crate::scenario::Scenario;
use crate::table::TableState;
use crate::track::{Event, EventDeriver};

/// What one stable state added to the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub seq: i64,
    pub events: Vec<Event>,
}

/// Keeps the journal of one game of one scenario.
pub struct Recorder<'s> {
    journal: Journal,
    deriver: EventDeriver<'s>,
    /// The last state stored: events are always measured from it.
    last: Option<TableState>,
}

impl<'s> Recorder<'s> {
    /// Open (or create) the journal at `path` for a game of `scenario`. A journal that
    /// already holds a game of it is resumed from its last stored state, so a restart
    /// after a crash does not report the whole table as new.
    pub fn open(path: &Path, scenario: &'s Scenario) -> Result<Self, JournalError> {
        let mut journal = Journal::open(path)?;
        let shown = || path.display().to_string();
        match journal.game()? {
            None => {
                let game = GameInfo::for_scenario(scenario, super::now_ms())?;
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
                let now = GameInfo::for_scenario(scenario, game.started_ms)?;
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
            deriver: EventDeriver::new(scenario),
            last,
        })
    }

    /// The journal, for the turn structure, rolls and chit draws.
    pub fn journal(&mut self) -> &mut Journal {
        &mut self.journal
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
        let events = match &self.last {
            None => Vec::new(),
            Some(last) => {
                let night = self.journal.current_turn()?.night;
                let events = self.deriver.events(last, table, night);
                if events.is_empty() {
                    return Ok(None);
                }
                events
            }
        };
        let seq = self
            .journal
            .record_state(ts_ms, &placements(table), &events)?;
        self.last = Some(table.clone());
        Ok(Some(Recorded { seq, events }))
    }

    /// Run `f` as one transaction (see [`Journal::atomically`]); on error the recorder
    /// also forgets the states `f` observed, so it stays in step with the file.
    pub fn atomically<T, E: From<JournalError>>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, E>,
    ) -> Result<T, E> {
        let last = self.last.clone();
        self.journal.begin()?;
        let result = f(self);
        let result = self.journal.finish(result);
        if result.is_err() {
            self.last = last;
        }
        result
    }
}
