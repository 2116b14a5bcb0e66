//! The phone page in headless Chromium (tests/browser/*.test.js, playwright-core): these
//! tests start the real `aide serve` binary on free loopback ports (the demo held still,
//! replaying, and watched through the synthetic camera, whose picture the evidence view
//! shows; the One Hour Wargames and NBC demos), ask `aide check` for the same tables,
//! and run the page tests with node.
//! Needs /usr/bin/chromium and `npm ci` in tests/browser (.ci/run installs both).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Kills the server when the test ends, pass or fail.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Start `aide serve` with `args` on a free loopback port; its address.
fn serve(args: &[&str]) -> (Running, String) {
    let mut server = Running(
        Command::new(env!("CARGO_BIN_EXE_aide"))
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start aide serve"),
    );
    let stdout = server.0.stdout.take().unwrap();
    let addr = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("listening on ").map(str::to_owned))
        .expect("the server prints its address");
    (server, addr)
}

/// `dir/name`, with any journal a previous run left there removed.
fn fresh_journal(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// The margins the page must show as `aide check` and `aide log` do: inputs and the
/// library's text for them, for the page test to compare with its own rounding.
fn rounding_cases() -> String {
    let cases: Vec<(f64, String)> = [0.125, -0.125, 0.375, 2.675, 1.005, -0.004, 0.9951, 3.0]
        .into_iter()
        .map(|x| (x, format!("{:.2}", aide::rules::hundredths(x))))
        .collect();
    serde_json::to_string(&cases).unwrap()
}

/// node and chromium, or a clear failure saying what to install.
fn browser_dir() -> (PathBuf, String) {
    let browser = root().join("tests/browser");
    assert!(
        browser.join("node_modules/playwright-core").exists(),
        "run `npm ci` in tests/browser first (.ci/run does)"
    );
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        Path::new(&chromium).exists(),
        "{chromium} is missing: apt-get install -y chromium (.ci/run does)"
    );
    (browser, chromium)
}

/// Run the page test `file` of tests/browser with `env`, its screenshots in `shots`;
/// fails naming `what` and where the screenshots are.
fn node_test(file: &str, env: &[(&str, String)], shots: &Path, what: &str) {
    let (browser, chromium) = browser_dir();
    let status = Command::new("node")
        .arg(browser.join(file))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("AIDE_SHOTS", shots)
        .env("CHROMIUM", &chromium)
        .status()
        .expect("run node");
    assert!(
        status.success(),
        "{what} failed (screenshots in {})",
        shots.display()
    );
    println!("screenshots: {}", shots.display());
}

#[test]
fn phone_page_in_headless_chromium() {
    // node and chromium are there, before any server starts.
    browser_dir();

    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web_browser");
    std::fs::create_dir_all(&tmp).unwrap();
    let journal = fresh_journal(&tmp, "game.sqlite");
    let journal_arg = journal.to_str().unwrap();
    let (_held, addr) = serve(&[
        "--demo-source",
        "states",
        "--replay-rate",
        "0",
        "--journal",
        journal_arg,
    ]);
    // A second server replaying the demo's moves, for the live-update check.
    let live_journal = fresh_journal(&tmp, "live.sqlite");
    let (_live, live_addr) = serve(&[
        "--demo-source",
        "states",
        "--replay-rate",
        "4",
        "--journal",
        live_journal.to_str().unwrap(),
    ]);
    // A third watching the demo's first table through the synthetic camera, the detector
    // and the tracker, where a person can name pieces.
    let watched_journal = fresh_journal(&tmp, "watched.sqlite");
    let (_watched, watched_addr) = serve(&[
        "--replay-rate",
        "0",
        "--journal",
        watched_journal.to_str().unwrap(),
    ]);
    let aide = env!("CARGO_BIN_EXE_aide");
    let check = Command::new(aide)
        .args(["check", "--json", "--scenario"])
        .arg(root().join("scenarios/demo/valley.toml"))
        .arg("--state")
        .arg(root().join("scenarios/demo/state.json"))
        .output()
        .expect("run aide check");
    assert!(check.status.success());
    let check_path = tmp.join("check.json");
    std::fs::write(&check_path, &check.stdout).unwrap();
    // The same table as a person reads it, for the margins' digits.
    let check_text = Command::new(aide)
        .args(["check", "--scenario"])
        .arg(root().join("scenarios/demo/valley.toml"))
        .arg("--state")
        .arg(root().join("scenarios/demo/state.json"))
        .output()
        .expect("run aide check");
    assert!(check_text.status.success());
    let check_text_path = tmp.join("check.txt");
    std::fs::write(&check_text_path, &check_text.stdout).unwrap();

    node_test(
        "page.test.js",
        &[
            ("AIDE_URL", format!("http://{addr}/")),
            ("AIDE_LIVE_URL", format!("http://{live_addr}/")),
            ("AIDE_WATCHED_URL", format!("http://{watched_addr}/")),
            ("AIDE_CHECK_JSON", check_path.display().to_string()),
            ("AIDE_CHECK_TEXT", check_text_path.display().to_string()),
            ("AIDE_ROUNDING", rounding_cases()),
        ],
        &tmp,
        "the page test",
    );
    // The camera's picture under the verdict, on the watched table (a server of its own
    // would be one more synthetic camera rendering beside the others).
    node_test(
        "evidence.test.js",
        &[("AIDE_URL", format!("http://{watched_addr}/"))],
        &tmp,
        "the evidence page test",
    );
}

