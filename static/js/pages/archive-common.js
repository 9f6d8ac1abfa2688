// Bits the archive pages share: their stylesheet, settlement tables, outcome lines.
import { h } from "../dom.js";
import { t, tn } from "../i18n.js";
import { formatMoney, formatWhists } from "../money.js";
import { callText } from "../table/cards.js";

/** Load static/css/archive.css once (the pages own their styles; index.html stays as it is). */
export function archiveCss() {
  if (document.getElementById("archive-css")) return;
  document.head.append(h("link", { id: "archive-css", rel: "stylesheet", href: "/static/css/archive.css" }));
}

export function settlementTable(names, settlement) {
  if (!settlement) return null;
  return h("table", { class: "settlement" },
    h("thead", {}, h("tr", {}, h("th", { text: t("table.settlement") }), h("th", { text: t("table.whists") }),
      h("th", { text: t("table.money") }))),
    h("tbody", {}, names.map((name, i) => h("tr", {}, h("td", { text: name }),
      h("td", { text: formatWhists(settlement.whists?.[i] ?? "") }),
      h("td", { text: formatMoney(settlement.money?.[i] ?? "") })))));
}

/** One line saying what a deal was: "Борис: 6♠ — 7 взяток", "Распасы", "Мизер". */
export function outcomeText(outcome, names) {
  const who = (s) => names[s] ?? `${t("table.seat")} ${Number(s) + 1}`;
  if (!outcome) return "";
  if (outcome.type === "pass_out") return t("table.passOut");
  if (outcome.type === "redeal") return t("tp.kind.redeal");
  const what = outcome.type === "misere" ? t("table.misere") : callText(outcome.contract);
  let line = `${who(outcome.declarer)}: ${what}`;
  if (outcome.type === "conceded") line += ` — ${t("archive.conceded")}`;
  else if (outcome.tricks) {
    const taken = outcome.tricks[String(outcome.declarer)] ?? 0;
    line += ` — ${taken} ${tn("common.tricks", taken)}`;
  }
  else line += ` — ${t("archive.noPlay")}`;
  return line;
}

/** A link to a member's page (#/member/<id>); a seat without a member is his name alone. */
export function memberLink(id, name) {
  return id === null || id === undefined ? h("span", { text: name })
    : h("a", { href: `#/member/${id}`, text: name });
}
