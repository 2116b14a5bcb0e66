//! `aide move`: may this piece move from where it stands to there?

use std::path::PathBuf;

use aide::rules::for_scenario;
use aide::scenario::{Scenario, load_state};
use aide::table::{Pose, Status};
use anyhow::{Context, bail};

/// Check one move against the rules: allowance, terrain, facing, enemies.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    pub scenario: PathBuf,
    /// Table state before the move.
    #[arg(long)]
    pub state: PathBuf,
    /// Unit id of the piece that moves.
    #[arg(long)]
    pub unit: String,
    /// Where it ends: X,Y,HEADING in map inches and degrees, e.g. 12.5,10,45.
    #[arg(long, value_parser = parse_pose)]
    pub to: Pose,
    /// It ends spent (lying flat) instead of keeping its state.
    #[arg(long, conflicts_with = "fresh")]
    pub spent: bool,
    /// It ends fresh (standing up).
    #[arg(long)]
    pub fresh: bool,
    /// Apply the night turn's limits.
    #[arg(long)]
    pub night: bool,
    #[arg(long)]
    pub json: bool,
}

/// X,Y,HEADING in map inches and degrees.
pub fn parse_pose(s: &str) -> Result<Pose, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let nums: Result<Vec<f64>, _> = parts.iter().map(|p| p.parse::<f64>()).collect();
    match nums.as_deref() {
        Ok([x, y, h]) if x.is_finite() && y.is_finite() && h.is_finite() => {
            Ok(Pose::new(*x, *y, *h))
        }
        _ => Err(format!("expected X,Y,HEADING as three numbers, got {s:?}")),
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let scenario = Scenario::load(&args.scenario)?;
    let table = load_state(&scenario, &args.state)?;
    let Some(piece) = table.piece(&args.unit) else {
        bail!(
            "unit {:?} is not on the table in {}",
            args.unit,
            args.state.display()
        );
    };
    let status = match (args.spent, args.fresh) {
        (true, _) => Status::Spent,
        (_, true) => Status::Fresh,
        _ => piece.status,
    };
    let verdict =
        for_scenario(&scenario).check_move(&scenario, &table, piece, args.to, status, args.night);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&verdict).context("serialising the verdict")?
        );
        return Ok(());
    }
    println!(
        "{}: {} — moves {:.2} in of {:.2} in allowed (margin {:+.2} in)",
        args.unit,
        if verdict.legal { "LEGAL" } else { "NOT LEGAL" },
        verdict.distance_in,
        verdict.allowance_in,
        verdict.margin_in
    );
    for c in &verdict.costs {
        println!("  {c}");
    }
    for p in &verdict.problems {
        println!("  problem: {p}");
    }
    for w in &verdict.warnings {
        println!("  warning: {w}");
    }
    Ok(())
}
