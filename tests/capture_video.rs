//! Recorded games: the scripted demo game rendered, encoded as H.264 by OpenH264 and put
//! in an MP4 file here, then read back by `aide log record --video` (decoder, detector,
//! tracker, SQLite journal) and by the video source at both paces.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use aide::capture::FrameSource;
use aide::capture::h264;
use aide::capture::video::{Pace, VideoFile};
use aide::track::Event;
use aide::web::demo;
use image::RgbImage;

/// Write `frames` as an H.264 MP4 at `fps`, as a phone or a club's camera records.
fn write_mp4(path: &Path, frames: &[RgbImage], fps: f64) {
    use mp4::{AvcConfig, MediaConfig, Mp4Config, Mp4Sample, Mp4Writer, TrackConfig, TrackType};
    let (w, h) = frames[0].dimensions();
    let mut encoder = h264::Encoder::new(fps, fps.round() as u32).unwrap();
    let (mut sps, mut pps) = (Vec::new(), Vec::new());
    let mut samples = Vec::new();
    for image in frames {
        let unit = encoder.encode(image).unwrap();
        // Start codes out, lengths in (MP4 keeps the parameter sets in the track's header).
        let mut sample = Vec::new();
        for nal in unit.nal_units() {
            match nal[0] & 0x1f {
                7 => sps = nal.to_vec(),
                8 => pps = nal.to_vec(),
                _ => {
                    sample.extend_from_slice(&(nal.len() as u32).to_be_bytes());
                    sample.extend_from_slice(nal);
                }
            }
        }
        samples.push((sample, unit.key));
    }
    let file = std::fs::File::create(path).unwrap();
    let mut writer = Mp4Writer::write_start(
        std::io::BufWriter::new(file),
        &Mp4Config {
            major_brand: "isom".parse().unwrap(),
            minor_version: 512,
            compatible_brands: vec!["isom".parse().unwrap(), "avc1".parse().unwrap()],
            timescale: 1000,
        },
    )
    .unwrap();
    writer
        .add_track(&TrackConfig {
            track_type: TrackType::Video,
            timescale: 1000,
            language: "und".into(),
            media_conf: MediaConfig::AvcConfig(AvcConfig {
                width: w as u16,
                height: h as u16,
                seq_param_set: sps,
                pic_param_set: pps,
            }),
        })
        .unwrap();
    let step = (1000.0 / fps).round() as u32;
    for (i, (bytes, is_sync)) in samples.into_iter().enumerate() {
        writer
            .write_sample(
                1,
                &Mp4Sample {
                    start_time: u64::from(step) * i as u64,
                    duration: step,
                    rendering_offset: 0,
                    is_sync,
                    bytes: bytes.into(),
                },
            )
            .unwrap();
    }
    writer.write_end().unwrap();
}

/// Frames of flat grey, frame i at level 8i (its number survives the codec), 64x48.
fn numbered(n: usize) -> Vec<RgbImage> {
    (0..n)
        .map(|i| RgbImage::from_pixel(64, 48, image::Rgb([8 * i as u8; 3])))
        .collect()
}

fn number(image: &RgbImage) -> usize {
    (f64::from(image.get_pixel(32, 24)[0]) / 8.0).round() as usize
}

#[test]
fn a_video_plays_every_picture_at_the_detectors_pace_and_skips_at_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clip.mp4");
    write_mp4(&path, &numbered(30), 20.0);

    let mut video = VideoFile::open(&path, Pace::Detector).unwrap();
    assert_eq!(video.len(), 30);
    let mut seen = Vec::new();
    while let Ok(frame) = video.next_frame() {
        assert_eq!(frame.ts_ms - video.started_ms(), 50 * seen.len() as i64);
        seen.push(number(&frame.image));
    }
    assert_eq!(seen, (0..30).collect::<Vec<_>>());

    // At its own pace (1.5 s), read by a detector taking 200 ms a frame: about every
    // fourth picture, each the one due, and the end comes on time.
    let mut video = VideoFile::open(&path, Pace::Recorded).unwrap();
    let started = Instant::now();
    let mut seen = Vec::new();
    while let Ok(frame) = video.next_frame() {
        let due = (started.elapsed().as_millis() / 50) as usize;
        seen.push(number(&frame.image));
        assert!(due.min(29) - seen.last().unwrap() <= 1, "{seen:?} at {due}");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!((7..=9).contains(&seen.len()), "{seen:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_bad_video_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.mp4");
    std::fs::write(&path, b"not a video").unwrap();
    let err = VideoFile::open(&path, Pace::Detector)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.starts_with(&format!("{}: not an MP4 file", path.display())),
        "{err}"
    );
    let err = VideoFile::open(&dir.path().join("none.mp4"), Pace::Detector)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("none.mp4: "), "{err}");
}

/// The demo game filmed at 1280x720, 10 frames a second, as an MP4: `aide log record
/// --video` makes a journal whose events are the script's.
#[test]
fn a_recorded_game_becomes_a_journal_of_the_scripts_events() {
    let scenario = demo::scenario().unwrap();
    // The frames of tests/live.rs's scripted game, which the detector reads right raw.
    let tables: Vec<_> = demo::tables(&scenario).unwrap()[..4].to_vec();
    let (camera, lens) = common::demo_camera(&scenario, &tables, 1000.0);
    let mut camera = camera.with_timing(2, 9);
    let frames: Vec<RgbImage> = (0..4 * 11)
        .map(|_| camera.next_frame().unwrap().image)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let video = dir.path().join("game.mp4");
    write_mp4(&video, &frames, 10.0);
    let start = dir.path().join("start.json");
    let pieces: Vec<_> = tables[0]
        .pieces
        .iter()
        .map(|p| {
            serde_json::json!({"id": p.id, "x_in": p.pose.x_in, "y_in": p.pose.y_in,
                "heading_deg": p.pose.heading_deg, "status": p.status})
        })
        .collect();
    std::fs::write(&start, serde_json::json!({ "pieces": pieces }).to_string()).unwrap();
    let lens_file = dir.path().join("lens.json");
    std::fs::write(&lens_file, serde_json::to_string(&lens).unwrap()).unwrap();
    let db = dir.path().join("game.db");

    let out = Command::new(env!("CARGO_BIN_EXE_aide"))
        .args([
            "log",
            "record",
            "--scenario",
            "scenarios/demo/valley.toml",
            "--video",
        ])
        .arg(&video)
        .arg("--start")
        .arg(&start)
        .arg("--camera-file")
        .arg(&lens_file)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("44 pictures read"), "{stdout}");

    let stored = common::stored_events(&db);
    let expected = common::script_events(&scenario, &tables);
    // Known gap: through the codec (4:2:0 colour), two blocks the script never moves
    // read 0.1 and 0.28 in from their exact start poses (raw frames read within 0.1 in,
    // tests/live.rs), so the first view is logged as moving them. Allowed here only as
    // short moves of such blocks; every scripted event must still be there, in order.
    let moved_by_script: Vec<&str> = expected.iter().map(Event::unit).collect();
    let (bias, stored): (Vec<Event>, Vec<Event>) = stored.into_iter().partition(|e| {
        matches!(e, Event::Moved(m) if m.distance_in < 0.3 && !moved_by_script.contains(&m.unit.as_str()))
    });
    assert!(bias.len() <= 2, "{bias:#?}");
    common::assert_same_events(&stored, &expected, &format!("{stdout}{bias:#?}"));
}
