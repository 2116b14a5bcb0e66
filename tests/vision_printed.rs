//! The detector on printed maps (`scenarios/maps`): red roofs in the red side's hue, a
//! river in the blue side's, read with and without the empty map's reference made by
//! `aide calibrate map` from a photo of the empty table.

use std::path::{Path, PathBuf};
use std::process::Command;

use aide::model::PieceModel;
use aide::sim::{self, MapTexture, Scene};

fn aide() -> Command {
    Command::new(env!("CARGO_BIN_EXE_aide"))
}

fn printed_map(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/maps")
        .join(name)
}

/// Render `scene` on `map` into `dir` as frame.png with its lens as camera.json.
fn film(scene: &Scene, map: &MapTexture, dir: &Path) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let model = PieceModel::builtin("pub-battles").unwrap();
    let frame = dir.join("frame.png");
    sim::render_on(scene, &model, map).save(&frame).unwrap();
    let camera = dir.join("camera.json");
    std::fs::write(
        &camera,
        serde_json::to_string(&scene.pinhole().intrinsics).unwrap(),
    )
    .unwrap();
    (frame, camera)
}

/// `aide detect --json` on a frame: each piece's (x, y) in inches, and what it said on
/// stderr.
fn detect(
    frame: &Path,
    camera: &Path,
    map: &str,
    reference: Option<&Path>,
) -> (Vec<[f64; 2]>, String) {
    let mut command = aide();
    command
        .arg("detect")
        .arg(frame)
        .args(["--map", map, "--json"]);
    command.arg("--camera-file").arg(camera);
    if let Some(reference) = reference {
        command.arg("--reference").arg(reference);
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pieces = json["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| [p["x_in"].as_f64().unwrap(), p["y_in"].as_f64().unwrap()])
        .collect();
    (pieces, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// For each true piece the distance to the nearest detection, and the detections more
/// than half an inch from every true piece (phantoms).
fn score(scene: &Scene, found: &[[f64; 2]]) -> (Vec<f64>, usize) {
    let dist = |a: [f64; 2], t: &sim::TruePiece| (a[0] - t.x_in).hypot(a[1] - t.y_in);
    let errors = scene
        .pieces
        .iter()
        .map(|t| {
            found
                .iter()
                .map(|&p| dist(p, t))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let phantoms = found
        .iter()
        .filter(|&&p| scene.pieces.iter().all(|t| dist(p, t) > 0.5))
        .count();
    (errors, phantoms)
}

#[test]
fn red_roofs_are_not_pieces_once_the_empty_map_is_known() {
    let dir = tempfile::tempdir().unwrap();
    let (map, w, h) = MapTexture::from_svg_at_its_size(&printed_map("market-town.svg")).unwrap();
    assert_eq!((w, h), (34.0, 22.0), "the map's printed size");
    let mapsize = "34x22";
    let table = sim::random_scene(3, w, h, 1280, 720);
    let empty = Scene {
        pieces: Vec::new(),
        ..table.clone()
    };
    let (frame, camera) = film(&table, &map, &dir.path().join("game"));
    let (empty_frame, _) = film(&empty, &map, &dir.path().join("empty"));

    // Without the empty map the town's roofs are read as red pieces: the map is hard.
    let (found, _) = detect(&frame, &camera, mapsize, None);
    let (_, phantoms) = score(&table, &found);
    assert!(phantoms >= 5, "{phantoms} phantoms on the bare town");

    // The empty table photographed from where the camera stands.
    let reference = dir.path().join("map-reference.png");
    let out = aide()
        .args(["calibrate", "map"])
        .arg(&empty_frame)
        .args(["--map", mapsize, "--camera-file"])
        .arg(&camera)
        .arg("--out")
        .arg(&reference)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        image::image_dimensions(&reference).unwrap(),
        (680, 440),
        "the map plane at 20 px an inch"
    );
    let (found, _) = detect(&frame, &camera, mapsize, Some(&reference));
    let (errors, phantoms) = score(&table, &found);
    assert_eq!(phantoms, 0, "no roof read as a piece");
    assert_eq!(found.len(), table.pieces.len(), "every piece once");
    let worst = errors.iter().copied().fold(0.0, f64::max);
    assert!(worst <= 1.0 / 16.0, "a piece {worst:.3} in off");

    // The map's own image serves as well: matched to the frame's light and colours.
    let (found, _) = detect(
        &frame,
        &camera,
        mapsize,
        Some(&printed_map("market-town.svg")),
    );
    let (errors, phantoms) = score(&table, &found);
    assert_eq!((phantoms, found.len()), (0, table.pieces.len()));
    assert!(errors.iter().all(|e| *e <= 1.0 / 16.0), "{errors:?}");
}

#[test]
fn a_reference_of_another_map_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    // The plane of a 34 x 22 in map given for a 36 x 24 in one.
    let other = dir.path().join("other.png");
    image::RgbImage::new(680, 440).save(&other).unwrap();
    let err = aide::vision::MapReference::from_file(&other, 36.0, 24.0)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("34 x 22 in map") && err.contains("36 x 24 in"),
        "{err}"
    );
    // A map image that is not there, or not a map image.
    let missing = dir.path().join("missing.svg");
    let err = aide::vision::MapReference::from_file(&missing, 36.0, 24.0)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("missing.svg") && err.contains("cannot be read"),
        "{err}"
    );
    let garbage = dir.path().join("garbage.svg");
    std::fs::write(&garbage, "<svg").unwrap();
    let err = aide::vision::MapReference::from_file(&garbage, 36.0, 24.0)
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("not an SVG drawing"), "{err}");

    // A reference of the right size but of another map (the town's, on the photoreal
    // 4K frame of a 34 x 22 in map): not used, and said so; the pieces are read as
    // without it.
    let photoreal = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vision-photoreal");
    let (frame, camera) = (photoreal.join("b09.jpg"), photoreal.join("b09.camera.json"));
    let town = printed_map("market-town.svg");
    let (with_other, said) = detect(&frame, &camera, "34x22", Some(&town));
    assert!(said.contains("does not look like this table"), "{said}");
    let (without, _) = detect(&frame, &camera, "34x22", None);
    assert_eq!(with_other, without);
}
