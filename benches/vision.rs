//! One rendered 1080p frame through the detector, part by part: calibration (the corner
//! tags, the camera), the map-plane sampler, and detection of every piece (the live
//! pipeline keeps the first two between frames); and the evidence picture the live
//! pipeline makes of each committed frame (map plane, JPEG), with its size.

use std::path::Path;

use aide::model::PieceModel;
use aide::scenario::Scenario;
use aide::sim;
use aide::vision::plane::{PICTURE_PX_PER_IN, PICTURE_QUALITY, map_plane_view};
use aide::vision::{self, Calibration, ColourModel, DetectOptions, MapPicture, PlaneSampler};
use criterion::{Criterion, criterion_group, criterion_main};

fn bench_vision(c: &mut Criterion) {
    let scene = sim::random_scene(1, 36.0, 24.0, 1920, 1080);
    let image = sim::render(&scene);
    let lens = scene.pinhole().intrinsics;
    let model = PieceModel::builtin("pub-battles").unwrap();
    let colours = ColourModel::builtin();
    let none = |_: &str| None;
    c.bench_function("calibrate 1080p (tags, camera pose)", |b| {
        b.iter(|| Calibration::from_image(&image, 36.0, 24.0, Some(lens)).unwrap())
    });
    let calib = Calibration::from_image(&image, 36.0, 24.0, Some(lens)).unwrap();
    let options = DetectOptions {
        colours: &colours,
        model: &model,
        facing_away: &none,
        reference: None,
    };
    c.bench_function("map-plane sampler 1080p", |b| {
        b.iter(|| PlaneSampler::new(&calib, image.width(), image.height()))
    });
    let sampler = PlaneSampler::new(&calib, image.width(), image.height());
    c.bench_function("detect 1080p (30 pieces), sampler kept", |b| {
        b.iter(|| vision::detect_sampled(&image, &calib, &sampler, &options))
    });
}

/// The evidence picture of a committed 1080p frame of the demo's printed map (its ink,
/// not a plain field, is what a JPEG's size depends on): the map plane at 20 px an inch
/// (720 x 480), then its JPEG at quality 80; and both together, as the feed thread pays
/// for them on every commit. Prints the bytes per picture.
fn bench_evidence(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/demo/valley.toml");
    let scenario = Scenario::load(&path).unwrap();
    let scene = sim::random_scene(1, 36.0, 24.0, 1920, 1080);
    let map = sim::scenario_map(&scenario, scene.seed).unwrap();
    let model = PieceModel::builtin("pub-battles").unwrap();
    let image = sim::render_on(&scene, &model, &map);
    let lens = scene.pinhole().intrinsics;
    let calib = Calibration::from_image(&image, 36.0, 24.0, Some(lens)).unwrap();
    let picture = MapPicture::of_frame(&image, &calib, 0).unwrap();
    eprintln!(
        "evidence picture: {}x{} px at {PICTURE_PX_PER_IN} px/in, JPEG q{PICTURE_QUALITY}: {} bytes",
        picture.width,
        picture.height,
        picture.jpeg.len()
    );
    c.bench_function("evidence: map plane of a 1080p frame (720x480)", |b| {
        b.iter(|| map_plane_view(&image, &calib, PICTURE_PX_PER_IN))
    });
    let view = map_plane_view(&image, &calib, PICTURE_PX_PER_IN);
    c.bench_function("evidence: JPEG q80 of the 720x480 map plane", |b| {
        b.iter(|| {
            let mut jpeg = Vec::with_capacity(picture.jpeg.len());
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, PICTURE_QUALITY)
                .encode_image(&view)
                .unwrap();
            jpeg
        })
    });
    c.bench_function("evidence: picture of a 1080p frame (plane + JPEG)", |b| {
        b.iter(|| MapPicture::of_frame(&image, &calib, 0).unwrap())
    });
}

criterion_group!(benches, bench_vision, bench_evidence);
criterion_main!(benches);
