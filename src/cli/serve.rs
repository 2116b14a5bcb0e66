//! `aide serve`: the live table server and the phone page.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use aide::journal::Recorder;
use aide::scenario::{Scenario, load_state};
use aide::web::{self, AppState, Setup, demo, feed, qr};
use anyhow::Context;

/// Serve the table to phones on the LAN: the built-in demo by default, or a scenario and
/// a state file.
#[derive(clap::Args)]
pub struct Args {
    /// Scenario file (TOML); without it the built-in demo replays a short game.
    #[arg(long, requires = "state")]
    pub scenario: Option<PathBuf>,
    /// Table state to serve with --scenario.
    #[arg(long, requires = "scenario")]
    pub state: Option<PathBuf>,
    /// Address and port to listen on; port 0 picks a free one.
    #[arg(long, default_value = "0.0.0.0:8080")]
    pub bind: SocketAddr,
    /// Keep the turn log (states, rolls, chit draws) in this SQLite journal.
    #[arg(long)]
    pub journal: Option<PathBuf>,
    /// Demo replay speed in table states per second; 0 holds the first state.
    #[arg(long, default_value_t = 0.5)]
    pub replay_rate: f64,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.replay_rate.is_finite() && args.replay_rate >= 0.0,
        "--replay-rate must be a number of states per second, 0 or more"
    );
    let (scenario, tables, map_svg, terrain) = match (&args.scenario, &args.state) {
        (Some(path), Some(state)) => {
            let scenario = Scenario::load(path)?;
            let table = load_state(&scenario, state)?;
            let map_svg = match scenario.map_image_path() {
                Some(p) if p.extension().is_some_and(|e| e == "svg") => Some(
                    std::fs::read_to_string(&p)
                        .with_context(|| format!("reading the map image {}", p.display()))?,
                ),
                _ => None,
            };
            let terrain = match &scenario.map.terrain {
                Some(rel) => {
                    let p = path.parent().unwrap_or(std::path::Path::new(".")).join(rel);
                    std::fs::read_to_string(&p)
                        .with_context(|| format!("reading the terrain {}", p.display()))?
                }
                None => String::new(),
            };
            (scenario, vec![table], map_svg, terrain)
        }
        _ => {
            let scenario = demo::scenario().context("loading the built-in demo")?;
            let tables = demo::tables(&scenario).context("the built-in demo's script")?;
            (
                scenario,
                tables,
                Some(demo::MAP_SVG.to_owned()),
                demo::TERRAIN_GEOJSON.to_owned(),
            )
        }
    };
    let recorder = match &args.journal {
        Some(path) => Some(
            Recorder::open(path, Arc::new(scenario.clone()))
                .with_context(|| format!("opening the journal {}", path.display()))?,
        ),
        None => None,
    };

    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(args.bind))
        .with_context(|| format!("binding {}", args.bind))?;
    let bound = listener.local_addr()?;
    let url = qr::lan_url(bound);

    let (publisher, rx) = feed::Publisher::new(tables[0].clone(), feed::Source::Replay);
    let state = AppState::new(
        Setup {
            scenario,
            map_svg,
            terrain_geojson: terrain,
            recorder,
            url: url.clone(),
        },
        rx,
    )?;
    feed::spawn(
        Box::new(feed::Replay {
            tables,
            rate: args.replay_rate,
        }),
        publisher,
    )
    .context("starting the feed thread")?;

    println!("{}", qr::terminal(&url));
    println!("aide-de-camp serving {} on {url}", state.scenario.name);
    println!("listening on {bound}");
    runtime.block_on(async move {
        tokio::select! {
            served = web::serve(listener, state) => served.context("serving"),
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}
