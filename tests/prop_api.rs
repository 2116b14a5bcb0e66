//! Property test for the HTTP API: random JSON bodies, query strings and path segments on
//! every route of the real server (127.0.0.1, a SQLite journal, a tracker to name pieces
//! on) never get a 500 and never cost the server a connection (a handler that panics
//! drops it). Every refusal under /api is a 4xx with a reason.
//!
//! The routes are read from the router's source (`src/web`), so a route added there and
//! not here fails [`every_route_of_the_router_is_fuzzed`] instead of going untested.

mod common;

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use aide::web::feed::{Publisher, Source};
use aide::web::{AppState, Setup, demo};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// How a route takes its input.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Input {
    /// Query string only.
    Query,
    /// A JSON body (and a query string, which it should ignore).
    Body,
}

/// What a field the handler reads holds.
#[derive(Debug, Clone, Copy)]
enum Field {
    /// A piece's id or a point "x,y".
    End,
    Piece,
    Side,
    Command,
    Number,
    Bool,
    /// Two words, as `"combat": [attacker, defender]`.
    Pair,
    Notation,
    /// A roll id, "r" and 16 hex digits or a number.
    Seed,
    /// "delay" or "jump".
    AlterKind,
    /// A One Hour Wargames morale test: `{"unit": UNIT, "hits": N, "commander_lost": B}`.
    Morale,
}

use Field::*;

/// The fields a route reads, by name.
type Schema = &'static [(&'static str, Field)];

/// Every route the server has, as the client sees it: method, path (`{…}` for a path
/// parameter), what it reads and the fields it reads (for a roll, `notation`, `combat`,
/// `bombard` and `morale` are alternatives: one is sent).
const ROUTES: &[(&str, &str, Input, Schema)] = &[
    ("get", "/", Input::Query, &[]),
    ("get", "/app.js", Input::Query, &[]),
    ("get", "/style.css", Input::Query, &[]),
    ("get", "/map.svg", Input::Query, &[]),
    ("get", "/qr.svg", Input::Query, &[]),
    ("get", "/seat.js", Input::Query, &[]),
    ("get", "/manifest.webmanifest", Input::Query, &[]),
    ("get", "/icon.svg", Input::Query, &[]),
    ("get", "/icon-192.png", Input::Query, &[]),
    ("get", "/icon-512.png", Input::Query, &[]),
    // A seat's token comes as `seat=` (or a bearer header); the fuzzed table is open.
    ("get", "/api/seat", Input::Query, &[("seat", Side)]),
    ("get", "/api/seats", Input::Query, &[("seat", Side)]),
    ("get", "/ws", Input::Query, &[]),
    ("get", "/api/state", Input::Query, &[]),
    ("get", "/api/scenario", Input::Query, &[]),
    ("get", "/api/check/{id}", Input::Query, &[]),
    (
        "get",
        "/api/measure",
        Input::Query,
        &[("from", End), ("to", End)],
    ),
    (
        "get",
        "/api/sight",
        Input::Query,
        &[("from", End), ("to", End)],
    ),
    (
        "post",
        "/api/roll",
        Input::Body,
        &[
            ("notation", Notation),
            ("combat", Pair),
            ("bombard", Pair),
            ("morale", Morale),
            ("seed", Seed),
        ],
    ),
    ("get", "/api/chits", Input::Query, &[("viewer", Side)]),
    ("post", "/api/chits/draw", Input::Body, &[("viewer", Side)]),
    (
        "post",
        "/api/chits/alter",
        Input::Body,
        &[
            ("viewer", Side),
            ("kind", AlterKind),
            ("hq", Command),
            ("command", Command),
            ("in_range", Bool),
        ],
    ),
    (
        "post",
        "/api/chits/finish",
        Input::Body,
        &[("viewer", Side)],
    ),
    (
        "post",
        "/api/chits/end-turn",
        Input::Body,
        &[("viewer", Side)],
    ),
    ("get", "/api/log", Input::Query, &[]),
    ("get", "/api/log/{seq}", Input::Query, &[]),
    ("get", "/api/evidence.jpg", Input::Query, &[("seat", Side)]),
    ("get", "/api/log/{seq}/picture.jpg", Input::Query, &[]),
    ("get", "/api/camera-check", Input::Query, &[("seat", Side)]),
    (
        "get",
        "/api/camera-check.jpg",
        Input::Query,
        &[("seat", Side)],
    ),
    (
        "post",
        "/api/identify",
        Input::Body,
        &[("unit", Piece), ("x_in", Number), ("y_in", Number)],
    ),
    (
        "post",
        "/api/veto",
        Input::Body,
        &[("x_in", Number), ("y_in", Number)],
    ),
    (
        "post",
        "/api/place",
        Input::Body,
        &[
            ("unit", Piece),
            ("x_in", Number),
            ("y_in", Number),
            ("heading_deg", Number),
        ],
    ),
    ("post", "/api/unplace", Input::Body, &[("unit", Piece)]),
];

