// aide-de-camp phone page: plain JS, no build step. Map inches everywhere (origin top-left,
// x right, y down; heading 0 = toward the map top, clockwise), as in the server.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const svg = $("map");

const app = {
  scenario: null,
  table: { pieces: [] },
  report: null,
  seq: -1,
  status: null,
  statusAt: 0,
  sel: [], // tapped piece ids: one = its verdicts, two = between them
  ruler: false,
  rulerPts: [],
  vb: { x: 0, y: 0, w: 36, h: 24 },
  lastDice: null,
};
window.aide = app; // for the browser tests and for curious players

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

async function api(path, body) {
  const opts = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  opts.headers = window.aideSeat.headers(opts.headers); // the seat's token (seat.js)
  const r = await fetch("/api/" + path, opts);
  const json = await r.json();
  if (!r.ok) throw new Error(json.error || r.statusText);
  return json;
}

// ---------- geometry ----------

/** The four corners of a footprint: front-left, front-right, rear-right, rear-left. */
function corners(fp) {
  const h = (fp.heading_deg * Math.PI) / 180;
  const fwd = [Math.sin(h), -Math.cos(h)];
  const right = [Math.cos(h), Math.sin(h)];
  const c = [fp.center.x, fp.center.y];
  const at = (lat, ahead) => [c[0] + right[0] * lat + fwd[0] * ahead, c[1] + right[1] * lat + fwd[1] * ahead];
  const f = fp.frontage_in / 2, d = fp.depth_in / 2;
  return [at(-f, d), at(f, d), at(f, -d), at(-f, -d)];
}
const pts = (cs) => cs.map((p) => p[0].toFixed(4) + "," + p[1].toFixed(4)).join(" ");

/** Two decimals, or a dash for what this rule system does not measure. */
const f2 = (v) => (v === null || v === undefined ? "–" : v.toFixed(2));

function sideColour(side) {
  const s = app.scenario && app.scenario.sides.find((x) => x.id === side);
  return s ? esc(s.colour) : "#888";
}

// ---------- view box: pan and pinch ----------

function setViewBox() {
  const v = app.vb;
  svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
}
function fit() {
  const m = app.scenario.map;
  svg.style.aspectRatio = `${m.width_in} / ${m.height_in}`;
  app.vb = { x: 0, y: 0, w: m.width_in, h: m.height_in };
  setViewBox();
}
/** Map inches of a point on the screen (client pixels). */
function toMap(cx, cy) {
  const p = new DOMPoint(cx, cy).matrixTransform(svg.getScreenCTM().inverse());
  return [p.x, p.y];
}
/** Client pixels of a point in map inches. */
app.mapToScreen = (x, y) => {
  const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
  return [p.x, p.y];
};
/** Screen pixels per map inch at the current zoom. */
function pxPerInch() {
  return svg.getScreenCTM().a;
}
app.pxPerInch = pxPerInch;
function zoomAt(cx, cy, factor) {
  const [mx, my] = toMap(cx, cy);
  const v = app.vb;
  const w = Math.min(Math.max(v.w / factor, 1.5), app.scenario.map.width_in * 1.5);
  const k = w / v.w;
  app.vb = { x: mx - (mx - v.x) * k, y: my - (my - v.y) * k, w, h: v.h * k };
  setViewBox();
}
app.zoomAt = (x, y, factor) => {
  const [cx, cy] = app.mapToScreen(x, y);
  zoomAt(cx, cy, factor);
};

