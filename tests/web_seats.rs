//! Seats at the table, over real HTTP and WebSocket on 127.0.0.1: what each seat's raw
//! bytes hold (fog of war), who may act for a side (403 with a reason), the chit cup's
//! secrets, and requests from the wrong place. Each test here guards a leak the table
//! had before seats: it fails on that code.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aide::dice::Roller;
use aide::scenario::Scenario;
use aide::seat::Seat;
use aide::table::{Placement, Status};
use aide::web::feed::{Publisher, Source};
use aide::web::{AppState, Seating, Setup};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

fn mini(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mini")
        .join(name)
}

fn at(id: &str, x: f64, y: f64, h: f64) -> Placement {
    Placement {
        id: id.into(),
        x_in: x,
        y_in: y,
        heading_deg: h,
        status: Status::Fresh,
    }
}

struct Server {
    addr: SocketAddr,
    publisher: Publisher,
    state: Arc<AppState>,
    scenario: Scenario,
    http: reqwest::Client,
}

impl Server {
    /// A seated server on tests/fixtures/mini showing `placements`.
    async fn start(placements: &[Placement], journal: Option<&Path>) -> Self {
        Self::start_delayed(placements, journal, Duration::ZERO).await
    }

    /// The same, showing spectators the table `delay` behind (`--spectator-delay`).
    async fn start_delayed(
        placements: &[Placement],
        journal: Option<&Path>,
        delay: Duration,
    ) -> Self {
        let scenario = Scenario::load(&mini("scenario.toml")).unwrap();
        let table = scenario.table(placements).unwrap();
        let (publisher, rx) = Publisher::new(table, Source::Replay);
        let recorder =
            journal.map(|p| aide::journal::Recorder::open(p, Arc::new(scenario.clone())).unwrap());
        let state = AppState::with_spectator_delay(
            Setup {
                scenario: scenario.clone(),
                map_svg: Some(
                    r#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#
                        .into(),
                ),
                terrain_geojson: std::fs::read_to_string(mini("terrain.geojson")).unwrap(),
                recorder,
                identify: None,
                url: "http://127.0.0.1/".into(),
                camera: None,
            },
            Seating::Seated,
            delay,
            rx,
        )
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(aide::web::serve(listener, state.clone()));
        Self {
            addr,
            publisher,
            state,
            scenario,
            http: reqwest::Client::new(),
        }
    }

    fn token(&self, seat: &Seat) -> String {
        self.state.seats.token(seat).unwrap().to_owned()
    }

    fn side(&self, side: &str) -> String {
        self.token(&Seat::Side(side.into()))
    }

