//! The detector on printed maps (`scenarios/maps`): red roofs in the red side's hue, a
//! river in the blue side's, read with and without the empty map's reference made by
//! `aide calibrate map` from a photo of the empty table.

use std::path::{Path, PathBuf};
use std::process::Command;

use aide::capture::Frame;
use aide::geom::Footprint;
use aide::live::Observer;
use aide::model::PieceModel;
use aide::scenario::Scenario;
use aide::sim::{self, MapTexture, Scene};
use aide::table::Status;
use aide::vision::{
    Calibration, ColourModel, DetectOptions, MapReference, PlaneSampler, TableObserver,
    detect_sampled,
};

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
    let (pieces, said) = detect_json(frame, camera, map, reference);
    let at = pieces
        .iter()
        .map(|p| [p["x_in"].as_f64().unwrap(), p["y_in"].as_f64().unwrap()])
        .collect();
    (at, said)
}

/// `aide detect --json` on a frame: its pieces as the JSON gives them, and what it said
/// on stderr.
fn detect_json(
    frame: &Path,
    camera: &Path,
    map: &str,
    reference: Option<&Path>,
) -> (Vec<serde_json::Value>, String) {
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
    let pieces = json["pieces"].as_array().unwrap().clone();
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

/// One piece of a rendered table on a printed map, found by where it stands (`at`,
/// inches), and the reading of its colour nearest to it with that reading's distance
/// from it, read with no reference. The frame is filmed into `dir`.
fn read_nearest(
    map: &str,
    seed: u64,
    at: [f64; 2],
    dir: &Path,
) -> (sim::TruePiece, serde_json::Value, f64) {
    let (texture, w, h) = MapTexture::from_svg_at_its_size(&printed_map(map)).unwrap();
    let table = sim::random_scene(seed, w, h, 1920, 1080);
    let truth = table
        .pieces
        .iter()
        .find(|t| (t.x_in - at[0]).hypot(t.y_in - at[1]) < 0.01)
        .unwrap_or_else(|| panic!("seed {seed} has a piece at {at:?}"))
        .clone();
    let (frame, camera) = film(&table, &texture, dir);
    let (read, _) = detect_json(&frame, &camera, &format!("{w}x{h}"), None);
    let off = |p: &serde_json::Value| {
        (p["x_in"].as_f64().unwrap() - truth.x_in).hypot(p["y_in"].as_f64().unwrap() - truth.y_in)
    };
    let nearest = read
        .into_iter()
        .filter(|p| p["color"] == truth.color.as_str())
        .min_by(|a, b| off(a).total_cmp(&off(b)))
        .unwrap_or_else(|| panic!("no {} piece read", truth.color));
    let distance = off(&nearest);
    (truth, nearest, distance)
}

/// "Gíralas con la cara adhesiva hacia arriba para mostrar que una unidad está Agotada"
/// [3.2]: a spent block lies label up. On the bare river-crossing map, read with no
/// reference, stretches of the river cut short by bridges and roads come near a spent
/// block's size; with no label on them, they are no spent block (before this rule one
/// was read as a spent block on each of these seeds). The same tables with their
/// pieces keep every spent block, label up, read as spent.
#[test]
fn a_stretch_of_river_with_no_label_on_it_is_no_spent_block() {
    let dir = tempfile::tempdir().unwrap();
    let (map, w, h) = MapTexture::from_svg_at_its_size(&printed_map("river-crossing.svg")).unwrap();
    let mapsize = format!("{w}x{h}");
    for seed in 1..=4 {
        let table = sim::random_scene(seed, w, h, 1920, 1080);
        let empty = Scene {
            pieces: Vec::new(),
            ..table.clone()
        };
        let (frame, camera) = film(&empty, &map, &dir.path().join(format!("empty{seed}")));
        let (read, _) = detect_json(&frame, &camera, &mapsize, None);
        let spent = read.iter().filter(|p| p["status"] == "spent").count();
        assert_eq!(
            spent, 0,
            "seed {seed}: spent blocks on the bare map: {read:?}"
        );

        let (frame, camera) = film(&table, &map, &dir.path().join(format!("table{seed}")));
        let (read, _) = detect_json(&frame, &camera, &mapsize, None);
        for truth in table.pieces.iter().filter(|t| t.status == Status::Spent) {
            let as_spent = read.iter().any(|p| {
                let off = (p["x_in"].as_f64().unwrap() - truth.x_in)
                    .hypot(p["y_in"].as_f64().unwrap() - truth.y_in);
                off <= 0.25 && p["status"] == "spent"
            });
            assert!(
                as_spent,
                "seed {seed}: the spent block at ({:.2}, {:.2}) is not read as one",
                truth.x_in, truth.y_in
            );
        }
    }
}

/// The River Wend between the bridge at (13.9, 11.85) in and the road that crosses it
/// is a blue stretch a block long and 0.2 in deep. Under the camera (these seeds' cameras
/// stand 1 to 3 in from it) no face shows, and a standing block's top alone would read
/// 0.375 in deep, less 0.15 in of blurred edges at the most: on the bare map it is no
/// block (before `is_sliver`, each of these seeds read one there).
#[test]
fn the_river_between_a_bridge_and_a_road_is_no_block() {
    let dir = tempfile::tempdir().unwrap();
    let (map, w, h) = MapTexture::from_svg_at_its_size(&printed_map("river-crossing.svg")).unwrap();
    for seed in [110, 119, 127] {
        let bare = Scene {
            pieces: Vec::new(),
            ..sim::random_scene(seed, w, h, 1920, 1080)
        };
        let (frame, camera) = film(&bare, &map, &dir.path().join(format!("bare{seed}")));
        let (found, _) = detect(&frame, &camera, &format!("{w}x{h}"), None);
        let by_the_bridge: Vec<_> = found
            .iter()
            .filter(|p| (p[0] - 13.8).hypot(p[1] - 12.2) < 1.0)
            .collect();
        assert!(by_the_bridge.is_empty(), "seed {seed}: {by_the_bridge:?}");
    }
}

/// "Gíralas con la cara adhesiva hacia arriba" [3.2]: a spent block lies label up. A red
/// spent block lying across the town's red roofs (seed 12, at (25.02, 9.86) in, its
/// front toward the map's top, heading 5.5 degrees) is one blob of red paint with them,
/// and its label has roof paint beyond its far edge as a standing block's back label
/// has its top. Fitted with the roofs, the block read 0.30 in off and facing 196 degrees
/// wrong, less surely (0.31) than its label alone reads a block (0.5); its label then
/// reads it: within 0.1 in, and facing right to 10 degrees or not said.
#[test]
fn a_spent_block_lying_on_roofs_of_its_colour_is_read_by_its_label() {
    let dir = tempfile::tempdir().unwrap();
    let (truth, block, off) = read_nearest("market-town.svg", 12, [25.02, 9.86], dir.path());
    assert_eq!((truth.color.as_str(), truth.status), ("red", Status::Spent));
    assert!(off <= 0.1, "read {off:.2} in off: {block}");
    assert_eq!(block["status"], "spent", "{block}");
    let turn = (block["heading_deg"].as_f64().unwrap() - truth.heading_deg).rem_euclid(360.0);
    assert!(
        block["facing"] == "unknown" || turn.min(360.0 - turn) <= 10.0,
        "facing {turn:.0} degrees off: {block}"
    );
}

/// "Coloca cuidadosamente las pegatinas" [3.2]: a spent block's top is its label, a
/// fresh one's a facing strip along its front. A fresh marked red block standing among
/// the town's red roofs near the point under the camera is one blob of paint with them,
/// a spent block's size, and its strip, 0.19 in deep, was taken for a label on a spent
/// block's top (seed 13 at (16.66, 13.19) in, seed 20 at (13.69, 10.84)): each is read
/// fresh, within 0.15 in.
#[test]
fn a_fresh_block_among_roofs_of_its_colour_is_not_read_spent() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, at) in [(13, [16.66, 13.19]), (20, [13.69, 10.84])] {
        let table_dir = dir.path().join(format!("table{seed}"));
        let (truth, block, off) = read_nearest("market-town.svg", seed, at, &table_dir);
        assert_eq!((truth.color.as_str(), truth.status), ("red", Status::Fresh));
        assert!(off <= 0.15, "seed {seed}: read {off:.2} in off: {block}");
        assert_eq!(block["status"], "fresh", "seed {seed}: {block}");
    }
}

