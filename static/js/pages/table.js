// The table page: one socket per docs/protocol.md; the own hand sorted by suit, the opponents,
// the bidding box with only legal calls enabled, talon, discard, contract, whist/pass, the
// current trick (a completed trick stays on the cloth for a moment, its winner marked), the last
// trick one tap away, the auction and the contract always on screen, move and cut countdowns
// when the server keeps a deadline, who is disconnected and for how long, a turn alert, keyboard
// shortcuts, chat between deals, the paper pulka with a running balance, and a «verify the deal»
// panel where the browser re-checks the revealed deck itself (R-D4), and «Разбор сдачи», the
// double-dummy analysis of the deal just ended (docs/analysis.md). Every word comes from the
// i18n catalogue: server errors are shown by their code, sheet entries by the rule's name.
// The page keeps its last state per table so a reload resumes from the last seq.
import { get, post } from "../api.js";
import { attempt, notify } from "../app.js";
import { clear, h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { formatMoney, formatWhists, signedWhists } from "../money.js";
import { loadPresets, presetList, presetOf, presetTitle } from "../presets.js";
import { analysisPath, analysisView, playedTricks } from "../table/analysis.js";
import { blindMode } from "../table/blind.js";
import { callClass, callText, cardBack, cardFace, cardLabel, sortHand } from "../table/cards.js";
import { beep, setSound, soundOn, tick } from "../table/extras.js";
import { sentButton, showSent } from "../table/pending.js";
import { drawPulka } from "../table/sheet.js";
import { TableSocket } from "../table/socket.js";
import { extensionAsk } from "../table/extension.js";
import { verifyDeal } from "../table/verify.js";
import { claimWords, endedText, entryWords, errorText, kindText, settlementLines, signed } from "../table/words.js";

const LEVELS = [6, 7, 8, 9, 10];
const STRAINS = ["S", "C", "D", "H", "NT"];
/** How long a completed trick stays on the cloth (unless a player leads the next one first). */
const HOLD_MS = 1500;
const KEY_LEVELS = { Digit6: 6, Digit7: 7, Digit8: 8, Digit9: 9, Digit0: 10, Numpad6: 6, Numpad7: 7,
  Numpad8: 8, Numpad9: 9, Numpad0: 10 };
const KEY_STRAINS = { KeyS: "S", KeyC: "C", KeyD: "D", KeyH: "H", KeyN: "NT" };

export async function renderTable(root, { args, me }) {
  const tableId = Number(args[0]);
  // A real-cards table is recorded, not played here (RULES.md §10): its page is #/recording/<id>.
  // the table and the presets are asked at once: the first render waits for both (issue 28)
  const [kind] = await Promise.all([get(`/api/tables/${tableId}`).catch(() => null), loadPresets()]);
  if (kind?.mode === "recorded") {
    location.replace(`#/recording/${tableId}`);
    return undefined;
  }
  const storeKey = `prefclub.table.${tableId}.${me.id}`;
  /** The table's preset as the server describes it (GET /api/presets). */
  const presetRules = () => presetOf(st.info.preset) ?? presetList()[0];
  let st = loadStored() || { seq: null, seat: null, deal: null, legal: [], info: {} };
  st.seen = st.seen || {};
  let presence = { connected: [], spectators: 0 };
  let conn = "connecting";
  let lines = null;
  let balance = null; // sheet-lines' `balance` and `closing`: the pulka settled as it stands
  let lastTrick = null;
  let selected = new Set();
  let chatDraft = "";
  let held = null; // the completed trick kept on the cloth: {cards, winner, until}
  let heldKey = null;
  let meta = { move_timer_seconds: null, deadline_at: null }; // GET /api/tables/{id}
  // Hints (practice tables only, docs/bots.md): the strong bot's move for this seat at seq.
  const practice = Boolean(kind?.practice);
  const clubTable = Boolean(kind && !kind.practice && kind.club_session_id);
  let extension = null; // the R-S2 extension asked at the table (club tables only)
  let hint = null; // { seq, text }
  const away = {}; // seat -> {since: epoch ms, lower: true when the page only knows "at least"}
  let firstPresence = true;
  let tab = "table";
  let helpOpen = false;
  let verifyOpen = false;
  const verified = {}; // deal_no -> verifyDeal() result
  const fetchedReveal = new Set(); // deal numbers whose reveal was asked of the archive
  // «Разбор сдачи» (docs/analysis.md): deal_no -> {loading: true} | {result}; the table's one
  // pulka's id (the analysis lives under it), known from GET /api/tables/{id} or asked later.
  const analyses = {};
  const analysisShut = new Set(); // deal numbers whose loaded analysis the player folded
  let pulkaId = kind?.pulka?.id ?? null;
  let pendingLevel = null;
  let sent = null; // the move sent and shown as made, until the server answers: {seq, command}
  let wasMyMove = false;
  let metaTimer = null;

  const feltBody = h("div", { class: "felt-body" });
  const felt = h("section", { class: "felt", "aria-label": `${t("table.t")} ${tableId}` }, feltBody);
  const side = h("aside", { class: "side" });
  const tabs = h("nav", { class: "table-tabs", "aria-label": t("tp.tabs") });
  const page = h("div", { class: "table-page", "data-tab": tab }, tabs, felt, side);
  root.append(page);
  const ticker = setInterval(() => tick(page), 1000);

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
      // R-A1, A-3: the bombs and the opening round's factor change only when a deal ends
      if ("seats" in out) st.info.seat_marks = out.seats;
      if ("bomb_factor" in out) st.info.bomb_factor = out.bomb_factor;
      balance = { balance: out.balance, closing: out.closing };
      render();
    }
  }

  /** The move deadline: the event's `table.deadline_at` when the server sends it, else asked for. */
  function loadMeta() {
    clearTimeout(metaTimer);
    metaTimer = setTimeout(async () => {
      const out = await get(`/api/tables/${tableId}`).catch(() => null);
      if (out) {
        meta = { move_timer_seconds: out.move_timer_seconds ?? null, deadline_at: out.deadline_at ?? null };
        render();
      }
    }, 150);
  }

  // the blind member's log and command line (table/blind.js): made once, fed every message
  const blind = blindMode({
    state: () => st,
    nameOf: (seat) => nameOf(seat),
    myMove: () => myMove(),
    deadline: () => meta.deadline_at || st.deal?.deadline_at || null,
    balance: () => balance?.balance ?? null,
    signed: (n) => signed(n),
    send: (command) => send(command),
    rerender: () => render(),
    place: (box) => felt.append(box),
    hint: practice ? async () => {
      const out = await post(`/api/tables/${tableId}/hint`).catch((err) => ({ error: err }));
      return out?.action ?? (out?.error?.status === 503 ? "busy" : null);
    } : null,
  });

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
        st = { seq: msg.seq, seat: msg.seat, deal: msg.deal, legal: msg.legal || [],
          info: { finished_deal: st.info.finished_deal, ...msg.table }, seen: st.seen || {} };
        selected = new Set();
        afterUpdate(false, msg.table);
        loadLines();
        loadMeta();
        render();
        blind.snapshot();
        return;
      case "presence":
        notePresence(msg);
        render();
        return;
      case "ack":
        return;
      case "error":
        if (msg.code !== "stale_seq") {
          notify(errorText(msg));
          blind.refused(errorText(msg));
        }
        sent = null;
        render();  // a move shown as sent (table/pending.js) is undone: the state is unchanged
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
      verifyOpen = false;
    }
    if (msg.type === "deal_started") lastTrick = null;
    // the server moved for a player whose move timer ran out
    if (msg.type === "action" && data.auto) notify(`${nameOf(data.seat)}: ${t("table.auto")}`, "info");
    if (msg.type === "pulka_ended") Object.assign(info, { settlement: data.settlement, ended: data.ended });
    let seat = st.seat;
    if (msg.type === "player_joined" || msg.type === "player_replaced") {
      // R-T4 / R-T5: the seating changed; this connection's seat comes with the event.
      Object.assign(info, { names: data.names, players: data.players });
      if ("seat" in msg) seat = msg.seat;
      loadLines();
    }
    st = { ...st, seq: msg.seq, seat, deal: msg.deal, legal: msg.legal || [], info };
    if (msg.type !== "action" || !st.legal.some((a) => a.type === "discard")) selected = new Set();
    afterUpdate(true, msg.table);
    if (["deal_ended", "pulka_ended"].includes(msg.type)) loadLines();
    if (["deal_started", "deal_ended", "deal_refused"].includes(msg.type)) extension?.reload();
    if (meta.move_timer_seconds && !(msg.table && "deadline_at" in msg.table)) loadMeta();
    render();
    blind.event(msg);
  }

  /**
   * Remember what this browser saw of the deal (the commitment before the cut, the cut, its own
   * hand as dealt) for the deal check, keep a finished deal's reveal, and hold a trick that has
   * just been completed on the cloth.
   */
  function afterUpdate(live, table) {
    const d = st.deal;
    const no = st.info.deal_no;
    if (table && "deadline_at" in table) meta = { ...meta, deadline_at: table.deadline_at };
    if (d && no) {
      const seen = st.seen[no] || {};
      if (d.phase === "cut" && d.commitment && !seen.commitment) seen.commitment = d.commitment;
      if (d.cut !== null && d.cut !== undefined && seen.cut === undefined) seen.cut = d.cut;
      if (d.phase === "auction" && !seen.hand && d.hand?.length === 10) {
        seen.hand = [...d.hand];
        seen.seat = st.seat;
      }
      st.seen[no] = seen;
      const keep = Object.keys(st.seen).map(Number).sort((a, b) => b - a).slice(0, 3);
      for (const key of Object.keys(st.seen)) if (!keep.includes(Number(key))) delete st.seen[key];
      if (d.finished && d.reveal) {
        st.info.finished_deal = { deal_no: no, reveal: d.reveal, seen: { ...seen } };
      }
    }
    if (d?.last_trick?.length) {
      const key = `${no}:${d.tricks_played}`;
      if (key !== heldKey) {
        heldKey = key;
        if (live) {
          held = { cards: d.last_trick, winner: d.last_trick_winner, until: Date.now() + HOLD_MS };
          setTimeout(render, HOLD_MS + 30);
        }
      }
    }
    save();
  }

  function notePresence(msg) {
    presence = msg;
    const n = st.info.players || st.deal?.players || 3;
    const since = msg.since || msg.away || {};
    for (let seat = 0; seat < n; seat += 1) {
      if (msg.connected.includes(seat) || seat === st.seat) delete away[seat];
      else if (!away[seat]) {
        const stamp = since[String(seat)] ? Date.parse(since[String(seat)]) : NaN;
        away[seat] = Number.isFinite(stamp) ? { since: stamp, lower: false }
          : { since: Date.now(), lower: firstPresence };
      }
    }
    firstPresence = false;
  }

  // -- rendering -----------------------------------------------------------------------------

  const names = () => st.info.names || [];

  /** Words for an action this page has no own control for (the misère invitation R-B9, the
   * dealer's look at a hand R-W4, …); a numbered "action" only for what it cannot name. */
  function actionText(a, i) {
    if (a.type === "invite_misere") return t("tp.act.inviteMisere");
    if (a.type === "answer_invitation") return t(a.accept ? "tp.act.acceptInvitation" : "tp.act.declineInvitation");
    if (a.type === "look_at_hand") return t("tp.act.lookAt", { name: names()[a.target] || `#${a.target + 1}` });
    return `${t("tp.action")} ${i + 1}`;
  }
  const nameOf = (seat) => names()[seat] || `${t("table.seat")} ${seat + 1}`;
  const memberName = (id) => {
    const seat = kind?.seats?.find((s) => s.member_id === id);
    return seat ? nameOf(seat.seat) : `#${id}`;
  };
  const legalOf = (type) => st.legal.filter((a) => a.type === type);
  const send = (command) => {
    if (!socket.send(command)) notify(t("table.reconnecting"));
  };
  /** Send a move made by pressing `button` and show its effect at once (table/pending.js). */
  const move = (command, button) => {
    if (socket.send(command)) {
      sent = { seq: st.seq, command };
      showSent(felt, button, command, nameOf(st.seat));
    } else notify(t("table.reconnecting"));
  };
  /** Until the server answers, a redraw (presence, a timer) keeps the sent move shown. */
  function keepSent() {
    if (!sent || sent.seq !== st.seq) {
      sent = null;
      return;
    }
    const button = felt.querySelector(sentButton(sent.command));
    if (button) showSent(felt, button, sent.command, nameOf(st.seat));
  }
  const myMove = () => st.seat !== null && st.info.status === "playing" && st.legal.length > 0
    && st.deal && st.deal.to_move === st.seat;

  function renderHead() {
    const head = felt.querySelector(".table-head .conn");
    if (!head) return;
    head.className = `conn${conn === "open" || conn === "connecting" ? "" : " down"}`;
    const words = { open: "table.connectedOk", flooded: "table.flooded", replaced: "table.replaced" };
    head.textContent = t(words[conn] || "table.reconnecting");
  }

  function seatBox(seat) {
    const d = st.deal;
    const roles = [];
    if (d) {
      if (d.dealer === seat) roles.push(t("table.dealer"));
      // R-T6: at five the seat opposite the dealer sits out with him
      else if (d.players === 5 && d.hand_sizes && Object.keys(d.hand_sizes).length
        && !(String(seat) in d.hand_sizes)) roles.push(t("table.sitsOut"));
      if (d.forehand === seat) roles.push(t("table.forehand"));
      if (d.declarer === seat) roles.push(t("table.declarer"));
    }
    const online = presence.connected.includes(seat) || seat === st.seat;
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
    if (info.status === "finished") {
      return h("p", { class: "status-line" }, h("strong", { text: t("table.finished") }), h("br"),
        endedText(info.ended, info.notice));
    }
    if (info.status === "waiting" && !info.deal_no) {
      // a club table seated before its session: the server deals the first deal by itself
      return h("p", { class: "status-line", "data-testid": "waiting-first", text: t("tp.waitingFirst") });
    }
    if (info.status === "waiting") {
      return h("p", { class: "status-line", text: lang() === "en" && info.notice ? info.notice : t("tp.waiting") });
    }
    if (!d) return h("p", { class: "status-line", text: t("common.loading") });
    const phase = t(`table.phase.${d.phase}`);
    let who = "";
    if (d.to_move !== null && d.to_move !== undefined) {
      who = d.to_move === st.seat ? t("table.yourMove") : `${t("table.toMove")}: ${nameOf(d.to_move)}`;
    }
    return h("p", { class: "status-line", role: "status" }, `${t("table.deal")} ${info.deal_no || ""} · ${phase}`,
      who ? " · " : null, who ? h("strong", { text: who }) : null);
  }

  /** The contract, the whist calls and the tricks per seat; the auction as a compact history. */
  function contractBar() {
    const d = st.deal;
    if (!d || st.info.status !== "playing") return null;
    const parts = [];
    if (d.contract) parts.push(h("span", { class: "cb-contract" }, `${t("table.contract")}: `,
      h("strong", { class: callClass(d.contract), text: callText(d.contract) }), ` — ${nameOf(d.declarer)}`));
    else if (d.kind === "pass_out") parts.push(h("strong", { text: t("table.passOut") }));
    if (d.defence.length) {
      parts.push(h("span", {}, `${t("tp.defence")}: `,
        d.defence.map((a) => `${nameOf(a.seat)} — ${callText(a.call)}`).join(", ")));
    }
    if (["play", "done"].includes(d.phase) && d.tricks) {
      parts.push(h("span", { "data-testid": "tricks" }, `${t("tp.tricksBy")}: `,
        Object.entries(d.tricks).map(([s, n]) => `${nameOf(Number(s))} ${n}`).join(", ")));
    }
    const auction = d.auction.length ? h("div", { class: `auction-log${["auction"].includes(d.phase) ? "" : " compact"}`,
      "aria-label": t("table.bidding"), "data-testid": "auction" },
    h("span", { class: "lbl", text: `${t("tp.auction")}:` }),
    d.auction.map((a) => h("span", { class: callClass(a.call) }, `${nameOf(a.seat)}: ${callText(a.call)}`))) : null;
    if (!parts.length && !auction) return null;
    return h("div", { class: "contract-bar", "data-testid": "contract-bar" },
      parts.length ? h("div", { class: "cb-line" }, parts.map((p, i) => [i ? " · " : null, p])) : null, auction);
  }

  /** Countdown of the move timer (or the cut) when the server keeps a deadline for this table. */
  function timerView() {
    const d = st.deal;
    const deadline = meta.deadline_at || d?.deadline_at || null;
    if (!d || !deadline || st.info.status !== "playing" || d.to_move === null || d.to_move === undefined) return null;
    const at = Date.parse(deadline);
    if (!Number.isFinite(at)) return null;
    const mine = d.to_move === st.seat;
    const key = d.phase === "cut" ? "tp.cutTimer" : mine ? "tp.moveTimerMe" : "tp.moveTimer";
    const line = h("span", { class: "countdown", "data-deadline": at, "data-key": key });
    tick(h("div", {}, line));
    return h("div", { class: `move-timer${mine ? " mine" : ""}`, role: "timer", "data-testid": "move-timer" },
      line, h("span", { class: "small", text: ` ${t("tp.timeoutRule")}` }));
  }

  function awayBanner() {
    const seats = Object.keys(away).map(Number).filter((s) => s < names().length && s !== st.seat);
    if (!seats.length || st.info.status === "finished") return null;
    return h("div", { class: "away-banner", role: "status", "data-testid": "away" }, seats.map((seat) => {
      const el = h("div", { "data-since": away[seat].since, "data-key": away[seat].lower ? "tp.awayLong" : "tp.away",
        "data-name": nameOf(seat) });
      tick(h("div", {}, el));
      return el;
    }));
  }

  function trickView(cards, label, winner = null) {
    return h("div", { class: `trick${winner !== null ? " completed" : ""}`, "aria-label": label, role: "group",
      "data-testid": winner !== null ? "trick-done" : "trick" },
    (cards || []).map((c) => h("div", { class: `trick-card${winner !== null && c.seat === winner ? " winner" : ""}` },
      cardFace(c.card), h("span", { text: c.seat < 0 ? t("table.talon") : nameOf(c.seat) }))),
    winner !== null && winner >= 0 ? h("div", { class: "trick-winner", text: `${t("tp.trickDone")}: ${nameOf(winner)} ${t("tp.won")}` }) : null);
  }

  /** The current trick, or the one just completed while it stays on the cloth. */
  function trickArea() {
    const d = st.deal;
    const current = d?.trick || [];
    const playerLed = current.some((c) => c.seat >= 0);
    if (held && Date.now() < held.until && !playerLed) {
      return trickView(held.cards, t("table.lastTrick"), held.winner ?? -1);
    }
    held = null;
    if (current.length) return trickView(current, t("table.trick"));
    // nothing on the cloth yet: during the bidding the talon lies there face down
    return h("div", { class: "trick empty" }, d && d.phase === "auction" && d.talon === null
      ? h("div", { class: "cards", title: t("table.talon") }, cardBack(true), cardBack(true)) : null);
  }

  function lastTrickBox() {
    const d = st.deal;
    if (!d || !["play", "done"].includes(d.phase)) return null;
    const box = h("div", { class: "last-box" },
      h("h2", { id: "last-title", class: "sr-only", text: t("table.lastTrick") }),
      h("button", { type: "button", class: "small-btn", text: t("table.showLast"), "aria-controls": "last-trick",
        onclick: () => { if (lastTrick) { lastTrick = null; render(); } else send({ type: "last_trick" }); } }));
    if (lastTrick) {
      box.append(lastTrick.trick && lastTrick.trick.length
        ? h("div", { id: "last-trick", class: "last-trick" },
          h("div", { class: "cards" }, lastTrick.trick.map((c) => h("span", { class: "trick-card" },
            cardFace(c.card, { small: true }), h("span", { class: "small", text: c.seat < 0 ? t("table.talon") : nameOf(c.seat) })))),
          lastTrick.winner !== null ? h("p", { class: "small", text: `${t("tp.won")}: ${nameOf(lastTrick.winner)}` }) : null)
        : h("p", { class: "small", text: t("table.noLast") }));
    }
    return box;
  }

  function handView(cards, { mine, seat }) {
    const d = st.deal;
    const playable = new Set(legalOf("play_card").map((a) => a.card));
    // A-16: on a "преферанс" the first defender discards from the declarer's open hand
    const discardsFrom = d && d.bid === "preferans" ? d.declarer : st.seat;
    const discarding = legalOf("discard").length > 0 && (mine ? discardsFrom === st.seat : seat === discardsFrom);
    const sorted = sortHand(cards);
    const idOf = (card) => `card-${mine ? "me" : seat}-${card}`;
    return h("div", { class: "cards hand", role: "group", "aria-label": mine ? t("table.myHand") : nameOf(seat),
      "data-testid": mine ? "my-hand" : `open-hand-${seat}` },
      sorted.map((card) => {
        if (discarding) {
          return cardFace(card, { id: idOf(card), label: blind.label(card), selected: selected.has(card), onclick: () => {
            if (selected.has(card)) selected.delete(card);
            else if (selected.size < 2) selected.add(card);
            render();
          } });
        }
        if (!d || d.phase !== "play" || !playable.size) return cardFace(card, { label: blind.label(card) });
        const can = playable.has(card);
        return cardFace(card, { id: idOf(card), label: blind.label(card), playable: can, disabled: !can,
          onclick: (e) => move({ type: "play_card", card }, e.currentTarget) });
      }));
  }

  function bidBox() {
    const legal = new Set(legalOf("bid").map((a) => a.call));
    const box = h("div", { class: "bidbox", role: "group", "aria-label": t("table.bidding"), "data-testid": "bidbox" });
    // the preset's own box (GET /api/presets): its ladder, the calls with a name of their own
    // (K-4: 6♥ "преферанс"), the games without the talon (A-12), the special calls
    const rules = presetRules();
    for (const call of rules.ladder) {
      const named = rules.named_calls[call];
      const label = named ? `${callText(call)} ${t(named)}` : callText(call);
      box.append(h("button", { type: "button", class: named ? `${callClass(call)} named` : callClass(call),
        disabled: !legal.has(call), id: `bid-${call}`, "aria-label": label, dataset: { call }, text: label,
        onclick: (e) => move({ type: "bid", call }, e.currentTarget) }));
    }
    const noTalon = rules.ladder_no_talon && [...legal].some((c) => c.endsWith("BP"));
    if (noTalon) {  // A-12: games without the talon
      for (const call of rules.ladder.map((c) => `${c}BP`)) {
        box.append(h("button", { type: "button", class: callClass(call), disabled: !legal.has(call),
          id: `bid-${call}`, "aria-label": callText(call), dataset: { call }, text: callText(call),
          onclick: (e) => move({ type: "bid", call }, e.currentTarget) }));
      }
    }
    const bpOn = noTalon || legal.has("misere_bp");
    const specials = rules.special_calls.filter((call) => call !== "misere_bp" || bpOn);
    box.append(h("div", { class: "specials" }, specials.map((call) =>
      h("button", { type: "button", disabled: !legal.has(call), dataset: { call }, text: callText(call),
        id: `bid-${call}`, class: call === "pass" ? "primary" : "", onclick: (e) => move({ type: "bid", call }, e.currentTarget) }))));
    const dark = [...legal].filter((c) => c.startsWith("dark_"));  // A-10, A-11: before looking
    if (dark.length) {
      box.append(h("div", { class: "specials dark", "data-testid": "dark-calls", "aria-label": t("table.darkCalls") },
        h("span", { class: "small muted", text: t("table.darkCalls") }),
        dark.slice(0, 11).map((call) => h("button", { type: "button", dataset: { call }, text: callText(call),
          class: callClass(call), id: `bid-${call}`, onclick: (e) => move({ type: "bid", call }, e.currentTarget) }))));
    }
    return box;
  }

  function actionPanel() {
    const d = st.deal;
    const panel = h("div", { class: "panel", "aria-live": blind.on ? null : "polite", "data-testid": "actions" });
    if (!d || st.info.status !== "playing") {
      if (st.info.status === "waiting" && st.info.deal_no && st.seat !== null) {
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
      // a random position from the browser's crypto source; or the default: the server cuts in
      // the middle (`"auto": true`), as the move timer does when the countdown runs out (a
      // table without a timer calls it what it is, a cut in the middle)
      const timed = Boolean(meta.move_timer_seconds);
      const random = () => {
        const pick = new Uint32Array(1);
        crypto.getRandomValues(pick);
        send({ type: "cut", position: positions[pick[0] % positions.length] });
      };
      panel.append(h("h2", { text: t("table.cut") }), h("p", { class: "small", text: t("table.cutHint") }),
        h("div", { class: "actions" }, range, out,
          h("button", { type: "button", class: "primary", text: t("table.cut"),
            onclick: () => send({ type: "cut", position: Number(range.value) }) }),
          h("button", { type: "button", id: "cut-random", text: t("tp.cutRandom"), onclick: random }),
          h("button", { type: "button", id: "cut-auto", text: t(timed ? "tp.cutAuto" : "tp.cutMiddle"),
            title: t(timed ? "tp.cutAutoHint" : "tp.cutMiddleHint"),
            "data-testid": "cut-auto", onclick: () => send({ type: "cut", auto: true }) })),
        h("p", { class: "small muted", text: t(timed ? "tp.cutAutoHint" : "tp.cutMiddleHint") }));
    }
    if (legalOf("pick_up").length) {  // A-10, A-11: the cards lie face down until picked up
      handled.add("pick_up");
      panel.append(h("p", { class: "small", text: t("table.faceDown") }),
        h("button", { type: "button", class: "primary", id: "pick-up", text: t("table.pickUp"),
          onclick: () => send({ type: "pick_up" }) }));
    }
    if (d.phase === "auction") {
      handled.add("bid");
      // R-T6: the four-player dealer, and at five also the seat opposite him, hold no cards:
      // words instead of a box of disabled bids
      const out = st.seat !== null && d.players >= 4 && d.hand_sizes
        && Object.keys(d.hand_sizes).length && !(String(st.seat) in d.hand_sizes)
        && !legalOf("bid").length;
      // A-3 (arabic): an opening round is a pass-out without bidding; say why only «Пас» is live
      const bombRound = d.min_level > 10
        ? h("p", { class: "small", "data-testid": "bomb-round", text: t("tp.bombRound", { f: st.info.bomb_factor ?? 2 }) })
        : null;
      panel.append(h("h2", { text: t("table.bidding") }), bombRound, out
        ? h("p", { class: "small", "data-testid": "sits-out",
          text: t(st.seat === d.dealer ? "table.youDealAndSitOut" : "table.youSitOut", { dealer: nameOf(d.dealer) }) })
        : bidBox());
    }
    const take = `table.${presetRules().talon}Talon`;  // take (R-C1) or buy (K-5)
    for (const [type, key] of [["take_talon", take], ["return_talon", "table.returnTalon"]]) {
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
            text: callText(call), onclick: (e) => move({ type: "name_contract", contract: call }, e.currentTarget) }));
        }
      }
      box.append(h("div", { class: "specials" },
        h("button", { type: "button", disabled: !legal.has("misere"), dataset: { call: "misere" }, text: callText("misere"),
          onclick: (e) => move({ type: "name_contract", contract: "misere" }, e.currentTarget) })));
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
          dataset: { call: a.call }, text: callText(a.call), onclick: (e) => move({ type: "defend", call: a.call }, e.currentTarget) })),
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
      // R-W11: one button per claim the server offers, in the words said at the table
      panel.append(h("div", { class: "actions", role: "group", "aria-label": t("table.claim") },
        claims.map((a) => h("button", { type: "button", dataset: { claim: a.tricks },
          text: claimWords({ kind: d.kind, declarer: d.declarer, seat: st.seat, tricks: a.tricks }),
          onclick: () => send({ type: "claim", tricks: a.tricks }) }))));
    }
    // anything the protocol allows that this page has no special control for
    const rest = st.legal.filter((a) => !handled.has(a.type) && a.type !== "propose_result");
    if (rest.length) {
      panel.append(h("div", { class: "actions" }, rest.slice(0, 12).map((a, i) => h("button", { type: "button",
        text: actionText(a, i), onclick: () => send({ ...a }) }))));
    }
    if (practice && myMove()) panel.append(hintBox());
    return panel.childNodes.length ? panel : null;
  }

  // The suggested call or card in words (cards.js's labels: the page's language).
  function hintWords(a) {
    if (a.card) return cardLabel(a.card);
    if (a.cards) return a.cards.map(cardLabel).join(", ");
    if (a.call) return callText(a.call);
    if (a.contract) return callText(a.contract);
    if (a.type === "cut") return `${t("table.cut")}: ${a.position}`;
    return a.type;
  }

  function hintBox() {
    const shown = hint && hint.seq === st.seq ? hint.text : null;
    return h("div", { class: "actions hint", "data-testid": "hint" },
      h("button", { type: "button", text: t("hint.button"), onclick: async () => {
        const seq = st.seq;
        hint = { seq, text: t("hint.loading") };
        render();
        const out = await post(`/api/tables/${tableId}/hint`).catch((err) => ({ error: err }));
        hint = { seq, text: out?.action ? t("hint.suggest", { what: hintWords(out.action) })
          : out?.error?.status === 503 ? t("hint.busy") : null };
        render();
      } }),
      shown ? h("span", { class: "muted", text: shown }) : null);
  }

  function renderTabs() {
    clear(tabs).append(...[["table", "tp.tab.table"], ["sheet", "tp.tab.sheet"], ["chat", "tp.tab.chat"]].map(([key, label]) =>
      h("button", { type: "button", class: `tab${tab === key ? " active" : ""}`, "aria-pressed": tab === key ? "true" : "false",
        "data-tab": key, text: t(label), onclick: () => { tab = key; page.dataset.tab = key; renderTabs(); } })));
  }

  function helpPopover() {
    const button = h("button", { type: "button", class: "link keys-btn", "aria-expanded": helpOpen ? "true" : "false",
      "aria-controls": "keys-help", text: `⌨ ${t("tp.keys")}`, onclick: () => { helpOpen = !helpOpen; render(); } });
    const sound = h("button", { type: "button", class: "link sound-btn", "aria-pressed": soundOn() ? "true" : "false",
      title: t("tp.sound"), text: soundOn() ? t("tp.soundOn") : t("tp.soundOff"),
      onclick: () => { setSound(!soundOn()); if (soundOn()) beep(); render(); } });
    const help = helpOpen ? h("div", { class: "keys-help", id: "keys-help", role: "dialog", "aria-label": t("tp.keysTitle") },
      h("strong", { text: t("tp.keysTitle") }),
      h("ul", {}, ["tp.keysBid", "tp.keysPass", "tp.keysDefend", "tp.keysCards", "tp.keysHelp"].map((k) =>
        h("li", { text: t(k) })))) : null;
    return [blind.toggle(), sound, button, help];
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
    clear(feltBody).append(...[
      h("div", { class: "table-head" },
        h("h1", {}, `${t("table.t")} ${tableId}`),
        st.info.preset ? h("span", { class: "badge", "data-testid": "preset",
          title: t("preset.label"), text: presetTitle(st.info.preset) }) : null,
        h("span", { class: "conn" }),
        h("span", { class: "head-tools" }, helpPopover()),
        h("a", { href: "#/lobby", text: t("table.back") })),
      awayBanner(),
      st.info.status === "finished" ? null : extension?.view(memberName),
      h("div", { class: "opponents" }, others.map((seat) => seatBox(seat))),
      h("div", { class: "center" },
        statusLine(),
        contractBar(),
        timerView(),
        talon ? h("div", { "aria-label": t("table.talon") }, h("div", { class: "small", text: t("table.talon") }),
          h("div", { class: "cards", "data-testid": "talon" }, talon.map((c) => cardFace(c, { small: true })))) : null,
        trickArea(),
        lastTrickBox(),
        d && d.discard && st.seat === d.declarer ? h("div", { class: "small" }, `${t("table.discard")}: `,
          h("span", { class: "cards" }, d.discard.map((c) => cardFace(c, { small: true })))) : null),
      openHands.length ? h("div", { class: "open-hands" }, openHands.map(([seat, cards]) =>
        h("div", {}, h("div", { class: "small", text: `${nameOf(Number(seat))} — ${t("table.handsOpen")}` }),
          handView(cards, { mine: false, seat: Number(seat) })))) : null,
      h("div", { class: "hand-area" },
        seatBox(mySeat),
        st.seat === null ? h("p", { class: "muted small", text: t("table.spectator") }) : null,
        d && d.hand && d.hand.length ? handView(d.hand, { mine: true, seat: st.seat }) : null),
      actionPanel(),
      currentCheck()].filter(Boolean));
    renderHead();
  }

  /** The commitment of the running deal, announced before the cut, behind «verify the deal». */
  function currentCheck() {
    const d = st.deal;
    if (!d?.commitment || d.finished) return null;
    return h("details", { class: "verify small", "data-testid": "verify-current" },
      h("summary", { text: t("tp.verify") }),
      h("p", { text: t("tp.verifyPending") }), h("code", { class: "commit", text: d.commitment }));
  }

  function renderSide() {
    const info = st.info;
    const n = info.players || st.deal?.players || 3;
    const sheetCard = h("section", { class: "card sheet-card side-sheet", "aria-labelledby": "sheet-title", "data-testid": "sheet" },
      h("h2", { id: "sheet-title", text: t("table.sheet") }),
      info.preset ? h("p", { class: "small muted", "data-testid": "sheet-preset", text: `${t("lobby.preset")}: ${presetTitle(info.preset)}` }) : null,
      h("div", { class: "sheet-scroll" },
        drawPulka({ players: n, names: names(), seat: st.seat, target: info.target ?? "", sheet: info.sheet, lines })),
      bombsView(n),
      balanceView(n));
    if (info.settlement) sheetCard.append(settlementView(info.settlement));
    const side2 = [sheetCard];
    if (info.last_deal) side2.push(lastDealBox(info.last_deal));
    side2.push(chatBox());
    side2.push(h("p", { class: "small muted side-presence" }, `${t("table.connected")}: `,
      presence.connected.map((s) => nameOf(s)).join(", ") || "—",
      presence.spectators ? ` · ${t("table.spectators")}: ${presence.spectators}` : ""));
    clear(side).append(...side2);
  }

  /** The running whist balance of every player if the pulka were closed now (R-P4). */
  // R-A1, R-A2 (arabic): each player's bombs, as the paper marks them by his name, and what
  // his next game as declarer is multiplied by; nothing under a rule set without bombs.
  function bombsView(n) {
    const marks = st.info.seat_marks;
    if (!Array.isArray(marks) || !marks.some((m) => m && m.bombs)) return null;
    return h("div", { class: "bombs-box", "data-testid": "bombs" },
      h("h3", { text: t("tp.bombs") }),
      h("ul", { class: "balance-list" }, marks.slice(0, n).map((m, i) => h("li", {},
        h("span", { text: nameOf(i) }),
        h("strong", { text: m.bombs ? t("tp.bombsOf", { n: m.bombs, f: m.next_game }) : "—" })))));
  }

  // R-P4, R-P9: the server settles the pulka as it stands by the table's own closing rule
  // (sheet-lines' `balance`), and the hint names that rule
  function balanceView(n) {
    if (!balance?.balance?.length || st.info.settlement) return null;
    const whists = balance.balance.map(Number);
    return h("div", { class: "balance-box", "data-testid": "balance" },
      h("h3", { text: t("tp.balance") }),
      h("ul", { class: "balance-list" }, whists.slice(0, n).map((b, i) => h("li", { class: b < 0 ? "neg" : "" },
        h("span", { text: nameOf(i) }), h("strong", { text: signed(b) })))),
      h("p", { class: "small muted", "data-testid": "balance-hint", text: t(`tp.balanceHint.${balance.closing}`) }));
  }

  function lastDealBox(last) {
    const o = last.outcome || {};
    let text = `${t("table.deal")} ${last.deal_no}: `;
    if (o.type === "pass_out") text += t("table.passOut");
    else if (o.contract) text += `${callText(o.contract)} — ${nameOf(o.declarer)} (${kindText(o)})`;
    else text += kindText(o);
    const defence = o.defence ? Object.entries(o.defence).map(([s, c]) => `${nameOf(Number(s))}: ${callText(c)}`).join(", ") : "";
    const tricks = o.tricks ? Object.entries(o.tricks).map(([s, k]) => `${nameOf(Number(s))} ${k}`).join(", ") : "";
    const columns = { pool: t("table.pool"), hill: t("table.hill"), whists: t("table.whists") };
    const all = last.entries || [];
    const entries = all.map((e) => {
      const who = e.column === "whists" ? `${nameOf(e.seat)} → ${nameOf(e.on)}` : nameOf(e.seat);
      const amount = signedWhists(e.amount);
      return h("li", {}, `${who}: ${columns[e.column] || e.column} ${amount} `,
        h("span", { class: "rule-word", text: `— ${entryWords(e, all)}` }));
    });
    return h("section", { class: "card deal-result side-sheet", "data-testid": "last-deal" },
      h("h2", { text: t("table.dealEnded") }), h("p", { text }),
      defence ? h("p", { class: "small", text: defence }) : null,
      tricks ? h("p", { class: "small", text: `${t("table.tricks")}: ${tricks}` }) : null,
      entries.length ? h("ul", { class: "small entries" }, entries) : null,
      verifyBox(last.deal_no),
      analysisBox(last.deal_no));
  }

  /**
   * Fetch the analysis of finished deal `dealNo` (GET /api/pulkas/{pulka}/deals/{n}/analysis).
   * The first request computes it for a few seconds in the server's worker pool; `busy` (the
   * pool is full) or any refusal is told by its code and the button comes back.
   */
  async function loadAnalysis(dealNo) {
    analyses[dealNo] = { loading: true };
    render();
    const result = await attempt(async () => {
      if (!pulkaId) pulkaId = (await get(`/api/tables/${tableId}/pulka`)).id;
      return get(analysisPath(pulkaId, dealNo));
    });
    if (result) analyses[dealNo] = { result };
    else delete analyses[dealNo];
    render();
  }

  /** «Разбор сдачи»: a button under the finished deal, then the analysis itself (R-W8: this
   * box exists only for a deal whose end the server announced). */
  function analysisBox(dealNo) {
    const got = analyses[dealNo];
    if (!got?.result) {
      return h("div", { class: "deal-analysis", "data-testid": "deal-analysis" },
        h("button", { type: "button", id: "deal-analysis-load", class: "small-btn", disabled: Boolean(got?.loading),
          text: t("tp.analysis"), onclick: () => loadAnalysis(dealNo) }),
        got?.loading ? h("p", { class: "small", role: "status", text: t("analysis.loading") }) : null);
    }
    const shut = (closed) => { if (closed) analysisShut.add(dealNo); else analysisShut.delete(dealNo); };
    const details = h("details", { class: "deal-analysis", "data-testid": "deal-analysis", open: !analysisShut.has(dealNo) },
      h("summary", { text: t("tp.analysisOf", { n: dealNo }), onclick: () => shut(details.open) }),
      analysisView(got.result, nameOf), playedTricks(got.result, nameOf));
    details.addEventListener("toggle", () => {  // as the verify box: the click decides
      if (!details.isConnected) return;
      if (details.open) analysisShut.delete(dealNo);
      else analysisShut.add(dealNo);
    });
    return details;
  }

  /** Run the browser's own check of the finished deal `no` (optionally with changed reveal fields). */
  async function verifyFinished(overrides = null) {
    const fin = st.info.finished_deal;
    if (!fin?.reveal) return null;
    return verifyDeal({ ...fin.reveal, ...(overrides || {}) }, fin.seen || {});
  }

  /**
   * A page opened after the deal ended has not seen its reveal: fetch it from the archive
   * (GET /api/tables/{id}/pulka for the pulka id, then /api/pulkas/{id}/deals/{no}). The check
   * then compares with the commitment this browser remembered before the cut, if it did.
   */
  async function fetchReveal(dealNo) {
    fetchedReveal.add(dealNo);
    const pulka = await get(`/api/tables/${tableId}/pulka`).catch(() => null);
    const deal = pulka?.id ? await get(`/api/pulkas/${pulka.id}/deals/${dealNo}`).catch(() => null) : null;
    if (!deal?.reveal) return;
    st.info.finished_deal = { deal_no: dealNo, reveal: deal.reveal, seen: { ...(st.seen[dealNo] || {}) } };
    save();
    verifyFinished().then((result) => {
      verified[dealNo] = result;
      render();
    });
  }

  function verifyBox(dealNo) {
    const fin = st.info.finished_deal;
    const usable = fin && fin.deal_no === dealNo && fin.reveal;
    // The open state is taken at the click, not at the "toggle" event that follows it a task
    // later: a page re-rendered in between (any message) would otherwise be drawn open again,
    // and a stale element's event must not overwrite the state either.
    const details = h("details", { class: "verify", "data-testid": "verify-deal", open: verifyOpen },
      h("summary", { text: t("tp.verify"), onclick: () => { verifyOpen = !details.open; } }));
    details.addEventListener("toggle", () => {
      if (!details.isConnected) return;
      verifyOpen = details.open;
      if (details.open && !usable && !fetchedReveal.has(dealNo)) fetchReveal(dealNo);
      if (details.open && usable && !verified[dealNo]) {
        verifyFinished().then((result) => {
          verified[dealNo] = result;
          render();
        });
      }
    });
    if (!usable) {
      details.append(h("p", { class: "small", text: t("tp.verifyNoData") }));
      return details;
    }
    const result = verified[dealNo];
    const r = fin.reveal;
    details.append(h("p", { class: "small", text: t("tp.verifyIntro") }));
    if (result) {
      details.append(h("p", { class: `verdict ${result.ok ? "good" : "bad"}`, "data-testid": "verdict",
        text: result.ok ? `✓ ${t("tp.verifyOk")}` : `✗ ${t("tp.verifyBad")}` }),
      h("ul", { class: "checks" }, result.checks.map((c) => h("li", { class: c.ok ? "good" : "bad", "data-check": c.key },
        `${c.ok ? "✓" : "✗"} ${t(`tp.check.${c.key}`)}`))));
    } else {
      details.append(h("p", { class: "small", text: t("common.loading") }));
    }
    details.append(h("button", { type: "button", class: "small-btn", text: t("tp.verifyRun"), onclick: () => {
      delete verified[dealNo];
      verifyFinished().then((out) => { verified[dealNo] = out; render(); });
    } }),
    h("div", { class: "reveal-data small" },
      h("p", {}, `${t("tp.hash")}: `, h("code", { text: fin.seen?.commitment || r.commitment })),
      h("p", {}, `${t("tp.salt")}: `, h("code", { text: r.salt })),
      h("p", {}, `${t("tp.cutAt")}: ${r.cut}`),
      h("p", {}, `${t("tp.deck")}: `, h("span", { class: "deck-text", title: (r.deck || []).join(" "),
        text: (r.deck || []).map(cardLabel).join(" ") }))));
    return details;
  }

  /** A number as the page's language writes it (a decimal comma in Russian). */
  function settlementView(settlement) {
    const rows = (settlement.whists || []).map((w, i) => h("tr", {},
      h("td", { text: nameOf(i) }), h("td", { text: formatWhists(w) }),
      h("td", { text: formatWhists(settlement.rounded?.[i] ?? "") }),
      h("td", { text: formatMoney(settlement.money?.[i] ?? "") })));
    return h("div", { class: "settle-box", "data-testid": "settlement" },
      h("p", { class: "ended", text: endedText(st.info.ended, st.info.notice) }),
      h("ul", { class: "settle-words" }, settlementLines(settlement, nameOf).map((line) => h("li", { text: line }))),
      h("table", { class: "settlement", "aria-label": t("table.settlement") },
        h("thead", {}, h("tr", {}, h("th", { text: t("table.settlement") }), h("th", { text: t("table.whists") }),
          h("th", { text: "≈" }), h("th", { text: t("table.money") }))),
        h("tbody", {}, rows)));
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
    return h("section", { class: "card side-chat", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title", text: t("table.chat") }),
      h("div", { class: "chat-log", "aria-live": blind.on ? null : "polite" },
        (info.chat || []).map((line) => h("p", {}, h("strong", { text: `${line.name}: ` }), line.text))),
      open ? null : h("p", { class: "muted small", text: t("tp.chatClosed") }),
      form);
  }

  // -- keyboard ------------------------------------------------------------------------------

  function clickIf(selector) {
    const el = felt.querySelector(selector);
    if (el && !el.disabled) {
      el.click();
      return true;
    }
    return false;
  }

  /** Calls, whist/pass and cards from the keyboard (the help popover lists the keys). */
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
    if (event.key === "?") {
      helpOpen = !helpOpen;
      render();
      event.preventDefault();
      return;
    }
    if (blind.key(event)) {
      event.preventDefault();
      return;
    }
    if (event.key === "Escape") {
      helpOpen = false;
      pendingLevel = null;
      render();
      return;
    }
    const code = event.code;
    const d = st.deal;
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      const cards = [...felt.querySelectorAll("[data-testid=my-hand] button.card-face:not(:disabled), [data-testid^=open-hand-] button.card-face:not(:disabled)")];
      if (!cards.length) return;
      const at = cards.indexOf(document.activeElement);
      const step = event.key === "ArrowRight" ? 1 : -1;
      const next = at < 0 ? (step > 0 ? 0 : cards.length - 1) : (at + step + cards.length) % cards.length;
      cards[next].focus();
      event.preventDefault();
      return;
    }
    if (!d) return;
    if (d.phase === "auction" || legalOf("name_contract").length) {
      const prefix = d.phase === "auction" ? "bid" : "contract";
      if (code in KEY_LEVELS) {
        pendingLevel = KEY_LEVELS[code];
        event.preventDefault();
        return;
      }
      if (pendingLevel && code in KEY_STRAINS) {
        clickIf(`#${prefix}-${pendingLevel}${KEY_STRAINS[code]}`);
        pendingLevel = null;
        event.preventDefault();
        return;
      }
      pendingLevel = null;
      if (code === "KeyP" && clickIf("#bid-pass")) event.preventDefault();
      else if (code === "KeyM" && (clickIf(`#${prefix}-misere`) || clickIf("[data-testid=actions] button[data-call=misere]"))) event.preventDefault();
      else if (code === "KeyE" && clickIf("#bid-here")) event.preventDefault();
      return;
    }
    const calls = { KeyW: "whist", KeyP: "pass", KeyH: "half" };
    if (code in calls && clickIf(`[data-testid=actions] button[data-call=${calls[code]}]`)) event.preventDefault();
  }
  document.addEventListener("keydown", onKey);

  function render() {
    const focused = document.activeElement?.id;
    renderFelt();
    keepSent();
    renderSide();
    if (focused) document.getElementById(focused)?.focus();
    const mine = myMove();
    document.title = `${mine ? `${t("tp.yourMoveTitle")} · ` : ""}${t("table.t")} ${tableId} · ${t("brand")}`;
    if (mine && !wasMyMove && soundOn()) beep();
    wasMyMove = mine;
  }

  // For a person at the console (and the browser tests): the page's own check of the last
  // finished deal (with reveal fields replaced, to see a tampered deal fail), its reveal, and a
  // raw command through this page's socket.
  window.prefclubTable = {
    verifyLast: (overrides) => verifyFinished(overrides),
    lastReveal: () => st.info.finished_deal?.reveal ?? null,
    send: (command) => socket.send(command),
    seat: () => st.seat,
    declarer: () => st.deal?.declarer ?? null,
  };
  renderTabs();
  render();
  socket.connect();  // the snapshot and the sheet's lines are asked at once
  loadMeta();
  await attempt(loadLines);
  if (clubTable) extension = extensionAsk(tableId, me, render);
  return () => {
    extension?.stop();
    socket.close();
    clearInterval(ticker);
    clearTimeout(metaTimer);
    document.removeEventListener("keydown", onKey);
    delete window.prefclubTable;
    document.title = t("brand");
  };
}
