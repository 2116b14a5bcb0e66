//! `aide bench vision`: the detector on rendered frames, against their ground truth, or
//! on a set of frames made elsewhere with their truth (`--photoreal DIR`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use aide::geom::Footprint;
use aide::model::PieceModel;
use aide::sim::{self, MapTexture, Shape, TruePiece};
use aide::table::Status;
use aide::vision::{
    self, Calibration, ColourModel, DetectOptions, DetectedPiece, Intrinsics, MapReference,
    PlaneSampler,
};
use image::imageops::FilterType;
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// 1080p frames.
    #[arg(long, default_value_t = 50)]
    pub frames: u64,
    /// 4K frames.
    #[arg(long, default_value_t = 10)]
    pub frames_4k: u64,
    /// Give the detector the renderer's camera (focal length and distortion), as a
    /// calibrated camera file would; without it the focal length is estimated from the
    /// tags and distortion is ignored.
    #[arg(long)]
    pub camera_file: bool,
    /// Tables where blocks of a side touch: lines end to end and columns (see
    /// `sim::touching_scene`), instead of pieces standing apart.
    #[arg(long)]
    pub touching: bool,
    #[command(flatten)]
    pub rounded_edge: super::RoundedEdge,
    /// First seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The printed map the tables lie on: `procedural` (a busy map painted per seed),
    /// `demo` (the built-in demo's map), or an SVG file drawn at its printed size, such as
    /// scenarios/maps/river-crossing.svg. Give it again for more maps: each is reported.
    #[arg(long, value_parser = super::parse_printed_map, default_value = "procedural")]
    pub map: Vec<super::PrintedMap>,
    /// Instead of rendering frames, read every `NAME.jpg` (or `.png`) of this folder with
    /// its truth `NAME.json` and lens `NAME.camera.json` (the format of
    /// shared/vision-photoreal/README.md): frames our renderer did not make.
    #[arg(long, value_name = "DIR")]
    pub photoreal: Option<PathBuf>,
    /// With `--photoreal`, read each frame again as a real camera might have sent it,
    /// each way reported on its own: JPEG-compressed once more at quality 80 (as a
    /// webcam's MJPEG: colour at half the pixels across, 4:2:2), the same with colour at
    /// a quarter of the pixels (half across and half down, 4:2:0, as a phone app's
    /// stream), exposed at three quarters of the light, a 4K frame halved to
    /// 1080p (its lens file scaled with it), the picture moved a pixel right and down
    /// (the camera turned by a hair), a flat picture (every value v read as
    /// 40 + 0.84 v: black lifted to 40, as a webcam's tone curve or haze lifts it), a
    /// softer lens (a Gaussian blur of 1 px), and a paler picture (saturation cut to
    /// 0.85, each pixel drawn toward its grey).
    #[arg(long, requires = "photoreal")]
    pub perturb: bool,
    /// Give the detector the empty map: the printed map's image, matched to each frame's
    /// colours (see `vision::reference`). Frames of `--photoreal` have no map image.
    #[arg(long)]
    pub reference: bool,
    /// Give the detector the empty map as the live feed learns it, with no map image:
    /// from two earlier settled tables of the same camera and map, other pieces standing
    /// elsewhere (see `MapReference::learn`). What it does not know by then, it leaves to
    /// the detector alone.
    #[arg(long, conflicts_with_all = ["reference", "photoreal"])]
    pub learned_reference: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// A detection counts as a truth piece's when it is within this distance.
const MATCH_IN: f64 = 0.5;

#[derive(Default, Serialize)]
pub struct Tally {
    frames: usize,
    truth: usize,
    found: usize,
    detected: usize,
    failed_frames: usize,
    centre_err_in: Vec<f64>,
    /// Marked blocks found; those facing more than [`FACING_WRONG_DEG`] off, read by
    /// their strip or not (an unread block's front is a guess from its axis, its home
    /// edge or nothing); and those of them read by their strip: a strip read on the
    /// wrong side, which the page would show as sure.
    marked: usize,
    facing_wrong: usize,
    strip_wrong: usize,
    heading_err_deg: Vec<f64>,
    status_right: usize,
    colour_right: usize,
    kind_right: usize,
    /// A frame read from nothing: tags, sampler and pieces.
    frame_ms: Vec<f64>,
    tags_ms: Vec<f64>,
    sampler_ms: Vec<f64>,
    /// Everything after the tag search: sampler and pieces (ours), warp to pieces
    /// (OpenCV's).
    after_tags_ms: Vec<f64>,
    pieces_ms: Vec<f64>,
    /// A live frame: the pieces with the calibration and sampler kept from an earlier
    /// frame (the frame read again).
    live_ms: Vec<f64>,
}