    fn umpire(&self) -> String {
        self.token(&Seat::Umpire)
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// GET as the seat of `token` ("" = no token: a spectator): status and raw body.
    async fn get_raw(&self, token: &str, path: &str) -> (u16, String) {
        let mut r = self.http.get(self.url(path));
        if !token.is_empty() {
            r = r.bearer_auth(token);
        }
        let r = r.send().await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    }

    async fn get(&self, token: &str, path: &str) -> (u16, Value) {
        let (code, body) = self.get_raw(token, path).await;
        (code, serde_json::from_str(&body).unwrap())
    }

    async fn post(&self, token: &str, path: &str, body: &Value) -> (u16, Value) {
        let mut r = self.http.post(self.url(path)).json(body);
        if !token.is_empty() {
            r = r.bearer_auth(token);
        }
        let r = r.send().await.unwrap();
        let code = r.status().as_u16();
        (code, r.json().await.unwrap())
    }

    /// The raw text of the first WebSocket message the seat of `token` receives.
    async fn ws_first(&self, token: &str) -> String {
        let mut ws = ws_open(self.addr, token).await;
        next_text(&mut ws).await
    }

    /// Everything the seat of `token` reads of the table now: REST (with the verdicts of
    /// its piece `own`) and WebSocket.
    async fn everything(&self, token: &str, own: &str) -> String {
        let mut all = String::new();
        let check = format!("/api/check/{own}");
        for path in ["/api/state", "/api/scenario", "/api/chits", &check] {
            let (code, body) = self.get_raw(token, path).await;
            assert_eq!(code, 200, "{path}: {body}");
            all.push_str(&body);
        }
        all.push_str(&self.ws_first(token).await);
        all
    }

    /// Show `placements` and wait until the seat of `token` is told.
    async fn show(&self, placements: &[Placement], token: &str) {
        let table = self.scenario.table(placements).unwrap();
        let seq = self.publisher.table(table);
        for _ in 0..200 {
            let (_, state) = self.get(token, "/api/state").await;
            if state["seq"].as_u64() == Some(seq) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("table {seq} never reached the server");
    }
}

/// Every red name a blue phone may not read while red's pieces are unspotted: each red
/// unit's id (as a JSON string), its name, its command and the red qualities.
fn red_secrets(scenario: &Scenario) -> Vec<String> {
    let mut secrets: Vec<String> = scenario
        .units
        .iter()
        .filter(|u| u.side == "red")
        .flat_map(|u| [format!("\"{}\"", u.id), u.name.clone()])
        .collect();
    secrets.extend(["\"r-1\"".into(), "Red I Corps".into()]);
    secrets.extend(["elite".into(), "militia".into()]);
    secrets
}

/// Blue's b1 at the top facing south; red's r1 far off with its HQ directly behind it
/// (so its first Reserve piece, r2, supports it: the `supported_by` leak).
fn far_apart(r2: Option<(f64, f64, f64)>) -> Vec<Placement> {
    let mut table = vec![
        at("b1", 22.0, 5.0, 180.0),
        at("bh", 22.0, 3.0, 180.0),
        at("r1", 10.0, 25.0, 0.0),
        at("rh", 10.0, 25.375, 0.0),
    ];
    if let Some((x, y, h)) = r2 {
        table.push(at("r2", x, y, h));
    }
    table
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blue_seat_reads_no_red_id_name_or_quality_until_spotted_then_the_type_only() {
    let server = Server::start(&far_apart(Some((30.0, 20.0, 0.0))), None).await;
    let (blue, umpire) = (server.side("blue"), server.umpire());

    // The umpire reads everything, the reserve support among it.
    let (_, state) = server.get(&umpire, "/api/state").await;
    let r1 = state["report"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "r1")
        .unwrap();
    assert_eq!(
        r1["supported_by"], "r3",
        "the first reserve piece supports r1"
    );

    // Nothing red is spotted: blue reads blocks, with no id, name, command or quality.
    let bytes = server.everything(&blue, "b1").await;
    for secret in red_secrets(&server.scenario) {
        assert!(!bytes.contains(&secret), "blue read {secret}");
    }
    let (_, state) = server.get(&blue, "/api/state").await;
    let pieces = state["table"]["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), 5, "blue sees every block: {state}");
    let blocks: Vec<&Value> = pieces.iter().filter(|p| p["block"] == true).collect();
    assert_eq!(blocks.len(), 3);
    for b in &blocks {
        assert_eq!(b["side"], "red");
        assert!(b["id"].as_str().unwrap().starts_with('?'), "{b}");
        assert!(b.get("kind").is_none() && b.get("quality").is_none(), "{b}");
        assert!(b.get("command").is_none(), "{b}");
    }
    // Blue's own verdicts only.
    let reports = state["report"]["pieces"].as_array().unwrap();
    assert!(reports.iter().all(|r| r["side"] == "blue"), "{state}");
    // Red reads blue's pieces as blocks in turn.
    let red = server.everything(&server.side("red"), "r1").await;
    assert!(!red.contains("\"b1\"") && !red.contains("Blue 1st"));

    // r2 comes within one foot move of b1 in clear line of sight: spotted. Blue reads
    // its type, not its name or quality.
    let near = far_apart(Some((22.0, 8.5, 0.0)));
    server.show(&near, &blue).await;
    let bytes = server.everything(&blue, "b1").await;
    for secret in red_secrets(&server.scenario) {
        assert!(
            !bytes.contains(&secret),
            "blue read {secret} of a spotted piece"
        );
    }
    let (_, state) = server.get(&blue, "/api/state").await;
    let spotted: Vec<&Value> = state["table"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p.get("kind").is_some() && p["block"] == true)
        .collect();
    assert_eq!(spotted.len(), 1, "{state}");
    assert_eq!(spotted[0]["kind"], "foot");
    assert_eq!(spotted[0]["pose"]["y_in"], 8.5);
    let b1 = &state["report"]["pieces"][0];
    assert_eq!(b1["can_see"], json!([spotted[0]["id"]]), "{b1}");

    // In contact: "No puedes ver la Calidad hasta el contacto". r2 (elite) faces b1's
    // front edge.
    let touching = far_apart(Some((22.0, 5.375, 0.0)));
    server.show(&touching, &blue).await;
    let (_, state) = server.get(&blue, "/api/state").await;
    let contact: Vec<&Value> = state["table"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p.get("quality").is_some())
        .filter(|p| p["block"] == true)
        .collect();
    assert_eq!(contact.len(), 1, "{state}");
    assert_eq!(contact[0]["quality"], "elite");
    assert!(!state.to_string().contains("2nd Brigade"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_reads_the_public_table_and_may_not_act() {
    let server = Server::start(&far_apart(Some((22.0, 8.5, 0.0))), None).await;
    let (code, state) = server.get("", "/api/state").await;
    assert_eq!(code, 200);
    let pieces = state["table"]["pieces"].as_array().unwrap();
    assert!(
        pieces
            .iter()
            .all(|p| p["block"] == true && p.get("kind").is_none())
    );
    assert_eq!(state["report"]["pieces"], json!([]));
    let text = state.to_string();
    assert!(
        !text.contains("\"b1\"") && !text.contains("\"r2\""),
        "{text}"
    );
    let (code, scenario) = server.get("", "/api/scenario").await;
    assert_eq!(code, 200);
    assert_eq!(scenario["units"], json!([]));

    let (code, e) = server
        .post("", "/api/roll", &json!({"notation": "1d6"}))
        .await;
    assert_eq!(code, 403, "{e}");
    let (code, e) = server.post("", "/api/chits/draw", &json!({})).await;
    assert_eq!(code, 403, "{e}");
    assert!(e["error"].as_str().unwrap().contains("spectator"), "{e}");
    // A token that is none of this game's is refused with the reason, not taken for a
    // spectator silently.
    let (code, e) = server.get("0123456789abcdef", "/api/state").await;
    assert_eq!(code, 403);
    assert!(e["error"].as_str().unwrap().contains("QR"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_unit_is_unknown_and_an_enemy_block_is_named_by_its_handle() {
    let server = Server::start(&far_apart(Some((22.0, 8.5, 0.0))), None).await;
    let blue = server.side("blue");
    // r2 is on the table, r4 is not: blue gets the same answer for both.
    let (c2, e2) = server.get(&blue, "/api/check/r2").await;
    let (c4, e4) = server.get(&blue, "/api/check/r4").await;
    assert_eq!((c2, c4), (404, 404));
    assert_eq!(
        e2["error"].as_str().unwrap().replace("r2", "X"),
        e4["error"].as_str().unwrap().replace("r4", "X")
    );
    let (code, _) = server.get(&blue, "/api/measure?from=b1&to=r2").await;
    assert_eq!(code, 404, "a hidden id is not measured to");
    // The spotted block by its handle: measured, seen, and the answers name no red unit.
    let (_, state) = server.get(&blue, "/api/state").await;
    let handle = state["table"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p.get("kind").is_some() && p["block"] == true)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (code, m) = server
        .get(
            &blue,
            &format!("/api/measure?from=b1&to={}", handle.replace('?', "%3F")),
        )
        .await;
    assert_eq!(code, 200, "{m}");
    assert!(
        (m["distance_in"].as_f64().unwrap() - 3.125).abs() < 1e-6,
        "{m}"
    );
    let (code, s) = server
        .get(
            &blue,
            &format!("/api/sight?from=b1&to={}", handle.replace('?', "%3F")),
        )
        .await;
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["can_see"], true);
    assert!(!s.to_string().contains("r2"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_seat_acts_for_its_side() {
    let server = Server::start(&far_apart(None), None).await;
    let (red, blue, umpire) = (server.side("red"), server.side("blue"), server.umpire());
    // Red's Alter on blue's HQ: 403 with the reason, whatever the cup's state. So is an
    // HQ that does not exist, in the same words.
    let alter = |hq: &str| json!({"kind": "jump", "hq": hq, "command": hq});
    let (code, e) = server.post(&red, "/api/chits/alter", &alter("b-1")).await;
    assert_eq!(code, 403, "{e}");
    assert!(e["error"].as_str().unwrap().contains("own HQs"), "{e}");
    let (code, _) = server.post(&red, "/api/chits/alter", &alter("zz")).await;
    assert_eq!(code, 403);
    // Blue's own Alter passes the seat (the cup then refuses: no chit drawn yet).
    let (code, e) = server.post(&blue, "/api/chits/alter", &alter("b-1")).await;
    assert_eq!(code, 409, "{e}");

    // Naming pieces: red may not rename a blue unit, nor probe for unknown ones.
    let body = |unit: &str| json!({"unit": unit, "x_in": 22.0, "y_in": 5.0});
    let (code, e) = server.post(&red, "/api/identify", &body("b1")).await;
    assert_eq!(code, 403, "{e}");
    let (code, _) = server.post(&red, "/api/identify", &body("nope")).await;
    assert_eq!(code, 403);
    let (code, e) = server.post(&blue, "/api/identify", &body("b1")).await;
    assert_eq!(code, 409, "past the seat, a scripted table refuses: {e}");

    // The umpire draws; only the drawn command's seat (or the umpire) ends its move.
    let (code, d) = server.post(&umpire, "/api/chits/draw", &json!({})).await;
    assert_eq!(code, 200, "{d}");
    let side = d["view"]["current"]["side"].as_str().unwrap().to_owned();
    let (mine, theirs) = if side == "red" {
        (&red, &blue)
    } else {
        (&blue, &red)
    };
    let (code, e) = server.post(theirs, "/api/chits/finish", &json!({})).await;
    assert_eq!(code, 403, "{e}");
    // The other side sees "a red chit": its colour, not its command.
    let (_, view) = server.get(theirs, "/api/chits").await;
    assert_eq!(view["current"]["side"], side.as_str());
    assert!(view["current"]["command"].is_null(), "{view}");
    let (_, view) = server.get(mine, "/api/chits").await;
    assert!(view["current"]["command"].is_string(), "{view}");
    // A side may not ask for the other's view.
    let other = if side == "red" { "blue" } else { "red" };
    let (code, _) = server
        .get(mine, &format!("/api/chits?viewer={other}"))
        .await;
    assert_eq!(code, 403);
    let (code, e) = server.post(mine, "/api/chits/finish", &json!({})).await;
    assert_eq!(code, 200, "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cup_refusal_does_not_name_the_other_sides_chit() {
    let server = Server::start(&far_apart(None), None).await;
    let (red, umpire) = (server.side("red"), server.umpire());
    // Draw until blue's chit moves (the mini scenario has one chit a side).
    for _ in 0..2 {
        let (_, d) = server.post(&umpire, "/api/chits/draw", &json!({})).await;
        if d["view"]["current"]["side"] == "blue" {
            break;
        }
        server.post(&umpire, "/api/chits/finish", &json!({})).await;
    }
    // Red's Delay of its own chit: not the drawn one. The refusal used to say "…and that
    // is b-1"; red reads only that it is blue's.
    let (code, e) = server
        .post(
            &red,
            "/api/chits/alter",
            &json!({"kind": "delay", "hq": "r-1", "command": "r-1"}),
        )
        .await;
    assert_eq!(code, 409, "{e}");
    let text = e["error"].as_str().unwrap();
    assert!(!text.contains("b-1"), "{text}");
    assert!(text.contains("Blue Army"), "{text}");
    // A second draw while blue moves: "b-1 is still moving" for the umpire only.
    let (_, e) = server.post(&red, "/api/chits/draw", &json!({})).await;
    assert!(!e["error"].as_str().unwrap().contains("b-1"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draw_is_not_replayed_from_its_public_roll_id_but_the_umpire_replays_it() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("game.sqlite");
    let demo = aide::web::demo::scenario().unwrap();
    let tables = aide::web::demo::tables(&demo).unwrap();
    let (_publisher, rx) = Publisher::new(tables[0].clone(), Source::Replay);
    let recorder = aide::journal::Recorder::open(&journal, Arc::new(demo.clone())).unwrap();
    let state = AppState::with_seating(
        Setup {
            scenario: demo.clone(),
            map_svg: None,
            terrain_geojson: aide::web::demo::TERRAIN_GEOJSON.into(),
            recorder: Some(recorder),
            identify: None,
            url: "http://127.0.0.1/".into(),
            camera: None,
        },
        Seating::Seated,
        rx,
    )
    .unwrap();
    let umpire = state.seats.token(&Seat::Umpire).unwrap().to_owned();
    let blue = state
        .seats
        .token(&Seat::Side("blue".into()))
        .unwrap()
        .to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(aide::web::serve(listener, state));
    let http = reqwest::Client::new();
    let post = |path: &str| {
        http.post(format!("http://{addr}{path}"))
            .bearer_auth(&umpire)
            .json(&json!({}))
            .send()
    };
    // Four turns of draws: every chit of each.
    for _ in 0..4 {
        loop {
            let r = post("/api/chits/draw").await.unwrap();
            if r.status() == 409 {
                break;
            }
            assert_eq!(r.status(), 200);
            assert_eq!(post("/api/chits/finish").await.unwrap().status(), 200);
        }
        assert_eq!(post("/api/chits/end-turn").await.unwrap().status(), 200);
    }
    let log: Value = http
        .get(format!("http://{addr}/api/log"))
        .bearer_auth(&umpire)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (mut choices, mut public_hits, mut seed_hits) = (0, 0, 0);
    for d in log["draws"].as_array().unwrap() {
        let v = &d["value"];
        let bag = v["cup_before"]["bag"].as_array().unwrap();
        if bag.len() < 2 {
            continue;
        }
        choices += 1;
        let pick = |id: &Value| {
            let id = serde_json::from_value(id.clone()).unwrap();
            bag[Roller::replay(id).index(bag.len())]["command"].clone()
        };
        let drawn = &v["draw"]["chit"]["command"];
        public_hits += usize::from(pick(&v["draw"]["roll_id"]) == *drawn);
        seed_hits += usize::from(pick(&v["seed"]) == *drawn);
    }
    assert!(choices >= 8, "{choices} draws with a choice");
    assert_eq!(seed_hits, choices, "the umpire's seed replays every draw");
    assert!(
        public_hits < choices,
        "the public roll id replayed all {choices} draws"
    );
    // A side's log holds neither the cup before a draw nor the seed.
    let blue_log = http
        .get(format!("http://{addr}/api/log"))
        .bearer_auth(&blue)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!blue_log.contains("cup_before") && !blue_log.contains("seed"));
    assert!(blue_log.contains("\"chit\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_from_another_site_or_host_are_refused() {
    let server = Server::start(&far_apart(None), None).await;
    let blue = server.side("blue");
    // A WebSocket opened by a page elsewhere.
    let mut request = format!("ws://{}/ws?seat={blue}", server.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("origin", "http://evil.example".parse().unwrap());
    let refused = tokio_tungstenite::connect_async(request).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 403),
        other => panic!(
            "a cross-site WebSocket was not refused: {:?}",
            other.map(|_| ())
        ),
    }
    // The table's own page may.
    let mut request = format!("ws://{}/ws?seat={blue}", server.addr)
        .into_client_request()
        .unwrap();
    let own = format!("http://{}", server.addr);
    request.headers_mut().insert("origin", own.parse().unwrap());
    assert!(tokio_tungstenite::connect_async(request).await.is_ok());
    // A POST from elsewhere.
    let r = server
        .http
        .post(server.url("/api/roll"))
        .bearer_auth(&blue)
        .header("origin", "http://evil.example")
        .json(&json!({"notation": "1d6"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // DNS rebinding: this server asked for under another name.
    let r = server
        .http
        .get(server.url("/api/state"))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let e: Value = r.json().await.unwrap();
    assert!(e["error"].as_str().unwrap().contains("evil.example"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_runs_no_inline_script_and_the_map_runs_none() {
    let server = Server::start(&far_apart(None), None).await;
    let page = server.http.get(server.url("/")).send().await.unwrap();
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(
        !csp.split(';')
            .any(|d| d.contains("script-src") && d.contains("unsafe"))
    );
    assert!(csp.contains("frame-ancestors 'none'"));
    assert_eq!(page.headers()["x-content-type-options"], "nosniff");
    let html = page.text().await.unwrap();
    for tag in html.split("<script").skip(1) {
        assert!(tag.trim_start().starts_with("src="), "inline script: {tag}");
    }
    // The page and the JSON go gzipped to a client that takes it.
    for path in ["/", "/api/state", "/api/scenario"] {
        let r = server
            .http
            .get(server.url(path))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(r.headers()["content-encoding"], "gzip", "{path}");
    }
    // The map SVG carries a script: served, it runs in a sandbox with scripts off.
    let map = server
        .http
        .get(server.url("/map.svg"))
        .send()
        .await
        .unwrap();
    let csp = map.headers()["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("sandbox") && csp.contains("default-src 'none'"),
        "{csp}"
    );
}

#[test]
fn a_scenario_colour_that_is_markup_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(mini("scenario.toml"))
        .unwrap()
        .replace(
            "colour = \"#1e4fb3\"",
            "colour = \"#27508f\\\"><img src=y onerror=alert(1)>\"",
        );
    let line = text.lines().position(|l| l.contains("onerror")).unwrap() + 1;
    std::fs::write(dir.path().join("scenario.toml"), text).unwrap();
    std::fs::copy(mini("terrain.geojson"), dir.path().join("terrain.geojson")).unwrap();
    let e = Scenario::load(&dir.path().join("scenario.toml")).unwrap_err();
    assert_eq!(e.line, Some(line), "{e}");
    assert_eq!(e.field.as_deref(), Some("sides[1].colour"), "{e}");
    assert!(e.to_string().contains("not a colour"), "{e}");
}

/// A running `aide serve`, killed (SIGKILL) when dropped.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `aide serve` with `args` on a free loopback port: the process, its address and
/// every line it printed before listening (the seats' addresses among them).
fn serve_binary(args: &[&str]) -> (Running, String, Vec<String>) {
    use std::io::{BufRead, BufReader};
    let mut child = Running(
        std::process::Command::new(env!("CARGO_BIN_EXE_aide"))
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start aide serve"),
    );
    let mut lines = Vec::new();
    let mut out = BufReader::new(child.0.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = out.next().expect("the server prints its address").unwrap();
        if let Some(addr) = line.strip_prefix("listening on ") {
            break addr.to_owned();
        }
        lines.push(line);
    };
    (child, addr, lines)
}

/// The token in the printed address of the seat labelled `label`.
fn printed_token(lines: &[String], label: &str) -> String {
    lines
        .iter()
        .find_map(|l| l.strip_prefix(&format!("{label}: ")))
        .and_then(|url| url.split_once("#seat="))
        .map(|(_, token)| token.to_owned())
        .unwrap_or_else(|| panic!("no {label} seat printed in {lines:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chit_cup_and_the_seats_survive_a_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("game.sqlite");
    let (scenario, state) = (mini("scenario.toml"), mini("state.json"));
    let args = [
        "--scenario",
        scenario.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
        "--journal",
        journal.to_str().unwrap(),
    ];
    let (server, addr, lines) = serve_binary(&args);
    let umpire = printed_token(&lines, "Umpire");
    let blue = printed_token(&lines, "Blue Army");
    let http = reqwest::Client::new();
    let post = |token: &str, path: &str, body: Value| {
        http.post(format!("http://{addr}{path}"))
            .bearer_auth(token)
            .json(&body)
            .send()
    };
    // Turn 1: both chits move; the turn die goes to 2.
    for _ in 0..2 {
        assert_eq!(
            post(&umpire, "/api/chits/draw", json!({}))
                .await
                .unwrap()
                .status(),
            200
        );
        assert_eq!(
            post(&umpire, "/api/chits/finish", json!({}))
                .await
                .unwrap()
                .status(),
            200
        );
    }
    assert_eq!(
        post(&umpire, "/api/chits/end-turn", json!({}))
            .await
            .unwrap()
            .status(),
        200
    );
    // Turn 2: a chit is drawn, and blue's HQ tries to Jump or Delay: spent, either way.
    let drawn: Value = post(&umpire, "/api/chits/draw", json!({}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let kind = if drawn["view"]["current"]["side"] == "blue" {
        "delay"
    } else {
        "jump"
    };
    let attempt = json!({"kind": kind, "hq": "b-1", "command": "b-1"});
    let r = post(&blue, "/api/chits/alter", attempt.clone())
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let cup = |addr: String, token: String| async move {
        let r = reqwest::Client::new()
            .get(format!("http://{addr}/api/chits"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "the seat's token still holds");
        r.json::<Value>().await.unwrap()
    };
    let before = cup(addr.clone(), umpire.clone()).await;
    assert_eq!(before["turn"], json!({"day": 1, "number": 2}));

    // SIGKILL, and start again on the same journal.
    drop(server);
    let (_server, addr, lines) = serve_binary(&args);
    assert_eq!(
        printed_token(&lines, "Umpire"),
        umpire,
        "the seats are the game's"
    );
    let after = cup(addr.clone(), umpire.clone()).await;
    assert_eq!(after, before, "the turn resumes as it was");
    // Blue's HQ is still spent.
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/api/chits/alter"))
        .bearer_auth(&blue)
        .json(&attempt)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    assert!(r.text().await.unwrap().contains("spent"));
}

#[test]
fn two_phones_at_two_seats_in_headless_chromium() {
    let browser = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    assert!(
        browser.join("node_modules/playwright-core").exists(),
        "run `npm ci` in tests/browser first (.ci/run does)"
    );
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(Path::new(&chromium).exists(), "{chromium} is missing");
    let (_server, addr, lines) =
        serve_binary(&["--seats", "--demo-source", "states", "--replay-rate", "0"]);
    let demo = aide::web::demo::scenario().unwrap();
    let seats: Vec<Value> = demo
        .sides
        .iter()
        .map(|s| {
            let token = printed_token(&lines, &s.name);
            json!({"side": s.id, "url": format!("http://{addr}/#seat={token}")})
        })
        .collect();
    let status = std::process::Command::new("node")
        .arg(browser.join("seats.test.js"))
        .env("AIDE_SEATS", serde_json::to_string(&seats).unwrap())
        .env("CHROMIUM", &chromium)
        .status()
        .expect("run node");
    assert!(status.success(), "the two-seat page test failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_trickles_its_headers_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::start(&far_apart(None), None).await;
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    // No blank line ever comes: the server must give up after its header read timeout.
    let mut answer = Vec::new();
    let read = tokio::time::timeout(
        aide::web::HEADER_READ_TIMEOUT + Duration::from_secs(5),
        tcp.read_to_end(&mut answer),
    )
    .await;
    assert!(
        read.is_ok(),
        "the connection was still open after the timeout"
    );
    let waited = started.elapsed();
    assert!(
        waited >= aide::web::HEADER_READ_TIMEOUT - Duration::from_millis(200),
        "cut off after {waited:?}"
    );
    // A whole request on a new connection is answered at once.
    let (code, _) = server.get("", "/api/state").await;
    assert_eq!(code, 200);
}

// ---------- spectators: their own seat link, and `--spectator-delay` ----------

/// The mini table with r2 (a red block) moved to x = `x`.
fn r2_at(x: f64) -> Vec<Placement> {
    let text = std::fs::read_to_string(mini("state.json")).unwrap();
    let mut pieces: Vec<Placement> =
        serde_json::from_value(serde_json::from_str::<Value>(&text).unwrap()["pieces"].clone())
            .unwrap();
    pieces.iter_mut().find(|p| p.id == "r2").unwrap().x_in = x;
    pieces
}

impl Server {
    fn move_r2(&self, x: f64) {
        self.publisher
            .table(self.scenario.table(&r2_at(x)).unwrap());
    }
}

/// Whether a state message (or GET /api/state) shows a block at x = `x`, y of r2.
fn shows_r2_at(state: &Value, x: f64) -> bool {
    state["table"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| {
            (p["pose"]["x_in"].as_f64().unwrap() - x).abs() < 1e-6
                && (p["pose"]["y_in"].as_f64().unwrap() - 12.895).abs() < 1e-6
        })
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A WebSocket to the server at `addr` as the seat of `token` ("" = a spectator).
async fn ws_open(addr: SocketAddr, token: &str) -> Socket {
    tokio_tungstenite::connect_async(format!("ws://{addr}/ws?seat={token}"))
        .await
        .unwrap()
        .0
}

/// The raw text of the socket's next text message, within 20 s.
async fn next_text(ws: &mut Socket) -> String {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a message within 20 s")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = msg {
            return t.to_string();
        }
    }
}

/// When the socket of `token` first shows r2 at `x`, from `start`.
async fn seen_at(addr: SocketAddr, token: String, x: f64, start: Instant) -> Duration {
    let mut ws = ws_open(addr, &token).await;
    loop {
        let v: Value = serde_json::from_str(&next_text(&mut ws).await).unwrap();
        if v["type"] == "state" && shows_r2_at(&v, x) {
            return start.elapsed();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_see_a_move_two_seconds_after_the_seats_and_no_sooner() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    let server = Server::start_delayed(&r2_at(13.5), Some(&db), Duration::from_secs(2)).await;
    let spectator = server.token(&Seat::Spectator);
    let blue = server.token(&Seat::Side("blue".into()));
    // The spectators' own seat link claims the spectator seat.
    let (code, seat) = server.get(&spectator, "/api/seat").await;
    assert_eq!((code, seat["seat"].as_str()), (200, Some("spectator")));
    assert!(
        aide::web::seat_urls(&server.state).iter().any(
            |(s, _, url)| *s == Seat::Spectator && url.ends_with(&format!("#seat={spectator}"))
        )
    );
    // The journal's first state (the setup, stored as the server started) is the table
    // spectators see from the start.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let start = Instant::now();
    let watch_blue = tokio::spawn(seen_at(server.addr, blue.clone(), 16.0, start));
    let watch_spectator = tokio::spawn(seen_at(server.addr, spectator.clone(), 16.0, start));
    // The bare address is a spectator too, and as late.
    let watch_bare = tokio::spawn(seen_at(server.addr, String::new(), 16.0, start));
    // Sockets open (and their first state read) before the move.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let moved_at = start.elapsed();
    server.move_r2(16.0);

    // REST, polled every 100 ms: the blue seat at once, the spectator 2 s later.
    let mut blue_rest = None;
    let mut spectator_rest = None;
    let (_, log) = server.get(&spectator, "/api/log").await;
    let stored_before = log["states"].as_array().unwrap().len();
    let mut log_checked = 0;
    while spectator_rest.is_none() && start.elapsed() < Duration::from_secs(10) {
        let (_, b) = server.get(&blue, "/api/state").await;
        if blue_rest.is_none() && shows_r2_at(&b, 16.0) {
            blue_rest = Some(start.elapsed());
        }
        let (_, s) = server.get(&spectator, "/api/state").await;
        if shows_r2_at(&s, 16.0) {
            spectator_rest = Some(start.elapsed());
        } else if blue_rest.is_some() {
            assert!(
                shows_r2_at(&s, 13.5),
                "the spectator sees the table before the move"
            );
            // Nor may the journal show it to them early.
            let (code, log) = server.get(&spectator, "/api/log").await;
            assert_eq!(code, 200);
            assert_eq!(
                log["states"].as_array().unwrap().len(),
                stored_before,
                "{log}"
            );
            log_checked += 1;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (blue_ws, spectator_ws, bare_ws) = (
        watch_blue.await.unwrap(),
        watch_spectator.await.unwrap(),
        watch_bare.await.unwrap(),
    );
    let blue_rest = blue_rest.expect("the blue seat saw the move");
    let spectator_rest = spectator_rest.expect("the spectator saw the move within 10 s");
    let s = |d: Duration| d.as_secs_f64() - moved_at.as_secs_f64();
    println!(
        "after the move: blue WS {:.3} s, REST {:.3} s; spectator WS {:.3} s, bare WS {:.3} s, REST {:.3} s",
        s(blue_ws),
        s(blue_rest),
        s(spectator_ws),
        s(bare_ws),
        s(spectator_rest)
    );
    // Seats at once (scheduling allowed for); spectators 2 s after the seat, never
    // sooner, and not much later (a 100 ms poll and a loaded machine's slack).
    assert!(s(blue_ws) < 0.5 && s(blue_rest) < 0.6);
    for (what, d) in [
        ("WS", spectator_ws),
        ("bare WS", bare_ws),
        ("REST", spectator_rest),
    ] {
        let behind = d.as_secs_f64() - blue_ws.as_secs_f64();
        assert!(
            (1.95..2.8).contains(&behind),
            "spectator {what}: {behind:.3} s after the blue seat"
        );
    }
    assert!(log_checked >= 10, "the journal was asked during the delay");
    // Once shown, the journal's state of it is theirs too; the blue seat had it at once.
    let (_, log) = server.get(&blue, "/api/log").await;
    let newest = log["states"].as_array().unwrap().last().unwrap()["seq"]
        .as_u64()
        .unwrap();
    let (_, log) = server.get(&spectator, "/api/log").await;
    assert_eq!(log["states"].as_array().unwrap().len(), stored_before + 1);
    let (code, _) = server.get(&spectator, &format!("/api/log/{newest}")).await;
    assert_eq!(code, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_delay_spectators_see_a_move_with_the_seats() {
    let server = Server::start(&r2_at(13.5), None).await;
    let start = Instant::now();
    let spectator = tokio::spawn(seen_at(
        server.addr,
        server.token(&Seat::Spectator),
        16.0,
        start,
    ));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let moved_at = start.elapsed();
    server.move_r2(16.0);
    let seen = spectator.await.unwrap();
    assert!((seen - moved_at).as_secs_f64() < 0.5);
}
