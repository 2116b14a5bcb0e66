//! `aide log`: read a game's journal (text, Markdown report, JSON), or build one from
//! state files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use aide::capture::video::{Pace, VideoFile};
use aide::capture::{CaptureError, FrameSource};
use aide::journal::{self, Journal, Phase, Recorder};
use aide::live::{self, Observer};
use aide::scenario::{Scenario, TableError, load_state};
use aide::table::{Pose, TableState};
use aide::track::{Tracker, TrackerConfig};
use aide::vision::{ColourModel, TableObserver};
use anyhow::{Context, anyhow, bail};

/// The turn log of a game: who moved where, how far, and what it broke.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<LogCommand>,
    /// The game's journal (an SQLite file written by the tracker or `aide log record`),
    /// or the name of a game in the user's data directory.
    #[arg(required = true)]
    pub db: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write here instead of printing. For Markdown, each turn's map is written beside
    /// it as NAME-turn-N.svg and each state's camera picture as NAME-state-SEQ.jpg;
    /// printed Markdown carries them inline. HTML always carries them inside.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// The scenario, when it is not where the journal says it was played from.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// Turn by turn, for a person at the terminal.
    Text,
    /// An after-action report with a map per turn and the camera's picture of each
    /// state.
    #[value(alias = "md")]
    Markdown,
    /// The after-action report as one self-contained web page (maps and pictures
    /// inside it).
    Html,
    /// Everything in the journal.
    Json,
}

#[derive(clap::Subcommand)]
pub enum LogCommand {
    /// Build a journal from state files, each a stable view of the table; the events
    /// are derived between consecutive ones.
    Record(RecordArgs),
    /// Write stable states as fast as possible until killed, printing each committed
    /// sequence number: what the crash test kills mid-write.
    #[command(hide = true)]
    Soak(SoakArgs),
}

#[derive(clap::Args)]
pub struct RecordArgs {
    #[arg(long)]
    pub scenario: PathBuf,
    /// The journal to write (created if missing, appended to otherwise). Default:
    /// GAME.db in the user's data directory, GAME being the scenario file's name.
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Begin this turn before recording (turns only go forward).
    #[arg(long)]
    pub turn: Option<u32>,
    /// The turn begun with --turn is a night turn.
    #[arg(long, requires = "turn")]
    pub night: bool,
    /// Begin an activation of this command (its id) before recording.
    #[arg(long, conflicts_with = "combat")]
    pub activate: Option<String>,
    /// Begin the combat phase before recording.
    #[arg(long)]
    pub combat: bool,
    /// State files in the order they were seen ({"pieces":[...]}, as `aide check` reads).
    #[arg(required_unless_present = "video", conflicts_with = "video")]
    pub states: Vec<PathBuf>,
    /// A recorded game instead: an H.264 .mp4 file, every picture read by the detector
    /// and the tracker, each stable view recorded as it settles.
    #[arg(long)]
    pub video: Option<PathBuf>,
    /// The table when the video starts (a state file); without it the first stable view
    /// is the scenario's setup, its pieces named by their setup positions.
    #[arg(long, requires = "video")]
    pub start: Option<PathBuf>,
    /// The video camera's lens (as `aide serve --camera-file`).
    #[arg(long, requires = "video")]
    pub camera_file: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct SoakArgs {
    #[arg(long)]
    pub scenario: PathBuf,
    #[arg(long)]
    pub db: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Some(LogCommand::Record(r)) => record(r),
        Some(LogCommand::Soak(s)) => soak(s),
        None => show(
            &args
                .db
                .expect("clap requires the journal without a subcommand"),
            args.format,
            args.out.as_deref(),
            args.scenario.as_deref(),
        ),
    }
}

