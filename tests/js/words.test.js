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

test("numbers carry their sign", () => {
  assert.equal(signed(5), "+5");
  assert.match(signed(-5), /^[-−]5$/);
  assert.equal(signed(0), "0");
});
