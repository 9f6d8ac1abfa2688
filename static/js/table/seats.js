// The seats around the table: each player's box (connected dot, dealer / forehand / declarer /
// sitting out, cards left, tricks, his last call and his whist call) and the side's line of who
// is connected. Each box is drawn from a small model of its own (`seatModel`), which is also the
// part's slice: a box is redrawn only when what it says changed.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { callText } from "./cards.js";
import { part } from "./part.js";

/** What the box of `seat` says: plain data (ctx: the table page's context). */
export function seatModel(ctx, seat) {
  const { st, presence } = ctx;
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
  const calls = d ? d.auction.filter((a) => a.seat === seat).map((a) => callText(a.call)) : [];
  const defence = d ? d.defence.filter((a) => a.seat === seat).map((a) => callText(a.call)) : [];
  const size = d?.hand_sizes?.[String(seat)];
  const tricks = d?.tricks?.[String(seat)];
  return {
    seat,
    name: ctx.nameOf(seat),
    roles,
    online: presence.connected.includes(seat) || seat === st.seat,
    toMove: Boolean(d && d.to_move === seat),
    meta: [
      size && seat !== st.seat ? `${t("table.cards")}: ${size}` : null,
      tricks !== undefined && ["play", "done"].includes(d.phase) ? `${t("table.tricks")}: ${tricks}` : null,
      calls.length ? calls[calls.length - 1] : null,
      defence.length ? defence.join(", ") : null,
    ].filter(Boolean).join(" · "),
  };
}

export function seatBox(model) {
  return h("div", { class: `seat-box${model.toMove ? " to-move" : ""}`, "data-seat": model.seat },
    h("div", { class: "name" },
      h("span", { class: `dot${model.online ? " on" : ""}`,
        "aria-label": model.online ? t("table.connected") : t("table.offline"), role: "img" }),
      model.name, model.roles.map((r) => h("span", { class: "role", text: r }))),
    h("div", { class: "meta" }, model.meta));
}

/** The other seats, the player on my left (next clockwise) first. */
function opponentSeats(ctx) {
  const n = ctx.st.info.players || ctx.st.deal?.players || 3;
  const mySeat = ctx.st.seat ?? 0;
  const others = [];
  for (let k = 1; k < n; k += 1) others.push((mySeat + k) % n);
  return others;
}

export function opponentsPart(ctx) {
  return part(() => opponentSeats(ctx).map((seat) => seatModel(ctx, seat)),
    (models) => h("div", { class: "opponents" }, models.map(seatBox)));
}

/** The side's line: who is connected, and how many watch. */
export function presencePart(ctx) {
  return part(() => ({ names: ctx.presence.connected.map((s) => ctx.nameOf(s)), spectators: ctx.presence.spectators }),
    ({ names, spectators }) => h("p", { class: "small muted side-presence" }, `${t("table.connected")}: `,
      names.join(", ") || "—", spectators ? ` · ${t("table.spectators")}: ${spectators}` : ""));
}
