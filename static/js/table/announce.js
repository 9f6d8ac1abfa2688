// The table in sentences, for a blind member (docs/browser.md «Режим для незрячих»): what each
// event of docs/protocol.md means said in words («Пётр: 6 треф.», «Иван ходит дамой пик.»,
// «Взятка ваша, у вас 4.»), and the answers to the reading keys (the hand by suit, the trick,
// the last trick, the contract, the sheet, the clock). Pure: state in, strings out, so the
// unit tests check every sentence without a browser.
import { lang, t, tn } from "../i18n.js";
import { callText, parseCard, sortHand } from "./cards.js";
import { kindText } from "./words.js";

const LEVEL = /^(\d+)(NT|[SCDH])(BP)?$/;

/** A card in words: "nom" «дама пик» (a list, the hand), "ins" «дамой пик» (who plays it). */
export function cardWords(card, grammaticalCase = "nom") {
  const { rank, suit } = parseCard(card);
  return t("bl.card", { rank: t(`bl.rank.${rank}.${grammaticalCase}`), suit: t(`bl.suit.${suit}.gen`) });
}

/** A call in words: «6 треф», «7 без козыря», «6 пик без прикупа», «пас», «мизер». */
export function callWords(call) {
  if (!call) return "";
  if (call.startsWith("dark_") && call !== "dark_pass") return t("bl.dark", { call: callWords(call.slice(5)) });
  const m = LEVEL.exec(call);
  if (!m) return callText(call).toLowerCase();
  const plain = t("bl.level", { n: m[1], suit: t(`bl.suit.${m[2]}.gen`) });
  return m[3] ? t("bl.noTalon", { call: plain }) : plain;
}

/**
 * The sentences one engine event (an item of an `action` event's `data.events`) says, in the
 * order it happened. `ctx`: `nameOf(seat)`, `mySeat`, `after` (this seat's deal view after
 * the whole message: the trick counts), `discard` (the cards this seat just discarded, if any).
 */
function engineEventLines(event, ctx) {
  const { nameOf, mySeat } = ctx;
  const mine = event.seat === mySeat;
  const name = mine ? t("bl.you") : nameOf(event.seat);
  // a sentence whose verb agrees with «Вы» when the seat is this player's own (`<key>Me`)
  const said = (key, vars = {}) => t(mine ? `${key}Me` : key, { name, ...vars });
  const count = (n) => ({ n, word: tn("bl.tricksWord", n) });
  switch (event.type) {
    case "deck_cut": return [said("bl.cut")];
    case "cards_dealt": return [t("bl.dealt")];
    case "called": return [t("bl.called", { name, call: callWords(event.call) })];
    case "auction_won": return [said("bl.auctionWon", { call: callWords(event.bid) })];
    case "pass_out": return [t("bl.passOut")];
    case "talon_shown": return [t("bl.talonShown", { cards: event.cards.map((c) => cardWords(c)).join(", ") })];
    case "talon_taken": return [said("bl.talonTaken")];
    case "talon_returned": return [said("bl.talonReturned")];
    case "discarded": return [mine && ctx.discard?.length
      ? t("bl.discardedMe", { cards: ctx.discard.map((c) => cardWords(c)).join(", ") })
      : t("bl.discarded", { name })];
    case "contract_named": return [said("bl.contract", { call: callWords(event.contract) })];
    case "conceded": return [said("bl.conceded")];
    case "defended": return [t("bl.called", { name, call: callWords(event.call) })];
    case "whist_returned": return [said("bl.whistReturned")];
    case "play_chosen": return [said(event.mode === "open" ? "bl.playOpen" : "bl.playClosed")];
    case "hands_opened": return [t("bl.handsOpened")];
    case "talon_card_turned": return [t("bl.talonCard", { card: cardWords(event.card) })];
    case "card_played": {
      const card = cardWords(event.card, "ins");
      if (event.by !== undefined && event.by !== event.seat) {
        const by = event.by === mySeat ? t("bl.you") : nameOf(event.by);
        return [t(event.by === mySeat ? "bl.playedForMe" : "bl.playedFor", { by, name: nameOf(event.seat), card })];
      }
      return [said("bl.played", { card })];
    }
    case "trick_taken": {
      const n = Number(ctx.after?.tricks?.[String(event.seat)] ?? 0);
      return [mine ? t("bl.trickMine", { n }) : t("bl.trickOf", { name, ...count(n) })];
    }
    case "claim_accepted": return [said("bl.claimAccepted", count(event.tricks))];
    case "claim_rejected": return [said("bl.claimRejected")];
    case "result_proposed": return [said("bl.proposed")];
    case "result_accepted": return [said("bl.accepted")];
    case "result_declined": return [said("bl.declined")];
    case "result_withdrawn": return [t("bl.withdrawn")];
    case "misere_invited": return [said("bl.invited")];
    case "invitation_answered": return [said("bl.answered")];
    case "hand_looked_at": return [t("bl.lookedAt", { name: nameOf(event.target) })];
    case "cards_picked_up": return [said("bl.pickedUp")];
    case "misere_switched": return [said("bl.misereSwitched")];
    default: return [];
  }
}