/// `(method, path)` of every `.route("path", method(…))` in src/web, and the prefixes of
/// every `.nest("prefix", …)`. Read from the source because axum's `Router` does not
/// list its routes.
fn router_source_routes() -> (BTreeSet<(String, String)>, Vec<String>) {
    let mut routes = BTreeSet::new();
    let mut nests = Vec::new();
    let mut files = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web")];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices(".nest(") {
            nests.push(first_literal(&text[at..]).to_owned());
        }
        for (at, _) in text.match_indices(".route(") {
            let call = balanced(&text[at + ".route".len()..]);
            let route = first_literal(call).to_owned();
            // Method routers at the call's own depth: `get(…)`, `get(…).post(…)`.
            let mut depth = 0;
            for (i, c) in call.char_indices() {
                match c {
                    '(' | '{' | '[' => depth += 1,
                    ')' | '}' | ']' => depth -= 1,
                    _ => {}
                }
                for method in ["get", "post", "put", "patch", "delete"] {
                    let after = &call[i..];
                    let word_start = i == 0
                        || !call[..i]
                            .chars()
                            .next_back()
                            .is_some_and(|p| p.is_alphanumeric() || p == '_' || p == ':');
                    if depth == 1
                        && word_start
                        && after.starts_with(method)
                        && after[method.len()..].starts_with('(')
                    {
                        routes.insert((method.to_owned(), route.clone()));
                    }
                }
            }
        }
    }
    (routes, nests)
}

