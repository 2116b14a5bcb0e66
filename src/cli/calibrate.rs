//! `aide calibrate sheets`: the printable corner cards and facing strips, at true size.

use std::fmt::Write as _;
use std::path::PathBuf;

use aide::model::PieceModel;
use aide::sim::tags;
use aide::table::{Status, UnitKind};
use aide::vision::Calibration;
use aide::vision::calib::TAG_SIZE_IN;
use aide::vision::learn::learn;
use anyhow::Context;

#[derive(clap::Subcommand)]
pub enum Calibrate {
    /// Write corner-cards.svg and facing-strips.svg (US Letter, print at 100%).
    Sheets {
        #[arg(long, default_value = "calibration")]
        out: PathBuf,
    },
    /// Learn a table's colours from a frame: name where one block of each side stands.
    Colors {
        /// The frame (PNG or JPEG) with the four corner tags in view.
        image: PathBuf,
        /// Map size in inches, WxH.
        #[arg(long, value_parser = super::parse_map)]
        map: (f64, f64),
        /// A side and where one of its blocks stands: NAME=X,Y in map inches (repeat).
        #[arg(long = "side", value_parser = parse_side, required = true)]
        sides: Vec<(String, f64, f64)>,
        /// Camera file, as for `aide detect`.
        #[arg(long = "camera-file", alias = "camera", value_name = "CAMERA.json")]
        camera_file: Option<PathBuf>,
        /// Where to write the colour model (TOML) for `aide detect --colors`.
        #[arg(long, default_value = "colors.toml")]
        out: PathBuf,
    },
    /// Photograph the empty map: the reference `aide detect --reference` and `aide serve
    /// --reference` use to tell the map's ink (a blue river, red roofs) from pieces.
    /// Take the pieces off, keep hands out, and keep the camera where it will stand.
    Map {
        /// The frame (PNG or JPEG) of the empty table, the four corner tags in view.
        image: PathBuf,
        /// Map size in inches, WxH.
        #[arg(long, value_parser = super::parse_map)]
        map: (f64, f64),
        /// Camera file, as for `aide detect`.
        #[arg(long = "camera-file", alias = "camera", value_name = "CAMERA.json")]
        camera_file: Option<PathBuf>,
        /// Where to write the reference: the map plane at 20 px an inch (PNG).
        #[arg(long, default_value = "map-reference.png")]
        out: PathBuf,
    },
    /// Measure the camera's lens (cargo feature `opencv`) from 5 to 15 photos of the map
    /// with its four corner cards, taken from different heights, offsets and tilts.
    Camera {
        /// The photos (PNG or JPEG), all from the one camera at one resolution.
        #[arg(required = true)]
        images: Vec<PathBuf>,
        /// Map size in inches, WxH (where the corner cards lie).
        #[arg(long, value_parser = super::parse_map)]
        map: (f64, f64),
        /// Where to write the camera file for `--camera-file` (`aide detect`, `aide serve`
        /// and the other commands).
        #[arg(long, default_value = "camera.json")]
        out: PathBuf,
    },
}

/// `red=12.5,8` -> ("red", 12.5, 8.0).
fn parse_side(text: &str) -> Result<(String, f64, f64), String> {
    let (name, at) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?}: write NAME=X,Y, e.g. red=12.5,8"))?;
    let (x, y) = at
        .split_once(',')
        .ok_or_else(|| format!("{text:?}: write NAME=X,Y, e.g. red=12.5,8"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .map_err(|_| format!("{text:?}: {s:?} is not a number of inches"))
    };
    Ok((name.trim().to_owned(), number(x)?, number(y)?))
}

pub fn run(command: Calibrate) -> anyhow::Result<()> {
    match command {
        Calibrate::Sheets { out } => {
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            let model = PieceModel::builtin("pub-battles")?;
            for (name, svg) in [
                ("corner-cards.svg", corner_cards()),
                ("facing-strips.svg", facing_strips(&model)),
            ] {
                let path = out.join(name);
                std::fs::write(&path, svg)
                    .with_context(|| format!("writing {}", path.display()))?;
                println!("{}", path.display());
            }
            Ok(())
        }
        Calibrate::Colors {
            image,
            map,
            sides,
            camera_file,
            out,
        } => {
            let frame = super::read_frame(&image)?;
            let intrinsics = camera_file
                .as_deref()
                .map(super::read_camera_file)
                .transpose()?;
            let calib = Calibration::from_image(&frame, map.0, map.1, intrinsics)
                .with_context(|| format!("{}", image.display()))?;
            let model = learn(&frame, &calib, &sides)?;
            std::fs::write(&out, toml::to_string(&model)?)
                .with_context(|| format!("writing {}", out.display()))?;
            for side in &model.sides {
                println!(
                    "{}: hue {:.0} +/- {:.0} deg, saturation >= {:.2}, value >= {:.2}",
                    side.name,
                    side.hue_deg,
                    side.hue_tolerance_deg,
                    side.min_saturation,
                    side.min_value
                );
            }
            println!("wrote {}: use it with aide detect --colors", out.display());
            Ok(())
        }
        Calibrate::Map {
            image,
            map,
            camera_file,
            out,
        } => empty_map(&image, map, camera_file.as_deref(), &out),
        Calibrate::Camera { images, map, out } => camera(&images, map, &out),
    }
}

