// What the browser tests share: a phone-sized headless Chromium with touch, and taps at
// map inches.
"use strict";
const { chromium } = require("playwright-core");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/** A 390x844 touch phone at 2x in a throwaway profile; `close()` removes the profile.
 *  `errors` collects every script error the page throws. */
async function phone() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "aide-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    // LocalNetworkAccessChecks: a page the test serves through a route (to add a CSP
    // header) counts as public, and Chromium then refuses its WebSocket to 127.0.0.1.
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--disable-features=LocalNetworkAccessChecks"],
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const page = context.pages()[0] || (await context.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const close = async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, errors, close };
}

/** A tap on the map at (x, y) in map inches. */
async function tapMap(page, x, y) {
  const [sx, sy] = await page.evaluate(([x, y]) => window.aide.mapToScreen(x, y), [x, y]);
  await page.touchscreen.tap(sx, sy);
}

/** A screenshot for the record (the tests assert on the page, not on pictures). Once in
 *  some dozens of runs headless Chromium has left a capture waiting for a frame until its
 *  30 s timeout, the page otherwise fine: give the first try 15 s, then take it again. */
async function screenshot(page, options) {
  try {
    await page.screenshot({ ...options, timeout: 15000 });
  } catch (e) {
    if (e.name !== "TimeoutError") throw e;
    console.log(`screenshot ${options.path}: no frame in 15 s, trying again`);
    await page.screenshot({ ...options, timeout: 30000 });
  }
}

/** Run a test's main, failing the process on any error. */
function run(main) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

module.exports = { phone, tapMap, run, screenshot };
