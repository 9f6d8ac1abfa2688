// A pulka as its paper sheet, for the wall (#/sheet/<pulka>): the sheet drawn large with the
// running totals, the settlement, and the print buttons (A4 in static/css/print.css, or the
// server's PDF). The archive's data: GET /api/pulkas/<id>.
import { get } from "../api.js";
import { attempt, fmtDateTime } from "../app.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { drawPulka } from "../table/sheet.js";
import { archiveCss, settlementTable } from "./archive-common.js";
import { printBar, printCss } from "./night.js";

export async function renderSheet(root, { args }) {
  archiveCss();
  printCss();
  const id = Number(args[0]);
  const pulka = await attempt(() => get(`/api/pulkas/${id}`));
  if (!pulka) return;
  root.append(h("div", { class: "night print-sheet" },
    pulka.club_session_id ? h("p", { class: "no-print" },
      h("a", { href: `#/night/${pulka.club_session_id}`, text: t("sheet.back") })) : null,
    h("h1", { text: t("sheet.title", { id }) }),
    printBar(`/api/pulkas/${id}/pdf`),
    h("p", { class: "small muted" },
      `${t("history.table")} ${pulka.table_id}: ${pulka.names.join(", ")} · ${fmtDateTime(pulka.finished_at)} · ${t("lobby.target")} ${pulka.target}`),
    h("div", { class: "sheet-card" }, drawPulka({ players: pulka.names.length || pulka.players, names: pulka.names,
      seat: null, target: pulka.target, sheet: pulka.sheet, lines: pulka.lines })),
    settlementTable(pulka.names, pulka.settlement)));
}