/// `text` from its first `(` to the matching `)`.
fn balanced(text: &str) -> &str {
    let start = text.find('(').unwrap();
    let mut depth = 0;
    for (i, c) in text[start..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &text[start..=start + i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced call: {}", &text[..text.len().min(80)])
}

fn first_literal(text: &str) -> &str {
    let start = text.find('"').unwrap() + 1;
    let end = start + text[start..].find('"').unwrap();
    &text[start..end]
}

#[test]
fn every_route_of_the_router_is_fuzzed() {
    let (routes, nests) = router_source_routes();
    assert!(
        routes.len() >= 15,
        "the router's routes were not found: {routes:?}"
    );
    // A route is fuzzed when a ROUTES entry of its method is its path, or its path
    // under one of the router's nest prefixes.
    let fuzzed = |method: &str, path: &str| {
        ROUTES.iter().any(|(m, p, _, _)| {
            *m == method
                && (*p == path
                    || nests
                        .iter()
                        .any(|n| p.strip_prefix(n.as_str()) == Some(path)))
        })
    };
    let missing: Vec<_> = routes.iter().filter(|(m, p)| !fuzzed(m, p)).collect();
    assert!(missing.is_empty(), "routes not in ROUTES: {missing:?}");
    let stale: Vec<_> = ROUTES
        .iter()
        .filter(|(m, p, _, _)| {
            !routes.iter().any(|(rm, rp)| {
                rm == m
                    && (rp == p
                        || nests
                            .iter()
                            .any(|n| p.strip_prefix(n.as_str()) == Some(rp.as_str())))
            })
        })
        .collect();
    assert!(stale.is_empty(), "ROUTES not in the router: {stale:?}");
}

/// The server, its runtime, and clients on many loopback addresses: the server allows
/// one address 120 requests in a burst, and the fuzz makes more.
struct Fuzzed {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    clients: Vec<reqwest::Client>,
    next_client: AtomicUsize,
    /// Words the server knows (piece, unit, side, command ids), so that bodies reach past
    /// the "unknown id" refusals into the rules.
    words: Vec<String>,
    pieces: Vec<String>,
    sides: Vec<String>,
    commands: Vec<String>,
    _journal: tempfile::TempDir,
}

fn server() -> &'static Fuzzed {
    static SERVER: OnceLock<Fuzzed> = OnceLock::new();
    SERVER.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let scenario = demo::scenario().unwrap();
        let tables = demo::tables(&scenario).unwrap();
        let shared = Arc::new(scenario.clone());
        let journal = tempfile::tempdir().unwrap();
        let mut recorder =
            aide::journal::Recorder::open(&journal.path().join("fuzz.db"), shared.clone()).unwrap();
        for (k, table) in tables.iter().enumerate() {
            recorder.observe(table, k as i64 * 1000).unwrap();
        }
        let (publisher, rx) = Publisher::new(tables[0].clone(), Source::Camera);
        let tracker = aide::track::Tracker::resume(
            shared.clone(),
            aide::track::TrackerConfig::default(),
            tables[0].clone(),
        );
        let namer = aide::live::Namer {
            tracker: Arc::new(Mutex::new(tracker)),
            publisher,
        };
        let pieces: Vec<String> = scenario.units.iter().map(|u| u.id.clone()).collect();
        let sides: Vec<String> = scenario.sides.iter().map(|s| s.id.clone()).collect();
        let commands: Vec<String> = scenario.commands.iter().map(|c| c.id.clone()).collect();
        let words = [pieces.clone(), sides.clone(), commands.clone()].concat();
        let state = AppState::new(
            Setup {
                scenario,
                map_svg: Some(demo::MAP_SVG.to_owned()),
                terrain_geojson: demo::TERRAIN_GEOJSON.to_owned(),
                recorder: Some(recorder),
                identify: Some(Arc::new(namer)),
                url: "http://127.0.0.1/".into(),
                camera: None,
            },
            rx,
        )
        .unwrap();
        let addr = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(aide::web::serve(listener, state));
            addr
        });
        let clients = (2..250)
            .map(|i| {
                reqwest::Client::builder()
                    .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, i)))
                    .build()
                    .unwrap()
            })
            .collect();
        Fuzzed {
            runtime,
            addr,
            clients,
            next_client: AtomicUsize::new(0),
            words,
            pieces,
            sides,
            commands,
            _journal: journal,
        }
    })
}

/// Field names the handlers read.
const KEYS: &[&str] = &[
    "notation",
    "combat",
    "bombard",
    "seed",
    "viewer",
    "kind",
    "hq",
    "command",
    "in_range",
    "unit",
    "x_in",
    "y_in",
    "from",
    "to",
    "seat",
    "morale",
    "hits",
    "commander_lost",
];

/// Strings worth trying: the server's own ids, points, roll ids, notations, kinds.
fn word() -> impl Strategy<Value = String> {
    let known = prop::sample::select(server().words.clone());
    prop_oneof![
        3 => known,
        1 => prop::sample::select(vec![
            "3d6 hits 4+ -1", "d6", "2d6+1", "1000000000d6", "0d6", "d0", "99999999999d6",
            "r00000000000000ff", "12345", "-1", "delay", "jump", "", " ", "12.5,8",
            "1e308,1e308", "-1e308,5", "nan,nan", "inf,1", "0,0", "36,24", "1,2,3", ",",
        ]).prop_map(str::to_owned),
        1 => (-1e4f64..1e4, -1e4f64..1e4).prop_map(|(x, y)| format!("{x},{y}")),
        2 => "\\PC{0,16}",
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        (-100.0f64..100.0).prop_map(Value::from),
        prop::num::f64::NORMAL.prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
    ]
}

/// Any JSON, with the handlers' own keys and words likelier than noise.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        number(),
        word().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec(
                (
                    prop_oneof![3 => prop::sample::select(KEYS).prop_map(str::to_owned), 1 => "\\PC{0,6}"],
                    inner
                ),
                0..5
            )
            .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A value for `field`: mostly of its kind, now and then anything at all.