fn show(
    db: &Path,
    format: Format,
    out: Option<&Path>,
    scenario_path: Option<&Path>,
) -> anyhow::Result<()> {
    let journal = Journal::open_existing(&find_journal(db)?)?;
    let log = journal.load()?;
    let stored = PathBuf::from(&log.game.scenario_path);
    let scenario = Scenario::load(scenario_path.unwrap_or(&stored));
    let text = match format {
        Format::Json => serde_json::to_string_pretty(&log).context("serialising the journal")?,
        Format::Text => {
            if let Err(e) = &scenario {
                eprintln!("note: units are shown by id: the scenario did not load: {e}");
            }
            journal::text_log(&log, scenario.as_ref().ok())
        }
        Format::Markdown | Format::Html => {
            let scenario = scenario.with_context(|| {
                "the report draws the scenario's map: give --scenario".to_string()
            })?;
            let pictures = journal.pictures()?;
            if matches!(format, Format::Html) {
                journal::html_report(&log, &scenario, &pictures)
            } else {
                let stem = out.map(|o| {
                    o.file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "report".into())
                });
                let report = journal::markdown_report(&log, &scenario, stem.as_deref(), &pictures);
                if let Some(o) = out {
                    let folder = o.parent().unwrap_or(Path::new("."));
                    let maps = report.maps.iter().map(|(f, svg)| (f, svg.as_bytes()));
                    let shots = report.pictures.iter().map(|(f, jpeg)| (f, jpeg.as_slice()));
                    for (file, bytes) in maps.chain(shots) {
                        let path = folder.join(file);
                        std::fs::write(&path, bytes)
                            .with_context(|| format!("writing {}", path.display()))?;
                    }
                }
                report.markdown
            }
        }
    };
    match out {
        Some(o) => std::fs::write(o, text).with_context(|| format!("writing {}", o.display())),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// The journal a user means: the path as given, or, for a bare name that is not a file
/// here, the game of that name in the data directory (where `record` puts it by default).
fn find_journal(db: &Path) -> anyhow::Result<PathBuf> {
    let bare = db.components().count() == 1 && db.extension().is_none();
    if db.is_file() || !bare {
        return Ok(db.to_path_buf());
    }
    let stored = journal::default_path(&db.to_string_lossy())?;
    Ok(if stored.is_file() {
        stored
    } else {
        db.to_path_buf()
    })
}

fn record(args: RecordArgs) -> anyhow::Result<()> {
    if let Some(video) = &args.video {
        return record_video(&args, video);
    }
    let scenario = Scenario::load(&args.scenario)?;
    // Every file is read and put on the table before the journal is touched: bad input
    // is reported naming its file, and nothing is written.
    let tables: Vec<(PathBuf, TableState)> = args
        .states
        .iter()
        .map(|path| match load_state(&scenario, path) {
            Ok(table) => Ok((path.clone(), table)),
            // These name the file themselves.
            Err(e @ (TableError::Parse { .. } | TableError::Io { .. })) => Err(anyhow!("{e}")),
            Err(e) => Err(anyhow!("{}: {e}", path.display())),
        })
        .collect::<anyhow::Result<_>>()?;
    if let Some(command) = &args.activate
        && scenario.command(command).is_none()
    {
        bail!("--activate {command}: no such command in {}", scenario.name);
    }
    let db = journal_path(&args)?;
    let mut recorder = Recorder::open(&db, Arc::new(scenario))?;
    // One transaction for the whole call: a failure (or a kill) halfway leaves the
    // journal as it was before.
    let lines = recorder.atomically(|r| -> anyhow::Result<Vec<String>> {
        begin(&args, r)?;
        let mut lines = Vec::new();
        for (path, table) in &tables {
            let line = match r.observe(table, journal::now_ms())? {
                Some(rec) => format!(
                    "#{} {}: {} event{}",
                    rec.seq,
                    path.display(),
                    rec.events.len(),
                    if rec.events.len() == 1 { "" } else { "s" }
                ),
                None => format!("{}: nothing moved, not recorded", path.display()),
            };
            lines.push(line);
        }
        Ok(lines)
    })?;
    for line in lines {
        println!("{line}");
    }
    println!("journal: {}", db.display());
    Ok(())
}

/// The journal `record` writes: --db, or GAME.db in the user's data directory.
fn journal_path(args: &RecordArgs) -> anyhow::Result<PathBuf> {
    match &args.db {
        Some(db) => Ok(db.clone()),
        None => {
            let game = args
                .scenario
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "game".into());
            Ok(journal::default_path(&game)?)
        }
    }
}

/// The turn and phase `record` was asked to begin.
fn begin(args: &RecordArgs, r: &mut Recorder) -> anyhow::Result<()> {
    let now = journal::now_ms();
    if let Some(turn) = args.turn {
        r.journal().begin_turn(turn, args.night, now)?;
    }
    if let Some(command) = &args.activate {
        r.journal().begin_phase(
            &Phase::Activation {
                command: command.clone(),
            },
            now,
        )?;
    } else if args.combat {
        r.journal().begin_phase(&Phase::Combat, now)?;
    }
    Ok(())
}