/// One frame read, with the time each part took.
struct Read {
    pieces: Vec<DetectedPiece>,
    tags_ms: f64,
    sampler_ms: f64,
    pieces_ms: f64,
    live_ms: f64,
}

/// Milliseconds since `started`, and the clock restarted.
fn lap(started: &mut Instant) -> f64 {
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    *started = Instant::now();
    ms
}

/// Makes one frame to read when it is wanted.
type MakeFrame = Box<dyn Fn() -> Frame>;

/// One frame to read, with its truth.
#[derive(Clone)]
struct Frame {
    image: image::RgbImage,
    map_w_in: f64,
    map_h_in: f64,
    /// The lens, when the detector is given a camera file.
    intrinsics: Option<Intrinsics>,
    /// The empty map, when the detector is given it.
    reference: Option<std::rc::Rc<MapReference>>,
    truth: Vec<TruePiece>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let model = PieceModel::builtin("pub-battles")?;
    let colours = ColourModel::builtin();
    // One thread for OpenCV too, as for ours.
    #[cfg(feature = "opencv")]
    opencv::core::set_num_threads(1)?;
    // Each group's frames are made one at a time as they are read: sixty rendered
    // frames held at once would take more memory than the detector.
    let groups: Vec<(String, Vec<MakeFrame>)> = match &args.photoreal {
        Some(dir) => photoreal_frames(dir, args.perturb)?,
        None => {
            let mut groups = Vec::new();
            for printed in &args.map {
                let (map_w, map_h, texture) = printed.load()?;
                let texture = texture.map(std::rc::Rc::new);
                let printed_reference = texture
                    .as_ref()
                    .filter(|_| args.reference)
                    .map(|map| std::rc::Rc::new(MapReference::from_texture(map, map_w, map_h)));
                let map_label = printed.label();
                for (resolution, count, (w, h)) in [
                    ("1080p", args.frames, (1920, 1080)),
                    ("4K", args.frames_4k, (3840, 2160)),
                ] {
                    let (touching, camera_file) = (args.touching, args.camera_file);
                    let rounded_edge_in = args.rounded_edge.inches;
                    let (with_reference, learned) = (args.reference, args.learned_reference);
                    let frames = (args.seed..args.seed + count)
                        .map(|seed| {
                            let (texture, model) = (texture.clone(), model.clone());
                            let printed_reference = printed_reference.clone();
                            Box::new(move || {
                                let scene = sim::Scene {
                                    rounded_edge_in,
                                    ..if touching {
                                        sim::touching_scene(seed, map_w, map_h, w, h)
                                    } else {
                                        sim::random_scene(seed, map_w, map_h, w, h)
                                    }
                                };
                                let intrinsics = camera_file.then(|| scene.pinhole().intrinsics);
                                let (image, reference) = match &texture {
                                    Some(map) => (
                                        sim::render_on(&scene, &model, map),
                                        printed_reference.clone(),
                                    ),
                                    None => {
                                        // The procedural map of this frame's seed.
                                        let map = MapTexture::procedural(map_w, map_h, scene.seed);
                                        let reference = with_reference.then(|| {
                                            std::rc::Rc::new(MapReference::from_texture(
                                                &map, map_w, map_h,
                                            ))
                                        });
                                        (sim::render_on(&scene, &model, &map), reference)
                                    }
                                };
                                let reference = if learned {
                                    let procedural;
                                    let map = match &texture {
                                        Some(map) => map.as_ref(),
                                        None => {
                                            procedural =
                                                MapTexture::procedural(map_w, map_h, scene.seed);
                                            &procedural
                                        }
                                    };
                                    learned_reference(&scene, &model, map, intrinsics)
                                        .map(std::rc::Rc::new)
                                } else {
                                    reference
                                };
                                Frame {
                                    image,
                                    map_w_in: scene.map_w_in,
                                    map_h_in: scene.map_h_in,
                                    intrinsics,
                                    reference,
                                    truth: scene.pieces,
                                }
                            }) as MakeFrame
                        })
                        .collect();
                    let label = if args.map.len() == 1 && map_label == "procedural" {
                        resolution.to_owned()
                    } else {
                        format!("{resolution} {map_label}")
                    };
                    groups.push((label, frames));
                }
            }
            groups
        }
    };
    let mut report = Vec::new();
    // The plain OpenCV pipeline on the same frames, for the side-by-side rows.
    #[cfg_attr(not(feature = "opencv"), allow(unused_mut))] // filled with the opencv feature
    let mut yardstick: Vec<(String, Tally)> = Vec::new();
    for (label, frames) in groups {
        let mut tally = Tally::default();
        #[cfg(feature = "opencv")]
        let mut plain = Tally::default();
        for make in &frames {
            let frame = &make();
            // Whichever reads a frame second finds it in the cache: each goes first on
            // every other frame.
            #[cfg(feature = "opencv")]
            let ours_first = tally.frames % 2 == 0;
            let mut read_ours =
                || read_frame(&mut tally, &frame.truth, || detect(frame, &colours, &model));
            #[cfg(not(feature = "opencv"))]
            read_ours();
            #[cfg(feature = "opencv")]
            {
                let mut read_plain = || {
                    read_frame(&mut plain, &frame.truth, || {
                        let mut clock = Instant::now();
                        let calib = Calibration::from_image(
                            &frame.image,
                            frame.map_w_in,
                            frame.map_h_in,
                            frame.intrinsics,
                        )
                        .ok()?;
                        let tags_ms = lap(&mut clock);
                        let pieces = vision::opencv::plain_detect(&frame.image, &calib).ok()?;
                        let pieces_ms = lap(&mut clock);
                        Some(Read {
                            pieces,
                            tags_ms,
                            sampler_ms: 0.0,
                            pieces_ms,
                            live_ms: pieces_ms,
                        })
                    })
                };
                if ours_first {
                    read_ours();
                    read_plain();
                } else {
                    read_plain();
                    read_ours();
                }
            }
        }
        report.push((label.clone(), tally));
        #[cfg(feature = "opencv")]
        yardstick.push((label, plain));
    }
    let peak_kib = peak_memory_kib();
    if args.json {
        let tallies: Vec<_> = report
            .iter()
            .map(|(l, t)| serde_json::json!({"frames": l, "summary": summary(t)}))
            .collect();
        let plain: Vec<_> = yardstick
            .iter()
            .map(|(l, t)| serde_json::json!({"frames": l, "summary": summary(t)}))
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "camera_file": args.camera_file || args.photoreal.is_some(),
                "touching": args.touching, "photoreal": args.photoreal,
                "rounded_edge_in": args.rounded_edge.inches,
                "results": tallies,
                "opencv_plain": plain, "peak_memory_kib": peak_kib,
            })
        );
        return Ok(());
    }
    let source = match &args.photoreal {
        Some(dir) => format!("frames of {} with their camera files", dir.display()),
        None if args.camera_file => "rendered, with the camera file".to_owned(),
        None => {
            "rendered, no camera file: focal length from the tags, distortion ignored".to_owned()
        }
    };
    let rounded = if args.rounded_edge.inches > 0.0 && args.photoreal.is_none() {
        format!("; edges rounded by {} in", args.rounded_edge.inches)
    } else {
        String::new()
    };
    println!(
        "aide bench vision ({source}{}{rounded}{}; match within {MATCH_IN} in)",
        if args.touching && args.photoreal.is_none() {
            "; blocks touching in lines and columns"
        } else {
            ""
        },
        if args.reference {
            "; the empty map from its image"
        } else if args.learned_reference {
            "; the empty map learnt from two earlier tables"
        } else {
            ""
        }
    );
    for (label, t) in &report {
        if t.frames == 0 {
            continue;
        }
        let s = summary(t);
        println!(
            "{label}: {} frames ({} without the four tags), {} pieces",
            t.frames, t.failed_frames, t.truth
        );
        println!(
            "  recall {:.3}  precision {:.3}",
            s["recall"].as_f64().unwrap_or(0.0),
            s["precision"].as_f64().unwrap_or(0.0)
        );
        println!(
            "  centre error median {:.3} in, p95 {:.3} in",
            s["centre_median_in"].as_f64().unwrap_or(f64::NAN),
            s["centre_p95_in"].as_f64().unwrap_or(f64::NAN)
        );
        println!(
            "  heading error (marked blocks read by their strip) median {:.2} deg, p95 {:.2} deg; {} of {} marked blocks facing more than {FACING_WRONG_DEG} deg off, {} of them read by their strip",
            s["heading_median_deg"].as_f64().unwrap_or(f64::NAN),
            s["heading_p95_deg"].as_f64().unwrap_or(f64::NAN),
            t.facing_wrong,
            t.marked,
            t.strip_wrong,
        );
        println!(
            "  status {:.3}, colour {:.3}, kind {:.3} of matched pieces right",
            s["status_accuracy"].as_f64().unwrap_or(0.0),
            s["colour_accuracy"].as_f64().unwrap_or(0.0),
            s["kind_accuracy"].as_f64().unwrap_or(0.0)
        );
        let ms = |k: &str| s[k].as_f64().unwrap_or(f64::NAN);
        println!(
            "  time per frame, medians, one thread: {:.1} ms from nothing (tags and camera {:.1}, map-plane sampler {:.1}, pieces {:.1}); {:.1} ms a live frame (calibration and sampler kept from earlier frames)",
            ms("frame_median_ms"),
            ms("tags_median_ms"),
            ms("sampler_median_ms"),
            ms("pieces_median_ms"),
            ms("live_frame_median_ms"),
        );
    }
    if !yardstick.is_empty() {
        println!(
            "side by side with the plain OpenCV pipeline (tags, warpPerspective, inRange, findContours, minAreaRect):"
        );
        println!(
            "  {:<14} {:>6} {:>9} {:>14} {:>14} {:>7} {:>7} {:>9} {:>8}",
            "",
            "recall",
            "precision",
            "centre med/p95",
            "heading p95",
            "status",
            "colour",
            "ms/frame",
            "no tags"
        );
        for ((label, ours), (_, plain)) in report.iter().zip(&yardstick) {
            for (name, t) in [("ours", ours), ("opencv", plain)] {
                if t.frames == 0 {
                    continue;
                }
                let s = summary(t);
                let f = |k: &str| s[k].as_f64().unwrap_or(f64::NAN);
                println!(
                    "  {:<14} {:>6.3} {:>9.3} {:>6.3}/{:<7.3} {:>14} {:>7.3} {:>7.3} {:>9.1} {:>8.1}",
                    format!("{label} {name}"),
                    f("recall"),
                    f("precision"),
                    f("centre_median_in"),
                    f("centre_p95_in"),
                    s["heading_p95_deg"]
                        .as_f64()
                        .map_or("no facing".to_owned(), |v| format!("{v:.2} deg")),
                    f("status_accuracy"),
                    f("colour_accuracy"),
                    f("frame_median_ms"),
                    f("after_tags_median_ms")
                );
            }
        }
    }
    println!("peak memory {:.1} MiB", peak_kib as f64 / 1024.0);
    Ok(())
}

