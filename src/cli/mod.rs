//! One module per subcommand: each has an `Args` (clap) and a `run`.

pub mod bench_stream;
pub mod bench_track;
pub mod bench_vision;
pub mod calibrate;
pub mod camera_check;
pub mod cameras;
pub mod check;
pub mod detect;
pub mod log;
pub mod move_piece;
pub mod render;
pub mod roll;
pub mod serve;

/// A map size written WxH in inches ("36x24").
pub fn parse_map(text: &str) -> Result<(f64, f64), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{text:?}: write the map size as WxH in inches, e.g. 36x24"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| format!("{text:?}: {s:?} is not a positive number of inches"))
    };
    Ok((number(w)?, number(h)?))
}

/// The printed map a rendered table lies on (`--map` of `render` and `bench vision`).
#[derive(Debug, Clone, PartialEq)]
pub enum PrintedMap {
    /// A busy map painted per seed, of this size in inches (`procedural`, or `WxH`).
    Procedural(f64, f64),
    /// The built-in demo's map, the one its page draws (`demo`).
    Demo,
    /// An SVG map drawn at its printed size (`width="36in"`).
    File(std::path::PathBuf),
}

impl PrintedMap {
    /// The map's size in inches and, for a printed image, its texture (a procedural map
    /// is painted per frame, from the frame's seed).
    pub fn load(&self) -> anyhow::Result<(f64, f64, Option<aide::sim::MapTexture>)> {
        use aide::sim::MapTexture;
        match self {
            Self::Procedural(w, h) => Ok((*w, *h, None)),
            Self::Demo => {
                let scenario = aide::web::demo::scenario()?;
                let (w, h) = (scenario.map.width_in, scenario.map.height_in);
                Ok((w, h, Some(aide::sim::scenario_map(&scenario, 0)?)))
            }
            Self::File(path) => {
                let (map, w, h) = MapTexture::from_svg_at_its_size(path)?;
                Ok((w, h, Some(map)))
            }
        }
    }

    /// A short name for reports.
    pub fn label(&self) -> String {
        match self {
            Self::Procedural(..) => "procedural".into(),
            Self::Demo => "demo".into(),
            Self::File(path) => path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into(),
            ),
        }
    }
}

/// `--rounded-edge IN`, for `aide render` and `aide bench vision`.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct RoundedEdge {
    /// Take every piece's edges off by this much, inches (a 45-degree chamfer; sanded
    /// wooden blocks are rounded by about 0.04, and the photoreal frames' blocks are
    /// bevelled); 0 draws sharp boxes. See `sim::Scene::rounded_edge_in`.
    #[arg(
        long = "rounded-edge",
        default_value_t = 0.0,
        value_name = "IN",
        value_parser = parse_rounded_edge,
        allow_negative_numbers = true
    )]
    pub inches: f64,
}

/// How far the renderer takes pieces' edges off, inches: from 0 (sharp) to a tenth of
/// an inch, a quarter of a block's depth (the chamfers of a narrower face would meet).
fn parse_rounded_edge(text: &str) -> Result<f64, String> {
    let inches: f64 = text
        .parse()
        .map_err(|_| format!("{text:?}: give the rounding in inches, such as 0.04"))?;
    if (0.0..=0.1).contains(&inches) {
        Ok(inches)
    } else {
        Err(format!(
            "{text:?}: a piece's edges are rounded by 0 to 0.1 in"
        ))
    }
}

/// `procedural` (36x24), `WxH` (procedural at that size), `demo`, or an SVG file.
pub fn parse_printed_map(text: &str) -> Result<PrintedMap, String> {
    match text {
        "procedural" => Ok(PrintedMap::Procedural(36.0, 24.0)),
        "demo" => Ok(PrintedMap::Demo),
        _ if text.to_ascii_lowercase().ends_with(".svg") => {
            Ok(PrintedMap::File(std::path::PathBuf::from(text)))
        }
        _ => parse_map(text)
            .map(|(w, h)| PrintedMap::Procedural(w, h))
            .map_err(|_| {
                format!("{text:?}: name a map: procedural, WxH in inches (a procedural map of that size), demo, or an SVG file")
            }),
    }
}

/// A camera frame or photo from a file. A file that is there but is no image says so in
/// one line (the image crate's own error repeats its cause when chained).
pub fn read_frame(path: &std::path::Path) -> anyhow::Result<image::RgbImage> {
    match image::open(path) {
        Ok(image) => Ok(image.into_rgb8()),
        Err(image::ImageError::IoError(e)) => {
            Err(anyhow::anyhow!("reading {}: {e}", path.display()))
        }
        Err(e) => Err(anyhow::anyhow!(
            "{}: not an image this build reads (PNG or JPEG): {e}",
            path.display()
        )),
    }
}

/// A camera file: `{"fx","fy","cx","cy","dist":[k1,k2,p1,p2,k3]}` (OpenCV's convention).
pub fn read_camera_file(path: &std::path::Path) -> anyhow::Result<aide::vision::Intrinsics> {
    use anyhow::Context;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a camera file", path.display()))
}
