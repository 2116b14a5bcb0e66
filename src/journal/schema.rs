//! The journal's tables, versioned with `PRAGMA user_version` so that a later aide can
//! recognise an older file and migrate it in place instead of refusing it.

use rusqlite::Connection;

/// The schema this build writes. Each entry of `MIGRATIONS` takes a file from version
/// `index` to `index + 1`; a new version appends one entry and never edits an old one.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

const MIGRATIONS: [&str; 3] = [V1, V2, V3];

/// Version 1: the game, its turns and phases, every stable state, the events between
/// them, and every roll and chit draw. JSON columns are checked with `json_valid` so a
/// bad write fails loudly instead of leaving a row nobody can read back.
const V1: &str = "
CREATE TABLE game (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    scenario_name   TEXT NOT NULL,
    scenario_path   TEXT NOT NULL,
    scenario_sha256 TEXT NOT NULL,
    terrain_sha256  TEXT,
    rules           TEXT NOT NULL,
    started_ms      INTEGER NOT NULL
);
CREATE TABLE turns (
    turn       INTEGER PRIMARY KEY CHECK (turn >= 0),
    night      INTEGER NOT NULL CHECK (night IN (0, 1)),
    started_ms INTEGER NOT NULL
);
CREATE TABLE phases (
    id      INTEGER PRIMARY KEY,
    turn    INTEGER NOT NULL REFERENCES turns(turn),
    phase   TEXT NOT NULL CHECK (phase IN ('activation', 'combat')),
    command TEXT CHECK ((phase = 'activation') = (command IS NOT NULL)),
    ts_ms   INTEGER NOT NULL
);
CREATE TABLE states (
    seq      INTEGER PRIMARY KEY,
    ts_ms    INTEGER NOT NULL,
    turn     INTEGER NOT NULL REFERENCES turns(turn),
    phase_id INTEGER REFERENCES phases(id),
    state    TEXT NOT NULL CHECK (json_valid(state))
);
CREATE TABLE events (
    id    INTEGER PRIMARY KEY,
    seq   INTEGER NOT NULL REFERENCES states(seq),
    unit  TEXT NOT NULL,
    kind  TEXT NOT NULL,
    event TEXT NOT NULL CHECK (json_valid(event))
);
CREATE INDEX events_by_seq ON events(seq);
CREATE INDEX events_by_unit ON events(unit);
CREATE TABLE draws (
    id        INTEGER PRIMARY KEY,
    ts_ms     INTEGER NOT NULL,
    turn      INTEGER NOT NULL REFERENCES turns(turn),
    after_seq INTEGER REFERENCES states(seq),
    category  TEXT NOT NULL CHECK (category IN ('roll', 'chit')),
    kind      TEXT NOT NULL,
    value     TEXT NOT NULL CHECK (json_valid(value))
);
";

/// Version 2: the game's secrets (each seat's token, the key that hides chit draws) and
/// the chit cup as it stands, so that a restart after a crash keeps the seats and
/// resumes the turn as it was. The cup is one row, rewritten on every change.
const V2: &str = "
CREATE TABLE secrets (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE cup (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    ts_ms INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (json_valid(state))
);
";

/// Version 3: the camera's picture of each stable state (the map plane as a JPEG, see
/// `vision::MapPicture`), for the after-action report. A table of its own, so that
/// reading states never loads pictures, and a journal of version 2 reads as one whose
/// states have no picture (a game watched without a camera has none either).
const V3: &str = "
CREATE TABLE pictures (
    seq       INTEGER PRIMARY KEY REFERENCES states(seq),
    ts_ms     INTEGER NOT NULL,
    width     INTEGER NOT NULL CHECK (width > 0),
    height    INTEGER NOT NULL CHECK (height > 0),
    px_per_in REAL NOT NULL CHECK (px_per_in > 0),
    jpeg      BLOB NOT NULL
);
";

/// What [`migrate`] found in the file.
pub enum Found {
    /// The file is at this build's version (after migrating, if it was older).
    Current,
    /// Written by a newer aide: reading it could misread columns, so it is refused.
    Newer(i32),
}

/// Bring the file to [`SCHEMA_VERSION`], each step in its own transaction so a kill
/// leaves either the old version or the new one.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<Found> {
    let found: i32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Ok(Found::Newer(found));
    }
    for (from, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", from as i32 + 1)?;
        tx.commit()?;
    }
    Ok(Found::Current)
}
