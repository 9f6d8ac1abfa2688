// The blind member's table (static/js/table/announce.js, typed.js): every event said in
// Russian words, and typed moves turned into the very command the server lists as legal.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { setLang } = await import("../../static/js/i18n.js");
const announce = await import("../../static/js/table/announce.js");
const { parseTyped, cardOf, levelCall } = await import("../../static/js/table/typed.js");

const NAMES = ["Пётр", "Иван", "Кира"];
const nameOf = (seat) => NAMES[seat];
const ctx = (after = {}) => ({ nameOf, mySeat: 2, after });

test("bids, defence and cards are said in words, cards in the instrumental case", () => {
  setLang("ru");
  const lines = announce.eventLines({ type: "action", data: { seat: 0, events: [
    { type: "called", seat: 0, call: "6C" },
    { type: "called", seat: 1, call: "7NT" },
    { type: "called", seat: 2, call: "pass" },
    { type: "defended", seat: 1, call: "whist" },
    { type: "card_played", seat: 1, by: 1, card: "QS" },
    { type: "card_played", seat: 2, by: 2, card: "10H" },
  ] } }, ctx());
  assert.deepEqual(lines, ["Пётр: 6 треф.", "Иван: 7 без козыря.", "Вы: пас.", "Иван: вист.",
    "Иван ходит дамой пик.", "Вы ходите десяткой червей."]);
});

test("my own moves take the verb of «Вы»; a card played for an open hand names its hand", () => {
  setLang("ru");
  const lines = announce.eventLines({ type: "action", data: { events: [
    { type: "deck_cut", seat: 2 }, { type: "deck_cut", seat: 0 },
    { type: "contract_named", seat: 2, contract: "7H" }, { type: "talon_taken", seat: 2 },
    { type: "card_played", seat: 1, by: 2, card: "AS" }, { type: "card_played", seat: 1, by: 0, card: "KS" },
  ] } }, ctx());
  assert.deepEqual(lines, ["Вы сдвигаете колоду.", "Пётр сдвигает колоду.", "Вы заказываете 7 червей.", "Вы берёте прикуп.",
    "Вы ходите за игрока Иван: тузом пик.", "Пётр ходит за игрока Иван: королём пик."]);
});

test("a trick is said with the winner's count, in the right plural", () => {
  setLang("ru");
  const event = (seat) => ({ type: "action", data: { events: [{ type: "trick_taken", seat }] } });
  assert.deepEqual(announce.eventLines(event(2), ctx({ tricks: { 0: 1, 1: 0, 2: 4 } })), ["Взятка ваша, у вас 4."]);
  assert.deepEqual(announce.eventLines(event(0), ctx({ tricks: { 0: 1 } })), ["Взятку берёт Пётр: 1 взятка."]);
  assert.deepEqual(announce.eventLines(event(0), ctx({ tricks: { 0: 3 } })), ["Взятку берёт Пётр: 3 взятки."]);
  assert.deepEqual(announce.eventLines(event(0), ctx({ tricks: { 0: 5 } })), ["Взятку берёт Пётр: 5 взяток."]);
});

test("the deal's start, a pass-out talon card, the end and a chat line", () => {
  setLang("ru");
  assert.deepEqual(announce.eventLines({ type: "deal_started", data: { deal_no: 3, dealer: 1 } }, ctx()),
    ["Сдача 3. Сдаёт Иван."]);
  assert.deepEqual(announce.eventLines({ type: "action", data: { events: [
    { type: "talon_card_turned", card: "7S", trick: 1 }] } }, ctx()), ["Карта прикупа: семёрка пик."]);
  const ended = announce.eventLines({ type: "deal_ended", data: { outcome: {
    type: "game", contract: "6S", declarer: 0, tricks: { 0: 6, 1: 4 } } } }, ctx());
  assert.equal(ended[0], "Сдача окончена: 6 пик — Пётр (игра); взятки: Пётр 6, Иван 4.");
  assert.deepEqual(announce.eventLines({ type: "chat", data: { name: "Кира", text: "ещё?" } }, ctx()), ["Кира пишет: ещё?"]);
});

