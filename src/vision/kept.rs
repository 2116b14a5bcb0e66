//! The learnt empty map, kept beside the journal so that a restart of `aide serve` does
//! not forget what the live feed learnt (see [`MapReference::learn`]).
//!
//! One PNG, `<journal>.map-reference.png`: the map plane at [`PX_PER_IN`] in RGBA, the
//! alpha saying which pixels the reference knows ([`MapReference::to_rgba`]), and an
//! iTXt chunk `aide-map-reference` saying what it is valid for ([`ReferenceKey`]). One
//! file, so the picture and its key cannot part. It is written to a temporary file in the
//! same folder and renamed over the old one: a crash mid-write leaves the old file or the
//! new, never half of one.
//!
//! The feed thread copies the reference at most every [`KEEP_EVERY`], after a settled
//! table taught it something, and a thread of its own encodes and writes it; the last
//! copy is written when the feed stops. A frame costs nothing.
//!
//! A file that cannot be read, or that another table made (another map, another size,
//! another camera, or learning that began from another photo), never stops the server:
//! a warning names the file and the reason, learning starts afresh, and the next write
//! replaces the file.

use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use image::RgbaImage;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::detect::PX_PER_IN;
use super::reference::plane_size;
use super::{Intrinsics, MapReference};
use crate::scenario::Scenario;

/// The least time between two writes while the feed runs: a crash loses at most this
/// much learning, and a settled table every second or two costs one write in fifteen.
pub const KEEP_EVERY: Duration = Duration::from_secs(30);

/// The PNG text keyword the key is stored under.
const KEYWORD: &str = "aide-map-reference";

/// The file's layout; another number is another program's file.
const FORMAT: u32 = 1;

/// What a learnt reference is valid for. The reference is the map as one camera sees
/// it, in map-plane pixels: it fits another session of the same map under the same
/// camera (the corner cards place the plane wherever the camera stands), and no other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceKey {
    pub format: u32,
    /// The map's size in inches, as the scenario gives it.
    pub map_w_in: f64,
    pub map_h_in: f64,
    /// Which map: the SHA-256 of the scenario's map image, or the scenario's name when it
    /// names no image.
    pub map: String,
    /// The camera's lens (`--camera-file`), `None` without one. Another camera sees the
    /// map in other colours; the detector matches light and tone per frame, but a
    /// reference learnt through one camera is not another's.
    pub lens: Option<Intrinsics>,
    /// What learning began from: `live` (nothing), or `photo sha256:…` (a photo of the
    /// empty table from `aide calibrate map`, which a newer photo replaces).
    pub start: String,
}

impl ReferenceKey {
    /// The key for `scenario`'s map under a camera with `lens`, learning from `start`
    /// (see [`Self::start`]).
    pub fn new(scenario: &Scenario, lens: Option<Intrinsics>, start: String) -> Self {
        let map = match scenario.map_image_path() {
            Some(path) => match std::fs::read(&path) {
                Ok(bytes) => format!("image sha256:{}", sha256(&bytes)),
                // Serving reports an unreadable map image itself; the path still names it.
                Err(_) => format!("image {}", path.display()),
            },
            None => format!("scenario {:?}", scenario.name),
        };
        Self {
            format: FORMAT,
            map_w_in: scenario.map.width_in,
            map_h_in: scenario.map.height_in,
            map,
            lens,
            start,
        }
    }

    /// `start` for learning from the live feed alone.
    pub fn live() -> String {
        "live".to_owned()
    }

    /// `start` for learning on top of the photo at `path`.
    pub fn photo(path: &Path) -> std::io::Result<String> {
        Ok(format!("photo sha256:{}", sha256(&std::fs::read(path)?)))
    }

