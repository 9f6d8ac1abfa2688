// The score sheet drawn as the club's paper pulka in SVG.
//
// Three players: a rectangle split from the central circle (the target is written in it) into
// three fields — the bottom one is the viewer's, the left one belongs to the next seat clockwise
// (the player on his left), the right one to the seat after it. Four players: a square split by
// its diagonals. Five players: a pentagon split from the circle to its five corners, the
// viewer's field on the flat bottom edge, the others counter-clockwise on screen as at four (the
// player on his left on the left, R-T6). Each field holds, from the circle outwards, the hill
// (гора), the pool (пуля) and the whists (висты), the whists cut into one part per opponent, the
// part next to a neighbour's field for the whists written on that neighbour. Every column shows its running totals as the
// club writes them (2.4.6), the last one in bold (R-P6). Text is at least 13 units high and
// dark enough (contrast ≥ 4.5:1 on the paper) to be read at the table.
import { s } from "../dom.js";
import { t } from "../i18n.js";
import { formatWhists } from "../money.js";

const HILL = [0.22, 0.5];
const POOL = [0.5, 0.75];
const WHISTS = [0.75, 1.0];

function lerp(a, b, u) {
  return { x: a.x + (b.x - a.x) * u, y: a.y + (b.y - a.y) * u };
}

/** The point at arc-length fraction u along a polyline. */
function along(poly, u) {
  const lengths = [];
  let total = 0;
  for (let i = 1; i < poly.length; i += 1) {
    const d = Math.hypot(poly[i].x - poly[i - 1].x, poly[i].y - poly[i - 1].y);
    lengths.push(d);
    total += d;
  }
  let rest = u * total;
  for (let i = 0; i < lengths.length; i += 1) {
    if (rest <= lengths[i] || i === lengths.length - 1) {
      return lerp(poly[i], poly[i + 1], lengths[i] ? Math.min(rest / lengths[i], 1) : 0);
    }
    rest -= lengths[i];
  }
  return poly[poly.length - 1];
}

function polyLength(poly) {
  let total = 0;
  for (let i = 1; i < poly.length; i += 1) total += Math.hypot(poly[i].x - poly[i - 1].x, poly[i].y - poly[i - 1].y);
  return total;
}

function scaled(c, poly, f) {
  return poly.map((p) => lerp(c, p, f));
}

function pathOf(points) {
  return points.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
}

/**
 * The caption of a whists part, `room` characters wide: "→ name" when it fits, else the name
 * alone (the part's place says whose), else the first name («Кира» for «Кира Живая»), and only
 * a first name too long for the part is cut.
 */
export function whistsLabel(whom, room) {
  if (whom.length + 2 <= room) return `→ ${whom}`;
  if (whom.length <= room) return whom;
  const first = whom.split(/\s+/)[0];
  if (first.length + 2 <= room) return `→ ${first}`;
  if (first.length <= room) return first;
  return `${first.slice(0, Math.max(1, room - 1))}…`;
}

function num(value) {
  const n = Number(value);
  if (Number.isInteger(n)) return formatWhists(String(n));
  return Number.isFinite(n) ? formatWhists(n.toFixed(1).replace(/\.0$/, "")) : String(value);
}

/** The running totals of one column, from the sheet lines (or the current total alone). */
function series(lines, column, seat, on, fallback) {
  const values = lines
    ? lines.filter((l) => l.column === column && l.seat === seat && (on === undefined || l.on === on))
      .map((l) => l.total)
    : [];
  if (!values.length && Number(fallback) !== 0) values.push(fallback);
  return values.map(num);
}

function writeSeries(x, y, values, attrs = {}) {
  const shown = values.length > 5 ? ["…", ...values.slice(-4)] : values;
  const text = s("text", { x, y, "text-anchor": "middle", "dominant-baseline": "middle",
    class: "sheet-num", ...attrs });
  shown.forEach((v, i) => {
    if (i) text.append(s("tspan", { class: "sep", text: "." }));
    text.append(s("tspan", { class: i === shown.length - 1 ? "last" : "old", text: v }));
  });
  if (values.length) text.append(s("title", { text: values.join(" . ") }));
  return text;
}

/**
 * Draw the pulka. `data`: players, names, seat (the viewer's, null for a spectator), target,
 * sheet ({pool, hill, whists}), lines (running totals from /api/ui/.../sheet-lines, optional).
 */
