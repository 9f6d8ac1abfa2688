// The table page: one socket per docs/protocol.md; the own hand sorted by suit, the opponents,
// the bidding box with only legal calls enabled, talon, discard, contract, whist/pass, the
// current trick, the last trick on request, who is connected, chat between deals, and the
// paper pulka. The page keeps its last state per table so a reload resumes from the last seq.
import { get } from "../api.js";
import { attempt, notify } from "../app.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { callClass, callText, cardBack, cardFace, sortHand } from "../table/cards.js";
import { drawPulka } from "../table/sheet.js";
import { TableSocket } from "../table/socket.js";

const LEVELS = [6, 7, 8, 9, 10];
const STRAINS = ["S", "C", "D", "H", "NT"];

export async function renderTable(root, { args, me }) {
  const tableId = Number(args[0]);
  const storeKey = `prefclub.table.${tableId}.${me.id}`;
  let st = loadStored() || { seq: null, seat: null, deal: null, legal: [], info: {} };
  let presence = { connected: [], spectators: 0 };
  let conn = "connecting";
  let lines = null;
  let lastTrick = null;
  let selected = new Set();
  let chatDraft = "";

  const felt = h("section", { class: "felt", "aria-label": `${t("table.t")} ${tableId}` });
  const side = h("aside", { class: "side" });
  root.append(h("div", { class: "table-page" }, felt, side));

  function loadStored() {
    try {
      return JSON.parse(sessionStorage.getItem(storeKey));
    } catch {
      return null;
    }
  }

  function save() {
    try {
      sessionStorage.setItem(storeKey, JSON.stringify(st));
    } catch { /* storage full or off: a reload then starts from a snapshot */ }
  }

  async function loadLines() {
    const out = await get(`/api/ui/tables/${tableId}/sheet-lines`).catch(() => null);
    if (out) {
      lines = out.lines;
      if (!st.info.last_deal && out.last_deal) st.info.last_deal = out.last_deal;
      render();
    }
  }

  const socket = new TableSocket(tableId, {
    status(state) {
      conn = state;
      renderHead();
    },
    message: onMessage,
  }, () => st.seq);

  function onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        st.seat = msg.seat;
        return;
      case "snapshot":
        st = { seq: msg.seq, seat: msg.seat, deal: msg.deal, legal: msg.legal || [], info: { ...msg.table } };
        selected = new Set();
        save();
        loadLines();
        render();
        return;
      case "presence":
        presence = msg;
        render();
        return;
      case "ack":
        return;
      case "error":
        if (msg.code !== "stale_seq") notify(msg.message);
        return;
      case "last_trick":
        lastTrick = { trick: msg.trick, winner: msg.winner };
        render();
        return;
      case "pong":
      case "heartbeat":
        return;
      default:
        if (typeof msg.seq === "number") onEvent(msg);
    }
  }

  function onEvent(msg) {
    if (st.seq !== null && msg.seq <= st.seq) return;
    const info = { ...st.info, ...(msg.table || {}) };
    const data = msg.data || {};
    if (msg.type === "pulka_started") Object.assign(info, { names: data.names, players: data.players });
    if (msg.type === "chat") info.chat = [...(info.chat || []), { seq: msg.seq, ...data }].slice(-50);
    if (msg.type === "deal_ended") {
      info.chat = [];
      info.last_deal = data;
    }
    if (msg.type === "deal_started") lastTrick = null;
    if (msg.type === "pulka_ended") info.settlement = data.settlement;
    let seat = st.seat;
    if (msg.type === "player_joined" || msg.type === "player_replaced") {
      // R-T4 / R-T5: the seating changed; this connection's seat comes with the event.
      Object.assign(info, { names: data.names, players: data.players });
      if ("seat" in msg) seat = msg.seat;
      loadLines();
    }
    st = { ...st, seq: msg.seq, seat, deal: msg.deal, legal: msg.legal || [], info };
    if (msg.type !== "action" || !st.legal.some((a) => a.type === "discard")) selected = new Set();
    save();
    if (["deal_ended", "pulka_ended"].includes(msg.type)) loadLines();
    render();
  }

  // -- rendering -----------------------------------------------------------------------------

  const names = () => st.info.names || [];
  const nameOf = (seat) => names()[seat] || `${t("table.seat")} ${seat + 1}`;
  const legalOf = (type) => st.legal.filter((a) => a.type === type);
  const send = (command) => {
    if (!socket.send(command)) notify(t("table.reconnecting"));
  };

  function renderHead() {
    const head = felt.querySelector(".table-head .conn");
    if (!head) return;
    head.className = `conn${conn === "down" ? " down" : ""}`;
    head.textContent = conn === "open" ? t("table.connectedOk") : t("table.reconnecting");
  }

  function seatBox(seat) {
    const d = st.deal;
    const roles = [];
    if (d) {
      if (d.dealer === seat) roles.push(t("table.dealer"));
      if (d.forehand === seat) roles.push(t("table.forehand"));
      if (d.declarer === seat) roles.push(t("table.declarer"));
    }
    const online = presence.connected.includes(seat);
    const calls = d ? d.auction.filter((a) => a.seat === seat).map((a) => callText(a.call)) : [];
    const defence = d ? d.defence.filter((a) => a.seat === seat).map((a) => callText(a.call)) : [];
    const size = d?.hand_sizes?.[String(seat)];
    const tricks = d?.tricks?.[String(seat)];
    return h("div", { class: `seat-box${d && d.to_move === seat ? " to-move" : ""}`, "data-seat": seat },
      h("div", { class: "name" },
        h("span", { class: `dot${online ? " on" : ""}`, "aria-label": online ? t("table.connected") : t("table.offline"),
          role: "img" }),
        nameOf(seat), roles.map((r) => h("span", { class: "role", text: r }))),
      h("div", { class: "meta" }, [
        size && seat !== st.seat ? `${t("table.cards")}: ${size}` : null,
        tricks !== undefined && ["play", "done"].includes(d.phase) ? `${t("table.tricks")}: ${tricks}` : null,
        calls.length ? calls[calls.length - 1] : null,
        defence.length ? defence.join(", ") : null,
      ].filter(Boolean).join(" · ")));
  }

  function statusLine() {
    const d = st.deal;
    const info = st.info;
    if (info.status === "finished") return h("p", { class: "status-line" }, h("strong", { text: t("table.finished") }));
    if (info.status === "waiting") return h("p", { class: "status-line", text: info.notice || t("table.status.waiting") });
    if (!d) return h("p", { class: "status-line", text: t("common.loading") });
    const phase = t(`table.phase.${d.phase}`);
    let who = "";
    if (d.to_move !== null && d.to_move !== undefined) {
      who = d.to_move === st.seat ? t("table.yourMove") : `${t("table.toMove")}: ${nameOf(d.to_move)}`;
    }
    const contract = d.contract ? ` · ${t("table.contract")}: ${callText(d.contract)} (${nameOf(d.declarer)})`
      : d.kind === "pass_out" ? ` · ${t("table.passOut")}` : d.bid ? ` · ${callText(d.bid)}` : "";
    document.title = `${d.to_move === st.seat && st.seat !== null ? "● " : ""}${t("table.t")} ${tableId} · ${t("brand")}`;
    return h("p", { class: "status-line", role: "status" }, `${t("table.deal")} ${info.deal_no || ""} · ${phase}${contract}`,
      who ? h("br") : null, who ? h("strong", { text: who }) : null);
  }

  function trickView(cards, label) {
    return h("div", { class: "trick", "aria-label": label, role: "group" },
      (cards || []).map((c) => h("div", { class: "trick-card" },
        cardFace(c.card), h("span", { text: c.seat < 0 ? t("table.talon") : nameOf(c.seat) }))));
  }

  function handView(cards, { mine, seat }) {
    const d = st.deal;
    const playable = new Set(legalOf("play_card").map((a) => a.card));
    const discarding = mine && legalOf("discard").length > 0;
    const sorted = sortHand(cards);
    const idOf = (card) => `card-${mine ? "me" : seat}-${card}`;
    return h("div", { class: "cards hand", role: "group", "aria-label": mine ? t("table.myHand") : nameOf(seat),
      "data-testid": mine ? "my-hand" : `open-hand-${seat}` },
      sorted.map((card) => {
        if (discarding) {
          return cardFace(card, { id: idOf(card), selected: selected.has(card), onclick: () => {
            if (selected.has(card)) selected.delete(card);
            else if (selected.size < 2) selected.add(card);
            render();
          } });
        }
        if (!d || d.phase !== "play" || !playable.size) return cardFace(card);
        const can = playable.has(card);
        return cardFace(card, { id: idOf(card), playable: can, disabled: !can,
          onclick: () => send({ type: "play_card", card }) });
      }));
  }

  function bidBox() {
    const legal = new Set(legalOf("bid").map((a) => a.call));
    const box = h("div", { class: "bidbox", role: "group", "aria-label": t("table.bidding"), "data-testid": "bidbox" });
    for (const level of LEVELS) {
      for (const strain of STRAINS) {
        const call = `${level}${strain}`;
        box.append(h("button", { type: "button", class: callClass(call), disabled: !legal.has(call),
          id: `bid-${call}`, "aria-label": callText(call), dataset: { call }, text: callText(call),
          onclick: () => send({ type: "bid", call }) }));
      }
    }
    box.append(h("div", { class: "specials" }, ["pass", "here", "misere"].map((call) =>
      h("button", { type: "button", disabled: !legal.has(call), dataset: { call }, text: callText(call),
        id: `bid-${call}`, class: call === "pass" ? "primary" : "", onclick: () => send({ type: "bid", call }) }))));
    return box;
  }

  function actionPanel() {
    const d = st.deal;
    const panel = h("div", { class: "panel", "aria-live": "polite", "data-testid": "actions" });
    if (!d || st.info.status !== "playing") {
      if (st.info.status === "waiting" && st.seat !== null) {
        panel.append(h("button", { type: "button", class: "primary", text: t("table.nextDeal"),
          onclick: () => send({ type: "next_deal" }) }));
        return panel;
      }
      return null;
    }
    const handled = new Set();
    const cuts = legalOf("cut");
    if (cuts.length) {
      handled.add("cut");
      const positions = cuts.map((a) => a.position);
      const range = h("input", { type: "range", min: Math.min(...positions), max: Math.max(...positions),
        value: positions[Math.floor(positions.length / 2)], id: "cut-pos", "aria-label": t("table.cut") });
      const out = h("output", { for: "cut-pos", text: range.value });
      range.addEventListener("input", () => { out.textContent = range.value; });
      panel.append(h("h2", { text: t("table.cut") }), h("p", { class: "small", text: t("table.cutHint") }),
        h("div", { class: "actions" }, range, out,
          h("button", { type: "button", class: "primary", text: t("table.cut"),
            onclick: () => send({ type: "cut", position: Number(range.value) }) })));
    }
    if (d.phase === "auction") {
      handled.add("bid");
      panel.append(h("h2", { text: t("table.bidding") }), bidBox());
    }
    for (const [type, key] of [["take_talon", "table.takeTalon"], ["return_talon", "table.returnTalon"]]) {
      if (legalOf(type).length) {
        handled.add(type);
        panel.append(h("button", { type: "button", text: t(key), onclick: () => send({ type }) }));
      }
    }
    const discards = legalOf("discard");
    if (discards.length) {
      handled.add("discard");
      const chosen = [...selected];
      const ok = chosen.length === 2 && discards.some((a) => a.cards.every((c) => selected.has(c)));
      panel.append(h("h2", { text: t("table.discard") }), h("p", { class: "small", text: t("table.discardHint") }),
        h("div", { class: "actions" }, h("div", { class: "cards" }, chosen.map((c) => cardFace(c, { small: true }))),
          h("button", { type: "button", class: "primary", disabled: !ok, text: t("table.doDiscard"),
            onclick: () => send({ type: "discard", cards: chosen }) })));
    }
    const contracts = legalOf("name_contract");
    if (contracts.length) {
      handled.add("name_contract");
      const legal = new Set(contracts.map((a) => a.contract));
      const box = h("div", { class: "bidbox", role: "group", "aria-label": t("table.contract") });
      for (const level of LEVELS) {
        for (const strain of STRAINS) {
          const call = `${level}${strain}`;
          box.append(h("button", { type: "button", class: callClass(call), disabled: !legal.has(call), dataset: { call },
            id: `contract-${call}`,
            text: callText(call), onclick: () => send({ type: "name_contract", contract: call }) }));
        }
      }
      box.append(h("div", { class: "specials" },
        h("button", { type: "button", disabled: !legal.has("misere"), dataset: { call: "misere" }, text: callText("misere"),
          onclick: () => send({ type: "name_contract", contract: "misere" }) })));
      panel.append(h("h2", { text: t("table.contract") }), box);
    }
    if (legalOf("concede").length) {
      handled.add("concede");
      panel.append(h("button", { type: "button", class: "danger", text: t("table.concede"),
        onclick: () => send({ type: "concede" }) }));
    }
    const defend = legalOf("defend");
    if (defend.length || legalOf("return_whist").length) {
      handled.add("defend");
      handled.add("return_whist");
      panel.append(h("h2", { text: `${t("table.whist")} / ${t("table.pass")}` }), h("div", { class: "actions" },
        defend.map((a) => h("button", { type: "button", class: a.call === "whist" ? "primary" : "",
          dataset: { call: a.call }, text: callText(a.call), onclick: () => send({ type: "defend", call: a.call }) })),
        legalOf("return_whist").length ? h("button", { type: "button", text: t("table.returnWhist"),
          onclick: () => send({ type: "return_whist" }) }) : null));
    }
    const modes = legalOf("choose_play");
    if (modes.length) {
      handled.add("choose_play");
      panel.append(h("div", { class: "actions" }, modes.map((a) => h("button", { type: "button", dataset: { mode: a.mode },
        text: a.mode === "open" ? t("table.open") : t("table.closed"), onclick: () => send({ type: "choose_play", mode: a.mode }) }))));
    }
    handled.add("play_card");
    for (const [type, key] of [["accept_result", "table.accept"], ["decline_result", "table.decline"]]) {
      if (legalOf(type).length) {
        handled.add(type);
        panel.append(h("button", { type: "button", text: t(key), onclick: () => send({ type }) }));
      }
    }
    const claims = legalOf("claim");
    if (claims.length) {
      handled.add("claim");
      const pick = h("select", { "aria-label": t("table.claim") },
        claims.map((a) => h("option", { value: a.tricks, text: a.tricks })));
      panel.append(h("div", { class: "actions" }, pick, h("button", { type: "button", text: t("table.claim"),
        onclick: () => send({ type: "claim", tricks: Number(pick.value) }) })));
    }
    // anything the protocol allows that this page has no special control for
    const rest = st.legal.filter((a) => !handled.has(a.type) && a.type !== "propose_result");
    if (rest.length) {
      panel.append(h("div", { class: "actions" }, rest.slice(0, 12).map((a) => h("button", { type: "button",
        text: JSON.stringify(a), onclick: () => send({ ...a }) }))));
    }
    return panel.childNodes.length ? panel : null;
  }

  function renderFelt() {
    const d = st.deal;
    const n = st.info.players || d?.players || 3;
    const mySeat = st.seat ?? 0;
    const others = [];
    for (let k = 1; k < n; k += 1) others.push((mySeat + k) % n);
    // the player on my left (next clockwise) is shown on the left
    const openHands = d ? Object.entries(d.open_hands || {})
      .filter(([seat, cards]) => Number(seat) !== st.seat && cards.length) : [];
    const talon = d && d.talon && d.talon.length && d.kind !== "pass_out" && !["play", "done"].includes(d.phase)
      ? d.talon : null;
    clear(felt).append(...[
      h("div", { class: "table-head" },
        h("h1", {}, `${t("table.t")} ${tableId}`),
        h("span", { class: "conn" }),
        h("a", { href: "#/lobby", text: t("table.back") })),
      h("div", { class: "opponents" }, others.map((seat) => seatBox(seat))),
      h("div", { class: "center" },
        statusLine(),
        d && d.auction.length && ["auction", "talon", "discard", "contract"].includes(d.phase)
          ? h("div", { class: "auction-log", "aria-label": t("table.bidding") },
            d.auction.map((a) => h("span", { class: callClass(a.call) }, `${nameOf(a.seat)}: ${callText(a.call)}`)))
          : null,
        talon ? h("div", { "aria-label": t("table.talon") }, h("div", { class: "small", text: t("table.talon") }),
          h("div", { class: "cards", "data-testid": "talon" }, talon.map((c) => cardFace(c, { small: true })))) : null,
        d && d.phase === "auction" && d.talon === null ? h("div", { class: "cards", title: t("table.talon") },
          cardBack(true), cardBack(true)) : null,
        d && d.trick && d.trick.length ? trickView(d.trick, t("table.trick")) : null,
        d && d.discard && st.seat === d.declarer ? h("div", { class: "small" }, `${t("table.discard")}: `,
          h("span", { class: "cards" }, d.discard.map((c) => cardFace(c, { small: true })))) : null),
      openHands.length ? h("div", { class: "open-hands" }, openHands.map(([seat, cards]) =>
        h("div", {}, h("div", { class: "small", text: `${nameOf(Number(seat))} — ${t("table.handsOpen")}` }),
          handView(cards, { mine: false, seat: Number(seat) })))) : null,
      h("div", { class: "hand-area" },
        seatBox(mySeat),
        st.seat === null ? h("p", { class: "muted small", text: t("table.spectator") }) : null,
        d && d.hand && d.hand.length ? handView(d.hand, { mine: true, seat: st.seat }) : null),
      actionPanel()].filter(Boolean));
    renderHead();
  }

  function renderSide() {
    const info = st.info;
    const n = info.players || st.deal?.players || 3;
    const sheetCard = h("section", { class: "card sheet-card", "aria-labelledby": "sheet-title", "data-testid": "sheet" },
      h("h2", { id: "sheet-title", text: t("table.sheet") }),
      drawPulka({ players: n, names: names(), seat: st.seat, target: info.target ?? "", sheet: info.sheet, lines }));
    if (info.settlement) sheetCard.append(settlementTable(info.settlement));
    const lastBox = h("section", { class: "card", "aria-labelledby": "last-title" },
      h("h2", { id: "last-title", text: t("table.lastTrick") }),
      h("button", { type: "button", text: t("table.showLast"), onclick: () => send({ type: "last_trick" }) }));
    if (lastTrick) {
      lastBox.append(lastTrick.trick && lastTrick.trick.length
        ? h("div", {}, h("div", { class: "cards" }, lastTrick.trick.map((c) => h("span", { class: "trick-card" },
          cardFace(c.card, { small: true }), h("span", { class: "small", text: c.seat < 0 ? t("table.talon") : nameOf(c.seat) })))),
        lastTrick.winner !== null ? h("p", { class: "small", text: `→ ${nameOf(lastTrick.winner)}` }) : null)
        : h("p", { class: "muted small", text: t("table.noLast") }));
    }
    const side2 = [sheetCard, lastBox];
    if (info.last_deal) side2.push(lastDealBox(info.last_deal));
    side2.push(chatBox());
    side2.push(h("p", { class: "small muted" }, `${t("table.connected")}: `,
      presence.connected.map((s) => nameOf(s)).join(", ") || "—",
      presence.spectators ? ` · ${t("table.spectators")}: ${presence.spectators}` : ""));
    if (st.deal?.commitment) {
      side2.push(h("p", { class: "commit", title: t("table.commitment") }, `${t("table.commitment")}: ${st.deal.commitment}`));
    }
    clear(side).append(...side2);
  }

  function lastDealBox(last) {
    const o = last.outcome || {};
    let text = `${t("table.deal")} ${last.deal_no}: `;
    if (o.type === "pass_out") text += t("table.passOut");
    else if (o.contract) text += `${callText(o.contract)} — ${nameOf(o.declarer)}`;
    else text += o.type || "";
    const defence = o.defence ? Object.entries(o.defence).map(([s, c]) => `${nameOf(Number(s))}: ${callText(c)}`).join(", ") : "";
    const tricks = o.tricks ? Object.entries(o.tricks).map(([s, n]) => `${nameOf(Number(s))} ${n}`).join(", ") : "";
    const columns = { pool: t("table.pool"), hill: t("table.hill"), whists: t("table.whists") };
    const entries = (last.entries || []).map((e) => {
      const who = e.column === "whists" ? `${nameOf(e.seat)} → ${nameOf(e.on)}` : nameOf(e.seat);
      const amount = Number(e.amount) > 0 ? `+${e.amount}` : String(e.amount);
      return h("li", {}, `${who}: ${columns[e.column] || e.column} ${amount} `, h("span", { class: "muted", text: e.rule }));
    });
    return h("section", { class: "card deal-result", "data-testid": "last-deal" },
      h("h2", { text: t("table.dealEnded") }), h("p", { text }),
      defence ? h("p", { class: "small", text: defence }) : null,
      tricks ? h("p", { class: "small", text: `${t("table.tricks")}: ${tricks}` }) : null,
      entries.length ? h("ul", { class: "small entries" }, entries) : null);
  }

  function settlementTable(settlement) {
    const rows = (settlement.whists || []).map((w, i) => h("tr", {},
      h("td", { text: nameOf(i) }), h("td", { text: String(w) }),
      h("td", { text: String(settlement.rounded?.[i] ?? "") }),
      h("td", { text: String(settlement.money?.[i] ?? "") })));
    return h("table", { class: "settlement", "aria-label": t("table.settlement") },
      h("thead", {}, h("tr", {}, h("th", { text: t("table.settlement") }), h("th", { text: t("table.whists") }),
        h("th", { text: "≈" }), h("th", { text: t("table.money") }))),
      h("tbody", {}, rows));
  }

  function chatBox() {
    const info = st.info;
    const open = info.chat_open !== false;
    const input = h("input", { id: "chat-text", maxlength: 500, placeholder: t("table.chatPlaceholder"),
      "aria-label": t("table.chatPlaceholder"), disabled: !open || st.seat === null, value: chatDraft,
      oninput: (e) => { chatDraft = e.target.value; } });
    const form = h("form", { class: "inline", onsubmit: (e) => {
      e.preventDefault();
      if (!input.value.trim()) return;
      send({ type: "chat", text: input.value });
      chatDraft = "";
      input.value = "";
    } }, input, h("button", { type: "submit", disabled: !open || st.seat === null, text: t("table.send") }));
    return h("section", { class: "card", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title", text: t("table.chat") }),
      h("div", { class: "chat-log", "aria-live": "polite" },
        (info.chat || []).map((line) => h("p", {}, h("strong", { text: `${line.name}: ` }), line.text))),
      open ? null : h("p", { class: "muted small", text: t("table.chatClosed") }),
      form);
  }

  function render() {
    const focused = document.activeElement?.id;
    renderFelt();
    renderSide();
    if (focused) document.getElementById(focused)?.focus();
  }

  render();
  await attempt(loadLines);
  socket.connect();
  return () => {
    socket.close();
    document.title = t("brand");
  };
}
