// aide-de-camp phone page: plain JS, no build step. Map inches everywhere (origin top-left,
// x right, y down; heading 0 = toward the map top, clockwise), as in the server.
//
// Every string from the scenario or the table reaches the DOM as text (textContent, text
// nodes), never as markup, and no handler sits in the HTML: the page runs under a strict
// Content-Security-Policy. A piece may arrive without id, name or kind (an enemy the
// viewer's seat knows only by its side): it is drawn and listed from what it has.
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
  sel: [], // keys of tapped pieces: one = its verdicts, two = between them
  ruler: false,
  rulerPts: [],
  vb: { x: 0, y: 0, w: 36, h: 24 },
  lastDice: null,
  me: null, // the side the list view answers for
  panel: "info",
};
window.aide = app; // for the browser tests and for curious players

/** Screen pixels either side of a piece that still pick it: every piece is a target at
 *  least 44 px across at any zoom (Apple's and Google's minimum for a thumb). */
const REACH_PX = 22;

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** An HTML element: `attrs` are properties (className, id, onclick, hidden…) or, for
 *  names with a dash (data-…, aria-…), attributes; children are nodes or text. */
function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k.includes("-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...nodes(kids));
  return e;
}
function nodes(kids) {
  return kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false && k !== "")
    .map((k) => (k instanceof Node ? k : document.createTextNode(String(k))));
}
function show(target, ...kids) {
  (typeof target === "string" ? $(target) : target).replaceChildren(...nodes(kids));
}
/** A definition list from [term, value, attrs] rows; rows that are null are left out. */
function dl(rows) {
  return h("dl", null, rows.filter(Boolean).map(([t, v, attrs]) => [h("dt", null, t), h("dd", attrs, v)]));
}

async function api(path, body) {
  const opts = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  opts.headers = window.aideSeat.headers(opts.headers); // the seat's token (seat.js)
  const r = await fetch("/api/" + path, opts);
  const json = await r.json();
  if (!r.ok) throw new Error(json.error || r.statusText);
  return json;
}

// ---------- numbers as the rules give them ----------

/** The one rounding rule for margins (CLI, log export and page): hundredths, halves away
 *  from zero on the magnitude: -0.125 reads 0.13 everywhere. Same arithmetic as
 *  `aide::rules::hundredths`. */
function hundredths(x) {
  return Math.sign(x) * Math.round(Math.abs(x) * 100) / 100 + 0;
}
app.hundredths = hundredths;
const f2 = (v) => (v === null || v === undefined ? "–" : hundredths(v).toFixed(2));

function measures() {
  return (app.report && app.report.measures) || (app.scenario && app.scenario.measures) || {};
}
/** A length of the rules in the scenario's measure: hexes for One Hour Wargames (the
 *  server's lengths there are whole hexes times the hex step), centimetres for NBC. */
function lengthText(inches) {
  const m = measures();
  if (m.unit === "cm") return `${hundredths(inches * 2.54).toFixed(2)} cm`;
  if (m.unit === "hex") {
    const n = Math.round(inches / m.hex_step_in);
    return `${n} ${n === 1 ? "hex" : "hexes"}`;
  }
  return `${f2(inches)} in`;
}
/** A distance /api/measure counted as the rules count it. */
function rulesDistanceText(m, decimals) {
  if (m.unit === "hex") return `${m.rules_distance} ${m.rules_distance === 1 ? "hex" : "hexes"}`;
  return `${m.rules_distance.toFixed(decimals ?? 2)} ${m.unit}`;
}

// ---------- pieces, names, sides ----------

function setTable(table) {
  table.pieces.forEach((p, i) => { p.key = p.id ?? `#${i}`; });
  app.table = table;
}
function piece(key) {
  return app.table.pieces.find((p) => p.key === key);
}
function pieceReport(key) {
  return key && app.report ? app.report.pieces.find((p) => p.id === key) : null;
}
function unitOf(id) {
  return id && app.scenario.units.find((u) => u.id === id);
}
function sideOf(id) {
  return app.scenario && app.scenario.sides.find((x) => x.id === id);
}
function sideColour(side) {
  const s = sideOf(side);
  return s ? s.colour : "#888";
}
const KIND_WORDS = {
  infantry: "infantry", cavalry: "cavalry", dragoons: "dragoons", artillery: "artillery",
  "horse-artillery": "horse artillery", detachment: "detachment", hq: "HQ", "army-hq": "army HQ",
  "supply-train": "supply train",
};
/** A piece's or a unit's name: the scenario's name when its id is known, else what the
 *  server sent (an enemy seen only by its side and kind). */
function nameOf(x) {
  const p = typeof x === "string" ? piece(x) || { id: x } : x;
  const u = unitOf(p.id);
  if (u) return u.name;
  if (p.name) return p.name;
  if (p.kind) return `${sideOf(p.side) ? sideOf(p.side).name + " " : ""}${KIND_WORDS[p.kind] || p.kind}`;
  return p.side ? `${sideOf(p.side) ? sideOf(p.side).name : p.side} piece` : String(p.id ?? "unknown piece");
}
app.nameOf = nameOf;
const names = (ids) => (ids && ids.length ? ids.map(nameOf).join(", ") : "none");
function commandName(id) {
  const c = app.scenario.commands.find((c) => c.id === id);
  return c ? c.name : id;
}

const TITLES = /^(General|Gen\.|Marshal|Count|Colonel|Col\.|Major|Maj\.|Captain|Capt\.)\s+/i;
/** A label short enough to sit under a piece: "1st Line Brigade" → "1st Line", "General
 *  Vautrin" → "Vautrin", "2nd Brigade (Gen. Hancock)" → "2nd Brigade". */
function shortName(name) {
  let s = String(name).replace(/\s*\(.*?\)\s*/g, " ").trim().replace(TITLES, "");
  const words = s.split(/\s+/);
  if (words.length > 1 && /^(Brigade|Company)$/i.test(words[words.length - 1])) words.pop();
  s = words.join(" ");
  if (s.length > 13) s = words.slice(0, 2).join(" ");
  if (s.length > 13) s = s.slice(0, 12) + "…";
  return s;
}
/** What a piece's label says: its name if the viewer's seat knows it, else its kind. */
function labelOf(p) {
  if (unitOf(p.id) || p.name) return shortName(nameOf(p));
  return p.kind ? (KIND_WORDS[p.kind] || p.kind) : "?";
}
app.labelOf = labelOf;

// ---------- geometry ----------

/** The four corners of a footprint: front-left, front-right, rear-right, rear-left. */
function corners(fp) {
  const hd = (fp.heading_deg * Math.PI) / 180;
  const fwd = [Math.sin(hd), -Math.cos(hd)];
  const right = [Math.cos(hd), Math.sin(hd)];
  const c = [fp.center.x, fp.center.y];
  const at = (lat, ahead) => [c[0] + right[0] * lat + fwd[0] * ahead, c[1] + right[1] * lat + fwd[1] * ahead];
  const f = fp.frontage_in / 2, d = fp.depth_in / 2;
  return [at(-f, d), at(f, d), at(f, -d), at(-f, -d)];
}
const pts = (cs) => cs.map((p) => p[0].toFixed(4) + "," + p[1].toFixed(4)).join(" ");

/** Map inches from (x, y) to the nearest point of a footprint, 0 inside. */
app.distanceToFootprint = (fp, x, y) => distanceToFootprint(fp, x, y);
function distanceToFootprint(fp, x, y) {
  const hd = (fp.heading_deg * Math.PI) / 180;
  const dx = x - fp.center.x, dy = y - fp.center.y;
  const lat = dx * Math.cos(hd) + dy * Math.sin(hd);
  const ahead = dx * Math.sin(hd) - dy * Math.cos(hd);
  const ox = Math.max(0, Math.abs(lat) - fp.frontage_in / 2);
  const oy = Math.max(0, Math.abs(ahead) - fp.depth_in / 2);
  return Math.hypot(ox, oy);
}

// ---------- view box: pan, pinch, zoom onto a piece ----------

function setViewBox() {
  const v = app.vb;
  svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  drawMarks();
}
/** The map's whole extent in the SVG's own aspect (landscape phones show it beside the
 *  panel, so the box is not always 3:2). */
function fit() {
  const m = app.scenario.map;
  svg.style.aspectRatio = `${m.width_in} / ${m.height_in}`;
  // The landscape layouts size the map's box from its proportions (style.css).
  document.documentElement.style.setProperty("--map-ratio", String(m.width_in / m.height_in));
  app.vb = { x: 0, y: 0, w: m.width_in, h: m.height_in };
  setViewBox();
}
/** Show the box [x0, y0]–[x1, y1] (map inches) with a margin, at least `minW` wide. */
function zoomTo(x0, y0, x1, y1, minW) {
  const r = svg.getBoundingClientRect();
  const aspect = r.width / Math.max(1, r.height);
  const pad = 1.5;
  let w = Math.max(x1 - x0 + 2 * pad, minW), hh = Math.max(y1 - y0 + 2 * pad, minW / aspect);
  if (w / hh < aspect) w = hh * aspect; else hh = w / aspect;
  const m = app.scenario.map;
  if (w >= m.width_in && hh >= m.height_in) return fit();
  app.vb = { x: (x0 + x1) / 2 - w / 2, y: (y0 + y1) / 2 - hh / 2, w, h: hh };
  setViewBox();
}
/** Zoom onto the selected pieces and their neighbours: every piece within 4 in and every
 *  piece its verdicts name, so that the second piece of a pair is still on the screen. */
