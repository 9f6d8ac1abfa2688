// The night's results (GET /api/nights/<session>, #/night/<session>): the tables with their
// paper sheets and settlements, the players' whists and money, the fund's share, the deal of
// the night and the corrections. While the results are not final the page asks again every
// few seconds, so it turns from provisional to final by itself. An officer (treasurer, admin)
// records a correction here. "Печать" prints it on A4 (static/css/print.css), "PDF" opens
// the server's PDF.
import { get, post } from "../api.js";
import { attempt, fmtDateTime, notify } from "../app.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { formatMoney, formatWhists } from "../money.js";
import { drawPulka } from "../table/sheet.js";
import { archiveCss, outcomeText, settlementTable } from "./archive-common.js";
import { wholeNumber } from "../validity.js";

const REFRESH_MS = 2000;

/** Load the print stylesheet once (A4, only the results on paper). */
export function printCss() {
  if (document.getElementById("print-css")) return;
  document.head.append(h("link", { id: "print-css", rel: "stylesheet", href: "/static/css/print.css" }));
}

/** The row of print buttons of a print view: the browser's print and the server's PDF. */
export function printBar(pdfHref) {
  return h("div", { class: "print-bar no-print" },
    h("button", { type: "button", onclick: () => window.print(), text: t("night.print") }),
    h("a", { class: "button", href: pdfHref, target: "_blank", rel: "noopener", text: t("night.pdf") }));
}

function statusLine(night) {
  const status = h("span", { class: `night-status ${night.status}`, "data-testid": "night-status",
    dataset: { status: night.status }, text: t(`night.status.${night.status}`) });
  let when = null;
  if (night.status === "provisional") {
    when = night.final_at ? t("night.finalAt", { at: fmtDateTime(night.final_at) }) : t("night.waitPulkas");
  } else if (night.status === "final") {
    when = t("night.finalSince", { at: fmtDateTime(night.final_at) });
  }
  return h("p", {}, status, when ? h("span", { class: "muted small", text: ` ${when}` }) : null);
}

function playersTable(players) {
  return h("table", { class: "settlement night-players", "data-testid": "night-players" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: t("night.player") }),
      h("th", { scope: "col", text: t("table.whists") }), h("th", { scope: "col", text: t("table.money") }))),
    h("tbody", {}, players.map((p) => h("tr", {}, h("td", { text: p.name }),
      h("td", { text: formatWhists(p.whists) }), h("td", { text: formatMoney(p.money) })))));
}

function tableCard(tb) {
  return h("section", { class: "card night-table", dataset: { table: tb.table_id } },
    h("h3", { text: `${t("night.table", { id: tb.table_id })}: ${tb.names.join(", ")}` }),
    h("p", { class: "small muted" },
      `${tb.ended ? t(`history.ended.${tb.ended}`) : ""} · ${t("lobby.target")} ${tb.target} · ${t("night.deals")} ${tb.deals} · ${t("night.fundShare")} ${formatMoney(tb.fund_share)}`),
    tb.sheet ? h("div", { class: "sheet-card" }, drawPulka({ players: tb.names.length || tb.players,
      names: tb.names, seat: null, target: tb.target, sheet: tb.sheet, lines: [] })) : null,
    settlementTable(tb.names, tb.settlement && { whists: tb.settlement.rounded, money: tb.settlement.money }),
    tb.pulka_id && tb.status === "finished"
      ? h("p", { class: "no-print" }, h("a", { href: `#/sheet/${tb.pulka_id}`, text: t("night.sheet") }))
      : null);
}

function dealCard(deal, tables) {
  if (!deal) return null;
  const names = tables.find((x) => x.table_id === deal.table_id)?.names ?? [];
  const what = outcomeText({ type: deal.type, contract: deal.contract, declarer: deal.declarer, tricks: deal.tricks }, names);
  return h("section", { class: "card", "data-testid": "deal-of-night" },
    h("h2", { text: t("night.deal") }),
    h("p", { text: t("night.dealLine", { table: deal.table_id, deal: deal.deal_no, what, swing: deal.swing }) }),
    h("p", { class: "muted small", text: t("night.dealRule") }),
    deal.pulka_id ? h("p", { class: "no-print" },
      h("a", { href: `#/replay/${deal.pulka_id}/${deal.deal_no}`, text: t("night.replay") })) : null);
}

