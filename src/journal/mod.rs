//! The turn log: one SQLite file per game, written as the game goes.
//!
//! Every stable table state, the events between consecutive states, every roll and chit
//! draw and the turn structure go into a single file, so a game can be replayed,
//! exported or argued over afterwards with nothing else but the scenario.
//!
//! The file must survive the laptop being closed or the service being killed at any
//! moment: it runs in WAL mode with `synchronous = FULL`, so a write that returned is on
//! disk, and every write is one transaction, so a kill leaves either all of a state and
//! its events or none of it. Readers (the web page, `aide log`) may open the same file
//! while the tracker writes to it.

mod export;
mod recorder;
mod schema;
mod svg;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::scenario::Scenario;
use crate::table::{Placement, StateFile, TableState};
use crate::track::Event;
use crate::vision::MapPicture;

pub use export::{MarkdownReport, html_report, markdown_report, text_log, utc};
pub use recorder::{Recorded, Recorder};
pub use schema::SCHEMA_VERSION;
pub use svg::turn_map;

/// Milliseconds since the Unix epoch, UTC: the journal's one time format.
pub type Millis = i64;

/// The current time as journal timestamps use it.
pub fn now_ms() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

/// Where games go when no path is given: `<data dir>/aide-de-camp/games/NAME.db`
/// (on Linux `~/.local/share/aide-de-camp/games`), so players never have to pick a
/// folder to keep a log.
pub fn default_path(game: &str) -> Result<PathBuf, JournalError> {
    let dirs =
        directories::ProjectDirs::from("", "", "aide-de-camp").ok_or(JournalError::NoDataDir)?;
    Ok(dirs.data_dir().join("games").join(format!("{game}.db")))
}

/// Errors name the journal file. The underlying error is part of the message rather than
/// a `source`, so that printing the chain of causes does not say it twice.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{path}: {cause}")]
    Sqlite {
        path: String,
        cause: rusqlite::Error,
    },
    #[error("{path}: {cause}")]
    Io { path: String, cause: std::io::Error },
    #[error("{path}: no such journal")]
    Missing { path: String },
    #[error("{path}: not an aide journal (it is an SQLite file with other tables in it)")]
    NotAJournal { path: String },
    #[error(
        "{path}: written by a newer aide (schema version {found}, this one knows up to {SCHEMA_VERSION})"
    )]
    Newer { path: String, found: i32 },
    #[error("{path}: stored {what} cannot be read back: {cause}")]
    Corrupt {
        path: String,
        what: String,
        cause: serde_json::Error,
    },
    #[error("{path}: no game has been started in this journal")]
    NoGame { path: String },
    #[error("{path}: this journal is a game of {journal:?}, not of {scenario:?}")]
    OtherScenario {
        path: String,
        journal: String,
        scenario: String,
    },
    #[error("{path}: turn {turn} cannot follow turn {current}")]
    TurnOrder {
        path: String,
        turn: u32,
        current: u32,
    },
    #[error("{path}: stored state #{seq} does not fit the scenario: {cause}")]
    StateMismatch {
        path: String,
        seq: i64,
        cause: crate::scenario::TableError,
    },
    #[error("correcting the piece {unit}: the last stored state no longer fits: {cause}")]
    Identification {
        unit: String,
        cause: crate::scenario::TableError,
    },
    #[error("cannot find a data directory for this user; give the journal's path")]
    NoDataDir,
    #[error("a {0:?} event is read off the tables, not given as a correction")]
    NotACorrection(&'static str),
}

/// What the journal knows about the game it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameInfo {
    pub scenario_name: String,
    /// The scenario file, absolute where it could be resolved.
    pub scenario_path: String,
    /// SHA-256 of the scenario TOML: tells whether the file read later is the one played.
    pub scenario_sha256: String,
    /// SHA-256 of the terrain GeoJSON, which decides verdicts as much as the TOML does.
    pub terrain_sha256: Option<String>,
    pub rules: String,
    pub started_ms: Millis,
}