/// The empty map as the live feed would know it by `scene`'s frame: learnt from two
/// earlier settled tables filmed by the same camera on the same map, with other tables'
/// pieces standing on it (each learnt where its own pieces left the map bare). `None`
/// when an earlier frame's tags are not found.
fn learned_reference(
    scene: &sim::Scene,
    model: &PieceModel,
    map: &MapTexture,
    intrinsics: Option<Intrinsics>,
) -> Option<MapReference> {
    let mut reference = MapReference::unseen(scene.map_w_in, scene.map_h_in);
    for earlier_seed in [scene.seed + 10_000, scene.seed + 20_000] {
        let other = sim::random_scene(
            earlier_seed,
            scene.map_w_in,
            scene.map_h_in,
            scene.width,
            scene.height,
        );
        let earlier = sim::Scene {
            pieces: other.pieces,
            seed: earlier_seed,
            hand: None,
            ..scene.clone()
        };
        let image = sim::render_on(&earlier, model, map);
        let calib =
            Calibration::from_image(&image, scene.map_w_in, scene.map_h_in, intrinsics).ok()?;
        let sampler = PlaneSampler::new(&calib, image.width(), image.height());
        let footprints: Vec<Footprint> = earlier
            .pieces
            .iter()
            .map(|p| {
                let (frontage, depth, _) = sim::dimensions(model, p);
                Footprint::new(p.x_in, p.y_in, p.heading_deg, frontage, depth)
            })
            .collect();
        reference.learn(&image, &calib, &sampler, &footprints);
    }
    Some(reference)
}