test("an event never names another player's hidden card: a discard is two cards, unless mine", () => {
  setLang("ru");
  const discard = { type: "action", data: { events: [{ type: "discarded", seat: 0 }] } };
  assert.deepEqual(announce.eventLines(discard, ctx()), ["Пётр сносит две карты."]);
  const mine = { type: "action", data: { events: [{ type: "discarded", seat: 2 }] } };
  assert.deepEqual(announce.eventLines(mine, { ...ctx(), discard: ["QS", "7H"] }), ["Вы сносите: дама пик, семёрка червей."]);
});

test("the hand is read by suit and rank", () => {
  setLang("ru");
  assert.equal(announce.handWords(["7H", "AS", "QS", "KD", "9C"]),
    "У вас 5 карт. Пики: туз, дама. Бубны: король. Трефы: девятка. Черви: семёрка.");
  assert.equal(announce.handWords(["AS"]), "У вас 1 карта. Пики: туз.");
  assert.equal(announce.handWords([]), "У вас нет карт.");
});

test("the reading keys: trick, last trick, contract, clock", () => {
  setLang("ru");
  const deal = { phase: "play", contract: "6S", declarer: 0, kind: "game", auction: [],
    defence: [{ seat: 1, call: "whist" }, { seat: 2, call: "pass" }], tricks: { 0: 2, 1: 1, 2: 0 },
    trick: [{ seat: 1, card: "AH" }], last_trick: [{ seat: 0, card: "KS" }, { seat: 1, card: "7S" }, { seat: 2, card: "8S" }],
    last_trick_winner: 0 };
  assert.equal(announce.trickWords(deal, nameOf), "На столе: Иван — туз червей.");
  assert.equal(announce.lastTrickWords(deal, nameOf),
    "Последняя взятка: Пётр — король пик, Иван — семёрка пик, Кира — восьмёрка пик. Её берёт Пётр.");
  assert.equal(announce.contractWords(deal, nameOf),
    "Контракт: 6 пик, играет Пётр. Иван — вист, Кира — пас. Взятки: Пётр 2, Иван 1, Кира 0.");
  const auction = { phase: "auction", auction: [{ seat: 1, call: "6S" }, { seat: 2, call: "pass" }], defence: [] };
  assert.equal(announce.contractWords(auction, nameOf), "Идёт торговля. Иван — 6 пик, Кира — пас.");
  assert.equal(announce.clockWords("2026-12-04T10:00:30Z", Date.parse("2026-12-04T10:00:05Z")), "На ход осталось 25 с.");
  assert.equal(announce.clockWords(null, 0), "Ход без таймера.");
});

test("the same sentences in English", () => {
  setLang("en");
  const lines = announce.eventLines({ type: "action", data: { events: [
    { type: "called", seat: 0, call: "6D" }, { type: "card_played", seat: 1, by: 1, card: "QS" }] } }, ctx());
  assert.deepEqual(lines, ["Пётр: 6 diamonds.", "Иван plays the queen of spades."]);
  assert.equal(announce.handWords(["AS", "10H"]), "You hold 2 cards. Spades: ace. Hearts: ten.");
  setLang("ru");
});

test("what a hint says can be typed back as the move", () => {
  setLang("ru");
  const legal = [{ type: "bid", call: "6SBP" }, { type: "discard", cards: ["QS", "7H"] }, { type: "take_talon" },
    { type: "choose_play", mode: "closed" }, { type: "defend", call: "half" }, { type: "next_deal" }];
  for (const action of legal) {
    assert.deepEqual(parseTyped(announce.actionWords(action), { legal }), { send: action }, announce.actionWords(action));
  }
});