/// Blue blocks standing across the town map's stream, each one blob of blue with it:
/// - a marked block (seed 14, at (15.04, 18.24) in): the stretch of stream beside its
///   end is read as a block of its own, paler than the block's paint, and the block,
///   read surely, was dropped as that stretch's side face. A face is part of the body
///   whose top was read; the block reaches a block's length past the stretch.
/// - an unmarked block (seed 19, at (15.30, 18.92) in): the whole blob's reading was
///   only the stream's stretches, each flat ink by its faces, and the block was lost
///   with them. A blob whose every standing piece is flat ink is read again off the
///   ink, as one no piece reads whole is.
///
/// Each is read within 0.1 in (before, 2.86 in off: the nearest blue piece was
/// another), fresh, facing its way (the unmarked one along its axis) to 3 degrees.
#[test]
fn blocks_standing_across_a_stream_are_read_apart_from_it() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, at, marked) in [(14, [15.04, 18.24], true), (19, [15.30, 18.92], false)] {
        let table_dir = dir.path().join(format!("table{seed}"));
        let (truth, block, off) = read_nearest("market-town.svg", seed, at, &table_dir);
        assert_eq!(
            (truth.color.as_str(), truth.status),
            ("blue", Status::Fresh)
        );
        assert_eq!(truth.marked, marked, "seed {seed}");
        assert!(off <= 0.1, "seed {seed}: read {off:.2} in off: {block}");
        assert_eq!(block["status"], "fresh", "seed {seed}: {block}");
        let period = if marked { 360.0 } else { 180.0 };
        let turn = (block["heading_deg"].as_f64().unwrap() - truth.heading_deg).rem_euclid(period);
        let turn = turn.min(period - turn);
        assert!(
            turn <= 3.0,
            "seed {seed}: facing {turn:.1} degrees off: {block}"
        );
    }
}

