// The cloth in the middle of the table: the talon when it is shown, the current trick (a
// completed trick stays on the cloth for a moment with its winner marked, unless a player leads
// the next one first; during the bidding the talon lies there face down), the last trick one
// tap away, and the declarer's own discard. Four parts; the completed trick held on the cloth
// and the last trick asked of the server are this module's own state.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { cardBack, cardFace } from "./cards.js";
import { part } from "./part.js";

/** How long a completed trick stays on the cloth (unless a player leads the next one first). */
const HOLD_MS = 1500;

function trickView(cards, label, winner = null, winnerName = null) {
  return h("div", { class: `trick${winner !== null ? " completed" : ""}`, "aria-label": label, role: "group",
    "data-testid": winner !== null ? "trick-done" : "trick" },
  cards.map((c) => h("div", { class: `trick-card${winner !== null && c.seat === winner ? " winner" : ""}` },
    cardFace(c.card), h("span", { text: c.name }))),
  winner !== null && winner >= 0
    ? h("div", { class: "trick-winner", text: `${t("tp.trickDone")}: ${winnerName} ${t("tp.won")}` }) : null);
}

/** The cloth of the table page `ctx`; `redraw()` is called when a held trick's moment is over. */
export function cloth(ctx, redraw) {
  let held = null; // the completed trick kept on the cloth: {cards, winner, until}
  let heldKey = null;
  let lastTrick = null; // the server's answer to `last_trick`: {trick, winner}
  const seatName = (seat) => (seat < 0 ? t("table.talon") : ctx.nameOf(seat));
  const named = (cards) => (cards || []).map((c) => ({ card: c.card, seat: c.seat, name: seatName(c.seat) }));

  /** A trick just completed in a live event stays on the cloth for HOLD_MS. */
  function hold(deal, dealNo, live) {
    if (!deal?.last_trick?.length) return;
    const key = `${dealNo}:${deal.tricks_played}`;
    if (key === heldKey) return;
    heldKey = key;
    if (live) {
      held = { cards: deal.last_trick, winner: deal.last_trick_winner, until: Date.now() + HOLD_MS };
      setTimeout(redraw, HOLD_MS + 30);
    }
  }

  const talon = part(() => {
    const d = ctx.st.deal;
    return d && d.talon && d.talon.length && d.kind !== "pass_out" && !["play", "done"].includes(d.phase) ? d.talon : null;
  }, (cards) => (cards ? h("div", { "aria-label": t("table.talon") }, h("div", { class: "small", text: t("table.talon") }),
    h("div", { class: "cards", "data-testid": "talon" }, cards.map((c) => cardFace(c, { small: true })))) : null));

  /** The current trick, or the one just completed while it stays on the cloth. */
  const trick = part(() => {
    const d = ctx.st.deal;
    const current = d?.trick || [];
    if (held && Date.now() < held.until && !current.some((c) => c.seat >= 0)) {
      const winner = held.winner ?? -1;
      return { held: true, cards: named(held.cards), winner, winnerName: winner >= 0 ? ctx.nameOf(winner) : null };
    }
    held = null;
    if (current.length) return { cards: named(current) };
    return { talonDown: Boolean(d && d.phase === "auction" && d.talon === null) };
  }, (slice) => {
    if (slice.held) return trickView(slice.cards, t("table.lastTrick"), slice.winner, slice.winnerName);
    if (slice.cards) return trickView(slice.cards, t("table.trick"));
    // nothing on the cloth yet: during the bidding the talon lies there face down
    return h("div", { class: "trick empty" }, slice.talonDown
      ? h("div", { class: "cards", title: t("table.talon") }, cardBack(true), cardBack(true)) : null);
  });

  const last = part(() => {
    const d = ctx.st.deal;
    if (!d || !["play", "done"].includes(d.phase)) return null;
    return { shown: lastTrick && { cards: named(lastTrick.trick),
      winner: lastTrick.winner !== null ? ctx.nameOf(lastTrick.winner) : null } };
  }, (slice) => {
    if (!slice) return null;
    const box = h("div", { class: "last-box" },
      h("h2", { id: "last-title", class: "sr-only", text: t("table.lastTrick") }),
      h("button", { type: "button", class: "small-btn", text: t("table.showLast"), "aria-controls": "last-trick",
        onclick: () => {
          if (lastTrick) {
            lastTrick = null;
            redraw();
          } else ctx.send({ type: "last_trick" });
        } }));
    const shown = slice.shown;
    if (shown) {
      box.append(shown.cards.length
        ? h("div", { id: "last-trick", class: "last-trick" },
          h("div", { class: "cards" }, shown.cards.map((c) => h("span", { class: "trick-card" },
            cardFace(c.card, { small: true }), h("span", { class: "small", text: c.name })))),
          shown.winner !== null ? h("p", { class: "small", text: `${t("tp.won")}: ${shown.winner}` }) : null)
        : h("p", { class: "small", text: t("table.noLast") }));
    }
    return box;
  });

  const discard = part(() => {
    const d = ctx.st.deal;
    return d && d.discard && ctx.st.seat === d.declarer ? d.discard : null;
  }, (cards) => (cards ? h("div", { class: "small" }, `${t("table.discard")}: `,
    h("span", { class: "cards" }, cards.map((c) => cardFace(c, { small: true })))) : null));

  return {
    parts: [talon, trick, last, discard],
    hold,
    /** The server's `last_trick` answer, shown under the cloth until hidden or the next deal. */
    showLast(msg) {
      lastTrick = { trick: msg.trick, winner: msg.winner };
    },
    forgetLast() {
      lastTrick = null;
    },
  };
}
