//! The live table server: REST and WebSocket over axum, and the phone page.
//!
//! The server is fed table states by a [`feed::Feed`] (the built-in demo replay, a state
//! file, later the camera pipeline); it never sees frames. Every handler is thin: it reads
//! the current [`hub::Snapshot`] or asks the rules on the blocking pool, and answers JSON.
//! Malformed input is a 4xx with `{"error": reason}`; unknown piece ids are 404 naming the
//! id. The page itself (web/) is embedded in the binary: no build step, no files to ship.

mod api;
pub mod camera_check;
pub mod demo;
mod evidence;
pub mod feed;
mod guard;
pub mod hub;
mod journaling;
pub mod qr;
mod seats;

pub use seats::seat_urls;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State, WebSocketUpgrade};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::sync::{broadcast, watch};

use crate::dice::chits::{Chit, ChitCup, ChitError, Hq, Turn};
use crate::journal::{JournalError, Recorder};
use crate::rules::RuleSet;
use crate::rules::pub_battles::PubBattles;
use crate::scenario::Scenario;
use crate::seat::{Seat, Seats};
use feed::FeedView;
use hub::Snapshot;

/// Largest request body accepted: a roll or a chit request is a few hundred bytes.
pub const BODY_LIMIT: usize = 16 * 1024;
/// REST requests one address may make per second, sustained…
pub const REQUESTS_PER_S: f64 = 30.0;
/// …and in a burst (a page load asks for several things at once).
pub const REQUEST_BURST: f64 = 120.0;

/// Addresses the rate limiter remembers before it forgets those that have refilled.
const MAX_TRACKED_ADDRESSES: usize = 1024;

