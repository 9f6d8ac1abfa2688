// A real-cards table (RULES.md §10, #/recording/<table id>): the scorer enters each deal —
// who dealt (proposed from the rotation), the type, contract, calls, open or closed, tricks —
// and the penalties of the catalogue; the server checks and scores it like a live deal
// (docs/club.md "Recording mode"). Every player sees each entry at once on the live sheet (the
// table socket's recorded_* events) and may dispute it; the last entry may be corrected until the
// next one is made (R-P7), the first correction free, a later over-entry fined by its size (R-X11).
import { api, get, post } from "../api.js";
import { attempt, notify } from "../app.js";
import { clear, h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { formatMoney, formatWhists } from "../money.js";
import { loadPresets, presetOf } from "../presets.js";
import { drawPulka } from "../table/sheet.js";
import { TableSocket } from "../table/socket.js";
import { entryWords } from "../table/words.js";
import { wholeNumber } from "../validity.js";

const TYPES = ["game", "misere", "pass_out", "conceded", "redeal"];
const STRAINS = ["S", "C", "D", "H", "NT"];
const SUIT = { S: "♠", C: "♣", D: "♦", H: "♥" };
const strainText = (s) => SUIT[s] || (lang() === "ru" ? "БК" : "NT");
const REFRESH_ON = new Set(["recorded_deal", "recorded_correction", "recorded_dispute", "pulka_ended",
  "snapshot"]);

export async function renderRecording(root, { args, me }) {
  const tableId = Number(args[0]);
  let view = await attempt(() => get(`/api/tables/${tableId}/recording`));
  if (!view) return undefined;
  // the deal types this table's preset records (GET /api/presets; K-6: a redeal, classic only)
  const [, table] = await Promise.all([loadPresets().catch(() => null),
    get(`/api/tables/${tableId}`).catch(() => null)]);
  const kinds = presetOf(table?.preset)?.record_kinds ?? TYPES;
  const seat = view.member_ids.indexOf(me.id);
  const mySeat = seat >= 0 ? seat : null;
  const scorer = mySeat !== null || view.scorer_member_id === me.id;
  const sheetBox = h("div", { class: "rec-sheet", "data-testid": "rec-sheet" });
  const formBox = h("div", { class: "rec-form card" });
  const logBox = h("div", { class: "rec-log" });
  const disputes = h("ul", { class: "rec-disputes", "data-testid": "rec-disputes" });
  root.append(h("h1", { text: t("rec.title", { id: tableId }) }),
    h("p", { class: "muted", text: t("rec.intro") }),
    h("div", { class: "rec-layout" }, sheetBox, formBox), logBox,
    h("h2", { text: t("rec.disputes") }), disputes);
  let seq = view.seq;

  // Redraw only when the table moved on: an entry refreshes both from its own answer and from
  // the socket's event, and a second redraw would wipe a form the scorer has started to fill.
  const refresh = async () => {
    const fresh = await attempt(() => get(`/api/tables/${tableId}/recording`));
    if (!fresh || fresh.seq <= seq) return;
    view = fresh;
    seq = view.seq;
    draw();
  };

  const seatName = (i) => `${view.names[i]} (${i + 1})`;
  const seatSelect = (name, value, { blank = false } = {}) => {
    const sel = h("select", { name, "data-field": name });
    if (blank) sel.append(h("option", { value: "", text: "—" }));
    view.names.forEach((_, i) => sel.append(h("option", { value: String(i), text: seatName(i) })));
    sel.value = value === null || value === undefined ? "" : String(value);
    return sel;
  };

  function draw() {
    root.dataset.seq = String(seq);
    clear(sheetBox);
    sheetBox.append(drawPulka({ players: view.players, names: view.names, seat: mySeat,
      target: view.target, sheet: view.sheet }));
    sheetBox.append(settlementLine());
    clear(formBox);
    if (view.status === "finished") formBox.append(h("p", { text: t("rec.finished") }));
    else if (scorer) formBox.append(entryForm());
    else formBox.append(h("p", { class: "muted", text: t("rec.watching") }));
    clear(logBox);
    logBox.append(h("h2", { text: t("rec.deals") }), dealList());
  }

  function settlementLine() {
    const money = view.settlement?.money || [];
    return h("p", { class: "rec-settlement", "data-testid": "rec-settlement",
      text: view.names.map((n, i) => `${n}: ${formatMoney(money[i] ?? "0")}`).join(" · ") });
  }

  function words(rule) {
    const entry = view.catalogue.find((c) => c.rule === rule || c.id === rule);
    return entry ? entry.words[lang()] || entry.words.en : rule;
  }

  function dealText(d) {
    const kind = t(`rec.type.${d.type}`);
    const who = d.declarer !== undefined ? ` · ${view.names[d.declarer]}` : "";
    const contract = d.contract ? ` ${d.contract.replace(/(NT|S|C|D|H)$/, strainText)}` : "";
    const pens = (d.penalties || []).map((p) => `${words(p.rule)}: ${view.names[p.seat]}`);
    return `${t("rec.dealer")}: ${view.names[d.dealer]} · ${kind}${contract}${who}`
      + (d.out_of_turn ? ` · ${t("rec.outOfTurn")}` : "") + (pens.length ? ` · ${pens.join(", ")}` : "");
  }

  function dealList() {
    const list = h("ol", { class: "rec-deals", "data-testid": "rec-deals", start: "1" });
    view.deals.forEach((d, i) => {
      const item = h("li", { "data-deal": String(i), text: dealText(d) });
      const penaltyRules = new Set(view.catalogue.map((c) => c.rule));
      const penaltyEntries = view.entries.filter((e) => e.deal === i && penaltyRules.has(e.rule));
      for (const e of penaltyEntries) {
        item.append(h("div", { class: "rec-penalty", text: `${entryWords(e)} — ${view.names[e.seat]}: ${formatWhists(e.amount)}` }));
      }
      if (mySeat !== null) {
        // A form of its own, so an empty reason is said in words (validity.js), not ignored.
        const input = h("input", { type: "text", name: "text", required: true, maxlength: "500",
          "aria-label": t("rec.disputeWhy") });
        const form = h("form", { class: "rec-dispute", "data-testid": "rec-dispute" }, input,
          h("button", { type: "submit", class: "link", text: t("rec.dispute") }));
        form.addEventListener("submit", async (event) => {
          event.preventDefault();
          const done = await attempt(() => post(`/api/tables/${tableId}/recording/deals/${i}/disputes`,
            { text: input.value }));
          if (done) input.value = "";
        });
        item.append(form);
      }
      list.append(item);
    });
    return list;
  }

  function entryForm() {
    const form = h("form", { class: "rec-entry", "data-testid": "rec-form" });
    const dealer = seatSelect("dealer", view.next_dealer);
    // R-X3: a deal out of turn that stands; the scorer says so (a dealer passed on by R-X2 is not).
    const outOfTurn = h("input", { type: "checkbox", "data-field": "out_of_turn" });
    const type = h("select", { name: "type", "data-field": "type" },
      ...kinds.map((k) => h("option", { value: k, text: t(`rec.type.${k}`) })));
    const declarer = seatSelect("declarer", null, { blank: true });
    const level = h("select", { name: "level", "data-field": "level" },
      ...[6, 7, 8, 9, 10].map((n) => h("option", { value: String(n), text: String(n) })));
    level.value = String(view.min_level);
    const strain = h("select", { name: "strain", "data-field": "strain" },
      ...STRAINS.map((s) => h("option", { value: s, text: strainText(s) })));
    const play = h("select", { name: "play", "data-field": "play" },
      h("option", { value: "", text: "—" }), h("option", { value: "open", text: t("rec.open") }),
      h("option", { value: "closed", text: t("rec.closed") }));
    const calls = view.names.map((_, i) => h("select", { "data-call": String(i), "aria-label": seatName(i) },
      ...["", "whist", "pass", "half"].map((c) => h("option", { value: c, text: c ? t(`rec.call.${c}`) : "—" }))));
    const tricks = view.names.map((_, i) => h("input", { ...wholeNumber({ min: 0, max: 10 }),
      "data-tricks": String(i), "aria-label": seatName(i), class: "rec-tricks" }));
    const penalties = h("div", { class: "rec-penalties" });
    const addPenalty = () => {
      const id = h("select", { "data-pen": "rule" },
        ...view.catalogue.map((c) => h("option", { value: c.id, text: c.words[lang()] || c.words.en })));
      const who = seatSelect("pen-seat", 0);
      who.dataset.pen = "seat";
      const size = h("input", wholeNumber({ min: 0, "data-pen": "size", placeholder: t("rec.size") }));
      const row = h("div", { class: "rec-penalty-row" }, id, who, size,
        h("button", { type: "button", class: "link", text: "×", onclick: () => row.remove() }));
      penalties.append(row);
    };
    const collect = () => {
      const deal = { dealer: Number(dealer.value), type: type.value };
      if (outOfTurn.checked) deal.out_of_turn = true;
      if (declarer.value !== "" && !["pass_out", "redeal"].includes(type.value)) deal.declarer = Number(declarer.value);
      if (type.value === "game" || type.value === "conceded") deal.contract = `${level.value}${strain.value}`;
      if (type.value === "game" || type.value === "conceded") {
        const defence = {};
        calls.forEach((sel, i) => { if (sel.value) defence[String(i)] = sel.value; });
        if (Object.keys(defence).length) deal.defence = defence;
      }
      if (play.value) deal.play = play.value;
      const given = tricks.filter((inp) => inp.value !== "");
      if (given.length) {
        deal.tricks = {};
        given.forEach((inp) => { deal.tricks[inp.dataset.tricks] = Number(inp.value); });
      }
      const pens = [...penalties.querySelectorAll(".rec-penalty-row")].map((row) => {
        const p = { rule: row.querySelector("[data-pen=rule]").value,
          seat: Number(row.querySelector("[data-pen=seat]").value) };
        const size = row.querySelector("[data-pen=size]").value;
        if (p.rule === "entry_error" && size !== "") p.size = Number(size);
        return p;
      });
      if (pens.length) deal.penalties = pens;
      return deal;
    };
    const submit = async (correct) => {
      const deal = collect();
      const done = correct
        ? await attempt(() => api("PUT", `/api/tables/${tableId}/recording/deals/${view.correctable}`, { deal }))
        : await attempt(() => post(`/api/tables/${tableId}/recording/deals`, { deal_no: view.deal_no, deal }));
      if (done) {
        notify(t(correct ? "rec.corrected" : "rec.entered"), "info");
        await refresh();
      }
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      submit(false);
    });
    const field = (key, ...inputs) => h("label", { class: "rec-field" }, h("span", { text: t(key) }),
      h("span", { class: "rec-inputs" }, ...inputs));
    form.append(
      h("h2", { text: t("rec.next", { n: view.deal_no + 1 }) }),
      field("rec.dealer", dealer), field("rec.outOfTurn", outOfTurn), field("rec.typeLabel", type), field("rec.declarer", declarer),
      field("rec.contract", level, strain), field("rec.play", play),
      h("fieldset", {}, h("legend", { text: t("rec.calls") }),
        ...calls.map((sel, i) => h("label", {}, h("span", { text: seatName(i) }), sel))),
      h("fieldset", {}, h("legend", { text: t("rec.tricks") }),
        ...tricks.map((inp, i) => h("label", {}, h("span", { text: seatName(i) }), inp))),
      h("fieldset", {}, h("legend", { text: t("rec.penalties") }), penalties,
        h("button", { type: "button", class: "link", "data-testid": "rec-add-penalty",
          text: t("rec.addPenalty"), onclick: addPenalty })),
      h("button", { type: "submit", class: "primary", "data-testid": "rec-enter", text: t("rec.enter") }),
    );
    if (view.correctable !== null && view.correctable !== undefined) {
      form.append(h("button", { type: "button", "data-testid": "rec-correct",
        text: t("rec.correct", { n: view.correctable + 1 }), onclick: () => submit(true) }));
    }
    return form;
  }

  draw();
  const socket = new TableSocket(tableId, {
    message: (msg) => {
      if (msg.type === "recorded_dispute") {
        disputes.append(h("li", { text: `${msg.data.name} (${t("rec.dealNo", { n: msg.data.deal_no + 1 })}): ${msg.data.text}` }));
      }
      if (REFRESH_ON.has(msg.type) && (msg.seq === undefined || msg.seq > seq)) refresh();
    },
    status: () => {},
  }, () => seq);
  socket.connect();
  return () => socket.close();
}
