// Every demo scenario (scenarios/demo Pub Battles, scenarios/ohw-demo One Hour Wargames,
// scenarios/nbc-demo NBC) in headless Chromium, in portrait (390x844) and landscape
// (844x390): pieces readable and tappable, the layout, terrain drawn by type, distances
// in the rules' measure, rolls, the list view, the log, the manifest and the reconnect.
// Run by tests/web_browser.rs, which starts one server per scenario and passes AIDE_URLS
// ("name=url name=url …"), AIDE_PIDS ("name=pid …", to freeze a server) and AIDE_SHOTS.
"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { phone, tapMap, run, screenshot } = require("./phone");

/** "name=value name=value …" as { name: value }. */
const byName = (list) => Object.fromEntries(list.split(" ").map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
const urls = byName(process.env.AIDE_URLS);
const pids = byName(process.env.AIDE_PIDS);
const shots = process.env.AIDE_SHOTS;
const VIEWPORTS = [{ name: "portrait", width: 390, height: 844 }, { name: "landscape", width: 844, height: 390 }];

async function tapPiece(page, id) {
  const p = await page.evaluate((id) => window.aide.table.pieces.find((q) => q.id === id).footprint.center, id);
  await tapMap(page, p.x, p.y);
}
const inView = (b, vp) => b && b.y >= 0 && b.y + Math.min(b.height, 40) <= vp.height && b.x >= 0 && b.x + b.width <= vp.width + 0.5;

/** The checks every scenario passes at every size. */
async function common(page, vp, name) {
  const sc = await page.evaluate(() => window.aide.scenario);
  const n = await page.evaluate(() => window.aide.table.pieces.length);
  // No sideways scrolling, whichever panel is open.
  for (const b of ["#list", "#dice", "#log", null]) {
    if (b) await page.click(b);
    const w = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(w <= vp.width, `${name} ${vp.name}: page is ${w} px wide with ${b || "the verdict"} open`);
  }
  // In landscape the map stands beside the panel, both fully on the screen.
  const map = await page.locator("#map").boundingBox();
  const side = await page.locator("#side").boundingBox();
  if (vp.width > vp.height) {
    assert.ok(side.x >= map.x + map.width - 0.5, `${name}: the panel (x ${side.x}) is beside the map (to ${map.x + map.width})`);
    assert.ok(map.y + map.height <= vp.height + 0.5 && side.y + side.height <= vp.height + 0.5, `${name}: map and panel fit the screen's height`);
    assert.ok(side.width >= 240, `${name}: panel ${side.width} px wide`);
  } else {
    assert.ok(Math.abs(map.width - vp.width) < 1, `${name}: the map spans the phone's width`);
  }
  // The map has no grey bars: the SVG box has the map's proportions.
  const ratio = sc.map.width_in / sc.map.height_in;
  assert.ok(Math.abs(map.width / map.height - ratio) < 0.02, `${name} ${vp.name}: map box ${map.width}x${map.height}, map ${ratio.toFixed(3)}`);

  // Every piece has a type mark, and at the zoom a tap gives it, its label.
  assert.equal(await page.locator("#marks .pmark rect.mark").count(), n, "one type mark per piece");
  const labels = await page.evaluate(() => {
    const a = window.aide, out = [];
    for (const p of a.table.pieces) {
      a.sel = [p.key];
      a.zoomToSelection();
      const t = document.querySelector(`#marks text.plabel[data-key="${CSS.escape(p.key)}"]`);
      out.push([p.key, t ? t.textContent : null, a.labelOf(p)]);
    }
    a.sel = [];
    return out;
  });
  for (const [key, shown, want] of labels) assert.equal(shown, want, `${name}: ${key} labelled when selected`);
  await page.click("#zoomfit");

  // Touch targets: at the whole map, at 2x and at 6x, a finger 20 px beyond the front
  // edge of an isolated piece picks it, and so does one on the far end of its footprint.
  for (const zoom of [1, 2, 6]) {
    await page.click("#zoomfit");
    const r = await page.evaluate((zoom) => {
      const a = window.aide;
      // The piece farthest from every other one.
      const ps = a.table.pieces;
      const gap = (p) => Math.min(...ps.filter((q) => q !== p).map((q) => Math.hypot(p.footprint.center.x - q.footprint.center.x, p.footprint.center.y - q.footprint.center.y)));
      const p = ps.reduce((b, q) => (gap(q) > gap(b) ? q : b));
      a.zoomAt(p.footprint.center.x, p.footprint.center.y, zoom);
      const fp = p.footprint, hd = (fp.heading_deg * Math.PI) / 180, ppi = a.pxPerInch();
      const ahead = fp.depth_in / 2 + 20 / ppi;
      const front = [fp.center.x + Math.sin(hd) * ahead, fp.center.y - Math.cos(hd) * ahead];
      const end = [fp.center.x + Math.cos(hd) * fp.frontage_in * 0.48, fp.center.y + Math.sin(hd) * fp.frontage_in * 0.48];
      return { key: p.key, front, end };
    }, zoom);
    for (const [x, y] of [r.front, r.end]) {
      // Only where no other piece is as near: there the nearest wins, as it should.
      const crowded = await page.evaluate(([key, x, y]) => {
        const a = window.aide;
        return a.table.pieces.some((q) => q.key !== key && a.distanceToFootprint(q.footprint, x, y) * a.pxPerInch() < 30);
      }, [r.key, x, y]);
      if (crowded) continue;
      await page.click("#clear");
      await tapMap(page, x, y);
      await page.waitForFunction((k) => window.aide.sel[0] === k, r.key, { timeout: 3000 });
    }
  }
  await page.click("#clear");
  await page.click("#zoomfit");

  // A tap zooms onto the piece and its neighbours (every piece within 4 in stays in the
  // view), rings it, and names it in the verdict on the screen, the page unscrolled.
  const hub = await page.evaluate(() => {
    const ps = window.aide.table.pieces;
    const near = (p) => ps.filter((q) => q !== p && Math.hypot(p.footprint.center.x - q.footprint.center.x, p.footprint.center.y - q.footprint.center.y) <= 4);
    const p = ps.filter((q) => q.id && window.aide.report.pieces.some((r) => r.id === q.id)).reduce((b, q) => (near(q).length > near(b).length ? q : b));
    return { id: p.id, near: near(p).map((q) => q.key) };
  });
  assert.ok(hub.near.length > 0, `${name}: a piece with neighbours`);
  await tapPiece(page, hub.id);
  await page.waitForSelector(`#info h3[data-key="${hub.id}"]`);
  const zoomed = await page.evaluate((keys) => {
    const a = window.aide, v = a.vb;
    const inBox = (k) => a.table.pieces.find((p) => p.key === k).footprint.center;
    return { w: v.w, out: keys.filter((k) => { const c = inBox(k); return !(c.x >= v.x && c.x <= v.x + v.w && c.y >= v.y && c.y <= v.y + v.h); }) };
  }, hub.near);
  assert.ok(zoomed.w < sc.map.width_in, `${name} ${vp.name}: zoomed in (${zoomed.w} of ${sc.map.width_in} in)`);
  assert.deepEqual(zoomed.out, [], `${name} ${vp.name}: neighbours of ${hub.id} out of the view`);
  assert.equal(await page.locator("#marks .pmark.sel circle.ring.sel").count(), 1, `${name}: the selection is ringed`);
  assert.ok(inView(await page.locator("#info h3").boundingBox(), vp), `${name} ${vp.name}: the verdict in view`);
  assert.equal(await page.evaluate(() => window.scrollY), 0, `${name}: no scrolling`);
  const hubTerms = await page.$$eval("#info dt", (ds) => ds.map((d) => d.textContent));
  assert.equal(new Set(hubTerms).size, hubTerms.length, `${name}: no line twice: ${hubTerms}`);
  await screenshot(page, { path: path.join(shots, `${name}-${vp.name}-tap.png`) });
  await page.click("#clear");
  await page.click("#zoomfit");
}

async function main() {
  const { context, page, errors, close } = await phone();
  const open = async (name, vp) => {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    await page.goto(urls[name]);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
  };
  try {
    for (const vp of VIEWPORTS) {
      // ---------- Pub Battles ----------
      await open("demo", vp);
      await common(page, vp, "demo");
      const rep = await page.evaluate(() => window.aide.report);
      // A tap zooms onto the piece; its mark is ringed; the verdict is on the screen
      // without scrolling.
      const mapW = await page.evaluate(() => window.aide.scenario.map.width_in);
      await tapPiece(page, "red-2-inf-1");
      await page.waitForSelector("#command");
      const [vbw, inBox] = await page.evaluate(() => {
        const a = window.aide, c = a.table.pieces.find((p) => p.id === "red-2-inf-1").footprint.center, v = a.vb;
        return [v.w, c.x > v.x && c.x < v.x + v.w && c.y > v.y && c.y < v.y + v.h];
      });
      assert.ok(vbw < mapW / 2 && inBox, `zoomed to ${vbw} in of ${mapW}, the piece in view`);
      assert.equal(await page.locator('#marks .pmark.sel circle.ring.sel').count(), 1, "the selection is ringed");
      assert.equal(await page.evaluate(() => window.scrollY), 0, "no scrolling");
      for (const sel of ["#info h3", "#command"]) {
        assert.ok(inView(await page.locator(sel).boundingBox(), vp), `${sel} in view at ${vp.name}`);
      }
      assert.match(await page.textContent("#info h3"), /Carvell Militia/, "named, not an id");
      await screenshot(page, { path: path.join(shots, `demo-${vp.name}-piece.png`) });

      // The list view: "my pieces out of command" as the report has them.
      await page.click("#list");
      await page.selectOption("#me", "red");
      const outIds = rep.pieces.filter((r) => r.side === "red" && r.in_command === false).map((r) => r.id).sort();
      const listed = await page.$$eval("#q-command .listbtn", (bs) => bs.map((b) => b.dataset.id).sort());
      assert.deepEqual(listed, outIds, "out of command");
      const seers = rep.pieces.filter((r) => r.side === "blue" && r.can_see.some((id) => id.startsWith("red-"))).map((r) => r.id).sort();
      assert.deepEqual(await page.$$eval("#q-seen .listbtn", (bs) => bs.map((b) => b.dataset.id).sort()), seers, "enemies that see mine");
      assert.ok(seers.length > 0 && outIds.length > 0);
      await screenshot(page, { path: path.join(shots, `demo-${vp.name}-list.png`) });
      await page.click(`#q-command .listbtn[data-id="${outIds[0]}"]`);
      await page.waitForSelector(`#info h3[data-key="${outIds[0]}"]`);
      assert.match(await page.textContent("#command"), /^OUT of command/);

      // A combat roll is final: no re-roll button.
      await page.click("#clear");
      const pair = rep.pieces.find((r) => r.in_contact_with.length > 0);
      await tapPiece(page, pair.id);
      await page.waitForSelector("#command");
      await tapPiece(page, pair.in_contact_with[0]);
      await page.waitForSelector("#pairroll");
      assert.ok(inView(await page.locator("#distance").boundingBox(), vp), "the pair's verdict in view");
      await page.click("#pairroll");
      await page.waitForSelector("#rollresult");
      assert.equal(await page.locator("#reroll").count(), 0, "no re-roll");
      assert.ok(inView(await page.locator("#rollresult").boundingBox(), vp), "the roll in view");
      await screenshot(page, { path: path.join(shots, `demo-${vp.name}-combat.png`) });

      // The log: each line numbered once, by its state ("#3 …"), not also by the list.
      await page.click("#log");
      await page.waitForFunction(() => document.querySelectorAll("#logout li .seq").length > 0);
      const [tag, style, first] = await page.evaluate(() => {
        const l = document.querySelector("#logout");
        return [l.tagName, getComputedStyle(l.querySelector("li")).listStyleType, l.querySelector("li").textContent];
      });
      assert.equal(tag, "UL");
      assert.equal(style, "none");
      assert.match(first, /^#\d+ [^#]*$/, `one number: "${first}"`);

      // The ruler: a finger at the whole map claims no hundredths of an inch.
      await page.click("#clear");
      await page.click("#zoomfit");
      await page.click("#ruler");
      await tapMap(page, 10, 6);
      await tapMap(page, 12.4, 7.8);
      await page.waitForSelector("#rulerout");
      const coarse = await page.textContent("#rulerout");
      assert.match(coarse, /^\d+ in$/, `at the whole map: "${coarse}"`);
      await page.click("#ruler");

      // ---------- One Hour Wargames ----------
      await open("ohw-demo", vp);
      await common(page, vp, "ohw");
      // Terrain by type: the files say `terrain`; every type its own fill.
      const fills = await page.$$eval("#terrain .terrain", (ps) => ps.map((p) => [p.dataset.terrain, p.getAttribute("fill") || p.getAttribute("stroke")]));
      const kinds = new Set(fills.map(([k]) => k));
      assert.ok(kinds.has("woods") && kinds.has("buildings") && kinds.has("hill"), [...kinds].join(","));
      assert.ok(!fills.some(([, f]) => f === "#999"), "no terrain drawn as the unknown grey");
      assert.equal(new Set(fills.map(([, f]) => f)).size, kinds.size, "one fill per type");
      // Distances in hexes, the number the shooting line gives.
      const ohw = await page.evaluate(() => window.aide.report);
      const far = ohw.pieces.flatMap((r) => (r.hex ? r.hex.shots.map((s) => [r.id, s]) : [])).find(([, s]) => s.range_hex > 1);
      assert.ok(far, "a shot at more than 1 hex");
      await tapPiece(page, far[0]);
      await page.waitForSelector("#shots");
      await tapPiece(page, far[1].target);
      await page.waitForSelector("#distance");
      assert.equal(Number(await page.getAttribute("#distance", "data-rules")), far[1].range_hex);
      assert.equal(await page.textContent("#distance"), `${far[1].range_hex} hexes`);
      assert.doesNotMatch(await page.textContent("#sightrange"), /\d\.\d|in\b/, "sight range in whole hexes");
      // A tapped unit's lines are OHW's: its hex and shots, no flank (OHW has no flank
      // rule) and no "Can see" saying again what the Shooting line says with reasons.
      await page.click("#clear");
      await tapPiece(page, far[0]);
      await page.waitForSelector(`#info h3[data-key="${far[0]}"]`);
      const ohwTerms = await page.$$eval("#info dt", (ds) => ds.map((d) => d.textContent));
      assert.ok(ohwTerms.includes("Hex") && ohwTerms.includes("Shooting"), `${ohwTerms}`);
      assert.ok(!ohwTerms.includes("Flanked by") && !ohwTerms.includes("Can see"), `${ohwTerms}`);
      // A shot rolled from the page.
      const shot = ohw.pieces.flatMap((r) => (r.hex ? r.hex.shots.filter((s) => s.allowed).map((s) => [r.id, s]) : []))[0];
      await page.click("#clear");
      await tapPiece(page, shot[0]);
      await page.waitForSelector("#shots");
      await tapPiece(page, shot[1].target);
      await page.click("#pairroll");
      await page.waitForSelector("#rollresult");
      assert.match(await page.textContent("#rollresult"), / shoots /);
      const hits = await page.evaluate(() => window.aide.lastDice.result);
      assert.equal(await page.textContent("#hits"), `${hits.hits} hit${hits.hits === 1 ? "" : "s"}`);
      assert.ok(hits.die >= 1 && hits.die <= 3);
      await screenshot(page, { path: path.join(shots, `ohw-${vp.name}-shot.png`) });
      // A shot the rules refuse is refused with their reason (422), an unknown piece 404.
      const refused = ohw.pieces.flatMap((r) => (r.hex ? r.hex.shots.filter((s) => !s.allowed).map((s) => [r.id, s]) : []))[0];
      const post = (body, route = "/api/roll") => page.evaluate(async ([body, route]) => {
        const r = await fetch(route, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        return [r.status, (await r.json()).error];
      }, [body, route]);
      const [code, why] = await post({ combat: [refused[0], refused[1].target] });
      assert.equal(code, 422);
      assert.equal(why, `${refused[0]} may not shoot ${refused[1].target}: ${refused[1].reason}`);
      assert.equal((await post({ combat: [refused[0], "ghost"] }))[0], 404);
      // A morale test rolled from the page: "Roll two D6 and sum the score ... If the score is
      // less than or equal to the unit's hits, the unit has failed". With 8 hits a total of 8 or
      // less fails; the 2nd Brigade has its commander, who is lost in its place; once he
      // is lost, a failure routs the unit.
      for (const [lost, failed] of [[false, "commander-lost"], [true, "routed"]]) {
        await page.click("#clear");
        await tapPiece(page, "b-inf-2");
        await page.waitForSelector("#moraleroll");
        // In portrait the test is under the verdict at once; in landscape the panel beside
        // the map is 346 px high and the player scrolls it to the test, below the shots.
        if (vp.width > vp.height) await page.locator("#moraleroll").scrollIntoViewIfNeeded();
        assert.ok(inView(await page.locator("#moraleroll").boundingBox(), vp), `the morale test in view at ${vp.name}`);
        assert.equal(await page.evaluate(() => window.scrollY), 0, "the page itself does not scroll");
        await page.fill("#moralehits", "8");
        if (lost) await page.check("#commanderlost");
        await page.click("#moraleroll");
        await page.waitForSelector("#moraleout");
        const m = await page.evaluate(() => window.aide.lastDice);
        assert.equal(m.unit, "b-inf-2");
        assert.equal(m.commander, !lost);
        assert.equal(m.result.hits, 8);
        assert.equal(m.result.dice.length, 2);
        assert.equal(m.result.total, m.result.dice[0] + m.result.dice[1]);
        assert.equal(m.result.outcome, m.result.total <= 8 ? failed : "passed", `2D6 ${m.result.total} against 8 hits`);
        assert.equal(await page.locator("#diceout .die").count(), 2);
        assert.match(await page.textContent("#diceout"), new RegExp(`8 hits.*2D6 scores ${m.result.total}`));
        assert.match(await page.textContent("#moraleout"), m.result.outcome === "passed" ? /passes$/ : lost ? /routed/ : /commander is removed/);
        assert.ok(inView(await page.locator("#moraleout").boundingBox(), vp), "the morale result in view");
      }
      await screenshot(page, { path: path.join(shots, `ohw-${vp.name}-morale.png`) });
      // The same seed gives the same dice and the rule's outcome; 1 hit always passes
      // (2D6 is at least 2); 9 hits is refused: "routed and removed from play when they
      // exceed 8 hits".
      const seeded = await page.evaluate(async () => {
        const one = async (hits) => (await fetch("/api/roll", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ morale: { unit: "r-inf-2", hits }, seed: "r00000000000004d2" }) })).json();
        return [await one(5), await one(5), await one(1)];
      });
      assert.deepEqual(seeded[0].result.dice, seeded[1].result.dice);
      assert.equal(seeded[0].result.outcome, seeded[0].result.total <= 5 ? "routed" : "passed");
      assert.equal(seeded[2].result.outcome, "passed");
      const [c9, why9] = await post({ morale: { unit: "r-inf-2", hits: 9 } });
      assert.equal(c9, 422);
      assert.match(why9, /exceed 8 hits/);
      // No chit cup in One Hour Wargames: alternate turns, each with an event card.
      assert.equal(await page.isVisible("#cup"), false, "no Chits button under OHW");
      const [ohwCup, ohwWhy] = await post({}, "/api/chits/end-turn");
      assert.equal(ohwCup, 422);
      assert.match(ohwWhy, /^One Hour Wargames has no chit cup/);
      // Logged like every roll.
      await page.click("#log");
      await page.waitForFunction(() => [...document.querySelectorAll("#logout li")].some((l) => /morale: 2nd Brigade/.test(l.textContent)));
      // The list asks One Hour Wargames' questions: no command range in these rules, so
      // no "out of command"; my units that may shoot, and enemies that may shoot mine, as
      // the report's allowed shots have them.
      await page.click("#clear");
      await page.click("#list");
      await page.selectOption("#me", "blue");
      assert.equal(await page.locator("#q-command").count(), 0, "no command question in OHW");
      const allowed = (r) => r.hex.shots.filter((s) => s.allowed).map((s) => s.target);
      const shooters = ohw.pieces.filter((r) => r.side === "blue" && allowed(r).length).map((r) => r.id).sort();
      const threats = ohw.pieces.filter((r) => r.side === "red" && allowed(r).some((t) => t.startsWith("b-"))).map((r) => r.id).sort();
      assert.ok(shooters.length > 0 && threats.length > 0, `${shooters} / ${threats}`);
      assert.deepEqual(await page.$$eval("#q-shots .listbtn", (bs) => bs.map((b) => b.dataset.id).sort()), shooters, "my units that may shoot");
      assert.deepEqual(await page.$$eval("#q-seen .listbtn", (bs) => bs.map((b) => b.dataset.id).sort()), threats, "enemies that may shoot mine");
      assert.equal(await page.locator("#q-flanked").count(), 0, "no flank question in OHW");
      const line = await page.textContent(`#q-shots .listbtn[data-id="${shooters[0]}"]`);
      const nearest = ohw.pieces.find((r) => r.id === shooters[0]).hex.shots.find((s) => s.allowed);
      assert.ok(line.includes(`(${nearest.range_hex} ${nearest.range_hex === 1 ? "hex" : "hexes"})`), line);
      await screenshot(page, { path: path.join(shots, `ohw-${vp.name}-list.png`) });

      // ---------- NBC ----------
      await open("nbc-demo", vp);
      await common(page, vp, "nbc");
      const nbc = await page.evaluate(() => window.aide.report);
      // Command in centimetres, as NBC measures it; "Flanked by" once.
      const flanked = nbc.pieces.find((r) => r.nbc.flanked_by.length && r.nbc.command);
      await tapPiece(page, flanked.id);
      await page.waitForSelector("#command");
      const c = flanked.nbc.command;
      assert.equal(await page.textContent("#command"),
        `${c.in_command ? "in" : "OUT of"} command by ${Math.abs(c.margin_cm).toFixed(2)} cm (${await page.evaluate((id) => window.aide.nameOf(id), c.commander)}, radius ${c.radius_cm} cm)`);
      // The verdict readable beside the map too: at most four lines (six in landscape,
      // when the terms' column was as wide as "Army commander").
      const [cmdH, cmdFont] = await page.$eval("#command", (e) => [e.getBoundingClientRect().height, parseFloat(getComputedStyle(e).fontSize)]);
      assert.ok(cmdH <= cmdFont * 1.25 * 4, `${vp.name}: the command verdict ${cmdH} px high at ${cmdFont} px type`);
      const terms = await page.$$eval("#info dt", (ds) => ds.map((d) => d.textContent));
      assert.equal(terms.filter((t) => t === "Flanked by").length, 1, `terms: ${terms}`);
      assert.equal(new Set(terms).size, terms.length, "no line twice");
      assert.match(await page.textContent("#flanked"), /\d\.\d\d cm\)$/);
      // Between two pieces: centimetres, the contact zone's number.
      const zone = flanked.nbc.contact_zone[0];
      await tapPiece(page, zone.id);
      await page.waitForSelector("#distance");
      assert.equal(Number(await page.getAttribute("#distance", "data-rules")), zone.distance_cm);
      assert.equal(await page.textContent("#distance"), `${zone.distance_cm.toFixed(2)} cm`);
      // A battery's fire rolled from the page.
      const gun = nbc.pieces.find((r) => r.nbc.artillery.some((a) => a.allowed));
      const target = gun.nbc.artillery.find((a) => a.allowed).target;
      await page.click("#clear");
      await tapPiece(page, gun.id);
      await page.waitForSelector("#battery");
      await tapPiece(page, target);
      await page.click("#pairroll");
      await page.waitForSelector("#rollresult");
      assert.match(await page.textContent("#rollresult"), / fires at /);
      const fire = await page.evaluate(() => window.aide.lastDice.result);
      assert.equal(await page.locator("#diceout .die").count(), fire.first.length + fire.rerolled.length);
      await screenshot(page, { path: path.join(shots, `nbc-${vp.name}-fire.png`) });
      // Close combat is not in the NBC text the project has: two units in contact are
      // refused with that reason, not with "not within Long range".
      const foot = nbc.pieces.find((r) => !/artillery/.test(r.kind) && r.nbc.contact_zone.length && !r.nbc.artillery.length);
      assert.ok(foot, "a unit with an enemy in its contact zone");
      const cc = await page.evaluate(async (pair) => {
        const r = await fetch("/api/roll", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ combat: pair }) });
        return [r.status, (await r.json()).error];
      }, [foot.id, foot.nbc.contact_zone[0].id]);
      assert.equal(cc[0], 422);
      assert.match(cc[1], /not a battery.*Close Combat are not in the rules text/);
      // The page offers no roll for such a pair and says why, in place of the button.
      await page.click("#clear");
      await tapPiece(page, foot.id);
      await page.waitForSelector(`#info h3[data-key="${foot.id}"]`);
      await tapPiece(page, foot.nbc.contact_zone[0].id);
      await page.waitForSelector("#pairnoroll");
      assert.equal(await page.locator("#pairroll").count(), 0, "no roll offered for two units");
      assert.match(await page.textContent("#pairnoroll"), /is no battery: NBC's Firefight and Close Combat are not in the rules text/);
      // Under the pair's distance and sight: in view in portrait, a scroll of the panel
      // beside the map in landscape (as the roll button is).
      assert.ok(inView(await page.locator("#distance").boundingBox(), vp), "the pair's distance in view");
      if (vp.width > vp.height) await page.locator("#pairnoroll").scrollIntoViewIfNeeded();
      assert.ok(inView(await page.locator("#pairnoroll").boundingBox(), vp), `the reason in view at ${vp.name}`);
      assert.equal(await page.isDisabled("#combatbtn"), true);
      // No chit cup: it is Pub Battles' (Delay, Jump, night turns); NBC picks Formations
      // with Command Cards and a Command Pot its text does not describe. The page offers
      // no Chits; the server refuses the cup with that reason.
      assert.equal(await page.isVisible("#cup"), false, "no Chits button under NBC");
      const [drawCode, drawWhy] = await post({ viewer: "blue" }, "/api/chits/draw");
      assert.equal(drawCode, 422);
      assert.match(drawWhy, /^NBC has no chit cup: .*Command Card.*Command Pot/);
      assert.equal(await page.evaluate(async () => (await fetch("/api/chits")).status), 422);
      // The ruler in centimetres.
      await page.click("#clear");
      await page.click("#ruler");
      await page.evaluate(() => window.aide.zoomAt(20, 16.97, 6));
      await tapMap(page, 20, 15);
      await tapMap(page, 20, 18.937);
      await page.waitForSelector("#rulerout");
      // A finger is good to about 0.3 cm there: whole centimetres.
      assert.equal(await page.textContent("#rulerout"), "10 cm");
      await page.click("#ruler");
    }

    // ---------- an enemy the seat knows only by its side (fog of war) ----------
    // The seat's view sends such pieces without id, name, command or quality, sometimes
    // with a kind: each is still drawn with a mark and a label, and a tap says what is known.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(urls.demo);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    // The WebSocket's first message is the current state: arriving after the made-up
    // one below, it would put the names back (under load it came between the two).
    await page.waitForSelector("body[data-live='1']", { timeout: 20000 });
    const fog = await page.evaluate(() => {
      const a = window.aide, msg = JSON.parse(JSON.stringify(a.live));
      msg.seq += 1000;
      let n = 0;
      for (const p of msg.table.pieces) {
        if (p.side !== "blue") continue;
        for (const k of ["id", "name", "command", "quality"]) delete p[k];
        if (n++ % 2) delete p.kind;
      }
      msg.report.pieces = msg.report.pieces.filter((r) => r.side !== "blue");
      a.onMessage(msg);
      const blue = a.table.pieces.filter((p) => p.side === "blue");
      return { blue: blue.length, keys: blue.map((p) => p.key), labels: blue.map((p) => a.labelOf(p)), marks: document.querySelectorAll("#marks .pmark rect.mark").length, total: a.table.pieces.length };
    });
    assert.equal(fog.marks, fog.total, "every piece drawn");
    assert.ok(fog.labels.includes("?") && fog.labels.includes("infantry"), `labels: ${fog.labels}`);
    const hidden = await page.evaluate((key) => window.aide.table.pieces.find((p) => p.key === key).footprint.center, fog.keys[0]);
    await tapMap(page, hidden.x, hidden.y);
    await page.waitForFunction(() => /not identified/.test(document.querySelector("#info").textContent));
    await page.click("#list");
    await page.selectOption("#me", "red");
    assert.ok((await page.locator("#q-command .listbtn").count()) > 0, "the list still answers for red");
    await screenshot(page, { path: path.join(shots, "fog.png") });

    // ---------- tablets, under a strict Content-Security-Policy ----------
    // The page has no inline script, handler or style attribute in its HTML: served with
    // a CSP that forbids them, a session raises no violation. And on a tablet either way
    // up, a tap's verdict is on the screen with nothing scrolling sideways.
    const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'";
    await page.route(/\/(\?.*)?$/, async (route) => {
      const r = await route.fetch();
      await route.fulfill({ response: r, headers: { ...r.headers(), "content-security-policy": csp } });
    });
    await page.addInitScript(() => {
      window.__csp = [];
      document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
    });
    for (const [w, hgt] of [[768, 1024], [1024, 768], [1180, 820]]) {
      await page.setViewportSize({ width: w, height: hgt });
      await page.goto(urls.demo);
      await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
      // No grey band: the map's box has the map's proportions (nothing letterboxed inside
      // it), and across the screen the map, the zoom buttons when they stand beside it,
      // and the panel leave no gap.
      const box = async (sel) => page.locator(sel).boundingBox();
      const [m, z, sd] = [await box("#map"), await box("#zoom"), await box("#side")];
      const tag = `${w}x${hgt}: map ${m.x},${m.y} ${m.width}x${m.height}, zoom ${z.x},${z.y} ${z.width}x${z.height}, panel ${sd.x} ${sd.width}`;
      assert.ok(Math.abs(m.width / m.height - 1.5) < 0.01, `map box in the map's 3:2, ${tag}`);
      assert.ok(m.x <= 1, tag);
      if (w > hgt) {
        const beside = z.x >= m.x + m.width - 1 ? z.width : 0;
        assert.ok(Math.abs(sd.x - (m.x + m.width + beside)) <= 3, `the map fills the width the panel leaves, ${tag}`);
        assert.ok(sd.x + sd.width >= w - 1 && sd.width >= 240, tag);
        assert.ok(m.y + m.height <= hgt && sd.y + sd.height <= hgt + 0.5, `map and panel on the screen, ${tag}`);
      } else {
        assert.ok(Math.abs(m.width - w) <= 1, `the map spans the width, ${tag}`);
      }
      await tapPiece(page, "red-2-inf-1");
      await page.waitForSelector('#info h3[data-key="red-2-inf-1"]');
      assert.ok(inView(await page.locator("#command").boundingBox(), { width: w, height: hgt }), `verdict in view at ${w}x${hgt}`);
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= w, `no sideways scroll at ${w}x${hgt}`);
      // The tapped piece's verdict beside (or under) the map: docs/serve-tablet.png.
      await screenshot(page, { path: path.join(shots, `tablet-${w}x${hgt}.png`) });
      await page.click("#list");
      await page.click("#dice");
      assert.deepEqual(await page.evaluate(() => window.__csp), [], "no CSP violation");
    }
    await page.unrouteAll();

    // ---------- installable and steady ----------
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(urls.demo);
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    const manifest = await page.evaluate(async () => {
      const href = document.querySelector('link[rel="manifest"]').href;
      const m = await (await fetch(href)).json();
      const icons = [];
      for (const i of m.icons) {
        const r = await fetch(i.src);
        const img = new Image();
        img.src = i.src;
        await img.decode();
        icons.push({ ...i, status: r.status, type_got: r.headers.get("content-type"), w: img.naturalWidth });
      }
      return { m, icons };
    });
    assert.equal(manifest.m.display, "standalone");
    assert.equal(manifest.m.start_url, "/");
    for (const i of manifest.icons) {
      assert.equal(i.status, 200, i.src);
      assert.equal(i.type_got, i.type, i.src);
      if (i.sizes !== "any") assert.equal(`${i.w}x${i.w}`, i.sizes, i.src);
    }
    assert.ok(manifest.icons.some((i) => i.sizes === "512x512") && manifest.icons.some((i) => i.sizes === "192x192"));

    // A Wi-Fi blip: the socket drops and the network is gone; the page says it is
    // reconnecting and counts its tries; when the network returns, it says it is back.
    // (Chromium can leave a socket closed while offline stuck in CLOSING; the page then
    // gives it up once it has been silent 5 s, so allow for that.)
    await context.setOffline(true);
    await page.evaluate(() => window.aide.conn.ws.close());
    await page.waitForFunction(() => /reconnecting \(try 2/.test(document.querySelector("#conn").textContent), null, { timeout: 20000 });
    assert.equal(await page.isVisible("#conn"), true);
    assert.equal(await page.textContent("#source"), "offline");
    await screenshot(page, { path: path.join(shots, "reconnecting.png") });
    await context.setOffline(false);
    await page.waitForFunction(() => /^Reconnected/.test(document.querySelector("#conn").textContent), null, { timeout: 10000 });
    await page.waitForFunction(() => document.querySelector("#source").textContent === "replay", null, { timeout: 10000 });

    // A silent drop: the server stops answering (frozen, as when the Wi-Fi goes away and
    // nothing closes the socket). The page hears no status for 5 s, says it is
    // reconnecting, and is back once the server answers again.
    const demoPid = Number(pids.demo);
    const frozenAt = Date.now();
    process.kill(demoPid, "SIGSTOP");
    try {
      await page.waitForFunction(() => /reconnecting \(try 1/.test(document.querySelector("#conn").textContent), null, { timeout: 20000 });
      const noticed = Date.now() - frozenAt;
      // Status comes every second, so the last one was at most about 1 s before the
      // freeze (2 s on a busy machine): the page waited out the silence, no sooner.
      assert.ok(noticed >= 3000, `lost after ${noticed} ms of silence; the page should wait 5 s`);
      assert.equal(await page.textContent("#source"), "offline");
      console.log(`ok: a frozen server taken for lost after ${noticed} ms of silence`);
    } finally {
      process.kill(demoPid, "SIGCONT");
    }
    await page.waitForFunction(() => /^Reconnected/.test(document.querySelector("#conn").textContent), null, { timeout: 20000 });
    await page.waitForFunction(() => document.querySelector("#source").textContent === "replay", null, { timeout: 10000 });

    // Table display: on a laptop, the map large, type big, the newest log lines.
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(urls.demo + "?display=table");
    await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
    await page.waitForFunction(() => document.querySelectorAll("#tvout li").length > 0);
    assert.equal(await page.isVisible("#tools"), false, "no tools on the table display");
    const tvMap = await page.locator("#map").boundingBox();
    assert.ok(tvMap.width >= 780, `map ${tvMap.width} px wide on a 1280 px screen`);
    const font = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector("#tvout")).fontSize));
    assert.ok(font >= 24, `log lines at ${font} px`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 1280);
    await screenshot(page, { path: path.join(shots, "table-display.png") });

    assert.deepEqual(errors, [], "no script errors");
    console.log("ok: demo, ohw-demo and nbc-demo at 390x844 and 844x390");
  } finally {
    await close();
  }
}

run(main);
