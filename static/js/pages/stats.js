// Statistics (#/stats or #/stats/<member>): every member's record over club pulkas (practice
// tables never count) and, for the chosen member, a chart of his result per pulka — bars for
// each pulka's whists, a line for the running total. Plain SVG, no libraries.
import { get } from "../api.js";
import { attempt, fmtDate, go } from "../app.js";
import { h, s } from "../dom.js";
import { t } from "../i18n.js";
import { formatMoney, formatWhists } from "../money.js";
import { archiveCss } from "./archive-common.js";

const COLUMNS = [
  ["pulkas", "stats.pulkas"], ["deals", "stats.deals"], ["declared", "stats.declared"],
  ["made", "stats.made"], ["failed", "stats.failed"], ["miseres", "stats.miseres"],
  ["whists", "stats.whists"], ["money", "stats.money"], ["average_whists", "stats.average"],
];

export async function renderStats(root, { args, me }) {
  archiveCss();
  root.append(h("h1", { text: t("stats.title") }), h("p", { class: "small muted", text: t("stats.clubOnly") }));
  const data = await attempt(() => get("/api/stats"));
  if (!data) return;
  const chosen = Number(args[0]) || me.id;
  if (!data.members.length) {
    root.append(h("p", { class: "card muted", text: t("stats.none") }));
  } else {
    root.append(h("section", { class: "card scroll-x" }, h("table", { class: "stats-table", "data-testid": "stats" },
      h("thead", {}, h("tr", {}, h("th", { text: t("members.name") }), COLUMNS.map(([, key]) => h("th", { text: t(key) })))),
      h("tbody", {}, data.members.map((m) => h("tr", {
        class: m.member_id === chosen ? "chosen" : null, tabindex: "0",
        onclick: () => go(`#/stats/${m.member_id}`),
        onkeydown: (ev) => { if (ev.key === "Enter") go(`#/stats/${m.member_id}`); },
      }, h("td", { text: m.name }), COLUMNS.map(([field]) => h("td", { text: field === "money" ? formatMoney(m[field]) : field.includes("whists") ? formatWhists(m[field]) : String(m[field]) }))))))));
  }
  const one = await attempt(() => get(`/api/members/${chosen}/stats`));
  if (!one) return;
  const box = h("section", { class: "card" }, h("h2", { text: `${t("stats.chart")}: ${one.name || "—"}` }));
  root.append(box);
  if (!one.series.length) {
    box.append(h("p", { class: "muted", text: t("stats.noPulkas") }));
    return;
  }
  box.append(chart(one.series),
    h("p", { class: "small" }, `${t("stats.pulkas")}: ${one.pulkas} · ${t("stats.whists")}: ${formatWhists(one.whists)} · ${t("stats.money")}: ${formatMoney(one.money)} · ${t("stats.average")}: ${formatWhists(one.average_whists)}`));
}

/** The pulka's day in the club's time zone, as the history shows it. */
function dayOf(iso) {
  return fmtDate(iso);
}

/** Bars: whists per pulka (green won, red lost); line: running total. */
function chart(series) {
  const W = 720;
  const H = 300;
  const pad = { l: 48, r: 16, t: 16, b: 46 };
  const values = series.flatMap((p) => [Number(p.whists), Number(p.total_whists), 0]);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi === lo) { hi += 1; lo -= 1; }
  const y = (v) => pad.t + ((hi - v) / (hi - lo)) * (H - pad.t - pad.b);
  const step = (W - pad.l - pad.r) / series.length;
  const x = (i) => pad.l + step * i + step / 2;
  const bw = Math.max(4, Math.min(40, step * 0.6));
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "data-testid": "chart",
    "aria-label": `${t("stats.chart")}: ${series.map((p) => p.whists).join(", ")}` });
  const ticks = 4;
  for (let i = 0; i <= ticks; i += 1) {
    const v = lo + ((hi - lo) * i) / ticks;
    svg.append(s("line", { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), stroke: "#eee" }),
      s("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", text: String(Math.round(v)) }));
  }
  svg.append(s("line", { class: "axis", x1: pad.l, x2: W - pad.r, y1: y(0), y2: y(0) }),
    s("line", { class: "axis", x1: pad.l, x2: pad.l, y1: pad.t, y2: H - pad.b }));
  series.forEach((p, i) => {
    const v = Number(p.whists);
    const top = Math.min(y(v), y(0));
    svg.append(s("rect", { class: v >= 0 ? "bar-pos" : "bar-neg", x: x(i) - bw / 2, y: top, width: bw,
      height: Math.max(1, Math.abs(y(v) - y(0))) }, s("title", { text: `#${p.pulka_id}: ${formatWhists(p.whists)} (${formatMoney(p.money)})` })));
    if (series.length <= 16 || i % Math.ceil(series.length / 16) === 0) {
      svg.append(s("text", { x: x(i), y: H - pad.b + 14, "text-anchor": "middle", text: dayOf(p.date) }),
        s("text", { x: x(i), y: H - pad.b + 28, "text-anchor": "middle", text: `#${p.pulka_id}` }));
    }
  });
  svg.append(s("polyline", { class: "total", points: series.map((p, i) => `${x(i)},${y(Number(p.total_whists))}`).join(" ") }));
  series.forEach((p, i) => svg.append(s("circle", { cx: x(i), cy: y(Number(p.total_whists)), r: 3, fill: "#0f5c8c" })));
  const legend = h("p", { class: "small muted", text: t("stats.legend") });
  return h("div", {}, svg, legend);
}