/// A person's veto and a piece placed by hand on the watched demo, at 390x844
/// (tests/browser/veto.test.js).
#[test]
fn veto_and_placement_in_headless_chromium() {
    // node and chromium are there, before any server starts.
    browser_dir();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web_browser_veto");
    std::fs::create_dir_all(&tmp).unwrap();
    let journal = fresh_journal(&tmp, "veto.sqlite");
    let (_watched, addr) = serve(&["--replay-rate", "0", "--journal", journal.to_str().unwrap()]);
    node_test(
        "veto.test.js",
        &[("AIDE_WATCHED_URL", format!("http://{addr}/"))],
        &tmp,
        "the veto page test",
    );
}

/// Every demo scenario (Pub Battles, One Hour Wargames, NBC) at 390x844 and 844x390:
/// readable pieces, layouts, terrain by type, distances in the rules' measure, rolls,
/// the list view, the log, the manifest and the reconnect (tests/browser/systems.test.js).
#[test]
fn every_rule_system_in_headless_chromium() {
    // node and chromium are there, before any server starts.
    browser_dir();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web_browser_systems");
    std::fs::create_dir_all(&tmp).unwrap();
    let scenario = |dir: &str, file: &str| root().join("scenarios").join(dir).join(file);
    let mut servers = Vec::new();
    let mut urls = Vec::new();
    let mut pids = Vec::new();
    for (name, toml) in [
        ("demo", "valley.toml"),
        ("ohw-demo", "ohw.toml"),
        ("nbc-demo", "nbc.toml"),
    ] {
        let journal = fresh_journal(&tmp, &format!("{name}.sqlite"));
        // An open table: every phone is the umpire and sees every name (seated pages
        // are tests/browser/seats.test.js's).
        let (server, addr) = serve(&[
            "--open-table",
            "--scenario",
            scenario(name, toml).to_str().unwrap(),
            "--state",
            scenario(name, "state.json").to_str().unwrap(),
            "--journal",
            journal.to_str().unwrap(),
        ]);
        pids.push(format!("{name}={}", server.0.id()));
        servers.push(server);
        urls.push(format!("{name}=http://{addr}/"));
    }
    // The page test freezes the demo's server (SIGSTOP) to cut its socket silently, as a
    // Wi-Fi that goes away does; the server is killed at the end, frozen or not.
    node_test(
        "systems.test.js",
        &[("AIDE_URLS", urls.join(" ")), ("AIDE_PIDS", pids.join(" "))],
        &tmp,
        "the rule-systems page test",
    );
    drop(servers);
}

/// The camera check as a page step (tests/browser/camera.test.js): the demo watched
/// through its synthetic camera, the umpire's Camera panel at 390x844.
#[test]
fn camera_check_step_in_headless_chromium() {
    // node and chromium are there, before any server starts.
    browser_dir();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web_browser_camera");
    std::fs::create_dir_all(&tmp).unwrap();
    let (_watched, addr) = serve(&["--replay-rate", "0"]);
    node_test(
        "camera.test.js",
        &[("AIDE_URL", format!("http://{addr}/"))],
        &tmp,
        "the camera check page test",
    );
}