/// `aide calibrate map`: the empty table's map plane, written as the reference; pieces
/// or a hand still in view are named, since they would become part of the map.
fn empty_map(
    image: &std::path::Path,
    (w, h): (f64, f64),
    camera_file: Option<&std::path::Path>,
    out: &std::path::Path,
) -> anyhow::Result<()> {
    use aide::vision::detect::PX_PER_IN;
    use aide::vision::{ColourModel, DetectOptions, detect, plane};

    let frame = super::read_frame(image)?;
    let intrinsics = camera_file.map(super::read_camera_file).transpose()?;
    let calib = Calibration::from_image(&frame, w, h, intrinsics)
        .with_context(|| format!("{}", image.display()))?;
    let model = PieceModel::builtin("pub-battles")?;
    let colours = ColourModel::builtin();
    let none = |_: &str| None;
    let seen = detect(
        &frame,
        &calib,
        &DetectOptions {
            colours: &colours,
            model: &model,
            facing_away: &none,
            reference: None,
        },
    );
    plane::map_plane_view(&frame, &calib, PX_PER_IN)
        .save(out)
        .with_context(|| format!("writing {}", out.display()))?;
    if seen.disturbance > 0.01 {
        eprintln!(
            "warning: {:.0}% of the map is covered by something skin-coloured (a hand?): take the photo again with the table clear",
            100.0 * seen.disturbance
        );
    }
    if !seen.pieces.is_empty() {
        let at: Vec<String> = seen
            .pieces
            .iter()
            .take(5)
            .map(|p| format!("{} {} at ({:.1}, {:.1})", p.color, p.kind, p.x_in, p.y_in))
            .collect();
        let more = seen.pieces.len().saturating_sub(at.len());
        eprintln!(
            "note: without a reference the detector reads {} piece(s) on this map: {}{}. If a piece was left there, take it off and photograph the map again; if it is the map's own print, this reference is what will tell it from a piece.",
            seen.pieces.len(),
            at.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
    println!(
        "wrote {}: the empty {w}x{h} in map at {PX_PER_IN} px an inch; use it with aide detect --reference or aide serve --reference",
        out.display()
    );
    Ok(())
}

#[cfg(not(feature = "opencv"))]
fn camera(_: &[PathBuf], _: (f64, f64), _: &std::path::Path) -> anyhow::Result<()> {
    anyhow::bail!(
        "aide calibrate camera uses OpenCV: build with `cargo build --release --features opencv` \
         (needs apt-get install libopencv-dev clang libclang-dev)"
    )
}

/// Every photo's tag points into OpenCV's calibration; the camera file out.
#[cfg(feature = "opencv")]
fn camera(images: &[PathBuf], (w, h): (f64, f64), out: &std::path::Path) -> anyhow::Result<()> {
    use aide::vision::Intrinsics;
    use aide::vision::calib::tag_points;
    use aide::vision::opencv::calibrate_lens;

    let mut size = None;
    let mut views = Vec::new();
    for path in images {
        let photo = super::read_frame(path)?;
        let (pw, ph) = photo.dimensions();
        match size {
            None => size = Some((pw, ph)),
            Some(s) if s != (pw, ph) => anyhow::bail!(
                "{}: {pw}x{ph} pixels, but the first photo is {}x{}: use one camera at one resolution",
                path.display(),
                s.0,
                s.1
            ),
            Some(_) => {}
        }
        // The points as seen: no lens model yet.
        match tag_points(&photo, w, h, &Intrinsics::ideal(f64::from(pw), pw, ph)) {
            Ok(view) => views.push(view),
            Err(e) => eprintln!("skipped {}: {e}", path.display()),
        }
    }
    let (pw, ph) = size.expect("clap requires one photo");
    let found = calibrate_lens(&views, pw, ph)?;
    let lens = found.intrinsics;
    let json = serde_json::json!({
        "fx": lens.fx, "fy": lens.fy, "cx": lens.cx, "cy": lens.cy, "dist": lens.dist,
    });
    std::fs::write(out, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("writing {}", out.display()))?;
    println!(
        "wrote {}: fx {:.1} fy {:.1} cx {:.1} cy {:.1} k1 {:.4} k2 {:.4}; \
         reprojection RMS {:.3} px over {} photos ({} points)",
        out.display(),
        lens.fx,
        lens.fy,
        lens.cx,
        lens.cy,
        lens.dist[0],
        lens.dist[1],
        found.rms_px,
        views.len(),
        views.iter().map(|v| v.0.len()).sum::<usize>()
    );
    Ok(())
}

fn page(body: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8.5in\" height=\"11in\" viewBox=\"0 0 8.5 11\">\n\
         <rect width=\"8.5\" height=\"11\" fill=\"white\"/>\n{body}</svg>\n"
    )
}

/// Four 2 in cards, each with its tag36h11 tag (ids 0 to 3) 1.5 in across the black
/// border, centred; a thin grey cut line around each card.
fn corner_cards() -> String {
    let names = [
        "0: top-left",
        "1: top-right",
        "2: bottom-right",
        "3: bottom-left",
    ];
    let mut body = String::new();
    let cell = TAG_SIZE_IN / 8.0;
    for (id, name) in names.iter().enumerate() {
        let (x0, y0) = (1.5 + 3.0 * (id % 2) as f64, 1.5 + 3.5 * (id / 2) as f64);
        let _ = writeln!(
            body,
            "<rect x=\"{x0}\" y=\"{y0}\" width=\"2\" height=\"2\" fill=\"none\" stroke=\"#bbb\" stroke-width=\"0.01\"/>"
        );
        // The up-mark inside the cut line, in the margin above the tag: once the card is
        // cut, it still says which edge goes toward the map's top. Light grey and small,
        // so the margin still reads as white to the detector's white balance.
        let _ = writeln!(
            body,
            "<path d=\"M{:.3} {:.3} L{:.3} {:.3} L{:.3} {:.3} Z\" fill=\"#b8b8b8\"/>",
            x0 + 1.0,
            y0 + 0.04,
            x0 + 0.93,
            y0 + 0.17,
            x0 + 1.07,
            y0 + 0.17
        );
        let (tx, ty) = (x0 + 1.0 - TAG_SIZE_IN / 2.0, y0 + 1.0 - TAG_SIZE_IN / 2.0);
        for j in 0..8 {
            for i in 0..8 {
                if tags::cell_is_white(id, i, j) == Some(false) {
                    let _ = writeln!(
                        body,
                        "<rect x=\"{:.4}\" y=\"{:.4}\" width=\"{cell:.4}\" height=\"{cell:.4}\" fill=\"black\"/>",
                        tx + f64::from(i) * cell,
                        ty + f64::from(j) * cell
                    );
                }
            }
        }
        let _ = writeln!(
            body,
            "<text x=\"{}\" y=\"{}\" font-size=\"0.18\" font-family=\"sans-serif\" text-anchor=\"middle\">tag {name} (map corner this way: outer corner)</text>",
            x0 + 1.0,
            y0 + 2.35
        );
    }
    let _ = writeln!(
        body,
        "<text x=\"4.25\" y=\"0.8\" font-size=\"0.22\" font-family=\"sans-serif\" text-anchor=\"middle\">aide-de-camp corner cards: print at 100%, cut on the grey lines, lay each card's outer corner on the map's corner, its grey up-mark toward the map's top</text>"
    );
    page(&body)
}

/// Off-white strips to stick on the front long edge of each block's upward face: the
/// front half of a fresh block's top, the front third of a spent block's label face.
fn facing_strips(model: &PieceModel) -> String {
    let block = model
        .shape(UnitKind::Infantry)
        .expect("every kind has a shape");
    let fresh = block.depth_in(Status::Fresh) / 2.0;
    let spent = block.depth_in(Status::Spent) / 3.0;
    let length = block.frontage_in;
    let mut body = String::new();
    let mut y = 1.2;
    for (label, depth) in [
        ("fresh top, front half", fresh),
        ("spent label face, front third", spent),
    ] {
        let _ = writeln!(
            body,
            "<text x=\"0.75\" y=\"{:.3}\" font-size=\"0.18\" font-family=\"sans-serif\">{label}: {length} x {depth:.4} in</text>",
            y - 0.15
        );
        for row in 0..8 {
            for col in 0..3 {
                let _ = writeln!(
                    body,
                    "<rect x=\"{:.3}\" y=\"{:.4}\" width=\"{length}\" height=\"{depth:.4}\" fill=\"#ece8da\" stroke=\"#999\" stroke-width=\"0.005\"/>",
                    0.75 + 2.4 * f64::from(col),
                    y + f64::from(row) * (depth + 0.12)
                );
            }
        }
        y += 8.0 * (depth + 0.12) + 0.8;
    }
    page(&body)
}