fn value(field: Field) -> BoxedStrategy<Value> {
    let right = match field {
        End => prop_oneof![
            2 => prop::sample::select(server().pieces.clone()),
            1 => (-5.0..45.0f64, -5.0..30.0f64).prop_map(|(x, y)| format!("{x:.2},{y:.2}")),
            1 => word(),
        ]
        .prop_map(Value::from)
        .boxed(),
        Piece => known(&server().pieces),
        Side => known(&server().sides),
        Command => known(&server().commands),
        Number => prop_oneof![
            3 => (-5.0..45.0f64).prop_map(Value::from),
            1 => number(),
        ]
        .boxed(),
        Bool => any::<bool>().prop_map(Value::from).boxed(),
        // A piece against itself now and then.
        Pair => (
            known(&server().pieces),
            known(&server().pieces),
            prop::bool::weighted(0.15),
        )
            .prop_map(|(a, b, same)| Value::from(vec![a.clone(), if same { a } else { b }]))
            .boxed(),
        Notation => prop_oneof![
            2 => "[0-9]{0,3}d[0-9]{0,3}( hits [0-9]\\+)?( [+-][0-9]{1,2})?",
            1 => word(),
        ]
        .prop_map(Value::from)
        .boxed(),
        Seed => prop_oneof![
            any::<u64>().prop_map(|n| Value::from(format!("r{n:016x}"))),
            any::<u64>().prop_map(Value::from),
            word().prop_map(Value::from),
        ]
        .boxed(),
        AlterKind => prop::sample::select(vec!["delay", "jump", "Delay", "skip"])
            .prop_map(Value::from)
            .boxed(),
        // Hits around the rule's limit of 8, now and then any number.
        Morale => (
            known(&server().pieces),
            prop_oneof![3 => (0u32..12).prop_map(Value::from), 1 => number()],
            prop::option::weighted(0.5, any::<bool>()),
        )
            .prop_map(|(unit, hits, lost)| {
                let mut m = Map::new();
                m.insert("unit".to_owned(), unit);
                m.insert("hits".to_owned(), hits);
                if let Some(lost) = lost {
                    m.insert("commander_lost".to_owned(), Value::from(lost));
                }
                Value::Object(m)
            })
            .boxed(),
    };
    prop_oneof![12 => right, 1 => json()].boxed()
}

/// One of `words` mostly, else any word.
fn known(words: &[String]) -> BoxedStrategy<Value> {
    prop_oneof![4 => prop::sample::select(words.to_vec()), 1 => word()]
        .prop_map(Value::from)
        .boxed()
}

/// The fields a handler reads, each present or (now and then) missing, of its kind or
/// (now and then) not, and now and then a field it does not know: most requests pass the
/// extractor and reach the handler's own checks. A roll sends one of its alternatives.
fn fields(route: usize) -> BoxedStrategy<Map<String, Value>> {
    let (_, path, _, schema) = ROUTES[route];
    // A roll's four alternatives are each sent a quarter of the time: two rolls in
    // five carry exactly one, the others none or two (refused); a seed goes with a
    // quarter of them.
    let present = if path == "/api/roll" { 0.25 } else { 0.95 };
    let each: Vec<_> = schema
        .iter()
        .map(|&(name, field)| {
            prop::option::weighted(present, value(field)).prop_map(move |v| (name, v))
        })
        .collect();
    let extra = prop::option::weighted(0.05, ("\\PC{0,6}", json()));
    (each, extra, prop::bool::weighted(0.15))
        .prop_map(|(each, extra, same)| {
            let mut map: Map<String, Value> = each
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
                .collect();
            if let Some((k, v)) = extra {
                map.insert(k, v);
            }
            // A measurement from a piece or point to itself now and then.
            if let (true, Some(from)) = (same, map.get("from").cloned()) {
                map.insert("to".to_owned(), from);
            }
            map
        })
        .boxed()
}

