// The phone page in headless Chromium at 390x844: it loads the demo, draws every piece,
// a tap shows the same command verdict as `aide check --json`, the ruler measures a known
// distance, a combat rolls on the page. Run by tests/web_browser.rs, which starts the
// servers and passes AIDE_URL, AIDE_LIVE_URL, AIDE_WATCHED_URL, AIDE_CHECK_JSON and
// AIDE_SHOTS.
"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { phone, tapMap, run, screenshot } = require("./phone");

const url = process.env.AIDE_URL;
const check = JSON.parse(fs.readFileSync(process.env.AIDE_CHECK_JSON, "utf8"));
const checkText = fs.readFileSync(process.env.AIDE_CHECK_TEXT, "utf8");
const rounding = JSON.parse(process.env.AIDE_ROUNDING);
const shots = process.env.AIDE_SHOTS;


async function main() {
  const { context, page, errors, close } = await phone();
  try {
    await page.goto(url);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });

    // Every piece of the table is drawn.
    const drawn = await page.locator("#pieces polygon.piece").count();
    assert.equal(drawn, check.pieces.length, "one shape per piece");
    // Made for a 390 px portrait screen: no horizontal scroll.
    const scrollW = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollW <= 390, `page is ${scrollW} px wide`);
    // The zoom buttons hide no part of the map (over it, they hid its lower-right corner).
    const mapBox = await page.locator("#map").boundingBox();
    for (const id of ["#zoomin", "#zoomout", "#zoomfit"]) {
      const b = await page.locator(id).boundingBox();
      const overlaps = b.x < mapBox.x + mapBox.width && mapBox.x < b.x + b.width
        && b.y < mapBox.y + mapBox.height && mapBox.y < b.y + b.height;
      assert.ok(!overlaps, `${id} at ${JSON.stringify(b)} covers the map at ${JSON.stringify(mapBox)}`);
    }
    // The status bar shows the feed.
    assert.equal(await page.textContent("#source"), "replay");
    // One rounding rule for margins: the page rounds as the library (`aide check`, `aide
    // log`) does, -0.125 to 0.13.
    for (const [x, want] of rounding) {
      assert.equal(await page.evaluate((x) => window.aide.hundredths(x).toFixed(2), x), want, `margin ${x}`);
    }
    const nameOf = (id) => page.evaluate((id) => window.aide.nameOf(id), id);

    // Tap red-2-inf-1: its command verdict equals what `aide check --json` says.
    const want = check.pieces.find((p) => p.id === "red-2-inf-1");
    const pose = await page.evaluate(() => window.aide.table.pieces.find((p) => p.id === "red-2-inf-1").pose);
    await tapMap(page, pose.x_in, pose.y_in);
    await page.waitForSelector("#command");
    const margin = Number(await page.getAttribute("#command", "data-margin"));
    assert.equal(margin, want.command_margin_in, "margin as the rules engine gives it");
    const text = await page.textContent("#command");
    // The margin's digits as `aide check` prints them (Carvell Militia is 0.125 in inside:
    // the CLI printed 0.12 and the page 0.13 before one rule served both).
    const cliMargin = new RegExp(`^red-2-inf-1 [^\\n]*\\n(?:  [^\\n]*\\n)*?  command: in range of ${want.commanded_by} by ([0-9.]+) in`, "m").exec(checkText);
    assert.ok(cliMargin, "aide check gives red-2-inf-1's margin");
    assert.equal(text, `in command by ${cliMargin[1]} in (${await nameOf(want.commanded_by)})`);
    assert.equal(await page.locator("#under .range").count(), 1, "command range drawn from the HQ");
    assert.equal(await page.locator("#under .fof").count(), 1, "field of fire drawn");
    await screenshot(page, { path: path.join(shots, "page-piece.png") });

    // A piece out of command says by how much.
    const out = check.pieces.find((p) => p.in_command === false && p.command_margin_in !== null);
    const outPose = await page.evaluate((id) => window.aide.table.pieces.find((p) => p.id === id).pose, out.id);
    await page.click("#clear");
    await tapMap(page, outPose.x_in, outPose.y_in);
    await page.waitForFunction((id) => document.querySelector("#info h3") && document.querySelector("#command")
      && window.aide.sel[0] === id, out.id);
    assert.equal(await page.textContent("#command"),
      `OUT of command by ${await page.evaluate((x) => window.aide.hundredths(x).toFixed(2), -out.command_margin_in)} in (${await nameOf(out.commanded_by)})`);

    // Two pieces in contact: distance 0 and a combat rolled on the page.
    await page.click("#clear");
    const pair = check.pieces.find((p) => p.in_contact_with.length > 0);
    for (const id of [pair.id, pair.in_contact_with[0]]) {
      const p = await page.evaluate((id) => window.aide.table.pieces.find((q) => q.id === id).pose, id);
      await tapMap(page, p.x_in, p.y_in);
    }
    await page.waitForSelector("#distance");
    assert.ok(Number(await page.getAttribute("#distance", "data-in")) <= 0.0625, "pieces in contact touch");
    await page.click("#dice");
    await page.click("#combatbtn");
    await page.waitForSelector("#rollresult");
    const rolled = await page.textContent("#rollresult");
    assert.equal(rolled, `${await nameOf(pair.id)} attacks ${await nameOf(pair.in_contact_with[0])}`);
    // Both pieces fire in round 1 of a contact combat: two volleys, every die shown.
    assert.equal(await page.locator("#diceout .volley").count(), 2, "attacker and defender fire");
    const dice = await page.locator("#diceout .die").count();
    const expectDice = await page.evaluate(() => window.aide.lastDice.round.volleys.reduce((n, v) => n + v.plan.dice, 0));
    assert.ok(dice > 0 && dice === expectDice, `${dice} dice shown, ${expectDice} thrown`);
    await screenshot(page, { path: path.join(shots, "page-combat.png"), fullPage: true });

    // The roll went to the journal: the log panel lists it.
    await page.click("#log");
    await page.waitForFunction(() => /combat/.test(document.querySelector("#logout").textContent));
    assert.equal(await page.getAttribute("#slider", "max"), "0", "one stable state so far");

    // The chit cup: Red draws; if the chit is Blue's, Red sees only its colour.
    await page.click("#cup");
    await page.selectOption("#viewer", "red");
    await page.waitForSelector("#cupcurrent");
    await page.click("#drawbtn");
    await page.waitForFunction(() => document.querySelector("#cupcurrent").textContent.trim() !== "none");
    // What the cup holds, asked as Blue: Red's phone shows Red's command, and only the
    // colour of Blue's.
    const asBlue = await page.evaluate(async () => (await (await fetch("/api/chits?viewer=blue")).json()).current);
    const shown = (await page.textContent("#cupcurrent")).trim();
    const redCommands = await page.evaluate(() => window.aide.scenario.commands.filter((c) => c.side === "red").map((c) => c.name));
    if (asBlue.side === "red") {
      assert.equal(asBlue.command, null, "Blue does not see Red's command");
      assert.ok(!shown.includes("(hidden)") && redCommands.some((n) => shown.includes(n)), `Red sees its own chit by name: "${shown}"`);
    } else {
      assert.ok(asBlue.command.startsWith("blue-"), "Blue sees its own command");
      assert.ok(shown.endsWith("(hidden)"), `Red sees only the colour of Blue's chit: "${shown}"`);
    }

    // The ruler: (10, 6) to (12.4, 7.8) is 3.0 in (a 3-4-5 triangle scaled by 0.6).
    await page.click("#clear");
    await page.click("#ruler");
    await page.evaluate(() => window.aide.zoomAt(11.2, 6.9, 6));
    await tapMap(page, 10, 6);
    await tapMap(page, 12.4, 7.8);
    await page.waitForSelector("#rulerout");
    const d = Number(await page.getAttribute("#rulerout", "data-in"));
    assert.ok(Math.abs(d - 3.0) <= 0.01, `ruler measured ${d} in, want 3.00`);
    // Zoomed in 6x, a finger is good to about a tenth of an inch: one decimal shown.
    assert.equal(await page.textContent("#rulerout"), "3.0 in");
    await screenshot(page, { path: path.join(shots, "page-ruler.png") });

    // Back to the whole map with a flanked piece selected, for the README.
    await page.click("#ruler");
    await page.click("#zoomfit");
    await page.evaluate(() => window.aide.zoomAt(30, 15.5, 2.2));
    const flanked = check.pieces.find((p) => p.flanked_by.length > 0);
    const fp = await page.evaluate((id) => window.aide.table.pieces.find((p) => p.id === id).pose, flanked.id);
    await tapMap(page, fp.x_in, fp.y_in);
    await page.waitForFunction((id) => window.aide.sel[0] === id && document.querySelector("#flanked"), flanked.id);
    assert.equal(await page.textContent("#flanked"), (await Promise.all(flanked.flanked_by.map(nameOf))).join(", "));
    await screenshot(page, { path: path.join(shots, "page.png") });

    // At 375 px (the narrowest common phone) with each panel open: still no sideways scroll.
    await page.setViewportSize({ width: 375, height: 812 });
    for (const b of ["#dice", "#cup", "#log", "#list"]) {
      await page.click(b);
      const narrow = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(narrow <= 375, `page is ${narrow} px wide at 375 with ${b} open`);
      // Each panel opens where the thumb is, not below the fold.
      const top = (await page.locator(`${b}panel`).boundingBox()).y;
      assert.ok(top < 812 - 100, `${b} opens at y ${top}`);
    }
    await page.click("#clear");
    await page.setViewportSize({ width: 390, height: 844 });

    // Two fingers spreading from 100 to 200 px apart zoom in 2x; one finger drags the map.
    await page.click("#zoomfit");
    const box = await page.locator("#map").boundingBox();
    const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
    const cdp = await context.newCDPSession(page);
    const touch = (type, pts) => cdp.send("Input.dispatchTouchEvent", {
      type, touchPoints: pts.map(([x, y], id) => ({ x, y, id, radiusX: 1, radiusY: 1, force: 1 })),
    });
    const w0 = await page.evaluate(() => window.aide.vb.w);
    await touch("touchStart", [[cx - 50, cy], [cx + 50, cy]]);
    for (let i = 1; i <= 10; i++) await touch("touchMove", [[cx - 50 - 5 * i, cy], [cx + 50 + 5 * i, cy]]);
    await touch("touchEnd", []);
    const w1 = await page.evaluate(() => window.aide.vb.w);
    assert.ok(Math.abs(w1 - w0 / 2) < 0.05 * w0, `pinch: view ${w0} in wide became ${w1}, want ${w0 / 2}`);
    const [x0, ppi] = await page.evaluate(() => [window.aide.vb.x, window.aide.pxPerInch()]);
    await touch("touchStart", [[cx, cy]]);
    for (let i = 1; i <= 10; i++) await touch("touchMove", [[cx - 10 * i, cy]]);
    await touch("touchEnd", []);
    const x1 = await page.evaluate(() => window.aide.vb.x);
    assert.ok(Math.abs(x1 - x0 - 100 / ppi) < 0.05, `pan: 100 px left moved the view ${x1 - x0} in, want ${100 / ppi}`);

    // Live updates without reload: on the replaying server the pieces move by themselves.
    await page.goto(process.env.AIDE_LIVE_URL);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    const [seq0, shapes0] = await page.evaluate(() => [Number(document.body.dataset.seq), document.querySelector("#pieces").innerHTML]);
    await page.waitForFunction((shapes) => document.querySelector("#pieces").innerHTML !== shapes, shapes0, { timeout: 10000 });
    assert.ok(Number(await page.evaluate(() => document.body.dataset.seq)) > seq0, "redrawn for a new table");

    // The replay slider: the first stored state is the demo's start, with blue-2-gd at
    // (22.5, 14.25) before its scripted advance.
    await page.click("#log");
    await page.waitForFunction(() => Number(document.querySelector("#slider").max) >= 2);
    await page.waitForFunction(() => window.aide.table.pieces.find((p) => p.id === "blue-2-gd").pose.y_in !== 14.25
      || Number(document.body.dataset.seq) > 3);
    // Each past state is held back until the server has sent a newer live table: a live
    // message arriving while a past state loads must neither redraw the live table nor put
    // the slider back at the newest state (it did, and the next arrow then went live).
    let heldBack = 0;
    await page.route(/\/api\/log\/\d+$/, async (route) => {
      const liveSeq = await page.evaluate(() => window.aide.live.seq);
      await page.waitForFunction((s) => window.aide.live.seq !== s, liveSeq);
      heldBack++;
      await route.continue();
    });
    await page.$eval("#slider", (el) => { el.value = "0"; el.dispatchEvent(new Event("input")); });
    await page.waitForFunction(() => document.body.classList.contains("history"));
    assert.equal(await page.inputValue("#slider"), "0", "the slider stays on the state asked for");
    const past = await page.evaluate(() => window.aide.table.pieces.find((p) => p.id === "blue-2-gd").pose);
    assert.deepEqual([past.x_in, past.y_in], [22.5, 14.25]);
    await screenshot(page, { path: path.join(shots, "page-log.png"), fullPage: true });
    // The arrows step one state at a time, whatever the slider's width.
    await page.click("#nextstate");
    await page.waitForFunction((seq) => window.aide.history && window.aide.history.seq === seq,
      await page.evaluate(() => window.aide.logStates[1].seq));
    assert.match(await page.textContent("#stateat"), /^2 of \d+/);
    await page.click("#prevstate");
    await page.waitForFunction((seq) => window.aide.history && window.aide.history.seq === seq,
      await page.evaluate(() => window.aide.logStates[0].seq));
    assert.equal(heldBack, 3, "three past states loaded, each after a live message");
    await page.unroute(/\/api\/log\/\d+$/);
    await page.click("#livebtn");
    assert.equal(await page.evaluate(() => document.body.classList.contains("history")), false);

    // Naming a piece the tracker took for another, on the watched table: the picker offers
    // only units of the same side and shape; choosing one swaps the two names.
    await page.goto(process.env.AIDE_WATCHED_URL);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    // The demo's rendered frames are named for what they are, not a replay.
    await page.waitForFunction(() => document.querySelector("#source")?.textContent === "synthetic camera");
    const a = "red-2-inf-1";
    const aPose = await page.evaluate((id) => window.aide.table.pieces.find((p) => p.id === id).pose, a);
    await tapMap(page, aPose.x_in, aPose.y_in);
    await page.waitForSelector("#identify");
    const offered = await page.$$eval("#identify option", (os) => os.map((o) => o.value).filter(Boolean));
    const sc = await page.evaluate(() => window.aide.scenario);
    const unitOf = (id) => sc.units.find((u) => u.id === id);
    assert.ok(offered.length > 0, "some unit is offered");
    for (const id of offered) {
      assert.equal(unitOf(id).side, unitOf(a).side, `${id} is of ${a}'s side`);
      assert.equal(sc.shapes[id], sc.shapes[a], `${id} is a ${sc.shapes[a]} too`);
    }
    assert.ok(!offered.includes("red-2-hq") && !offered.includes(a), "not its HQ cube, not itself");
    assert.ok(!offered.includes("red-train"), "not the supply train");
    const b = offered.find((id) => id.startsWith("red-2-inf")) || offered[0];
    const bPose = await page.evaluate((id) => window.aide.table.pieces.find((p) => p.id === id).pose, b);
    await page.selectOption("#identify", b);
    // Choosing asks first: nothing is renamed until the player says so.
    await page.waitForSelector("#identifyyes");
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => window.aide.named), undefined, "not named before the player confirms");
    await page.click("#identifyyes");
    await page.waitForFunction(() => /^Named/.test(document.querySelector("#identifyout")?.textContent || ""));
    // The renamed table arrives and the page shows the piece under its new name.
    await page.waitForFunction((b) => window.aide.sel[0] === b && document.querySelector("#info h3"), b);
    assert.match(await page.textContent("#identifyout"), /^Named .*; it was taken for /);
    const [bNow, aNow] = await page.evaluate(([a, b]) => [b, a].map((id) => window.aide.table.pieces.find((p) => p.id === id).pose), [a, b]);
    assert.ok(Math.hypot(bNow.x_in - aPose.x_in, bNow.y_in - aPose.y_in) < 0.1, `${b} is where ${a} stood`);
    assert.ok(Math.hypot(aNow.x_in - bPose.x_in, aNow.y_in - bPose.y_in) < 0.1, `${a} is where ${b} stood`);
    await screenshot(page, { path: path.join(shots, "page-identify.png"), fullPage: true });
    await page.click("#log");
    await page.waitForFunction((b) => document.querySelector("#logout").textContent.includes(`${b} named (was taken for`), await nameOf(b));
    assert.deepEqual(errors, [], "no script errors");
    console.log(`ok: ${drawn} pieces, command ${text}, ruler ${d} in, combat ${rolled}`);
  } finally {
    await close();
  }
}

run(main);
