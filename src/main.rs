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
    Check(cli::check::Args),
    Roll(cli::roll::Args),
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    match Cli::parse().command {
        Command::Check(args) => cli::check::run(args),
        Command::Roll(args) => cli::roll::run(args),
    }
}
