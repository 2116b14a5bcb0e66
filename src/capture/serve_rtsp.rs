//! An RTSP server, as an IP camera is one, reduced to what a client needs to watch an
//! H.264 [`Clip`]: OPTIONS, DESCRIBE, SETUP with RTP over the RTSP connection (TCP
//! interleaved, RFC 2326 §10.12), PLAY, then RTP packets (RFC 6184: one NAL unit a
//! packet, FU-A fragments for larger ones), and answers to keep-alives and TEARDOWN.
//!
//! `aide bench stream --rtsp` and the tests point [`RtspStream`](super::rtsp::RtspStream)
//! at it on loopback. There is no RTSP server crate to use instead (the Rust ones are
//! clients, or servers built on GStreamer, a system library). A client that connects
//! mid-clip is first sent, at once, the pictures from the last key picture up to the one
//! showing (as cameras that keep their last group of pictures do), then each picture
//! when it is due; once the clip has ended its last picture, a key picture, is sent
//! again at every tick.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::loopback::{Clip, Live, Server};

/// The RTP payload type the SDP names for H.264.
const PAYLOAD_TYPE: u8 = 96;
/// The largest RTP payload sent: a NAL unit over this is split into FU-A fragments.
const MAX_PAYLOAD: usize = 1400;
const SSRC: u32 = 0x6169_6465;

/// A running server; [`stop`](Self::stop) or drop it to close every connection.
pub struct RtspServer(Server);

impl RtspServer {
    /// Serve `clip` (made by [`Clip::h264`]) at `addr` (port 0 picks one); every path
    /// serves it.
    pub fn start(addr: SocketAddr, clip: Arc<Clip>) -> std::io::Result<Self> {
        Server::start(addr, clip, "rtsp-server", session).map(Self)
    }

    pub fn addr(&self) -> SocketAddr {
        self.0.addr()
    }

    /// The stream's address.
    pub fn url(&self) -> String {
        format!("rtsp://{}/video", self.addr())
    }

    /// Pictures sent to all clients so far.
    pub fn sent(&self) -> u64 {
        self.0.sent()
    }

    /// Close the listener and every connection, and wait until they are closed.
    pub fn stop(self) {
        self.0.stop();
    }
}

/// A request's method, address and CSeq, and whether its Transport asks for TCP.
struct Request {
    method: String,
    uri: String,
    cseq: String,
    tcp: bool,
}

/// The next request on the connection; `None` when the client has gone.
fn read_request(reader: &mut impl BufRead) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    // Skip blank lines between requests.
    while line.trim().is_empty() {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
    }
    let mut words = line.split_whitespace();
    let method = words.next().unwrap_or("").to_owned();
    let uri = words.next().unwrap_or("").to_owned();
    let (mut cseq, mut tcp, mut length) = (String::new(), false, 0usize);
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "cseq" => cseq = value.to_owned(),
            "transport" => tcp = value.contains("RTP/AVP/TCP"),
            "content-length" => length = value.parse().unwrap_or(0),
            _ => {}
        }
    }
    // A body (GET_PARAMETER may carry one) is read and ignored.
    std::io::copy(
        &mut reader.by_ref().take(length as u64),
        &mut std::io::sink(),
    )?;
    Ok(Some(Request {
        method,
        uri,
        cseq,
        tcp,
    }))
}

/// The answer to `request`: status line, CSeq, `headers` (each ending in CRLF) and
/// `body`.
fn reply(socket: &Mutex<TcpStream>, request: &Request, status: &str, headers: &str, body: &str) {
    let length = if body.is_empty() {
        String::new()
    } else {
        format!("Content-Length: {}\r\n", body.len())
    };
    let text = format!(
        "RTSP/1.0 {status}\r\nCSeq: {}\r\n{headers}{length}\r\n{body}",
        request.cseq
    );
    // A client that has gone is noticed by the reader.
    let _ = socket
        .lock()
        .expect("socket lock")
        .write_all(text.as_bytes());
}

const SESSION: &str = "Session: 6169646501;timeout=60\r\n";

/// Answer a request that needs no more than a word; false when it ends the session.
fn answer(socket: &Mutex<TcpStream>, request: &Request) -> bool {
    match request.method.as_str() {
        "OPTIONS" => reply(
            socket,
            request,
            "200 OK",
            "Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER\r\n",
            "",
        ),
        "DESCRIBE" => {
            let sdp = "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=aide clip\r\nc=IN IP4 0.0.0.0\r\n\
                       t=0 0\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n\
                       a=fmtp:96 packetization-mode=1\r\na=control:track1\r\n";
            let base = format!(
                "Content-Base: {}/\r\nContent-Type: application/sdp\r\n",
                request.uri.trim_end_matches('/')
            );
            reply(socket, request, "200 OK", &base, sdp);
        }
        "SETUP" if request.tcp => reply(
            socket,
            request,
            "200 OK",
            &format!("Transport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n{SESSION}"),
            "",
        ),
        "SETUP" => reply(socket, request, "461 Unsupported Transport", "", ""),
        "PLAY" | "GET_PARAMETER" => reply(socket, request, "200 OK", SESSION, ""),
        "TEARDOWN" => {
            reply(socket, request, "200 OK", SESSION, "");
            return false;
        }
        _ => reply(socket, request, "501 Not Implemented", "", ""),
    }
    true
}

