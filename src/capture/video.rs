//! A recorded game: an H.264 video in an MP4 file, read with the mp4 crate and decoded by
//! OpenH264 ([`super::h264`]).
//!
//! Club tables film their games; a recording played through the pipeline becomes a
//! journal with no camera at the table. Two paces:
//! - [`Pace::Recorded`]: as it was filmed. A detector slower than the video skips
//!   pictures, as it would at the table: every sample is decoded (a P-frame needs the
//!   one before it) but only the picture due now is converted and handed out.
//! - [`Pace::Detector`]: every picture in turn, as fast as the detector takes them; the
//!   frames carry the video's own times, so the tracker's stillness is measured in the
//!   game's seconds, not the machine's.
//!
//! Frames are stamped with the time the replay started plus the picture's time in the
//! video.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use image::RgbImage;
use mp4::{MediaType, Mp4Reader};

use super::h264::Decoder;
use super::{CaptureError, Frame, FrameSource, SourceKind};
use crate::journal::{Millis, now_ms};

/// How a video is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Pace {
    /// At the pace it was filmed; pictures a slow detector misses are skipped.
    #[default]
    Recorded,
    /// Every picture, as fast as the detector reads them.
    Detector,
}

/// An MP4 file's H.264 track, picture by picture.
pub struct VideoFile {
    path: PathBuf,
    mp4: Mp4Reader<BufReader<File>>,
    track: u32,
    samples: u32,
    /// The next sample to read (the mp4 crate counts from 1).
    next: u32,
    /// Each sample's time in the video (ms), from the track's time-to-sample table.
    times_ms: Vec<u64>,
    /// Bytes of the length before each NAL unit in a sample.
    length_size: usize,
    decoder: Decoder,
    pace: Pace,
    /// When the replay began: wall clock for the frames' stamps, and the instant the
    /// video's time 0 is played at.
    start_ms: Millis,
    started: Instant,
    /// The last picture decoded and its time in the video (ms), not yet handed out.
    decoded: Option<(RgbImage, u64)>,
    index: u64,
    size: (u32, u32),
}

impl VideoFile {
    pub fn open(path: &Path, pace: Pace) -> Result<Self, CaptureError> {
        let unavailable =
            |why: String| CaptureError::Unavailable(format!("{}: {why}", path.display()));
        let file = File::open(path).map_err(|e| unavailable(e.to_string()))?;
        let size = file
            .metadata()
            .map_err(|e| unavailable(e.to_string()))?
            .len();
        let mp4 = Mp4Reader::read_header(BufReader::new(file), size)
            .map_err(|e| unavailable(format!("not an MP4 file this build reads: {e}")))?;
        let track = mp4
            .tracks()
            .values()
            .find(|t| matches!(t.media_type(), Ok(MediaType::H264)))
            .ok_or_else(|| {
                unavailable(
                    "no H.264 video track (re-encode it: ffmpeg -i IN -c:v libx264 \
                     -profile:v baseline OUT.mp4)"
                        .into(),
                )
            })?;
        let sps = track
            .sequence_parameter_set()
            .map_err(|e| unavailable(format!("the H.264 track has no SPS: {e}")))?;
        let pps = track
            .picture_parameter_set()
            .map_err(|e| unavailable(format!("the H.264 track has no PPS: {e}")))?;
        let length_size = track
            .trak
            .mdia
            .minf
            .stbl
            .stsd
            .avc1
            .as_ref()
            .map_or(4, |avc1| {
                usize::from(avc1.avcc.length_size_minus_one & 3) + 1
            });
        let (track_id, samples, timescale) = (
            track.track_id(),
            track.sample_count(),
            u64::from(track.timescale()),
        );
        let size = (u32::from(track.width()), u32::from(track.height()));
        let mut times_ms = Vec::with_capacity(samples as usize);
        let mut t = 0u64;
        for entry in &track.trak.mdia.minf.stbl.stts.entries {
            for _ in 0..entry.sample_count {
                times_ms.push(t * 1000 / timescale.max(1));
                t += u64::from(entry.sample_delta);
            }
        }
        times_ms.resize(samples as usize, t * 1000 / timescale.max(1));
        let mut decoder = Decoder::new().map_err(unavailable)?;
        let mut headers = Vec::new();
        for nal in [sps, pps] {
            headers.extend_from_slice(&[0, 0, 0, 1]);
            headers.extend_from_slice(nal);
        }
        decoder
            .decode(&headers, false)
            .map_err(|e| unavailable(format!("the H.264 track's SPS and PPS: {e}")))?;
        if samples == 0 {
            return Err(unavailable("the video has no pictures".into()));
        }
        Ok(Self {
            path: path.to_owned(),
            mp4,
            track: track_id,
            samples,
            next: 1,
            times_ms,
            length_size,
            decoder,
            pace,
            start_ms: now_ms(),
            started: Instant::now(),
            decoded: None,
            index: 0,
            size,
        })
    }

