//! `aide roll`: throw dice from notation and print every die.

use aide::dice::{Notation, RollId, Roller};

/// Roll dice: "3d6 hits 4+ -1", "2d6", "d3", "d8", "4d6 dl1". Every roll prints its id;
/// pass it back with --seed (or --replay) to show the same dice again.
#[derive(clap::Args)]
pub struct Args {
    /// Dice notation, e.g. "3d6 hits 4+ -1" (quote it: it has spaces).
    pub notation: String,
    /// Replay a roll: its id as printed (r00000000000004d2) or a decimal seed.
    #[arg(long, visible_alias = "replay")]
    pub seed: Option<RollId>,
    /// Print JSON instead of text for a person.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let notation: Notation = args.notation.parse()?;
    let mut roller = match args.seed {
        Some(id) => Roller::replay(id),
        None => Roller::from_os()?,
    };
    let report = notation.roll(&mut roller);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{report}");
        println!(
            "replay: aide roll \"{}\" --seed {}",
            report.notation, report.roll_id
        );
    }
    Ok(())
}
