// The table page (docs/browser.md «The table page»): the coordinator of its parts. It holds the
// state (table/state.js), takes the socket's messages (table/socket.js, docs/protocol.md), reads
// the sheet's lines and the move deadline, and after each change asks every part to update:
// a part redraws only when its own slice of the state changed (table/part.js), so a chat line
// or a presence change does not rebuild the hand or the bidding box (issue 28). The parts: the
// head, the banners, the seats, the status and contract bar, the move timer, the cloth, the
// hands, the controls, the running deal's check; on the side the sheet, the last deal with its
// check and analysis, the chat, who is connected. A move is shown at once (table/pending.js),
// the blind mode (table/blind.js) is fed every message, and a reload resumes from the last seq.
import { get, post } from "../api.js";
import { attempt, notify } from "../app.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { loadPresets, presetList, presetOf } from "../presets.js";
import { actions } from "../table/actions.js";
import { awayClock, awayPart, extensionPart } from "../table/banners.js";
import { blindMode } from "../table/blind.js";
import { chatPart } from "../table/chat.js";
import { cloth } from "../table/cloth.js";
import { extensionAsk } from "../table/extension.js";
import { beep, soundOn, tick } from "../table/extras.js";
import { hands } from "../table/hand.js";
import { tableHead, tableTabs } from "../table/head.js";
import { tableKeys } from "../table/keys.js";
import { currentCheckPart, lastDeal } from "../table/last-deal.js";
import { updateAll } from "../table/part.js";
import { sentButton, showSent } from "../table/pending.js";
import { opponentsPart, presencePart } from "../table/seats.js";
import { sheetPart } from "../table/sheet-panel.js";
import { TableSocket } from "../table/socket.js";
import { emptyState, fromSnapshot, rememberSeen, withEvent } from "../table/state.js";
import { contractPart, statusPart } from "../table/status.js";
import { timerPart } from "../table/timers.js";
import { errorText, signed } from "../table/words.js";

