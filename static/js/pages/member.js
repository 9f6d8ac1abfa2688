// The member's page (#/member/<id>): his club pulkas (night, table, result in whists and money,
// a link to the sheet), his rating over time (an SVG line drawn here from the rating history:
// μ − 3σ after each rated pulka), his costliest deals (links to the replay with the analysis)
// and his figures against each member he has played, and his luck apart from his skill (what his
// cards were worth and what he lost to double-dummy, per season, per pulka and as a plot over
// the nights; docs/luck.md). The data: GET /api/members/<id>/profile and /api/members/<id>/luck.
import { get } from "../api.js";
import { attempt, fmtDate } from "../app.js";
import { h, s } from "../dom.js";
import { t, tn } from "../i18n.js";
import { formatDecimal, formatMoney, formatWhists } from "../money.js";
import { memberLink, outcomeText } from "./archive-common.js";

function table(testid, head, rows) {
  return h("section", { class: "card scroll-x" }, h("table", { class: "stats-table", "data-testid": testid },
    h("thead", {}, h("tr", {}, head.map((key) => h("th", { scope: "col", text: t(key) })))),
    h("tbody", {}, rows)));
}

/** The rating's ordinal after each rated pulka, as a line with a point per pulka. */
function ratingChart(history) {
  const W = 720;
  const H = 240;
  const pad = { l: 48, r: 16, t: 16, b: 30 };
  const values = history.map((p) => p.ordinal);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 1) { hi += 1; lo -= 1; }
  const y = (v) => pad.t + ((hi - v) / (hi - lo)) * (H - pad.t - pad.b);
  const step = history.length > 1 ? (W - pad.l - pad.r) / (history.length - 1) : 0;
  const x = (i) => (history.length > 1 ? pad.l + step * i : (W + pad.l - pad.r) / 2);
  const last = history[history.length - 1];
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "data-testid": "rating-chart",
    "aria-label": t("member.chartLabel", {
      n: history.length, pulkas: tn("common.fromPulkas", history.length), last: last.ordinal.toFixed(1),
    }) });
  for (let i = 0; i <= 4; i += 1) {
    const v = lo + ((hi - lo) * i) / 4;
    svg.append(s("line", { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), stroke: "#eee" }),
      s("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", text: v.toFixed(1) }));
  }
  svg.append(s("polyline", { class: "total", points: history.map((p, i) => `${x(i)},${y(p.ordinal)}`).join(" ") }));
  history.forEach((p, i) => svg.append(s("circle", { cx: x(i), cy: y(p.ordinal), r: 3, fill: "#0f5c8c" },
    s("title", { text: `#${p.pulka_id}: ${p.ordinal.toFixed(2)} (μ ${p.mu.toFixed(2)}, σ ${p.sigma.toFixed(2)})` }))));
  return h("div", {}, svg, h("p", { class: "small muted", text: t("member.chartHint") }));
}

/** Two lines over the nights: his cards' worth and his losses to double-dummy, summed. */
function luckChart(nights) {
  const W = 720;
  const H = 240;
  const pad = { l: 56, r: 16, t: 16, b: 30 };
  let worth = 0;
  let lost = 0;
  const points = nights.map((n) => {
    worth += Number(n.worth);
    lost += Number(n.lost);
    return { night: n.night, worth, lost };
  });
  const hi = Math.max(1, ...points.map((p) => Math.max(p.worth, p.lost)));
  const y = (v) => pad.t + ((hi - v) / hi) * (H - pad.t - pad.b);
  const step = points.length > 1 ? (W - pad.l - pad.r) / (points.length - 1) : 0;
  const x = (i) => (points.length > 1 ? pad.l + step * i : (W + pad.l - pad.r) / 2);
  const last = points[points.length - 1];
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "data-testid": "luck-chart",
    "aria-label": t("member.luckChartLabel", { n: points.length, worth: formatDecimal(last.worth.toFixed(2)),
      lost: formatDecimal(last.lost.toFixed(2)) }) });
  for (let i = 0; i <= 4; i += 1) {
    const v = (hi * i) / 4;
    svg.append(s("line", { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), stroke: "#eee" }),
      s("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", text: String(Math.round(v)) }));
  }
  svg.append(s("polyline", { class: "total", points: points.map((p, i) => `${x(i)},${y(p.worth)}`).join(" ") }),
    s("polyline", { class: "lost", points: points.map((p, i) => `${x(i)},${y(p.lost)}`).join(" ") }));
  points.forEach((p, i) => svg.append(
    s("circle", { cx: x(i), cy: y(p.worth), r: 3, fill: "#0f5c8c" },
      s("title", { text: `${fmtDate(`${p.night}T12:00:00Z`, { year: true })}: ${formatDecimal(p.worth.toFixed(2))}` })),
    s("circle", { cx: x(i), cy: y(p.lost), r: 3, fill: "#c8102e" },
      s("title", { text: `${fmtDate(`${p.night}T12:00:00Z`, { year: true })}: ${formatDecimal(p.lost.toFixed(2))}` }))));
  return h("div", {}, svg, h("p", { class: "small muted", text: t("member.luckChartHint") }));
}

