//! Load measurement of the live server (ignored by default; it prints figures, it does
//! not assert speed): the real `aide serve --seats` binary replays the demo at 30 table
//! states a second on loopback, building each seat's message; 1 and then 20 WebSocket
//! clients, spread over the seats (each side, the umpire, spectators), record, for every
//! state message,
//! the time from the state entering the pipeline (the feed's stamp, taken before the rules
//! check it) to the message arriving. It also samples the server's VmRSS over the run.
//!
//! cargo test --release --test web_load -- --ignored --nocapture
//! AIDE_LOAD_SECS (default 20) sets each phase's length; AIDE_SOAK_SECS (default 60) the
//! memory run; AIDE_LOAD_OPEN=1 serves an open table (one message for everyone) instead,
//! to compare.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aide::web::feed::unix_us;
use futures_util::StreamExt;
use serde::Deserialize;
use tokio_tungstenite::tungstenite::Message;

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    stable_unix_us: u64,
}

fn secs(var: &str, default: u64) -> Duration {
    Duration::from_secs(
        std::env::var(var)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default),
    )
}

/// The server, its address, and the seats' tokens ("" for a spectator).
fn start_server(rate: f64) -> (Running, String, Vec<String>) {
    let mut child = Running(
        Command::new(env!("CARGO_BIN_EXE_aide"))
            .args([
                "serve",
                "--bind",
                "127.0.0.1:0",
                "--demo-source",
                "states",
                "--replay-rate",
            ])
            .arg(rate.to_string())
            .args(if std::env::var_os("AIDE_LOAD_OPEN").is_some() {
                &[][..]
            } else {
                &["--seats"][..]
            })
            .stdout(Stdio::piped())
            .spawn()
            .expect("start aide serve"),
    );
    let out = child.0.stdout.take().unwrap();
    // Each seat's address is printed before the server listens.
    let mut seats = vec![String::new()];
    let mut lines = BufReader::new(out).lines().map_while(Result::ok);
    let addr = lines
        .find_map(|l| {
            if let Some((_, token)) = l.split_once("#seat=") {
                seats.push(token.to_owned());
            }
            l.strip_prefix("listening on ").map(str::to_owned)
        })
        .expect("the server prints its address");
    (child, addr, seats)
}

fn vm_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Latencies in µs of every state message `clients` clients saw during `run`.
async fn measure(addr: &str, seats: &[String], clients: usize, run: Duration) -> (Vec<u64>, usize) {
    let mut tasks = Vec::new();
    for i in 0..clients {
        let url = format!("ws://{addr}/ws?seat={}", seats[i % seats.len()]);
        tasks.push(tokio::spawn(async move {
            let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
            let mut lat = Vec::new();
            let mut dropped = false;
            let end = Instant::now() + run;
            // The first message is the current state, not a fresh one: skip it.
            let _ = ws.next().await;
            while let Ok(Some(msg)) = tokio::time::timeout_at(end.into(), ws.next()).await {
                match msg {
                    Ok(Message::Text(t)) => {
                        let now = unix_us();
                        let head: Head = serde_json::from_str(&t).unwrap();
                        if head.kind == "state" {
                            lat.push(now.saturating_sub(head.stable_unix_us));
                        }
                    }
                    Ok(Message::Close(_)) | Err(_) => {
                        dropped = true;
                        break;
                    }
                    _ => {}
                }
            }
            (lat, dropped)
        }));
    }
    let mut all = Vec::new();
    let mut dropped = 0;
    for t in tasks {
        let (lat, d) = t.await.unwrap();
        all.extend(lat);
        dropped += usize::from(d);
    }
    all.sort_unstable();
    (all, dropped)
}

fn pct(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load measurement: run with --ignored --nocapture"]
async fn latency_and_memory_under_load() {
    let phase = secs("AIDE_LOAD_SECS", 20);
    let (server, addr, seats) = start_server(30.0);
    let pid = server.0.id();
    tokio::time::sleep(Duration::from_secs(1)).await;
    for clients in [1, 20] {
        let (lat, dropped) = measure(&addr, &seats, clients, phase).await;
        println!(
            "{clients:>2} client(s) over {} seats, 30 states/s, {:.0} s: {} messages, latency median {:.2} ms, p95 {:.2} ms, max {:.2} ms; {dropped} dropped",
            seats.len().min(clients),
            phase.as_secs_f64(),
            lat.len(),
            pct(&lat, 0.5),
            pct(&lat, 0.95),
            pct(&lat, 1.0),
        );
        assert!(!lat.is_empty(), "the clients received states");
    }

    let soak = secs("AIDE_SOAK_SECS", 60);
    let start = Instant::now();
    let (_, _) = tokio::join!(measure(&addr, &seats, 2, soak), async {
        let mut samples = Vec::new();
        while start.elapsed() < soak {
            samples.push((start.elapsed().as_secs(), vm_rss_kib(pid)));
            tokio::time::sleep(soak / 6).await;
        }
        samples.push((start.elapsed().as_secs(), vm_rss_kib(pid)));
        let shown: Vec<String> = samples
            .iter()
            .map(|(t, kib)| format!("{t} s: {:.1} MiB", *kib as f64 / 1024.0))
            .collect();
        println!(
            "VmRSS over {:.0} s of replay at 30 states/s, 2 clients: {}",
            soak.as_secs_f64(),
            shown.join(", ")
        );
    });
}
