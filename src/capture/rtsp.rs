//! A network camera that serves H.264 over RTSP: IP cameras, and phone webcam apps that
//! offer `rtsp://PHONE:8554/…` beside (or instead of) MJPEG.
//!
//! The retina crate speaks RTSP and RTP (over the RTSP connection itself, TCP
//! interleaved: no UDP ports to open on a pub's Wi-Fi) and hands over whole access units
//! in Annex B form, parameter sets before each key picture. A grabber thread runs
//! retina on its own small tokio runtime and keeps the units received since the taker
//! last came in a [`Newest`] slot, dropping the older ones whenever a key picture
//! arrives (nothing after a key picture needs what came before it). The pipeline then
//! decodes the units it is given, every one (a P-picture is built on the last), and
//! converts only the newest picture to RGB ([`h264::Decoder`]).
//!
//! Drops are handled as the MJPEG stream's are ([`Grabbed`]): the page says "lost", the
//! grabber connects again with back-off, and each new connection is read from its first
//! key picture.

use std::time::Duration;

use futures_util::StreamExt;
use retina::client::{
    Credentials, PlayOptions, Session, SessionOptions, SetupOptions, TcpTransportOptions, Transport,
};
use retina::codec::{CodecItem, FrameFormat};

use super::h264;
use super::newest::{Grabbed, Newest, STALL};
use super::{CaptureError, Frame, FrameSource, SourceKind};
use crate::journal::{Millis, now_ms};

/// How long connecting, DESCRIBE, SETUP and PLAY may take together.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// One access unit as it arrived.
struct Unit {
    annex_b: Vec<u8>,
    key: bool,
    ts_ms: Millis,
}

/// The units not yet taken, from the newest key picture on at most.
struct Pending {
    units: Vec<Unit>,
    /// Units dropped because a key picture came after them.
    discarded: u64,
}

impl Pending {
    /// `new` (one unit) after `self`: a key picture makes everything before it useless.
    fn then(mut self, new: Pending) -> Pending {
        if new.units.first().is_some_and(|u| u.key) {
            Pending {
                discarded: self.discarded + self.units.len() as u64 + new.discarded,
                units: new.units,
            }
        } else {
            self.units.extend(new.units);
            self.discarded += new.discarded;
            self
        }
    }
}

/// An H.264 stream over RTSP that reconnects by itself.
pub struct RtspStream {
    /// The address as given, less any password, for messages.
    shown: String,
    grabbed: Grabbed<Pending>,
    decoder: h264::Decoder,
    /// A unit failed to decode: skip to the next key picture.
    need_key: bool,
    /// Pictures received that the pipeline never took.
    skipped: u64,
    index: u64,
}

impl RtspStream {
    /// Connect to `url` (`rtsp://[user:password@]host[:port]/path`) and wait for its
    /// first picture (see [`Grabbed::start`]).
    pub fn open(url: &str) -> Result<Self, CaptureError> {
        let unavailable = |why: String| CaptureError::Unavailable(format!("{url}: {why}"));
        let mut parsed =
            reqwest::Url::parse(url).map_err(|e| unavailable(format!("not an address: {e}")))?;
        if parsed.scheme() != "rtsp" {
            return Err(unavailable("not an rtsp:// address".into()));
        }
        // retina takes the credentials apart from the address, and a password has no
        // place in the messages.
        let creds = (!parsed.username().is_empty()).then(|| Credentials {
            username: parsed.username().to_owned(),
            password: parsed.password().unwrap_or("").to_owned(),
        });
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
        let shown = parsed.to_string();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| unavailable(e.to_string()))?;
        let address = shown.clone();
        let grabbed = Grabbed::start(&shown, "aide-rtsp", move |slot, frames| {
            runtime.block_on(read_stream(&parsed, &address, creds.clone(), slot, frames))
        })?;
        Ok(Self {
            shown,
            grabbed,
            decoder: h264::Decoder::new().map_err(unavailable)?,
            need_key: false,
            skipped: 0,
            index: 0,
        })
    }

    /// How many pictures arrived that the pipeline never took (decoded or discarded,
    /// not converted): the pictures a slow detector skipped instead of falling behind.
    pub fn dropped(&self) -> u64 {
        self.skipped
    }
}

