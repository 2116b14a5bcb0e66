//! A recorded table: the image files of a folder, in name order, looped at a set rate.
//!
//! Used to try the service without a camera, to replay a game that was recorded, and by
//! the tests. Frames are read from disk one at a time as they are due, so a folder of
//! a thousand 4K frames costs one frame of memory. A file that cannot be decoded is a
//! [`CaptureError::Lost`] naming it (the next call moves on), never the end of the
//! replay; a folder that has vanished is one too, and is listed again once a second.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{CaptureError, Frame, FrameSource, SourceKind};
use crate::journal::now_ms;

/// Image files the replay reads.
const EXTENSIONS: [&str; 3] = ["png", "jpg", "jpeg"];

pub struct ReplayFolder {
    folder: PathBuf,
    files: Vec<PathBuf>,
    next: usize,
    interval: Duration,
    due: Option<Instant>,
    index: u64,
    looped: bool,
}

impl ReplayFolder {
    /// Replay the images in `folder` at `fps` frames a second, looping when `looped`.
    pub fn open(folder: &Path, fps: f64, looped: bool) -> Result<Self, CaptureError> {
        if !(fps.is_finite() && fps > 0.0) {
            return Err(CaptureError::Unavailable(format!(
                "replay rate {fps} is not a positive number of frames a second"
            )));
        }
        let files = list(folder)?;
        if files.is_empty() {
            return Err(CaptureError::Unavailable(format!(
                "{}: no .png or .jpg frames to replay",
                folder.display()
            )));
        }
        Ok(Self {
            folder: folder.to_owned(),
            files,
            next: 0,
            interval: Duration::from_secs_f64(1.0 / fps),
            due: None,
            index: 0,
            looped,
        })
    }

    /// How many frames one pass of the replay has.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

fn list(folder: &Path) -> Result<Vec<PathBuf>, CaptureError> {
    let entries = std::fs::read_dir(folder)
        .map_err(|e| CaptureError::Lost(format!("{}: {e}", folder.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        })
        .collect();
    files.sort();
    Ok(files)
}

impl FrameSource for ReplayFolder {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        if self.next == self.files.len() {
            if !self.looped {
                return Err(CaptureError::Unavailable(format!(
                    "{}: replay finished",
                    self.folder.display()
                )));
            }
            self.next = 0;
        }
        if let Some(due) = self.due {
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
        self.due = Some(Instant::now() + self.interval);
        let path = self.files[self.next].clone();
        self.next += 1;
        let image = image::open(&path)
            .map_err(|e| CaptureError::Lost(format!("{}: {e}", path.display())))?
            .into_rgb8();
        let frame = Frame {
            image,
            ts_ms: now_ms(),
            index: self.index,
        };
        self.index += 1;
        Ok(frame)
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Replay
    }

    fn describe(&self) -> String {
        format!(
            "replay of {} ({} frames)",
            self.folder.display(),
            self.files.len()
        )
    }
}