const pointers = new Map();
let gesture = null;
svg.addEventListener("pointerdown", (e) => {
  svg.setPointerCapture(e.pointerId);
  pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY });
  gesture = pointers.size === 1 ? { tap: true } : { tap: false };
});
svg.addEventListener("pointermove", (e) => {
  const p = pointers.get(e.pointerId);
  if (!p) return;
  if (pointers.size === 1) {
    if (Math.hypot(e.clientX - p.x0, e.clientY - p.y0) > 8) gesture.tap = false;
    if (!gesture.tap) {
      const k = 1 / pxPerInch();
      app.vb.x -= (e.clientX - p.x) * k;
      app.vb.y -= (e.clientY - p.y) * k;
      setViewBox();
    }
  } else if (pointers.size === 2) {
    const [a, b] = [...pointers.values()];
    const before = Math.hypot(a.x - b.x, a.y - b.y);
    p.x = e.clientX; p.y = e.clientY;
    const after = Math.hypot(a.x - b.x, a.y - b.y);
    if (before > 0) zoomAt((a.x + b.x) / 2, (a.y + b.y) / 2, after / before);
  }
  p.x = e.clientX; p.y = e.clientY;
});
function pointerEnd(e) {
  if (!pointers.has(e.pointerId)) return;
  pointers.delete(e.pointerId);
  if (pointers.size === 0 && gesture && gesture.tap && e.type === "pointerup") tap(e.clientX, e.clientY);
}
svg.addEventListener("pointerup", pointerEnd);
svg.addEventListener("pointercancel", pointerEnd);
svg.addEventListener("wheel", (e) => {
  e.preventDefault();
  zoomAt(e.clientX, e.clientY, e.deltaY < 0 ? 1.25 : 0.8);
}, { passive: false });
$("zoomin").onclick = () => { const r = svg.getBoundingClientRect(); zoomAt(r.x + r.width / 2, r.y + r.height / 2, 1.6); };
$("zoomout").onclick = () => { const r = svg.getBoundingClientRect(); zoomAt(r.x + r.width / 2, r.y + r.height / 2, 1 / 1.6); };
$("zoomfit").onclick = fit;

// ---------- drawing ----------

function drawTerrain() {
  const g = $("terrain");
  g.textContent = "";
  if (app.scenario.map.image) {
    $("mapimg").setAttribute("href", app.scenario.map.image);
    return;
  }
  const fills = { woods: "#3f6b35", buildings: "#8a6d5a", hill: "#b59f6b", water: "#4d7fb0", river: "#4d7fb0", road: "#d8c9a3", marsh: "#6f8a73" };
  for (const f of app.scenario.terrain.features || []) {
    const kind = (f.properties && (f.properties.kind || f.properties.type)) || "";
    const geom = f.geometry || {};
    const polys = geom.type === "Polygon" ? [geom.coordinates] : geom.type === "MultiPolygon" ? geom.coordinates : [];
    for (const poly of polys) {
      const d = poly.map((ring) => "M" + ring.map((c) => c[0] + "," + c[1]).join("L") + "Z").join("");
      el("path", { d, fill: fills[kind] || "#999", "fill-opacity": 0.6 }, g);
    }
    if (geom.type === "LineString") {
      el("polyline", { points: geom.coordinates.map((c) => c.join(",")).join(" "), fill: "none", stroke: fills[kind] || "#999", "stroke-width": 0.2 }, g);
    }
  }
}

// One Hour Wargames: the hex grid the rules snap pieces to.
function drawGrid() {
  const g = $("grid");
  g.textContent = "";
  const grid = app.report && app.report.hex_grid;
  if (!grid) return;
  for (const h of grid.hexes) el("polygon", { points: pts(h.corners), class: "hex", "data-col": h.col, "data-row": h.row }, g);
}

// A length as the scenario's rules measure it: inches, hexes (OHW) or centimetres (NBC).
function lengthText(inches) {
  const m = app.report ? app.report.measures : {};
  if (m.unit === "cm") return `${(inches * 2.54).toFixed(1)} cm`;
  if (m.unit === "hex") return `${inches.toFixed(2)} in = ${(inches / m.hex_step_in).toFixed(2)} hexes`;
  return `${inches.toFixed(2)} in`;
}

// The per-system verdicts of a tapped piece (OHW hex, NBC), as lines of the info panel.
function systemLines(r) {
  if (r.hex) {
    const h = r.hex;
    const shots = (h.shots || []).map((s) => `${esc(s.target)} at ${s.range_hex} hex: ${s.allowed ? "may shoot" : "may not"} (${esc(s.reason)})`).join("<br>") || "no target";
    return `<dt>Hex</dt><dd id="hexat">(${h.hex.col}, ${h.hex.row}), facing (${h.faces.col}, ${h.faces.row})</dd>
      <dt>Shooting</dt><dd id="shots">${h.may_shoot ? "" : "moved this turn: may not shoot<br>"}${shots}</dd>`;
  }
  if (r.nbc) {
    const n = r.nbc;
    const names = (xs) => xs.map((x) => esc(typeof x === "string" ? x : x.id || x.enemy || JSON.stringify(x))).join(", ") || "none";
    return `<dt>Base</dt><dd>${n.frontage_cm} x ${n.depth_cm} cm</dd>
      <dt>Contact zone</dt><dd id="nbczone">${names(n.contact_zone)}</dd>
      <dt>Flanked by</dt><dd>${names(n.flanked_by)}</dd>`;
  }
  return "";
}