export function drawPulka(data) {
  const n = data.players;
  const W = n === 4 ? 420 : n === 5 ? 480 : 460;
  const H = n === 4 ? 420 : n === 5 ? 454 : 340;
  const m = n === 5 ? 28 : 24;
  const TL = { x: m, y: m };
  const TR = { x: W - m, y: m };
  const BL = { x: m, y: H - m };
  const BR = { x: W - m, y: H - m };
  const TM = { x: W / 2, y: m };
  const C = n === 5 ? { x: W / 2, y: m + 220 } : { x: W / 2, y: H / 2 + (n === 3 ? 16 : 0) };
  const me = data.seat ?? 0;
  // The pentagon's corners (five players): flat bottom edge, apex on top.
  const V = [54, 126, 198, 270, 342].map((deg) => ({
    x: C.x + 220 * Math.cos((deg * Math.PI) / 180), y: C.y + 220 * Math.sin((deg * Math.PI) / 180) }));
  const nameOn = (a, b) => {
    const mid = lerp(a, b, 0.5);
    const out = Math.hypot(mid.x - C.x, mid.y - C.y);
    let r = (Math.atan2(b.y - a.y, b.x - a.x) * 180) / Math.PI;
    if (r > 90) r -= 180;
    if (r <= -90) r += 180;
    return { x: mid.x + ((mid.x - C.x) / out) * 14, y: mid.y + ((mid.y - C.y) / out) * 14, r: Math.round(r) };
  };
  // Fields in drawing order (counter-clockwise on screen, starting with the viewer at the bottom).
  const fields = n === 5
    ? [{ seat: me, poly: [V[1], V[0]], name: nameOn(V[1], V[0]) },
      { seat: (me + 4) % 5, poly: [V[0], V[4]], name: nameOn(V[0], V[4]) },
      { seat: (me + 3) % 5, poly: [V[4], V[3]], name: nameOn(V[4], V[3]) },
      { seat: (me + 2) % 5, poly: [V[3], V[2]], name: nameOn(V[3], V[2]) },
      { seat: (me + 1) % 5, poly: [V[2], V[1]], name: nameOn(V[2], V[1]) }]
    : n === 4
    ? [{ seat: me, poly: [BL, BR], name: { x: W / 2, y: H - 8, r: 0 } },
      { seat: (me + 3) % 4, poly: [BR, TR], name: { x: W - 9, y: H / 2, r: 90 } },
      { seat: (me + 2) % 4, poly: [TR, TL], name: { x: W / 2, y: 14, r: 0 } },
      { seat: (me + 1) % 4, poly: [TL, BL], name: { x: 9, y: H / 2, r: -90 } }]
    : [{ seat: me, poly: [BL, BR], name: { x: W / 2, y: H - 8, r: 0 } },
      { seat: (me + 2) % 3, poly: [BR, TR, TM], name: { x: W - 9, y: H / 2, r: 90 } },
      { seat: (me + 1) % 3, poly: [TM, TL, BL], name: { x: 9, y: H / 2, r: -90 } }];
  const R = 26;
  const sheet = data.sheet || { pool: [], hill: [], whists: [] };
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "pulka",
    "aria-label": `${t("table.sheet")}: ${fields.map((f) => `${data.names[f.seat]} — ${t("table.pool")} ${num(sheet.pool[f.seat] ?? 0)}, ${t("table.hill")} ${num(sheet.hill[f.seat] ?? 0)}`).join("; ")}` });
  svg.append(s("style", { text: `
    .paper { fill: #fbf8ef; stroke: #2b3a67; stroke-width: 2; }
    .rule { fill: none; stroke: #2b3a67; stroke-width: 1.2; }
    .thin { fill: none; stroke: #2b3a67; stroke-width: .8; stroke-dasharray: 3 3; }
    .sheet-num { font: 17px "DejaVu Sans", sans-serif; fill: #1b2a5a; }
    .sheet-num .old { fill: #4a5470; font-size: 14px; }
    .sheet-num .sep { fill: #4a5470; }
    .sheet-num .last { font-weight: 700; }
    .cap { font: italic 13px "DejaVu Sans", sans-serif; fill: #4a5470; }
    .pname { font: 600 14.5px "DejaVu Sans", sans-serif; fill: #1d2430; }
    .target { font: 700 19px "DejaVu Sans", sans-serif; fill: #8a1c2b; }
    .closed { fill: #1d7a3e; }
  ` }));
  svg.append(n === 5 ? s("path", { d: `${pathOf(V)} Z`, class: "paper" })
    : s("rect", { x: m, y: m, width: W - 2 * m, height: H - 2 * m, class: "paper" }));
  const corners = n === 5 ? V : n === 4 ? [BL, BR, TR, TL] : [BL, BR, TM];
  for (const p of corners) {
    const start = lerp(C, p, R / Math.hypot(p.x - C.x, p.y - C.y));
    svg.append(s("path", { d: pathOf([start, p]), class: "rule" }));
  }
  fields.forEach((field, index) => {
    const { poly, seat } = field;
    for (const f of [HILL[1], POOL[1]]) svg.append(s("path", { d: pathOf(scaled(C, poly, f)), class: "rule" }));
    // whists: one part per opponent, the neighbours' parts next to their fields
    const others = [];
    for (let k = 1; k < n; k += 1) others.push(fields[(index - k + n) % n].seat);
    for (let k = 1; k < n - 1; k += 1) {
      const p = along(poly, k / (n - 1));
      svg.append(s("path", { d: pathOf([lerp(C, p, WHISTS[0]), p]), class: "rule" }));
    }
    // A band's caption and number: inner and outer along the radius when the band runs
    // across the page (bottom, top fields), one above the other when it runs up and down.
    const place = (range, u) => {
      const p = along(poly, u);
      const [r0, r1] = range;
      if (Math.abs(p.y - C.y) > Math.abs(p.x - C.x)) {
        // the pentagon's upper fields read outwards upwards: the caption above its number there
        const upper = n === 5 && p.y < C.y;
        const cap = lerp(C, p, r0 + (upper ? 0.75 : 0.2) * (r1 - r0));
        const numAt = lerp(C, p, r0 + (upper ? 0.3 : 0.7) * (r1 - r0));
        // one whist part is a (n-1)-th of the field's edge, scaled down to the band's inner line
        const part = (polyLength(poly) * r0) / (n - 1);
        return { cap: { x: cap.x, y: cap.y + 3 }, num: numAt, room: Math.max(4, Math.floor(part / 7.5) - 1) };
      }
      // the outermost band leans inwards a little so a caption never runs over the paper's edge
      const mid = lerp(C, p, r0 + (r1 >= 1 ? 0.44 : 0.5) * (r1 - r0));
      return { cap: { x: mid.x, y: mid.y - 11 }, num: { x: mid.x, y: mid.y + 6 },
        room: Math.max(4, Math.floor((Math.abs(p.x - C.x) * (r1 - r0)) / 7.5)) };
    };
    const caption = (at, text) => s("text", { x: at.x, y: at.y, "text-anchor": "middle",
      "dominant-baseline": "middle", class: "cap", text });
    const hill = place(HILL, 0.5);
    const pool = place(POOL, 0.5);
    svg.append(caption(hill.cap, t("table.hill")), caption(pool.cap, t("table.pool")));
    svg.append(writeSeries(hill.num.x, hill.num.y, series(data.lines, "hill", seat, undefined, sheet.hill[seat] ?? 0),
      { "data-testid": `hill-${seat}` }));
    const closed = Number(sheet.pool[seat] ?? 0) >= data.target;
    svg.append(writeSeries(pool.num.x, pool.num.y, series(data.lines, "pool", seat, undefined, sheet.pool[seat] ?? 0),
      { "data-testid": `pool-${seat}`, class: closed ? "sheet-num closed" : "sheet-num" }));
    others.forEach((on, k) => {
      const at = place(WHISTS, (k + 0.5) / (n - 1));
      const row = sheet.whists[seat] || [];
      const whom = data.names[on] || `${t("table.seat")} ${on + 1}`;
      svg.append(caption(at.cap, whistsLabel(whom, at.room)));
      svg.append(writeSeries(at.num.x, at.num.y, series(data.lines, "whists", seat, on, row[on] ?? 0),
        { "data-testid": `whists-${seat}-${on}` }));
    });
    const nm = field.name;
    svg.append(s("text", { x: nm.x, y: nm.y, "text-anchor": "middle", "dominant-baseline": "middle",
      class: "pname", transform: nm.r ? `rotate(${nm.r} ${nm.x} ${nm.y})` : null,
      text: data.names[seat] || `${t("table.seat")} ${seat + 1}` }));
  });
  svg.append(s("circle", { cx: C.x, cy: C.y, r: R, class: "paper" }));
  svg.append(s("text", { x: C.x, y: C.y + 1, "text-anchor": "middle", "dominant-baseline": "middle",
    class: "target", text: String(data.target ?? "") }));
  return svg;
}
