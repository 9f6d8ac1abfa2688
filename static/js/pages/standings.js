// Standings (#/standings or #/standings/<season id|all>, issue 27): members ranked per season
// or all-time by whists or money per pulka, pulkas, nights present or the rating
// (GET /api/standings). Those below the club's minimum of pulkas are listed after the ranked
// ones, unranked. The rating is OpenSkill's Plackett-Luce (docs/rating.md): ordinal = μ − 3σ.
import { get } from "../api.js";
import { attempt, go } from "../app.js";
import { h } from "../dom.js";
import { t, tn } from "../i18n.js";
import { formatMoney, formatWhists } from "../money.js";
import { archiveCss, memberLink } from "./archive-common.js";

const ORDERS = ["whists", "money", "pulkas", "nights", "rating"];

/** The season shown first: the one today falls in, else the latest, else all-time. */
function defaultSeason(seasons) {
  const today = new Date().toISOString().slice(0, 10);
  const now = seasons.find((s) => s.first_day <= today && today <= s.last_day);
  return String((now || seasons[seasons.length - 1] || { id: "all" }).id);
}

const fixed = (x, digits) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));

export async function renderStandings(root, { args }) {
  archiveCss();
  const seasons = (await attempt(() => get("/api/seasons"))) || [];
  const chosen = args[0] || defaultSeason(seasons);
  const order = ORDERS.includes(args[1]) ? args[1] : "whists";
  const season = h("select", { id: "standings-season", name: "season" },
    seasons.map((s) => h("option", { value: String(s.id), text: s.name, selected: String(s.id) === chosen })),
    h("option", { value: "all", text: t("standings.allTime"), selected: chosen === "all" }));
  const by = h("select", { id: "standings-order", name: "order" },
    ORDERS.map((o) => h("option", { value: o, text: t(`standings.by.${o}`), selected: o === order })));
  const change = () => go(`#/standings/${season.value}/${by.value}`);
  season.addEventListener("change", change);
  by.addEventListener("change", change);
  root.append(h("h1", { text: t("standings.title") }),
    h("form", { class: "row", onsubmit: (e) => e.preventDefault() },
      h("div", { class: "field" }, h("label", { for: "standings-season", text: t("standings.season") }), season),
      h("div", { class: "field" }, h("label", { for: "standings-order", text: t("standings.order") }), by)));
  const data = await attempt(() => get(`/api/standings?season=${encodeURIComponent(chosen)}&order=${order}`));
  if (!data) return;
  const span = data.season ? t("standings.span", { first: data.season.first_day, last: data.season.last_day }) : t("standings.allTimeHint");
  root.append(h("p", { class: "small muted", text: `${span} ${t("standings.minimum", { n: data.min_pulkas, pulkas: tn("common.fromPulkas", data.min_pulkas) })} ${t("stats.clubOnly")}` }));
  if (!data.lines.length) {
    root.append(h("p", { class: "card muted", text: t("standings.none") }));
    return;
  }
  const head = ["standings.rank", "members.name", "standings.wpp", "standings.mpp", "stats.pulkas",
    "standings.nights", "stats.whists", "stats.money", "standings.ordinal", "standings.mu"];
  // the hint stays outside the scrolling box: on a phone the table is wider than the screen
  root.append(h("section", { class: "card" },
    h("p", { class: "small muted", id: "standings-hint", text: t("standings.ratingHint") }),
    h("div", { class: "scroll-x" }, h("table", { class: "stats-table", "data-testid": "standings",
      "aria-describedby": "standings-hint" },
    h("thead", {}, h("tr", {}, head.map((key) => h("th", { scope: "col", text: t(key) })))),
    h("tbody", {}, data.lines.map((line) => h("tr", { class: line.qualified ? null : "muted" },
      h("td", { text: line.rank === null ? "—" : String(line.rank) }),
      h("td", {}, memberLink(line.member_id, line.name)),
      h("td", { text: line.whists_per_pulka === null || line.whists_per_pulka === undefined ? "—" : formatWhists(line.whists_per_pulka) }),
      h("td", { text: line.money_per_pulka ?? "—" }),
      h("td", { text: String(line.pulkas) }),
      h("td", { text: String(line.nights) }),
      h("td", { text: formatWhists(line.whists) }),
      h("td", { text: formatMoney(line.money) }),
      h("td", { text: fixed(line.rating?.ordinal, 1) }),
      h("td", { text: line.rating ? `${fixed(line.rating.mu, 1)} ± ${fixed(line.rating.sigma, 1)}` : "—" }))))))));
}