/// Errors starting the server.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("the chit cup of this scenario: {0}")]
    Cup(#[from] ChitError),
    #[error("the terrain of this scenario is not JSON: {0}")]
    Terrain(serde_json::Error),
    #[error(transparent)]
    Secret(#[from] crate::seat::SecretError),
    #[error(transparent)]
    StoredSecret(#[from] crate::seat::StoredSecretError),
    #[error("the journal: {0}")]
    Journal(#[from] JournalError),
}

/// Whether phones sit at seats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seating {
    /// Every client is the umpire: solo play, a demo, a table with nothing to hide.
    Open,
    /// A client claims a seat with its token; without one it is a spectator.
    Seated,
}

/// Everything the handlers share.
pub struct AppState {
    pub scenario: Arc<Scenario>,
    pub rules: Box<dyn RuleSet>,
    /// The Pub Battles engine, for combat rolls and field-of-fire drawing.
    pub pub_battles: PubBattles,
    /// The map image (SVG text), served at /map.svg.
    pub map_svg: Option<String>,
    /// The terrain GeoJSON as the scenario ships it, for the page to draw.
    pub terrain_geojson: serde_json::Value,
    pub feed: watch::Receiver<FeedView>,
    pub snapshot: RwLock<Arc<Snapshot>>,
    /// How far behind the table spectators are (`--spectator-delay`): zero, or the
    /// delay of a streamed game, so a stream shows no move before the players have made
    /// their next decisions on it. Seats (sides, umpire) are never delayed.
    pub spectator_delay: std::time::Duration,
    /// The snapshot spectators see: [`Self::snapshot`] as it was `spectator_delay` ago
    /// (the hub keeps the snapshots in between, [`hub::DELAYED_KEPT`] at most).
    pub delayed: RwLock<Arc<Snapshot>>,
    /// The journal's newest state spectators may read in the log: the one stored with
    /// the table they see now (with a delay; else every state).
    spectators_log_seq: std::sync::atomic::AtomicI64,
    pub hub: broadcast::Sender<hub::Out>,
    pub cup: Mutex<ChitCup>,
    pub seating: Seating,
    /// The game's secrets: seat tokens and the key that hides chit draws.
    pub seats: Seats,
    /// Every seat, in slot order ([`crate::seat::slots`]).
    slots: Vec<Seat>,
    /// The game's journal, when the server keeps one.
    pub journal: Option<Arc<Mutex<journaling::Journaling>>>,
    /// Where a person's naming of a piece goes: the tracking feed, when there is one.
    pub identify: Option<Arc<dyn feed::Identify>>,
    /// The address phones should open, and its QR code.
    pub url: String,
    pub qr_svg: String,
    /// The page's camera check, when a camera watches the table.
    pub camera: Option<camera_check::CameraCheck>,
    limiter: Mutex<HashMap<IpAddr, Bucket>>,
    /// Open WebSocket connections by address.
    sockets: Mutex<HashMap<IpAddr, usize>>,
}

/// What a server needs besides its feed.
pub struct Setup {
    pub scenario: Scenario,
    pub map_svg: Option<String>,
    pub terrain_geojson: String,
    pub recorder: Option<Recorder>,
    /// The tracking feed's requests, when the table is watched (not a scripted replay).
    pub identify: Option<Arc<dyn feed::Identify>>,
    pub url: String,
    /// What the camera feed last saw, for the page's camera check (a watched table).
    pub camera: Option<Arc<crate::live::CameraTap>>,
}

impl AppState {
    /// The state of an open table ([`Seating::Open`]) for `scenario` fed by `feed`.
    pub fn new(setup: Setup, feed: watch::Receiver<FeedView>) -> Result<Arc<Self>, WebError> {
        Self::with_seating(setup, Seating::Open, feed)
    }

    /// The state of a server for `scenario` fed by `feed`, its phones seated as
    /// `seating` says. Checks the first table here, before the runtime starts serving.
    /// A journal that holds the game's secrets and chit cup gives them back (a restart
    /// keeps the seats and the turn); a new game stores new ones in it.
    pub fn with_seating(
        setup: Setup,
        seating: Seating,
        feed: watch::Receiver<FeedView>,
    ) -> Result<Arc<Self>, WebError> {
        Self::with_spectator_delay(setup, seating, std::time::Duration::ZERO, feed)
    }

    /// [`Self::with_seating`], with spectators shown the table as it was `delay` ago.
    pub fn with_spectator_delay(
        setup: Setup,
        seating: Seating,
        spectator_delay: std::time::Duration,
        feed: watch::Receiver<FeedView>,
    ) -> Result<Arc<Self>, WebError> {
        let scenario = setup.scenario;
        let mut recorder = setup.recorder;
        let (seats, stored_cup) = match &mut recorder {
            Some(recorder) => {
                let journal = recorder.journal();
                let seats = match Seats::from_stored(&scenario, &journal.secrets()?)? {
                    Some(seats) => seats.with_spectator_token()?,
                    None => Seats::generate(&scenario)?,
                };
                // New secrets (a new game, or the spectators' token of a game stored
                // before they had one) are stored; stored ones keep their values, and
                // another server's stored first win.
                journal.add_secrets(&seats.stored())?;
                let seats = Seats::from_stored(&scenario, &journal.secrets()?)?.unwrap_or(seats);
                (seats, journal.cup::<ChitCup>()?)
            }
            None => (Seats::generate(&scenario)?, None),
        };
        let cup = match stored_cup {
            Some(cup) => cup,
            None => chit_cup(&scenario)?,
        };
        let terrain_geojson = if setup.terrain_geojson.trim().is_empty() {
            serde_json::json!({"type": "FeatureCollection", "features": []})
        } else {
            serde_json::from_str(&setup.terrain_geojson).map_err(WebError::Terrain)?
        };
        let (hub, _) = broadcast::channel(hub::CLIENT_QUEUE);
        let qr_svg = qr::svg(&setup.url);
        let rules = crate::rules::for_scenario(&scenario);
        let slots = crate::seat::slots(&scenario);
        let served = match seating {
            Seating::Open => &slots[..1],
            Seating::Seated => &slots[..],
        };
        let first = Arc::new(hub::snapshot(
            &scenario,
            rules.as_ref(),
            served,
            0,
            &feed.borrow().clone(),
        ));
        let state = Arc::new(Self {
            rules,
            pub_battles: PubBattles::new(scenario.rules),
            scenario: Arc::new(scenario),
            map_svg: setup.map_svg,
            terrain_geojson,
            snapshot: RwLock::new(first.clone()),
            spectator_delay,
            delayed: RwLock::new(first),
            spectators_log_seq: std::sync::atomic::AtomicI64::new(if spectator_delay.is_zero() {
                i64::MAX
            } else {
                0
            }),
            feed,
            hub,
            cup: Mutex::new(cup),
            seating,
            seats,
            slots,
            journal: recorder.map(|r| Arc::new(Mutex::new(journaling::Journaling::new(r)))),
            identify: setup.identify,
            url: setup.url,
            qr_svg,
            camera: setup.camera.map(camera_check::CameraCheck::new),
            limiter: Mutex::new(HashMap::new()),
            sockets: Mutex::new(HashMap::new()),
        });
        Ok(state)
    }

    /// The seats the hub builds messages for: all of them, or the umpire's alone on an
    /// open table.
    pub fn served_seats(&self) -> &[Seat] {
        match self.seating {
            Seating::Open => &self.slots[..1],
            Seating::Seated => &self.slots,
        }
    }

    /// The current snapshot (cheap: an Arc).
    pub fn current(&self) -> Arc<Snapshot> {
        self.snapshot.read().expect("snapshot lock").clone()
    }

    /// Spectators now see the table stored as journal state `seq` (or before it).
    pub(crate) fn spectators_log_to(&self, seq: Option<i64>) {
        if let Some(seq) = seq.filter(|_| !self.spectator_delay.is_zero()) {
            self.spectators_log_seq
                .store(seq, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Whether the seat may read journal state `seq`: spectators of a delayed table only
    /// those of the tables they have been shown.
    pub fn shows_log_state(&self, seat: &Seat, seq: i64) -> bool {
        *seat != Seat::Spectator
            || seq
                <= self
                    .spectators_log_seq
                    .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The snapshot a seat sees: a spectator's is [`Self::spectator_delay`] behind.
    pub fn current_for(&self, seat: &Seat) -> Arc<Snapshot> {
        if *seat == Seat::Spectator && !self.spectator_delay.is_zero() {
            self.delayed.read().expect("snapshot lock").clone()
        } else {
            self.current()
        }
    }
}

/// The scenario's cup: one chit per command that has one, every command HQ able to Alter
/// at its rating.
fn chit_cup(scenario: &Scenario) -> Result<ChitCup, ChitError> {
    let chits = scenario
        .commands
        .iter()
        .filter(|c| c.chit)
        .map(|c| Chit {
            command: c.id.clone(),
            side: c.side.clone(),
        })
        .collect();
    let hqs = scenario
        .commands
        .iter()
        .map(|c| Hq {
            command: c.id.clone(),
            side: c.side.clone(),
            rating: c.alter,
            status: Default::default(),
            army: false,
        })
        .collect();
    ChitCup::new(Turn::new(1, 1).expect("day 1 turn 1 exists"), chits, hqs)
}

/// A token bucket per client address.
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// REST rate limit per address: a phone polling in a loop must not starve the table.
async fn limit_rate(
    State(state): State<Arc<AppState>>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let allowed = {
        let mut buckets = state.limiter.lock().expect("limiter lock");
        let now = Instant::now();
        if buckets.len() > MAX_TRACKED_ADDRESSES {
            // A full bucket is the same as no bucket: forget addresses that have refilled.
            buckets.retain(|_, b| {
                now.duration_since(b.at).as_secs_f64() * REQUESTS_PER_S + b.tokens < REQUEST_BURST
            });
        }
        let bucket = buckets.entry(addr.ip()).or_insert(Bucket {
            tokens: REQUEST_BURST,
            at: now,
        });
        bucket.tokens = (bucket.tokens
            + now.duration_since(bucket.at).as_secs_f64() * REQUESTS_PER_S)
            .min(REQUEST_BURST);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            true
        } else {
            false
        }
    };
    if allowed {
        next.run(request).await
    } else {
        api::ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many requests: at most {REQUESTS_PER_S} a second from one address"),
        )
        .into_response()
    }
}

/// WebSocket connections one address may hold: a phone needs one (two while it
/// reconnects); the load test holds 20 from loopback.
pub const SOCKETS_PER_ADDRESS: usize = 32;
/// WebSocket connections in all: a pub table is a handful of phones and a stream.
pub const SOCKETS_IN_ALL: usize = 256;

/// One open WebSocket, counted while it lives.
struct SocketSlot {
    state: Arc<AppState>,
    ip: IpAddr,
}

impl SocketSlot {
    /// Count a new connection from `ip`, or say why not.
    fn take(state: &Arc<AppState>, ip: IpAddr) -> Result<Self, String> {
        let mut sockets = state.sockets.lock().expect("sockets lock");
        let all: usize = sockets.values().sum();
        let mine = sockets.get(&ip).copied().unwrap_or(0);
        if mine >= SOCKETS_PER_ADDRESS {
            return Err(format!(
                "too many live connections: at most {SOCKETS_PER_ADDRESS} from one address"
            ));
        }
        if all >= SOCKETS_IN_ALL {
            return Err(format!(
                "too many live connections: at most {SOCKETS_IN_ALL} in all"
            ));
        }
        *sockets.entry(ip).or_default() += 1;
        Ok(Self {
            state: state.clone(),
            ip,
        })
    }
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let mut sockets = self.state.sockets.lock().expect("sockets lock");
        if let Some(n) = sockets.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                sockets.remove(&self.ip);
            }
        }
    }
}

/// GET /ws: the live feed of the viewer's seat (its token in `?seat=`).
async fn ws(
    State(state): State<Arc<AppState>>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    viewer: seats::Viewer,
    upgrade: WebSocketUpgrade,
) -> Response {
    let slot = match SocketSlot::take(&state, addr.ip()) {
        Ok(slot) => slot,
        Err(reason) => {
            return api::ApiError::new(StatusCode::TOO_MANY_REQUESTS, reason).into_response();
        }
    };
    upgrade
        .max_message_size(4 * 1024)
        .on_upgrade(move |socket| async move {
            hub::client(state, viewer, socket).await;
            drop(slot);
        })
}

/// A file of the page, embedded in the binary: text or bytes (the icons).
fn asset(content_type: &'static str, body: impl IntoResponse) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// GET /map.svg: the scenario's map, under a policy that runs none of its scripts.
async fn map_svg(State(state): State<Arc<AppState>>) -> Response {
    match &state.map_svg {
        Some(svg) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml"),
                (header::CONTENT_SECURITY_POLICY, guard::IMAGE_CSP),
            ],
            svg.clone(),
        )
            .into_response(),
        None => api::ApiError::new(StatusCode::NOT_FOUND, "this scenario has no map image")
            .into_response(),
    }
}

