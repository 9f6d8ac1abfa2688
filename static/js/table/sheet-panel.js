// The side's sheet: the paper pulka (sheet.js) with the sheet's lines (`GET
// /api/ui/tables/{id}/sheet-lines`), each player's bombs (R-A1, R-A2), the running whist balance
// if the pulka were closed now (R-P4, R-P9) and, when it ends, why and each one's result in
// words and figures. One part: redrawn when the sheet, its lines, the balance or the names
// changed, so the SVG is not drawn again for a move, a chat line or a presence change.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { formatMoney, formatWhists } from "../money.js";
import { presetTitle } from "../presets.js";
import { part } from "./part.js";
import { drawPulka } from "./sheet.js";
import { endedText, settlementLines, signed } from "./words.js";

// R-A1, R-A2 (arabic): each player's bombs, as the paper marks them by his name, and what
// his next game as declarer is multiplied by; nothing under a rule set without bombs.
function bombsView(marks, nameOf) {
  if (!marks.some((m) => m && m.bombs)) return null;
  return h("div", { class: "bombs-box", "data-testid": "bombs" },
    h("h3", { text: t("tp.bombs") }),
    h("ul", { class: "balance-list" }, marks.map((m, i) => h("li", {},
      h("span", { text: nameOf(i) }),
      h("strong", { text: m.bombs ? t("tp.bombsOf", { n: m.bombs, f: m.next_game }) : "—" })))));
}

// R-P4, R-P9: the server settles the pulka as it stands by the table's own closing rule
// (sheet-lines' `balance`), and the hint names that rule
function balanceView(whists, closing, nameOf) {
  return h("div", { class: "balance-box", "data-testid": "balance" },
    h("h3", { text: t("tp.balance") }),
    h("ul", { class: "balance-list" }, whists.map((b, i) => h("li", { class: b < 0 ? "neg" : "" },
      h("span", { text: nameOf(i) }), h("strong", { text: signed(b) })))),
    h("p", { class: "small muted", "data-testid": "balance-hint", text: t(`tp.balanceHint.${closing}`) }));
}

function settlementView(settlement, ended, notice, nameOf) {
  const rows = (settlement.whists || []).map((w, i) => h("tr", {},
    h("td", { text: nameOf(i) }), h("td", { text: formatWhists(w) }),
    h("td", { text: formatWhists(settlement.rounded?.[i] ?? "") }),
    h("td", { text: formatMoney(settlement.money?.[i] ?? "") })));
  return h("div", { class: "settle-box", "data-testid": "settlement" },
    h("p", { class: "ended", text: endedText(ended, notice) }),
    h("ul", { class: "settle-words" }, settlementLines(settlement, nameOf).map((line) => h("li", { text: line }))),
    h("table", { class: "settlement", "aria-label": t("table.settlement") },
      h("thead", {}, h("tr", {}, h("th", { text: t("table.settlement") }), h("th", { text: t("table.whists") }),
        h("th", { text: "≈" }), h("th", { text: t("table.money") }))),
      h("tbody", {}, rows)));
}

/** The sheet of the table page `ctx`; `sheet()` gives the sheet's lines and balance as last read. */
export function sheetPart(ctx, sheet) {
  return part(() => {
    const { info, deal, seat } = ctx.st;
    const { lines, balance } = sheet();
    const n = info.players || deal?.players || 3;
    const marks = Array.isArray(info.seat_marks) ? info.seat_marks.slice(0, n) : [];
    return { n, preset: info.preset ?? null, names: ctx.names(), seat, target: info.target ?? "",
      sheet: info.sheet, lines, marks, balance: balance?.balance?.length && !info.settlement
        ? { whists: balance.balance.map(Number).slice(0, n), closing: balance.closing } : null,
      settlement: info.settlement ?? null, ended: info.ended, notice: info.notice };
  }, (s) => {
    const nameOf = ctx.nameOf;
    return h("section", { class: "card sheet-card side-sheet", "aria-labelledby": "sheet-title", "data-testid": "sheet" },
      h("h2", { id: "sheet-title", text: t("table.sheet") }),
      s.preset ? h("p", { class: "small muted", "data-testid": "sheet-preset",
        text: `${t("lobby.preset")}: ${presetTitle(s.preset)}` }) : null,
      h("div", { class: "sheet-scroll" },
        drawPulka({ players: s.n, names: s.names, seat: s.seat, target: s.target, sheet: s.sheet, lines: s.lines })),
      bombsView(s.marks, nameOf),
      s.balance ? balanceView(s.balance.whists, s.balance.closing, nameOf) : null,
      s.settlement ? settlementView(s.settlement, s.ended, s.notice, nameOf) : null);
  });
}
