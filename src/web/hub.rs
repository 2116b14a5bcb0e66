//! The pipeline from the feed to the clients: each new stable table is checked by the
//! rules (on the blocking pool, never on the async runtime), serialised once per seat
//! (each seat's message is built from what it may know: [`crate::seat::view`]), and
//! broadcast to every WebSocket client, each of which sends the message of its seat.
//!
//! Slow clients are dropped, not waited for: the broadcast channel is a bounded ring per
//! client; a client that falls [`CLIENT_QUEUE`] messages behind is told why and closed,
//! while everyone else carries on. A phone that reconnects gets the current state at once.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use serde::Serialize;
use tokio::sync::broadcast;

use super::AppState;
use super::feed::{FeedView, Source};
use crate::rules::{RuleSet, TableReport};
use crate::scenario::Scenario;
use crate::seat::Seat;
use crate::seat::view::SeatView;
use crate::table::TableState;
use crate::vision::MapPicture;

/// Messages a client may fall behind before it is dropped.
pub const CLIENT_QUEUE: usize = 16;
/// Messages a client may send per second (pings, "hello"); past that it is closed.
pub const CLIENT_MESSAGES_PER_S: u32 = 20;
/// How long one message may take to leave before the client is dropped.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// How often a status message goes out even when nothing changed ("seconds since the
/// last stable view" keeps counting when the camera is lost).
const STATUS_EVERY: Duration = Duration::from_secs(1);

/// The current state of the table, and what each seat knows of it.
#[derive(Debug)]
pub struct Snapshot {
    pub seq: u64,
    pub table: Arc<TableState>,
    pub report: Arc<TableReport>,
    /// Each seat's knowledge of this table, by slot ([`crate::seat::slots`]); only the
    /// umpire's on an open table.
    pub views: Vec<SeatView>,
    /// Each seat's "state" message, by slot, serialised once for all its clients and for
    /// GET /api/state.
    pub messages: Vec<Utf8Bytes>,
    /// The camera's picture of this table (see [`FeedView::picture`]): what GET
    /// /api/evidence.jpg serves, so that no seat gets a picture newer than its view.
    pub picture: Option<Arc<MapPicture>>,
}

impl Snapshot {
    /// The umpire's message: the whole table.
    pub fn message(&self) -> &Utf8Bytes {
        &self.messages[0]
    }
}

/// What the hub broadcasts: one message for everyone (the feed's status), or one per
/// seat (a table), of which each client sends its seat's; `None` for a seat that gets
/// nothing now (spectators, while a table is held back for them).
#[derive(Debug, Clone)]
pub enum Out {
    All(Utf8Bytes),
    PerSeat(Arc<Vec<Option<Utf8Bytes>>>),
}

impl Out {
    fn for_slot(&self, slot: usize) -> Option<Utf8Bytes> {
        match self {
            Out::All(text) => Some(text.clone()),
            Out::PerSeat(messages) => messages[slot.min(messages.len() - 1)].clone(),
        }
    }
}

/// Snapshots held back for spectators at most: with a delay longer than this many
/// stable tables, the oldest held is dropped and spectators skip it (they see the
/// table after it, still on time). A stable table comes every few seconds at most, so
/// 120 hold minutes of play; each is some tens of kB.
pub const DELAYED_KEPT: usize = 120;

/// Spectators' slot among the served seats, when a delay holds their view back.
fn delayed_slot(state: &AppState) -> Option<usize> {
    if state.spectator_delay.is_zero() {
        return None;
    }
    state
        .served_seats()
        .iter()
        .position(|s| *s == Seat::Spectator)
}

/// The feed's health as the page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub source: Source,
    pub fps: f64,
    pub since_stable_s: f64,
    pub clients: usize,
}

pub fn status(view: &FeedView, clients: usize) -> Status {
    Status {
        source: view.source,
        fps: (view.fps * 100.0).round() / 100.0,
        since_stable_s: (view.stable_at.elapsed().as_secs_f64() * 100.0).round() / 100.0,
        clients,
    }
}

