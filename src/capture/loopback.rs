//! Cameras on loopback for `aide bench stream` and the tests: a [`Clip`] of encoded
//! frames played on its own clock, and the [`Server`] loop that serves it to every client
//! with a protocol of its own ([`MjpegServer`](super::serve_mjpeg::MjpegServer),
//! [`RtspServer`](super::serve_rtsp::RtspServer)).
//!
//! The clip plays on from when it started whether or not anyone is connected, as a
//! camera keeps filming, so a client that reconnects sees the table as it is now;
//! [`Server::stop`] drops every connection, as a phone whose app was put in the
//! background does, and a new server on the same address carries the same clip on.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use image::RgbImage;

use super::h264;

/// Encoded frames played at a rate from a start time, holding the last one at the end.
pub struct Clip {
    frames: Vec<Vec<u8>>,
    /// Which frames a decoder can start from (every JPEG; an H.264 clip's key pictures).
    keys: Vec<bool>,
    interval: Duration,
    started: Instant,
}

impl Clip {
    /// A clip of `frames` (JPEG files' bytes) at `fps`, starting now.
    pub fn new(frames: Vec<Vec<u8>>, fps: f64) -> Self {
        let keys = vec![true; frames.len()];
        Self::with_keys(frames, keys, fps)
    }

    /// `frames` encoded as H.264 (see [`h264::Encoder`]) at `fps`, a key picture every
    /// `key_every` and at the end; starting now.
    pub fn h264(frames: &[RgbImage], fps: f64, key_every: u32) -> Result<Self, String> {
        let mut encoder = h264::Encoder::new(fps, key_every)?;
        let mut units = Vec::with_capacity(frames.len());
        for (i, image) in frames.iter().enumerate() {
            if i + 1 == frames.len() {
                encoder.force_key();
            }
            units.push(encoder.encode(image)?);
        }
        Ok(Self::from_units(units, fps))
    }

    /// H.264 access units at `fps`, starting now. The last must be a key picture: it
    /// is sent again and again while the clip holds it.
    pub fn from_units(units: Vec<h264::AccessUnit>, fps: f64) -> Self {
        assert!(
            units.last().is_some_and(|u| u.key),
            "an H.264 clip ends on a key picture"
        );
        let keys = units.iter().map(|u| u.key).collect();
        let frames = units.into_iter().map(|u| u.annex_b).collect();
        Self::with_keys(frames, keys, fps)
    }

    fn with_keys(frames: Vec<Vec<u8>>, keys: Vec<bool>, fps: f64) -> Self {
        assert!(
            !frames.is_empty() && fps > 0.0,
            "a clip has frames and a rate"
        );
        Self {
            frames,
            keys,
            interval: Duration::from_secs_f64(1.0 / fps),
            started: Instant::now(),
        }
    }

    /// Which frame is showing now.
    pub fn now_showing(&self) -> usize {
        let n = self.started.elapsed().as_secs_f64() / self.interval.as_secs_f64();
        (n as usize).min(self.frames.len() - 1)
    }

    /// When the clip reaches its last frame.
    pub fn ends_at(&self) -> Instant {
        self.started + self.interval * (self.frames.len() as u32 - 1)
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Frame `i`'s bytes.
    pub fn frame(&self, i: usize) -> &[u8] {
        &self.frames[i]
    }

    /// The last frame at or before `i` that a decoder can start from.
    pub fn key_at_or_before(&self, i: usize) -> usize {
        (0..=i).rev().find(|&k| self.keys[k]).unwrap_or(0)
    }

    /// The time between frames.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Frames a second.
    pub fn fps(&self) -> f64 {
        1.0 / self.interval.as_secs_f64()
    }
}

/// What a server's client threads share: whether to stop, and frames sent so far.
#[derive(Default)]
pub struct Live {
    stop: AtomicBool,
    sent: AtomicU64,
}

impl Live {
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// One more frame sent to a client.
    pub fn count_sent(&self) {
        self.sent.fetch_add(1, Ordering::Relaxed);
    }
}

/// Serves one client until it goes or the server stops.
pub type Serve = fn(TcpStream, &Clip, &Live) -> std::io::Result<()>;

/// A running server; [`stop`](Self::stop) or drop it to close every connection.
pub struct Server {
    addr: SocketAddr,
    live: Arc<Live>,
    listener: Option<JoinHandle<()>>,
}

impl Server {
    /// Serve `clip` at `addr` (port 0 picks one), each client on a thread of its own
    /// named `name`, by `serve`.
    pub fn start(
        addr: SocketAddr,
        clip: Arc<Clip>,
        name: &str,
        serve: Serve,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let live = Arc::new(Live::default());
        let thread = {
            let live = live.clone();
            std::thread::Builder::new()
                .name(name.into())
                .spawn(move || accept(listener, clip, live, serve))?
        };
        Ok(Self {
            addr,
            live,
            listener: Some(thread),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Frames sent to all clients so far.
    pub fn sent(&self) -> u64 {
        self.live.sent.load(Ordering::Relaxed)
    }

    /// Close the listener and every connection, and wait until they are closed.
    pub fn stop(mut self) {
        self.shut();
    }

    fn shut(&mut self) {
        self.live.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.listener.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shut();
    }
}

fn accept(listener: TcpListener, clip: Arc<Clip>, live: Arc<Live>, serve: Serve) {
    let mut clients = Vec::new();
    while !live.stopping() {
        match listener.accept() {
            Ok((socket, _)) => {
                let (clip, live) = (clip.clone(), live.clone());
                clients.push(std::thread::spawn(move || {
                    // A client gone is the end of its stream, nothing more.
                    let _ = serve(socket, &clip, &live);
                }));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
        clients.retain(|c: &JoinHandle<()>| !c.is_finished());
    }
    drop(listener);
    for client in clients {
        let _ = client.join();
    }
}
