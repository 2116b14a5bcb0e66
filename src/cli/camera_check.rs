//! `aide camera-check`: is the camera set up well enough? One frame (a photo, or one
//! grabbed from the camera `aide serve` will use), its corner cards, and what the
//! player should change, in words ([`aide::vision::camera_check`], which the page's
//! camera step shows too).

use std::path::PathBuf;

use aide::capture::{CameraOptions, CameraSpec, CaptureError, FrameSource};
use aide::scenario::Scenario;
use aide::vision::camera_check::{Report, check};
use anyhow::Context;
use image::RgbImage;

#[derive(clap::Args)]
pub struct Args {
    /// A photo of the table (PNG or JPEG) as the camera sees it.
    #[arg(long, conflicts_with = "camera", required_unless_present = "camera")]
    pub image: Option<PathBuf>,
    /// Or the camera itself, as `aide serve --camera` takes it: one frame is grabbed.
    #[arg(long)]
    pub camera: Option<CameraSpec>,
    /// Map size in inches, WxH.
    #[arg(long, value_parser = super::parse_map, required_unless_present = "scenario")]
    pub map: Option<(f64, f64)>,
    /// Or the scenario, whose map size is used.
    #[arg(long, conflicts_with = "map")]
    pub scenario: Option<PathBuf>,
    /// The camera's lens file, as `aide serve --camera-file`.
    #[arg(long)]
    pub camera_file: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (map_w, map_h) = match (&args.map, &args.scenario) {
        (Some(map), _) => *map,
        (None, Some(path)) => {
            let s = Scenario::load(path)?;
            (s.map.width_in, s.map.height_in)
        }
        (None, None) => unreachable!("clap requires --map or --scenario"),
    };
    let intrinsics = args
        .camera_file
        .as_deref()
        .map(super::read_camera_file)
        .transpose()?;
    let (image, mut source) = match (&args.image, &args.camera) {
        (Some(path), _) => (super::read_frame(path)?, None),
        (None, Some(camera)) => {
            let (image, source) = grab(camera)?;
            (image, Some(source))
        }
        (None, None) => unreachable!("clap requires --image or --camera"),
    };
    let mut report = check(&image, map_w, map_h, intrinsics);
    // As `aide serve` does once the cards are read: a webcam's automatic exposure, white
    // balance and focus are held, and the player hears which the camera refused.
    if let Some(source) = &mut source
        && report.cards.iter().all(|c| c.found)
    {
        report.controls = source.lock_controls();
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    Ok(())
}

/// One frame from the camera, skipping a few while it settles its exposure.
fn grab(camera: &CameraSpec) -> anyhow::Result<(RgbImage, Box<dyn FrameSource>)> {
    let mut source = camera
        .open(CameraOptions::default())
        .with_context(|| "opening the camera")?;
    let mut last = None;
    for _ in 0..5 {
        match source.next_frame() {
            Ok(frame) => last = Some(frame.image),
            Err(CaptureError::Lost(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    match last {
        Some(image) => Ok((image, source)),
        None => anyhow::bail!("{}: no frame", source.describe()),
    }
}

fn text(r: &Report) -> String {
    let mut out = format!("frame {}x{}\n", r.frame.0, r.frame.1);
    for c in &r.cards {
        if c.found {
            out += &format!(
                "card {} {:<12} found   {:>6} px/in   edge {:>4} px   white {:>3}   black {:>3}\n",
                c.id,
                c.corner,
                c.px_per_in.map_or("-".into(), |v| format!("{v:.1}")),
                c.edge_px.map_or("-".into(), |v| format!("{v:.1}")),
                c.white.map_or("-".into(), |v| format!("{v:.0}")),
                c.black.map_or("-".into(), |v| format!("{v:.0}")),
            );
        } else {
            out += &format!("card {} {:<12} NOT FOUND\n", c.id, c.corner);
        }
    }
    if let (Some((x, y, h)), Some(far), Some(ppi), Some(expected)) = (
        r.camera_over_in,
        r.far_corner_in,
        r.far_px_per_in,
        r.expected_in,
    ) {
        out += &format!(
            "camera {h:.1} in above ({x:.1}, {y:.1}); far corner ({:.0}, {:.0}) at {ppi:.1} px/in\n",
            far.0, far.1
        );
        out += &format!(
            "expected accuracy there: {expected:.3} in (resolution {:.3}, lens {:.3}, \
             parallax {:.3} of {:.2} corrected)\n",
            r.resolution_in.unwrap_or(0.0),
            r.lens_in.unwrap_or(0.0),
            r.parallax_left_in.unwrap_or(0.0),
            r.parallax_in.unwrap_or(0.0)
        );
    }
    for c in &r.controls {
        out += &format!("camera control: {c}\n");
    }
    if r.fix.is_empty() {
        out += "good: nothing to fix\n";
    } else {
        for f in &r.fix {
            out += &format!("fix: {f}\n");
        }
    }
    out
}
