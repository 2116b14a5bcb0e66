//! An MJPEG server, as a phone webcam app is one: a clip of JPEG frames streamed as
//! `multipart/x-mixed-replace` to every client, on the clip's clock.
//!
//! `aide bench stream` and the tests point [`MjpegStream`](super::mjpeg::MjpegStream) at
//! it on loopback. The clip plays on from when it started whether or not anyone is
//! connected, as a camera keeps filming, so a client that reconnects sees the table as it
//! is now; [`MjpegServer::stop`] drops every connection, as a phone whose app was put in
//! the background does, and a new server on the same address carries the same clip on.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The boundary between parts.
const BOUNDARY: &str = "aideframe";

/// JPEG frames played at a rate from a start time, holding the last one at the end.
pub struct Clip {
    frames: Vec<Vec<u8>>,
    interval: Duration,
    started: Instant,
}

impl Clip {
    /// A clip of `frames` (JPEG files' bytes) at `fps`, starting now.
    pub fn new(frames: Vec<Vec<u8>>, fps: f64) -> Self {
        assert!(
            !frames.is_empty() && fps > 0.0,
            "a clip has frames and a rate"
        );
        Self {
            frames,
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
}

/// A running server; [`stop`](Self::stop) or drop it to close every connection.
pub struct MjpegServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    sent: Arc<AtomicU64>,
    listener: Option<JoinHandle<()>>,
}

impl MjpegServer {
    /// Serve `clip` at `addr` (port 0 picks one); every path serves the stream.
    pub fn start(addr: SocketAddr, clip: Arc<Clip>) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let sent = Arc::new(AtomicU64::new(0));
        let thread = {
            let (stop, sent) = (stop.clone(), sent.clone());
            std::thread::Builder::new()
                .name("mjpeg-server".into())
                .spawn(move || accept(listener, clip, stop, sent))?
        };
        Ok(Self {
            addr,
            stop,
            sent,
            listener: Some(thread),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The stream's address.
    pub fn url(&self) -> String {
        format!("http://{}/video", self.addr)
    }

    /// Frames sent to all clients so far.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// Close the listener and every connection, and wait until they are closed.
    pub fn stop(mut self) {
        self.shut();
    }

    fn shut(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.listener.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for MjpegServer {
    fn drop(&mut self) {
        self.shut();
    }
}

fn accept(listener: TcpListener, clip: Arc<Clip>, stop: Arc<AtomicBool>, sent: Arc<AtomicU64>) {
    let mut clients = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((socket, _)) => {
                let (clip, stop, sent) = (clip.clone(), stop.clone(), sent.clone());
                clients.push(std::thread::spawn(move || {
                    // A client gone is the end of its stream, nothing more.
                    let _ = stream(socket, &clip, &stop, &sent);
                }));
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
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

/// One client: the response head, then the frame showing at every tick until the
/// server stops or the client goes.
fn stream(
    mut socket: TcpStream,
    clip: &Clip,
    stop: &AtomicBool,
    sent: &AtomicU64,
) -> std::io::Result<()> {
    socket.set_nonblocking(false)?;
    socket.set_nodelay(true)?;
    socket.set_write_timeout(Some(Duration::from_secs(2)))?;
    socket.set_read_timeout(Some(Duration::from_secs(2)))?;
    // The request: read its head and ignore it.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
        if socket.read(&mut byte)? == 0 {
            return Ok(());
        }
        head.push(byte[0]);
    }
    write!(
        socket,
        "HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary={BOUNDARY}\r\n\
         Cache-Control: no-cache\r\nConnection: close\r\n\r\n"
    )?;
    let mut due = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let jpeg = &clip.frames[clip.now_showing()];
        write!(
            socket,
            "--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\n\r\n",
            jpeg.len()
        )?;
        socket.write_all(jpeg)?;
        socket.write_all(b"\r\n")?;
        sent.fetch_add(1, Ordering::Relaxed);
        due += clip.interval;
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
    socket.shutdown(std::net::Shutdown::Both)
}