/** A finished deal's outcome in a few words: «6 пик — Пётр (игра); взятки: Пётр 6, Иван 4». */
export function outcomeWords(outcome, nameOf) {
  const o = outcome || {};
  let what = o.type === "pass_out" ? t("tp.kind.pass_out")
    : o.contract ? `${callWords(o.contract)} — ${nameOf(o.declarer)} (${kindText(o)})` : kindText(o);
  if (o.tricks) {
    what += `; ${t("bl.tricksPart", { tricks: Object.entries(o.tricks).map(([s, n]) => `${nameOf(Number(s))} ${n}`).join(", ") })}`;
  }
  return what;
}

/**
 * The sentences a sequenced message says (docs/protocol.md §2.1): `msg` the event, `ctx` as
 * for engine events plus `after` (this seat's deal after it). Nothing of a hidden card: only
 * `data` (what every seat may know) and this seat's own view are read.
 */
export function eventLines(msg, ctx) {
  const data = msg.data || {};
  const { nameOf } = ctx;
  switch (msg.type) {
    case "deal_started": return [t("bl.dealStarted", { n: data.deal_no, dealer: nameOf(data.dealer) })];
    case "action": {
      const lines = (data.events || []).flatMap((e) => engineEventLines(e, ctx));
      if (data.auto) lines.unshift(t("bl.auto", { name: nameOf(data.seat) }));
      return lines;
    }
    case "deal_ended": return [t("bl.dealEnded", { what: outcomeWords(data.outcome, nameOf) })];
    case "pulka_ended": return [t("bl.pulkaEnded")];
    case "chat": return [t("bl.chat", { name: data.name, text: data.text })];
    case "player_joined":
    case "player_replaced": return [t("bl.joined", { name: data.name })];
    default: return [];
  }
}

/** What the seat to move may do now, in words («торговля», «ход картой»). */
export function moveWords(legal) {
  const types = new Set(legal.map((a) => a.type));
  for (const type of ["cut", "pick_up", "bid", "take_talon", "discard", "name_contract", "defend", "choose_play",
    "play_card", "next_deal"]) {
    if (type === "defend" && types.has(type)) return defendWords(legal);
    if (types.has(type)) return t(`bl.move.${type}`);
  }
  return t("bl.move.other");
}

/**
 * The defender's calls he may make, as words: «вист или пас», or «вист» alone where the rules
 * take the pass away (R-W6: 6♠ is whisted by both under Stalingrad).
 */
function defendWords(legal) {
  const calls = [...new Set(legal.filter((a) => a.type === "defend").map((a) => callWords(a.call)))];
  return new Intl.ListFormat(lang(), { type: "disjunction" }).format(calls);
}

/** The hand read by suit and rank: «У вас 10 карт. Пики: туз, дама. Трефы: …». */
export function handWords(cards) {
  if (!cards?.length) return t("bl.handEmpty");
  const bySuit = [];
  for (const card of sortHand(cards)) {
    const { suit } = parseCard(card);
    if (!bySuit.length || bySuit[bySuit.length - 1].suit !== suit) bySuit.push({ suit, cards: [] });
    bySuit[bySuit.length - 1].cards.push(card);
  }
  const suits = bySuit.map((s) => `${t(`bl.suit.${s.suit}.nom`)}: ${s.cards.map((c) => t(`bl.rank.${parseCard(c).rank}.nom`)).join(", ")}.`);
  return t("bl.hand", { n: cards.length, word: tn("bl.cardsWord", cards.length), suits: suits.join(" ") });
}