impl GameInfo {
    /// Describe a game of `scenario` starting at `started_ms`, hashing its files.
    pub fn for_scenario(scenario: &Scenario, started_ms: Millis) -> Result<Self, JournalError> {
        let hash = |path: &Path| -> Result<String, JournalError> {
            let bytes = std::fs::read(path).map_err(|cause| JournalError::Io {
                path: path.display().to_string(),
                cause,
            })?;
            Ok(hex(&Sha256::digest(&bytes)))
        };
        let folder = scenario.path.parent().unwrap_or(Path::new("."));
        let terrain_sha256 = match &scenario.map.terrain {
            Some(rel) => Some(hash(&folder.join(rel))?),
            None => None,
        };
        let rules = serde_json::to_value(scenario.rules)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        Ok(Self {
            scenario_name: scenario.name.clone(),
            scenario_path: std::fs::canonicalize(&scenario.path)
                .unwrap_or_else(|_| scenario.path.clone())
                .display()
                .to_string(),
            scenario_sha256: hash(&scenario.path)?,
            terrain_sha256,
            rules,
            started_ms,
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A turn: 0 is the setup, play starts at 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub turn: u32,
    pub night: bool,
    pub started_ms: Millis,
}

/// A part of a turn the states recorded after it belong to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "kebab-case")]
pub enum Phase {
    /// A command's chit was drawn (or it was activated otherwise) and it moves.
    Activation { command: String },
    /// The combat phase: attacks in contact are resolved.
    Combat,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseRecord {
    pub id: i64,
    pub turn: u32,
    #[serde(flatten)]
    pub phase: Phase,
    pub ts_ms: Millis,
}

/// One stable table state as stored: the plain placements a state file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredState {
    pub seq: i64,
    pub ts_ms: Millis,
    pub turn: u32,
    pub phase_id: Option<i64>,
    pub state: StateFile,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEvent {
    pub id: i64,
    /// The state whose arrival revealed the event.
    pub seq: i64,
    pub event: Event,
}

/// Dice rolls and chit draws are kept apart because the log shows them differently;
/// what they hold is the dice module's business.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DrawCategory {
    Roll,
    Chit,
}

impl DrawCategory {
    /// The name stored in the `category` column and shown in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            DrawCategory::Roll => "roll",
            DrawCategory::Chit => "chit",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredDraw {
    pub id: i64,
    pub ts_ms: Millis,
    pub turn: u32,
    /// The last stable state recorded before the draw, if any.
    pub after_seq: Option<i64>,
    pub category: DrawCategory,
    /// What was rolled or drawn, as the dice module names it ("combat", "chit-draw"…).
    pub kind: String,
    pub value: serde_json::Value,
}

/// Everything in a journal, in order: the JSON export and the reports read this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameLog {
    pub schema_version: i32,
    pub game: GameInfo,
    pub turns: Vec<Turn>,
    pub phases: Vec<PhaseRecord>,
    pub states: Vec<StoredState>,
    pub events: Vec<StoredEvent>,
    pub draws: Vec<StoredDraw>,
}

/// The plain form of a table state, as a state file and the journal hold it.
pub fn placements(table: &TableState) -> StateFile {
    StateFile {
        pieces: table
            .pieces
            .iter()
            .map(|p| Placement {
                id: p.id.clone(),
                x_in: p.pose.x_in,
                y_in: p.pose.y_in,
                heading_deg: p.pose.heading_deg,
                status: p.status,
            })
            .collect(),
    }
}

/// Store `picture` as stored state `seq`'s with `verb` ("INSERT", or "INSERT OR IGNORE"
/// to keep a picture already there); returns the rows written.
fn insert_picture(
    conn: &Connection,
    seq: i64,
    picture: &MapPicture,
    verb: &str,
) -> rusqlite::Result<usize> {
    conn.execute(
        &format!(
            "{verb} INTO pictures (seq, ts_ms, width, height, px_per_in, jpeg) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        ),
        params![
            seq,
            picture.ts_ms,
            picture.width,
            picture.height,
            picture.px_per_in,
            picture.jpeg
        ],
    )
}

/// An open journal file.
pub struct Journal {
    conn: Connection,
    path: PathBuf,
}

impl Journal {
    /// Open a journal, creating the file (and its folder) and the schema if needed,
    /// and migrating an older schema.
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|cause| JournalError::Io {
                path: dir.display().to_string(),
                cause,
            })?;
        }
        Self::connect(path)
    }

    /// Open a journal that must already exist: a reader (the log, the page) given a
    /// mistyped path should say so, not leave an empty journal behind.
    pub fn open_existing(path: &Path) -> Result<Self, JournalError> {
        if !path.is_file() {
            return Err(JournalError::Missing {
                path: path.display().to_string(),
            });
        }
        Self::connect(path)
    }

    fn connect(path: &Path) -> Result<Self, JournalError> {
        let shown = path.display().to_string();
        let sql = |cause| JournalError::Sqlite {
            path: shown.clone(),
            cause,
        };
        let mut conn = Connection::open(path).map_err(sql)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sql)?;
        // WAL: a kill mid-write leaves the last commit intact and readers never block
        // the writer. FULL: a commit that returned survives a power cut too.
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "wal", |r| r.get(0))
            .map_err(sql)?;
        if mode != "wal" {
            // Some file systems (network shares) cannot do WAL; SQLite's rollback journal
            // still keeps a commit atomic, but readers then block the writer.
            tracing::warn!(journal = %shown, mode, "the journal could not switch to WAL mode");
        }
        conn.pragma_update(None, "synchronous", "full")
            .map_err(sql)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(sql)?;
        let version: i32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sql)?;
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
            .map_err(sql)?;
        if version == 0 && tables > 0 {
            return Err(JournalError::NotAJournal { path: shown });
        }
        match schema::migrate(&mut conn).map_err(sql)? {
            schema::Found::Current => {}
            schema::Found::Newer(found) => {
                return Err(JournalError::Newer { path: shown, found });
            }
        }
        Ok(Self {
            conn,
            path: path.to_path_buf(),
        })
    }

    fn sql<T>(&self, r: rusqlite::Result<T>) -> Result<T, JournalError> {
        r.map_err(|cause| JournalError::Sqlite {
            path: self.path.display().to_string(),
            cause,
        })
    }

    fn json<T: Serialize>(&self, what: &str, value: &T) -> Result<String, JournalError> {
        serde_json::to_string(value).map_err(|cause| self.corrupt(what, cause))
    }

    fn parse<T: for<'de> Deserialize<'de>>(
        &self,
        what: impl FnOnce() -> String,
        text: &str,
    ) -> Result<T, JournalError> {
        serde_json::from_str(text).map_err(|cause| self.corrupt(&what(), cause))
    }

    fn corrupt(&self, what: &str, cause: serde_json::Error) -> JournalError {
        JournalError::Corrupt {
            path: self.path.display().to_string(),
            what: what.into(),
            cause,
        }
    }

    /// Run `f` as one transaction: everything it wrote is kept, or (on error, or a kill)
    /// none of it. The writes inside nest as savepoints.
    pub fn atomically<T, E: From<JournalError>>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, E>,
    ) -> Result<T, E> {
        self.begin()?;
        let result = f(self);
        self.finish(result)
    }

    fn begin(&mut self) -> Result<(), JournalError> {
        let r = self.conn.execute_batch("BEGIN IMMEDIATE");
        self.sql(r)
    }

    /// Commit when `result` is a success, roll back when it is not.
    fn finish<T, E: From<JournalError>>(&mut self, result: Result<T, E>) -> Result<T, E> {
        match result {
            Ok(value) => {
                let done = self.conn.execute_batch("COMMIT");
                self.sql(done)?;
                Ok(value)
            }
            Err(e) => {
                // The error that stopped the work is the one to report; a failed rollback
                // leaves the transaction to be undone when the connection closes.
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// The game this journal holds, if one was started.
    pub fn game(&self) -> Result<Option<GameInfo>, JournalError> {
        let row = self.conn.query_row(
            "SELECT scenario_name, scenario_path, scenario_sha256, terrain_sha256, rules, started_ms FROM game",
            [],
            |r| {
                Ok(GameInfo {
                    scenario_name: r.get(0)?,
                    scenario_path: r.get(1)?,
                    scenario_sha256: r.get(2)?,
                    terrain_sha256: r.get(3)?,
                    rules: r.get(4)?,
                    started_ms: r.get(5)?,
                })
            },
        );
        self.sql(row.optional())
    }

    /// Start the game: record what is played, and turn 0 (the setup).
    pub fn start_game(&mut self, game: &GameInfo) -> Result<(), JournalError> {
        let r = (|| {
            let tx = self.conn.savepoint()?;
            tx.execute(
                "INSERT INTO game (id, scenario_name, scenario_path, scenario_sha256, terrain_sha256, rules, started_ms)
                 VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    game.scenario_name,
                    game.scenario_path,
                    game.scenario_sha256,
                    game.terrain_sha256,
                    game.rules,
                    game.started_ms
                ],
            )?;
            tx.execute(
                "INSERT INTO turns (turn, night, started_ms) VALUES (0, 0, ?1)",
                [game.started_ms],
            )?;
            tx.commit()
        })();
        self.sql(r)
    }

    /// The turn being played (0 before the first `begin_turn`).
    pub fn current_turn(&self) -> Result<Turn, JournalError> {
        let row = self.conn.query_row(
            "SELECT turn, night, started_ms FROM turns ORDER BY turn DESC LIMIT 1",
            [],
            |r| {
                Ok(Turn {
                    turn: r.get(0)?,
                    night: r.get(1)?,
                    started_ms: r.get(2)?,
                })
            },
        );
        match self.sql(row.optional())? {
            Some(t) => Ok(t),
            None => Err(JournalError::NoGame {
                path: self.path.display().to_string(),
            }),
        }
    }

    /// Start a turn; turns only go forward.
    pub fn begin_turn(
        &mut self,
        turn: u32,
        night: bool,
        ts_ms: Millis,
    ) -> Result<(), JournalError> {
        let current = self.current_turn()?.turn;
        if turn <= current {
            return Err(JournalError::TurnOrder {
                path: self.path.display().to_string(),
                turn,
                current,
            });
        }
        let r = self.conn.execute(
            "INSERT INTO turns (turn, night, started_ms) VALUES (?1, ?2, ?3)",
            params![turn, night, ts_ms],
        );
        self.sql(r).map(drop)
    }

    /// Start a phase of the current turn; the states recorded next belong to it.
    pub fn begin_phase(&mut self, phase: &Phase, ts_ms: Millis) -> Result<i64, JournalError> {
        let turn = self.current_turn()?.turn;
        let (name, command) = match phase {
            Phase::Activation { command } => ("activation", Some(command.as_str())),
            Phase::Combat => ("combat", None),
        };
        let r = self.conn.execute(
            "INSERT INTO phases (turn, phase, command, ts_ms) VALUES (?1, ?2, ?3, ?4)",
            params![turn, name, command, ts_ms],
        );
        self.sql(r)?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The current turn's latest phase, if it has begun one.
    fn current_phase(&self, turn: u32) -> Result<Option<i64>, JournalError> {
        let r = self
            .conn
            .query_row(
                "SELECT id FROM phases WHERE turn = ?1 ORDER BY id DESC LIMIT 1",
                [turn],
                |r| r.get(0),
            )
            .optional();
        self.sql(r)
    }

    /// Store a stable state and the events that led to it, with the camera's picture of
    /// it when there is one, in one transaction; returns its sequence number. Once this
    /// returns, the state is on disk.
    pub fn record_state(
        &mut self,
        ts_ms: Millis,
        state: &StateFile,
        events: &[Event],
        picture: Option<&MapPicture>,
    ) -> Result<i64, JournalError> {
        let turn = self.current_turn()?.turn;
        let phase = self.current_phase(turn)?;
        let state_json = self.json("state", state)?;
        let event_json: Vec<String> = events
            .iter()
            .map(|e| self.json("event", e))
            .collect::<Result<_, _>>()?;
        let r = (|| {
            let tx = self.conn.savepoint()?;
            tx.execute(
                "INSERT INTO states (ts_ms, turn, phase_id, state) VALUES (?1, ?2, ?3, ?4)",
                params![ts_ms, turn, phase, state_json],
            )?;
            let seq = tx.last_insert_rowid();
            {
                let mut insert = tx.prepare_cached(
                    "INSERT INTO events (seq, unit, kind, event) VALUES (?1, ?2, ?3, ?4)",
                )?;
                for (e, json) in events.iter().zip(&event_json) {
                    insert.execute(params![seq, e.unit(), e.kind(), json])?;
                }
            }
            if let Some(picture) = picture {
                insert_picture(&tx, seq, picture, "INSERT")?;
            }
            tx.commit()?;
            Ok(seq)
        })();
        self.sql(r)
    }

    /// Give stored state `seq` the camera's picture `picture` unless it has one: the
    /// first picture of a table is the one kept (a later frame of the same table, with
    /// nothing moved, adds nothing). Returns whether it was stored.
    pub fn keep_picture(&mut self, seq: i64, picture: &MapPicture) -> Result<bool, JournalError> {
        let r = insert_picture(&self.conn, seq, picture, "INSERT OR IGNORE");
        self.sql(r).map(|n| n == 1)
    }

    /// The camera's picture of stored state `seq`, if it has one.
    pub fn picture(&self, seq: i64) -> Result<Option<MapPicture>, JournalError> {
        Ok(self
            .pictures_where("seq = ?1", [seq])?
            .pop()
            .map(|(_, p)| p))
    }

    /// Every stored picture with its state's sequence number, in order.
    pub fn pictures(&self) -> Result<Vec<(i64, MapPicture)>, JournalError> {
        self.pictures_where("1", params![])
    }

    fn pictures_where(
        &self,
        condition: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<(i64, MapPicture)>, JournalError> {
        let rows = (|| {
            let mut stmt = self.conn.prepare(&format!(
                "SELECT seq, ts_ms, width, height, px_per_in, jpeg FROM pictures WHERE {condition} ORDER BY seq"
            ))?;
            stmt.query_map(args, |r| {
                Ok((
                    r.get(0)?,
                    MapPicture {
                        ts_ms: r.get(1)?,
                        width: r.get(2)?,
                        height: r.get(3)?,
                        px_per_in: r.get(4)?,
                        jpeg: r.get(5)?,
                    },
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })();
        self.sql(rows)
    }

    /// The game's secrets by name (seat tokens, the draw key), as [`Journal::add_secrets`]
    /// stored them; empty for a game that has none yet.
    pub fn secrets(&self) -> Result<Vec<(String, String)>, JournalError> {
        let rows = (|| {
            let mut stmt = self
                .conn
                .prepare("SELECT name, value FROM secrets ORDER BY name")?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })();
        self.sql(rows)
    }

    /// Store secrets once, in one transaction; a name already stored keeps its value (a
    /// second server on the same journal must not change the seats under the first).
    pub fn add_secrets(&mut self, secrets: &[(String, String)]) -> Result<(), JournalError> {
        let r = (|| {
            let tx = self.conn.savepoint()?;
            for (name, value) in secrets {
                tx.execute(
                    "INSERT OR IGNORE INTO secrets (name, value) VALUES (?1, ?2)",
                    params![name, value],
                )?;
            }
            tx.commit()
        })();
        self.sql(r)
    }

    /// The chit cup as last stored, if the game has one.
    pub fn cup<T: for<'de> Deserialize<'de>>(&self) -> Result<Option<T>, JournalError> {
        let row = self
            .conn
            .query_row("SELECT state FROM cup WHERE id = 1", [], |r| {
                r.get::<_, String>(0)
            })
            .optional();
        match self.sql(row)? {
            Some(text) => self.parse(|| "the chit cup".into(), &text).map(Some),
            None => Ok(None),
        }
    }

    /// Store the chit cup as it stands now, replacing the last one.
    pub fn store_cup(&mut self, cup: &impl Serialize, ts_ms: Millis) -> Result<(), JournalError> {
        let state = self.json("the chit cup", cup)?;
        let r = self.conn.execute(
            "INSERT INTO cup (id, ts_ms, state) VALUES (1, ?1, ?2)
             ON CONFLICT (id) DO UPDATE SET ts_ms = excluded.ts_ms, state = excluded.state",
            params![ts_ms, state],
        );
        self.sql(r).map(|_| ())
    }

    /// Store a dice roll: `value` is whatever the dice module returns, kept as JSON.
    pub fn record_roll(
        &mut self,
        kind: &str,
        value: &impl Serialize,
        ts_ms: Millis,
    ) -> Result<i64, JournalError> {
        self.record_draw(DrawCategory::Roll, kind, value, ts_ms)
    }

    /// Store a chit drawn from the cup (or put back), kept as JSON.
    pub fn record_chit_draw(
        &mut self,
        kind: &str,
        value: &impl Serialize,
        ts_ms: Millis,
    ) -> Result<i64, JournalError> {
        self.record_draw(DrawCategory::Chit, kind, value, ts_ms)
    }

    fn record_draw(
        &mut self,
        category: DrawCategory,
        kind: &str,
        value: &impl Serialize,
        ts_ms: Millis,
    ) -> Result<i64, JournalError> {
        let turn = self.current_turn()?.turn;
        let after_seq = self.latest_seq()?;
        let value = self.json(kind, value)?;
        let r = self.conn.execute(
            "INSERT INTO draws (ts_ms, turn, after_seq, category, kind, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![ts_ms, turn, after_seq, category.as_str(), kind, value],
        );
        self.sql(r)?;
        Ok(self.conn.last_insert_rowid())
    }

    pub fn latest_seq(&self) -> Result<Option<i64>, JournalError> {
        let r = self
            .conn
            .query_row("SELECT max(seq) FROM states", [], |r| r.get(0));
        self.sql(r)
    }

    /// The last stable state, to resume after a restart.
    pub fn latest_state(&self) -> Result<Option<StoredState>, JournalError> {
        Ok(self
            .states_where("seq = (SELECT max(seq) FROM states)", params![])?
            .pop())
    }

    /// One stable state, for stepping back through the game.
    pub fn state(&self, seq: i64) -> Result<Option<StoredState>, JournalError> {
        Ok(self.states_where("seq = ?1", [seq])?.pop())
    }

    /// Every stable state, in order.
    pub fn states(&self) -> Result<Vec<StoredState>, JournalError> {
        self.states_where("1", params![])
    }

    fn states_where(
        &self,
        condition: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<StoredState>, JournalError> {
        let rows = (|| {
            let mut stmt = self.conn.prepare(&format!(
                "SELECT seq, ts_ms, turn, phase_id, state FROM states WHERE {condition} ORDER BY seq"
            ))?;
            stmt.query_map(args, |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get::<_, String>(4)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })();
        self.sql(rows)?
            .into_iter()
            .map(|(seq, ts_ms, turn, phase_id, text)| {
                Ok(StoredState {
                    seq,
                    ts_ms,
                    turn,
                    phase_id,
                    state: self.parse(|| format!("state #{seq}"), &text)?,
                })
            })
            .collect()
    }

    /// Events revealed by states after `after_seq` (all of them for `None`), in order:
    /// the page asks for what is new since the last state it showed.
    pub fn events_after(&self, after_seq: Option<i64>) -> Result<Vec<StoredEvent>, JournalError> {
        let rows = (|| {
            let mut stmt = self
                .conn
                .prepare("SELECT id, seq, event FROM events WHERE seq > ?1 ORDER BY seq, id")?;
            stmt.query_map([after_seq.unwrap_or(i64::MIN)], |r| {
                Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get::<_, String>(2)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })();
        self.sql(rows)?
            .into_iter()
            .map(|(id, seq, text)| {
                Ok(StoredEvent {
                    id,
                    seq,
                    event: self.parse(|| format!("event {id}"), &text)?,
                })
            })
            .collect()
    }

    /// Every roll and chit draw, in order.
    pub fn draws(&self) -> Result<Vec<StoredDraw>, JournalError> {
        let rows = (|| {
            let mut stmt = self.conn.prepare(
                "SELECT id, ts_ms, turn, after_seq, category, kind, value FROM draws ORDER BY id",
            )?;
            stmt.query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get::<_, String>(4)?,
                    r.get(5)?,
                    r.get::<_, String>(6)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })();
        self.sql(rows)?
            .into_iter()
            .map(|(id, ts_ms, turn, after_seq, category, kind, value)| {
                Ok(StoredDraw {
                    id,
                    ts_ms,
                    turn,
                    after_seq,
                    category: match category.as_str() {
                        "chit" => DrawCategory::Chit,
                        _ => DrawCategory::Roll,
                    },
                    kind,
                    value: self.parse(|| format!("draw {id}"), &value)?,
                })
            })
            .collect()
    }

    pub fn turns(&self) -> Result<Vec<Turn>, JournalError> {
        let rows = (|| {
            let mut stmt = self
                .conn
                .prepare("SELECT turn, night, started_ms FROM turns ORDER BY turn")?;
            stmt.query_map([], |r| {
                Ok(Turn {
                    turn: r.get(0)?,
                    night: r.get(1)?,
                    started_ms: r.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })();
        self.sql(rows)
    }

    pub fn phases(&self) -> Result<Vec<PhaseRecord>, JournalError> {
        let rows = (|| {
            let mut stmt = self
                .conn
                .prepare("SELECT id, turn, phase, command, ts_ms FROM phases ORDER BY id")?;
            stmt.query_map([], |r| {
                let phase = match (
                    r.get::<_, String>(2)?.as_str(),
                    r.get::<_, Option<String>>(3)?,
                ) {
                    ("activation", Some(command)) => Phase::Activation { command },
                    _ => Phase::Combat,
                };
                Ok(PhaseRecord {
                    id: r.get(0)?,
                    turn: r.get(1)?,
                    phase,
                    ts_ms: r.get(4)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })();
        self.sql(rows)
    }

    /// The whole game, for the exports.
    pub fn load(&self) -> Result<GameLog, JournalError> {
        let game = self.game()?.ok_or_else(|| JournalError::NoGame {
            path: self.path.display().to_string(),
        })?;
        Ok(GameLog {
            schema_version: SCHEMA_VERSION,
            game,
            turns: self.turns()?,
            phases: self.phases()?,
            states: self.states()?,
            events: self.events_after(None)?,
            draws: self.draws()?,
        })
    }

    /// SQLite's own check of the file: "ok" when every page and index is sound.
    pub fn integrity_check(&self) -> Result<String, JournalError> {
        let r = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0));
        self.sql(r)
    }
}
