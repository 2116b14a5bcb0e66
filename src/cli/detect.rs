//! `aide detect`: the pieces in one camera frame, in map inches.

use std::path::{Path, PathBuf};

use aide::model::PieceModel;
use aide::scenario::Scenario;
use aide::vision::{self, Calibration, ColourModel, DetectOptions};
use anyhow::Context;

#[derive(clap::Args)]
pub struct Args {
    /// The frame (PNG or JPEG).
    pub image: PathBuf,
    /// Map size in inches, WxH (e.g. 36x24).
    #[arg(long, value_parser = super::parse_map)]
    pub map: (f64, f64),
    /// Camera file: {"fx","fy","cx","cy","dist":[k1,k2,p1,p2,k3]} (OpenCV's convention),
    /// the same flag as `aide serve`'s. `--camera`, this command's old name for it, still
    /// works.
    #[arg(long = "camera-file", alias = "camera", value_name = "CAMERA.json")]
    pub camera_file: Option<PathBuf>,
    /// Colour model (TOML) learnt with `aide calibrate colors`; the default knows red and blue.
    #[arg(long)]
    pub colors: Option<PathBuf>,
    /// Scenario whose sides' home edges give unmarked blocks their facing.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// The empty map: a map-plane photo of the empty table made by `aide calibrate map`,
    /// or the map's image (SVG, PNG or JPEG, registered to the map). Ink it explains is
    /// not taken for paint.
    #[arg(long, value_name = "FILE")]
    pub reference: Option<PathBuf>,
    /// Write the map as the detector sees it (the frame resampled onto the map plane,
    /// 20 px an inch) with each piece's footprint drawn on it: magenta, the front edge
    /// yellow when read from the facing strip, green when inferred.
    #[arg(long, value_name = "PNG")]
    pub overlay: Option<PathBuf>,
    /// Print JSON instead of a table for a person.
    #[arg(long)]
    pub json: bool,
}

/// Past this the tags' fit says the map is not what `--map` says (a good fit is under a
/// pixel; lens error without a camera file stays under 3).
const MOST_TAG_MISFIT_PX: f64 = 3.0;

pub fn run(args: Args) -> anyhow::Result<()> {
    let image = super::read_frame(&args.image)?;
    let intrinsics = args
        .camera_file
        .as_deref()
        .map(super::read_camera_file)
        .transpose()?;
    let colours = match &args.colors {
        Some(path) => read_toml::<ColourModel>(path)?,
        None => ColourModel::builtin(),
    };
    let scenario = args.scenario.as_deref().map(Scenario::load).transpose()?;
    let model = match &scenario {
        Some(s) => s.model.clone(),
        None => PieceModel::builtin("pub-battles")?,
    };
    let (w, h) = args.map;
    let reference = args
        .reference
        .as_deref()
        .map(|path| vision::MapReference::from_file(path, w, h))
        .transpose()?;
    let calib = Calibration::from_image(&image, w, h, intrinsics)
        .with_context(|| format!("{}", args.image.display()))?;
    // Four tags fit any quadrilateral, but only a map of the size given fits them as
    // seen through one camera: a map of 36x24 read as 34x22 fits to 17 px.
    if calib.reprojection_px > MOST_TAG_MISFIT_PX {
        eprintln!(
            "warning: {}: the corner tags fit a flat {w}x{h} in map only to {:.1} px (a good fit is under 1 px): is --map the map's size, and are the cards flat on its corners?",
            args.image.display(),
            calib.reprojection_px
        );
    }
    let facing_away = |colour: &str| {
        scenario
            .as_ref()
            .and_then(|s| s.side(colour))
            .map(|side| side.home_edge.facing_away_deg())
    };
    let detection = vision::detect(
        &image,
        &calib,
        &DetectOptions {
            colours: &colours,
            model: &model,
            facing_away: &facing_away,
            reference: reference.as_ref(),
        },
    );
    if let Some(path) = &args.overlay {
        let mut view = vision::plane::map_plane_view(&image, &calib, vision::detect::PX_PER_IN);
        vision::plane::draw_footprints(&mut view, &detection.pieces, vision::detect::PX_PER_IN);
        view.save(path)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "pieces": detection.pieces,
                "disturbance": detection.disturbance,
                "camera": {
                    "over_in": [calib.camera_over().0, calib.camera_over().1],
                    "height_in": calib.camera_over().2,
                    "focal_px": calib.camera.intrinsics.fx,
                    "focal_from_file": calib.focal_from_file,
                    "reprojection_px": calib.reprojection_px,
                },
            }))?
        );
        return Ok(());
    }
    let (cx, cy, ch) = calib.camera_over();
    println!(
        "{}: {} pieces; camera {:.1} in above ({:.1}, {:.1}), tags fit to {:.2} px",
        args.image.display(),
        detection.pieces.len(),
        ch,
        cx,
        cy,
        calib.reprojection_px
    );
    for p in &detection.pieces {
        println!(
            "  {:5} {:5} ({:6.2}, {:6.2}) facing {:5.1} ({}), {}, {:.2} x {:.2} in, confidence {:.2}",
            p.color,
            p.kind,
            p.x_in,
            p.y_in,
            p.heading_deg,
            p.facing,
            p.status,
            p.length_in,
            p.width_in,
            p.confidence
        );
    }
    if detection.disturbance > 0.01 {
        println!(
            "  {:.0}% of the map is covered (a hand?)",
            100.0 * detection.disturbance
        );
    }
    Ok(())
}

fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("{}", path.display()))
}
