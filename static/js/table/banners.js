// The banners over the seats: who is disconnected and for how long (from `presence`: the
// server's `since` when it sends it, else the page's own clock, "at least" for absences found
// on arrival), and the club table's ask for one more round (extension.js). Each is a part of
// its own, so a banner's change redraws only the banner.
import { h } from "../dom.js";
import { tick } from "./extras.js";
import { part } from "./part.js";

/**
 * Who is away since when, kept across presence messages: `note(msg, seats, mySeat)` takes a
 * presence message in; `list()` is `{seat: {since: epoch ms, lower: true when only "at least"}}`.
 */
export function awayClock() {
  const away = {};
  let first = true;
  return {
    list: () => away,
    note(msg, seats, mySeat) {
      const since = msg.since || msg.away || {};
      for (let seat = 0; seat < seats; seat += 1) {
        if (msg.connected.includes(seat) || seat === mySeat) delete away[seat];
        else if (!away[seat]) {
          const stamp = since[String(seat)] ? Date.parse(since[String(seat)]) : NaN;
          away[seat] = Number.isFinite(stamp) ? { since: stamp, lower: false } : { since: Date.now(), lower: first };
        }
      }
      first = false;
    },
  };
}

function awayBanner(rows) {
  if (!rows.length) return null;
  return h("div", { class: "away-banner", role: "status", "data-testid": "away" }, rows.map((row) => {
    const el = h("div", { "data-since": row.since, "data-key": row.lower ? "tp.awayLong" : "tp.away", "data-name": row.name });
    tick(h("div", {}, el));
    return el;
  }));
}

/** The away banner of `clock` (an awayClock) at the table of `ctx`. */
export function awayPart(ctx, clock) {
  return part(() => {
    const { st } = ctx;
    if (st.info.status === "finished") return [];
    const away = clock.list();
    return Object.keys(away).map(Number).filter((s) => s < ctx.names().length && s !== st.seat)
      .map((seat) => ({ seat, name: ctx.nameOf(seat), ...away[seat] }));
  }, awayBanner);
}

/** The ask for one more round (extension.js `extensionAsk`, club tables only). */
export function extensionPart(ctx) {
  return part(() => ({ ask: ctx.extension?.state() ?? null, finished: ctx.st.info.status === "finished",
    names: ctx.names() }),
  ({ ask, finished }) => (ask && !finished ? ctx.extension.view(ctx.memberName) : null));
}
