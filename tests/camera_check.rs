//! `aide camera-check` on rendered frames: a good set-up passes with its pixels an inch
//! measured right, and a hidden card, a blurred lens and a dark room are each named with
//! what to do.

use std::path::Path;
use std::process::Command;

use aide::sim;
use image::RgbImage;
use nalgebra::Point3;
use serde_json::Value;

fn check(image: &RgbImage, dir: &Path, name: &str) -> Value {
    let path = dir.join(name);
    image.save(&path).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(["camera-check", "--map", "36x24", "--json", "--image"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn fixes(report: &Value) -> Vec<String> {
    report["fix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_good_camera_passes_and_each_fault_is_named_with_its_fix() {
    let scene = sim::random_scene(2, 36.0, 24.0, 1280, 720);
    let image = sim::render(&scene);
    let dir = tempfile::tempdir().unwrap();

    let good = check(&image, dir.path(), "good.png");
    assert_eq!(fixes(&good), Vec::<String>::new(), "{good:#}");
    // Pixels an inch at card 0, against the renderer's camera.
    let camera = scene.pinhole();
    let (a, b) = (
        camera.project(Point3::new(0.25, 1.0, 0.0)).unwrap(),
        camera.project(Point3::new(1.75, 1.0, 0.0)).unwrap(),
    );
    let truth = (a.0 - b.0).hypot(a.1 - b.1) / 1.5;
    let seen = good["cards"][0]["px_per_in"].as_f64().unwrap();
    assert!(
        (seen - truth).abs() / truth < 0.1,
        "{seen} px/in, {truth} true"
    );
    let expected = good["expected_in"].as_f64().unwrap();
    // Half a pixel at ~20 px/in, and the renderer's lens unmodelled without a file.
    assert!(expected > 0.02 && expected < 0.1, "{good:#}");
    let sharp = good["cards"][0]["edge_px"].as_f64().unwrap();

    // Card 2 under a hand (a grey patch over the bottom-right corner).
    let mut hidden = image.clone();
    let (u, v) = camera.project(Point3::new(35.0, 23.0, 0.0)).unwrap();
    for y in (v as u32).saturating_sub(40)..(v as u32 + 40).min(hidden.height()) {
        for x in (u as u32).saturating_sub(40)..(u as u32 + 40).min(hidden.width()) {
            hidden.put_pixel(x, y, image::Rgb([120, 100, 90]));
        }
    }
    let report = check(&hidden, dir.path(), "hidden.png");
    let fix = fixes(&report);
    assert_eq!(report["cards"][2]["found"], false);
    assert!(
        fix[0].starts_with("card 2 (bottom-right) is hidden"),
        "{fix:?}"
    );

    // Out of focus.
    let blurred = image::imageops::blur(&image, 1.5);
    let report = check(&blurred, dir.path(), "blurred.png");
    let edge = report["cards"][0]["edge_px"].as_f64();
    assert!(
        edge.is_some_and(|edge| edge > sharp + 1.0),
        "{sharp} px sharp: {report:#}"
    );
    assert!(
        fixes(&report).iter().any(|f| f.contains("refocus")),
        "{report:#}"
    );

    // A dim room.
    let mut dark = image.clone();
    for p in dark.pixels_mut() {
        p.0 = p.0.map(|c| (f64::from(c) * 0.3) as u8);
    }
    let report = check(&dark, dir.path(), "dark.png");
    assert!(
        fixes(&report).iter().any(|f| f.contains("more light")),
        "{report:#}"
    );
}
