// The table page's state and how each sequenced message changes it: `seq`, this connection's
// `seat`, the `deal` and the `legal` moves as the server last sent them, the table's `info`
// (names, chat, the last deal, the settlement, …) and `seen`, what this browser saw of each
// recent deal for the deal check (R-D4: the commitment before the cut, the cut, its own hand as
// dealt). Pure functions: the page keeps the state and gives it to its parts.

/** How many recent deals' `seen` are kept. */
const SEEN_DEALS = 3;
/** How many chat lines are kept. */
const CHAT_LINES = 50;

export function emptyState() {
  return { seq: null, seat: null, deal: null, legal: [], info: {}, seen: {} };
}

/** The state a `snapshot` gives (a finished deal's reveal and `seen` are kept). */
export function fromSnapshot(st, msg) {
  return { seq: msg.seq, seat: msg.seat, deal: msg.deal, legal: msg.legal || [],
    info: { finished_deal: st.info.finished_deal, ...msg.table }, seen: st.seen || {} };
}

/** The state after the sequenced event `msg` (the caller drops events it has seen). */
export function withEvent(st, msg) {
  const info = { ...st.info, ...(msg.table || {}) };
  const data = msg.data || {};
  if (msg.type === "pulka_started") Object.assign(info, { names: data.names, players: data.players });
  if (msg.type === "chat") info.chat = [...(info.chat || []), { seq: msg.seq, ...data }].slice(-CHAT_LINES);
  if (msg.type === "deal_ended") {
    info.chat = [];
    info.last_deal = data;
  }
  if (msg.type === "pulka_ended") Object.assign(info, { settlement: data.settlement, ended: data.ended });
  let seat = st.seat;
  if (msg.type === "player_joined" || msg.type === "player_replaced") {
    // R-T4 / R-T5: the seating changed; this connection's seat comes with the event.
    Object.assign(info, { names: data.names, players: data.players });
    if ("seat" in msg) seat = msg.seat;
  }
  return { ...st, seq: msg.seq, seat, deal: msg.deal, legal: msg.legal || [], info };
}

/**
 * Remember in `st.seen` what this browser saw of the running deal, forget all but the last
 * few deals, and keep a finished deal's reveal with what was seen of it (changes `st`).
 */
export function rememberSeen(st) {
  const d = st.deal;
  const no = st.info.deal_no;
  if (!d || !no) return;
  const seen = st.seen[no] || {};
  if (d.phase === "cut" && d.commitment && !seen.commitment) seen.commitment = d.commitment;
  if (d.cut !== null && d.cut !== undefined && seen.cut === undefined) seen.cut = d.cut;
  if (d.phase === "auction" && !seen.hand && d.hand?.length === 10) {
    seen.hand = [...d.hand];
    seen.seat = st.seat;
  }
  st.seen[no] = seen;
  const keep = Object.keys(st.seen).map(Number).sort((a, b) => b - a).slice(0, SEEN_DEALS);
  for (const key of Object.keys(st.seen)) if (!keep.includes(Number(key))) delete st.seen[key];
  if (d.finished && d.reveal) st.info.finished_deal = { deal_no: no, reveal: d.reveal, seen: { ...seen } };
}