function drawPieces() {
  drawGrid();
  const g = $("pieces");
  g.textContent = "";
  const rep = pieceReport(app.sel[0]);
  const seen = new Set(app.sel.length === 1 && rep ? rep.can_see : []);
  const flank = new Set(app.sel.length === 1 && rep ? rep.flanked_by : []);
  for (const p of app.table.pieces) {
    const cs = corners(p.footprint);
    const cls = ["piece", p.status];
    if (app.sel.includes(p.id)) cls.push("sel");
    else if (flank.has(p.id)) cls.push("flank");
    else if (seen.has(p.id)) cls.push("seen");
    const shape = el("polygon", { points: pts(cs), fill: sideColour(p.side), class: cls.join(" "), "data-id": p.id }, g);
    if (p.kind === "hq" || p.kind === "army-hq") shape.setAttribute("rx", "0.05");
    if (p.status === "spent") el("polygon", { points: pts(cs), fill: "url(#hatch)", "pointer-events": "none" }, g);
    el("line", { x1: cs[0][0], y1: cs[0][1], x2: cs[1][0], y2: cs[1][1], class: "front", "pointer-events": "none" }, g);
  }
}

function pieceReport(id) {
  return id && app.report ? app.report.pieces.find((p) => p.id === id) : null;
}
function piece(id) {
  return app.table.pieces.find((p) => p.id === id);
}
function unitName(id) {
  const u = app.scenario.units.find((u) => u.id === id);
  return u ? u.name : id;
}
function list(ids) {
  return ids && ids.length ? ids.map(esc).join(", ") : "none";
}

// ---------- taps ----------

function tap(cx, cy) {
  const [x, y] = toMap(cx, cy);
  if (app.ruler) return rulerTap(x, y);
  // Pieces are small on a phone: the nearest centre within a thumb's width wins.
  const reach = Math.max(0.5, 22 / pxPerInch());
  let best = null, bestD = Infinity;
  for (const p of app.table.pieces) {
    const d = Math.hypot(p.footprint.center.x - x, p.footprint.center.y - y);
    if (d < bestD) { best = p; bestD = d; }
  }
  if (!best || bestD > reach) return clearSelection();
  select(best.id);
}

function select(id) {
  if (app.sel.length === 1 && app.sel[0] === id) app.sel = [];
  else if (app.sel.length === 1) app.sel = [app.sel[0], id];
  else app.sel = [id];
  refresh();
}
app.select = select;

function clearSelection() {
  app.sel = [];
  app.rulerPts = [];
  refresh();
}

async function refresh() {
  drawPieces();
  $("combatbtn").disabled = app.sel.length !== 2;
  const sel = app.sel.slice();
  if (sel.length === 0) {
    $("over").textContent = ""; $("under").textContent = "";
    if (!app.ruler) $("info").innerHTML = '<p class="hint">Tap a piece for its command, field of fire, sight and flanks. Tap a second piece to measure between them.</p>';
    else drawRuler();
    return;
  }
  try {
    if (app.history) {
      // A past state: the journal's table and the report checked on it, no live queries.
      const r = pieceReport(sel[sel.length - 1]);
      if (r) showPiece(localCheck(r));
    } else if (sel.length === 1) {
      const c = await api("check/" + encodeURIComponent(sel[0]));
      if (String(app.sel) === String(sel)) showPiece(c);
    } else {
      const q = `from=${encodeURIComponent(sel[0])}&to=${encodeURIComponent(sel[1])}`;
      const [m, s] = await Promise.all([api("measure?" + q), api("sight?" + q)]);
      if (String(app.sel) === String(sel)) showPair(sel[0], sel[1], m, s);
    }
  } catch (err) {
    $("info").innerHTML = `<p class="bad">${esc(err.message)}</p>`;
  }
}

