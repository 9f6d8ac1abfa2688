// Cards as the protocol writes them ("AS", "10H") and as the page shows them: faces with suit
// symbols in their colours, hands sorted by suit (colours alternating) and rank.
import { h } from "../dom.js";
import { t } from "../i18n.js";

export const SUIT_SYMBOL = { S: "♠", C: "♣", D: "♦", H: "♥" };
const SUIT_ORDER = { S: 0, D: 1, C: 2, H: 3 };
const RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"];
const RANK_RU = { J: "В", Q: "Д", K: "К", A: "Т" };

export function parseCard(card) {
  return { rank: card.slice(0, -1), suit: card.slice(-1) };
}

export function rankText(rank) {
  return document.documentElement.lang === "ru" ? (RANK_RU[rank] ?? rank) : rank;
}

/** A hand sorted for reading: ♠ ♦ ♣ ♥ (colours alternate), high cards first. */
export function sortHand(cards) {
  return [...cards].sort((a, b) => {
    const x = parseCard(a);
    const y = parseCard(b);
    return SUIT_ORDER[x.suit] - SUIT_ORDER[y.suit] || RANKS.indexOf(y.rank) - RANKS.indexOf(x.rank);
  });
}

export function cardLabel(card) {
  const { rank, suit } = parseCard(card);
  return `${rankText(rank)}${SUIT_SYMBOL[suit]}`;
}

/**
 * A card face. Options: `small`, `onclick` (makes it a button), `disabled`, `playable`,
 * `selected`, `label` (the accessible name, else the short «Д♠»). Without `onclick` it is a plain image with a text label.
 */
export function cardFace(card, options = {}) {
  const { rank, suit } = parseCard(card);
  const red = suit === "D" || suit === "H";
  const cls = ["card-face", red ? "red" : "", options.small ? "small" : "",
    options.playable ? "playable" : "", options.selected ? "selected" : ""].filter(Boolean).join(" ");
  const inner = [
    h("span", { class: "corner", "aria-hidden": "true" }, h("span", { text: rankText(rank) }),
      h("span", { text: SUIT_SYMBOL[suit] })),
    h("span", { class: "pip", "aria-hidden": "true", text: SUIT_SYMBOL[suit] }),
  ];
  if (options.onclick) {
    return h("button", {
      type: "button", class: cls, id: options.id, "aria-label": options.label ?? cardLabel(card), "aria-pressed": options.selected ? "true" : null,
      disabled: options.disabled, onclick: options.onclick, dataset: { card },
    }, inner);
  }
  return h("span", { class: cls, role: "img", "aria-label": options.label ?? cardLabel(card), dataset: { card } }, inner);
}

export function cardBack(small = false) {
  return h("span", { class: `card-face back${small ? " small" : ""}`, role: "img", "aria-label": "🂠" });
}

/** A call or contract as a person reads it: "7♥", "6 БК", "Мизер", "Пас". */
export function callText(call) {
  if (!call) return "";
  if (call === "pass") return t("table.pass");
  if (call === "here") return t("table.here");
  if (call === "misere") return t("table.misere");
  if (call === "misere_bp") return t("table.misereBp");
  if (call === "dark_pass") return t("table.darkPass");
  if (call === "preferans") return t("table.preferansCall");
  if (call.startsWith("dark_")) return t("table.dark", { call: callText(call.slice(5)) });
  if (call === "whist") return t("table.whist");
  if (call === "half") return t("table.half");
  const m = /^(\d+)(NT|[SCDH])(BP)?$/.exec(call);
  if (!m) return call;
  const ru = document.documentElement.lang === "ru";
  const noTalon = m[3] ? (ru ? " б/п" : " w/o talon") : "";  // без прикупа
  if (m[2] === "NT") return `${m[1]} ${ru ? "БК" : "NT"}${noTalon}`;
  return `${m[1]}${SUIT_SYMBOL[m[2]]}${noTalon}`;
}

export function callClass(call) {
  const m = /^(?:dark_)?(\d+)([SCDH])(BP)?$/.exec(call || "");
  return m ? `s-${m[2]}` : "";
}
