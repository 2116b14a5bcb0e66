//! `aide render`: a synthetic frame of a random table and its ground truth.

use std::path::PathBuf;

use aide::model::PieceModel;
use aide::sim::{self, Hand};
use anyhow::Context;

#[derive(clap::Args)]
pub struct Args {
    /// The table and camera are drawn from this seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The printed map: `procedural` (36x24), `WxH` (a procedural map of that size in
    /// inches), `demo` (the built-in demo's map), or an SVG file drawn at its printed size.
    #[arg(long, default_value = "36x24", value_parser = super::parse_printed_map)]
    pub map: super::PrintedMap,
    #[arg(long, default_value_t = 1920)]
    pub width: u32,
    #[arg(long, default_value_t = 1080)]
    pub height: u32,
    /// Draw a hand and forearm reaching in from the bottom edge.
    #[arg(long)]
    pub hand: bool,
    /// Blocks of a side touching: lines end to end and columns, as in play.
    #[arg(long)]
    pub touching: bool,
    #[command(flatten)]
    pub rounded_edge: super::RoundedEdge,
    /// No pieces: the empty table, as `aide calibrate map` wants it photographed.
    #[arg(long, conflicts_with_all = ["touching", "hand"])]
    pub empty: bool,
    /// Folder to write frame.png, truth.json, camera.json and scene.json into.
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (w, h, printed) = args.map.load()?;
    let mut scene = if args.touching {
        sim::touching_scene(args.seed, w, h, args.width, args.height)
    } else {
        sim::random_scene(args.seed, w, h, args.width, args.height)
    };
    scene.rounded_edge_in = args.rounded_edge.inches;
    if args.empty {
        scene.pieces.clear();
    }
    if args.hand {
        scene.hand = Some(Hand {
            from: [w * 0.55, h + 6.0],
            to: [w * 0.5, h * 0.55],
            height_in: 4.0,
        });
    }
    let image = match &printed {
        Some(map) => sim::render_on(&scene, &PieceModel::builtin("pub-battles")?, map),
        None => sim::render(&scene),
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let png = args.out.join("frame.png");
    image
        .save(&png)
        .with_context(|| format!("writing {}", png.display()))?;
    let truth = args.out.join("truth.json");
    std::fs::write(&truth, serde_json::to_string_pretty(&scene.truth_json())?)
        .with_context(|| format!("writing {}", truth.display()))?;
    let scene_file = args.out.join("scene.json");
    std::fs::write(&scene_file, serde_json::to_string_pretty(&scene)?)
        .with_context(|| format!("writing {}", scene_file.display()))?;
    // The lens the frame was drawn through, as the camera file a calibration would give:
    // `aide detect frame.png --camera camera.json` reads the frame as `aide bench vision
    // --camera-file` does.
    let camera = args.out.join("camera.json");
    std::fs::write(
        &camera,
        serde_json::to_string_pretty(&scene.pinhole().intrinsics)?,
    )
    .with_context(|| format!("writing {}", camera.display()))?;
    println!(
        "{}: {} pieces, camera {:.1} in up; truth in {}, the lens in {}",
        png.display(),
        scene.pieces.len(),
        scene.camera.height_in,
        truth.display(),
        camera.display()
    );
    Ok(())
}