/// One client: requests up to PLAY, then the clip while a reader thread answers the
/// client's later requests.
fn session(socket: TcpStream, clip: &Clip, live: &Live) -> std::io::Result<()> {
    socket.set_nonblocking(false)?;
    socket.set_nodelay(true)?;
    socket.set_write_timeout(Some(Duration::from_secs(2)))?;
    let mut reader = BufReader::new(socket.try_clone()?);
    let socket = Arc::new(Mutex::new(socket));
    loop {
        let Some(request) = read_request(&mut reader)? else {
            return Ok(());
        };
        if !answer(&socket, &request) {
            return Ok(());
        }
        if request.method == "PLAY" {
            break;
        }
    }
    let gone = Arc::new(AtomicBool::new(false));
    let answers = {
        let (socket, gone) = (socket.clone(), gone.clone());
        std::thread::spawn(move || {
            while let Ok(Some(request)) = read_request(&mut reader) {
                if !answer(&socket, &request) {
                    break;
                }
            }
            gone.store(true, Ordering::Relaxed);
        })
    };
    let played = play(&socket, clip, live, &gone);
    // Closing both ways ends the reader's wait too.
    let _ = socket
        .lock()
        .expect("socket lock")
        .shutdown(std::net::Shutdown::Both);
    let _ = answers.join();
    played
}

/// The clip's pictures as RTP packets on interleaved channel 0, each when it is due.
fn play(
    socket: &Mutex<TcpStream>,
    clip: &Clip,
    live: &Live,
    gone: &AtomicBool,
) -> std::io::Result<()> {
    let mut rtp = Packetizer::default();
    let last = clip.len() - 1;
    let mut next = clip.key_at_or_before(clip.now_showing());
    // The picture count the RTP clock runs on: after the clip's end it goes on counting
    // the repeats of its last picture.
    let mut tick = next;
    let mut due = Instant::now();
    while !live.stopping() && !gone.load(Ordering::Relaxed) {
        let showing = clip.now_showing();
        let mut sent = false;
        while next <= showing {
            rtp.send(socket, clip.frame(next), tick, clip.fps())?;
            live.count_sent();
            (next, tick, sent) = (next + 1, tick + 1, true);
        }
        if !sent && showing == last {
            rtp.send(socket, clip.frame(last), tick, clip.fps())?;
            live.count_sent();
            tick += 1;
        }
        due += clip.interval();
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
    Ok(())
}

/// RTP packets of H.264 access units (RFC 6184), numbered in turn.
#[derive(Default)]
struct Packetizer {
    seq: u16,
}

impl Packetizer {
    /// Send `annex_b` (one access unit) as picture number `tick` of a `fps` stream: each
    /// NAL unit in one packet, or in FU-A fragments when large; the marker bit on the
    /// access unit's last packet.
    fn send(
        &mut self,
        socket: &Mutex<TcpStream>,
        annex_b: &[u8],
        tick: usize,
        fps: f64,
    ) -> std::io::Result<()> {
        let timestamp = (tick as f64 * 90_000.0 / fps).round() as u64 as u32;
        let nals: Vec<&[u8]> = openh264::nal_units(annex_b)
            .map(|nal| &nal[nal.iter().position(|b| *b == 1).map_or(0, |i| i + 1)..])
            .filter(|nal| !nal.is_empty())
            .collect();
        let mut packets: Vec<Vec<u8>> = Vec::new();
        for nal in &nals {
            if nal.len() <= MAX_PAYLOAD {
                packets.push(nal.to_vec());
                continue;
            }
            let (header, body) = (nal[0], &nal[1..]);
            let chunks: Vec<&[u8]> = body.chunks(MAX_PAYLOAD - 2).collect();
            for (i, chunk) in chunks.iter().enumerate() {
                let start = if i == 0 { 0x80 } else { 0 };
                let end = if i + 1 == chunks.len() { 0x40 } else { 0 };
                let mut payload = vec![(header & 0xe0) | 28, start | end | (header & 0x1f)];
                payload.extend_from_slice(chunk);
                packets.push(payload);
            }
        }
        let mut out = Vec::with_capacity(annex_b.len() + packets.len() * 16);
        for (i, payload) in packets.iter().enumerate() {
            let marker = if i + 1 == packets.len() { 0x80 } else { 0 };
            let length = (12 + payload.len()) as u16;
            out.extend_from_slice(&[b'$', 0]);
            out.extend_from_slice(&length.to_be_bytes());
            out.extend_from_slice(&[0x80, marker | PAYLOAD_TYPE]);
            out.extend_from_slice(&self.seq.to_be_bytes());
            out.extend_from_slice(&timestamp.to_be_bytes());
            out.extend_from_slice(&SSRC.to_be_bytes());
            out.extend_from_slice(payload);
            self.seq = self.seq.wrapping_add(1);
        }
        socket.lock().expect("socket lock").write_all(&out)
    }
}
