// The camera's picture as evidence, in headless Chromium at 390x844: on the demo watched
// through its synthetic camera, the Photo button lays the camera's picture of the table
// (the map plane of the last still frame, fetched from /api/evidence.jpg) under the
// verdict: the command ring and field of fire of a tapped piece, the sight line of a
// pair, the ruler; in the log's replay, the journal's picture of the past state. Run by tests/web_browser.rs, which starts the server and passes
// AIDE_URL (the watched table, after page.test.js) and AIDE_SHOTS.
"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { phone, tapMap, run, screenshot } = require("./phone");

const url = process.env.AIDE_URL;
const shots = process.env.AIDE_SHOTS;

async function main() {
  const { page, errors, close } = await phone();
  try {
    await page.goto(url);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    // The tracker has committed a still frame: the picture exists.
    await page.waitForFunction(async () => (await fetch("/api/evidence.jpg")).ok, null, { timeout: 120000, polling: 500 });
    const poseOf = (id) => page.evaluate((id) => window.aide.table.pieces.find((p) => p.id === id).pose, id);

    // A piece's verdict, then the photo under it.
    const a = await poseOf("red-2-inf-1");
    await tapMap(page, a.x_in, a.y_in);
    await page.waitForSelector("#command");
    const button = await page.locator("#photo").boundingBox();
    assert.ok(button.height >= 44 && button.width >= 44, `Photo is ${button.width}x${button.height} px`);
    await page.click("#photo");
    await page.waitForSelector("body.photo", { timeout: 30000 });
    assert.match(await page.textContent("#photonote"), /^Camera · #\d+ · /);
    assert.equal(await page.getAttribute("#photo", "aria-pressed"), "true");
    // The picture: a JPEG of the whole 36 x 24 in map at 20 px an inch, drawn over it.
    const size = await page.evaluate(async () => {
      const href = document.querySelector("#evimg").getAttribute("href");
      // (an <img>, not fetch: the page's policy lets images, not connections, read blob:)
      const image = new Image();
      image.src = href;
      await image.decode();
      return { href, w: image.naturalWidth, h: image.naturalHeight };
    });
    assert.match(size.href, /^blob:/);
    assert.deepEqual([size.w, size.h], [720, 480]);
    const shown = (sel) => page.evaluate((sel) => {
      const e = document.querySelector(sel);
      return !!e && getComputedStyle(e).display !== "none" && e.getBoundingClientRect().width > 0;
    }, sel);
    assert.ok(await shown("#evimg"), "the picture is shown");
    assert.ok(!(await shown("#pieces")), "the drawn pieces give way to the real ones");
    // Laid on the map in map inches (the tap zoomed onto the piece): its corners are the
    // map's corners on the screen.
    const img = await page.locator("#evimg").boundingBox();
    const [x0, y0] = await page.evaluate(() => window.aide.mapToScreen(0, 0));
    const [x1, y1] = await page.evaluate(() => window.aide.mapToScreen(36, 24));
    for (const [got, want] of [[img.x, x0], [img.y, y0], [img.x + img.width, x1], [img.y + img.height, y1]]) {
      assert.ok(Math.abs(got - want) < 1, `picture ${JSON.stringify(img)} on the map from (${x0}, ${y0}) to (${x1}, ${y1})`);
    }
    // The verdict over it, where the rules put it.
    assert.equal(await page.locator("#under .range").count(), 1, "command ring drawn");
    assert.equal(await page.locator("#under .fof").count(), 1, "field of fire drawn");
    assert.ok(await shown("#under .range") && await shown("#under .fof"), "the verdict is on the picture");
    const ring = await page.locator("#under .range").boundingBox();
    assert.ok(ring.x >= img.x - 1 && ring.x + ring.width <= img.x + img.width + 1, "the ring lies on the picture");
    const scrollW = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollW <= 390, `page is ${scrollW} px wide`);
    await screenshot(page, { path: path.join(shots, "evidence-piece.png") });

    // A pair: the sight line between them on the picture.
    // (selected as a tap selects it: after the zoom onto the first, it is off the screen)
    await page.evaluate(() => window.aide.select("blue-2-gd"));
    await page.waitForSelector("#sight");
    assert.equal(await page.locator("#over .sightline").count(), 1, "sight line drawn");
    assert.ok(await shown("#over .sightline"));
    await screenshot(page, { path: path.join(shots, "evidence-pair.png") });

    // The ruler on the picture.
    await page.click("#zoomfit");
    await page.click("#ruler");
    await tapMap(page, 10, 10);
    await tapMap(page, 16, 10);
    await page.waitForSelector("#rulerout");
    assert.ok(await shown("#over .rulerline"), "ruler drawn on the picture");

    // The log's replay of a past state shows the journal's picture of that state, or why
    // there is none (the journal's first state came from the state file; the camera's
    // first still frame goes to the newest state then, which page.test.js's naming may
    // have made another), and Live the live one again.
    await page.click("#log");
    await page.waitForFunction(() => window.aide.logStates.length > 1);
    const first = await page.evaluate(() => window.aide.logStates[0].seq);
    const pictured = await page.evaluate(async (seq) => (await fetch(`/api/log/${seq}/picture.jpg`)).ok, first);
    await page.$eval("#slider", (el) => { el.value = "0"; el.dispatchEvent(new Event("input")); });
    await page.waitForFunction(() => document.body.classList.contains("history"));
    await page.waitForFunction(() => /log state|^[^C]/.test(document.querySelector("#photonote").textContent));
    if (pictured) {
      assert.match(await page.textContent("#photonote"), new RegExp(`^Camera · log state #${first} · `));
      assert.ok(await shown("#evimg"), "the past state's picture is shown");
    } else {
      assert.equal(await page.textContent("#photonote"),
        `state ${first} has no camera picture in the journal (it was not seen by a camera, or is not a state of it)`);
      assert.ok(await shown("#pieces") && !(await shown("#evimg")), "without a picture, the drawn pieces");
    }
    await page.click("#livebtn");
    await page.waitForFunction(() => /^Camera · #\d+ · /.test(document.querySelector("#photonote").textContent));

    // Off again: the drawn pieces are back.
    await page.click("#photo");
    assert.equal(await page.evaluate(() => document.body.classList.contains("photo")), false);
    assert.ok(await shown("#pieces"));
    assert.deepEqual(errors, [], "no script errors");
    console.log(`ok: picture ${size.w}x${size.h} under the verdict; log state #${first} ${pictured ? "pictured" : "without a picture, said so"}`);
  } finally {
    await close();
  }
}

run(main);