/// `record --video`: every picture of a recorded game through the detector and the
/// tracker, each stable view committed as it settles (a video cut short keeps what
/// was committed before).
fn record_video(args: &RecordArgs, video: &Path) -> anyhow::Result<()> {
    let scenario = Scenario::load(&args.scenario)?;
    if let Some(command) = &args.activate
        && scenario.command(command).is_none()
    {
        bail!("--activate {command}: no such command in {}", scenario.name);
    }
    let start = match &args.start {
        Some(path) => Some(load_state(&scenario, path).map_err(|e| match e {
            TableError::Parse { .. } | TableError::Io { .. } => anyhow!("{e}"),
            e => anyhow!("{}: {e}", path.display()),
        })?),
        None => None,
    };
    let intrinsics = args
        .camera_file
        .as_deref()
        .map(super::read_camera_file)
        .transpose()?;
    let mut source = VideoFile::open(video, Pace::Detector)?;
    eprintln!("reading {}", source.describe());
    let shared = Arc::new(scenario.clone());
    let mut observer = TableObserver::new(&scenario, intrinsics, ColourModel::builtin());
    let config = TrackerConfig::default();
    let mut tracker = match &start {
        Some(table) => Tracker::resume(shared.clone(), config, table.clone()),
        None => Tracker::new(shared.clone(), config),
    };
    let db = journal_path(args)?;
    let mut recorder = Recorder::open(&db, shared)?;
    recorder.atomically(|r| begin(args, r))?;
    if let Some(table) = &start {
        recorder.observe(table, journal::now_ms())?;
    }
    let (mut pictures, mut unreadable) = (0u64, 0u64);
    loop {
        let frame = match source.next_frame() {
            Ok(frame) => frame,
            Err(CaptureError::Lost(why)) => {
                eprintln!("skipped: {why}");
                continue;
            }
            Err(CaptureError::Unavailable(_)) => break,
        };
        pictures += 1;
        let observation = live::observe(&mut observer, &frame).unwrap_or_else(|seen| {
            unreadable += 1;
            seen
        });
        if let Some(table) = tracker.push(&observation)
            && let Some(rec) = recorder.observe_seen(
                &table,
                observation.ts_ms,
                observer.picture(&frame).as_ref(),
            )?
        {
            let at_s = (frame.ts_ms - source.started_ms()) as f64 / 1000.0;
            println!(
                "#{} at {at_s:.1} s: {} event{}",
                rec.seq,
                rec.events.len(),
                if rec.events.len() == 1 { "" } else { "s" }
            );
        }
    }
    println!(
        "{pictures} pictures read, {unreadable} without the corner cards in view; journal: {}",
        db.display()
    );
    Ok(())
}

/// Shuttle the scenario's first unit 1 in forward and back for ever, each stable state
/// committed on its own, its seq printed (and flushed) only after the commit returned.
fn soak(args: SoakArgs) -> anyhow::Result<()> {
    let scenario = Arc::new(Scenario::load(&args.scenario)?);
    let mut recorder = Recorder::open(&args.db, scenario.clone())?;
    let mut table = scenario.setup_table();
    let Some(first) = table.pieces.first().map(|p| p.id.clone()) else {
        bail!("{}: no unit has a setup pose", args.scenario.display());
    };
    let stdout = std::io::stdout();
    for step in 0u64.. {
        let piece = table
            .pieces
            .iter_mut()
            .find(|p| p.id == first)
            .expect("the unit stays on the table");
        let dy = if step % 2 == 0 { -1.0 } else { 1.0 };
        let pose = Pose::new(
            piece.pose.x_in,
            piece.pose.y_in + dy,
            piece.pose.heading_deg,
        );
        let unit = scenario
            .unit(&first)
            .expect("setup units are the scenario's");
        piece.pose = pose;
        piece.footprint = scenario.footprint(unit, pose, piece.status);
        if let Some(rec) = recorder.observe(&table, journal::now_ms())? {
            let mut out = stdout.lock();
            writeln!(out, "{}", rec.seq)?;
            out.flush()?;
        }
    }
    Ok(())
}
