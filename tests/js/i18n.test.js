// The pages' catalogues (static/js/i18n/, joined by static/js/i18n.js): each key once, with its
// Russian and English side by side and the same placeholders, and t() answering in the member's
// language with the placeholders filled.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { CATALOGUES, DUPLICATES, STRINGS, lang, setLang, t, tn } = await import(
  "../../static/js/i18n.js"
);

const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test("every entry is a Russian and an English string, and no key is in two catalogues", () => {
  for (const [name, catalogue] of Object.entries(CATALOGUES)) {
    for (const [key, pair] of Object.entries(catalogue)) {
      assert.ok(Array.isArray(pair) && pair.length === 2, `${name}: ${key}`);
      assert.ok(pair.every((text) => typeof text === "string"), `${name}: ${key}`);
    }
  }
  assert.deepEqual(DUPLICATES, []);
});

test("a key's first word names one catalogue: a page's words stay together", () => {
  const home = new Map();
  for (const [name, catalogue] of Object.entries(CATALOGUES)) {
    for (const key of Object.keys(catalogue)) {
      const area = key.split(".")[0];
      assert.equal(home.get(area) ?? name, name, `${key} is in ${name}, its area in ${home.get(area)}`);
      home.set(area, name);
    }
  }
  assert.ok(home.size > 20);
});

test("Russian and English have the same keys", () => {
  const ru = new Set(Object.keys(STRINGS.ru));
  const en = new Set(Object.keys(STRINGS.en));
  assert.deepEqual([...ru].filter((k) => !en.has(k)), [], "keys only in Russian");
  assert.deepEqual([...en].filter((k) => !ru.has(k)), [], "keys only in English");
  assert.ok(ru.size > 500);
});

test("every string has the same placeholders in both languages, and no string is empty", () => {
  for (const [key, ru] of Object.entries(STRINGS.ru)) {
    assert.deepEqual(placeholders(ru), placeholders(STRINGS.en[key]), key);
    assert.ok(ru.trim() && STRINGS.en[key].trim(), key);
  }
});

test("t() answers in the chosen language and fills the placeholders", () => {
  setLang("ru");
  assert.equal(lang(), "ru");
  assert.equal(t("rec.next", { n: 3 }), "Сдача 3");
  setLang("en");
  assert.equal(document.documentElement.lang, "en");
  assert.equal(t("rec.next", { n: 3 }), STRINGS.en["rec.next"].replace("{n}", "3"));
  setLang("de");
  assert.equal(lang(), "ru", "a language the club has not is Russian");
  assert.equal(t("no.such.key"), "no.such.key");
});

test("tn() gives the word that goes with a number, by each language's plural rules", () => {
  setLang("ru");
  const ru = (n) => `${n} ${tn("common.tricks", n)}`;
  assert.deepEqual([1, 2, 4, 5, 11, 12, 21, 22, 25, 0].map(ru), [
    "1 взятка", "2 взятки", "4 взятки", "5 взяток", "11 взяток", "12 взяток", "21 взятка",
    "22 взятки", "25 взяток", "0 взяток",
  ]);
  assert.equal(tn("common.fromPulkas", 1), "пульки");
  assert.equal(tn("common.fromPulkas", 3), "пулек");
  assert.equal(tn("common.deals", 104), "сдачи");
  setLang("en");
  assert.deepEqual([1, 2, 0].map((n) => tn("common.tricks", n)), ["trick", "tricks", "tricks"]);
  setLang("ru");
});
