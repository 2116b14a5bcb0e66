//! A network camera that serves MJPEG over HTTP: the `multipart/x-mixed-replace` stream
//! of phone webcam apps (IP Webcam, DroidCam), mjpg-streamer and most IP cameras.
//!
//! A grabber thread reads the stream as fast as the camera sends and keeps the newest
//! JPEG, still compressed, in a [`Newest`] slot; the pipeline decodes only the frame it
//! takes. Reading every part keeps the socket drained (a reader that stops makes the
//! camera's buffer, and so the picture, lag); decoding only the taken one keeps a slow
//! detector from spending its core on frames nobody will look at.
//!
//! A phone on Wi-Fi drops its stream: the app is put in the background, the phone locks,
//! the router hiccups. [`Grabbed`] then says so (the page shows "lost") and connects
//! again with back-off.
//!
//! The multipart parser is ours: the one crate for these streams (multipart-stream) is
//! async only and refuses a part without a Content-Length, which some cameras leave out.

use std::io::Read;
use std::time::Duration;

use memchr::memmem;

use super::newest::{Grabbed, Newest, STALL};
use super::{CaptureError, Frame, FrameSource, SourceKind};
use crate::journal::{Millis, now_ms};

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest part (one JPEG) or header block the parser accepts.
const MAX_PART: usize = 32 << 20;
const MAX_HEADERS: usize = 16 << 10;

/// One compressed frame as it arrived.
struct Jpeg {
    bytes: Vec<u8>,
    ts_ms: Millis,
}

/// An MJPEG stream over HTTP that reconnects by itself.
pub struct MjpegStream {
    url: String,
    grabbed: Grabbed<Jpeg>,
    index: u64,
}

impl MjpegStream {
    /// Connect to `url` and wait for its first frame (see [`Grabbed::start`]).
    pub fn open(url: &str) -> Result<Self, CaptureError> {
        let parsed = reqwest::Url::parse(url)
            .map_err(|e| CaptureError::Unavailable(format!("{url}: not an address: {e}")))?;
        if parsed.scheme() != "http" {
            return Err(CaptureError::Unavailable(format!(
                "{url}: only http:// MJPEG streams are read (phone camera apps serve plain \
                 http on the local network)"
            )));
        }
        let client = reqwest::blocking::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            // Per read in the blocking client: a stream silent this long is dropped.
            .timeout(STALL)
            .no_proxy()
            .build()
            .map_err(|e| CaptureError::Unavailable(format!("{url}: {e}")))?;
        let address = url.to_owned();
        let grabbed = Grabbed::start(url, "aide-mjpeg", move |slot, frames| {
            read_stream(&client, &address, slot, frames)
        })?;
        Ok(Self {
            url: url.to_owned(),
            grabbed,
            index: 0,
        })
    }

    /// How many frames arrived that the pipeline never took (it was busy with an older
    /// one): the frames a slow detector skipped instead of falling behind.
    pub fn dropped(&self) -> u64 {
        self.grabbed.dropped()
    }
}

impl FrameSource for MjpegStream {
    fn next_frame(&mut self) -> Result<Frame, CaptureError> {
        let jpeg = self.grabbed.take()?;
        let image = image::load_from_memory_with_format(&jpeg.bytes, image::ImageFormat::Jpeg)
            .map_err(|e| CaptureError::Lost(format!("{}: a frame is no JPEG: {e}", self.url)))?
            .into_rgb8();
        let frame = Frame {
            image,
            ts_ms: jpeg.ts_ms,
            index: self.index,
        };
        self.index += 1;
        Ok(frame)
    }

    fn kind(&self) -> SourceKind {
        SourceKind::Camera
    }

    fn describe(&self) -> String {
        format!("MJPEG stream {}", self.url)
    }
}

/// One connection: every part into the slot until the stream ends or fails (the reason).
fn read_stream(
    client: &reqwest::blocking::Client,
    url: &str,
    slot: &Newest<Jpeg>,
    frames: &mut u64,
) -> Result<(), String> {
    let response = client
        .get(url)
        .send()
        .map_err(|e| format!("{url}: {}", error_chain(&e)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("{url}: the camera answered {status}"));
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let boundary = boundary(&content_type).ok_or_else(|| {
        format!(
            "{url}: not an MJPEG stream (Content-Type {content_type:?}); phone apps serve \
             it at an address such as http://PHONE:8080/video"
        )
    })?;
    let mut parts = Parts::new(response, &boundary);
    while !slot.is_closed() {
        match parts.next_part() {
            Ok(Some(bytes)) => {
                *frames += 1;
                slot.put(Jpeg {
                    bytes,
                    ts_ms: now_ms(),
                });
            }
            Ok(None) => return Ok(()),
            Err(e) => return Err(format!("{url}: {e}")),
        }
    }
    Ok(())
}

/// reqwest's error and its causes in one line ("error sending request: connection
/// refused").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        cause = c.source();
    }
    text
}

/// The boundary a `multipart/x-mixed-replace; boundary=…` Content-Type declares, without
/// the dashes some cameras put in it (they then write four before each part).
pub fn boundary(content_type: &str) -> Option<String> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().to_ascii_lowercase().starts_with("multipart/") {
        return None;
    }
    params.split(';').find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("boundary") {
            return None;
        }
        let value = value.trim().trim_matches('"').trim_start_matches('-');
        (!value.is_empty()).then(|| value.to_owned())
    })
}

