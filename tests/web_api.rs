//! The live table server over real HTTP and WebSocket on 127.0.0.1: answers, refusals
//! (with their 4xx codes and reasons) and live pushes.

use std::net::SocketAddr;
use std::time::Duration;

use aide::dice::{Notation, RollId, Roller};
use aide::rules::for_scenario;
use aide::table::TableState;
use aide::web::feed::{Publisher, Source};
use aide::web::{AppState, Setup, demo};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use futures_util::{SinkExt, StreamExt};

struct Server {
    addr: SocketAddr,
    publisher: Publisher,
    tables: Vec<TableState>,
    http: reqwest::Client,
}

impl Server {
    async fn start() -> Self {
        Self::start_with(None).await
    }

    async fn start_with(journal: Option<&std::path::Path>) -> Self {
        let scenario = demo::scenario().unwrap();
        let recorder = journal.map(|p| {
            aide::journal::Recorder::open(p, std::sync::Arc::new(scenario.clone())).unwrap()
        });
        let tables = demo::tables(&scenario).unwrap();
        let (publisher, rx) = Publisher::new(tables[0].clone(), Source::Replay);
        let state = AppState::new(
            Setup {
                scenario,
                map_svg: Some(demo::MAP_SVG.to_owned()),
                terrain_geojson: demo::TERRAIN_GEOJSON.to_owned(),
                recorder,
                identify: None,
                url: "http://127.0.0.1/".into(),
                camera: None,
            },
            rx,
        )
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(aide::web::serve(listener, state));
        Self {
            addr,
            publisher,
            tables,
            http: reqwest::Client::new(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.http.get(self.url(path)).send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap())
    }

    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let r = self
            .http
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap())
    }

    async fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> (u16, Value) {
        let r = self
            .http
            .post(self.url(path))
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap())
    }
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn ws(server: &Server) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", server.addr))
        .await
        .unwrap();
    ws
}

/// The next JSON text message, or the close frame's reason as `{"closed": reason}`.
async fn next_json(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a message within 20 s")
            .expect("stream open")
            .expect("no protocol error");
        match msg {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Close(c) => {
                return json!({"closed": c.map(|c| c.reason.to_string()).unwrap_or_default()});
            }
            _ => {}
        }
    }
}