function zoomToSelection() {
  const sel = app.sel.map(piece).filter(Boolean);
  if (!sel.length) return;
  const keep = new Set(sel);
  const near = (p, q) => Math.hypot(p.footprint.center.x - q.footprint.center.x, p.footprint.center.y - q.footprint.center.y);
  if (sel.length === 1) {
    const r = pieceReport(sel[0].key);
    // What its verdicts name wherever it stands (its HQ, flankers, contacts, targets in
    // range); what it sees only within 12 in (sight may cross the whole map).
    const named = r ? [r.commanded_by, ...r.flanked_by, ...r.in_contact_with, ...r.fof_detail.map((f) => f.id),
      ...(r.nbc ? [r.nbc.command && r.nbc.command.commander, ...r.nbc.artillery.map((a) => a.target), ...r.nbc.contact_zone.map((z) => z.id)] : []),
      ...(r.hex ? r.hex.shots.map((s) => s.target) : [])] : [];
    const seen = r ? r.can_see : [];
    for (const q of app.table.pieces) {
      if (near(sel[0], q) <= 4 || named.includes(q.id) || (seen.includes(q.id) && near(sel[0], q) <= 12)) keep.add(q);
    }
  }
  const xs = [], ys = [];
  for (const p of keep) for (const c of corners(p.footprint)) { xs.push(c[0]); ys.push(c[1]); }
  // At least 8 in across, and four hexes where the rules count hexes.
  zoomTo(Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys), Math.max(8, 4 * (measures().hex_step_in || 0)));
}
app.zoomToSelection = zoomToSelection;

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
const centreZoom = (k) => { const r = svg.getBoundingClientRect(); zoomAt(r.x + r.width / 2, r.y + r.height / 2, k); };
$("zoomin").onclick = () => centreZoom(1.6);
$("zoomout").onclick = () => centreZoom(1 / 1.6);
$("zoomfit").onclick = () => { app.vbBefore = null; fit(); };
window.addEventListener("resize", () => { if (app.scenario) setViewBox(); });

// ---------- drawing ----------

/** Fill of each terrain type, as GeoJSON features name it in `terrain` (older files said
 *  `kind` or `type`). */
const TERRAIN_FILL = {
  woods: "#3f6b35", forest: "#3f6b35", buildings: "#8a6d5a", town: "#8a6d5a", village: "#8a6d5a",
  hill: "#b59f6b", water: "#4d7fb0", river: "#4d7fb0", stream: "#5f93c4", lake: "#4d7fb0",
  road: "#d8c9a3", marsh: "#6f8a73", field: "#c9b458", rough: "#8f7f62", ford: "#7fa7cf",
  bridge: "#a08060", impassable: "#333",
};
/** Hills under everything, roads and crossings over the rest. */
const TERRAIN_ORDER = { hill: 0, field: 1, rough: 1, marsh: 1, woods: 2, forest: 2, buildings: 3, town: 3, river: 4, stream: 4, ford: 5, road: 6, bridge: 7 };
function terrainKind(f) {
  const p = f.properties || {};
  return String(p.terrain || p.kind || p.type || "");
}
app.terrainKind = terrainKind;

function drawTerrain() {
  const g = $("terrain");
  g.textContent = "";
  if (app.scenario.map.image) {
    $("mapimg").setAttribute("href", app.scenario.map.image);
    return;
  }
  // Open ground under the terrain: a map without an image is a field, not a grey void.
  const m = app.scenario.map;
  el("rect", { x: 0, y: 0, width: m.width_in, height: m.height_in, class: "ground" }, g);
  const features = [...((app.scenario.terrain && app.scenario.terrain.features) || [])]
    .sort((a, b) => (TERRAIN_ORDER[terrainKind(a)] ?? 2) - (TERRAIN_ORDER[terrainKind(b)] ?? 2));
  for (const f of features) {
    const kind = terrainKind(f);
    const fill = TERRAIN_FILL[kind] || "#999";
    const geom = f.geometry || {};
    const polys = geom.type === "Polygon" ? [geom.coordinates] : geom.type === "MultiPolygon" ? geom.coordinates : [];
    const level = Number((f.properties || {}).level) || 1;
    for (const poly of polys) {
      const d = poly.map((ring) => "M" + ring.map((c) => c[0] + "," + c[1]).join("L") + "Z").join("");
      const path = el("path", { d, fill, "fill-opacity": kind === "hill" ? Math.min(0.4 + 0.2 * level, 0.9) : 0.75, class: "terrain", "data-terrain": kind }, g);
      el("title", {}, path).textContent = (f.properties && f.properties.name) || kind;
    }
    if (geom.type === "LineString") {
      el("polyline", { points: geom.coordinates.map((c) => c.join(",")).join(" "), fill: "none", stroke: fill, "stroke-width": 0.2, class: "terrain", "data-terrain": kind }, g);
    }
  }
}

// One Hour Wargames: the hex grid the rules snap pieces to.
function drawGrid() {
  const g = $("grid");
  g.textContent = "";
  const grid = app.report && app.report.hex_grid;
  if (!grid) return;
  for (const c of grid.hexes) el("polygon", { points: pts(c.corners), class: "hex", "data-col": c.col, "data-row": c.row }, g);
}

/** The relation of every piece to the selection, for its outline and ring. */
function relations() {
  const rep = app.sel.length === 1 ? pieceReport(app.sel[0]) : null;
  const flankers = rep ? [...rep.flanked_by, ...(rep.nbc ? rep.nbc.flanked_by.map((f) => f.id) : [])] : [];
  return { seen: new Set(rep ? rep.can_see : []), flank: new Set(flankers) };
}
function relationOf(p, rel) {
  if (app.sel.includes(p.key)) return "sel";
  if (rel.flank.has(p.id)) return "flank";
  if (rel.seen.has(p.id)) return "seen";
  return "";
}

/** The footprints to scale: where the piece stands and which way it faces. */
function drawPieces() {
  drawGrid();
  const g = $("pieces");
  g.textContent = "";
  const rel = relations();
  for (const p of app.table.pieces) {
    const cs = corners(p.footprint);
    const cls = ["piece", p.status || "fresh", relationOf(p, rel)].filter(Boolean);
    el("polygon", { points: pts(cs), fill: sideColour(p.side), class: cls.join(" "), "data-key": p.key, ...(p.id ? { "data-id": p.id } : {}) }, g);
    if (p.status === "spent") el("polygon", { points: pts(cs), fill: "url(#hatch)", "pointer-events": "none" }, g);
    el("line", { x1: cs[0][0], y1: cs[0][1], x2: cs[1][0], y2: cs[1][1], class: "front", "pointer-events": "none" }, g);
  }
  drawMarks();
}

/** A type symbol in a box `w` x `hh` centred on (x, y), in map units: infantry a cross,
 *  cavalry a diagonal, artillery a dot (NATO's marks), an HQ a flag, a train wheels. */
function symbol(g, kind, x, y, w, hh, colour) {
  const x0 = x - w / 2, y0 = y - hh / 2, sw = hh * 0.12;
  el("rect", { x: x0, y: y0, width: w, height: hh, rx: hh * 0.15, fill: colour, class: "mark" }, g);
  // White marks on a dark side colour, black on a light one (NBC's Austrians are white).
  if (light(colour)) g = el("g", { class: "onlight" }, g);
  const line = (ax, ay, bx, by) => el("line", { x1: x0 + ax * w, y1: y0 + ay * hh, x2: x0 + bx * w, y2: y0 + by * hh, class: "sym", "stroke-width": sw }, g);
  const dot = (cx, cy, r) => el("circle", { cx: x0 + cx * w, cy: y0 + cy * hh, r: r * hh, class: "symfill" }, g);
  switch (kind) {
    case "infantry": line(0.12, 0.15, 0.88, 0.85); line(0.88, 0.15, 0.12, 0.85); break;
    case "detachment": line(0.3, 0.25, 0.7, 0.75); line(0.7, 0.25, 0.3, 0.75); break;
    case "cavalry": line(0.12, 0.85, 0.88, 0.15); break;
    case "dragoons": line(0.12, 0.85, 0.88, 0.15); line(0.12, 0.15, 0.4, 0.4); break;
    case "artillery": dot(0.5, 0.5, 0.24); break;
    case "horse-artillery": line(0.12, 0.85, 0.88, 0.15); dot(0.5, 0.5, 0.2); break;
    case "hq": case "army-hq":
      line(0.3, 0.12, 0.3, 0.9);
      el("polygon", { points: pts([[x0 + 0.32 * w, y0 + 0.14 * hh], [x0 + 0.78 * w, y0 + 0.3 * hh], [x0 + 0.32 * w, y0 + 0.48 * hh]]), class: "symfill" }, g);
      if (kind === "army-hq") line(0.18, 0.12, 0.18, 0.9);
      break;
    case "supply-train": line(0.15, 0.45, 0.85, 0.45); dot(0.3, 0.7, 0.14); dot(0.7, 0.7, 0.14); break;
    default: {
      const t = el("text", { x, y: y + hh * 0.32, "font-size": hh * 0.85, class: "symtext" }, g);
      t.textContent = "?";
    }
  }
}