/// Read one frame with `read` (None: the tags were not found) and score it.
fn read_frame(tally: &mut Tally, truth: &[TruePiece], read: impl FnOnce() -> Option<Read>) {
    tally.frames += 1;
    tally.truth += truth.len();
    let Some(read) = read() else {
        tally.failed_frames += 1;
        return;
    };
    tally
        .frame_ms
        .push(read.tags_ms + read.sampler_ms + read.pieces_ms);
    tally.tags_ms.push(read.tags_ms);
    tally.sampler_ms.push(read.sampler_ms);
    tally.after_tags_ms.push(read.sampler_ms + read.pieces_ms);
    tally.pieces_ms.push(read.pieces_ms);
    tally.live_ms.push(read.live_ms);
    score(truth, &read.pieces, tally);
}

/// Our detector, each part timed: the tags and the camera, the map-plane sampler (both
/// kept between live frames), the pieces; then the same frame again as a live frame.
fn detect(frame: &Frame, colours: &ColourModel, model: &PieceModel) -> Option<Read> {
    let image = &frame.image;
    let mut clock = Instant::now();
    let calib =
        Calibration::from_image(image, frame.map_w_in, frame.map_h_in, frame.intrinsics).ok()?;
    let tags_ms = lap(&mut clock);
    let sampler = PlaneSampler::new(&calib, image.width(), image.height());
    let sampler_ms = lap(&mut clock);
    let none = |_: &str| None;
    let options = DetectOptions {
        colours,
        model,
        facing_away: &none,
        reference: frame.reference.as_deref(),
    };
    let pieces = vision::detect_sampled(image, &calib, &sampler, &options).pieces;
    let pieces_ms = lap(&mut clock);
    vision::detect_sampled(image, &calib, &sampler, &options);
    Some(Read {
        pieces,
        tags_ms,
        sampler_ms,
        pieces_ms,
        live_ms: lap(&mut clock),
    })
}