export async function renderTable(root, { args, me }) {
  const tableId = Number(args[0]);
  const storeKey = `prefclub.table.${tableId}.${me.id}`;
  let st = loadStored() || emptyState();
  st.seen = st.seen || {};
  let conn = "connecting";
  // The socket opens and the sheet's lines are asked at once, beside the table's and the presets'
  // requests (issue 28: the first render); what comes before the parts are made waits for them.
  const early = [];
  let onMessage = (msg) => early.push(msg);
  let onStatus = (state) => { conn = state; };
  const socket = new TableSocket(tableId, { status: (state) => onStatus(state), message: (msg) => onMessage(msg) },
    () => st.seq);
  socket.connect();
  const firstLines = get(`/api/ui/tables/${tableId}/sheet-lines`).catch(() => null);
  // A real-cards table is recorded, not played here (RULES.md §10): its page is #/recording/<id>.
  const [kind] = await Promise.all([get(`/api/tables/${tableId}`).catch(() => null), loadPresets()]);
  if (kind?.mode === "recorded") {
    socket.close();
    location.replace(`#/recording/${tableId}`);
    return undefined;
  }
  let presence = { connected: [], spectators: 0 };
  let sheet = { lines: null, balance: null }; // sheet-lines: the lines, the pulka settled as it stands
  let meta = { move_timer_seconds: null, deadline_at: null }; // GET /api/tables/{id}
  let sent = null; // the move sent and shown as made, until the server answers: {seq, command}
  let wasMyMove = false;
  let metaTimer = null;
  const selected = new Set(); // the cards chosen for the discard
  const away = awayClock();
  const practice = Boolean(kind?.practice);
  const clubTable = Boolean(kind && !kind.practice && kind.club_session_id);

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

  const names = () => st.info.names || [];
  const nameOf = (seat) => names()[seat] || `${t("table.seat")} ${seat + 1}`;
  const seatCount = () => st.info.players || st.deal?.players || 3;
  const myMove = () => st.seat !== null && st.info.status === "playing" && st.legal.length > 0
    && st.deal && st.deal.to_move === st.seat;
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

  /** What the parts read: the state (live getters) and the page's few shared helpers. */
  const ctx = {
    tableId,
    get st() { return st; },
    get presence() { return presence; },
    get conn() { return conn; },
    blind: null,
    extension: null,
    names,
    nameOf,
    seatNames: () => Array.from({ length: Math.max(seatCount(), names().length) }, (_, seat) => nameOf(seat)),
    memberName: (id) => {
      const seat = kind?.seats?.find((s) => s.member_id === id);
      return seat ? nameOf(seat.seat) : `#${id}`;
    },
    legalOf: (type) => st.legal.filter((a) => a.type === type),
    myMove,
    send,
    save,
    /** The table's preset as the server describes it (GET /api/presets). */
    presetRules: () => presetOf(st.info.preset) ?? presetList()[0],
    moveTimer: () => meta.move_timer_seconds,
    deadline: () => meta.deadline_at || st.deal?.deadline_at || null,
  };

  const head = tableHead(ctx, render);
  const onCloth = cloth(ctx, render);
  const hand = hands(ctx, { selected, move, redraw: render });
  const last = lastDeal(ctx, { pulkaId: kind?.pulka?.id ?? null, redraw: render });
  const feltParts = [head.part, awayPart(ctx, away), extensionPart(ctx), opponentsPart(ctx)];
  const centerParts = [statusPart(ctx), contractPart(ctx), timerPart(ctx), ...onCloth.parts];
  const tailParts = [actions(ctx, { selected, move, redraw: render, practice }), currentCheckPart(ctx)];
  const sideParts = [sheetPart(ctx, () => sheet), last.part, chatPart(ctx), presencePart(ctx)];
  const allParts = [...feltParts, ...centerParts, hand.openHands, ...hand.handArea, ...tailParts, ...sideParts];
  const nodes = (parts) => parts.map((one) => one.node);

  const feltBody = h("div", { class: "felt-body" }, nodes(feltParts),
    h("div", { class: "center" }, nodes(centerParts)),
    hand.openHands.node,
    h("div", { class: "hand-area" }, nodes(hand.handArea)),
    nodes(tailParts));
  const felt = h("section", { class: "felt", "aria-label": `${t("table.t")} ${tableId}` }, feltBody);
  const side = h("aside", { class: "side" }, nodes(sideParts));
  const tabs = tableTabs((tab) => { page.dataset.tab = tab; });
  const page = h("div", { class: "table-page", "data-tab": "table" }, tabs, felt, side);
  root.append(page);
  const ticker = setInterval(() => tick(page), 1000);

  // the blind member's log and command line (table/blind.js): made once, fed every message
  const blind = blindMode({
    state: () => st,
    nameOf,
    myMove,
    deadline: ctx.deadline,
    balance: () => sheet.balance?.balance ?? null,
    signed: (n) => signed(n),
    send,
    rerender: () => render(),
    place: (box) => felt.append(box),
    hint: practice ? async () => {
      const out = await post(`/api/tables/${tableId}/hint`).catch((err) => ({ error: err }));
      return out?.action ?? (out?.error?.status === 503 ? "busy" : null);
    } : null,
  });
  ctx.blind = blind;

  /** The sheet's lines into the state, then a redraw (`asked`: the request already under way). */
  async function loadLines(asked = null) {
    const out = await (asked ?? get(`/api/ui/tables/${tableId}/sheet-lines`).catch(() => null));
    if (out) {
      if (!st.info.last_deal && out.last_deal) st.info.last_deal = out.last_deal;
      // R-A1, A-3: the bombs and the opening round's factor change only when a deal ends
      if ("seats" in out) st.info.seat_marks = out.seats;
      if ("bomb_factor" in out) st.info.bomb_factor = out.bomb_factor;
      sheet = { lines: out.lines, balance: { balance: out.balance, closing: out.closing } };
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

  function handle(msg) {
    switch (msg.type) {
      case "welcome":
        st.seat = msg.seat;
        return;
      case "snapshot":
        st = fromSnapshot(st, msg);
        selected.clear();
        afterUpdate(false, msg.table);
        loadLines();
        loadMeta();
        render();
        blind.snapshot();
        return;
      case "presence":
        presence = msg;
        away.note(msg, seatCount(), st.seat);
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
        render({ force: true });  // a move shown as sent (table/pending.js) is undone: every part as it was
        return;
      case "last_trick":
        onCloth.showLast(msg);
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
    if (msg.type === "deal_ended") last.foldCheck();
    if (msg.type === "deal_started") onCloth.forgetLast();
    // the server moved for a player whose move timer ran out
    if (msg.type === "action" && msg.data?.auto) notify(`${nameOf(msg.data.seat)}: ${t("table.auto")}`, "info");
    st = withEvent(st, msg);
    if (msg.type !== "action" || !ctx.legalOf("discard").length) selected.clear();
    afterUpdate(true, msg.table);
    if (["deal_ended", "pulka_ended", "player_joined", "player_replaced"].includes(msg.type)) loadLines();
    if (["deal_started", "deal_ended", "deal_refused"].includes(msg.type)) ctx.extension?.reload();
    if (meta.move_timer_seconds && !(msg.table && "deadline_at" in msg.table)) loadMeta();
    render();
    blind.event(msg);
  }

  /** Take in a new deal state: the deadline, what this browser saw, a trick just completed. */
  function afterUpdate(live, table) {
    if (table && "deadline_at" in table) meta = { ...meta, deadline_at: table.deadline_at };
    rememberSeen(st);
    onCloth.hold(st.deal, st.info.deal_no, live);
    save();
  }

  /** Until the server answers, a redrawn hand or box keeps the sent move shown. */
  function keepSent() {
    if (!sent || sent.seq !== st.seq) {
      sent = null;
      return;
    }
    const button = felt.querySelector(sentButton(sent.command));
    if (button) showSent(felt, button, sent.command, nameOf(st.seat));
  }

  /** Update every part (`force`: redraw them all), keep the focus, the title and the turn tone. */
  function render({ force = false } = {}) {
    const focused = document.activeElement?.id;
    updateAll(allParts, force);
    keepSent();
    if (focused && document.activeElement?.id !== focused) document.getElementById(focused)?.focus();
    const mine = myMove();
    document.title = `${mine ? `${t("tp.yourMoveTitle")} · ` : ""}${t("table.t")} ${tableId} · ${t("brand")}`;
    if (mine && !wasMyMove && soundOn()) beep();
    wasMyMove = mine;
  }

  const onKey = tableKeys(ctx, { felt, head, redraw: render });
  document.addEventListener("keydown", onKey);

  // For a person at the console (and the browser tests): the page's own check of the last
  // finished deal (with reveal fields replaced, to see a tampered deal fail), its reveal, and a
  // raw command through this page's socket.
  window.prefclubTable = {
    verifyLast: (overrides) => last.verifyFinished(overrides),
    lastReveal: () => st.info.finished_deal?.reveal ?? null,
    send: (command) => socket.send(command),
    seat: () => st.seat,
    declarer: () => st.deal?.declarer ?? null,
  };
  render();
  onStatus = (state) => {
    conn = state;
    head.part.update();
  };
  onMessage = handle;
  for (const msg of early.splice(0)) handle(msg);
  loadMeta();
  await attempt(() => loadLines(firstLines));
  if (clubTable) ctx.extension = extensionAsk(tableId, me, render);
  return () => {
    ctx.extension?.stop();
    socket.close();
    clearInterval(ticker);
    clearTimeout(metaTimer);
    document.removeEventListener("keydown", onKey);
    delete window.prefclubTable;
    document.title = t("brand");
  };
}
