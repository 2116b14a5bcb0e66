//! The detector on rendered frames, against the renderer's ground truth.

use std::ffi::OsString;

use aide::model::PieceModel;
use aide::sim::{self, Hand, Scene};
use aide::vision::{
    self, Calibration, ColourModel, DetectOptions, Detection, Facing, Intrinsics, VisionError,
};

fn detect(scene: &Scene, camera_file: bool) -> (Calibration, Detection) {
    let image = sim::render(scene);
    let intrinsics = camera_file.then(|| scene.pinhole().intrinsics);
    let calib = Calibration::from_image(&image, scene.map_w_in, scene.map_h_in, intrinsics)
        .expect("the four tags are in view");
    let detection = with_default_options(|options| vision::detect(&image, &calib, options));
    (calib, detection)
}

/// A marked block is seen by its band, facing within 3 degrees of the truth.
fn assert_facing_read(truth: &sim::TruePiece, seen: &vision::DetectedPiece) {
    if truth.marked {
        assert_eq!(seen.facing, Facing::Marked, "{truth:?}");
        let off = aide::geom::heading_difference(seen.heading_deg, truth.heading_deg);
        assert!(off < 3.0, "{truth:?} seen facing {}", seen.heading_deg);
    }
}

/// The built-in piece and colour models, no home edges.
fn with_default_options<R>(read: impl FnOnce(&DetectOptions) -> R) -> R {
    let model = PieceModel::builtin("pub-battles").unwrap();
    let colours = ColourModel::builtin();
    let none = |_: &str| None;
    read(&DetectOptions {
        colours: &colours,
        model: &model,
        facing_away: &none,
        reference: None,
    })
}

/// A frame read with the given colour model, the built-in piece model, no home edges
/// and no reference.
fn detect_with_colours(
    image: &image::RgbImage,
    calib: &Calibration,
    colours: &ColourModel,
) -> Detection {
    let model = PieceModel::builtin("pub-battles").unwrap();
    let none = |_: &str| None;
    vision::detect(
        image,
        calib,
        &DetectOptions {
            colours,
            model: &model,
            facing_away: &none,
            reference: None,
        },
    )
}

/// Each truth piece with the nearest detection of its colour, and that distance.
fn nearest<'a>(scene: &Scene, d: &'a Detection) -> Vec<(f64, Option<&'a vision::DetectedPiece>)> {
    scene
        .pieces
        .iter()
        .map(|t| {
            d.pieces
                .iter()
                .filter(|p| p.color == t.color)
                .map(|p| ((p.x_in - t.x_in).hypot(p.y_in - t.y_in), Some(p)))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .unwrap_or((f64::INFINITY, None))
        })
        .collect()
}

#[test]
fn every_piece_of_a_rendered_table_is_found_within_a_sixteenth_of_an_inch() {
    let scene = sim::random_scene(21, 36.0, 24.0, 1280, 720);
    let (calib, d) = detect(&scene, true);
    assert!(
        calib.reprojection_px < 1.0,
        "tags fit to {} px",
        calib.reprojection_px
    );
    let pairs = nearest(&scene, &d);
    let found = pairs.iter().filter(|(e, _)| *e <= 0.5).count();
    assert_eq!(found, scene.pieces.len(), "every piece found");
    assert_eq!(
        d.pieces.len(),
        scene.pieces.len(),
        "nothing found twice or made up"
    );
    let mut errors: Vec<f64> = pairs.iter().map(|(e, _)| *e).collect();
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    assert!(median <= 1.0 / 16.0, "median centre error {median:.3} in");
    for (truth, (_, seen)) in scene.pieces.iter().zip(&pairs) {
        let seen = seen.unwrap();
        let kind = if truth.kind == sim::Shape::Hq {
            "hq"
        } else {
            "block"
        };
        assert_eq!(seen.kind, kind, "{truth:?}");
        if kind == "block" {
            assert_eq!(seen.status, truth.status, "{truth:?} seen as {seen:?}");
        }
        assert_facing_read(truth, seen);
    }
    assert!(
        d.disturbance < 0.002,
        "no hand, {:.4} covered",
        d.disturbance
    );
}

/// A dim room, or a camera exposing for the dark map: the same table with 60 % of the
/// light reads as it does under the lamp, every piece found where it stands, with its
/// kind, status and facing. The corner cards' white tells how much light there is. Before
/// it was brought up to a lamp-lit card's, recall on our renderer's 40 tables (10 each
/// on the four maps) fell from 0.993 to 0.563 with this light: labels and facing strips
/// fell below paper's floor of brightness, and paint below paint's.
#[test]
fn a_table_in_dim_light_is_read_as_under_a_lamp() {
    assert_read_as_rendered(|v| (f64::from(v) * 0.6).round() as u8);
}

/// A camera whose picture is flat (its tone curve, haze or glare on the lens lifting
/// its blacks: here every value v read as 40 + 0.84 v, so black reads 40 and white 255)
/// washes paint toward grey. The corner tags' black border tells how far; what it reads
/// above a fifth of the cards' white is taken off, and the table reads as it does with
/// a deep black: every piece found where it stands, with its kind, status and facing.
/// Before, on our renderer's 40 tables (10 each on the four maps) so lifted, recall was
/// 0.981 and status 0.968 against 0.993 and 1.000 as rendered.
#[test]
fn a_camera_s_flat_picture_is_read_as_a_deep_one() {
    assert_read_as_rendered(|v| (40.0 + f64::from(v) * 215.0 / 255.0).round() as u8);
}

/// Reads a 720p table (seed 21) whose every channel value was changed by `change`, and
/// asserts it reads as rendered: every piece found within a sixteenth of an inch of
/// where it stands, with its status and facing.
fn assert_read_as_rendered(change: impl Fn(u8) -> u8) {
    let scene = sim::random_scene(21, 36.0, 24.0, 1280, 720);
    let mut image = sim::render(&scene);
    for v in image.iter_mut() {
        *v = change(*v);
    }
    let calib = Calibration::from_image(
        &image,
        scene.map_w_in,
        scene.map_h_in,
        Some(scene.pinhole().intrinsics),
    )
    .expect("the four tags are in view");
    let d = with_default_options(|options| vision::detect(&image, &calib, options));
    let pairs = nearest(&scene, &d);
    assert_eq!(d.pieces.len(), scene.pieces.len(), "{:?}", d.pieces);
    for (truth, (off, seen)) in scene.pieces.iter().zip(&pairs) {
        assert!(*off <= 1.0 / 16.0, "{truth:?} read {off:.3} in off");
        let seen = seen.unwrap();
        if truth.kind == sim::Shape::Block {
            assert_eq!(seen.status, truth.status, "{truth:?} seen as {seen:?}");
        }
        assert_facing_read(truth, seen);
    }
}