/** What /api/check answers, from a report and table the page already holds. */
function localCheck(r) {
  const p = piece(r.id);
  let fof = null;
  if (app.scenario.fof_kinds.includes(p.kind)) {
    // The field of fire as the rules draw it: the front edge, then sides splaying out.
    const [fl, fr] = corners(p.footprint);
    const h = (p.footprint.heading_deg * Math.PI) / 180, depth = app.report.measures.fof_depth_in;
    const side = depth * Math.tan((app.scenario.fof_splay_deg * Math.PI) / 180);
    const ahead = [Math.sin(h) * depth, -Math.cos(h) * depth], aside = [Math.cos(h) * side, Math.sin(h) * side];
    fof = [fl, fr, [fr[0] + ahead[0] + aside[0], fr[1] + ahead[1] + aside[1]], [fl[0] + ahead[0] - aside[0], fl[1] + ahead[1] - aside[1]]];
  }
  return { report: r, piece: p, fof, commander: r.commanded_by ? piece(r.commanded_by) : null, command_range_in: app.report.measures.command_range_in };
}

function commandText(r) {
  if (r.in_command === null) return { text: "no commanding HQ", cls: "" };
  if (r.command_margin_in === null) return { text: "OUT of command: its HQ is not on the table", cls: "bad" };
  const m = r.command_margin_in;
  return r.in_command
    ? { text: `in command by ${m.toFixed(2)} in (${r.commanded_by})`, cls: "good" }
    : { text: `OUT of command by ${(-m).toFixed(2)} in (${r.commanded_by})`, cls: "bad" };
}

function showPiece(c) {
  const r = c.report, p = c.piece;
  const under = $("under"), over = $("over");
  under.textContent = ""; over.textContent = "";
  if (c.commander && c.command_range_in !== null) {
    // Command range: everything within R of the HQ's footprint, edge to edge, is the
    // HQ's rectangle grown by R with rounded corners (a Minkowski sum).
    const fp = c.commander.footprint, R = c.command_range_in;
    el("rect", {
      x: -fp.frontage_in / 2 - R, y: -fp.depth_in / 2 - R, width: fp.frontage_in + 2 * R, height: fp.depth_in + 2 * R, rx: R,
      transform: `translate(${fp.center.x} ${fp.center.y}) rotate(${fp.heading_deg})`, class: "range",
    }, under);
  }
  if (c.fof) el("polygon", { points: pts(c.fof), class: "fof" }, under);
  const cmd = commandText(r);
  const fof = r.fof_detail.map((f) => `${esc(f.id)} (${Math.round(f.fraction_inside * 100)}%)`).join(", ") || "none";
  const terrain = esc(r.terrain) + (r.hill_level ? ` (hill level ${r.hill_level})` : "") + (r.cover ? `, cover: ${esc(r.cover)}` : "");
  const rally = r.rally && p.status === "spent" ? `<dt>Rally</dt><dd>${r.rally.possible ? "yes" : "no"}: ${esc(r.rally.reason)}</dd>` : "";
  $("info").innerHTML = `
    <h3><span style="color:${sideColour(p.side)}">■</span> ${esc(unitName(p.id))}</h3>
    <dl>
      <dt>Piece</dt><dd>${esc(p.id)} · ${esc(p.kind)} · ${esc(p.status)}</dd>
      <dt>Command</dt><dd id="command" class="${cmd.cls}" data-margin="${r.command_margin_in ?? ""}">${esc(cmd.text)}</dd>
      <dt>Terrain</dt><dd id="terrainv">${terrain}</dd>
      <dt>In FoF of</dt><dd id="infof">${fof}</dd>
      <dt>Can see</dt><dd id="cansee">${list(r.can_see)}</dd>
      <dt>Flanked by</dt><dd id="flanked" class="${r.flanked_by.length ? "bad" : ""}">${list(r.flanked_by)}</dd>
      ${r.in_contact_with.length ? `<dt>Contact</dt><dd>${list(r.in_contact_with)}</dd>` : ""}
      ${r.supported_by ? `<dt>Support</dt><dd>${esc(r.supported_by)}</dd>` : ""}
      ${r.in_road_column ? "<dt>Road</dt><dd>in road column</dd>" : ""}
      ${rally}
      ${systemLines(r)}
    </dl>
    ${identifyPicker(p)}`;
  const picker = $("identify");
  if (picker) picker.onchange = () => identify(p, picker.value);
}