/// The bytes sent as a body, and the content type they are sent with.
fn body(route: usize) -> impl Strategy<Value = (Vec<u8>, Option<&'static str>)> {
    let json_type = Some("application/json");
    let shaped = move || fields(route).prop_map(|m| Value::Object(m).to_string().into_bytes());
    prop_oneof![
        12 => shaped().prop_map(move |b| (b, json_type)),
        2 => json().prop_map(move |v| (v.to_string().into_bytes(), json_type)),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(move |b| (b, json_type)),
        1 => shaped().prop_map(|b| (b, None)),
        1 => shaped().prop_map(|b| (b, Some("text/plain"))),
    ]
}

/// A query string: the route's fields as key=value, percent-encoded, or raw noise.
fn query(route: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        6 => fields(route).prop_map(|m| {
            m.into_iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    format!("{}={}", encode(&k), encode(&v))
                })
                .collect::<Vec<_>>()
                .join("&")
        }),
        1 => "[a-zA-Z0-9=&%+;,._~-]{0,24}",
    ]
}

fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One request to one route.
#[derive(Debug, Clone)]
struct Call {
    route: usize,
    /// Replaces the route's `{…}` parameter.
    segment: String,
    query: String,
    body: Vec<u8>,
    content_type: Option<&'static str>,
}

/// A request to every route, each with its own input.
fn calls() -> impl Strategy<Value = Vec<Call>> {
    let one = |route: usize| {
        let segment = prop_oneof![
            3 => word(),
            1 => any::<i64>().prop_map(|n| n.to_string()),
            2 => (0i64..20).prop_map(|n| n.to_string()),
        ];
        (segment, query(route), body(route)).prop_map(
            move |(segment, query, (body, content_type))| Call {
                route,
                segment,
                query,
                body,
                content_type,
            },
        )
    };
    (0..ROUTES.len()).map(one).collect::<Vec<_>>()
}

/// Send `call`; its status, or why no answer came.
async fn send(
    fuzzed: &Fuzzed,
    client: &reqwest::Client,
    call: &Call,
) -> Result<(u16, Vec<u8>), String> {
    let (method, path, input, _) = ROUTES[call.route];
    let path = match (path.find('{'), path.find('}')) {
        (Some(a), Some(b)) => format!("{}{}{}", &path[..a], encode(&call.segment), &path[b + 1..]),
        _ => path.to_owned(),
    };
    let url = format!("http://{}{path}?{}", fuzzed.addr, call.query);
    let mut request = match method {
        "get" => client.get(&url),
        "post" => client.post(&url),
        other => panic!("no fuzz for method {other}"),
    };
    if input == Input::Body {
        if let Some(t) = call.content_type {
            request = request.header("content-type", t);
        }
        request = request.body(call.body.clone());
    }
    let response = request.send().await.map_err(|e| format!("{e:?}"))?;
    let status = response.status().as_u16();
    let bytes = response.bytes().await.map_err(|e| format!("{e:?}"))?;
    Ok((status, bytes.to_vec()))
}

proptest! {
    // Each case sends one request to every route: 64 cases are ~1,300 requests.
    #![proptest_config(common::proptest_cases(64))]

    #[test]
    fn no_route_answers_500_or_drops_the_connection(calls in calls()) {
        let fuzzed = server();
        let client = &fuzzed.clients
            [fuzzed.next_client.fetch_add(1, Ordering::Relaxed) % fuzzed.clients.len()];
        for call in &calls {
            let (_, path, _, _) = ROUTES[call.route];
            let answer = fuzzed.runtime.block_on(send(fuzzed, client, call));
            let (status, body) = match answer {
                Ok(answer) => answer,
                Err(e) => return Err(TestCaseError::fail(format!(
                    "{path}: no answer (a handler panicked?): {e}\n{call:?}"
                ))),
            };
            prop_assert!(status < 500, "{path}: {status} {}\n{call:?}", String::from_utf8_lossy(&body));
            if path.starts_with("/api/") && status >= 400 {
                let reason: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                prop_assert!(
                    reason["error"].as_str().is_some_and(|r| !r.trim().is_empty()),
                    "{path}: {status} without a reason: {}\n{call:?}",
                    String::from_utf8_lossy(&body)
                );
            }
        }
    }
}