function correctionsCard(night, me, reload) {
  const box = h("section", { class: "card", "data-testid": "night-corrections" },
    h("h2", { text: t("night.corrections") }));
  if (!night.corrections.length) box.append(h("p", { class: "muted", text: t("night.noCorrections") }));
  else {
    box.append(h("ul", {}, night.corrections.map((c) => h("li", { dataset: { afterFinal: String(c.after_final) } },
      `${fmtDateTime(c.at)} · ${c.by ?? ""}: ${c.note}`,
      c.after_final ? h("span", { class: "badge", text: t("night.afterFinal") }) : null))));
  }
  if (night.session.ended_at && ["treasurer", "admin"].includes(me.role)) {
    const form = h("form", { class: "row no-print", id: "night-correct" },
      h("div", { class: "field" }, h("label", { for: "nc-note", text: t("night.note") }),
        h("input", { id: "nc-note", name: "note", required: true, maxlength: 300 })),
      h("div", { class: "field" }, h("label", { for: "nc-pulka", text: t("night.pulkaOf") }),
        h("select", { id: "nc-pulka", name: "pulka" }, h("option", { value: "", text: "—" }),
          night.tables.filter((x) => x.pulka_id).map((x) => h("option", { value: x.pulka_id,
            text: t("night.table", { id: x.table_id }) })))),
      h("div", { class: "field" }, h("label", { for: "nc-entry", text: t("night.entry") }),
        h("input", wholeNumber({ id: "nc-entry", name: "entry", min: 1 }))),
      h("button", { type: "submit", class: "primary", text: t("night.correct") }));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = { note: form.note.value };
      if (form.pulka.value) body.pulka_id = Number(form.pulka.value);
      if (form.entry.value) body.fund_entry_id = Number(form.entry.value);
      if (await attempt(() => post(`/api/nights/${night.session.id}/corrections`, body))) {
        notify(t("night.saved"), "info");
        form.reset();  // the redraw keeps what the form holds: a sent correction is not kept
        await reload();
      }
    });
    box.append(form);
  }
  return box;
}

/** What the correction form holds now, as a function that puts it back into a new form. */
function correctionDraft(root) {
  const form = root.querySelector("#night-correct");
  if (!form) return null;
  const values = [...form.elements].filter((el) => el.name).map((el) => [el.name, el.value]);
  const focused = form.contains(document.activeElement) ? document.activeElement.id : null;
  return () => {
    const again = root.querySelector("#night-correct");
    if (!again) return;
    for (const [name, value] of values) if (again.elements[name]) again.elements[name].value = value;
    if (focused) document.getElementById(focused)?.focus();
  };
}

export async function renderNight(root, { args, me }) {
  archiveCss();
  printCss();
  const id = Number(args[0]);
  const body = h("div", { class: "night" });
  root.append(body);
  let timer = null;
  let alive = true;
  let shown = "";
  async function load() {
    const night = await attempt(() => get(`/api/nights/${id}`));
    if (!night || !alive) return;
    // Asked again every 2 s until final: drawn again only when the answer changed, and then with
    // the correction an officer is writing kept (it was wiped every 2 s, issue 28)
    const json = JSON.stringify(night);
    if (json !== shown) {
      shown = json;
      const draft = correctionDraft(body);
      draw(night);
      draft?.();
    }
    clearTimeout(timer);
    if (night.status !== "final") timer = setTimeout(load, REFRESH_MS);
  }
  function draw(night) {
    clear(body).append(...[
      h("h1", {}, `${t("night.title")} · ${fmtDateTime(night.session.starts_at)}`),
      printBar(`/api/nights/${id}/pdf`),
      statusLine(night),
      night.tables.length ? null : h("p", { class: "muted", text: t("night.none") }),
      night.players.length ? h("section", { class: "card" }, h("h2", { text: t("night.players") }),
        playersTable(night.players)) : null,
      h("p", { class: "night-fund", "data-testid": "night-fund", text: t("night.fundTotal", { sum: formatMoney(night.fund.share) }) }),
      dealCard(night.deal_of_the_night, night.tables),
      night.tables.length ? h("h2", { text: t("night.tables") }) : null,
      ...night.tables.map(tableCard),
      correctionsCard(night, me, load)].filter(Boolean));
  }
  await load();
  return () => { alive = false; clearTimeout(timer); };
}