async fn qr_svg(State(state): State<Arc<AppState>>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CONTENT_SECURITY_POLICY, guard::IMAGE_CSP),
        ],
        state.qr_svg.clone(),
    )
        .into_response()
}

/// Every route of the server.
pub fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/state", get(api::state))
        .route("/scenario", get(api::scenario))
        .route("/check/{id}", get(api::check))
        .route("/measure", get(api::measure))
        .route("/sight", get(api::sight))
        .route("/roll", post(api::roll))
        .route("/chits", get(api::chits))
        .route("/chits/draw", post(api::chit_draw))
        .route("/chits/alter", post(api::chit_alter))
        .route("/chits/finish", post(api::chit_finish))
        .route("/chits/end-turn", post(api::chit_end_turn))
        .route("/log", get(api::log))
        .route("/log/{seq}", get(api::log_state))
        .route("/identify", post(api::identify))
        .route("/veto", post(api::veto))
        .route("/place", post(api::place))
        .route("/unplace", post(api::unplace))
        .route("/seat", get(seats::seat))
        .route("/seats", get(seats::seats))
        .route("/camera-check", get(camera_check::report))
        .route("/camera-check.jpg", get(camera_check::picture))
        .route("/evidence.jpg", get(evidence::evidence))
        .route("/log/{seq}/picture.jpg", get(evidence::log_picture))
        .fallback(api::not_found)
        .layer(middleware::from_fn_with_state(state.clone(), limit_rate));
    Router::new()
        .route(
            "/",
            get(|| async {
                asset(
                    "text/html; charset=utf-8",
                    include_str!("../../web/index.html"),
                )
            }),
        )
        .route(
            "/app.js",
            get(|| async {
                asset(
                    "text/javascript; charset=utf-8",
                    include_str!("../../web/app.js"),
                )
            }),
        )
        .route(
            "/seat.js",
            get(|| async {
                asset(
                    "text/javascript; charset=utf-8",
                    include_str!("../../web/seat.js"),
                )
            }),
        )
        .route(
            "/style.css",
            get(|| async {
                asset(
                    "text/css; charset=utf-8",
                    include_str!("../../web/style.css"),
                )
            }),
        )
        // Installable: the manifest and its icons (a home-screen page opens full screen).
        .route(
            "/manifest.webmanifest",
            get(|| async {
                asset(
                    "application/manifest+json",
                    include_str!("../../web/manifest.webmanifest"),
                )
            }),
        )
        .route(
            "/icon.svg",
            get(|| async { asset("image/svg+xml", include_str!("../../web/icon.svg")) }),
        )
        .route(
            "/icon-192.png",
            get(|| async { asset("image/png", &include_bytes!("../../web/icon-192.png")[..]) }),
        )
        .route(
            "/icon-512.png",
            get(|| async { asset("image/png", &include_bytes!("../../web/icon-512.png")[..]) }),
        )
        .route("/map.svg", get(map_svg))
        .route("/qr.svg", get(qr_svg))
        .route("/ws", get(ws))
        .nest("/api", api)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        // gzip when the client takes it: the demo's state JSON goes from 20.7 to 2.1 KB,
        // app.js from 29 to 10 KB (the WebSocket's frames are not compressed).
        .layer(tower_http::compression::CompressionLayer::new())
        .layer(middleware::from_fn_with_state(state.clone(), guard::guard))
        .with_state(state)
}