/// The next "state" message (status messages come once a second in between).
async fn next_state(ws: &mut Ws) -> Value {
    loop {
        let m = next_json(ws).await;
        if m["type"] != "status" {
            return m;
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_and_check_agree_with_the_rules_engine() {
    let server = Server::start().await;
    let (code, state) = server.get("/api/state").await;
    assert_eq!(code, 200);
    assert_eq!(state["type"], "state");
    let pieces = state["table"]["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), server.tables[0].pieces.len());
    assert_eq!(state["status"]["source"], "replay");

    // The same verdicts `aide check --json` prints: the rules engine on the same table.
    let scenario = demo::scenario().unwrap();
    let report = for_scenario(&scenario).check_table(&scenario, &server.tables[0]);
    let expected = serde_json::to_value(&report).unwrap();
    assert_eq!(state["report"], expected);

    let (code, check) = server.get("/api/check/red-2-inf-1").await;
    assert_eq!(code, 200);
    let want = expected["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "red-2-inf-1")
        .unwrap();
    assert_eq!(&check["report"], want);
    // Command range is a third of a mounted move: 7.5 / 3 = 2.5 in.
    assert!(close(check["command_range_in"].as_f64().unwrap(), 2.5));
    // Infantry projects a field of fire: a closed trapezoid of four corners.
    assert_eq!(check["fof"].as_array().unwrap().len(), 5);
    assert_eq!(check["commander"]["id"], "red-2-hq");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn measure_points_and_pieces_by_hand() {
    let server = Server::start().await;
    // 3-4-5 triangle: (10,6) to (13,10) is 5 in; foot 5.25 in, mounted 7.5 in.
    let (code, m) = server.get("/api/measure?from=10,6&to=13,10").await;
    assert_eq!(code, 200, "{m}");
    assert!(close(m["distance_in"].as_f64().unwrap(), 5.0));
    assert!(close(m["foot_moves"].as_f64().unwrap(), 0.9524));
    assert!(close(m["mounted_moves"].as_f64().unwrap(), 0.6667));

    // A point 2 in straight ahead of red-2-inf-1's front edge (heading 0, facing the
    // map's top: front edge at y - depth/2).
    let p = server.tables[0].piece("red-2-inf-1").unwrap();
    assert_eq!(p.pose.heading_deg, 0.0);
    let front_y = p.pose.y_in - p.footprint.depth_in / 2.0;
    let q = format!(
        "/api/measure?from=red-2-inf-1&to={},{}",
        p.pose.x_in,
        front_y - 2.0
    );
    let (code, m) = server.get(&q).await;
    assert_eq!(code, 200, "{m}");
    assert!(close(m["distance_in"].as_f64().unwrap(), 2.0), "{m}");

    // Two pieces side by side, both heading 0: red-2-hq (14, 19) and red-2-gd (17.75,
    // 19) are level, so the gap is the centre distance less half of each frontage.
    let (a, b) = (
        server.tables[0].piece("red-2-hq").unwrap(),
        server.tables[0].piece("red-2-gd").unwrap(),
    );
    assert_eq!((a.pose.heading_deg, b.pose.heading_deg), (0.0, 0.0));
    let gap =
        (b.pose.x_in - a.pose.x_in) - a.footprint.frontage_in / 2.0 - b.footprint.frontage_in / 2.0;
    let (_, m) = server.get("/api/measure?from=red-2-hq&to=red-2-gd").await;
    assert!(
        (m["distance_in"].as_f64().unwrap() - gap).abs() < 1e-4,
        "{m} vs {gap}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sight_is_the_rules_verdict() {
    let server = Server::start().await;
    let (code, s) = server.get("/api/sight?from=blue-2-gd&to=red-1-gren").await;
    assert_eq!(code, 200, "{s}");
    let scenario = demo::scenario().unwrap();
    let t = &server.tables[0];
    let v = for_scenario(&scenario).sight(
        &scenario,
        t,
        t.piece("blue-2-gd").unwrap(),
        t.piece("red-1-gren").unwrap(),
    );
    assert_eq!(s, serde_json::to_value(&v).unwrap());
    // Spotting range is one foot move [3.2].
    assert!(close(s["range_in"].as_f64().unwrap(), 5.25));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_ids_and_malformed_queries_are_refused_with_reasons() {
    let server = Server::start().await;
    let (code, e) = server.get("/api/check/no-such-unit").await;
    assert_eq!(code, 404);
    assert!(e["error"].as_str().unwrap().contains("no-such-unit"), "{e}");

    let (code, e) = server.get("/api/measure?from=red-2-hq&to=ghost").await;
    assert_eq!(code, 404);
    assert!(e["error"].as_str().unwrap().contains("ghost"), "{e}");

    let (code, e) = server.get("/api/measure?from=1,x&to=2,3").await;
    assert_eq!(code, 400);
    assert!(e["error"].as_str().unwrap().contains("not a point"), "{e}");

    let (code, e) = server.get("/api/measure?from=1,2").await;
    assert_eq!(code, 400);
    assert!(e["error"].as_str().unwrap().contains("to"), "{e}");

    let (code, e) = server.get("/api/sight?from=red-2-hq&to=nobody").await;
    assert_eq!(code, 404);
    assert!(e["error"].as_str().unwrap().contains("nobody"), "{e}");

    // A scripted replay's pieces are named by the script, not by a person.
    let (code, e) = server
        .post(
            "/api/identify",
            &json!({"unit": "red-2-inf-1", "x_in": 10.0, "y_in": 10.0}),
        )
        .await;
    assert_eq!(code, 409);
    assert!(
        e["error"].as_str().unwrap().contains("scripted replay"),
        "{e}"
    );

    let (code, e) = server.get("/api/nothing-here").await;
    assert_eq!(code, 404);
    assert!(
        e["error"].as_str().unwrap().contains("/api/nothing-here"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rolls_replay_and_bad_rolls_are_refused() {
    let server = Server::start().await;
    let (code, r) = server
        .post(
            "/api/roll",
            &json!({"notation": "3d6 hits 4+", "seed": "1234"}),
        )
        .await;
    assert_eq!(code, 200, "{r}");
    let mut roller = Roller::replay(RollId(1234));
    let expected = "3d6 hits 4+".parse::<Notation>().unwrap().roll(&mut roller);
    assert_eq!(r["roll_id"], json!(expected.roll_id));
    assert_eq!(r["dice"], serde_json::to_value(&expected.dice).unwrap());
    assert_eq!(r["dice"].as_array().unwrap().len(), 3);

    let (code, e) = server.post("/api/roll", &json!({"notation": "3q6"})).await;
    assert_eq!(code, 400);
    assert!(!e["error"].as_str().unwrap().is_empty());

    let (code, e) = server
        .post(
            "/api/roll",
            &json!({"notation": "d6", "combat": ["a", "b"]}),
        )
        .await;
    assert_eq!(code, 400);
    assert!(e["error"].as_str().unwrap().contains("exactly one"), "{e}");

    let (code, e) = server
        .post("/api/roll", &json!({"combat": ["red-2-inf-1", "ghost"]}))
        .await;
    assert_eq!(code, 404);
    assert!(e["error"].as_str().unwrap().contains("ghost"), "{e}");

    // red-2-inf-1 at (14, 16.25) and blue-1-inf-1 at (6.75, 14) are far apart.
    let (code, e) = server
        .post(
            "/api/roll",
            &json!({"combat": ["red-2-inf-1", "blue-1-inf-1"]}),
        )
        .await;
    assert_eq!(code, 422);
    assert!(
        e["error"].as_str().unwrap().contains("not in contact"),
        "{e}"
    );

    let (code, e) = server
        .post_raw("/api/roll", "application/json", b"{\"notation\": ".to_vec())
        .await;
    assert_eq!(code, 400);
    assert!(!e["error"].as_str().unwrap().is_empty());

    let (code, e) = server
        .post_raw("/api/roll", "text/plain", b"{}".to_vec())
        .await;
    assert_eq!(code, 415);
    assert!(e["error"].as_str().unwrap().contains("Content-Type"), "{e}");

    let (code, e) = server.post("/api/roll", &json!({"dice": 3})).await;
    assert_eq!(code, 422);
    assert!(e["error"].as_str().unwrap().contains("dice"), "{e}");

    // 20 KB: over the 16 KB body limit.
    let big = format!("{{\"notation\": \"{}\"}}", "d".repeat(20 * 1024));
    let (code, e) = server
        .post_raw("/api/roll", "application/json", big.into_bytes())
        .await;
    assert_eq!(code, 413);
    assert!(e["error"].as_str().unwrap().contains("length limit"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chit_cup_draws_and_hides_the_opponents_chit() {
    let server = Server::start().await;
    let scenario = demo::scenario().unwrap();
    let chits = scenario.commands.iter().filter(|c| c.chit).count();
    let (code, v) = server.get("/api/chits?viewer=red").await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["in_bag"].as_u64().unwrap() as usize, chits);
    assert_eq!(v["turn"], json!({"day": 1, "number": 1}));

    let (code, d) = server
        .post("/api/chits/draw", &json!({"viewer": "red"}))
        .await;
    assert_eq!(code, 200, "{d}");
    assert_eq!(d["view"]["in_bag"].as_u64().unwrap() as usize, chits - 1);
    let current = &d["view"]["current"];
    let side = current["side"].as_str().unwrap().to_owned();
    // The drawing side sees its own command; the other side sees only the colour.
    let other = if side == "red" { "blue" } else { "red" };
    let (_, mine) = server.get(&format!("/api/chits?viewer={side}")).await;
    assert!(mine["current"]["command"].is_string(), "{mine}");
    let (_, theirs) = server.get(&format!("/api/chits?viewer={other}")).await;
    assert!(theirs["current"]["command"].is_null(), "{theirs}");
    assert_eq!(theirs["current"]["side"], side);

    // A second draw while the first command is still moving is refused.
    let (code, e) = server
        .post("/api/chits/draw", &json!({"viewer": "red"}))
        .await;
    assert_eq!(code, 409);
    assert!(!e["error"].as_str().unwrap().is_empty());
    let (code, _) = server
        .post("/api/chits/finish", &json!({"viewer": "red"}))
        .await;
    assert_eq!(code, 200);
    let (code, e) = server
        .post("/api/chits/end-turn", &json!({"viewer": "red"}))
        .await;
    assert_eq!(code, 409, "the bag is not empty yet: {e}");

    let (code, e) = server.get("/api/chits?viewer=green").await;
    assert_eq!(code, 404);
    assert!(e["error"].as_str().unwrap().contains("green"), "{e}");
    // On an open table every phone is the umpire: without a viewer, it reads every chit.
    let (code, all) = server.get("/api/chits").await;
    assert_eq!(code, 200);
    assert!(all["moved"][0]["command"].is_string(), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_pushes_each_new_table_to_every_client() {
    let server = Server::start().await;
    let mut a = ws(&server).await;
    let mut b = ws(&server).await;
    let first = next_state(&mut a).await;
    assert_eq!(first["type"], "state");
    next_state(&mut b).await;
    let seq0 = first["seq"].as_u64().unwrap();

    // The first scripted move: blue-2-gd from (22.5, 14.25) to (22.5, 15.0).
    let seq = server.publisher.table(server.tables[1].clone());
    assert!(seq > seq0);
    for client in [&mut a, &mut b] {
        let m = next_state(client).await;
        assert_eq!(m["seq"].as_u64().unwrap(), seq);
        let moved = m["table"]["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == "blue-2-gd")
            .unwrap()
            .clone();
        assert_eq!(moved["pose"]["y_in"], 15.0);
        assert_eq!(
            m["report"]["pieces"].as_array().unwrap().len(),
            m["table"]["pieces"].as_array().unwrap().len()
        );
    }
    // REST sees the same table.
    let (_, state) = server.get("/api/state").await;
    assert_eq!(state["seq"].as_u64().unwrap(), seq);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_floods_is_closed_with_a_reason() {
    let server = Server::start().await;
    let mut c = ws(&server).await;
    next_state(&mut c).await;
    for _ in 0..40 {
        c.send(Message::Text("hello".into())).await.unwrap();
    }
    let closed = loop {
        let m = next_json(&mut c).await;
        if m.get("closed").is_some() {
            break m;
        }
    };
    assert!(
        closed["closed"]
            .as_str()
            .unwrap()
            .contains("too many messages"),
        "{closed}"
    );
}

/// RFC 6455 5.5.1: an endpoint that receives a Close frame sends one back before it
/// drops the connection. A browser whose close is not answered waits, its socket stuck
/// closing; here the server answers, and the client sees the reply, not a reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_closes_gets_its_close_answered() {
    let server = Server::start().await;
    let mut c = ws(&server).await;
    next_state(&mut c).await;
    c.send(Message::Close(None)).await.unwrap();
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(20), c.next())
            .await
            .expect("an answer within 20 s");
        match msg {
            // Status lines sent before the server read our close.
            Some(Ok(Message::Text(_))) => continue,
            Some(Ok(Message::Close(_))) => break,
            other => panic!("the close was not answered: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_is_dropped_and_others_carry_on() {
    let server = Server::start().await;
    // A client that never reads: its socket fills, the server stops waiting for it.
    let mut slow = ws(&server).await;
    let mut fast = ws(&server).await;
    next_state(&mut fast).await;
    let mut last = 0;
    for i in 0..400 {
        last = server.publisher.table(server.tables[1 + i % 2].clone());
        // Wait for the fast client to see it, so that every table is broadcast.
        loop {
            let m = next_state(&mut fast).await;
            if m["seq"].as_u64() == Some(last) {
                break;
            }
        }
    }
    assert!(last >= 400);
    // Now read the slow client: some states, then the close with its reason.
    let closed = loop {
        let m = next_json(&mut slow).await;
        if m.get("closed").is_some() {
            break m;
        }
    };
    assert!(
        closed["closed"].as_str().unwrap().contains("too slow"),
        "{closed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_asking_too_fast_gets_429() {
    let server = Server::start().await;
    let mut codes = Vec::new();
    for _ in 0..300 {
        let r = server
            .http
            .get(server.url("/api/scenario"))
            .send()
            .await
            .unwrap();
        codes.push(r.status().as_u16());
        if r.status() == 429 {
            let e: Value = r.json().await.unwrap();
            assert!(
                e["error"].as_str().unwrap().contains("too many requests"),
                "{e}"
            );
            break;
        }
    }
    // The burst of 120 passes first.
    assert!(
        codes.iter().filter(|c| **c == 200).count() >= 120,
        "{codes:?}"
    );
    assert_eq!(codes.last(), Some(&429));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_scenario_and_qr_are_served() {
    let server = Server::start().await;
    let page = server.http.get(server.url("/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("/app.js"));
    let (code, s) = server.get("/api/scenario").await;
    assert_eq!(code, 200);
    assert_eq!(s["map"]["width_in"], 36.0);
    assert_eq!(s["map"]["height_in"], 24.0);
    assert_eq!(s["map"]["image"], "/map.svg");
    assert_eq!(s["sides"].as_array().unwrap().len(), 2);
    assert_eq!(s["terrain"]["type"], "FeatureCollection");
    // The page draws fields of fire for the kinds the rules give one: detachments too,
    // "Pequeñas unidades de infantería" (3.2, the default reading); cavalry and HQs not.
    let fof_kinds: Vec<&str> = s["fof_kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(
        fof_kinds,
        [
            "infantry",
            "dragoons",
            "artillery",
            "horse-artillery",
            "detachment"
        ]
    );
    let qr = server.http.get(server.url("/qr.svg")).send().await.unwrap();
    assert_eq!(qr.headers()["content-type"], "image/svg+xml");
    assert!(qr.text().await.unwrap().contains("<svg"));
    let map = server
        .http
        .get(server.url("/map.svg"))
        .send()
        .await
        .unwrap();
    assert_eq!(map.status(), 200);
}

#[test]
fn feed_status_changes_do_not_bump_the_table_sequence() {
    let scenario = demo::scenario().unwrap();
    let tables = demo::tables(&scenario).unwrap();
    let (publisher, rx) = Publisher::new(tables[0].clone(), Source::Camera);
    assert_eq!(publisher.table(tables[1].clone()), 1);
    publisher.status(Source::Lost, 0.0);
    let view = rx.borrow().clone();
    assert_eq!((view.seq, view.source), (1, Source::Lost));
    assert_eq!(*view.table, tables[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rolls_draws_and_stable_states_go_to_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.sqlite");
    let server = Server::start_with(Some(&path)).await;
    let mut client = ws(&server).await;
    next_state(&mut client).await;
    // A new stable table: blue-2-gd advances 0.75 in.
    let seq = server.publisher.table(server.tables[1].clone());
    loop {
        if next_state(&mut client).await["seq"].as_u64() == Some(seq) {
            break;
        }
    }
    let (code, roll) = server
        .post(
            "/api/roll",
            &json!({"notation": "2d6", "seed": "r00000000000004d2"}),
        )
        .await;
    assert_eq!(code, 200);
    let (code, _) = server
        .post("/api/chits/draw", &json!({"viewer": "blue"}))
        .await;
    assert_eq!(code, 200);
    // The journal is written on the blocking pool; the roll's answer waits for it.
    let journal = aide::journal::Journal::open_existing(&path).unwrap();
    let draws = journal.draws().unwrap();
    let kinds: Vec<&str> = draws.iter().map(|d| d.kind.as_str()).collect();
    assert_eq!(kinds, ["notation", "draw"]);
    assert_eq!(draws[0].value["roll_id"], roll["roll_id"]);
    assert_eq!(draws[0].value["roll_id"], "r00000000000004d2");
    // The state recorder stored the first table, then the move with its event.
    let states = journal.states().unwrap();
    assert_eq!(states.len(), 2, "the starting table and the moved one");
    let moved = states[1]
        .state
        .pieces
        .iter()
        .find(|p| p.id == "blue-2-gd")
        .unwrap();
    assert_eq!((moved.x_in, moved.y_in), (22.5, 15.0));
    drop(journal);

    // The page's log: two states, the move as an event of the second, the roll.
    let (code, log) = server.get("/api/log").await;
    assert_eq!(code, 200, "{log}");
    assert_eq!(log["states"].as_array().unwrap().len(), 2);
    let events = log["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{log}");
    assert_eq!(events[0]["event"]["event"], "moved");
    assert_eq!(events[0]["event"]["unit"], "blue-2-gd");
    assert!(close(
        events[0]["event"]["distance_in"].as_f64().unwrap(),
        0.75
    ));
    // The replay slider's past state comes back with the rules' report on it.
    let first = log["states"][0]["seq"].as_i64().unwrap();
    let (code, past) = server.get(&format!("/api/log/{first}")).await;
    assert_eq!(code, 200);
    let gd = past["table"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "blue-2-gd")
        .unwrap()
        .clone();
    assert_eq!(gd["pose"]["y_in"], 14.25);
    assert_eq!(
        past["report"]["pieces"].as_array().unwrap().len(),
        server.tables[0].pieces.len()
    );
    let (code, e) = server.get("/api/log/999").await;
    assert_eq!(code, 404);
    assert!(e["error"].as_str().unwrap().contains("999"), "{e}");
    let (code, _) = server.get("/api/log/abc").await;
    assert_eq!(code, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_journal_the_log_is_404_with_the_reason() {
    let server = Server::start().await;
    let (code, e) = server.get("/api/log").await;
    assert_eq!(code, 404);
    assert!(e["error"].as_str().unwrap().contains("--journal"), "{e}");
}

/// `aide serve --scenario --state` serves that state file, and refuses what it cannot load.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_a_scenario_and_state_file() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    // One piece, moved from the demo: red-2-hq at (10, 12), facing 90.
    let state = dir.path().join("state.json");
    std::fs::write(
        &state,
        r#"{"pieces":[{"id":"red-2-hq","x_in":10,"y_in":12,"heading_deg":90}]}"#,
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(["serve", "--bind", "127.0.0.1:0", "--scenario"])
        .arg(root.join("scenarios/demo/valley.toml"))
        .arg("--state")
        .arg(&state)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let addr = BufReader::new(out)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("listening on ").map(str::to_owned))
        .unwrap();
    let http = reqwest::Client::new();
    let s: Value = http
        .get(format!("http://{addr}/api/state"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let map = http
        .get(format!("http://{addr}/map.svg"))
        .send()
        .await
        .unwrap();
    let map_status = map.status().as_u16();
    let map_text = map.text().await.unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let pieces = s["table"]["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), 1);
    assert_eq!(
        pieces[0]["pose"],
        json!({"x_in": 10.0, "y_in": 12.0, "heading_deg": 90.0})
    );
    assert_eq!(map_status, 200);
    assert_eq!(
        map_text,
        std::fs::read_to_string(root.join("scenarios/demo/map.svg")).unwrap()
    );

    // A state naming a unit the scenario lacks: exit 1 and the reason, before binding.
    std::fs::write(
        &state,
        r#"{"pieces":[{"id":"nobody","x_in":1,"y_in":1,"heading_deg":0}]}"#,
    )
    .unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(["serve", "--bind", "127.0.0.1:0", "--scenario"])
        .arg(root.join("scenarios/demo/valley.toml"))
        .arg("--state")
        .arg(&state)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("\"nobody\""), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_camera_reaches_the_clients_without_a_new_table() {
    let server = Server::start().await;
    let mut c = ws(&server).await;
    let first = next_state(&mut c).await;
    server.publisher.status(Source::Lost, 0.0);
    let lost = loop {
        let m = next_json(&mut c).await;
        if m["status"]["source"] == "lost" {
            break m;
        }
    };
    // Only the status changed: a status message with the same table sequence.
    assert_eq!(lost["type"], "status");
    assert_eq!(lost["seq"], first["seq"]);
    assert!(lost["status"]["since_stable_s"].as_f64().unwrap() >= 0.0);
    let (_, state) = server.get("/api/state").await;
    assert_eq!(state["seq"], first["seq"]);
    assert_eq!(state["status"]["source"], "lost");
}

// ---- the page's combat and bombardment rolls agree with `aide roll` (issue 17) ----

fn mini(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mini")
        .join(name)
}

fn at(id: &str, x: f64, y: f64, h: f64) -> aide::table::Placement {
    aide::table::Placement {
        id: id.into(),
        x_in: x,
        y_in: y,
        heading_deg: h,
        status: aide::table::Status::Fresh,
    }
}

/// A server on tests/fixtures/mini (Pub Battles 3.2) showing `placements`.
async fn mini_server(placements: &[aide::table::Placement]) -> (Server, aide::scenario::Scenario) {
    let scenario = aide::scenario::Scenario::load(&mini("scenario.toml")).unwrap();
    let table = scenario.table(placements).unwrap();
    let (publisher, rx) = Publisher::new(table.clone(), Source::Replay);
    let state = AppState::new(
        Setup {
            scenario: scenario.clone(),
            map_svg: None,
            terrain_geojson: std::fs::read_to_string(mini("terrain.geojson")).unwrap(),
            recorder: None,
            identify: None,
            url: "http://127.0.0.1/".into(),
            camera: None,
        },
        rx,
    )
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(aide::web::serve(listener, state));
    let server = Server {
        addr,
        publisher,
        tables: vec![table],
        http: reqwest::Client::new(),
    };
    (server, scenario)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bombardment_over_a_friendly_piece_is_refused_until_the_friend_moves() {
    // "no puedes disparar a través / sobre piezas amigas" [3.2]. The line of fire runs
    // from rart (20, 20) to b1 (20, 17) along x = 20. r1 at x = 20.92 spans
    // 19.9825..21.8575: its left end is on the line. Sight passes through pieces, so the
    // old page (contact and sight only) rolled this.
    let (server, scenario) = mini_server(&[
        at("rart", 20.0, 20.0, 0.0),
        at("b1", 20.0, 17.0, 180.0),
        at("r1", 20.92, 18.5, 0.0),
    ])
    .await;
    let body = json!({"bombard": ["rart", "b1"], "seed": "77"});
    let (code, e) = server.post("/api/roll", &body).await;
    assert_eq!(code, 422, "{e}");
    let why = e["error"].as_str().unwrap();
    assert!(
        why.contains("friendly piece r1")
            && why.contains("no firing through or over friendly pieces")
            // Edge to edge 19.8125 - 17.1875 = 2.625 in, of the 5.25 in a foot move reaches.
            && why.contains("2.6")
            && why.contains("range 5.25 in"),
        "{why}"
    );
    // r1 steps to x = 20.96: its left end 20.0225 is clear of the line; the gun fires.
    server.publisher.table(
        scenario
            .table(&[
                at("rart", 20.0, 20.0, 0.0),
                at("b1", 20.0, 17.0, 180.0),
                at("r1", 20.96, 18.5, 0.0),
            ])
            .unwrap(),
    );
    let mut answer = None;
    for _ in 0..100 {
        let (code, r) = server.post("/api/roll", &body).await;
        if code == 200 {
            answer = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let r = answer.expect("the bombardment is rolled once r1 stands clear");
    assert_eq!(r["verdict"]["allowed"], json!(true), "{r}");
    assert!(close(r["verdict"]["range_in"].as_f64().unwrap(), 5.25));
    assert!(
        (r["distance_in"].as_f64().unwrap() - 2.625).abs() < 0.01,
        "{r}"
    );
    assert_eq!(r["roll_id"], json!(RollId(77)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_combat_counts_the_reserve_as_support_as_aide_roll_does() {
    // "Si tu HQ está directamente detrás de una pieza, puedes contar la primera pieza en
    // Reserva como Apoyo" [3.2]. r1 faces up from (10, 20): front edge y 19.8125, rear
    // 20.1875. Its HQ cube rh (0.375 across) at y 20.435 touches the rear (0.06 in, within
    // the contact tolerance the rules tests use); r2, off the table, is the first in
    // Reserve. b1 faces down the map at y 19.625: its front edge is r1's front edge, in
    // contact. No piece stands behind r1, so the table alone gives it no support: the old
    // page's defender was unsupported.
    let placements = [
        at("r1", 10.0, 20.0, 0.0),
        at("rh", 10.0, 20.435, 0.0),
        at("b1", 10.0, 19.625, 180.0),
    ];
    let (server, _) = mini_server(&placements).await;
    let (code, page) = server
        .post(
            "/api/roll",
            &json!({"combat": ["b1", "r1"], "seed": "4242"}),
        )
        .await;
    assert_eq!(code, 200, "{page}");
    assert_eq!(
        page["combat"]["defender"]["piece"]["supported"],
        json!(true),
        "{page}"
    );

    // `aide roll --combat b1 r1` on the same table with the same seed.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    std::fs::write(&state, json!({"pieces": placements}).to_string()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_aide"))
        .args(["roll", "--scenario"])
        .arg(mini("scenario.toml"))
        .arg("--state")
        .arg(&state)
        .args(["--combat", "b1", "r1", "--seed", "4242", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "attacker_facts",
        "defender_facts",
        "plans",
        "round",
        "combat",
        "roll_id",
    ] {
        assert_eq!(page[key], cli[key], "{key}: page {page} cli {cli}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_combat_or_bombardment_on_the_cups_night_turn() {
    // "There are 8 regular turns in a day, followed by 1 Night Turn": "Sin ataques ni
    // bombardeos" [3.2]. Play the cup through turns 1..8 (every chit drawn and moved, then
    // the turn ends) to day 1's night turn.
    let placements = [
        at("r1", 10.0, 20.0, 0.0),
        at("b1", 10.0, 19.625, 180.0),
        at("rart", 20.0, 20.0, 0.0),
        at("b2", 20.0, 17.0, 180.0),
    ];
    let (server, _) = mini_server(&placements).await;
    // By day both are rolled.
    let (code, r) = server
        .post("/api/roll", &json!({"combat": ["b1", "r1"]}))
        .await;
    assert_eq!(code, 200, "{r}");
    let viewer = json!({"viewer": "red"});
    for _ in 0..8 {
        loop {
            let (code, d) = server.post("/api/chits/draw", &viewer).await;
            if code == 409 {
                assert!(d["error"].as_str().unwrap().contains("bag is empty"), "{d}");
                break;
            }
            assert_eq!(code, 200, "{d}");
            let (code, f) = server.post("/api/chits/finish", &viewer).await;
            assert_eq!(code, 200, "{f}");
        }
        let (code, t) = server.post("/api/chits/end-turn", &viewer).await;
        assert_eq!(code, 200, "{t}");
    }
    let (_, cup) = server.get("/api/chits?viewer=red").await;
    assert_eq!(cup["turn"], json!({"day": 1, "number": 9}), "{cup}");
    for body in [
        json!({"combat": ["b1", "r1"]}),
        json!({"bombard": ["rart", "b2"]}),
    ] {
        let (code, e) = server.post("/api/roll", &body).await;
        assert_eq!(code, 409, "{body}: {e}");
        let why = e["error"].as_str().unwrap();
        assert!(
            why.contains("day 1, night turn") && why.contains("Sin ataques ni bombardeos"),
            "{why}"
        );
    }
    // Plain dice are still thrown at night.
    let (code, _) = server.post("/api/roll", &json!({"notation": "d6"})).await;
    assert_eq!(code, 200);
}