/// Sanded blocks: with every edge rounded by 0.04 in, the flat top the camera sees is
/// 0.08 in short of the footprint each way, and its lit paint ends short of the top's
/// size at both ends. Its middle is still the top's. Measured on these two tables (49
/// pieces): median 0.018 and 0.016 in while a top seen that much short was not taken
/// for the top, 0.012 and 0.013 in since.
#[test]
fn pieces_with_rounded_edges_are_placed_by_the_middle_of_their_flat_tops() {
    let mut errors = Vec::new();
    for seed in [1, 2] {
        let scene = Scene {
            rounded_edge_in: 0.04,
            ..sim::random_scene(seed, 36.0, 24.0, 1920, 1080)
        };
        let (_, d) = detect(&scene, true);
        assert_eq!(d.pieces.len(), scene.pieces.len(), "seed {seed}");
        for (truth, (error, _)) in scene.pieces.iter().zip(nearest(&scene, &d)) {
            assert!(
                error <= 1.0 / 16.0,
                "seed {seed}: {truth:?} {error:.3} in off"
            );
            errors.push(error);
        }
    }
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    assert!(median <= 0.015, "median centre error {median:.4} in");
}

#[test]
fn the_camera_sees_the_top_face_and_the_detector_puts_it_back_on_the_footprint() {
    // One fresh block 14 in to the side of a camera 26 in up: its top face, 0.75 in
    // above the map, lands 0.75 / (26 - 0.75) x 14 = 0.42 in farther out on the map
    // plane than its footprint.
    let mut scene = sim::random_scene(5, 36.0, 24.0, 1280, 720);
    scene.camera.height_in = 26.0;
    scene.camera.offset_x_in = 0.0;
    scene.camera.offset_y_in = 0.0;
    scene.camera.yaw_deg = 0.0;
    scene.pieces.retain(|p| p.kind == sim::Shape::Block);
    scene.pieces.truncate(1);
    let piece = &mut scene.pieces[0];
    (piece.x_in, piece.y_in, piece.status, piece.heading_deg) =
        (18.0 + 14.0, 12.0, aide::table::Status::Fresh, 0.0);
    let (calib, d) = detect(&scene, true);
    let (cx, cy, ch) = calib.camera_over();
    assert!((ch - 26.0).abs() < 0.1 && (cx - 18.0).abs() < 0.1 && (cy - 12.0).abs() < 0.1);
    let seen = &d.pieces[0];
    let uncorrected: f64 = 0.75 / (26.0 - 0.75) * 14.0;
    assert!((uncorrected - 0.4158).abs() < 1e-3);
    let error = (seen.x_in - 32.0).hypot(seen.y_in - 12.0);
    assert!(
        error < 0.03,
        "corrected centre {:.3} in off (uncorrected: {uncorrected:.2} in)",
        error
    );
}

#[test]
fn a_hand_over_the_table_is_measured_as_disturbance() {
    let mut scene = sim::random_scene(8, 36.0, 24.0, 960, 540);
    scene.hand = Some(Hand {
        from: [20.0, 30.0],
        to: [18.0, 13.0],
        height_in: 4.0,
    });
    let (_, d) = detect(&scene, true);
    // A 1.4 in forearm and a 1.8 in hand: several square inches of an 864 sq in map,
    // less what the eroded edge loses.
    assert!(d.disturbance > 0.01, "{:.4} covered", d.disturbance);
}

#[test]
fn a_frame_without_all_four_tags_names_the_ones_it_saw() {
    let scene = sim::random_scene(3, 36.0, 24.0, 960, 540);
    let mut image = sim::render(&scene);
    // Cover the bottom-left card (id 3) with a dark hand-sized patch.
    let (u, v) = scene
        .pinhole()
        .project(nalgebra::Point3::new(1.0, 23.0, 0.0))
        .unwrap();
    for y in (v as u32).saturating_sub(40)..(v as u32 + 40).min(image.height()) {
        for x in (u as u32).saturating_sub(40)..(u as u32 + 40).min(image.width()) {
            image.put_pixel(x, y, image::Rgb([60, 40, 30]));
        }
    }
    let err = Calibration::from_image(&image, 36.0, 24.0, None).unwrap_err();
    assert_eq!(
        err,
        VisionError::TagsNotFound {
            seen: vec![0, 1, 2]
        }
    );
    assert_eq!(
        err.to_string(),
        "the four corner tags (tag36h11 ids 0-3) are not all in view: saw [0, 1, 2]"
    );
}

#[test]
fn undistorting_a_distorted_point_gives_it_back() {
    let lens = Intrinsics {
        fx: 1400.0,
        fy: 1400.0,
        cx: 960.0,
        cy: 540.0,
        dist: [-0.12, 0.05, 0.001, -0.0005, 0.0],
    };
    for (u, v) in [(0.0, 0.0), (1919.0, 0.0), (960.0, 540.0), (100.0, 1000.0)] {
        let (x, y) = lens.pixel_to_normalized(u, v);
        let (u2, v2) = lens.normalized_to_pixel(x, y);
        assert!(
            (u - u2).abs() < 1e-6 && (v - v2).abs() < 1e-6,
            "({u},{v}) -> ({u2},{v2})"
        );
    }
}