#[derive(Serialize)]
struct StateMessage<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    seq: u64,
    /// When the table entered the pipeline, µs since the Unix epoch.
    stable_unix_us: u64,
    status: &'a Status,
    table: crate::seat::view::ShownTable<'a>,
    report: SeatReport<'a>,
}

/// The report as a seat receives it: the umpire's is the report itself, serialised
/// straight from it; a side's is its share, already shaped.
#[derive(Serialize)]
#[serde(untagged)]
enum SeatReport<'a> {
    Whole(&'a TableReport),
    Shaped(serde_json::Value),
}

/// One seat's "state" message for `table`, as the hub sends it to that seat's clients.
pub fn state_message(
    scenario: &Scenario,
    seat: &SeatView,
    table: &TableState,
    report: &TableReport,
    view: &FeedView,
    status: &Status,
) -> String {
    serde_json::to_string(&StateMessage {
        kind: "state",
        seq: view.seq,
        stable_unix_us: view.stable_unix_us,
        status,
        table: seat.table(scenario, table),
        report: if seat.sees_all() {
            SeatReport::Whole(report)
        } else {
            SeatReport::Shaped(seat.report(report))
        },
    })
    .expect("table and report serialise")
}

#[derive(Serialize)]
struct StatusMessage {
    #[serde(rename = "type")]
    kind: &'static str,
    seq: u64,
    status: Status,
}

/// Build the snapshot of one feed view: the rules' report, and for every seat in
/// `seats` (in slot order) its view and its serialised message.
pub fn snapshot(
    scenario: &Scenario,
    rules: &dyn RuleSet,
    seats: &[Seat],
    clients: usize,
    view: &FeedView,
) -> Snapshot {
    let report = rules.check_table(scenario, &view.table);
    let status = status(view, clients);
    let views: Vec<SeatView> = seats
        .iter()
        .map(|seat| SeatView::new(scenario, &view.table, &report, seat.clone()))
        .collect();
    let messages = views
        .iter()
        .map(|seat| state_message(scenario, seat, &view.table, &report, view, &status).into())
        .collect();
    Snapshot {
        seq: view.seq,
        table: view.table.clone(),
        report: Arc::new(report),
        views,
        messages,
        picture: view.picture.clone(),
    }
}

/// Runs until the feed ends: turns feed views into snapshots and broadcasts them.
pub async fn run(state: Arc<AppState>) {
    let mut feed = state.feed.clone();
    let first = feed.borrow().clone();
    let first = record(&state, first).await;
    state.spectators_log_to(first);
    // Snapshots held back for spectators, each with when it is theirs and the journal's
    // newest state once it was stored.
    let mut held: VecDeque<(tokio::time::Instant, Arc<Snapshot>, Option<i64>)> = VecDeque::new();
    let delayed = delayed_slot(&state);
    let mut tick = tokio::time::interval(STATUS_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let due = held.front().map(|(due, ..)| *due);
        tokio::select! {
            changed = feed.changed() => {
                if changed.is_err() {
                    tracing::info!("the feed stopped");
                    return;
                }
                let view = feed.borrow_and_update().clone();
                if view.seq == state.current().seq {
                    status_out(&state, &view);
                    continue;
                }
                let worker = state.clone();
                let checked = view.clone();
                let snap = match tokio::task::spawn_blocking(move || {
                    snapshot(&worker.scenario, worker.rules.as_ref(), worker.served_seats(), worker.hub.receiver_count(), &checked)
                }).await {
                    Ok(snap) => Arc::new(snap),
                    Err(e) => {
                        tracing::error!(error = %e, "checking the table failed");
                        continue;
                    }
                };
                // Journal before broadcast: a roll a player makes on seeing this table is
                // then stored after it.
                let stored = record(&state, view).await;
                let mut messages: Vec<Option<Utf8Bytes>> = snap.messages.iter().cloned().map(Some).collect();
                if let Some(slot) = delayed {
                    messages[slot] = None;
                    if held.len() == DELAYED_KEPT {
                        held.pop_front();
                    }
                    held.push_back((tokio::time::Instant::now() + state.spectator_delay, snap.clone(), stored));
                }
                *state.snapshot.write().expect("snapshot lock") = snap;
                // No receivers is fine: nobody is looking.
                let _ = state.hub.send(Out::PerSeat(Arc::new(messages)));
            }
            _ = tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)), if due.is_some() => {
                // A held table's time has come: spectators see it now.
                let (_, snap, stored) = held.pop_front().expect("due only when one is held");
                state.spectators_log_to(stored);
                let slot = delayed.expect("held only with a delay");
                let mut messages = vec![None; snap.messages.len()];
                messages[slot] = Some(snap.messages[slot].clone());
                *state.delayed.write().expect("snapshot lock") = snap;
                let _ = state.hub.send(Out::PerSeat(Arc::new(messages)));
            }
            _ = tick.tick() => {
                let view = feed.borrow().clone();
                status_out(&state, &view);
            }
        }
    }
}