// ---------- naming a piece the tracker took for another ----------

/** "This is…": the units the camera could have mixed this piece up with (same side, same
 *  shape: it tells a block from a cube, not infantry from cavalry). Only for a watched
 *  table; a scripted replay's names are the script's. */
function identifyPicker(p) {
  if (!app.scenario.identify || app.history) return "";
  const shapes = app.scenario.shapes;
  const options = app.scenario.units
    .filter((u) => u.id !== p.id && u.side === p.side && shapes[u.id] === shapes[p.id])
    .map((u) => {
      const where = piece(u.id) ? "on the table" : "not seen";
      return `<option value="${esc(u.id)}">${esc(u.name)} (${esc(u.id)}, ${where})</option>`;
    });
  if (!options.length) return "";
  // After a naming, the piece's panel says so under its new name.
  const named = app.named && app.named.unit === p.id
    ? `<p id="identifyout" class="good">Named ${esc(unitName(p.id))}; it was taken for ${esc(unitName(app.named.was))}.</p>`
    : '<p id="identifyout" class="hint"></p>';
  return `<div class="row"><label>Wrong unit? <select id="identify" aria-label="This piece is">
    <option value="">This is…</option>${options.join("")}</select></label></div>${named}`;
}

async function identify(p, unit) {
  if (!unit) return;
  const { x, y } = p.footprint.center;
  // The panel may be drawn anew while the request is out: write to the one shown now.
  const say = (text, className) => {
    const out = $("identifyout");
    if (out) Object.assign(out, { textContent: text, className });
  };
  say("naming…", "hint");
  try {
    const named = await api("identify", { unit, x_in: x, y_in: y });
    app.named = named;
    say(`Named ${unitName(named.unit)}; it was taken for ${unitName(named.was)}.`, "good");
    // Show the piece under its new name: now if the renamed table came first (the
    // WebSocket can beat this reply), else as soon as it arrives.
    const now = piece(named.unit);
    if (now && Math.hypot(now.pose.x_in - x, now.pose.y_in - y) < 0.5) {
      app.sel = [named.unit];
      refresh();
    } else {
      app.selectWhenSeen = named.unit;
    }
  } catch (err) {
    say(err.message, "bad");
  }
}

function showPair(a, b, m, s) {
  const under = $("under"), over = $("over");
  under.textContent = ""; over.textContent = "";
  const pa = piece(a), pb = piece(b);
  if (pa && pb) {
    el("line", { x1: pa.footprint.center.x, y1: pa.footprint.center.y, x2: pb.footprint.center.x, y2: pb.footprint.center.y, class: "sightline " + (s.can_see ? "ok" : "blocked") }, over);
  }
  if (s.blocked_by && s.blocked_by.at) el("circle", { cx: s.blocked_by.at[0], cy: s.blocked_by.at[1], r: 0.22, class: "blocker" }, over);
  const blocked = s.blocked_by ? `blocked by ${esc(s.blocked_by.kind)}${s.blocked_by.name ? " (" + esc(s.blocked_by.name) + ")" : ""}: ${esc(s.blocked_by.reason)}` : "";
  const over_ = s.seen_over.length ? ` (seen over ${s.seen_over.map((x) => esc(x.name || x.kind)).join(", ")})` : "";
  $("info").innerHTML = `
    <h3>${esc(a)} → ${esc(b)}</h3>
    <dl>
      <dt>Edge to edge</dt><dd id="distance" data-in="${m.distance_in}">${lengthText(m.distance_in)}${m.foot_moves === null ? "" : ` = ${f2(m.foot_moves)} foot / ${f2(m.mounted_moves)} mounted moves`}</dd>
      <dt>Sight</dt><dd id="sight" class="${s.can_see ? "good" : "bad"}">${s.can_see ? `${esc(a)} sees ${esc(b)}${over_}` : `cannot see: ${blocked}`}</dd>
      <dt>Range</dt><dd>${s.distance_in.toFixed(2)} of ${s.range_in.toFixed(2)} in</dd>
    </dl>
    <p class="hint">Dice → roll this combat.</p>`;
}

