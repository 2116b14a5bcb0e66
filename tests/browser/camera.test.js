// The camera check as a page step, at 390x844 (and the tools at 844x390): the demo watched through its synthetic
// camera; the umpire's Camera panel shows the picture with the four corner tags outlined
// where GET /api/camera-check found them, each card's pixels an inch as the check gives
// them, the accuracy to expect and the advice. Run by tests/web_browser.rs, which starts
// the server and passes AIDE_URL and AIDE_SHOTS (docs/camera-check.png is its screenshot).
"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { phone, run, screenshot } = require("./phone");

const url = process.env.AIDE_URL;

async function main() {
  const { page, errors, close } = await phone();
  try {
    await page.goto(url);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    // The button shows once the feed says a camera watches the table.
    // (The debug build renders and reads its first frames slowly: up to a minute.)
    await page.waitForSelector("#camera:not([hidden])", { timeout: 60000 });
    await page.click("#camera");
    await page.waitForSelector("#camerapic polygon.tagfound", { timeout: 20000 });

    // What the server's check says about the frame the page drew.
    const shown = await page.evaluate(() => window.aide.cameraReport);
    assert.equal(shown.cards.filter((c) => c.found).length, 4, JSON.stringify(shown));
    const outlines = await page.locator("#camerapic polygon.tagfound").count();
    assert.equal(outlines, 4, "one outline per card found");
    // Each outline is drawn where the check found its tag (the SVG's own coordinates are
    // the frame's pixels).
    for (const c of shown.cards) {
      const points = await page.getAttribute(`#camerapic polygon[data-card='${c.id}']`, "points");
      const drawn = points.split(" ").map((p) => p.split(",").map(Number));
      drawn.forEach((p, i) => {
        assert.ok(Math.abs(p[0] - c.outline_px[i][0]) < 1e-6 && Math.abs(p[1] - c.outline_px[i][1]) < 1e-6,
          `card ${c.id} corner ${i}: ${p} drawn, ${c.outline_px[i]} found`);
      });
      const row = await page.locator(`#cameracards tr[data-card='${c.id}'] td`).allTextContents();
      assert.equal(row[1], "yes");
      assert.equal(row[2], c.px_per_in.toFixed(1), `card ${c.id} px/in`);
    }
    // The picture is the frame itself, at its size.
    const size = await page.evaluate(() => new Promise((resolve, reject) => {
      const img = new Image();
      img.onload = () => resolve([img.naturalWidth, img.naturalHeight]);
      img.onerror = reject;
      img.src = document.querySelector("#camerapic image").getAttribute("href");
    }));
    assert.deepEqual(size, shown.frame);
    // The accuracy to expect and the advice, in words.
    const expected = await page.textContent("#cameraexpected");
    assert.ok(expected.includes(`±${shown.expected_in.toFixed(3)} in`), expected);
    const advice = await page.textContent("#camerafix");
    if (shown.fix.length === 0) assert.equal(advice, "Good: nothing to fix.");
    else for (const f of shown.fix) assert.ok(advice.includes(f), advice);
    // Made for a 390 px portrait screen: no horizontal scroll, the picture fits.
    const scrollW = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollW <= 390, `page is ${scrollW} px wide`);
    // Every tool button's label fits it (seven in a row at 390 px).
    const clipped = await page.evaluate(() => [...document.querySelectorAll("#tools button")]
      .filter((b) => !b.hidden && b.scrollWidth > b.clientWidth).map((b) => b.id));
    assert.deepEqual(clipped, [], "tool buttons whose label is cut");
    const pic = await page.locator("#camerapic").boundingBox();
    assert.ok(pic.width <= 390 && pic.width > 300, JSON.stringify(pic));

    await page.locator("#camerapanel").scrollIntoViewIfNeeded();
    await screenshot(page, { path: path.join(process.env.AIDE_SHOTS, "camera-check.png"), fullPage: true });

    // Turned to 844x390, the seven tools beside the map take two rows, none cut.
    await page.setViewportSize({ width: 844, height: 390 });
    await page.waitForFunction(() => document.querySelector("#side").getBoundingClientRect().x > 400);
    const rows = await page.$$eval("#tools button", (bs) => new Set(bs.filter((b) => !b.hidden).map((b) => Math.round(b.getBoundingClientRect().y))).size);
    assert.equal(rows, 2, "tool rows at 844x390");
    const cutWide = await page.evaluate(() => [...document.querySelectorAll("#tools button")]
      .filter((b) => !b.hidden && b.scrollWidth > b.clientWidth).map((b) => b.id));
    assert.deepEqual(cutWide, [], "tool buttons whose label is cut at 844x390");
    await screenshot(page, { path: path.join(process.env.AIDE_SHOTS, "camera-landscape.png") });
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
}

run(main);
