// History: the finished pulkas from the archive (GET /api/pulkas), newest first — club pulkas
// and practice ones in two lists (#/history/club, #/history/practice show one). Each opens its paper sheet (with the running totals),
// its settlement and the list of its deals, each linking to the deal's replay.
import { get } from "../api.js";
import { attempt } from "../app.js";
import { clear, fmtTime, h } from "../dom.js";
import { t } from "../i18n.js";
import { formatMoney, formatWhists } from "../money.js";
import { drawPulka } from "../table/sheet.js";
import { archiveCss, memberLink, outcomeText, settlementTable } from "./archive-common.js";
import { chainCheckCard } from "./chain-check.js";

export async function renderHistory(root, { args }) {
  archiveCss();
  const only = args[0] === "club" || args[0] === "practice" ? args[0] : null;
  const tab = (href, key, current) => h("a", { href, "aria-current": current ? "page" : null, text: t(key) });
  root.append(h("h1", { text: t("history.title") }),
    h("div", { class: "archive-filter" },
      tab("#/history", "history.all", !only), tab("#/history/club", "history.club", only === "club"),
      tab("#/history/practice", "history.practice", only === "practice"),
      h("a", { href: "#/stats", text: t("nav.stats") })),
    chainCheckCard());
  const kinds = only ? [only] : ["club", "practice"];
  const lists = await attempt(() => Promise.all(kinds.map((k) => get(`/api/pulkas?practice=${k === "practice"}`))));
  if (!lists) return;
  if (!lists.some((l) => l.length)) {
    root.append(h("p", { class: "card muted", text: t("history.none") }));
    return;
  }
  kinds.forEach((kind, i) => {
    if (!lists[i].length) return;
    if (!only) root.append(h("h2", { text: t(`history.${kind}`) }));
    root.append(pulkaList(lists[i]));
  });
}

function pulkaList(pulkas) {
  const list = h("div", { class: "history" });
  for (const p of pulkas) {
    const detail = h("div", { class: "history-detail" });
    const show = h("button", { type: "button", text: t("history.show"), "aria-expanded": "false",
      "data-pulka": p.id,
      onclick: async () => {
        if (show.getAttribute("aria-expanded") === "true") {
          clear(detail);
          show.setAttribute("aria-expanded", "false");
          return;
        }
        const full = await attempt(() => get(`/api/pulkas/${p.id}`));
        if (!full) return;
        clear(detail).append(
          h("div", { class: "sheet-card" }, drawPulka({ players: full.names.length || full.players, names: full.names,
            seat: null, target: full.target, sheet: full.sheet, lines: full.lines })),
          h("div", {},
            settlementTable(full.names, full.settlement),
            h("h3", { text: `${t("history.deals")}: ${full.deal_list.length}` }),
            h("ol", { class: "deal-list" }, full.deal_list.map((d) => h("li", { value: d.deal_no },
              h("a", { href: `#/replay/${p.id}/${d.deal_no}`, text: outcomeText(d.outcome, full.names) }))))));
        show.setAttribute("aria-expanded", "true");
      } });
    const ended = p.ended ? t(`history.ended.${p.ended}`) : "";
    list.append(h("section", { class: "card", "data-pulka": p.id },
      h("h2", {}, `${t("archive.pulka")} ${p.id} · ${t("history.table")} ${p.table_id}: `,
        ...p.names.flatMap((n, i) => [i ? ", " : "", memberLink(p.member_ids?.[i], n)]),
        p.practice ? h("span", { class: "badge", text: t("table.practice") }) : null,
        p.preset && p.preset !== "club" ? h("span", { class: "badge", text: t(`preset.${p.preset}`) }) : null),
      h("p", { class: "small muted" }, `${fmtTime(p.finished_at || p.started_at, true)} · ${ended} · ${t("lobby.target")} ${p.target} · ${t("history.deals")} ${p.deals}`),
      p.settlement ? h("p", { class: "small" }, p.names.map((n, i) => `${n}: ${formatWhists(p.settlement.whists?.[i] ?? "")} (${formatMoney(p.settlement.money?.[i] ?? "")})`).join(" · ")) : null,
      show, detail));
  }
  return list;
}