#[test]
fn aide_detect_prints_json_reads_a_camera_file_and_refuses_a_frame_without_tags() {
    let dir = tempfile::tempdir().unwrap();
    let aide = env!("CARGO_BIN_EXE_aide");
    let out = dir.path().display().to_string();
    let status = std::process::Command::new(aide)
        .args([
            "render", "--seed", "4", "--width", "960", "--height", "540", "--out", &out,
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let frame = dir.path().join("frame.png");
    // `aide detect FRAME --map 36x24 --json` and any further arguments.
    let detect = |more: &[&str]| {
        let mut command = std::process::Command::new(aide);
        command
            .args([
                "detect",
                frame.to_str().unwrap(),
                "--map",
                "36x24",
                "--json",
            ])
            .args(more);
        command
    };
    let read_json = |run: std::process::Output| -> serde_json::Value {
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{stderr}");
        serde_json::from_slice(&run.stdout).unwrap()
    };
    let json = read_json(detect(&[]).output().unwrap());
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("truth.json")).unwrap())
            .unwrap();
    let pieces = json["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), truth["pieces"].as_array().unwrap().len());
    for key in [
        "kind",
        "color",
        "x_in",
        "y_in",
        "heading_deg",
        "status",
        "facing",
        "length_in",
        "width_in",
        "confidence",
    ] {
        assert!(
            pieces.iter().all(|p| p.get(key).is_some()),
            "every piece has {key}"
        );
    }
    // With the camera file `aide render` wrote, the lens is undone and the focal length is
    // not estimated: on this frame the worst footprint centre is 0.032 in off against
    // 0.078 in without the file (measured 2026-11-25), so 0.05 in tells them apart.
    let camera = dir.path().join("camera.json");
    let json = read_json(
        detect(&["--camera-file", camera.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert_eq!(json["camera"]["focal_from_file"], true);
    // A map of the wrong size still yields a camera, but a poor fit: the person is told.
    let wrong_map = std::process::Command::new(aide)
        .args(["detect", frame.to_str().unwrap(), "--map", "34x22"])
        .output()
        .unwrap();
    let warning = String::from_utf8_lossy(&wrong_map.stderr);
    assert!(warning.contains("is --map the map's size"), "{warning}");
    let right_map = detect(&[]).output().unwrap();
    assert!(
        right_map.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&right_map.stderr)
    );
    // `--camera`, the flag's old name here, still reads the same file.
    let old_name = read_json(
        detect(&["--camera", camera.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert_eq!(old_name["pieces"], json["pieces"]);
    let found = json["pieces"].as_array().unwrap();
    for t in truth["pieces"].as_array().unwrap() {
        let miss = found
            .iter()
            .map(|p| {
                let dx = p["x_in"].as_f64().unwrap() - t["x_in"].as_f64().unwrap();
                let dy = p["y_in"].as_f64().unwrap() - t["y_in"].as_f64().unwrap();
                dx.hypot(dy)
            })
            .fold(f64::INFINITY, f64::min);
        assert!(miss <= 0.05, "{t}: nearest piece found {miss:.3} in away");
    }
    // A reader that stops early (`| head`) closes the pipe before the output ends: the
    // process ends by SIGPIPE, quietly, as Unix tools do, not by a panic (exit 101).
    let mut child = detect(&[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let run = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(run.status.signal(), Some(libc::SIGPIPE), "{:?}", run.status);
    }
    // Refused frames: a failing exit and one line on stderr that says why.
    let refusal = |path: &std::path::Path| {
        let run = std::process::Command::new(aide)
            .args(["detect", path.to_str().unwrap(), "--map", "36x24"])
            .output()
            .unwrap();
        assert!(!run.status.success());
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        stderr
    };
    let not_an_image = dir.path().join("notes.png");
    std::fs::write(&not_an_image, "turn 3: red attacks").unwrap();
    let stderr = refusal(&not_an_image);
    assert!(
        stderr.contains("notes.png: not an image this build reads (PNG or JPEG)"),
        "{stderr}"
    );
    let blank = dir.path().join("blank.png");
    image::RgbImage::from_pixel(640, 360, image::Rgb([200, 190, 160]))
        .save(&blank)
        .unwrap();
    let stderr = refusal(&blank);
    assert!(
        stderr.contains("the four corner tags (tag36h11 ids 0-3) are not all in view: saw none"),
        "{stderr}"
    );
}

#[test]
fn a_table_with_other_paint_is_read_once_its_colours_are_learnt_from_a_frame() {
    // Blue's blocks painted green: the default model does not know green.
    let mut scene = sim::random_scene(12, 36.0, 24.0, 1280, 720);
    for p in &mut scene.pieces {
        if p.color == "blue" {
            p.color = "green".into();
        }
    }
    let image = sim::render(&scene);
    let lens = scene.pinhole().intrinsics;
    let calib = Calibration::from_image(&image, 36.0, 24.0, Some(lens)).unwrap();
    let model = PieceModel::builtin("pub-battles").unwrap();
    let none = |_: &str| None;
    let run = |colours: &ColourModel| {
        vision::detect(
            &image,
            &calib,
            &DetectOptions {
                colours,
                model: &model,
                facing_away: &none,
                reference: None,
            },
        )
    };
    let greens = scene.pieces.iter().filter(|p| p.color == "green").count();
    assert!(greens > 5);
    let before = run(&ColourModel::builtin());
    assert_eq!(
        before.pieces.iter().filter(|p| p.color == "green").count(),
        0
    );
    // A person names one standing block of each side.
    let standing = |colour: &str| {
        scene
            .pieces
            .iter()
            .find(|p| {
                p.color == colour
                    && p.kind == sim::Shape::Block
                    && p.status == aide::table::Status::Fresh
            })
            .map(|p| (colour.to_owned(), p.x_in, p.y_in))
            .unwrap()
    };
    let learnt =
        vision::learn::learn(&image, &calib, &[standing("red"), standing("green")]).unwrap();
    let after = run(&learnt);
    assert_eq!(
        after.pieces.len(),
        scene.pieces.len(),
        "every piece, no more"
    );
    assert_eq!(
        after.pieces.iter().filter(|p| p.color == "green").count(),
        greens
    );
    // Naming a place with no block on it (the first grid point 2 in clear of every
    // piece) is refused with the reason.
    let (x, y) = (3..33)
        .flat_map(|x| (3..21).map(move |y| (f64::from(x), f64::from(y))))
        .find(|&(x, y)| {
            scene
                .pieces
                .iter()
                .all(|p| (p.x_in - x).hypot(p.y_in - y) > 2.0)
        })
        .unwrap();
    let err = vision::learn::learn(&image, &calib, &[("green".into(), x, y)]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("green: no painted block at ({x}, {y})")),
        "{err}"
    );
}

/// A spent block lies label up, its label covering its top but for a rim. Where that rim
/// and the side faces read too pale for the side's paint (on the photoreal frames, a red
/// rim mixed with the white label reads orange, as skin), the block is found by its
/// label: its size, and the hue of the rim around it. Here the paint is hidden from the
/// colour model (each side's least saturation above the renderer's paint), so the label
/// is all there is.
#[test]
fn a_spent_block_whose_paint_reads_too_pale_is_found_by_its_label() {
    let mut scene = sim::random_scene(21, 36.0, 24.0, 1280, 720);
    scene
        .pieces
        .retain(|p| p.kind == sim::Shape::Block && (p.color == "red" || p.color == "blue"));
    for p in &mut scene.pieces {
        p.status = aide::table::Status::Spent;
    }
    assert!(scene.pieces.len() >= 8, "{} blocks", scene.pieces.len());
    let image = sim::render(&scene);
    let calib =
        Calibration::from_image(&image, 36.0, 24.0, Some(scene.pinhole().intrinsics)).unwrap();
    let mut colours = ColourModel::builtin();
    for side in &mut colours.sides {
        // The renderer's red is 0.83 saturated, its blue 0.77.
        side.min_saturation = 0.95;
    }
    let d = detect_with_colours(&image, &calib, &colours);
    assert_eq!(d.pieces.len(), scene.pieces.len(), "{:#?}", d.pieces);
    for (truth, (off, seen)) in scene.pieces.iter().zip(nearest(&scene, &d)) {
        let seen = seen.unwrap_or_else(|| panic!("{truth:?} not found"));
        assert!(off <= 0.1, "{truth:?} found {off:.3} in off");
        assert_eq!(seen.status, aide::table::Status::Spent, "{truth:?}");
        // Its axis, whichever way it faces.
        let turn = aide::geom::heading_difference(seen.heading_deg, truth.heading_deg);
        assert!(
            turn.min(180.0 - turn) <= 3.0,
            "{truth:?} seen at {}",
            seen.heading_deg
        );
    }
}

/// An HQ cube's matte top under a ceiling light can read paler than its side's least
/// saturation (on the photoreal frames, three cubes read 0.44 to 0.64, under the floors
/// of 0.5 and 0.62). A faint spot a cube's size, standing alone with nothing of its hue
/// around it, is read in full and measured: here each side's floor is set above the
/// renderer's paint (red 0.83, blue 0.77 saturated) but within a fifth of it, and every
/// cube is found where it stands. The same paint on standing blocks is too long a spot
/// for a cube: none is read as one.
#[test]
fn a_cube_whose_paint_reads_pale_is_found_where_it_stands_alone() {
    let scene = sim::random_scene(5, 36.0, 24.0, 1920, 1080);
    let only = |keep: fn(&sim::TruePiece) -> bool| {
        let mut scene = scene.clone();
        scene
            .pieces
            .retain(|p| (p.color == "red" || p.color == "blue") && keep(p));
        scene
    };
    let mut colours = ColourModel::builtin();
    for side in &mut colours.sides {
        side.min_saturation = 0.9;
    }
    let read = |scene: &Scene| {
        let image = sim::render(scene);
        let calib =
            Calibration::from_image(&image, 36.0, 24.0, Some(scene.pinhole().intrinsics)).unwrap();
        detect_with_colours(&image, &calib, &colours)
    };

    let cubes = only(|p| p.kind == sim::Shape::Hq);
    assert!(cubes.pieces.len() >= 4, "{} cubes", cubes.pieces.len());
    let d = read(&cubes);
    assert_eq!(d.pieces.len(), cubes.pieces.len(), "{:#?}", d.pieces);
    for (truth, (off, seen)) in cubes.pieces.iter().zip(nearest(&cubes, &d)) {
        let seen = seen.unwrap_or_else(|| panic!("{truth:?} not found"));
        assert!(off <= 0.1, "{truth:?} found {off:.3} in off");
        assert_eq!(seen.kind, "hq", "{truth:?}");
    }

    let blocks = only(|p| p.kind == sim::Shape::Block && p.status == aide::table::Status::Fresh);
    let d = read(&blocks);
    assert!(
        d.pieces.iter().all(|p| p.kind != "hq"),
        "blocks read as cubes: {:#?}",
        d.pieces
    );
}

/// A block whose paint reads paler than its side's least saturation all over, side
/// faces too (on the photoreal frames, a blue block reads 0.41 to 0.47 saturated on its
/// top, under blue's floor of 0.5), makes no blob of paint. A faint region a block's
/// size is read in full, measured, and kept where the block stands up: the faces it
/// shows toward the camera are of its hue and darker than its top, or its label. Here
/// each side's floor is set above the renderer's paint (red 0.83, blue 0.77 saturated)
/// but within a fifth of it, so that every block reads faint and none as paint.
///
/// A block's top stands 0.75 in up and shows on the map plane pushed away from the point
/// under the camera by h / (H - h) of its distance from it (H the camera's height): the
/// side face the camera sees spans that push across the block. Every block that shows a
/// face at least 3.5 px deep (0.175 in) is found, within 0.08 in; the rest (near the
/// point under the camera, their faces a pixel or two deep) show nothing that ink cannot
/// show. Nothing else is read: every reading lies within 0.15 in of a block (one whose
/// strip leaves a sliver of its top faint reads 0.13 in off across).
#[test]
fn a_block_whose_paint_reads_pale_is_found_where_it_stands_up() {
    let mut scene = sim::random_scene(5, 36.0, 24.0, 1920, 1080);
    scene.pieces.retain(|p| {
        (p.color == "red" || p.color == "blue")
            && p.kind == sim::Shape::Block
            && p.status == aide::table::Status::Fresh
    });
    let mut colours = ColourModel::builtin();
    for side in &mut colours.sides {
        side.min_saturation = if side.name == "red" { 0.95 } else { 0.9 };
    }
    let image = sim::render(&scene);
    let calib =
        Calibration::from_image(&image, 36.0, 24.0, Some(scene.pinhole().intrinsics)).unwrap();
    let d = detect_with_colours(&image, &calib, &colours);
    let (cam_x, cam_y, cam_h) = calib.camera_over();
    let push = 0.75 / (cam_h - 0.75);
    let mut showing = 0;
    for (truth, (off, seen)) in scene.pieces.iter().zip(nearest(&scene, &d)) {
        let h = truth.heading_deg.to_radians();
        let across = ((truth.x_in - cam_x) * h.sin() - (truth.y_in - cam_y) * h.cos()).abs();
        let face_px = across * push * 20.0;
        if face_px >= 3.5 {
            showing += 1;
            let seen = seen.unwrap_or_else(|| panic!("{truth:?} (face {face_px:.1} px) not found"));
            assert!(off <= 0.08, "{truth:?} found {off:.3} in off");
            assert_eq!((seen.kind.as_str(), seen.status), ("block", truth.status));
        }
    }
    assert!(showing >= 6, "{showing} blocks show a face");
    for p in &d.pieces {
        let off = scene
            .pieces
            .iter()
            .map(|t| (t.x_in - p.x_in).hypot(t.y_in - p.y_in))
            .fold(f64::INFINITY, f64::min);
        assert!(off <= 0.15, "{p:?} is {off:.3} in from any block");
    }
}

/// A red spent block in melee with a blue block, flank to flank and facing it: the blue
/// block's strip touches the red label, and the red block's rim reads too pale for red
/// paint (as on the photoreal frames, where a red rim mixed with the white label reads
/// orange; here red's least saturation is set above the renderer's red). The label then
/// touches blue paint only. It is still the red spent block, by the red of its rim on
/// three of its edges, and the blue block is still a fresh blue block beside it.
#[test]
fn a_spent_block_in_contact_with_an_enemy_keeps_its_side() {
    let mut scene = sim::random_scene(21, 36.0, 24.0, 1280, 720);
    let red = sim::TruePiece {
        kind: sim::Shape::Block,
        color: "red".into(),
        x_in: 20.0,
        y_in: 14.0,
        heading_deg: 90.0,
        status: aide::table::Status::Spent,
        marked: true,
    };
    // Half a spent block's depth and half a fresh one's apart: in contact.
    let blue = sim::TruePiece {
        color: "blue".into(),
        x_in: 20.0 + 0.375 + 0.1875 + 0.01,
        heading_deg: 270.0,
        status: aide::table::Status::Fresh,
        ..red.clone()
    };
    scene.pieces = vec![red, blue];
    let image = sim::render(&scene);
    let calib =
        Calibration::from_image(&image, 36.0, 24.0, Some(scene.pinhole().intrinsics)).unwrap();
    let mut colours = ColourModel::builtin();
    // The renderer's red is 0.83 saturated.
    colours.sides[0].min_saturation = 0.95;
    assert_eq!(colours.sides[0].name, "red");
    let d = detect_with_colours(&image, &calib, &colours);
    assert_eq!(d.pieces.len(), 2, "{:#?}", d.pieces);
    for (truth, (off, seen)) in scene.pieces.iter().zip(nearest(&scene, &d)) {
        let seen = seen.unwrap_or_else(|| panic!("{truth:?} not found: {:#?}", d.pieces));
        // The red block, found by its label alone, reads 0.11 in off toward the blue
        // one, whose strip blurs into its label's edge.
        assert!(off <= 0.15, "{truth:?} found {off:.3} in off");
        assert_eq!(seen.status, truth.status, "{truth:?}");
    }
}

/// A marked fresh blue block face to face with a spent, marked red one, the camera behind
/// the blue block: its raised top hides the red block's edge, so its facing strip and the
/// red label's paper meet with no seam between, and shared out by distance from each
/// side's paint the blue block took a band of the red top. Read too deep for a standing
/// block, it was lost, or read backwards 0.06 to 0.12 in off, on 6 of these 9 tables
/// (three seeds, three headings). The paper where the red label was read, in the red
/// blob, is the red block's; each block now reads within a sixteenth, the blue one
/// fresh and facing its way.
#[test]
fn a_standing_block_against_a_spent_enemy_keeps_its_strip_where_no_seam_parts_them() {
    for seed in [2, 4, 5] {
        for (k, heading) in [0.0f64, 30.0, 66.0].into_iter().enumerate() {
            let mut scene = sim::random_scene(seed, 36.0, 24.0, 1920, 1080);
            let blue = sim::TruePiece {
                kind: sim::Shape::Block,
                color: "blue".into(),
                x_in: 8.0 + 3.0 * k as f64,
                y_in: 6.0 + 1.5 * seed as f64,
                heading_deg: heading,
                status: aide::table::Status::Fresh,
                marked: true,
            };
            // Half a fresh block's depth and half a spent one's apart, in front of the
            // blue block: in contact.
            let gap = 0.1875 + 0.375 + 0.012;
            let h = heading.to_radians();
            let red = sim::TruePiece {
                color: "red".into(),
                x_in: blue.x_in + gap * h.sin(),
                y_in: blue.y_in - gap * h.cos(),
                heading_deg: (heading + 180.0) % 360.0,
                status: aide::table::Status::Spent,
                ..blue.clone()
            };
            scene.pieces = vec![blue, red];
            let (_, d) = detect(&scene, true);
            for (truth, (off, seen)) in scene.pieces.iter().zip(nearest(&scene, &d)) {
                let table = format!("seed {seed}, heading {heading}: {truth:?}");
                let seen = seen.unwrap_or_else(|| panic!("{table} not found: {:#?}", d.pieces));
                assert!(off <= 0.0625, "{table} found {off:.3} in off");
                assert_eq!(seen.status, truth.status, "{table}");
                if truth.status == aide::table::Status::Fresh {
                    assert_facing_read(truth, seen);
                }
            }
        }
    }
}

/// Blocks of one side in contact: lines end to end (fresh and spent mixed, turned a few
/// degrees to each other) and columns of two marked blocks. Each is found once, with its
/// status, and a marked one with its facing. In seed 9 a column's shaded ends join its
/// two blocks into one blob of paint, which only their separate lit tops tell apart.
#[test]
fn blocks_touching_in_lines_and_columns_are_each_found_once() {
    for seed in [4, 9] {
        blocks_touching_are_each_found_once(seed);
    }
}

/// A facing strip 3/16 in deep on a block whose edges are rounded is deeper than half
/// its flat top: it runs past the middle, and the top's back half holds paper too. Read
/// again on the top moved a few pixels toward the front, the whole strip falls in the
/// back half and read there, backwards; in tables 11 and 20 (edges rounded by 0.04 in,
/// blocks in contact) one marked block each read 179 degrees off that way. In table 9
/// two blocks of columns read backwards, each given both strips of its column (see
/// `strips_one_way` in the detector). In table 15 a lone marked block's lit top, narrow
/// beside its strip, and the few lit pixels of its dark side face are two parts with the
/// strip between them: given to the smaller part, as a column's strip goes to the block
/// whose lit top is half the other's, it read backwards (`strip_owner_by_lit_top`). A
/// block whose facing is unsure may be left unread, never turned round.
#[test]
fn a_strip_past_the_middle_of_a_rounded_top_never_reads_backwards() {
    // (seed, least strips read)
    for (seed, least_read) in [(9, 20), (11, 20), (15, 18), (20, 20)] {
        let scene = Scene {
            rounded_edge_in: 0.04,
            ..sim::touching_scene(seed, 36.0, 24.0, 1920, 1080)
        };
        let (_, d) = detect(&scene, true);
        let mut read = 0;
        for (truth, (error, seen)) in scene.pieces.iter().zip(nearest(&scene, &d)) {
            let Some(seen) = seen.filter(|_| truth.marked && error <= 0.5) else {
                continue;
            };
            if seen.facing == Facing::Marked {
                read += 1;
                let off = aide::geom::heading_difference(seen.heading_deg, truth.heading_deg);
                assert!(
                    off < 10.0,
                    "seed {seed}: {truth:?} read facing {off:.1} deg off"
                );
            }
        }
        // Nearly every strip still reads.
        assert!(read >= least_read, "seed {seed}: {read} strips read");
    }
}

/// A standing block seen from behind shows its label on its back face, slanted toward
/// the camera, and beyond it its top: paint, and on a marked block the facing strip's
/// paper over the top's front half. With the top's edges rounded the paint beside the
/// strip is narrower than half a top, and the label was taken for a spent block's top
/// with a rim beyond: on this table (edges rounded by 0.04 in, a camera 24 in up) two
/// marked blocks 18 in beyond the point under it, backs toward it, read spent and
/// 0.18 in off.
#[test]
fn a_marked_block_seen_from_behind_stands_though_its_strip_leaves_little_paint() {
    let scene = Scene {
        rounded_edge_in: 0.04,
        ..sim::random_scene(9, 36.0, 24.0, 1920, 1080)
    };
    let (calib, d) = detect(&scene, true);
    let (cam_x, cam_y, _) = calib.camera_over();
    let mut seen_from_behind = 0;
    for (truth, (error, seen)) in scene.pieces.iter().zip(nearest(&scene, &d)) {
        let seen = seen.unwrap_or_else(|| panic!("{truth:?} not found"));
        assert_eq!(seen.status, truth.status, "{truth:?} seen as {seen:?}");
        assert!(error <= 1.0 / 16.0, "{truth:?} {error:.3} in off");
        let forward = truth.heading_deg.to_radians();
        let camera_ahead_in =
            (cam_x - truth.x_in) * forward.sin() - (cam_y - truth.y_in) * forward.cos();
        if truth.marked && truth.status == aide::table::Status::Fresh && camera_ahead_in < -12.0 {
            seen_from_behind += 1;
        }
    }
    assert!(
        seen_from_behind >= 2,
        "{seen_from_behind} marked blocks seen from behind"
    );
}

fn blocks_touching_are_each_found_once(seed: u64) {
    let scene = sim::touching_scene(seed, 36.0, 24.0, 1280, 720);
    let (_, d) = detect(&scene, true);
    let pairs = nearest(&scene, &d);
    assert_eq!(
        d.pieces.len(),
        scene.pieces.len(),
        "seed {seed}: one detection a piece"
    );
    let mut touching = 0;
    for (truth, (error, seen)) in scene.pieces.iter().zip(&pairs) {
        let in_contact = scene.pieces.iter().any(|other| {
            !std::ptr::eq(other, truth)
                && other.color == truth.color
                && (other.x_in - truth.x_in).hypot(other.y_in - truth.y_in) < 2.0
        });
        if !in_contact {
            continue;
        }
        touching += 1;
        let seen = seen.expect("found");
        assert!(
            *error <= 1.0 / 16.0,
            "{truth:?} seen at {error:.3} in: {seen:?}"
        );
        assert_eq!(seen.status, truth.status, "{truth:?} seen as {seen:?}");
        assert_facing_read(truth, seen);
    }
    assert!(
        touching >= 10,
        "seed {seed}: only {touching} pieces in contact"
    );
}

/// The live pipeline keeps the sampler between frames, with each tile's reads worked
/// out the first time: a frame read again with the kept sampler gives what a frame read
/// from nothing gives.
#[test]
fn a_kept_sampler_reads_a_frame_as_a_new_one_does() {
    let scene = sim::touching_scene(9, 36.0, 24.0, 1280, 720);
    let image = sim::render(&scene);
    let calib = Calibration::from_image(&image, 36.0, 24.0, Some(scene.pinhole().intrinsics))
        .expect("the four tags are in view");
    with_default_options(|options| {
        let fresh = vision::detect(&image, &calib, options);
        assert!(fresh.pieces.len() >= 25, "{} pieces", fresh.pieces.len());
        let sampler = vision::PlaneSampler::new(&calib, image.width(), image.height());
        let first = vision::detect_sampled(&image, &calib, &sampler, options);
        let again = vision::detect_sampled(&image, &calib, &sampler, options);
        assert_eq!(first, fresh);
        assert_eq!(again, fresh);
    });
}

/// Frames our renderer did not make: ../shared/vision-photoreal (path-traced tables on
/// printed maps, stickers on every block; see its README). Each is read by `aide detect
/// --camera-file` and scored here against its truth. The floors are what the detector
/// reaches today (2026-11-26), a little below, so that a change that loses ground fails;
/// the target for centre p95 (0.06 in) is not met yet.
#[test]
fn frames_from_another_renderer_are_read_above_todays_floors() {
    let dir = photoreal_dir();
    let (mut truths, mut found, mut detected) = (0usize, 0usize, 0usize);
    let (mut centre_err, mut strip_err) = (Vec::new(), Vec::new());
    let mut status_right = 0usize;
    for name in ["b00", "b04", "b07", "b09"] {
        let truth: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let map = format!("{}x{}", truth["map"]["width_in"], truth["map"]["height_in"]);
        let frame = dir.join(format!("{name}.jpg"));
        let camera = dir.join(format!("{name}.camera.json"));
        let args: [OsString; 7] = [
            "detect".into(),
            frame.into(),
            "--map".into(),
            map.into(),
            "--json".into(),
            "--camera-file".into(),
            camera.into(),
        ];
        let seen = aide_json(args);
        let seen = seen["pieces"].as_array().unwrap();
        let truth = truth["pieces"].as_array().unwrap();
        truths += truth.len();
        detected += seen.len();
        // Nearest pairs first, each piece used once, within half an inch.
        let at = |p: &serde_json::Value| [p["x_in"].as_f64().unwrap(), p["y_in"].as_f64().unwrap()];
        let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
        for (i, t) in truth.iter().enumerate() {
            for (j, p) in seen.iter().enumerate() {
                let d = (at(t)[0] - at(p)[0]).hypot(at(t)[1] - at(p)[1]);
                if d <= 0.5 {
                    pairs.push((d, i, j));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut used_t, mut used_p) = (vec![false; truth.len()], vec![false; seen.len()]);
        for (d, i, j) in pairs {
            if used_t[i] || used_p[j] {
                continue;
            }
            used_t[i] = true;
            used_p[j] = true;
            found += 1;
            centre_err.push(d);
            let (t, p) = (&truth[i], &seen[j]);
            status_right += usize::from(t["kind"] == "hq" || t["status"] == p["status"]);
            if t["marked"] == true && p["facing"] == "marked" {
                strip_err.push(aide::geom::heading_difference(
                    t["heading_deg"].as_f64().unwrap(),
                    p["heading_deg"].as_f64().unwrap(),
                ));
            }
        }
    }
    let quantile = |v: &mut Vec<f64>, q: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * q).round() as usize]
    };
    let recall = found as f64 / truths as f64;
    let precision = found as f64 / detected as f64;
    let centre_median = quantile(&mut centre_err, 0.5);
    let centre_p95 = quantile(&mut centre_err, 0.95);
    let strips_read = strip_err.len();
    let strip_p95 = quantile(&mut strip_err, 0.95);
    let status = status_right as f64 / found as f64;
    let figures = format!(
        "recall {recall:.3}, precision {precision:.3}, centre median {centre_median:.3} in, \
         p95 {centre_p95:.3} in, {strips_read} of the marked blocks' strips read, strip heading \
         p95 {strip_p95:.2} deg, status {status:.3}"
    );
    // 0.974 before a block whose paint reads faint all over was looked for, 0.983 after,
    // 0.991 once a top washed toward orange, in skin's colours too, was read as red.
    assert!(recall >= 0.99, "{figures}");
    assert!(precision >= 0.985, "{figures}");
    // 0.0386 before a spent block's far edge was taken past its rim, 0.0359 after; the
    // p95 0.125 before a block's top was ended at its step in brightness, 0.107 after,
    // 0.100 once that step was looked for only near the top's size; median 0.034 and
    // p95 0.100 before a washed-out top joined its side face's blob, 0.032 and 0.087
    // after; 0.030 and 0.085 once a cube was placed on the camera's axes and a part of
    // a line ended at the seam its paint ran past; p95 0.075 before blocks in a line or
    // a column were spaced a step apart (a seam misread moves both its blocks), 0.062
    // after.
    assert!(centre_median <= 0.032, "{figures}");
    assert!(centre_p95 <= 0.068, "{figures}");
    // 41 of 66 strips read before a standing block's strip was read again where its
    // top lies (when its blob, measured in parts, did not show it), 51 after, 57 once a
    // spent block's was read again at its ends, 59 once a washed-out top was read, 61
    // once a strip not where its block was placed was looked for 0.15 in across.
    assert!(strips_read >= 60, "{figures}");
    // 3.46 before a spent block in melee took its axes from its label's clean edge
    // (three such blocks read 3.1 to 6.2 deg off), 1.72 after, 1.37 once a standing
    // block's were mended from its top's edges too (two read 2.5 and 3.8 deg off).
    assert!(strip_p95 <= 1.5, "{figures}");
    assert!(status >= 0.98, "{figures}");
}

/// The same frames as a real camera might have sent them (`aide bench vision --photoreal
/// --perturb`): compressed once more as a webcam's MJPEG, exposed at three quarters of
/// the light, the 4K frame halved to 1080p, the picture moved a pixel (the camera
/// turned by a hair), a flat picture (black lifted to 40), a softer lens (blurred by
/// 1 px) and a paler picture (saturation x0.85). Each way is scored on its own. The
/// floors are below what the detector reaches today (2026-11-27: recall 0.977 to 1.000,
/// precision 1.000, centre p95 0.046 to 0.119 in), so that a change that loses ground
/// on frames it was never shown fails. (Recall was 0.935 on the 4K frame compressed
/// again and halved, two blocks ending a line lost, before a reading that gains a
/// line's washed-out ends was held only to its first pieces' surety.) The softer lens
/// and the paler picture are held to their own, lower floors: today (2026-11-29) the
/// 1080p frames blurred read recall 0.930 (contacts: a column of two read as one, a cube
/// against a block's end lost), and paler 0.860 (red tops under red's least
/// saturation), the 4K frame paler 0.903 with centre p95 0.202 in. The flat picture
/// read 0.988 at 1080p, 0.36 before its black was taken off. Compressed again with
/// colour at a quarter of the pixels (4:2:0, as a phone app's stream), the 1080p frames
/// read recall 0.919 and precision 0.988, one piece in the other side's colour, and the
/// 4K frame 0.968. Before marked blocks were found by their facing strips alone (their
/// tops too pale, or too thin, to read as paint), the 1080p frames read recall 0.895
/// blurred, 0.791 paler and 0.907 with 4:2:0: the floors of 0.91, 0.83 and 0.91 hold
/// that gain.
#[test]
fn frames_from_another_renderer_as_a_camera_might_send_them_are_read_above_todays_floors() {
    let dir = photoreal_dir();
    let bench = ["bench", "vision", "--json", "--perturb", "--photoreal"].map(OsString::from);
    let report = aide_json(bench.into_iter().chain([dir.into()]));
    let groups = report["results"].as_array().unwrap();
    let label = |g: &serde_json::Value| g["frames"].as_str().unwrap().to_owned();
    let changed: Vec<&serde_json::Value> =
        groups.iter().filter(|g| label(g).contains(' ')).collect();
    let names: Vec<String> = changed.iter().map(|g| label(g)).collect();
    assert_eq!(
        names,
        [
            "1920x1080 JPEG q80 again",
            "1920x1080 JPEG q80 4:2:0 again",
            "1920x1080 exposure x0.75",
            "1920x1080 moved 1 px",
            "1920x1080 black at 40",
            "1920x1080 blurred 1 px",
            "1920x1080 saturation x0.85",
            "3840x2160 JPEG q80 again",
            "3840x2160 JPEG q80 4:2:0 again",
            "3840x2160 exposure x0.75",
            "3840x2160 halved",
            "3840x2160 moved 1 px",
            "3840x2160 black at 40",
            "3840x2160 blurred 1 px",
            "3840x2160 saturation x0.85",
        ]
    );
    for group in changed {
        let s = &group["summary"];
        let figure = |k: &str| s[k].as_f64().unwrap();
        let figures = format!("{}: {s}", label(group));
        let (least_recall, most_centre_p95) = if label(group).ends_with("blurred 1 px") {
            (0.91, 0.15)
        } else if label(group).ends_with("saturation x0.85") {
            (0.83, 0.25)
        } else if label(group).ends_with("4:2:0 again") {
            (0.91, 0.15)
        } else {
            (0.96, 0.15)
        };
        assert!(figure("recall") >= least_recall, "{figures}");
        assert!(figure("precision") >= 0.98, "{figures}");
        assert!(figure("centre_p95_in") <= most_centre_p95, "{figures}");
        assert!(figure("status_accuracy") >= 0.97, "{figures}");
    }
}

/// The photoreal check frames: ../shared/vision-photoreal beside the checkout.
fn photoreal_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vision-photoreal");
    assert!(
        dir.is_dir(),
        "{}: the photoreal check frames (shared/ beside the checkout) are missing",
        dir.display()
    );
    dir
}

/// What `aide` prints as JSON, run with `args`; it must succeed.
fn aide_json(args: impl IntoIterator<Item = OsString>) -> serde_json::Value {
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}

/// Two-deep columns of marked blocks (in contact, one behind the other), each facing the
/// point under a low camera (24.5 in up) from a corner of the map, filmed through a
/// lens softer than our renderer's: the frame blurred by a Gaussian of 0.8 and of 1.1
/// px at 1080p. Blurred, a strip's edges mix with the paint on both sides, and its
/// paper thins to two map-plane pixels with no interior, the way the photoreal frames
/// show a column 19 in from under their camera. Thin as a line of the map's, such strips
/// were left out of the blob: at 1.1 px, 6 of these 16 blocks were missed outright
/// (more than 0.3 in off), now 2. Still lost there: two blue columns whose strips blur
/// too pale to read merge into one block each, and 12 of 16 are found within 1/16 in
/// with their facing read. Taken in, the strips of a column must go with their tops
/// all one way: given both to the front block, it read facing backwards at 0.8 px.
#[test]
fn columns_seen_through_a_soft_lens_keep_their_strips() {
    let (w, h) = (1920u32, 1080u32);
    let mut scene = sim::random_scene(3, 36.0, 24.0, w, h);
    scene.camera.height_in = 24.5;
    scene.camera.offset_x_in = 5.0;
    scene.camera.offset_y_in = 3.0;
    scene.camera.yaw_deg = 3.0;
    // The map's farthest corner, 23.5 by 15.5 in from under the camera, just in frame.
    scene.camera.focal_px = 0.9 * 24.5 * (f64::from(w) / 2.0 / 23.5).min(f64::from(h) / 2.0 / 15.5);
    let under_camera: (f64, f64) = (18.0 + 5.0, 12.0 + 3.0);
    let fronts = [
        (4.0, 3.0),
        (9.0, 3.0),
        (4.0, 9.0),
        (3.5, 20.0),
        (10.0, 21.0),
        (33.0, 2.5),
        (14.0, 2.5),
        (3.0, 14.5),
    ];
    scene.pieces = fronts
        .into_iter()
        .enumerate()
        .flat_map(|(i, (x, y))| {
            let heading = (under_camera.0 - x).atan2(y - under_camera.1).to_degrees() + 7.0;
            let front = [heading.to_radians().sin(), -heading.to_radians().cos()];
            // The block behind stands a fresh block's depth back, and a hair.
            (0..2).map(move |k| {
                let back = f64::from(k) * (0.375 + 0.004);
                sim::TruePiece {
                    kind: sim::Shape::Block,
                    color: if i % 2 == 0 { "red" } else { "blue" }.into(),
                    x_in: x - front[0] * back,
                    y_in: y - front[1] * back,
                    heading_deg: heading.rem_euclid(360.0),
                    status: aide::table::Status::Fresh,
                    marked: true,
                }
            })
        })
        .collect();
    let frame = sim::render(&scene);
    for (sigma, least_found) in [(0.8, 16), (1.1, 12)] {
        let image = image::imageops::blur(&frame, sigma);
        let calib = Calibration::from_image(&image, 36.0, 24.0, Some(scene.pinhole().intrinsics))
            .expect("the four tags are in view");
        let d = with_default_options(|options| vision::detect(&image, &calib, options));
        let mut found = 0;
        for (truth, (error, seen)) in scene.pieces.iter().zip(nearest(&scene, &d)) {
            let Some(seen) = seen.filter(|_| error <= 0.5) else {
                continue;
            };
            if seen.facing == Facing::Marked {
                let off = aide::geom::heading_difference(seen.heading_deg, truth.heading_deg);
                assert!(
                    off < 10.0,
                    "blur {sigma}: {truth:?} read facing {off:.1} deg off"
                );
            }
            if error <= 1.0 / 16.0 && seen.facing == Facing::Marked {
                found += 1;
            }
        }
        assert!(
            found >= least_found,
            "blur {sigma}: {found} of 16 blocks found within 1/16 in, facing read: {:#?}",
            d.pieces
        );
    }
}

/// Columns of two fresh blocks in contact, one behind the other, as a player forms them:
/// both marked, both unmarked, or one marked (the front block or the rear one), each
/// seen from ahead and from behind, on sharp boxes and on blocks rounded as sanded wood
/// is. Our renderer's touching tables drew columns of marked blocks only, whose strips
/// part the two tops; two unmarked tops side by side are a spent block's top in size,
/// with no label on it. On this table, before columns were parted where no strip shows
/// (`column_parts`), 16 unmarked blocks in columns gave 5 detections and 16 in mixed
/// columns 11: most columns read as one spent block carrying the other's strip.
#[test]
fn blocks_in_columns_are_found_marked_or_not() {
    let (w, h) = (1920u32, 1080u32);
    // (which blocks carry a strip, edge rounding, least found within 1/16 in, least
    // found at all, most marked blocks read more than 10 degrees off)
    let cases = [
        ("both", 0.0, 16, 16, 0),
        ("both", 0.04, 16, 16, 0),
        ("one", 0.0, 16, 16, 0),
        ("one", 0.04, 15, 15, 0),
        ("none", 0.0, 10, 10, 0),
        ("none", 0.04, 10, 10, 0),
    ];
    for (marking, rounded_edge_in, least_close, least_found, most_off) in cases {
        let mut scene = Scene {
            rounded_edge_in,
            ..sim::random_scene(3, 36.0, 24.0, w, h)
        };
        scene.camera.height_in = 26.0;
        scene.camera.offset_x_in = 2.0;
        scene.camera.offset_y_in = 1.0;
        scene.camera.yaw_deg = 0.0;
        // The map's farthest corner, 20 by 13 in from under the camera, in frame.
        scene.camera.focal_px =
            0.9 * 26.0 * (f64::from(w) / 2.0 / 20.0).min(f64::from(h) / 2.0 / 13.0);
        let under_camera: (f64, f64) = (18.0 + 2.0, 12.0 + 1.0);
        let fronts = [
            (4.0, 3.0),
            (10.0, 3.5),
            (4.0, 10.0),
            (4.5, 20.0),
            (11.0, 20.5),
            (31.0, 3.0),
            (31.0, 20.0),
            (24.0, 3.0),
        ];
        scene.pieces = fronts
            .into_iter()
            .enumerate()
            .flat_map(|(i, (x, y))| {
                // Half the columns face the camera, half turn their backs on it; of
                // those with one strip, half carry it on the front block.
                let toward_camera = (under_camera.0 - x).atan2(y - under_camera.1).to_degrees();
                let heading = toward_camera + if i % 2 == 0 { 5.0 } else { 185.0 };
                let front = [heading.to_radians().sin(), -heading.to_radians().cos()];
                let marked_one = (i / 2) % 2;
                (0..2usize).map(move |k| sim::TruePiece {
                    kind: sim::Shape::Block,
                    color: if i % 3 == 0 { "blue" } else { "red" }.into(),
                    x_in: x - front[0] * k as f64 * (0.375 + 0.004),
                    y_in: y - front[1] * k as f64 * (0.375 + 0.004),
                    heading_deg: heading.rem_euclid(360.0),
                    status: aide::table::Status::Fresh,
                    marked: match marking {
                        "both" => true,
                        "one" => k == marked_one,
                        _ => false,
                    },
                })
            })
            .collect();
        let (_, d) = detect(&scene, true);
        let case = format!("{marking} marked, edges {rounded_edge_in} in");
        // One to one: each detection answers for the nearest truth of its colour.
        let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
        for (i, t) in scene.pieces.iter().enumerate() {
            for (j, p) in d.pieces.iter().enumerate() {
                if p.color == t.color {
                    pairs.push(((p.x_in - t.x_in).hypot(p.y_in - t.y_in), i, j));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut truth_used, mut seen_used) =
            (vec![false; scene.pieces.len()], vec![false; d.pieces.len()]);
        let (mut found, mut close, mut off) = (0, 0, 0);
        for (error, i, j) in pairs {
            if error > 0.5 || truth_used[i] || seen_used[j] {
                continue;
            }
            (truth_used[i], seen_used[j]) = (true, true);
            let (truth, seen) = (&scene.pieces[i], &d.pieces[j]);
            found += 1;
            close += usize::from(error <= 1.0 / 16.0);
            assert_eq!(
                seen.status, truth.status,
                "{case}: {truth:?} seen as {seen:?}"
            );
            if seen.facing == Facing::Marked {
                assert!(
                    truth.marked,
                    "{case}: unmarked {truth:?} read a strip: {seen:?}"
                );
                let turn = aide::geom::heading_difference(seen.heading_deg, truth.heading_deg);
                off += usize::from(turn > 10.0);
            }
        }
        let phantoms = d.pieces.len() - found;
        assert_eq!(phantoms, 0, "{case}: {:#?}", d.pieces);
        assert!(found >= least_found, "{case}: {found} of 16 found");
        assert!(close >= least_close, "{case}: {close} of 16 within 1/16 in");
        assert!(
            off <= most_off,
            "{case}: {off} marked blocks read more than 10 deg off"
        );
        eprintln!("{case}: {found} found, {close} within 1/16 in, {off} off by more than 10 deg");
    }
}
