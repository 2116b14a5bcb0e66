// A person's veto and a piece placed by hand, on a 390x844 phone: the demo watched
// through the synthetic camera, the detector and the tracker. "Not a piece" on a tapped
// block asks first, then the block leaves the table and stays off while the camera
// still films it; "Camera missed a piece?" takes the unit, a tap where it stands and a
// tap the way it faces, and the piece stands there. Run by tests/web_browser.rs with
// AIDE_WATCHED_URL and AIDE_SHOTS.
"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { phone, tapMap, run, screenshot } = require("./phone");

const shots = process.env.AIDE_SHOTS;

async function main() {
  const { page, errors, close } = await phone();
  const pose = (id) => page.evaluate((id) => {
    const p = window.aide.table.pieces.find((q) => q.id === id);
    return p ? p.pose : null;
  }, id);
  // The panel is drawn again with each table the camera sends, and a button being
  // replaced has no box for that moment: it is measured as it stands between drawings
  // (for up to 5 s), and must then be a thumb's size.
  const thumb = async (sel) => {
    let box = null;
    for (let tries = 0; tries < 50 && !box; tries++) {
      box = await page.locator(sel).boundingBox();
      if (!box) await page.waitForTimeout(100);
    }
    assert.ok(box && box.height >= 44 && box.width >= 44, `${sel} is a thumb's target: ${JSON.stringify(box)}`);
  };
  try {
    await page.goto(process.env.AIDE_WATCHED_URL);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    await page.waitForFunction(() => document.querySelector("#source")?.textContent === "synthetic camera");

    // Not a piece: a block the camera really films, so only the veto keeps it off.
    const unit = "blue-1-inf-1";
    const at = await pose(unit);
    assert.ok(at, `${unit} is on the table`);
    await tapMap(page, at.x_in, at.y_in);
    await page.waitForSelector("#vetobtn");
    await thumb("#vetobtn");
    await page.click("#vetobtn");
    await page.waitForSelector("#vetoyes");
    await thumb("#vetoyes");
    await page.waitForTimeout(300);
    assert.ok(await pose(unit), "nothing is vetoed before the player confirms");
    await screenshot(page, { path: path.join(shots, "veto-ask.png"), fullPage: true });
    await page.click("#vetoyes");
    await page.waitForFunction((id) => !window.aide.table.pieces.some((p) => p.id === id), unit);
    // The table without it may come before the answer: wait for the answer's line too.
    await page.waitForFunction(() => /^Vetoed/.test(document.querySelector("#handout")?.textContent || ""));
    // Three seconds of the camera still filming that block: it stays off the table.
    const seq = await page.evaluate(() => window.aide.seq);
    await page.waitForTimeout(3000);
    assert.equal(await pose(unit), null, "the vetoed block stays off");
    const near = await page.evaluate(([x, y]) => window.aide.table.pieces
      .filter((p) => Math.hypot(p.pose.x_in - x, p.pose.y_in - y) < 1).map((p) => p.id), [at.x_in, at.y_in]);
    assert.deepEqual(near, [], "nothing stands at the vetoed place");

    // Camera missed a piece? The vetoed unit is off the table, so it may be placed.
    await page.waitForSelector("#placeunit");
    await thumb("#placeunit");
    await page.selectOption("#placeunit", unit);
    await page.waitForFunction(() => /^Tap where/.test(document.querySelector("#placestep")?.textContent || ""));
    await page.click("#zoomfit"); // the whole map: the spot is in view
    const spot = { x: 30, y: 8 };
    await tapMap(page, spot.x, spot.y);
    await page.waitForFunction(() => /^Now tap the way/.test(document.querySelector("#placestep")?.textContent || ""));
    assert.equal(await pose(unit), null, "not placed before its facing is given");
    await tapMap(page, spot.x + 1.5, spot.y); // facing east: 90°
    await page.waitForFunction((id) => window.aide.table.pieces.some((p) => p.id === id), unit);
    const put = await pose(unit);
    assert.ok(Math.hypot(put.x_in - spot.x, put.y_in - spot.y) < 0.15, `placed at (${put.x_in}, ${put.y_in})`);
    assert.ok(Math.abs(put.heading_deg - 90) < 5, `facing ${put.heading_deg}`);
    await page.waitForFunction(() => /placed by hand/.test(document.querySelector("#handout")?.textContent || ""));
    // Held there while the camera sees nothing at that place.
    await page.waitForTimeout(2000);
    const still = await pose(unit);
    assert.deepEqual([still.x_in, still.y_in], [put.x_in, put.y_in], "held where it was put");
    assert.ok(await page.evaluate((s) => window.aide.seq >= s, seq));
    const scrollW = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollW <= 390, `page is ${scrollW} px wide`);
    await screenshot(page, { path: path.join(shots, "veto-placed.png"), fullPage: true });

    // Both are in the log.
    await page.click("#log");
    await page.waitForFunction(() => {
      const t = document.querySelector("#logout").textContent;
      return /not a piece, says umpire/.test(t) && /placed by hand at \(30\.\d\d, [78]\.\d\d\) by umpire/.test(t);
    }, null, { timeout: 15000 });
    assert.deepEqual(errors, [], "no script errors");
    console.log(`ok: vetoed ${unit} at (${at.x_in.toFixed(2)}, ${at.y_in.toFixed(2)}), placed at (${put.x_in.toFixed(2)}, ${put.y_in.toFixed(2)}) facing ${put.heading_deg}`);
  } finally {
    await close();
  }
}

run(main);