    /// Why a reference kept under `self` does not fit a table whose key is `now`, in
    /// words; `None` when it fits.
    fn differs(&self, now: &Self) -> Option<String> {
        if self.format != now.format {
            return Some(format!(
                "it is in format {}, this aide reads format {}",
                self.format, now.format
            ));
        }
        if (self.map_w_in, self.map_h_in) != (now.map_w_in, now.map_h_in) {
            return Some(format!(
                "it was learnt on a {} x {} in map, this map is {} x {} in",
                self.map_w_in, self.map_h_in, now.map_w_in, now.map_h_in
            ));
        }
        if self.map != now.map {
            return Some(format!(
                "it was learnt on another map ({}, now {})",
                self.map, now.map
            ));
        }
        if self.lens != now.lens {
            let lens = |l: &Option<Intrinsics>| match l {
                Some(l) => format!(
                    "fx {:.1} fy {:.1} cx {:.1} cy {:.1}",
                    l.fx, l.fy, l.cx, l.cy
                ),
                None => "no camera file".to_owned(),
            };
            return Some(format!(
                "it was learnt through another camera ({}, now {})",
                lens(&self.lens),
                lens(&now.lens)
            ));
        }
        if self.start != now.start {
            return Some(format!(
                "learning began from another start ({}, now {})",
                self.start, now.start
            ));
        }
        None
    }
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Why a kept reference is not used.
#[derive(Debug, thiserror::Error)]
pub enum KeptError {
    #[error("{path} cannot be read: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("{path} does not fit this table: {reason}")]
    OtherTable { path: PathBuf, reason: String },
}

/// A learnt reference's file, and when it was last written.
pub struct KeptReference {
    path: PathBuf,
    key: ReferenceKey,
    every: Duration,
    written: Option<Instant>,
    /// Whether the reference learnt anything since it was last written (or read).
    changed: bool,
    writer: Option<JoinHandle<()>>,
}

impl KeptReference {
    /// The file beside the journal at `journal`: `<journal>.map-reference.png`.
    pub fn beside(journal: &Path, key: ReferenceKey) -> Self {
        let mut name = journal.as_os_str().to_owned();
        name.push(".map-reference.png");
        Self {
            path: PathBuf::from(name),
            key,
            every: KEEP_EVERY,
            written: None,
            changed: false,
            writer: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn unreadable(&self, reason: impl ToString) -> KeptError {
        KeptError::Unreadable {
            path: self.path.clone(),
            reason: reason.to_string(),
        }
    }

    /// The reference kept in the file, `None` when there is no file.
    pub fn read(&self) -> Result<Option<MapReference>, KeptError> {
        let file = match std::fs::File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.unreadable(e)),
        };
        let mut reader = png::Decoder::new(BufReader::new(file))
            .read_info()
            .map_err(|e| self.unreadable(e))?;
        let key: ReferenceKey = reader
            .info()
            .utf8_text
            .iter()
            .find(|chunk| chunk.keyword == KEYWORD)
            .ok_or_else(|| self.unreadable(format!("no {KEYWORD} text in the PNG")))?
            .get_text()
            .map_err(|e| self.unreadable(e))
            .and_then(|text| {
                serde_json::from_str::<ReferenceKey>(&text).map_err(|e| self.unreadable(e))
            })?;
        if let Some(reason) = key.differs(&self.key) {
            return Err(KeptError::OtherTable {
                path: self.path.clone(),
                reason,
            });
        }
        let (w, h) = plane_size(key.map_w_in, key.map_h_in);
        let info = reader.info();
        if (info.width, info.height) != (w, h)
            || info.color_type != png::ColorType::Rgba
            || info.bit_depth != png::BitDepth::Eight
        {
            return Err(self.unreadable(format!(
                "a {}x{} {:?} {:?}-bit picture, not the {w}x{h} RGBA map plane of {} px an inch",
                info.width, info.height, info.color_type, info.bit_depth as u8, PX_PER_IN
            )));
        }
        let mut pixels = vec![0; 4 * (w * h) as usize];
        reader
            .next_frame(&mut pixels)
            .map_err(|e| self.unreadable(e))?;
        let rgba = RgbaImage::from_raw(w, h, pixels).expect("sized above");
        Ok(Some(MapReference::from_rgba(&rgba)))
    }

    /// The reference to start from: the kept one when it fits, else `fresh`, with a
    /// warning that names the file and why it is not used.
    pub fn resume(&self, fresh: MapReference) -> MapReference {
        match self.read() {
            Ok(Some(kept)) => {
                tracing::info!(
                    "the learnt map reference {} is used: {:.4} of the map known",
                    self.path.display(),
                    kept.known_share()
                );
                kept
            }
            Ok(None) => fresh,
            Err(e) => {
                tracing::warn!(
                    "the learnt map reference is not used, the map is learnt afresh and the file replaced: {e}"
                );
                fresh
            }
        }
    }

    /// The reference learnt something: write it, unless it was written less than
    /// [`KEEP_EVERY`] ago or the last write is still under way. The feed thread only
    /// copies it; a thread of its own encodes and writes.
    pub fn learnt(&mut self, reference: &MapReference) {
        self.changed = true;
        if self.written.is_some_and(|t| t.elapsed() < self.every)
            || self.writer.as_ref().is_some_and(|w| !w.is_finished())
        {
            return;
        }
        let rgba = reference.to_rgba();
        let (path, key) = (self.path.clone(), self.key.clone());
        let share = reference.known_share();
        let spawned = std::thread::Builder::new()
            .name("aide-keep-map".into())
            .spawn(move || report(&path, share, write(&path, &key, &rgba)));
        match spawned {
            Ok(writer) => {
                self.writer = Some(writer);
                self.written = Some(Instant::now());
                self.changed = false;
            }
            Err(e) => tracing::warn!(error = %e, "the learnt map reference was not written"),
        }
    }