test("typed calls and cards: «6т», «6бк», «дп», «10ч», «дама пик», and English", () => {
  assert.equal(levelCall("6т"), "6C");
  assert.equal(levelCall("6 треф"), "6C");
  assert.equal(levelCall("7бк"), "7NT");
  assert.equal(levelCall("10 без козыря"), "10NT");
  assert.equal(levelCall("6п бп"), "6SBP");
  assert.equal(levelCall("6h"), "6H");
  assert.equal(levelCall("5т"), null);
  assert.equal(cardOf("дп"), "QS");
  assert.equal(cardOf("тт"), "AC");
  assert.equal(cardOf("10ч"), "10H");
  assert.equal(cardOf("дама пик"), "QS");
  assert.equal(cardOf("queen of spades"), "QS");
  assert.equal(cardOf("qs"), "QS");
  assert.equal(cardOf("6т"), null);
});

test("a typed line becomes the legal command, a question, or a reason", () => {
  const auction = [{ type: "bid", call: "6S" }, { type: "bid", call: "7C" }, { type: "bid", call: "pass" }];
  assert.deepEqual(parseTyped("пас", { legal: auction }), { send: { type: "bid", call: "pass" } });
  assert.deepEqual(parseTyped(" 6П ", { legal: auction }), { send: { type: "bid", call: "6S" } });
  assert.deepEqual(parseTyped("7т", { legal: auction }), { send: { type: "bid", call: "7C" } });
  assert.equal(parseTyped("6т", { legal: auction }).error, "bl.err.notNow");
  assert.deepEqual(parseTyped("рука", { legal: auction }), { read: "hand" });
  assert.deepEqual(parseTyped("Последняя.", { legal: [] }), { read: "last" });
  assert.deepEqual(parseTyped("подсказка", { legal: auction }), { read: "hint" });
  assert.equal(parseTyped("абв", { legal: auction }).error, "bl.err.unknown");

  const play = [{ type: "play_card", card: "7C" }, { type: "play_card", card: "QS" }];
  // «7т» in play is the seven of clubs, not a bid
  assert.deepEqual(parseTyped("7т", { legal: play, hand: ["7C", "QS", "AH"] }), { send: { type: "play_card", card: "7C" } });
  assert.deepEqual(parseTyped("дп", { legal: play, hand: ["7C", "QS", "AH"] }), { send: { type: "play_card", card: "QS" } });
  assert.deepEqual(parseTyped("тч", { legal: play, hand: ["7C", "QS", "AH"] }), { error: "bl.err.cardNotNow", vars: { card: "AH" } });
  assert.deepEqual(parseTyped("тб", { legal: play, hand: ["7C", "QS", "AH"] }), { error: "bl.err.noCard", vars: { card: "AD" } });

  const defence = [{ type: "defend", call: "whist" }, { type: "defend", call: "pass" }];
  assert.deepEqual(parseTyped("вист", { legal: defence }), { send: { type: "defend", call: "whist" } });
  assert.deepEqual(parseTyped("пас", { legal: defence }), { send: { type: "defend", call: "pass" } });

  const discard = [{ type: "discard", cards: ["QS", "7H"] }, { type: "discard", cards: ["QS", "AH"] }];
  assert.deepEqual(parseTyped("снос дп 7ч", { legal: discard }), { send: { type: "discard", cards: ["QS", "7H"] } });
  assert.deepEqual(parseTyped("дама пик, семёрка червей", { legal: discard }), { send: { type: "discard", cards: ["QS", "7H"] } });
  assert.equal(parseTyped("снос дп", { legal: discard }).error, "bl.err.discard");

  const cut = [{ type: "cut", position: 4 }, { type: "cut", position: 5 }];
  assert.deepEqual(parseTyped("сдвиг", { legal: cut }), { send: { type: "cut", auto: true } });
  assert.deepEqual(parseTyped("сдвиг 5", { legal: cut }), { send: { type: "cut", position: 5 } });
});

test("a defender hears the calls he may make: «вист» alone when the pass is taken away (R-W6)", () => {
  setLang("ru");
  const whistOrPass = [{ type: "defend", call: "whist" }, { type: "defend", call: "pass" }];
  assert.equal(announce.moveWords(whistOrPass), "вист или пас");
  assert.equal(announce.moveWords([{ type: "defend", call: "whist" }]), "вист");
});