/// Store a feed view's table in the journal, when the server keeps one, off the runtime,
/// after the tracker's corrections since the last one, with the camera's picture of it
/// (see [`Journaling::take`](super::journaling::Journaling::take)). Returns the
/// journal's newest state after it (the table itself when it was stored; a table in
/// which nothing changed is not).
async fn record(state: &AppState, view: FeedView) -> Option<i64> {
    let journal = state.journal.clone()?;
    let stored =
        tokio::task::spawn_blocking(move || journal.lock().expect("journal lock").take(&view))
            .await;
    match stored {
        Ok(Ok(seq)) => seq,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "journal: state not recorded");
            None
        }
        Err(e) => {
            tracing::warn!(error = %e, "journal: worker failed");
            None
        }
    }
}

fn status_out(state: &AppState, view: &FeedView) {
    let message = serde_json::to_string(&StatusMessage {
        kind: "status",
        seq: view.seq,
        status: status(view, state.hub.receiver_count()),
    })
    .expect("status serialises");
    let _ = state.hub.send(Out::All(message.into()));
}

/// One WebSocket client at the seat of `slot`: the current state first, then every
/// broadcast, until the client leaves, falls behind or floods us.
pub async fn client(state: Arc<AppState>, viewer: super::seats::Viewer, mut socket: WebSocket) {
    let slot = viewer.slot;
    let mut rx = state.hub.subscribe();
    let first = state.current_for(&viewer.seat).messages[slot].clone();
    if socket.send(Message::Text(first)).await.is_err() {
        return;
    }
    let mut window = Instant::now();
    let mut received = 0u32;
    let reason = loop {
        tokio::select! {
            out = rx.recv() => match out {
                Ok(out) => {
                    let Some(text) = out.for_slot(slot) else { continue };
                    // A phone that vanished without closing blocks the send once its TCP
                    // window is full: give up on it rather than hold its task forever.
                    match tokio::time::timeout(SEND_TIMEOUT, socket.send(Message::Text(text))).await {
                        Ok(Ok(())) => {}
                        Ok(Err(_)) => return,
                        Err(_) => {
                            tracing::info!("dropping a WebSocket client that stopped reading");
                            return;
                        }
                    }
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::info!(missed = n, "dropping a slow WebSocket client");
                    break "too slow: fell behind the table; reconnect for the current state";
                }
                Err(broadcast::error::RecvError::Closed) => break "server stopping",
            },
            incoming = socket.recv() => match incoming {
                None | Some(Err(_)) => return,
                Some(Ok(Message::Close(_))) => {
                    // Answer the close, as RFC 6455 5.5.1 asks: tungstenite queued the
                    // reply, and the next read sends it and then ends. A phone closing
                    // its page then sees a clean close at once, rather than waiting on a
                    // socket we dropped half-way through the closing handshake.
                    let _ = tokio::time::timeout(SEND_TIMEOUT, socket.recv()).await;
                    return;
                }
                Some(Ok(_)) => {
                    if window.elapsed() >= Duration::from_secs(1) {
                        window = Instant::now();
                        received = 0;
                    }
                    received += 1;
                    if received > CLIENT_MESSAGES_PER_S {
                        break "too many messages: at most 20 a second";
                    }
                }
            },
        }
    };
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code: axum::extract::ws::close_code::POLICY,
            reason: reason.into(),
        })))
        .await;
}
