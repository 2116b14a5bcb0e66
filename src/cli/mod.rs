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