    /// The feed stops: write what was learnt since the last write, and wait for it.
    pub fn stop(&mut self, reference: &MapReference) {
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
        if self.changed {
            let share = reference.known_share();
            report(
                &self.path,
                share,
                write(&self.path, &self.key, &reference.to_rgba()),
            );
            self.changed = false;
        }
    }
}

fn report(path: &Path, share: f64, written: Result<(), String>) {
    match written {
        Ok(()) => tracing::info!(
            "the learnt map reference is kept in {}: {share:.4} of the map known",
            path.display()
        ),
        Err(reason) => tracing::warn!(
            "the learnt map reference could not be written to {}: {reason}",
            path.display()
        ),
    }
}

/// Write `rgba` and its key to `path`: to a temporary file beside it first, synced, then
/// renamed over it.
fn write(path: &Path, key: &ReferenceKey, rgba: &RgbaImage) -> Result<(), String> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let written = (|| -> Result<(), Box<dyn std::error::Error>> {
        let mut out = BufWriter::new(std::fs::File::create(&temporary)?);
        let mut encoder = png::Encoder::new(&mut out, rgba.width(), rgba.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        encoder.add_itxt_chunk(KEYWORD.to_owned(), serde_json::to_string(key)?)?;
        let mut writer = encoder.write_header()?;
        writer.write_image_data(rgba.as_raw())?;
        writer.finish()?;
        out.flush()?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temporary, path)?;
        Ok(())
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        e.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reference knowing the first `known` columns of a 36 x 24 in map.
    fn knowing(known: u32) -> MapReference {
        let (w, h) = plane_size(36.0, 24.0);
        MapReference::from_rgba(&RgbaImage::from_fn(w, h, |x, y| {
            image::Rgba([
                (x % 256) as u8,
                (y % 256) as u8,
                90,
                if x < known { 255 } else { 0 },
            ])
        }))
    }

    fn key() -> ReferenceKey {
        ReferenceKey {
            format: FORMAT,
            map_w_in: 36.0,
            map_h_in: 24.0,
            map: "scenario \"test\"".into(),
            lens: None,
            start: ReferenceKey::live(),
        }
    }

    #[test]
    fn writes_at_most_every_so_often_and_what_is_left_when_the_feed_stops() {
        let dir = tempfile::tempdir().unwrap();
        let mut kept = KeptReference::beside(&dir.path().join("game.sqlite"), key());
        let share = |kept: &KeptReference| kept.read().unwrap().unwrap().known_share();
        assert!(kept.read().unwrap().is_none(), "no file yet");
        // The first settled table is written at once…
        kept.learnt(&knowing(72));
        kept.writer.take().unwrap().join().unwrap();
        assert_eq!(share(&kept), 0.1);
        // …the next within KEEP_EVERY is not…
        kept.learnt(&knowing(360));
        assert!(kept.writer.is_none());
        assert_eq!(share(&kept), 0.1);
        // …until the feed stops.
        kept.stop(&knowing(360));
        assert_eq!(share(&kept), 0.5);
        // Colours and mask come back as they were written.
        let back = kept.read().unwrap().unwrap();
        assert_eq!(back.to_rgba(), knowing(360).to_rgba());
        // Nothing learnt since: stopping again writes nothing.
        let modified = std::fs::metadata(kept.path()).unwrap().modified().unwrap();
        kept.stop(&knowing(720));
        assert_eq!(
            std::fs::metadata(kept.path()).unwrap().modified().unwrap(),
            modified
        );
        assert_eq!(share(&kept), 0.5);
        // No temporary file is left beside it.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["game.sqlite.map-reference.png"]);
    }

    #[test]
    fn a_reference_kept_for_another_table_is_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("game.sqlite");
        let mut kept = KeptReference::beside(&journal, key());
        kept.stop(&knowing(10)); // nothing learnt: no file
        assert!(kept.read().unwrap().is_none());
        kept.learnt(&knowing(10));
        kept.stop(&knowing(10));
        let lens = Intrinsics::ideal(900.0, 1280, 720);
        for (now, reason) in [
            (
                ReferenceKey {
                    lens: Some(lens),
                    ..key()
                },
                "it was learnt through another camera (no camera file, now fx 900.0 fy 900.0 cx 640.0 cy 360.0)",
            ),
            (
                ReferenceKey {
                    map: "image sha256:ab".into(),
                    ..key()
                },
                "it was learnt on another map (scenario \"test\", now image sha256:ab)",
            ),
            (
                ReferenceKey {
                    start: "photo sha256:cd".into(),
                    ..key()
                },
                "learning began from another start (live, now photo sha256:cd)",
            ),
        ] {
            match KeptReference::beside(&journal, now).read() {
                Err(KeptError::OtherTable { reason: got, .. }) => assert_eq!(got, reason),
                other => panic!("{reason}: {:?}", other.map(|r| r.map(|r| r.known_share()))),
            }
        }
    }
}