/// A block or a cube standing on the river, or on a stream, in the blue side's hue: its
/// paint and the river's ink are one blob of blue, too long for a piece and no line of
/// blocks. Its paint is deeper than the print, so it is cut out of the ink and read
/// (before, each of these pieces was missed with the river). Read with no reference,
/// every piece of these tables is found within 0.2 in (those on the river within 0.08
/// today; one block of seed 6, on bare map, reads 0.16 in off).
#[test]
fn a_piece_standing_on_the_river_is_read_apart_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let (map, w, h) = MapTexture::from_svg_at_its_size(&printed_map("river-crossing.svg")).unwrap();
    let mapsize = format!("{w}x{h}");
    // Seeds whose tables have a blue piece on the river: a block along the stream (1),
    // a cube at the river's edge (2), blocks across the river (6, 7, 9).
    for seed in [1, 2, 6, 7, 9] {
        let table = sim::random_scene(seed, w, h, 1920, 1080);
        let (frame, camera) = film(&table, &map, &dir.path().join(format!("table{seed}")));
        let (found, _) = detect(&frame, &camera, &mapsize, None);
        let (errors, _) = score(&table, &found);
        for (truth, error) in table.pieces.iter().zip(&errors) {
            assert!(
                *error <= 0.2,
                "seed {seed}: the {} {:?} at ({:.2}, {:.2}) is read {error:.2} in off",
                truth.color,
                truth.kind,
                truth.x_in,
                truth.y_in
            );
        }
    }
}