impl FrameSource for RtspStream {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        loop {
            let pending = self.grabbed.take()?;
            self.skipped += pending.discarded;
            let last = pending.units.len().saturating_sub(1);
            let mut newest = None;
            for (i, unit) in pending.units.into_iter().enumerate() {
                if self.need_key && !unit.key {
                    self.skipped += 1;
                    continue;
                }
                self.need_key = false;
                match self.decoder.decode(&unit.annex_b, i == last) {
                    Ok(Some(image)) => newest = Some((image, unit.ts_ms)),
                    Ok(None) => self.skipped += u64::from(i < last),
                    Err(e) => {
                        self.need_key = true;
                        return Err(CaptureError::Lost(format!(
                            "{}: a picture would not decode: {e}",
                            self.shown
                        )));
                    }
                }
            }
            // A last unit that completed no picture (or was skipped waiting for a key
            // picture): wait for the next.
            if let Some((image, ts_ms)) = newest {
                let frame = Frame {
                    image,
                    ts_ms,
                    index: self.index,
                };
                self.index += 1;
                return Ok(frame);
            }
        }
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Camera
    }

    fn describe(&self) -> String {
        format!("RTSP stream {}", self.shown)
    }
}

/// One connection: DESCRIBE, SETUP of the first H.264 video stream, PLAY, then every
/// access unit from the first key picture on into the slot, until the stream ends,
/// fails or stalls (the reason).
async fn read_stream(
    url: &reqwest::Url,
    shown: &str,
    creds: Option<Credentials>,
    slot: &Newest<Pending>,
    frames: &mut u64,
) -> Result<(), String> {
    let failed = |e: &dyn std::fmt::Display| format!("{shown}: {e}");
    let playing = tokio::time::timeout(CONNECT_TIMEOUT, async {
        let mut session = Session::describe(url.clone(), SessionOptions::default().creds(creds))
            .await
            .map_err(|e| failed(&e))?;
        let video = session
            .streams()
            .iter()
            .position(|s| s.media() == "video" && s.encoding_name().eq_ignore_ascii_case("h264"))
            .ok_or_else(|| {
                let offered: Vec<String> = session
                    .streams()
                    .iter()
                    .map(|s| format!("{} {}", s.media(), s.encoding_name()))
                    .collect();
                format!(
                    "{shown}: no H.264 video in the stream (it offers {}); set the camera \
                     to H.264",
                    offered.join(", ")
                )
            })?;
        session
            .setup(
                video,
                SetupOptions::default()
                    .transport(Transport::Tcp(TcpTransportOptions::default()))
                    .frame_format(FrameFormat::SIMPLE),
            )
            .await
            .map_err(|e| failed(&e))?;
        session
            .play(PlayOptions::default())
            .await
            .map_err(|e| failed(&e))?
            .demuxed()
            .map_err(|e| failed(&e))
    })
    .await;
    let mut playing = playing
        .map_err(|_| format!("{shown}: no answer within {} s", CONNECT_TIMEOUT.as_secs()))??;
    let mut started = false;
    while !slot.is_closed() {
        let item = match tokio::time::timeout(STALL, playing.next()).await {
            Err(_) => return Err(format!("{shown}: no picture for {} s", STALL.as_secs())),
            Ok(None) => return Ok(()),
            Ok(Some(Err(e))) => return Err(failed(&e)),
            Ok(Some(Ok(item))) => item,
        };
        let CodecItem::VideoFrame(picture) = item else {
            continue;
        };
        let key = picture.is_random_access_point();
        // A connection is read from its first key picture: the decoder has nothing to
        // build the pictures before it on.
        started |= key;
        if !started {
            continue;
        }
        *frames += 1;
        let unit = Unit {
            annex_b: picture.into_data(),
            key,
            ts_ms: now_ms(),
        };
        slot.put_merged(
            Pending {
                units: vec![unit],
                discarded: 0,
            },
            Pending::then,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(keys: &[bool]) -> Pending {
        Pending {
            units: keys
                .iter()
                .map(|&key| Unit {
                    annex_b: Vec::new(),
                    key,
                    ts_ms: 0,
                })
                .collect(),
            discarded: 0,
        }
    }

    #[test]
    fn units_pile_up_until_a_key_picture_drops_those_before_it() {
        let p = pending(&[true, false]).then(pending(&[false]));
        assert_eq!(p.units.len(), 3);
        let p = p.then(pending(&[true]));
        assert_eq!((p.units.len(), p.discarded), (1, 3));
        let p = p.then(pending(&[false]));
        assert_eq!((p.units.len(), p.discarded), (2, 3));
    }
}
