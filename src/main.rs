//! `aide`: the command line of aide-de-camp.

mod cli;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "aide",
    version,
    about = "A webcam companion for the Pub Battles table"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every measuring question for every piece of a table state.
    Check(cli::check::Args),
    /// Whether one move is allowed, and what it cost.
    Move(cli::move_piece::Args),
    /// The turn log of a game: print it, export it, or record one from state files.
    Log(cli::log::Args),
    /// Roll dice: notation ("3d6 hits 4+ -1") or a combat between two pieces.
    Roll(cli::roll::Args),
    /// Serve the table to phones: live state, checks, dice and chits over HTTP and WebSocket.
    Serve(cli::serve::Args),
    /// The pieces in one camera frame, in map inches.
    Detect(cli::detect::Args),
    /// The webcams this machine has, each with its modes (cargo feature `camera`).
    Cameras(cli::cameras::Args),
    /// Is the camera set up well? Corner cards found, per card pixels an inch and
    /// sharpness, the accuracy to expect at the far corner, and what to fix.
    CameraCheck(cli::camera_check::Args),
    /// Printable corner cards and facing strips.
    #[command(subcommand)]
    Calibrate(cli::calibrate::Calibrate),
    /// A synthetic frame of a random table, with its ground truth.
    Render(cli::render::Args),
    /// Measure a stage against ground truth: accuracy and speed.
    #[command(subcommand)]
    Bench(Bench),
}

#[derive(Subcommand)]
enum Bench {
    /// The detector on rendered frames: recall, precision, centre and heading error, speed.
    Vision(cli::bench_vision::Args),
    /// The tracker on scripted games: identity kept, events found, false moves.
    Track(cli::bench_track::Args),
    /// A phone's MJPEG stream on loopback through decode, detector and tracker: how old
    /// a frame is when its detection is in.
    Stream(cli::bench_stream::Args),
}

fn main() -> std::process::ExitCode {
    // Our own warnings (a map reference that does not fit the table) reach the person
    // at the table unless RUST_LOG says otherwise.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("aide=warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let command = Cli::parse().command;
    if !matches!(command, Command::Serve(_)) {
        end_quietly_on_closed_pipe();
    }
    // Errors are for a person at the table: the chain of causes, no backtrace.
    match run(command) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `aide detect FRAME --json | head` closes the pipe before the output ends. Rust's
/// runtime ignores SIGPIPE, so the next `println!` would panic with a backtrace; the Unix
/// default ends the process quietly instead, as `cat` and `grep` do. Not for `aide
/// serve`, which writes to sockets a phone may drop at any moment and handles the error.
#[cfg(unix)]
fn end_quietly_on_closed_pipe() {
    // SAFETY: sets a signal's disposition back to the system default, at start-up, before
    // any other thread exists; no handler runs in this program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_closed_pipe() {}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Check(args) => cli::check::run(args),
        Command::Move(args) => cli::move_piece::run(args),
        Command::Log(args) => cli::log::run(args),
        Command::Roll(args) => cli::roll::run(args),
        Command::Serve(args) => cli::serve::run(args),
        Command::Render(args) => cli::render::run(args),
        Command::Detect(args) => cli::detect::run(args),
        Command::CameraCheck(args) => cli::camera_check::run(args),
        Command::Cameras(args) => cli::cameras::run(args),
        Command::Calibrate(command) => cli::calibrate::run(command),
        Command::Bench(Bench::Track(args)) => cli::bench_track::run(args),
        Command::Bench(Bench::Vision(args)) => cli::bench_vision::run(args),
        Command::Bench(Bench::Stream(args)) => cli::bench_stream::run(args),
    }
}