function luckBody(data) {
  const box = h("div", { "data-testid": "member-luck" });
  const p = data.progress;
  if (p.weighed < p.deals) {
    box.append(h("p", { class: "small muted", "data-testid": "luck-progress",
      text: t("member.luckProgress", { weighed: p.weighed, deals: p.deals }) }));
  }
  if (!data.totals.deals) {
    box.append(h("p", { class: "card muted", text: t("member.luckNone") }));
    return box;
  }
  const tot = data.totals;
  box.append(h("p", { class: "card", "data-testid": "luck-totals", text: t("member.luckTotals", {
    n: tot.deals, deals: tn("common.deals", tot.deals), worth: formatDecimal(tot.worth), lost: formatDecimal(tot.lost),
    bidding: formatDecimal(tot.bidding), defence: formatDecimal(tot.defence), play: formatDecimal(tot.play) }) }));
  box.append(h("section", { class: "card" }, luckChart(data.nights)));
  box.append(table("luck-pulkas", ["member.night", "archive.pulka", "member.deals", "member.worth",
    "member.bidding", "member.defence", "member.play", "member.lost"],
  data.pulkas.map((row) => h("tr", {},
    h("td", { text: fmtDate(`${row.night}T12:00:00Z`, { year: true }) }),
    h("td", {}, h("a", { href: `#/sheet/${row.pulka_id}`, text: `${t("archive.pulka")} ${row.pulka_id}` })),
    h("td", { class: "num", text: String(row.deals) }),
    ...["worth", "bidding", "defence", "play", "lost"].map((k) => h("td", { class: "num", text: formatDecimal(row[k]) }))))));
  return box;
}

/** «Карты и игра»: his luck apart from his skill, all-time or for one season. */
async function luckSection(id) {
  const section = h("div", {});
  const seasons = (await attempt(() => get("/api/seasons"))) || [];
  const choice = h("select", { "aria-label": t("member.luckSeason"), "data-testid": "luck-season" },
    h("option", { value: "all", text: t("member.allTime") }),
    seasons.map((season) => h("option", { value: String(season.id), text: season.name })));
  const body = h("div", {});
  const load = async () => {
    const data = await attempt(() => get(`/api/members/${id}/luck?season=${encodeURIComponent(choice.value)}`));
    if (data) body.replaceChildren(luckBody(data));
  };
  choice.addEventListener("change", load);
  section.append(h("p", { class: "small muted", text: t("member.luckHint") }),
    h("label", { class: "small" }, `${t("member.luckSeason")} `, choice), body);
  await load();
  return section;
}

export async function renderMember(root, { args }) {
  const id = Number(args[0]);
  const data = await attempt(() => get(`/api/members/${Number.isInteger(id) && id > 0 ? id : 0}/profile`));
  if (!data) return;
  root.append(h("h1", { text: t("member.title", { name: data.member.name }) }));
  const r = data.rating;
  root.append(h("p", { class: "small muted", "data-testid": "member-summary",
    text: `${t("member.pulkas", { n: data.pulkas_total })} · ${r
      ? t("member.rating", { ordinal: r.ordinal.toFixed(1), mu: r.mu.toFixed(1), sigma: r.sigma.toFixed(1) })
      : t("member.unrated")} ${t("stats.clubOnly")}` }));
  root.append(h("h2", { text: t("member.ratingTitle") }),
    data.rating_history.length ? h("section", { class: "card" }, ratingChart(data.rating_history))
      : h("p", { class: "card muted", text: t("member.unrated") }));
  root.append(h("h2", { text: t("member.pulkasTitle") }));
  if (!data.pulkas.length) root.append(h("p", { class: "card muted", text: t("member.none") }));
  else {
    root.append(table("member-pulkas", ["member.night", "history.table", "member.players", "stats.whists", "stats.money", "member.sheet"],
      data.pulkas.map((p) => h("tr", { class: p.left ? "muted" : null },
        h("td", { text: fmtDate(`${p.night}T12:00:00Z`, { year: true }) }),
        h("td", { text: String(p.table_id) }),
        h("td", { text: p.players.join(", ") + (p.left ? ` (${t("member.left")})` : "") }),
        h("td", { class: "num", text: formatWhists(p.whists) }),
        h("td", { class: "num", text: formatMoney(p.money) }),
        h("td", {}, h("a", { href: `#/sheet/${p.pulka_id}`, text: `${t("archive.pulka")} ${p.pulka_id}` }))))));
  }
  root.append(h("h2", { text: t("member.costliestTitle") }),
    h("p", { class: "small muted", text: t("member.costliestHint") }));
  if (!data.costliest_deals.length) root.append(h("p", { class: "card muted", text: t("member.noLosses") }));
  else {
    root.append(table("member-costliest", ["archive.pulka", "member.deal", "member.loss"],
      data.costliest_deals.map((d) => h("tr", {},
        h("td", { text: `${d.pulka_id} · ${t("history.table")} ${d.table_id}` }),
        h("td", {}, h("a", { href: `#/replay/${d.pulka_id}/${d.deal_no}`,
          text: `${t("member.deal")} ${d.deal_no}: ${outcomeText(d.outcome, d.names)}` })),
        h("td", { class: "num", text: formatWhists(d.loss) })))));
  }
  root.append(h("h2", { text: t("member.luckTitle") }), await luckSection(data.member.id));
  root.append(h("h2", { text: t("member.h2hTitle") }),
    h("p", { class: "small muted", text: t("member.h2hHint") }));
  if (!data.head_to_head.length) root.append(h("p", { class: "card muted", text: t("member.none") }));
  else {
    root.append(table("member-h2h", ["members.name", "member.together", "stats.whists", "stats.money"],
      data.head_to_head.map((line) => h("tr", {},
        h("td", {}, memberLink(line.member_id, line.name)),
        h("td", { class: "num", text: String(line.pulkas) }),
        h("td", { class: "num", text: formatWhists(line.whists) }),
        h("td", { class: "num", text: formatMoney(line.money) })))));
  }
}