// ---------- ruler ----------

$("ruler").onclick = () => {
  app.ruler = !app.ruler;
  $("ruler").setAttribute("aria-pressed", String(app.ruler));
  app.rulerPts = [];
  app.sel = [];
  $("info").innerHTML = app.ruler ? '<p class="hint">Ruler: tap two points on the map.</p>' : "";
  refresh();
};
$("clear").onclick = clearSelection;

async function rulerTap(x, y) {
  if (app.rulerPts.length >= 2) app.rulerPts = [];
  app.rulerPts.push([x, y]);
  drawRuler();
  if (app.rulerPts.length < 2) {
    $("info").innerHTML = `<p class="hint">From ${x.toFixed(2)}, ${y.toFixed(2)}: tap the second point.</p>`;
    return;
  }
  const [[x1, y1], [x2, y2]] = app.rulerPts;
  try {
    const m = await api(`measure?from=${x1},${y1}&to=${x2},${y2}`);
    $("info").innerHTML = `<h3>Ruler</h3><dl>
      <dt>Distance</dt><dd id="rulerout" data-in="${m.distance_in}">${lengthText(m.distance_in)}</dd>
      ${m.foot_moves === null ? "" : `<dt>Foot</dt><dd>${f2(m.foot_moves)} moves</dd>
      <dt>Mounted</dt><dd>${f2(m.mounted_moves)} moves</dd>`}
      <dt>From → to</dt><dd>${x1.toFixed(2)}, ${y1.toFixed(2)} → ${x2.toFixed(2)}, ${y2.toFixed(2)}</dd></dl>`;
  } catch (err) {
    $("info").innerHTML = `<p class="bad">${esc(err.message)}</p>`;
  }
}
function drawRuler() {
  const over = $("over");
  over.textContent = "";
  const ps = app.rulerPts;
  if (ps.length === 2) el("line", { x1: ps[0][0], y1: ps[0][1], x2: ps[1][0], y2: ps[1][1], class: "rulerline" }, over);
  for (const p of ps) el("circle", { cx: p[0], cy: p[1], r: 0.15, class: "rulerend" }, over);
}

// ---------- dice ----------

$("dice").onclick = () => { $("dicepanel").hidden = !$("dicepanel").hidden; };
$("rollbtn").onclick = () => roll({ notation: $("notation").value });
$("combatbtn").onclick = () => roll({ combat: [app.sel[0], app.sel[1]] });

function diceHtml(dice) {
  return dice.map((d) => `<span class="die${d.hit ? " hit" : ""}${d.kept ? "" : " dropped"}" title="${d.modified}">${d.face}${d.modified !== d.face ? `<small>→${d.modified}</small>` : ""}</span>`).join("");
}

/** One volley: who fires how many dice, each modifier with its reason, the dice, the effect. */
function volleyHtml(v) {
  const p = v.plan, res = v.result;
  const mods = p.modifiers.map((m) => `<li>${m.value > 0 ? "+" : ""}${m.value} ${esc(m.reason)}</li>`).join("")
    + p.notes.map((n) => `<li class="hint">${esc(n)}</li>`).join("");
  return `<div class="volley"><p>${esc(p.shooter)} fires ${p.dice} dice at ${esc(p.target)}, hits on ${p.threshold}+</p>
    ${mods ? `<ul>${mods}</ul>` : ""}<div>${diceHtml(v.roll.dice)}</div>
    <p>${res.scored} hit${res.scored === 1 ? "" : "s"}${res.counted !== res.scored ? ` (${res.counted} counted)` : ""}: ${esc(p.target)} <b>${esc(res.effect.replace(/-/g, " "))}</b></p></div>`;
}

