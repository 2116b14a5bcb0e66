// Two phones at two seats of one game, in headless Chromium: each page holds its own
// side's names and only anonymous blocks of the other's, keeps its seat over a reload,
// and runs under the server's Content-Security-Policy without a violation. Run by
// tests/web_seats.rs, which starts `aide serve --seats` on the demo and passes the seats'
// addresses in AIDE_SEATS (JSON: [{side, url}]).
"use strict";
const { chromium } = require("playwright-core");
const assert = require("node:assert/strict");

const seats = JSON.parse(process.env.AIDE_SEATS);

async function open(browser, seat) {
  // A context per phone: its own localStorage, as two phones have.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(String(e)));
  // Console errors (a CSP violation is one) and failed requests, but for the favicon
  // the page does not have (its console error names no address, so it is left out here).
  page.on("console", (m) => { if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(m.text()); });
  page.on("response", (r) => { if (r.status() >= 400 && !r.url().endsWith("/favicon.ico")) problems.push(`${r.status()} ${r.url()}`); });
  await page.goto(seat.url);
  try {
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
  } catch (e) {
    throw new Error(`${seat.side}'s page never got ready: ${problems.join("; ")}`);
  }
  return { page, problems };
}

async function seen(page) {
  return page.evaluate(() => ({
    pieces: window.aide.table.pieces,
    units: window.aide.scenario.units,
    report: window.aide.report.pieces,
    hash: location.hash,
    badge: document.getElementById("seatname").textContent,
    drawn: document.querySelectorAll("#pieces polygon.piece").length,
  }));
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const phones = [];
    for (const seat of seats) phones.push({ seat, ...(await open(browser, seat)) });
    const all = new Set();
    for (const { seat, page } of phones) {
      const s = await seen(page);
      assert.equal(s.hash, "", "the token leaves the address bar");
      assert.equal(s.badge, seat.side);
      assert.equal(s.drawn, s.pieces.length, "every piece and block is drawn");
      const mine = s.pieces.filter((p) => p.side === seat.side);
      const theirs = s.pieces.filter((p) => p.side !== seat.side);
      assert.ok(mine.length > 0 && theirs.length > 0);
      for (const p of mine) {
        assert.ok(!p.block && !p.id.startsWith("?"), JSON.stringify(p));
        all.add(p.id);
      }
      for (const p of theirs) {
        assert.equal(p.block, true, JSON.stringify(p));
        assert.match(p.id, /^\?\d+$/);
        // Quality only in contact: "No puedes ver la Calidad hasta el contacto".
        const touched = s.report.some((r) => r.in_contact_with.includes(p.id));
        assert.equal(p.quality !== undefined, touched, JSON.stringify(p));
        assert.equal(p.command, undefined);
      }
      assert.ok(s.units.every((u) => u.side === seat.side), "only its own order of battle");
      assert.ok(s.report.every((r) => r.side === seat.side), "only its own verdicts");
      // The other side's ids appear nowhere in what the page holds.
      const held = JSON.stringify(await page.evaluate(() => [window.aide.table, window.aide.report, window.aide.scenario, window.aide.live]));
      seat.held = held;
      seat.mine = mine.map((p) => p.id);
    }
    // Each side's ids are in its own page only.
    for (const { seat } of phones) {
      for (const other of phones.filter((o) => o.seat !== seat)) {
        for (const id of other.seat.mine) assert.ok(!seat.held.includes(`"${id}"`), `${seat.side} holds ${id}`);
      }
    }
    // Tapping an own piece shows its name; the page keeps its seat over a reload.
    const { seat, page } = phones[0];
    const own = seat.mine[0];
    await page.evaluate((id) => window.aide.select(id), own);
    await page.waitForSelector("#info h3", { timeout: 10000 });
    const name = await page.evaluate((id) => window.aide.scenario.units.find((u) => u.id === id).name, own);
    assert.ok((await page.textContent("#info h3")).includes(name));
    await page.reload();
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    assert.equal((await seen(page)).badge, seat.side, "the seat survives a reload");
    for (const p of phones) assert.deepEqual(p.problems, [], `${p.seat.side}: page errors or CSP violations`);
    console.log(`ok: ${phones.map((p) => p.seat.side).join(" and ")} each see their own pieces and the other's blocks`);
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
