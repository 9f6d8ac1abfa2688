// The hands: the player's own hand (sorted by suit; in play only the legal cards enabled, a
// click plays the card; when discarding, a click selects up to two cards), the open hands of
// the others (a "preferans" declarer's hand from which the first defender discards, A-16, or
// any hand played open), and the player's own seat box over his hand. Each hand is a part
// redrawn only when its cards, its legal moves, the selection or the card names changed.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { cardFace, sortHand } from "./cards.js";
import { part } from "./part.js";
import { seatBox, seatModel } from "./seats.js";

/**
 * The hands of the table page `ctx`: `selected` is the page's set of cards chosen for the
 * discard, `move(command, button)` sends a move shown at once, `redraw()` redraws the page.
 */
export function hands(ctx, { selected, move, redraw }) {
  /** What one hand's drawing reads: its cards, how they can be pressed, their names. */
  function handSlice(cards, { mine, seat }) {
    const { st } = ctx;
    const d = st.deal;
    // on a "преферанс" the first defender discards from the declarer's open hand
    const discardsFrom = d && d.bid === "preferans" ? d.declarer : st.seat;
    const discarding = ctx.legalOf("discard").length > 0 && (mine ? discardsFrom === st.seat : seat === discardsFrom);
    const playable = d && d.phase === "play" ? ctx.legalOf("play_card").map((a) => a.card) : [];
    return { cards: sortHand(cards), mine, seat, name: mine ? t("table.myHand") : ctx.nameOf(seat), discarding,
      playable, selected: discarding ? [...selected] : [], words: ctx.blind.on };
  }

  function handView({ cards, mine, seat, name, discarding, playable }) {
    const idOf = (card) => `card-${mine ? "me" : seat}-${card}`;
    const canPlay = new Set(playable);
    return h("div", { class: "cards hand", role: "group", "aria-label": name,
      "data-testid": mine ? "my-hand" : `open-hand-${seat}` },
    cards.map((card) => {
      const label = ctx.blind.label(card);
      if (discarding) {
        return cardFace(card, { id: idOf(card), label, selected: selected.has(card), onclick: () => {
          if (selected.has(card)) selected.delete(card);
          else if (selected.size < 2) selected.add(card);
          redraw();
        } });
      }
      if (!canPlay.size) return cardFace(card, { label });
      const can = canPlay.has(card);
      return cardFace(card, { id: idOf(card), label, playable: can, disabled: !can,
        onclick: (e) => move({ type: "play_card", card }, e.currentTarget) });
    }));
  }

  const openHands = part(() => {
    const d = ctx.st.deal;
    if (!d) return [];
    return Object.entries(d.open_hands || {}).filter(([seat, cards]) => Number(seat) !== ctx.st.seat && cards.length)
      .map(([seat, cards]) => handSlice(cards, { mine: false, seat: Number(seat) }));
  }, (slices) => (slices.length ? h("div", { class: "open-hands" }, slices.map((slice) =>
    h("div", {}, h("div", { class: "small", text: `${slice.name} — ${t("table.handsOpen")}` }), handView(slice)))) : null));

  const mySeat = part(() => seatModel(ctx, ctx.st.seat ?? 0), seatBox);

  const spectator = part(() => ctx.st.seat === null,
    (watching) => (watching ? h("p", { class: "muted small", text: t("table.spectator") }) : null));

  const myHand = part(() => {
    const d = ctx.st.deal;
    return d && d.hand && d.hand.length ? handSlice(d.hand, { mine: true, seat: ctx.st.seat }) : null;
  }, (slice) => (slice ? handView(slice) : null));

  return { openHands, handArea: [mySeat, spectator, myHand] };
}
