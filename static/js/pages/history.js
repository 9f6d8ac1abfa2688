// History: the finished pulkas (tables with status "finished"), each with its sheet and
// settlement on request.
import { get } from "../api.js";
import { attempt } from "../app.js";
import { clear, fmtTime, h } from "../dom.js";
import { t } from "../i18n.js";
import { drawPulka } from "../table/sheet.js";

export async function renderHistory(root, { me }) {
  root.append(h("h1", { text: t("history.title") }));
  const tables = await attempt(() => get("/api/tables?status_=finished"));
  if (!tables) return;
  const finished = tables.filter((tb) => tb.status === "finished").reverse();
  if (!finished.length) {
    root.append(h("p", { class: "card muted", text: t("history.none") }));
    return;
  }
  const list = h("div", { class: "history" });
  for (const tb of finished) {
    const detail = h("div", { class: "history-detail" });
    const show = h("button", { type: "button", text: t("history.show"), "aria-expanded": "false",
      onclick: async () => {
        if (show.getAttribute("aria-expanded") === "true") {
          clear(detail);
          show.setAttribute("aria-expanded", "false");
          return;
        }
        const [pulka, lines] = await Promise.all([
          attempt(() => get(`/api/tables/${tb.id}/pulka`)),
          get(`/api/ui/tables/${tb.id}/sheet-lines`).catch(() => null),
        ]);
        if (!pulka) return;
        const names = pulka.record?.players || [];
        const mySeat = null;
        clear(detail).append(
          h("div", { class: "sheet-card" }, drawPulka({ players: names.length || tb.players, names, seat: mySeat,
            target: tb.target, sheet: pulka.sheet, lines: lines?.lines })),
          pulka.settlement ? h("table", { class: "settlement" },
            h("thead", {}, h("tr", {}, h("th", { text: t("table.settlement") }), h("th", { text: t("table.whists") }),
              h("th", { text: t("table.money") }))),
            h("tbody", {}, names.map((name, i) => h("tr", {}, h("td", { text: name }),
              h("td", { text: String(pulka.settlement.whists?.[i] ?? "") }),
              h("td", { text: String(pulka.settlement.money?.[i] ?? "") }))))) : null);
        show.setAttribute("aria-expanded", "true");
      } });
    list.append(h("section", { class: "card" },
      h("h2", {}, `${t("history.table")} ${tb.id}`, tb.practice ? h("span", { class: "badge", text: t("table.practice") }) : null),
      h("p", { class: "small muted" }, `${fmtTime(tb.created_at, true)} · ${t("lobby.target")} ${tb.target} · ${tb.players} ${t("lobby.players").toLowerCase()}`),
      show, detail));
  }
  root.append(list);
}