async function roll(req) {
  const out = $("diceout");
  out.innerHTML = '<p class="hint">Rolling…</p>';
  try {
    const r = await api("roll", req);
    app.lastDice = r;
    if (!$("logpanel").hidden) loadLog();
    if (r.dice) {
      const outcome = r.outcome.kind === "hits" ? `${r.outcome.value} hits` : `total ${r.outcome.value}`;
      out.innerHTML = `<p id="rollresult"><b>${esc(r.notation)}</b>: ${outcome}</p><div>${diceHtml(r.dice)}</div>
        <p class="hint">roll ${esc(r.roll_id)}</p><button id="reroll">Re-roll</button>`;
    } else {
      const volleys = r.round ? r.round.volleys : [r.volley];
      const notes = r.round ? r.round.notes : [];
      out.innerHTML = `<p id="rollresult"><b>${esc(r.attacker || r.gun)} attacks ${esc(r.defender || r.target)}</b></p>` +
        notes.map((n) => `<p class="hint">${esc(n)}</p>`).join("") +
        volleys.map(volleyHtml).join("") +
        `<p class="hint">roll ${esc(r.roll_id)}</p><button id="reroll">Re-roll</button>`;
    }
    $("reroll").onclick = () => roll(req);
  } catch (err) {
    out.innerHTML = `<p class="bad" id="rollresult">${esc(err.message)}</p>`;
  }
}

// ---------- chit cup ----------

$("cup").onclick = () => { $("cuppanel").hidden = !$("cuppanel").hidden; if (!$("cuppanel").hidden) cup(); };
$("viewer").onchange = () => cup();
$("drawbtn").onclick = () => cup("chits/draw", {});
$("finishbtn").onclick = () => cup("chits/finish", {});
$("endturnbtn").onclick = () => cup("chits/end-turn", {});
$("delaybtn").onclick = () => alter("delay");
$("jumpbtn").onclick = () => alter("jump");

function alter(kind) {
  const hq = $("alterhq").value;
  cup("chits/alter", { kind, hq, command: hq });
}

async function cup(path, body) {
  const viewer = $("viewer").value;
  const out = $("cupout");
  try {
    const r = path ? await api(path, { viewer, ...body }) : { view: await api("chits?viewer=" + encodeURIComponent(viewer)) };
    const v = r.view;
    const seen = (c) => c ? `<span style="color:${sideColour(c.side)}">■</span> ${c.command ? esc(c.command) : "(hidden)"}` : "none";
    $("turn").textContent = `day ${v.turn.day}, turn ${v.turn.number}`;
    const alterLine = r.alter ? `<p>${esc(r.alter.attempt.hq)} rolled ${r.alter.die} against ${r.alter.rating}: ${r.alter.success ? "success" : "failed"} (${esc(r.alter.attempt.kind)})</p>` : "";
    out.innerHTML = `${alterLine}<dl><dt>Moving</dt><dd id="cupcurrent">${seen(v.current)}</dd>
      <dt>Moved</dt><dd>${v.moved.map(seen).join(", ") || "none"}</dd>
      <dt>In the bag</dt><dd>${v.in_bag}</dd></dl>`;
  } catch (err) {
    out.innerHTML = `<p class="bad">${esc(err.message)}</p>`;
  }
}

// ---------- turn log and replay slider ----------

app.live = null; // the newest live message while a past state is shown
app.history = null; // {seq, turn} of the past state shown, or null when live
app.logStates = [];

$("log").onclick = () => { $("logpanel").hidden = !$("logpanel").hidden; if (!$("logpanel").hidden) loadLog(); };
$("livebtn").onclick = () => goLive();
$("slider").oninput = () => {
  const i = Number($("slider").value);
  if (i >= app.logStates.length - 1) goLive();
  else showHistory(app.logStates[i].seq);
};

function eventText(e) {
  const ev = e.event;
  if (ev.event === "moved") {
    const v = ev.verdict;
    return `${esc(ev.unit)} moved ${ev.distance_in.toFixed(2)} in` + (v.legal ? "" : ` <span class="bad">(${esc(v.problems.join("; "))})</span>`);
  }
  if (ev.event === "flipped") return `${esc(ev.unit)} turned ${esc(ev.to)}`;
  if (ev.event === "identified") return `${esc(ev.unit)} named (was taken for ${esc(ev.was)})`;
  return `${esc(ev.unit)} ${esc(ev.event)}`;
}
function drawText(d) {
  const v = d.value;
  if (v.text) return `${esc(d.kind)}: ${esc(v.text.split("\n")[0])}`;
  if (v.draw) return `chit drawn (${esc(v.draw.chit.side)})`;
  if (v.attempt) return `${esc(v.attempt.hq)} rolled ${v.die} to ${esc(v.attempt.kind)}: ${v.success ? "success" : "failed"}`;
  return esc(d.kind);
}

