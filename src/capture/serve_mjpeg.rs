//! An MJPEG server, as a phone webcam app is one: a [`Clip`] of JPEG frames streamed as
//! `multipart/x-mixed-replace` to every client, on the clip's clock.
//!
//! `aide bench stream` and the tests point [`MjpegStream`](super::mjpeg::MjpegStream) at
//! it on loopback.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::loopback::{Clip, Live, Server};

/// The boundary between parts.
const BOUNDARY: &str = "aideframe";

/// A running server; [`stop`](Self::stop) or drop it to close every connection.
pub struct MjpegServer(Server);

impl MjpegServer {
    /// Serve `clip` at `addr` (port 0 picks one); every path serves the stream.
    pub fn start(addr: SocketAddr, clip: Arc<Clip>) -> std::io::Result<Self> {
        Server::start(addr, clip, "mjpeg-server", stream).map(Self)
    }

    pub fn addr(&self) -> SocketAddr {
        self.0.addr()
    }

    /// The stream's address.
    pub fn url(&self) -> String {
        format!("http://{}/video", self.addr())
    }

    /// Frames sent to all clients so far.
    pub fn sent(&self) -> u64 {
        self.0.sent()
    }

    /// Close the listener and every connection, and wait until they are closed.
    pub fn stop(self) {
        self.0.stop();
    }
}

/// One client: the response head, then the frame showing at every tick until the
/// server stops or the client goes.
fn stream(mut socket: TcpStream, clip: &Clip, live: &Live) -> std::io::Result<()> {
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
    while !live.stopping() {
        let jpeg = clip.frame(clip.now_showing());
        write!(
            socket,
            "--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\n\r\n",
            jpeg.len()
        )?;
        socket.write_all(jpeg)?;
        socket.write_all(b"\r\n")?;
        live.count_sent();
        due += clip.interval();
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
    socket.shutdown(std::net::Shutdown::Both)
}
