// Hands sorted for reading and cards named as a Russian player reads them (static/js/table/cards.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { cardLabel, parseCard, sortHand, SUIT_SYMBOL } = await import("../../static/js/table/cards.js");

test("a hand is sorted spades, diamonds, clubs, hearts (the colours alternate), high cards first", () => {
  const hand = ["7H", "AS", "10D", "KC", "9S", "JH", "AD", "8C", "QS", "10H"];
  assert.deepEqual(sortHand(hand), ["AS", "QS", "9S", "AD", "10D", "KC", "8C", "JH", "10H", "7H"]);
  assert.deepEqual(hand[0], "7H", "the hand itself is left as it was");
});

test("ten is a two-character rank and the suit is the last character", () => {
  assert.deepEqual(parseCard("10S"), { rank: "10", suit: "S" });
  assert.deepEqual(parseCard("QH"), { rank: "Q", suit: "H" });
});

test("court cards carry Russian letters in Russian and the protocol's in English", () => {
  document.documentElement.lang = "ru";
  assert.equal(cardLabel("AS"), `Т${SUIT_SYMBOL.S}`);
  assert.equal(cardLabel("JD"), `В${SUIT_SYMBOL.D}`);
  assert.equal(cardLabel("10H"), `10${SUIT_SYMBOL.H}`);
  document.documentElement.lang = "en";
  assert.equal(cardLabel("QC"), `Q${SUIT_SYMBOL.C}`);
  document.documentElement.lang = "ru";
});