/// How long a client may take to send a request's headers. A phone sends them in one
/// packet; a client that trickles them a byte at a time (slowloris) holds a connection
/// and its task for nothing, and is cut off.
pub const HEADER_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Serve on `listener` until the task is dropped; the hub task runs beside the server.
///
/// The accept loop is hyper's own rather than `axum::serve`, which sets no timer and so
/// no header read timeout ([`HEADER_READ_TIMEOUT`]).
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<AppState>) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use tower::ServiceExt;

    /// Kills the hub when serving stops, however it stops.
    struct Hub(tokio::task::JoinHandle<()>);
    impl Drop for Hub {
        fn drop(&mut self) {
            self.0.abort();
        }
    }
    let _hub = Hub(tokio::spawn(hub::run(state.clone())));
    let app = router(state);
    loop {
        let (tcp, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors and the like: wait rather than spin.
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        // Small WebSocket frames must leave at once, not wait for Nagle's algorithm.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        let service =
            app.clone()
                .map_request(move |mut request: Request<hyper::body::Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(remote));
                    request.map(axum::body::Body::new)
                });
        tokio::spawn(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(
                    TokioIo::new(tcp),
                    hyper_util::service::TowerToHyperService::new(service),
                )
                .with_upgrades()
                .await;
            if let Err(e) = served {
                tracing::debug!(error = %e, %remote, "connection ended");
            }
        });
    }
}
