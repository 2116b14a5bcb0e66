//! Frame sources on real files: a folder replay in order, looped, paced, surviving a bad
//! file; and, with the `camera` feature, a clean error where there is no camera.

use std::path::Path;
use std::time::Instant;

use aide::capture::replay::ReplayFolder;
use aide::capture::{CaptureError, FrameSource, SourceKind};
use image::{Rgb, RgbImage};

/// Three 8x6 frames whose first pixel's red value is 10, 20 and 30.
fn folder_of_three(dir: &Path) {
    for (name, red) in [
        ("frame-000.png", 10u8),
        ("frame-001.png", 20),
        ("frame-002.jpg", 30),
    ] {
        let img = RgbImage::from_pixel(8, 6, Rgb([red, 0, 0]));
        img.save(dir.join(name)).unwrap();
    }
    std::fs::write(dir.join("notes.txt"), "not a frame").unwrap();
}

fn red(source: &mut ReplayFolder) -> u8 {
    source.next_frame().unwrap().image.get_pixel(0, 0)[0]
}

#[test]
fn a_replay_plays_the_folder_in_name_order_and_loops() {
    let dir = tempfile::tempdir().unwrap();
    folder_of_three(dir.path());
    let mut replay = ReplayFolder::open(dir.path(), 1000.0, true).unwrap();
    assert_eq!(replay.len(), 3, "the .txt file is not a frame");
    assert_eq!(replay.kind(), SourceKind::Replay);
    // JPEG is lossy: the third frame's red is 30 give or take.
    let reds: Vec<u8> = (0..5).map(|_| red(&mut replay)).collect();
    assert_eq!(&reds[..2], &[10, 20]);
    assert!(reds[2].abs_diff(30) <= 2, "{reds:?}");
    assert_eq!(&reds[3..], &[10, 20]);
    let frame = replay.next_frame().unwrap();
    assert_eq!(frame.index, 5);
    assert_eq!((frame.image.width(), frame.image.height()), (8, 6));
}

#[test]
fn a_replay_hands_out_frames_no_faster_than_its_rate() {
    let dir = tempfile::tempdir().unwrap();
    folder_of_three(dir.path());
    let mut replay = ReplayFolder::open(dir.path(), 20.0, true).unwrap();
    let started = Instant::now();
    for _ in 0..5 {
        replay.next_frame().unwrap();
    }
    // Five frames at 20 a second: the fifth is due 4 intervals (200 ms) after the first.
    assert!(
        started.elapsed().as_millis() >= 200,
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_bad_file_is_a_lost_frame_named_and_the_replay_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    folder_of_three(dir.path());
    std::fs::write(dir.path().join("frame-001.png"), b"truncated").unwrap();
    let mut replay = ReplayFolder::open(dir.path(), 1000.0, false).unwrap();
    assert_eq!(red(&mut replay), 10);
    match replay.next_frame() {
        Err(CaptureError::Lost(why)) => assert!(why.contains("frame-001.png"), "{why}"),
        other => panic!("expected a lost frame, got {:?}", other.map(|f| f.index)),
    }
    assert!(red(&mut replay).abs_diff(30) <= 2);
    // Not looped: the end is the end, said as such.
    match replay.next_frame() {
        Err(CaptureError::Unavailable(why)) => assert!(why.ends_with("replay finished"), "{why}"),
        other => panic!("expected the end, got {:?}", other.map(|f| f.index)),
    }
}

#[test]
fn an_empty_folder_or_a_bad_rate_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let err = ReplayFolder::open(dir.path(), 10.0, true).err().unwrap();
    assert!(
        err.to_string()
            .ends_with("no .png or .jpg frames to replay"),
        "{err}"
    );
    folder_of_three(dir.path());
    let err = ReplayFolder::open(dir.path(), 0.0, true).err().unwrap();
    assert_eq!(
        err.to_string(),
        "replay rate 0 is not a positive number of frames a second"
    );
    let err = ReplayFolder::open(&dir.path().join("nowhere"), 10.0, true)
        .err()
        .unwrap();
    assert!(err.to_string().contains("nowhere"), "{err}");
}

#[cfg(feature = "camera")]
#[test]
fn without_a_camera_opening_one_is_a_clean_error_naming_it() {
    use aide::capture::camera::{Webcam, WebcamSettings};
    if Path::new("/dev/video7").exists() {
        return; // a machine with that camera: nothing to show here
    }
    let settings = WebcamSettings {
        device: 7,
        ..WebcamSettings::default()
    };
    match Webcam::open(settings) {
        Err(CaptureError::Unavailable(why)) => assert!(why.starts_with("camera 7: "), "{why}"),
        Err(other) => panic!("expected unavailable, got {other}"),
        Ok(_) => panic!("opened a camera that does not exist"),
    }
}