/// The bodies of a multipart stream, one by one. A part's length is its Content-Length
/// header when it has one, or else runs to the next delimiter.
pub struct Parts<R> {
    inner: R,
    /// `--` and the boundary.
    delimiter: Vec<u8>,
    buf: Vec<u8>,
    /// Where the unread bytes in `buf` begin.
    start: usize,
}

impl<R: Read> Parts<R> {
    pub fn new(inner: R, boundary: &str) -> Self {
        Self {
            inner,
            delimiter: format!("--{boundary}").into_bytes(),
            buf: Vec::with_capacity(1 << 20),
            start: 0,
        }
    }

    /// Read more into the buffer; false at the end of the stream.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let len = self.buf.len();
        self.buf.resize(len + (64 << 10), 0);
        let read = self.inner.read(&mut self.buf[len..]);
        self.buf.truncate(len + read.as_ref().map_or(0, |n| *n));
        Ok(read? > 0)
    }

    /// Where `needle` next begins in the unread bytes, reading more as needed; None at
    /// the end of the stream.
    fn find(&mut self, needle: &[u8], limit: usize) -> std::io::Result<Option<usize>> {
        let mut searched = 0;
        loop {
            let unread = &self.buf[self.start..];
            if let Some(at) = memmem::find(&unread[searched..], needle) {
                return Ok(Some(searched + at));
            }
            searched = unread.len().saturating_sub(needle.len() - 1);
            if unread.len() > limit {
                return Err(bad(format!("no boundary within {limit} bytes")));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Make sure `n` unread bytes are buffered; false at the end of the stream.
    fn want(&mut self, n: usize) -> std::io::Result<bool> {
        while self.buf.len() - self.start < n {
            if !self.fill()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The next part's body; None when the stream ends (cleanly or cut short).
    pub fn next_part(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let delimiter = self.delimiter.clone();
        let Some(at) = self.find(&delimiter, MAX_PART)? else {
            return Ok(None);
        };
        self.start += at + delimiter.len();
        // "--" right after the delimiter closes the stream.
        if !self.want(2)? || &self.buf[self.start..self.start + 2] == b"--" {
            return Ok(None);
        }
        // The rest of the delimiter line, then the part's headers up to a blank line.
        let Some(eol) = self.find(b"\n", MAX_HEADERS)? else {
            return Ok(None);
        };
        self.start += eol + 1;
        let mut length = None;
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 16];
            match httparse::parse_headers(&self.buf[self.start..], &mut headers) {
                Ok(httparse::Status::Complete((used, headers))) => {
                    for h in headers {
                        if h.name.eq_ignore_ascii_case("content-length") {
                            let text = std::str::from_utf8(h.value).unwrap_or("").trim();
                            let n: usize = text
                                .parse()
                                .map_err(|_| bad(format!("Content-Length {text:?}")))?;
                            if n > MAX_PART {
                                return Err(bad(format!("a part of {n} bytes")));
                            }
                            length = Some(n);
                        }
                    }
                    self.start += used;
                    break;
                }
                Ok(httparse::Status::Partial) => {
                    if self.buf.len() - self.start > MAX_HEADERS {
                        return Err(bad("a part's headers never end".into()));
                    }
                    if !self.fill()? {
                        return Ok(None);
                    }
                }
                Err(e) => return Err(bad(format!("a part's headers: {e}"))),
            }
        }
        let body = match length {
            Some(n) => {
                if !self.want(n)? {
                    return Ok(None);
                }
                self.start += n;
                self.buf[self.start - n..self.start].to_vec()
            }
            None => {
                // Up to the next delimiter, which stays for the next call.
                let Some(end) = self.find(&delimiter, MAX_PART)? else {
                    return Ok(None);
                };
                let body = &self.buf[self.start..self.start + end];
                let body = body.strip_suffix(b"\n").unwrap_or(body);
                let body = body.strip_suffix(b"\r").unwrap_or(body).to_vec();
                self.start += end;
                body
            }
        };
        Ok(Some(body))
    }
}

fn bad(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(stream: &[u8], boundary: &str) -> Vec<Vec<u8>> {
        // One byte at a time: every split of a delimiter or a header is crossed.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let Some((first, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                buf[0] = *first;
                self.0 = rest;
                Ok(1)
            }
        }
        let mut parts = Parts::new(Trickle(stream), boundary);
        std::iter::from_fn(|| parts.next_part().unwrap()).collect()
    }

    #[test]
    fn parts_with_and_without_a_length_and_a_closing_delimiter() {
        let stream = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: 5\r\n\r\n\
            ab--f\r\n--frame\r\nContent-Type: image/jpeg\r\n\r\nxyz\r\n--frame\r\n\r\nq\r\n--frame--\r\n";
        assert_eq!(
            parts(stream, "frame"),
            [b"ab--f".to_vec(), b"xyz".to_vec(), b"q".to_vec()]
        );
    }

    #[test]
    fn a_boundary_declared_with_dashes_and_bare_newlines() {
        let declared = "multipart/x-mixed-replace;boundary=\"--myboundary\"";
        let boundary = boundary(declared).unwrap();
        assert_eq!(boundary, "myboundary");
        let stream = b"----myboundary\nContent-Length: 2\n\nhi\n----myboundary\n\nyo";
        // The second part has no length and the stream is cut: it is not given out.
        assert_eq!(parts(stream, &boundary), [b"hi".to_vec()]);
        assert_eq!(super::boundary("image/jpeg"), None);
        assert_eq!(super::boundary("multipart/x-mixed-replace"), None);
    }
}