async function loadLog() {
  try {
    const log = await api("log");
    app.logStates = log.states;
    const slider = $("slider");
    slider.max = Math.max(0, log.states.length - 1);
    if (!app.history) slider.value = slider.max;
    const items = [
      ...log.events.map((e) => ({ seq: e.seq, order: 0, html: eventText(e) })),
      ...log.draws.map((d) => ({ seq: d.after_seq ?? 0, order: 1, html: drawText(d) })),
    ].sort((a, b) => b.seq - a.seq || b.order - a.order);
    $("logout").innerHTML = items.slice(0, 60).map((i) => `<li>#${i.seq} ${i.html}</li>`).join("") || "<li>nothing yet</li>";
  } catch (err) {
    $("logout").innerHTML = `<li class="bad">${esc(err.message)}</li>`;
  }
}

async function showHistory(seq) {
  try {
    const past = await api("log/" + seq);
    app.history = { seq: past.seq, turn: past.turn };
    app.table = past.table;
    app.report = past.report;
    document.body.classList.add("history");
    $("historynote").textContent = `Showing stable state #${past.seq} (turn ${past.turn}); live updates wait. Live returns.`;
    app.sel = [];
    refresh();
  } catch (err) {
    $("historynote").textContent = err.message;
  }
}

function goLive() {
  app.history = null;
  document.body.classList.remove("history");
  $("historynote").textContent = "";
  $("slider").value = $("slider").max;
  if (app.live) { app.seq = -1; onMessage(app.live); }
}

// ---------- live feed ----------

function showStatus() {
  const s = app.status;
  if (!s) return;
  const src = $("source");
  src.className = "dot " + s.source;
  src.textContent = s.source === "synthetic" ? "synthetic camera" : s.source;
  $("fps").textContent = s.fps > 0 ? `${s.fps.toFixed(1)} fps` : "still";
  const since = s.since_stable_s + (performance.now() - app.statusAt) / 1000;
  $("since").textContent = `stable ${since.toFixed(0)} s ago`;
}
setInterval(showStatus, 500);

function onMessage(msg) {
  app.status = msg.status;
  app.statusAt = performance.now();
  showStatus();
  if (msg.type === "state") app.live = msg;
  if (msg.type === "state" && !app.history && msg.seq !== app.seq) {
    app.seq = msg.seq;
    if (!$("logpanel").hidden) loadLog();
    app.table = msg.table;
    app.report = msg.report;
    document.body.dataset.seq = msg.seq;
    if (app.selectWhenSeen && piece(app.selectWhenSeen)) {
      app.sel = [app.selectWhenSeen];
      app.selectWhenSeen = null;
    }
    if (app.sel.length) refresh();
    else drawPieces();
  }
}

let backoff = 500;
function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" + window.aideSeat.wsQuery());
  ws.onmessage = (e) => { backoff = 500; onMessage(JSON.parse(e.data)); };
  ws.onclose = () => {
    $("source").className = "dot offline";
    $("source").textContent = "offline";
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 8000);
  };
}

$("share").onclick = () => $("qr").showModal();

async function start() {
  app.seat = await window.aideSeat.ready;
  app.scenario = await api("scenario");
  document.title = app.scenario.name + " · aide-de-camp";
  $("url").textContent = app.scenario.url;
  $("url").href = app.scenario.url;
  // A side's seat sees the cup as its side; the umpire (or an open table) picks.
  for (const s of app.scenario.sides) if (!app.seat.side || s.id === app.seat.side) $("viewer").add(new Option(s.name, s.id));
  for (const c of app.scenario.commands) $("alterhq").add(new Option(`${c.name} (${c.alter})`, c.id));
  fit();
  drawTerrain();
  onMessage(await api("state"));
  connect();
  document.body.dataset.ready = "1";
}
start();