    /// The wall-clock time (ms) the video's time 0 is stamped with.
    pub fn started_ms(&self) -> Millis {
        self.start_ms
    }

    /// Pictures in the video.
    pub fn len(&self) -> u32 {
        self.samples
    }

    pub fn is_empty(&self) -> bool {
        self.samples == 0
    }

    /// The time in the video (ms) of the sample read next; None after the last.
    fn next_ms(&self) -> Option<u64> {
        self.times_ms.get(self.next as usize - 1).copied()
    }

    /// Decode the next sample, and keep its picture (if it made one) as RGB when
    /// `convert`. False after the last sample.
    fn decode_next(&mut self, convert: bool) -> Result<bool, CaptureError> {
        let Some(ms) = self.next_ms() else {
            return Ok(false);
        };
        let id = self.next;
        self.next += 1;
        let sample = match self.mp4.read_sample(self.track, id) {
            Ok(Some(sample)) => sample,
            Ok(None) => return Err(self.lost(id, "missing")),
            Err(e) => return Err(self.lost(id, &e.to_string())),
        };
        let annex_b = annex_b(&sample.bytes, self.length_size).map_err(|e| self.lost(id, &e))?;
        let picture = self
            .decoder
            .decode(&annex_b, convert)
            .map_err(|e| self.lost(id, &e))?;
        if let Some(image) = picture {
            self.decoded = Some((image, ms));
        }
        Ok(true)
    }

    fn lost(&self, id: u32, why: &str) -> CaptureError {
        CaptureError::Lost(format!("{}: picture {id}: {why}", self.path.display()))
    }

    fn ended(&self) -> CaptureError {
        CaptureError::Unavailable(format!("{}: the video ended", self.path.display()))
    }
}

impl FrameSource for VideoFile {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        match self.pace {
            Pace::Detector => {
                while self.decoded.is_none() {
                    if !self.decode_next(true)? {
                        return Err(self.ended());
                    }
                }
            }
            Pace::Recorded => loop {
                // Every sample due by now is decoded; only the last of them converted.
                let now = self.started.elapsed().as_millis() as u64;
                while self.next_ms().is_some_and(|due| due <= now) {
                    let last_due = self
                        .times_ms
                        .get(self.next as usize)
                        .is_none_or(|after| *after > now);
                    self.decode_next(last_due)?;
                }
                if self.decoded.is_some() {
                    break;
                }
                let Some(due) = self.next_ms() else {
                    return Err(self.ended());
                };
                std::thread::sleep(Duration::from_millis(due.saturating_sub(now)));
            },
        }
        let (image, ms) = self.decoded.take().expect("decoded above");
        let frame = Frame {
            image,
            ts_ms: self.start_ms + ms as Millis,
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
            "video {} ({}x{}, {} pictures)",
            self.path.display(),
            self.size.0,
            self.size.1,
            self.samples
        )
    }
}

/// An MP4 sample's NAL units (each after its big-endian length) with start codes instead,
/// as the decoder reads them.
fn annex_b(sample: &[u8], length_size: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(sample.len() + 16);
    let mut rest = sample;
    while !rest.is_empty() {
        if rest.len() < length_size {
            return Err("a NAL unit's length is cut short".into());
        }
        let (len, tail) = rest.split_at(length_size);
        let len = len.iter().fold(0usize, |n, b| n << 8 | usize::from(*b));
        if len > tail.len() {
            return Err(format!("a NAL unit of {len} bytes in {} left", tail.len()));
        }
        out.extend_from_slice(&[0, 0, 0, 1]);
        out.extend_from_slice(&tail[..len]);
        rest = &tail[len..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::annex_b;

    #[test]
    fn length_prefixed_units_become_start_coded() {
        let sample = [0, 0, 0, 2, 0x65, 0xaa, 0, 0, 0, 1, 0x06];
        assert_eq!(
            annex_b(&sample, 4).unwrap(),
            [0, 0, 0, 1, 0x65, 0xaa, 0, 0, 0, 1, 0x06]
        );
        assert!(annex_b(&[0, 0, 0, 9, 1], 4).is_err());
    }
}