/** Whether a "#rrggbb" colour is light enough that white marks vanish on it. */
function light(colour) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
  if (!m) return false;
  const [r, g, b] = m.slice(1).map((x) => parseInt(x, 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 160;
}

/** Type marks and labels, a constant size on the screen whatever the zoom. Labels that
 *  would overlap one already placed are left out (the selection's first, then its
 *  neighbours, then the viewer's side): zooming in shows them. */
function drawMarks() {
  const g = $("marks");
  if (!g || !app.scenario) return;
  g.textContent = "";
  const ppi = pxPerInch();
  if (!(ppi > 0)) return;
  const k = 1 / ppi;
  const big = document.body.classList.contains("tabletop") ? 1.5 : 1;
  const W = 22 * big * k, H = 15 * big * k, font = 11 * big * k;
  const rel = relations();
  const order = app.table.pieces.map((p) => ({ p, r: relationOf(p, rel) }));
  const rank = ({ p, r }) => (r === "sel" ? 0 : r ? 1 : p.side === app.me ? 2 : 3);
  order.sort((a, b) => rank(a) - rank(b));
  // Every type mark first: a label gives way to marks as well as to other labels.
  const placed = order.map(({ p }) => {
    const { x, y } = p.footprint.center;
    return [x - W / 2, y - H / 2, x + W / 2, y + H / 2];
  });
  const clashes = (box) => placed.some((b) => b[0] < box[2] && box[0] < b[2] && b[1] < box[3] && box[1] < b[3]);
  const labels = [];
  for (const { p, r } of order) {
    const { x, y } = p.footprint.center;
    const m = el("g", { class: "pmark " + (r || ""), "data-key": p.key }, null);
    if (r) el("circle", { cx: x, cy: y, r: REACH_PX * k, class: "ring " + r }, m);
    symbol(m, p.kind, x, y, W, H, sideColour(p.side));
    labels.push(m);
    const text = labelOf(p);
    const tw = text.length * font * 0.62 + 2 * k, ty = y + H / 2 + font * 0.95;
    const box = [x - tw / 2, ty - font * 0.8, x + tw / 2, ty + font * 0.2];
    if (clashes(box) && r !== "sel") continue;
    placed.push(box);
    const t = el("text", { x, y: ty, "font-size": font, class: "plabel", "data-key": p.key }, m);
    t.textContent = text;
  }
  // Drawn back to front: the selection last, on top.
  for (const m of labels.reverse()) g.appendChild(m);
}

// ---------- taps ----------

function tap(cx, cy) {
  const [x, y] = toMap(cx, cy);
  if (app.placing) return placeTap(x, y);
  if (app.ruler) return rulerTap(x, y, cx, cy);
  const best = pieceAt(x, y);
  if (!best) return clearSelection();
  select(best.key);
}
/** The piece nearest to (x, y) whose footprint lies within REACH_PX screen pixels. */
function pieceAt(x, y) {
  const reach = REACH_PX / pxPerInch();
  let best = null, bestD = Infinity;
  for (const p of app.table.pieces) {
    const d = distanceToFootprint(p.footprint, x, y);
    if (d < bestD) { best = p; bestD = d; }
  }
  return best && bestD <= reach ? best : null;
}
app.pieceAt = pieceAt;

function select(key, opts) {
  // The view before a selection zoomed in: clearing the selection returns to it.
  if (!app.sel.length && !app.vbBefore) app.vbBefore = { ...app.vb };
  if (app.sel.length === 1 && app.sel[0] === key) app.sel = [];
  else if (app.sel.length === 1) app.sel = [app.sel[0], key];
  else app.sel = [key];
  if (app.sel.length && !(opts && opts.noZoom)) zoomToSelection();
  showPanel("info");
  refresh();
}
app.select = select;

function clearSelection() {
  app.sel = [];
  app.rulerPts = [];
  if (app.vbBefore) {
    app.vb = app.vbBefore;
    app.vbBefore = null;
    setViewBox();
  }
  refresh();
}

const HINT = "Tap a piece for its command, field of fire, sight and flanks. Tap a second piece to measure between them.";

async function refresh() {
  drawPieces();
  comboButton();
  const sel = app.sel.slice();
  if (sel.length === 0) {
    show("over"); show("under");
    if (app.placing) showPlacing();
    else if (!app.ruler) show("info", h("p", { className: "hint" }, HINT), placeButton());
    else drawRuler();
    return;
  }
  const known = sel.every((k) => pieceReport(k));
  try {
    if (!known) {
      // A piece the viewer's seat knows only by its side: nothing to ask the rules.
      show("over"); show("under");
      const p = piece(sel[sel.length - 1]);
      if (p) show("info", h("h3", null, swatch(p.side), " ", nameOf(p)),
        h("p", { className: "hint" }, "An enemy piece your side has not identified: the rules answer for the pieces you know."),
        vetoButton(p));
    } else if (app.history) {
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
    // An answer about a selection since changed is stale: a piece vetoed while its
    // check was asked for leaves the table, and the 404 must not cover the veto's line.
    if (String(app.sel) === String(sel)) show("info", h("p", { className: "bad" }, err.message));
  }
  keepVerdictInView();
}

/** After a tap the verdict is on the screen: in portrait the panel sits under the map. */
function keepVerdictInView() {
  const info = $("info");
  const r = info.getBoundingClientRect();
  if (r.top > window.innerHeight - 80 || r.bottom < 0) info.scrollIntoView({ block: "nearest" });
}

/** What /api/check answers, from a report and table the page already holds. */
function localCheck(r) {
  const p = piece(r.id);
  let fof = null;
  if (app.scenario.fof_kinds.includes(p.kind) && app.report.measures.fof_depth_in) {
    // The field of fire as the rules draw it: the front edge, then sides splaying out.
    const [fl, fr] = corners(p.footprint);
    const hd = (p.footprint.heading_deg * Math.PI) / 180, depth = app.report.measures.fof_depth_in;
    const side = depth * Math.tan((app.scenario.fof_splay_deg * Math.PI) / 180);
    const ahead = [Math.sin(hd) * depth, -Math.cos(hd) * depth], aside = [Math.cos(hd) * side, Math.sin(hd) * side];
    fof = [fl, fr, [fr[0] + ahead[0] + aside[0], fr[1] + ahead[1] + aside[1]], [fl[0] + ahead[0] - aside[0], fl[1] + ahead[1] - aside[1]]];
  }
  return { report: r, piece: p, fof, commander: r.commanded_by ? piece(r.commanded_by) : null, command_range_in: app.report.measures.command_range_in ?? null };
}

/** The command verdict in the scenario's measure: Pub Battles in inches, NBC in
 *  centimetres from its Formation commander. */
function commandText(r) {
  const n = r.nbc && r.nbc.command;
  if (n) {
    if (n.margin_cm === null || n.margin_cm === undefined) return { text: `OUT of command: ${n.reason}`, cls: "bad", margin: null };
    const by = hundredths(Math.abs(n.margin_cm)).toFixed(2);
    return n.in_command
      ? { text: `in command by ${by} cm (${nameOf(n.commander)}, radius ${n.radius_cm} cm)`, cls: "good", margin: n.margin_cm }
      : { text: `OUT of command by ${by} cm (${nameOf(n.commander)}, radius ${n.radius_cm} cm)`, cls: "bad", margin: n.margin_cm };
  }
  if (r.in_command === null) return { text: "no commanding HQ", cls: "", margin: null };
  if (r.command_margin_in === null) return { text: "OUT of command: its HQ is not on the table", cls: "bad", margin: null };
  const m = r.command_margin_in;
  return r.in_command
    ? { text: `in command by ${f2(m)} in (${nameOf(r.commanded_by)})`, cls: "good", margin: m }
    : { text: `OUT of command by ${f2(-m)} in (${nameOf(r.commanded_by)})`, cls: "bad", margin: m };
}
app.commandText = commandText;

/** Who flanks a piece, once, whatever the rule system: Pub Battles lists ids, NBC ids
 *  with the distance in centimetres. */
function flankers(r) {
  if (r.nbc) return r.nbc.flanked_by.map((f) => `${nameOf(f.id)} (${hundredths(f.distance_cm).toFixed(2)} cm)`);
  return r.flanked_by.map(nameOf);
}

function swatch(side) {
  const s = h("span", { className: "swatch", "aria-hidden": "true" }, "■");
  s.style.color = sideColour(side);
  return s;
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
  const fof = r.fof_detail.map((f) => `${nameOf(f.id)} (${Math.round(f.fraction_inside * 100)}%)`).join(", ") || "none";
  const terrain = r.terrain + (r.hill_level ? ` (hill level ${r.hill_level})` : "") + (r.cover ? `, cover: ${r.cover}` : "");
  const flanked = flankers(r);
  const pub = !r.hex && !r.nbc;
  show("info",
    h("h3", { "data-key": p.id }, swatch(p.side), " ", nameOf(p)),
    dl([
      ["Piece", `${KIND_WORDS[p.kind] || p.kind} · ${p.status} · ${p.id}`],
      (pub || r.nbc) && ["Command", cmd.text, { id: "command", className: cmd.cls, "data-margin": cmd.margin ?? "" }],
      ["Terrain", terrain, { id: "terrainv" }],
      pub && ["In FoF of", fof, { id: "infof" }],
      // One Hour Wargames has no flank rule, and its sight is the Shooting row's: each
      // target with its reason (its report's `can_see` is the allowed shots alone).
      !r.hex && ["Can see", names(r.can_see), { id: "cansee" }],
      !r.hex && ["Flanked by", flanked.join(", ") || "none", { id: "flanked", className: flanked.length ? "bad" : "" }],
      pub && r.in_contact_with.length && ["Contact", names(r.in_contact_with)],
      r.supported_by && ["Support", nameOf(r.supported_by)],
      r.in_road_column && ["Road", "in road column"],
      r.rally && p.status === "spent" && ["Rally", `${r.rally.possible ? "yes" : "no"}: ${r.rally.reason}`],
      ...systemRows(r),
    ]),
    identifyPicker(p),
    vetoButton(p));
}

// The per-system verdicts of a tapped piece (OHW hex, NBC), as rows of the info panel.
function systemRows(r) {
  if (r.hex) {
    const x = r.hex;
    const shots = (x.shots || []).map((s) => h("div", null, `${nameOf(s.target)} at ${s.range_hex} ${s.range_hex === 1 ? "hex" : "hexes"}: ${s.allowed ? "may shoot" : "may not"} (${s.reason})`));
    return [
      ["Hex", `(${x.hex.col}, ${x.hex.row}), facing (${x.faces.col}, ${x.faces.row})`, { id: "hexat" }],
      ["Shooting", [x.may_shoot ? "" : h("div", null, "moved this turn: may not shoot"), shots.length ? shots : "no target"], { id: "shots" }],
      x.arm && ["Morale", moraleForm(r), { id: "morale" }],
    ];
  }
  if (r.nbc) {
    const n = r.nbc;
    const cm = (d) => `${hundredths(d).toFixed(2)} cm`;
    return [
      ["Base", `${n.frontage_cm} x ${n.depth_cm} cm`],
      ["Contact zone", n.contact_zone.map((z) => `${nameOf(z.id)} (${cm(z.distance_cm)})`).join(", ") || "none", { id: "nbczone" }],
      n.artillery.length && ["Battery", n.artillery.map((a) => h("div", null, `${nameOf(a.target)} at ${cm(a.distance_cm)}: ${a.allowed ? `${a.dice} dice` : "may not fire"} (${a.reason})`)), { id: "battery" }],
      n.army_commander && ["Army commander", `${nameOf(n.army_commander.id)}, ${cm(n.army_commander.distance_cm)} away${n.army_commander.within_visibility ? "" : ": beyond his sight"}`],
    ];
  }
  return [];
}

/** One Hour Wargames' morale test for a tapped unit: "Test morale whenever a unit takes
 *  any hits and is diced for after all attacks on the units are complete. Roll two D6
 *  and sum the score". The table shows no hit markers, so the player gives the hits (a
 *  unit with more than 8 is already routed); a unit whose commander a failed test took
 *  ("must remove the commander and is not routed") says so, for its next failure routs
 *  it. The server reads the commander and "Entrenched units never take moral checks"
 *  from the scenario and the hex. */
function moraleForm(r) {
  const hits = h("input", { id: "moralehits", type: "number", min: 0, max: 8, value: 1, inputMode: "numeric", "aria-label": "Hits on the unit" });
  const lost = r.hex.commander ? h("input", { id: "commanderlost", type: "checkbox" }) : null;
  return h("div", { className: "row" },
    h("label", null, "Hits ", hits),
    lost && h("label", null, lost, " commander lost"),
    h("button", { id: "moraleroll", onclick: () => {
      showPanel("dice");
      roll({ morale: { unit: r.id, hits: Number(hits.value), commander_lost: lost ? lost.checked : false } });
    } }, "Test morale"));
}

// ---------- naming a piece the tracker took for another ----------

/** "This is…": the units the camera could have mixed this piece up with (same side, same
 *  shape: it tells a block from a cube, not infantry from cavalry; never the supply train
 *  for a fighting block, which stands on its own on the table). Only for a watched table;
 *  a scripted replay's names are the script's. Choosing asks before it renames. */
function identifyPicker(p) {
  if (!app.scenario.identify || app.history || !p.id) return null;
  const shapes = app.scenario.shapes;
  const train = (k) => k === "supply-train";
  const options = app.scenario.units
    .filter((u) => u.id !== p.id && u.side === p.side && shapes[u.id] === shapes[p.id] && train(u.kind) === train(p.kind))
    .map((u) => h("option", { value: u.id }, `${u.name} (${piece(u.id) ? "on the table" : "not seen"})`));
  if (!options.length) return null;
  const select_ = h("select", { id: "identify", "aria-label": "This piece is" }, h("option", { value: "" }, "This is…"), options);
  const confirm = h("div", { id: "identifyask", className: "row", hidden: true });
  const named = app.named && app.named.unit === p.id
    ? h("p", { id: "identifyout", className: "good" }, `Named ${nameOf(p.id)}; it was taken for ${nameOf(app.named.was)}.`)
    : h("p", { id: "identifyout", className: "hint" });
  // The question stays while new tables redraw the panel, until the player answers it.
  const ask = (unit) => {
    app.pendingName = unit ? { of: p.id, unit } : null;
    select_.value = unit;
    confirm.hidden = !unit;
    if (!unit) return;
    show(confirm,
      h("span", null, `Name ${nameOf(p.id)} as ${nameOf(unit)}? The two names swap.`),
      h("button", { id: "identifyyes", onclick: () => { ask(""); identify(p, unit); } }, "Name it"),
      h("button", { id: "identifyno", onclick: () => ask("") }, "Cancel"));
  };
  select_.onchange = () => ask(select_.value);
  if (app.pendingName && app.pendingName.of === p.id) ask(app.pendingName.unit);
  return h("div", null, h("div", { className: "row" }, h("label", null, "Wrong unit? ", select_)), confirm, named);
}

async function identify(p, unit) {
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
    say(`Named ${nameOf(named.unit)}; it was taken for ${nameOf(named.was)}.`, "good");
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

// ---------- a person's veto, and pieces placed by hand ----------

/** Whether this page may correct the tracker: a watched table (a scripted replay's
 *  pieces are the script's), live (not a past state), and a seat that plays. */
function mayCorrect() {
  return app.scenario.identify && !app.history && !(app.seat && app.seat.seat === "spectator");
}

/** The line saying how the last correction went; it stays while panels are redrawn. */
function handOut(text, className) {
  app.handNote = { text, className };
  const out = $("handout");
  if (out) Object.assign(out, { textContent: text, className });
}
function handLine() {
  const note = app.handNote || { text: "", className: "hint" };
  return h("p", { id: "handout", className: note.className }, note.text);
}

/** "Not a piece": the tapped piece is ink, glare or a die. Asks before it vetoes; a
 *  piece this page placed by hand is taken back instead. */
function vetoButton(p) {
  if (!mayCorrect()) return null;
  const placed = app.placed && app.placed.has(p.id);
  const ask = h("div", { id: "vetoask", className: "row", hidden: true });
  const key = p.key || p.id;
  // The question stays while new tables redraw the panel, until the player answers it.
  const close = () => { app.pendingVeto = null; ask.hidden = true; };
  const go = async () => {
    close();
    handOut(placed ? "taking back…" : "vetoing…", "hint");
    const { x, y } = p.footprint.center;
    try {
      if (placed) {
        await api("unplace", { unit: p.id });
        app.placed.delete(p.id);
      } else {
        await api("veto", { x_in: x, y_in: y });
      }
      clearSelection();
      handOut(placed ? `${nameOf(p)} taken back.` : `Vetoed: the camera's ${nameOf(p)} there is ignored until that place changes.`, "good");
    } catch (err) {
      handOut(err.message, "bad");
    }
  };
  const open = () => {
    app.pendingVeto = key;
    ask.hidden = false;
    show(ask,
      h("span", null, placed ? `Take back ${nameOf(p)}, placed by hand?` : "Not a piece? It leaves the table, and the camera's reading there is ignored until that place changes."),
      h("button", { id: "vetoyes", onclick: go }, placed ? "Take back" : "Not a piece"),
      h("button", { id: "vetono", onclick: close }, "Cancel"));
  };
  const button = h("button", { id: "vetobtn", onclick: open }, placed ? "Take back" : "Not a piece");
  if (app.pendingVeto === key) open();
  return h("div", null, h("div", { className: "row" }, button), ask, handLine());
}

/** The units this seat may place by hand: its own (the server sends only those, or all
 *  to the umpire) that are not on the table. */
function missingUnits() {
  return app.scenario.units.filter((u) => !piece(u.id));
}

/** "Place a missed piece", under the hint when nothing is tapped. */
function placeButton() {
  if (!mayCorrect()) return null;
  app.missingShown = missingUnits().map((u) => u.id).join();
  if (!missingUnits().length) return handLine();
  const units = h("select", { id: "placeunit", "aria-label": "The missed piece" },
    h("option", { value: "" }, "Which piece?"),
    missingUnits().map((u) => h("option", { value: u.id }, u.name)));
  units.onchange = () => {
    if (!units.value) return;
    app.placing = { unit: units.value, at: null };
    showPlacing();
  };
  return h("div", null,
    h("div", { className: "row" }, h("label", null, "Camera missed a piece? ", units)),
    handLine());
}

/** A new table with nothing tapped: the hint's list of missed pieces follows the table
 *  (a vetoed unit is free to place); redrawn only when that list changed, so a player
 *  choosing from it is not interrupted. */
function hintAfterTable() {
  if (app.ruler || app.placing || !app.scenario || !mayCorrect()) return;
  const missing = missingUnits().map((u) => u.id).join();
  if (missing !== app.missingShown) refresh();
}

/** The two taps of a placement: where the piece stands, then the way it faces. */
function showPlacing() {
  const pl = app.placing;
  const unit = app.scenario.units.find((u) => u.id === pl.unit);
  show("info",
    h("p", { id: "placestep", className: "hint" }, pl.at ? `Now tap the way ${unit.name} faces.` : `Tap where ${unit.name} stands.`),
    h("div", { className: "row" }, h("button", { id: "placecancel", onclick: () => { app.placing = null; drawPlacing(); refresh(); } }, "Cancel")));
  drawPlacing();
}

function drawPlacing() {
  const g = $("over");
  g.textContent = "";
  const pl = app.placing;
  if (pl && pl.at) el("circle", { cx: pl.at[0], cy: pl.at[1], r: 0.3, class: "range" }, g);
}

async function placeTap(x, y) {
  const pl = app.placing;
  if (!pl.at) {
    pl.at = [x, y];
    return showPlacing();
  }
  const [x0, y0] = pl.at;
  // Heading 0 is toward the map's top edge, clockwise: the second tap is in front.
  const heading = ((Math.atan2(x - x0, y0 - y) * 180) / Math.PI + 360) % 360;
  app.placing = null;
  drawPlacing();
  await refresh();
  handOut("placing…", "hint");
  try {
    const placed = await api("place", { unit: pl.unit, x_in: x0, y_in: y0, heading_deg: Math.round(heading * 10) / 10 });
    app.placed = app.placed || new Set();
    app.placed.add(placed.unit);
    handOut(`${nameOf(placed.unit)} placed by hand: held there until the camera sees it.`, "good");
  } catch (err) {
    handOut(err.message, "bad");
  }
}

// ---------- two pieces ----------

/** What rolling two tapped pieces means under the scenario's rules. */
function rollWord() {
  const rules = app.scenario.rules;
  if (rules === "ohw-hex") return "shot";
  if (rules === "nbc") return "battery fire";
  return "combat";
}
/** Why a tapped pair starting with `a` has no roll under the scenario's rules, or null:
 *  NBC rolls a battery's fire only, for its Firefight and Close Combat are not in the
 *  rules text (the server refuses them in the same words). */
function noPairRoll(a) {
  const p = piece(a);
  if (app.scenario.rules !== "nbc" || !p || /artillery/.test(p.kind)) return null;
  return `${nameOf(p)} is no battery: NBC's Firefight and Close Combat are not in the rules text, so their dice are rolled with dice notation`;
}
function comboButton() {
  const b = $("combatbtn");
  const two = app.sel.length === 2 && app.sel.every((k) => pieceReport(k));
  b.disabled = !two || !!noPairRoll(app.sel[0]);
  b.textContent = b.disabled ? `Tap two pieces to roll their ${rollWord()}` : `Roll ${rollWord()}: ${nameOf(app.sel[0])} → ${nameOf(app.sel[1])}`;
  if (two && b.disabled) b.textContent = `No ${rollWord()}: ${nameOf(app.sel[0])} is no battery`;
}

function showPair(a, b, m, s) {
  const under = $("under"), over = $("over");
  under.textContent = ""; over.textContent = "";
  const pa = piece(a), pb = piece(b);
  if (pa && pb) {
    el("line", { x1: pa.footprint.center.x, y1: pa.footprint.center.y, x2: pb.footprint.center.x, y2: pb.footprint.center.y, class: "sightline " + (s.can_see ? "ok" : "blocked") }, over);
  }
  if (s.blocked_by && s.blocked_by.at) el("circle", { cx: s.blocked_by.at[0], cy: s.blocked_by.at[1], r: 0.22, class: "blocker" }, over);
  const blocked = s.blocked_by ? `blocked by ${s.blocked_by.kind}${s.blocked_by.name ? " (" + s.blocked_by.name + ")" : ""}: ${s.blocked_by.reason}` : "";
  const seenOver = s.seen_over.length ? ` (seen over ${s.seen_over.map((x) => x.name || x.kind).join(", ")})` : "";
  const moves = m.foot_moves === null ? "" : ` = ${f2(m.foot_moves)} foot / ${f2(m.mounted_moves)} mounted moves`;
  show("info",
    h("h3", null, swatch(pa && pa.side), " ", nameOf(a), " → ", swatch(pb && pb.side), " ", nameOf(b)),
    dl([
      [m.unit === "hex" ? "Hexes" : "Edge to edge", rulesDistanceText(m) + moves, { id: "distance", "data-in": m.distance_in, "data-rules": m.rules_distance }],
      ["Sight", s.can_see ? `${nameOf(a)} sees ${nameOf(b)}${seenOver}` : `cannot see: ${blocked}`, { id: "sight", className: s.can_see ? "good" : "bad" }],
      ["Range", `${lengthText(s.distance_in)} of ${lengthText(s.range_in)}`, { id: "sightrange" }],
    ]),
    noPairRoll(a) ? h("p", { id: "pairnoroll", className: "hint" }, noPairRoll(a))
      : h("button", { id: "pairroll", onclick: () => { showPanel("dice"); rollPair(); } }, `Roll this ${rollWord()}`));
}

// ---------- ruler ----------

$("ruler").onclick = () => {
  app.ruler = !app.ruler;
  $("ruler").setAttribute("aria-pressed", String(app.ruler));
  app.rulerPts = [];
  app.sel = [];
  showPanel("info");
  refresh();
  if (app.ruler) show("info", h("p", { className: "hint" }, "Ruler: tap two points on the map."));
};
$("clear").onclick = clearSelection;

/** How finely a finger places a point: about 6 screen pixels, in map inches. */
const FINGER_PX = 6;

async function rulerTap(x, y) {
  if (app.rulerPts.length >= 2) app.rulerPts = [];
  app.rulerPts.push([x, y]);
  drawRuler();
  const err = FINGER_PX / pxPerInch();
  // Decimals a finger can honestly claim at this zoom: the last digit's step no finer than
  // the finger's error (±0.55 in at a whole 36 in map on a phone: whole inches; ±0.09 in
  // zoomed in 6x: tenths).
  const decimals = (perUnit) => Math.max(0, Math.min(2, Math.floor(-Math.log10(err * perUnit))));
  const point = ([px, py]) => `${px.toFixed(decimals(1))}, ${py.toFixed(decimals(1))}`;
  if (app.rulerPts.length < 2) {
    show("info", h("p", { className: "hint" }, `From ${point([x, y])}: tap the second point.`));
    return;
  }
  const [p1, p2] = app.rulerPts;
  try {
    const m = await api(`measure?from=${p1[0]},${p1[1]}&to=${p2[0]},${p2[1]}`);
    const perUnit = m.unit === "cm" ? 2.54 : 1;
    const d = decimals(perUnit);
    const text = m.unit === "hex"
      ? `${rulesDistanceText(m)} (${m.distance_in.toFixed(decimals(1))} in)`
      : `${m.rules_distance.toFixed(d)} ${m.unit}`;
    show("info", h("h3", null, "Ruler"), dl([
      ["Distance", text, { id: "rulerout", "data-in": m.distance_in, "data-rules": m.rules_distance }],
      m.foot_moves !== null && ["Foot", `${m.foot_moves.toFixed(Math.max(d, 1))} moves`],
      m.foot_moves !== null && ["Mounted", `${m.mounted_moves.toFixed(Math.max(d, 1))} moves`],
      ["Finger", `±${(err * perUnit).toFixed(d + 1)} ${m.unit === "hex" ? "in" : m.unit} at this zoom; zoom in to measure finer`, { className: "hint" }],
      ["From → to", `${point(p1)} → ${point(p2)}`],
    ]));
  } catch (err) {
    show("info", h("p", { className: "bad" }, err.message));
  }
}
function drawRuler() {
  const over = $("over");
  over.textContent = "";
  const ps = app.rulerPts;
  if (ps.length === 2) el("line", { x1: ps[0][0], y1: ps[0][1], x2: ps[1][0], y2: ps[1][1], class: "rulerline" }, over);
  for (const p of ps) el("circle", { cx: p[0], cy: p[1], r: 6 / pxPerInch(), class: "rulerend" }, over);
}

// ---------- panels: one open at a time, in place of the verdict ----------

const PANELS = { info: "info", list: "listpanel", dice: "dicepanel", cup: "cuppanel", log: "logpanel" };
function showPanel(name) {
  app.panel = name;
  for (const [n, id] of Object.entries(PANELS)) {
    $(id).hidden = n !== name;
    if ($(n) && n !== "info") $(n).setAttribute("aria-pressed", String(n === name));
  }
  if (name === "list") listView();
  if (name === "cup") cup();
  if (name === "log") loadLog();
  if (name !== "info") {
    const r = $(PANELS[name]).getBoundingClientRect();
    if (r.top > window.innerHeight - 120) $(PANELS[name]).scrollIntoView({ block: "start" });
  }
}
app.showPanel = showPanel;
for (const n of ["list", "dice", "cup", "log"]) $(n).onclick = () => showPanel(app.panel === n ? "info" : n);

// ---------- list view: the questions players ask most ----------

function setMe(side) {
  app.me = side;
  $("me").value = side;
  $("viewer").value = side;
  drawMarks();
}
$("me").onchange = () => { setMe($("me").value); listView(); };

/** "My pieces out of command", "enemy pieces that can see mine" and the like, from the
 *  report the page holds; each line selects its piece. One Hour Wargames has no command
 *  range, so its list asks its own questions instead: which of my units may shoot, and
 *  which enemies may shoot mine (its report's `can_see` is the shots the rules allow). */
function listView() {
  const me = app.me;
  const reps = (app.report ? app.report.pieces : []).filter((r) => piece(r.id));
  const mine = reps.filter((r) => r.side === me);
  const ohw = reps.some((r) => r.hex);
  const outOfCommand = mine.filter((r) => (r.nbc && r.nbc.command ? !r.nbc.command.in_command : r.in_command === false));
  const mineIds = new Set(mine.map((r) => r.id));
  const seeing = reps.filter((r) => r.side !== me).map((r) => ({ r, sees: r.can_see.filter((id) => mineIds.has(id)) })).filter((x) => x.sees.length);
  const flanked = mine.filter((r) => flankers(r).length);
  const inFof = mine.filter((r) => r.in_fof_of.length && !r.nbc && !r.hex);
  const spent = app.table.pieces.filter((p) => p.side === me && p.status === "spent" && p.id);
  const item = (id, text) => h("li", null, h("button", { className: "listbtn", "data-id": id, onclick: () => { app.sel = []; select(id); } }, swatch(piece(id) && piece(id).side), " ", text));
  const section = (id, title, items) => h("section", { id, className: "q" }, h("h3", null, `${title} (${items.length})`),
    items.length ? h("ul", null, items) : h("p", { className: "hint" }, "none"));
  const shooting = mine.map((r) => ({ r, shots: r.hex ? r.hex.shots.filter((x) => x.allowed) : [] })).filter((x) => x.shots.length);
  const hexes = (n) => `${n} ${n === 1 ? "hex" : "hexes"}`;
  show("listout",
    ohw ? section("q-shots", "My units that may shoot", shooting.map(({ r, shots }) => item(r.id, `${nameOf(r.id)} → ${shots.map((x) => `${nameOf(x.target)} (${hexes(x.range_hex)})`).join(", ")}`)))
      : section("q-command", "My pieces out of command", outOfCommand.map((r) => item(r.id, `${nameOf(r.id)}: ${commandText(r).text}`))),
    ohw ? section("q-seen", "Enemy units that may shoot mine", seeing.map(({ r, sees }) => item(r.id, `${nameOf(r.id)} → ${names(sees)}`)))
      : section("q-seen", "Enemy pieces that can see mine", seeing.map(({ r, sees }) => item(r.id, `${nameOf(r.id)} sees ${names(sees)}`))),
    ohw ? null : section("q-flanked", "My pieces flanked", flanked.map((r) => item(r.id, `${nameOf(r.id)} by ${flankers(r).join(", ")}`))),
    inFof.length ? section("q-fof", "My pieces in an enemy field of fire", inFof.map((r) => item(r.id, `${nameOf(r.id)}: ${names(r.in_fof_of)}`))) : null,
    spent.length ? section("q-spent", "My spent pieces", spent.map((p) => item(p.id, nameOf(p)))) : null);
}
app.listView = listView;

// ---------- dice ----------

$("rollbtn").onclick = () => roll({ notation: $("notation").value });
$("combatbtn").onclick = () => rollPair();
/** The tapped pair's combat (Pub Battles), shot (One Hour Wargames) or battery fire (NBC). */
function rollPair() {
  if (app.sel.length === 2) roll({ combat: [app.sel[0], app.sel[1]] });
}

function diceEls(dice) {
  return dice.map((d) => h("span", { className: `die${d.hit ? " hit" : ""}${d.kept === false ? " dropped" : ""}`, title: d.modified ?? "" },
    String(d.face), d.modified !== undefined && d.modified !== d.face ? h("small", null, `→${d.modified}`) : null));
}

/** One Pub Battles volley: who fires how many dice, each modifier with its reason, the
 *  dice, the effect. */
function volleyEl(v) {
  const p = v.plan, res = v.result;
  const mods = [...p.modifiers.map((m) => h("li", null, `${m.value > 0 ? "+" : ""}${m.value} ${m.reason}`)),
    ...p.notes.map((n) => h("li", { className: "hint" }, n))];
  return h("div", { className: "volley" },
    h("p", null, `${nameOf(p.shooter)} fires ${p.dice} dice at ${nameOf(p.target)}, hits on ${p.threshold}+`),
    mods.length ? h("ul", null, mods) : null,
    h("div", null, diceEls(v.roll.dice)),
    h("p", null, `${res.scored} hit${res.scored === 1 ? "" : "s"}${res.counted !== res.scored ? ` (${res.counted} counted)` : ""}: ${nameOf(p.target)} `, h("b", null, res.effect.replace(/-/g, " "))));
}

/** A roll's lines as the page shows it; a combat's roll is final, so there is no
 *  re-roll button (the rules give none; a new roll is a new, logged, roll). */
function rollEls(r) {
  const id = h("p", { className: "hint" }, `roll ${r.roll_id}`);
  if (r.dice) {
    const outcome = r.outcome.kind === "hits" ? `${r.outcome.value} hits` : `total ${r.outcome.value}`;
    return [h("p", { id: "rollresult" }, h("b", null, r.notation), `: ${outcome}`), h("div", null, diceEls(r.dice)), id];
  }
  if (r.facts && r.result && r.result.die !== undefined) {
    // One Hour Wargames: a D3 and its modifiers.
    const mods = r.result.modifiers.map(([v, why]) => h("li", null, `${v > 0 ? "+" : ""}${v} ${why}`));
    return [h("p", { id: "rollresult" }, h("b", null, `${nameOf(r.shooter)} shoots ${nameOf(r.target)}`)),
      h("p", null, `${r.facts.range_hex} ${r.facts.range_hex === 1 ? "hex" : "hexes"}, D3:`), h("div", null, diceEls([{ face: r.result.die, hit: r.result.hits > 0 }])),
      mods.length ? h("ul", null, mods) : null,
      h("p", { id: "hits" }, h("b", null, `${r.result.hits} hit${r.result.hits === 1 ? "" : "s"}`)), id];
  }
  if (r.result && r.result.outcome && r.unit) {
    // One Hour Wargames' morale: 2D6 against the hits; "less than or equal to the
    // unit's hits" fails.
    const m = r.result;
    const said = { passed: "passes", "commander-lost": "fails: the commander is removed, the unit stays", routed: "fails: routed and removed from play", "not-tested": "is entrenched: \"Entrenched units never take moral checks\"" }[m.outcome];
    return [h("p", { id: "rollresult" }, h("b", null, `${nameOf(r.unit)} tests morale`)),
      h("p", null, `${m.hits} hit${m.hits === 1 ? "" : "s"}${r.commander ? ", commander attached" : ""}${m.dice.length ? `: 2D6 scores ${m.total}, ${m.total > m.hits ? "more than" : "not more than"} the hits` : ""}`),
      m.dice.length ? h("div", null, diceEls(m.dice.map((d) => ({ face: d, hit: m.total > m.hits })))) : null,
      h("p", { id: "moraleout", className: m.outcome === "passed" || m.outcome === "not-tested" ? "good" : "bad" }, h("b", null, `${nameOf(r.unit)} ${said}`)), id];
  }
  if (r.fire && r.result && r.result.plan) {
    // NBC: a battery's dice, hits on 5+ (6 disordered), misses re-rolled once if earned.
    const pl = r.result.plan;
    const hit = (d) => ({ face: d, hit: d + pl.die_modifier >= pl.hit_on });
    const adj = pl.adjustments.map(([v, why]) => h("li", null, `${v > 0 ? "+" : ""}${v} dice: ${why}`));
    return [h("p", { id: "rollresult" }, h("b", null, `${nameOf(r.gun)} fires at ${nameOf(r.target)}`)),
      h("p", null, `${hundredths(r.fire.distance_cm).toFixed(2)} cm, ${pl.band} range: ${pl.dice} dice, hits on ${pl.hit_on}+`),
      adj.length ? h("ul", null, adj) : null,
      h("div", null, diceEls(r.result.first.map(hit))),
      r.result.rerolled.length ? [h("p", null, `misses re-rolled (${r.fire.reroll_because.join("; ")}):`), h("div", null, diceEls(r.result.rerolled.map(hit)))] : null,
      h("p", { id: "hits" }, h("b", null, `${r.result.hits} hit${r.result.hits === 1 ? "" : "s"}`)), id];
  }
  const volleys = r.round ? r.round.volleys : [r.volley];
  const notes = r.round ? r.round.notes : [];
  return [h("p", { id: "rollresult" }, h("b", null, `${nameOf(r.attacker || r.gun)} attacks ${nameOf(r.defender || r.target)}`)),
    notes.map((n) => h("p", { className: "hint" }, n)), volleys.map(volleyEl), id];
}

async function roll(req) {
  show("diceout", h("p", { className: "hint" }, "Rolling…"));
  try {
    const r = await api("roll", req);
    app.lastDice = r;
    show("diceout", rollEls(r));
    $("diceout").scrollIntoView({ block: "nearest" });
  } catch (err) {
    show("diceout", h("p", { className: "bad", id: "rollresult" }, err.message));
  }
}

// ---------- chit cup ----------

$("viewer").onchange = () => { setMe($("viewer").value); cup(); };
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
  try {
    const r = path ? await api(path, { viewer, ...body }) : { view: await api("chits?viewer=" + encodeURIComponent(viewer)) };
    const v = r.view;
    const seen = (c) => (c ? [swatch(c.side), " ", c.command ? commandName(c.command) : "(hidden)"] : "none");
    $("turn").textContent = `day ${v.turn.day}, turn ${v.turn.number}`;
    const moved = v.moved.length ? v.moved.map((c, i) => [i ? ", " : "", seen(c)]) : "none";
    show("cupout",
      r.alter ? h("p", null, `${commandName(r.alter.attempt.hq)} rolled ${r.alter.die} against ${r.alter.rating}: ${r.alter.success ? "success" : "failed"} (${r.alter.attempt.kind})`) : null,
      dl([["Moving", seen(v.current), { id: "cupcurrent" }], ["Moved", moved], ["In the bag", String(v.in_bag)]]));
  } catch (err) {
    show("cupout", h("p", { className: "bad" }, err.message));
  }
}

// ---------- turn log and replay ----------

app.live = null; // the newest live message while a past state is shown
app.history = null; // {seq, turn} of the past state shown, or null when live
/** The seq of the past state asked for and still loading, or null. While it loads, a live
 *  message neither redraws the table nor puts the slider back at the newest state, and a
 *  later choice (another state, or Live) wins over it when it arrives. */
app.goingTo = null;
app.logStates = [];

$("livebtn").onclick = () => goLive();
/** Show the journal's i-th stable state (the newest is the live table). */
function goToState(i) {
  const n = app.logStates.length;
  if (!n) return;
  i = Math.max(0, Math.min(n - 1, i));
  $("slider").value = i;
  stateLabel(i);
  if (i >= n - 1) goLive();
  else showHistory(app.logStates[i].seq);
}
app.goToState = goToState;
$("slider").oninput = () => goToState(Number($("slider").value));
// The slider is for big jumps; with a hundred states in 300 px a thumb cannot land on
// one, so the arrows step one state at a time.
$("prevstate").onclick = () => goToState(Number($("slider").value) - 1);
$("nextstate").onclick = () => goToState(Number($("slider").value) + 1);
function stateLabel(i) {
  const s = app.logStates[i];
  $("stateat").textContent = s ? `${i + 1} of ${app.logStates.length} · turn ${s.turn}` : "no states yet";
}

function eventText(e) {
  const ev = e.event;
  if (ev.event === "moved") {
    const v = ev.verdict;
    return [`${nameOf(ev.unit)} moved ${f2(ev.distance_in)} in`, v.legal ? "" : h("span", { className: "bad" }, ` (${v.problems.join("; ")})`)];
  }
  if (ev.event === "flipped") return `${nameOf(ev.unit)} turned ${ev.to}`;
  if (ev.event === "identified") return `${nameOf(ev.unit)} named (was taken for ${nameOf(ev.was)})`;
  const at = (p) => `(${f2(p.x_in)}, ${f2(p.y_in)})`;
  if (ev.event === "vetoed") return `${ev.unit ? nameOf(ev.unit) : "a detection"} at ${at(ev.pose)}: not a piece, says ${ev.by}`;
  if (ev.event === "lifted") return `the place where ${ev.unit ? nameOf(ev.unit) : "a detection"} was vetoed, ${at(ev.pose)}, changed: seen again`;
  if (ev.event === "placed") return `${nameOf(ev.unit)} placed by hand at ${at(ev.pose)} by ${ev.by}`;
  if (ev.event === "unplaced") return `${nameOf(ev.unit)} taken back by ${ev.by}`;
  if (ev.event === "seen") return `${nameOf(ev.unit)} seen by the camera at ${at(ev.pose)}`;
  return `${nameOf(ev.unit)} ${ev.event}`;
}
function drawText(d) {
  const v = d.value;
  if (v.attacker) return `combat: ${nameOf(v.attacker)} attacks ${nameOf(v.defender)}, ${v.text.split("\n")[0]}`;
  if (v.gun && v.volley) return `bombardment: ${nameOf(v.gun)} → ${nameOf(v.target)}, ${v.text.split("\n")[0]}`;
  if (v.text) return `${d.kind}: ${v.text.split("\n")[0]}`;
  if (v.shooter) return `shot: ${nameOf(v.shooter)} → ${nameOf(v.target)}, ${v.result.hits} hits`;
  if (v.unit && v.result && v.result.outcome) return `morale: ${nameOf(v.unit)} with ${v.result.hits} hits, ${v.result.dice.length ? `2D6 ${v.result.total}, ` : ""}${v.result.outcome.replace(/-/g, " ")}`;
  if (v.gun && v.result && v.result.plan) return `battery: ${nameOf(v.gun)} → ${nameOf(v.target)}, ${v.result.hits} hits`;
  if (v.draw) return `chit drawn (${sideOf(v.draw.chit.side) ? sideOf(v.draw.chit.side).name : v.draw.chit.side})`;
  if (v.attempt) return `${commandName(v.attempt.hq)} rolled ${v.die} to ${v.attempt.kind}: ${v.success ? "success" : "failed"}`;
  return d.kind;
}

/** The journal's lines, newest first, each with the stable state it follows (#seq): no
 *  list numbering beside it. */
async function logItems() {
  const log = await api("log");
  app.logStates = log.states;
  const items = [
    ...log.events.map((e) => ({ seq: e.seq, order: 0, text: eventText(e) })),
    ...log.draws.map((d) => ({ seq: d.after_seq ?? 0, order: 1, text: drawText(d) })),
  ].sort((a, b) => b.seq - a.seq || b.order - a.order);
  return items;
}

async function loadLog() {
  try {
    const items = await logItems();
    const slider = $("slider");
    slider.max = Math.max(0, app.logStates.length - 1);
    if (!app.history && app.goingTo === null) slider.value = slider.max;
    stateLabel(Number(slider.value));
    show("logout", items.length ? items.slice(0, 60).map((i) => h("li", null, h("span", { className: "seq" }, `#${i.seq}`), " ", i.text)) : h("li", null, "nothing yet"));
  } catch (err) {
    show("logout", h("li", { className: "bad" }, err.message));
  }
}

async function showHistory(seq) {
  app.goingTo = seq;
  try {
    const past = await api("log/" + seq);
    if (app.goingTo !== seq) return;
    app.goingTo = null;
    app.history = { seq: past.seq, turn: past.turn };
    setTable(past.table);
    app.report = past.report;
    document.body.classList.add("history");
    if (evidence.on) loadPhoto();
    $("historynote").textContent = `Showing stable state #${past.seq} (turn ${past.turn}); live updates wait. Live returns.`;
    app.sel = [];
    refresh();
  } catch (err) {
    if (app.goingTo !== seq) return;
    app.goingTo = null;
    $("historynote").textContent = err.message;
  }
}

function goLive() {
  app.goingTo = null;
  app.history = null;
  document.body.classList.remove("history");
  $("historynote").textContent = "";
  $("slider").value = $("slider").max;
  stateLabel(Number($("slider").max));
  if (app.live) { app.seq = -1; onMessage(app.live); }
}

// ---------- table display: a laptop or TV at the table's edge ----------

/** The whole map large, the verdict and the newest log lines in big type, no tools: for
 *  a screen everyone at the table reads (`?display=table`, or the button under the QR). */
function tableDisplay(on) {
  document.body.classList.toggle("tabletop", on);
  $("tvlog").hidden = !on;
  $("exittv").hidden = !on;
  const u = new URL(location.href);
  if (on) u.searchParams.set("display", "table"); else u.searchParams.delete("display");
  history.replaceState(null, "", u);
  showPanel("info");
  if (app.scenario) { fit(); if (on) tvLog(); }
}
app.tableDisplay = tableDisplay;
$("tvbtn").onclick = () => { $("qr").close(); tableDisplay(true); };
$("exittv").onclick = () => tableDisplay(false);
async function tvLog() {
  if (!document.body.classList.contains("tabletop")) return;
  try {
    const items = await logItems();
    show("tvout", items.slice(0, 8).map((i) => h("li", null, i.text)));
  } catch (err) {
    show("tvout", h("li", { className: "hint" }, err.message));
  }
}
setInterval(tvLog, 5000);

// ---------- live feed ----------

function showStatus() {
  const s = app.status;
  if (!s || conn.down) return;
  const src = $("source");
  src.className = "dot " + s.source;
  src.textContent = s.source === "synthetic" ? "synthetic camera" : s.source;
  $("fps").textContent = s.fps > 0 ? `${s.fps.toFixed(1)} fps` : "still";
  const since = s.since_stable_s + (performance.now() - app.statusAt) / 1000;
  $("since").textContent = `stable ${since.toFixed(0)} s ago`;
}
setInterval(showStatus, 500);

app.onMessage = (msg) => onMessage(msg);
function onMessage(msg) {
  app.status = msg.status;
  app.statusAt = performance.now();
  showStatus();
  if (msg.type === "state") app.live = msg;
  if (msg.type === "state" && !app.history && app.goingTo === null && msg.seq !== app.seq) {
    app.seq = msg.seq;
    if (app.panel === "log") loadLog();
    tvLog();
    setTable(msg.table);
    app.report = msg.report;
    document.body.dataset.seq = msg.seq;
    if (evidence.on) loadPhoto();
    if (app.selectWhenSeen && piece(app.selectWhenSeen)) {
      app.sel = [app.selectWhenSeen];
      app.selectWhenSeen = null;
    }
    if (app.sel.length) refresh();
    else drawPieces();
    if (!app.sel.length) hintAfterTable();
    if (app.panel === "list") listView();
  }
}

// ---------- the camera's picture as evidence ----------

/** The camera's own picture of the table (the map plane of the frame the tracker last
 *  committed on, cropped to the map) in place of the drawn pieces, under the same
 *  verdict layers: command ring, field of fire, sight line and its blocker, ruler. Both
 *  are in map inches, so the overlay lands on the real blocks. Fetched when asked for
 *  (and on each new state while shown), never pushed over the WebSocket; in the log's
 *  replay, the journal's picture of the past state shown. */
const evidence = { on: false, url: null, seq: null, want: null };
app.evidence = evidence;
$("photo").onclick = () => showPhoto(!evidence.on);
function photoNote(text, bad) {
  const n = $("photonote");
  n.textContent = text;
  n.className = bad ? "bad" : "";
}
function showPhoto(on) {
  evidence.on = on;
  $("photo").setAttribute("aria-pressed", String(on));
  if (on) return loadPhoto();
  document.body.classList.remove("photo");
  photoNote("");
}
app.showPhoto = showPhoto;
/** The picture of the table the page shows: the live one, or in the log's replay the
 *  journal's picture of that past state. A newer request wins over one still loading. */
async function loadPhoto() {
  const past = app.history;
  const src = past ? `/api/log/${past.seq}/picture.jpg` : "/api/evidence.jpg";
  evidence.want = src;
  try {
    const r = await fetch(src, { headers: window.aideSeat.headers({}) });
    if (!r.ok) {
      const json = await r.json().catch(() => ({}));
      throw new Error(json.error || r.statusText);
    }
    const seq = Number(r.headers.get("x-aide-seq"));
    const taken = Number(r.headers.get("x-aide-taken-ms"));
    const url = URL.createObjectURL(await r.blob());
    if (!evidence.on || evidence.want !== src) return URL.revokeObjectURL(url);
    if (evidence.url) URL.revokeObjectURL(evidence.url);
    Object.assign(evidence, { url, seq });
    const m = app.scenario.map, img = $("evimg");
    img.setAttribute("width", m.width_in);
    img.setAttribute("height", m.height_in);
    img.setAttribute("href", url);
    document.body.classList.add("photo");
    photoNote(`Camera · ${past ? "log state " : ""}#${seq} · ${new Date(taken).toLocaleTimeString()}`);
  } catch (err) {
    // No camera, or no still frame yet: say why, and keep the drawn pieces.
    if (evidence.want !== src) return;
    document.body.classList.remove("photo");
    if (evidence.on) photoNote(err.message, true);
  }
}
app.loadPhoto = loadPhoto;

/** The WebSocket and what the page says while it is gone: after a Wi-Fi blip it tries
 *  again (0.5 s, doubling to 8 s; at once when the phone says it is back online) and
 *  shows each try, then that it is back. */
const conn = { ws: null, backoff: 500, tries: 0, down: false, timer: null, okTimer: null, heard: 0 };
app.conn = conn;
/** The server speaks at least once a second (its status line). A socket silent for this
 *  long is taken for lost, whatever its state says: a phone whose Wi-Fi went away can hold
 *  a dead socket open, or stuck closing, for a minute before the browser gives it up, and
 *  all that while the page would show an old table as live. */
const SILENT_MS = 5000;
function banner(text, cls) {
  const b = $("conn");
  b.textContent = text;
  b.className = cls;
  b.hidden = !text;
}
function connect() {
  clearTimeout(conn.timer);
  // A try still under way (the phone said it is online again before it ended) is given
  // up, so that it cannot open later beside the new one and feed the page twice.
  if (conn.ws) forget(conn.ws);
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" + window.aideSeat.wsQuery());
  conn.ws = ws;
  conn.heard = Date.now();
  ws.onopen = () => {
    conn.backoff = 500;
    if (conn.down) {
      conn.down = false;
      conn.tries = 0;
      banner("Reconnected: the table is live again.", "ok");
      clearTimeout(conn.okTimer);
      conn.okTimer = setTimeout(() => banner("", ""), 4000);
    }
  };
  ws.onmessage = (e) => {
    conn.heard = Date.now();
    onMessage(JSON.parse(e.data));
    // The feed is live: its first message, the current state, has been applied.
    document.body.dataset.live = "1";
  };
  ws.onclose = () => lost(ws);
}
/** `ws` is gone (closed, or silent too long): say so and try again after the backoff.
 *  Its events are cut off, so a late close from it cannot count twice. */
function lost(ws) {
  if (conn.ws !== ws) return;
  forget(ws);
  conn.down = true;
  conn.tries += 1;
  $("source").className = "dot offline";
  $("source").textContent = "offline";
  const wait = conn.backoff;
  banner(`Connection lost: reconnecting (try ${conn.tries}, next in ${(wait / 1000).toFixed(1)} s)…`, "bad");
  conn.timer = setTimeout(connect, wait);
  conn.backoff = Math.min(conn.backoff * 2, 8000);
}
/** Cut `ws` off: none of its events reach the page, and it is closed if still open. */
function forget(ws) {
  if (conn.ws === ws) conn.ws = null;
  ws.onopen = ws.onmessage = ws.onclose = null;
  if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close();
}
setInterval(() => {
  if (conn.ws && Date.now() - conn.heard > SILENT_MS) lost(conn.ws);
}, 1000);
window.addEventListener("online", () => { if (conn.down) { conn.backoff = 500; connect(); } });

$("share").onclick = () => $("qr").showModal();

async function start() {
  app.seat = await window.aideSeat.ready;
  app.scenario = await api("scenario");
  document.title = app.scenario.name + " · aide-de-camp";
  $("url").textContent = app.scenario.url;
  $("url").href = app.scenario.url;
  // A side's seat sees the cup and the lists as its side; the umpire (or an open table)
  // picks.
  for (const s of app.scenario.sides) {
    if (app.seat.side && s.id !== app.seat.side) continue;
    $("viewer").add(new Option(s.name, s.id));
    $("me").add(new Option(s.name, s.id));
  }
  for (const c of app.scenario.commands) $("alterhq").add(new Option(`${c.name} (${c.alter})`, c.id));
  // The chit cup is Pub Battles' (the server refuses it under other rules, and says why).
  if (!app.scenario.commands.length || !/^pub-battles/.test(app.scenario.rules)) $("cup").hidden = true;
  setMe(app.seat.side || app.scenario.sides[0].id);
  comboButton();
  fit();
  drawTerrain();
  onMessage(await api("state"));
  connect();
  if (new URLSearchParams(location.search).get("display") === "table") tableDisplay(true);
  document.body.dataset.ready = "1";
}
start();

// ---------- camera check: a setup step for the umpire when a camera watches ----------
// The same check as `aide camera-check` (GET /api/camera-check runs the one
// implementation on the feed's newest frame): the picture with the corner tags found,
// each card's pixels an inch and sharpness, the accuracy to expect at the far corner,
// and what to fix, in words.

PANELS.camera = "camerapanel";
$("camera").onclick = () => {
  showPanel(app.panel === "camera" ? "info" : "camera");
  if (app.panel === "camera") cameraCheck();
};
$("camerabtn").onclick = () => cameraCheck();

/** The Camera button: for the umpire (everyone at an open table), while the table is
 *  watched by a camera (a replay has none to check). */
async function cameraButton() {
  const seat = await window.aideSeat.ready;
  const watched = app.status && app.status.source !== "replay";
  $("camera").hidden = !(seat.seat === "umpire" && watched);
}
setInterval(cameraButton, 1000);

const num = (v, d) => (v === null || v === undefined ? "–" : v.toFixed(d));

async function cameraCheck() {
  show("cameraout", h("p", { className: "hint" }, "Checking…"));
  let answer, picture;
  try {
    answer = await api("camera-check");
    // Fetched with the seat's token (an <img> sends no header), shown from memory.
    const r = await fetch(answer.picture, { headers: window.aideSeat.headers() });
    if (!r.ok) throw new Error((await r.json()).error || r.statusText);
    if (app.cameraPicture) URL.revokeObjectURL(app.cameraPicture);
    picture = app.cameraPicture = URL.createObjectURL(await r.blob());
  } catch (e) {
    show("cameraout", h("p", { className: "bad", role: "alert" }, e.message));
    return;
  }
  const r = app.cameraReport = answer.report;
  const [w, ht] = r.frame;
  const svg = el("svg", { id: "camerapic", viewBox: `0 0 ${w} ${ht}`, role: "img" });
  svg.setAttribute("aria-label", `What the camera sees: ${r.cards.filter((c) => c.found).length} of 4 corner cards found`);
  el("image", { href: picture, x: 0, y: 0, width: w, height: ht }, svg);
  const stroke = Math.max(2, w / 300);
  for (const c of r.cards.filter((c) => c.outline_px)) {
    el("polygon", { points: c.outline_px.map((p) => p.join(",")).join(" "), class: "tagfound", "stroke-width": stroke, "data-card": c.id }, svg);
    const [x, y] = c.outline_px[0];
    const label = el("text", { x, y: y - stroke * 2, class: "taglabel", "font-size": stroke * 10 }, svg);
    label.textContent = `card ${c.id}`;
  }
  const cards = h("table", { id: "cameracards" },
    h("thead", null, h("tr", null, ["Card", "Found", "px/in", "Edge px", "White", "Black"].map((t) => h("th", null, t)))),
    h("tbody", null, r.cards.map((c) => h("tr", { "data-card": c.id },
      h("td", null, `${c.id} ${c.corner}`),
      h("td", null, c.found ? "yes" : "NO"),
      h("td", null, num(c.px_per_in, 1)),
      h("td", null, num(c.edge_px, 1)),
      h("td", null, num(c.white, 0)),
      h("td", null, num(c.black, 0))))));
  const far = r.far_corner_in;
  const expected = r.expected_in === null ? null : h("p", { id: "cameraexpected" },
    `Expected accuracy at the far corner (${far[0]}, ${far[1]} in): ±${r.expected_in.toFixed(3)} in `
    + `(resolution ${num(r.resolution_in, 3)}, lens ${num(r.lens_in, 3)}, parallax ${num(r.parallax_left_in, 3)} `
    + `of ${num(r.parallax_in, 2)} corrected), ${num(r.far_px_per_in, 1)} px/in there. `
    + `The camera is ${num(r.camera_over_in[2], 0)} in above (${num(r.camera_over_in[0], 0)}, ${num(r.camera_over_in[1], 0)}).`);
  const fix = r.fix.length
    ? h("ul", { id: "camerafix" }, r.fix.map((f) => h("li", null, "Fix: " + f)))
    : h("p", { id: "camerafix", className: "good" }, "Good: nothing to fix.");
  const controls = r.controls.length ? h("ul", { className: "hint" }, r.controls.map((c) => h("li", null, "Camera control: " + c))) : null;
  show("cameraout", svg, fix, expected, cards, controls);
}
