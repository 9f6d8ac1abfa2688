// Sheet entries in words (static/js/table/words.js): a penalty names its fault, never its rule ID.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { setLang } = await import("../../static/js/i18n.js");
const { entryWords, signed } = await import("../../static/js/table/words.js");

test("every penalty of the three catalogues is named in Russian words, not by its rule ID", () => {
  setLang("ru");
  const rules = [...Array.from({ length: 11 }, (_, i) => `R-X${i + 1}`), "A-23", "A-24", "K-14", "K-15", "K-16"];
  for (const rule of rules) {
    const words = entryWords({ column: "hill", rule, amount: 3 });
    assert.doesNotMatch(words, /[A-Z]-\d|tp\.rule/, rule);
    assert.match(words, /[а-яё]/, rule);
  }
  assert.equal(entryWords({ column: "hill", rule: "K-14", amount: 3 }), "ремиз: посмотрел талон");
});

test("a remiz makes the opponents' whists a consolation (R-P1)", () => {
  setLang("en");
  const remiz = { column: "hill", rule: "R-P1", amount: 8 };
  const whist = { column: "whists", rule: "R-P1", amount: 4 };
  assert.notEqual(entryWords(whist, [remiz, whist]), entryWords(whist, [whist]));
  setLang("ru");
});

test("under a remiz a whister's trick whists and his consolation are named apart (R-P1)", () => {
  setLang("ru");
  // 7♠ by seat 0 down one, seat 1 whisted and took 5 tricks, seat 2 passed (the sheet's order).
  const deal = [
    { column: "hill", seat: 0, rule: "R-P1", amount: 4 },
    { column: "whists", seat: 1, on: 0, rule: "R-P1", amount: 20 },
    { column: "whists", seat: 1, on: 0, rule: "R-P1", amount: 4 },
    { column: "whists", seat: 2, on: 0, rule: "R-P1", amount: 4 },
  ];
  assert.deepEqual(deal.slice(1).map((e) => entryWords(e, deal)),
    ["вист за взятки", "консоляция за ремиз", "консоляция за ремиз"]);
  assert.equal(entryWords(deal[1], deal.slice(1)), "вист за взятки");
});

test("numbers carry their sign", () => {
  assert.equal(signed(5), "+5");
  assert.match(signed(-5), /^[-−]5$/);
  assert.equal(signed(0), "0");
});
