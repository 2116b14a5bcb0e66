//! `aide check`: every measuring question for every piece of a table state.

use std::path::PathBuf;

/// Check command range, fields of fire, sight and flanks for a table state.
#[derive(clap::Args)]
pub struct Args {
    /// Scenario file (TOML).
    #[arg(long)]
    pub scenario: PathBuf,
    /// Table state: {"pieces":[{"id","x_in","y_in","heading_deg","status"}]}.
    #[arg(long)]
    pub state: PathBuf,
    /// Print JSON instead of text for a person.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("aide check is being written")
}