function trickCards(cards, nameOf) {
  return cards.map((c) => `${c.seat < 0 ? t("table.talon") : nameOf(c.seat)} — ${cardWords(c.card)}`).join(", ");
}

/** The cards on the table now. */
export function trickWords(deal, nameOf) {
  const cards = deal?.trick || [];
  return cards.length ? t("bl.trickNow", { cards: trickCards(cards, nameOf) }) : t("bl.trickEmpty");
}

/** The last closed trick (R-W8: only that one) and who took it. */
export function lastTrickWords(deal, nameOf) {
  if (!deal?.last_trick?.length) return t("bl.lastNone");
  return t("bl.lastTrick", { cards: trickCards(deal.last_trick, nameOf), name: nameOf(deal.last_trick_winner) });
}

/** The bidding so far, or the contract, the defenders' calls and the tricks per seat. */
export function contractWords(deal, nameOf) {
  if (!deal) return t("bl.noDeal");
  if (deal.phase === "auction" || (!deal.contract && deal.kind !== "pass_out")) {
    const calls = deal.auction.map((a) => `${nameOf(a.seat)} — ${callWords(a.call)}`).join(", ");
    return t("bl.auction", { calls: calls ? `${calls}.` : t("bl.noCalls") });
  }
  const parts = [];
  if (deal.contract) parts.push(t("bl.contractIs", { call: callWords(deal.contract), name: nameOf(deal.declarer) }));
  else parts.push(t("bl.passOut"));
  if (deal.defence?.length) {
    parts.push(t("bl.defenceIs", { calls: deal.defence.map((a) => `${nameOf(a.seat)} — ${callWords(a.call)}`).join(", ") }));
  }
  if (deal.tricks && ["play", "done"].includes(deal.phase)) {
    parts.push(t("bl.tricksAre", { tricks: Object.entries(deal.tricks).map(([s, n]) => `${nameOf(Number(s))} ${n}`).join(", ") }));
  }
  return parts.join(" ");
}

/** The sheet per player: pool, hill, whists written on the others, and the balance if closed now. */
export function sheetWords(sheet, balance, names, signed) {
  if (!sheet) return t("bl.noDeal");
  return names.map((name, i) => {
    const whists = (sheet.whists?.[i] || []).reduce((sum, w) => sum + Number(w || 0), 0);
    const line = t("bl.sheetLine", { name, pool: sheet.pool?.[i] ?? 0, hill: sheet.hill?.[i] ?? 0, whists });
    const b = balance?.[i];
    return b === undefined ? `${line}.` : `${line}, ${t("bl.sheetBalance", { b: signed(Number(b)) })}.`;
  }).join(" ");
}

/** The move clock: seconds left, or that the table has no timer. */
export function clockWords(deadline, now) {
  const at = deadline ? Date.parse(deadline) : NaN;
  if (!Number.isFinite(at)) return t("bl.clockNone");
  return t("bl.clock", { s: Math.max(0, Math.round((at - now) / 1000)) });
}

/** One action in words, as a typed move names it («6 пик», «дама пик», «снос: …»). */
export function actionWords(a) {
  if (a.type === "bid" || a.type === "defend") return callWords(a.call);
  if (a.type === "name_contract") return callWords(a.contract);
  if (a.type === "play_card") return cardWords(a.card);
  if (a.type === "discard") return t("bl.say.discard", { cards: a.cards.map((c) => cardWords(c)).join(", ") });
  if (a.type === "choose_play") return t(a.mode === "open" ? "bl.say.open" : "bl.say.closed");
  const key = `bl.say.${a.type}`;
  return t(key) === key ? a.type : t(key);
}

/** The legal actions in words (at most 15), as the typed commands name them. */
export function legalWords(legal) {
  if (!legal.length) return t("bl.legalNone");
  const words = [];
  // the plain answers first: «пас», «вист» before a ladder of bids
  const plain = (a) => (["pass", "whist"].includes(a.call) ? 0 : 1);
  for (const a of [...legal].sort((x, y) => plain(x) - plain(y))) {
    const w = a.type === "discard" ? t("bl.move.discard") : actionWords(a);
    if (!words.includes(w)) words.push(w);
  }
  return t("bl.legal", { what: words.slice(0, 15).join(", ") });
}