#[test]
fn red_roofs_are_not_pieces_once_the_empty_map_is_known() {
    let dir = tempfile::tempdir().unwrap();
    let (map, w, h) = MapTexture::from_svg_at_its_size(&printed_map("market-town.svg")).unwrap();
    assert_eq!((w, h), (34.0, 22.0), "the map's printed size");
    let mapsize = "34x22";
    let table = sim::random_scene(21, w, h, 1280, 720);
    let empty = Scene {
        pieces: Vec::new(),
        ..table.clone()
    };
    let (frame, camera) = film(&table, &map, &dir.path().join("game"));
    let (empty_frame, _) = film(&empty, &map, &dir.path().join("empty"));

    // Without the empty map the town's roofs are read as red pieces: the map is hard.
    let (found, _) = detect(&frame, &camera, mapsize, None);
    let (_, phantoms) = score(&table, &found);
    // (8 on this table: roofs of a piece's size. Seed 3, the table here before cubes had
    // to stand, reads none since.)
    assert!(phantoms >= 3, "{phantoms} phantoms on the bare town");

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

/// The pieces the library's detector (the live pipeline's path) reads on a frame of
/// `scene`, each (x, y) in inches, with the camera's calibration.
fn read_pieces(
    scene: &Scene,
    image: &image::RgbImage,
    colours: &ColourModel,
    reference: Option<&MapReference>,
) -> (Vec<[f64; 2]>, Calibration) {
    let model = PieceModel::builtin("pub-battles").unwrap();
    let lens = Some(scene.pinhole().intrinsics);
    let calib = Calibration::from_image(image, scene.map_w_in, scene.map_h_in, lens).unwrap();
    let sampler = PlaneSampler::new(&calib, image.width(), image.height());
    let detection = detect_sampled(
        image,
        &calib,
        &sampler,
        &DetectOptions {
            colours,
            model: &model,
            facing_away: &|_| None,
            reference,
        },
    );
    let found = detection.pieces.iter().map(|p| [p.x_in, p.y_in]).collect();
    (found, calib)
}

/// Each true piece's distance to its nearest detection, and the phantoms, for pieces
/// read by the library's detector with the built-in colours.
fn read_with(
    scene: &Scene,
    image: &image::RgbImage,
    reference: Option<&MapReference>,
) -> (Vec<f64>, usize) {
    let (found, _) = read_pieces(scene, image, &ColourModel::builtin(), reference);
    score(scene, &found)
}

#[test]
fn the_empty_map_learnt_where_earlier_tables_left_it_bare_keeps_roofs_from_being_pieces() {
    let (map, w, h) = MapTexture::from_svg_at_its_size(&printed_map("market-town.svg")).unwrap();
    let model = PieceModel::builtin("pub-battles").unwrap();
    let table = sim::random_scene(21, w, h, 1280, 720);
    let image = sim::render_on(&table, &model, &map);
    let (errors, phantoms_before) = read_with(&table, &image, None);
    let found_before = errors.iter().filter(|e| **e <= 1.0 / 16.0).count();
    assert!(
        phantoms_before >= 3,
        "{phantoms_before} phantoms on the bare town"
    );

    // Two earlier settled tables filmed by the same camera, with other pieces standing
    // elsewhere: the map is learnt where they left it bare, and not under them.
    let mut reference = MapReference::unseen(w, h);
    for other in [103, 203] {
        let earlier = Scene {
            pieces: sim::random_scene(other, w, h, 1280, 720).pieces,
            seed: other,
            ..table.clone()
        };
        let frame = sim::render_on(&earlier, &model, &map);
        let lens = Some(earlier.pinhole().intrinsics);
        let calib = Calibration::from_image(&frame, w, h, lens).unwrap();
        let sampler = PlaneSampler::new(&calib, frame.width(), frame.height());
        let footprints: Vec<Footprint> = earlier
            .pieces
            .iter()
            .map(|p| {
                let (frontage, depth, _) = sim::dimensions(&model, p);
                Footprint::new(p.x_in, p.y_in, p.heading_deg, frontage, depth)
            })
            .collect();
        let learnt = reference.learn(&frame, &calib, &sampler, &footprints);
        assert!(learnt > 100_000, "{learnt} pixels learnt of 299,200");
    }
    let known = reference.known_share();
    // 30 pieces each, every footprint with an inch all round left unlearnt: a tenth to
    // a quarter of the map lies under one table's pieces and the other's.
    assert!((0.75..0.97).contains(&known), "{known:.3} of the map known");

    let (errors, phantoms) = read_with(&table, &image, Some(&reference));
    let found = errors.iter().filter(|e| **e <= 1.0 / 16.0).count();
    // Roofs are read as pieces where the reference has not seen the map: none here,
    // against 8 without it. (On seed 3, the table here before a cube's silhouette had to
    // spread as a standing cube's: 1 against 3; 5 and 11 before flat readings needed a
    // label on their top and a cube its whole top; 2 and 5 before a standing block
    // needed its length.)
    assert!(
        phantoms <= 1 && phantoms < phantoms_before,
        "{phantoms} phantoms with the learnt map, {phantoms_before} without"
    );
    // One piece may be lost: this table's red fresh block at (27.15, 18.61) stands on red
    // roofs the earlier tables left bare, and where its paint matches the roofs within a
    // pixel the reference explains it as ink: read within 1/16 in without the reference,
    // 0.069 in off with it. (On seed 3 a red spent block at (19.5, 12.8) was lost so.)
    assert!(
        found + 1 >= found_before,
        "{found} pieces found, {found_before} without"
    );

    // A map image is in the printer's colours: frames never overwrite it.
    let mut printed = MapReference::from_texture(&map, w, h);
    let calib = Calibration::from_image(&image, w, h, Some(table.pinhole().intrinsics)).unwrap();
    let sampler = PlaneSampler::new(&calib, image.width(), image.height());
    assert_eq!(printed.learn(&image, &calib, &sampler, &[]), 0);
}

#[test]
fn a_settled_table_teaches_the_observer_the_map_where_no_piece_stands() {
    let scenario = Scenario::load(Path::new("scenarios/demo/valley.toml")).unwrap();
    let table = aide::web::demo::tables(&scenario).unwrap().remove(0);
    let base = sim::random_scene(2, scenario.map.width_in, scenario.map.height_in, 1280, 720);
    let map = sim::scenario_map(&scenario, base.seed).unwrap();
    let model = PieceModel::builtin("pub-battles").unwrap();
    let scene = sim::scene_from_table(&scenario, &table, &base);
    let frame = Frame {
        image: sim::render_on(&scene, &model, &map),
        ts_ms: 0,
        index: 0,
    };
    let mut observer = TableObserver::new(
        &scenario,
        Some(base.pinhole().intrinsics),
        ColourModel::builtin(),
    )
    .learning_the_map();
    observer.observe(&frame).unwrap();
    let known = |o: &TableObserver| o.reference().unwrap().known_share();
    assert_eq!(
        known(&observer),
        0.0,
        "nothing learnt before the table settles"
    );
    observer.settled(&frame, &table);
    // The map less each piece's footprint and an inch all round it (a block's 2.75 x
    // 4 in, an HQ's 2.4 in square at most): all of it is read on a frame the cards
    // leave in view, so the share known is bounded by the pieces alone.
    let map_sq_in = scenario.map.width_in * scenario.map.height_in;
    let most_covered: f64 = table
        .pieces
        .iter()
        .map(|p| (p.footprint.frontage_in + 2.0) * (p.footprint.depth_in + 2.0))
        .sum();
    let cards_sq_in = 4.0 * 2.0 * 2.0;
    let least = 1.0 - (most_covered + cards_sq_in) / map_sq_in;
    // Nor is any footprint itself learnt (footprints do not overlap).
    let footprints_sq_in: f64 = table.pieces.iter().map(|p| p.footprint.area()).sum();
    let most = 1.0 - footprints_sq_in / map_sq_in;
    let got = known(&observer);
    assert!(
        (least..most).contains(&got),
        "{got:.3} of the map known, between {least:.3} and {most:.3}"
    );
}

/// A block whose paint reads faint all over (here each side's floor is set above the
/// renderer's paint, red 0.83 and blue 0.77 saturated, but within a fifth of it) is
/// found with the empty map known too: the reference explains the river's pale blue as
/// ink, and the faint pixels it does not explain are read as without one. On the
/// river-crossing map, with the map's image for the reference, every fresh block that
/// shows a face at least 3.5 px deep toward the camera (its top, 0.75 in up, pushed
/// away from the point under the camera by h / (H - h) of its distance from it) is
/// found within 0.08 in, and nothing is read more than 0.15 in from a block.
#[test]
fn a_pale_block_is_found_with_the_empty_map_known() {
    let (map, w, h) = MapTexture::from_svg_at_its_size(&printed_map("river-crossing.svg")).unwrap();
    let model = PieceModel::builtin("pub-battles").unwrap();
    let mut table = sim::random_scene(5, w, h, 1920, 1080);
    table.pieces.retain(|p| {
        (p.color == "red" || p.color == "blue")
            && p.kind == sim::Shape::Block
            && p.status == Status::Fresh
    });
    let image = sim::render_on(&table, &model, &map);
    let mut colours = ColourModel::builtin();
    for side in &mut colours.sides {
        side.min_saturation = if side.name == "red" { 0.95 } else { 0.9 };
    }
    let reference = MapReference::from_texture(&map, w, h);
    let (found, calib) = read_pieces(&table, &image, &colours, Some(&reference));
    let (errors, _) = score(&table, &found);
    let (cam_x, cam_y, cam_h) = calib.camera_over();
    let push = 0.75 / (cam_h - 0.75);
    let mut showing = 0;
    for (truth, off) in table.pieces.iter().zip(errors) {
        let a = truth.heading_deg.to_radians();
        let across = ((truth.x_in - cam_x) * a.sin() - (truth.y_in - cam_y) * a.cos()).abs();
        if across * push * 20.0 >= 3.5 {
            showing += 1;
            assert!(off <= 0.08, "{truth:?} found {off:.3} in off");
        }
    }
    assert!(showing >= 6, "{showing} blocks show a face");
    for p in &found {
        let off = table
            .pieces
            .iter()
            .map(|t| (t.x_in - p[0]).hypot(t.y_in - p[1]))
            .fold(f64::INFINITY, f64::min);
        assert!(
            off <= 0.15,
            "a reading at {p:?} is {off:.3} in from any block"
        );
    }
}

/// Paper on a piece is its label or its facing strip, each most of the top's length.
/// Pale grey ink of the map joined to a standing block's paint (a bridge or a slate
/// roof drawn against its back, here 0.6 by 0.3 in) is neither: measured with the block,
/// it widened its silhouette, and read as a facing strip. Eight fresh blocks face the
/// camera (their labels on the back faces, out of its sight), each with such a patch
/// against its back: each reads fresh within a sixteenth of an inch, and no unmarked
/// one by a strip (before, an unmarked block here read 0.2 in off, facing backwards by
/// the patch).
#[test]
fn pale_ink_against_a_standing_block_is_not_taken_for_its_top() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = sim::random_scene(4, 36.0, 24.0, 1920, 1080);
    let camera = [
        18.0 + table.camera.offset_x_in,
        12.0 + table.camera.offset_y_in,
    ];
    table.pieces = (0..8)
        .map(|i| {
            let around = (45.0 * f64::from(i) + 20.0).to_radians();
            let away = 4.0 + f64::from(i % 3) * 2.5;
            let (x, y) = (
                camera[0] + away * around.cos(),
                camera[1] + away * around.sin(),
            );
            sim::TruePiece {
                kind: sim::Shape::Block,
                color: if i % 2 == 0 { "red" } else { "blue" }.to_owned(),
                x_in: x,
                y_in: y,
                heading_deg: (camera[0] - x).atan2(y - camera[1]).to_degrees(),
                status: Status::Fresh,
                marked: i % 4 != 3,
            }
        })
        .collect();
    assert!(
        table
            .pieces
            .iter()
            .all(|p| { (1.5..=34.5).contains(&p.x_in) && (1.5..=22.5).contains(&p.y_in) })
    );
    // Each patch lies behind its block against its back face, turned 30 degrees to it.
    let patches: String = table
        .pieces
        .iter()
        .map(|p| {
            let a = p.heading_deg.to_radians();
            let (forward, right) = ([a.sin(), -a.cos()], [a.cos(), a.sin()]);
            let behind = 0.1875 + 0.15;
            let (x, y) = (
                p.x_in - forward[0] * behind + right[0] * 0.3,
                p.y_in - forward[1] * behind + right[1] * 0.3,
            );
            format!(
                r##"<rect x="-0.3" y="-0.15" width="0.6" height="0.3" fill="#cfcfca" transform="translate({x:.3} {y:.3}) rotate({:.1})"/>"##,
                p.heading_deg + 30.0
            )
        })
        .collect();
    let svg = dir.path().join("bridges.svg");
    std::fs::write(
        &svg,
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="36in" height="24in" viewBox="0 0 36 24"><rect width="36" height="24" fill="#d3d1a1"/>{patches}</svg>"##
        ),
    )
    .unwrap();
    let (map, w, h) = MapTexture::from_svg_at_its_size(&svg).unwrap();
    let (frame, camera) = film(&table, &map, &dir.path().join("table"));
    let (read, _) = detect_json(&frame, &camera, &format!("{w}x{h}"), None);
    for truth in &table.pieces {
        let (off, seen) = read
            .iter()
            .map(|p| {
                let off = (p["x_in"].as_f64().unwrap() - truth.x_in)
                    .hypot(p["y_in"].as_f64().unwrap() - truth.y_in);
                (off, p)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap_or_else(|| panic!("nothing read near {truth:?}"));
        assert!(
            off <= 1.0 / 16.0 && seen["status"] == "fresh",
            "{truth:?} read {off:.3} in off as {seen}"
        );
        // A patch behind an unmarked block is no facing strip either.
        assert!(
            truth.marked || seen["facing"] != "marked",
            "{truth:?} read by a strip as {seen}"
        );
    }
}
