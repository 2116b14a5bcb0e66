//! One rendered 1080p frame through the detector, part by part: calibration (the corner
//! tags, the camera), the map-plane sampler, and detection of every piece (the live
//! pipeline keeps the first two between frames).

use aide::model::PieceModel;
use aide::sim;
use aide::vision::{self, Calibration, ColourModel, DetectOptions, PlaneSampler};
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

criterion_group!(benches, bench_vision);
criterion_main!(benches);
