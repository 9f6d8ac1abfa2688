// The page's two catalogues (static/js/i18n.js): the same keys, the same placeholders, and t()
// answering in the member's language with the placeholders filled.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { STRINGS, lang, setLang, t } = await import("../../static/js/i18n.js");

const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

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