/// A marked block read facing further off than this is reversed or turned: its field of
/// fire points elsewhere, whatever the percentiles say.
const FACING_WRONG_DEG: f64 = 10.0;

/// Pair detections with truth pieces, nearest first, each used once.
fn score(truth: &[TruePiece], pieces: &[DetectedPiece], t: &mut Tally) {
    t.detected += pieces.len();
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (i, truth) in truth.iter().enumerate() {
        for (j, p) in pieces.iter().enumerate() {
            let d = (truth.x_in - p.x_in).hypot(truth.y_in - p.y_in);
            if d <= MATCH_IN {
                pairs.push((d, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut used_t = vec![false; truth.len()];
    let mut used_p = vec![false; pieces.len()];
    for (d, i, j) in pairs {
        if used_t[i] || used_p[j] {
            continue;
        }
        used_t[i] = true;
        used_p[j] = true;
        let (truth, p) = (&truth[i], &pieces[j]);
        t.found += 1;
        t.centre_err_in.push(d);
        let kind = match truth.kind {
            Shape::Block => "block",
            Shape::Hq => "hq",
        };
        if kind == "block" && truth.marked {
            t.marked += 1;
            let off = aide::geom::heading_difference(truth.heading_deg, p.heading_deg);
            let wrong = off > FACING_WRONG_DEG;
            if p.facing == vision::Facing::Marked {
                t.heading_err_deg.push(off);
                t.strip_wrong += usize::from(wrong);
            }
            t.facing_wrong += usize::from(wrong);
        }
        t.kind_right += usize::from(kind == p.kind);
        t.status_right += usize::from(kind == "hq" || truth.status == p.status);
        t.colour_right += usize::from(truth.color == p.color);
    }
}

/// The frames of a folder made elsewhere (see [`Args::photoreal`]), in one group per
/// frame size, in name order; with `perturb`, then each group read again each way of
/// [`Args::perturb`], each changed frame made when it is read.
fn photoreal_frames(dir: &Path, perturb: bool) -> anyhow::Result<Vec<(String, Vec<MakeFrame>)>> {
    use anyhow::Context;
    /// The truth file's shape (shared/vision-photoreal/README.md).
    #[derive(serde::Deserialize)]
    struct Truth {
        map: MapSize,
        pieces: Vec<Piece>,
    }
    #[derive(serde::Deserialize)]
    struct MapSize {
        width_in: f64,
        height_in: f64,
    }
    #[derive(serde::Deserialize)]
    struct Piece {
        kind: Shape,
        side: String,
        status: Status,
        marked: bool,
        x_in: f64,
        y_in: f64,
        heading_deg: f64,
    }
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && !p.to_string_lossy().ends_with(".camera.json")
        })
        .collect();
    names.sort();
    anyhow::ensure!(
        !names.is_empty(),
        "{}: no truth files (NAME.json beside NAME.jpg)",
        dir.display()
    );
    let mut groups: Vec<(String, Vec<std::rc::Rc<Frame>>)> = Vec::new();
    for truth_path in names {
        let text = std::fs::read_to_string(&truth_path)
            .with_context(|| format!("reading {}", truth_path.display()))?;
        let truth: Truth = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a truth file", truth_path.display()))?;
        let image_path = ["jpg", "png"]
            .map(|e| truth_path.with_extension(e))
            .into_iter()
            .find(|p| p.exists())
            .with_context(|| format!("{}: no frame beside it", truth_path.display()))?;
        let image = super::read_frame(&image_path)?;
        let intrinsics = super::read_camera_file(&truth_path.with_extension("camera.json"))?;
        let label = format!("{}x{}", image.width(), image.height());
        let frame = std::rc::Rc::new(Frame {
            image,
            map_w_in: truth.map.width_in,
            map_h_in: truth.map.height_in,
            intrinsics: Some(intrinsics),
            reference: None,
            truth: truth
                .pieces
                .into_iter()
                .map(|p| TruePiece {
                    kind: p.kind,
                    color: p.side,
                    x_in: p.x_in,
                    y_in: p.y_in,
                    heading_deg: p.heading_deg,
                    status: p.status,
                    marked: p.marked,
                })
                .collect(),
        });
        match groups.iter_mut().find(|(l, _)| *l == label) {
            Some((_, frames)) => frames.push(frame),
            None => groups.push((label, vec![frame])),
        }
    }
    let as_given = groups.iter().map(|(label, frames)| {
        let made = frames.iter().map(|frame| {
            let frame = frame.clone();
            Box::new(move || Frame::clone(&frame)) as MakeFrame
        });
        (label.clone(), made.collect())
    });
    let changed = groups
        .iter()
        .filter(|_| perturb)
        .flat_map(|(label, frames)| perturbed(label, frames));
    Ok(as_given.chain(changed).collect())
}

/// A 4K frame or larger is also read halved: a 1080p camera's view of the same table.
const HALVED_FROM_WIDTH: u32 = 3840;

/// The frames of one group as a real camera might have sent them (see
/// [`Args::perturb`]), one group each way.
fn perturbed(label: &str, frames: &[std::rc::Rc<Frame>]) -> Vec<(String, Vec<MakeFrame>)> {
    type Change = fn(&Frame) -> Frame;
    let again: Change = |f| Frame {
        image: sim::jpeg_round_trip(f.image.clone(), 80),
        ..f.clone()
    };
    // Each channel value of the frame read through `tone`, as a camera's curve would.
    fn toned(f: &Frame, tone: fn(f64) -> f64) -> Frame {
        let mut frame = f.clone();
        for v in frame.image.iter_mut() {
            *v = tone(f64::from(*v)).round() as u8;
        }
        frame
    }
    let quartered: Change = |f| Frame {
        image: sim::jpeg_420_round_trip(&f.image, 80),
        ..f.clone()
    };
    let dim: Change = |f| toned(f, |v| v * 0.75);
    let halved: Change = |f| {
        let (w, h) = f.image.dimensions();
        // Pixel centres: a half-size pixel u covers full-size pixels 2u and 2u + 1.
        let halve = |c: f64| (c + 0.5) / 2.0 - 0.5;
        Frame {
            image: image::imageops::resize(&f.image, w / 2, h / 2, FilterType::Triangle),
            intrinsics: f.intrinsics.map(|i| Intrinsics {
                fx: i.fx / 2.0,
                fy: i.fy / 2.0,
                cx: halve(i.cx),
                cy: halve(i.cy),
                dist: i.dist,
            }),
            ..f.clone()
        }
    };
    // The camera turned by a hair (or its stand knocked): every map point lands a pixel
    // right and a pixel down. The tags place the map again, so the truth stands; what
    // changes is where each map-plane pixel's read falls among the frame's pixels, by
    // about half a map-plane pixel at 1080p. A reading that holds only on one such grid
    // holds by luck. The row and column the frame uncovers are black.
    let moved: Change = |f| {
        let (w, h) = f.image.dimensions();
        let mut image = image::RgbImage::new(w, h);
        image::imageops::replace(&mut image, &f.image, 1, 1);
        Frame { image, ..f.clone() }
    };
    let flat: Change = |f| toned(f, |v| 40.0 + v * 215.0 / 255.0);
    let soft: Change = |f| Frame {
        image: image::imageops::blur(&f.image, 1.0),
        ..f.clone()
    };
    // Rec. 601 luma, as PIL's ImageEnhance.Color draws a pixel toward grey.
    let pale: Change = |f| {
        let mut frame = f.clone();
        for p in frame.image.pixels_mut() {
            let [r, g, b] = p.0.map(f64::from);
            let grey = 0.299 * r + 0.587 * g + 0.114 * b;
            p.0 = [r, g, b].map(|c| (grey + 0.85 * (c - grey)).round().clamp(0.0, 255.0) as u8);
        }
        frame
    };
    // Which frames each change is made to.
    type Applies = fn(&Frame) -> bool;
    let every: Applies = |_| true;
    let large: Applies = |f| f.image.width() >= HALVED_FROM_WIDTH;
    [
        ("JPEG q80 again", again, every),
        ("JPEG q80 4:2:0 again", quartered, every),
        ("exposure x0.75", dim, every),
        ("halved", halved, large),
        ("moved 1 px", moved, every),
        ("black at 40", flat, every),
        ("blurred 1 px", soft, every),
        ("saturation x0.85", pale, every),
    ]
    .into_iter()
    .filter_map(|(how, change, applies)| {
        let made: Vec<MakeFrame> = frames
            .iter()
            .filter(|f| applies(f))
            .map(|frame| {
                let frame = frame.clone();
                Box::new(move || change(&frame)) as MakeFrame
            })
            .collect();
        (!made.is_empty()).then(|| (format!("{label} {how}"), made))
    })
    .collect()
}

fn percentile(values: &[f64], q: f64) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| v[((v.len() - 1) as f64 * q).round() as usize])
}

fn summary(t: &Tally) -> serde_json::Value {
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    serde_json::json!({
        "frames": t.frames,
        "frames_without_tags": t.failed_frames,
        "pieces": t.truth,
        "recall": ratio(t.found, t.truth),
        "precision": ratio(t.found, t.detected),
        "centre_median_in": percentile(&t.centre_err_in, 0.5),
        "centre_p95_in": percentile(&t.centre_err_in, 0.95),
        "heading_median_deg": percentile(&t.heading_err_deg, 0.5),
        "heading_p95_deg": percentile(&t.heading_err_deg, 0.95),
        "marked_found": t.marked,
        "marked_facing_wrong": t.facing_wrong,
        "marked_strip_wrong": t.strip_wrong,
        "status_accuracy": ratio(t.status_right, t.found),
        "colour_accuracy": ratio(t.colour_right, t.found),
        "kind_accuracy": ratio(t.kind_right, t.found),
        "frame_median_ms": percentile(&t.frame_ms, 0.5),
        "tags_median_ms": percentile(&t.tags_ms, 0.5),
        "sampler_median_ms": percentile(&t.sampler_ms, 0.5),
        "pieces_median_ms": percentile(&t.pieces_ms, 0.5),
        "live_frame_median_ms": percentile(&t.live_ms, 0.5),
        "after_tags_median_ms": percentile(&t.after_tags_ms, 0.5),
    })
}

/// The process's peak resident memory (VmHWM), in KiB.
fn peak_memory_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
