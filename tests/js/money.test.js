// Money in one format on every page (static/js/money.js): two decimals, the language's mark and
// digit groups, a true minus, ₽; exact on the digits.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { setLang } = await import("../../static/js/i18n.js");
const { formatMoney, signedWhists } = await import("../../static/js/money.js");

test("Russian: comma, grouped thousands, a minus sign, ₽", () => {
  setLang("ru");
  assert.equal(formatMoney("548.00"), "548,00\u00a0₽");
  assert.equal(formatMoney("-1096.5"), "\u22121\u00a0096,50\u00a0₽");
  assert.equal(formatMoney(0), "0,00\u00a0₽");
  assert.equal(formatMoney("-0.00"), "0,00\u00a0₽", "no minus on nothing");
  assert.equal(formatMoney("12345678901234567.89"), "12\u00a0345\u00a0678\u00a0901\u00a0234\u00a0567,89\u00a0₽");
});

test("English: a point and commas; what is not an amount is shown as it came", () => {
  setLang("en");
  assert.equal(formatMoney("1234567.8"), "1,234,567.80\u00a0₽");
  assert.equal(formatMoney("—"), "—");
  assert.equal(formatMoney(""), "");
  setLang("ru");
});

test("whists: the same digits without ₽ (the luck figures)", async () => {
  const { formatDecimal } = await import("../../static/js/money.js");
  setLang("ru");
  assert.equal(formatDecimal("121.6"), "121,60");
  assert.equal(formatDecimal("-29.33"), "\u221229,33");
  setLang("en");
  assert.equal(formatDecimal("1029.33"), "1,029.33");
  setLang("ru");
});

test("whists keep their own digits, with a true minus and the language's mark", async () => {
  const { formatWhists } = await import("../../static/js/money.js");
  setLang("ru");
  assert.equal(formatWhists("-85"), "\u221285");
  assert.equal(formatWhists("37.8"), "37,8");
  assert.equal(formatWhists(-26.67), "\u221226,67");
  assert.equal(formatWhists("12000"), "12\u00a0000");
  assert.equal(formatWhists("-0"), "0");
  assert.equal(formatWhists("—"), "—");
  setLang("en");
  assert.equal(formatWhists("-1234.5"), "\u22121,234.5");
  setLang("ru");
});

test("a sheet write reads with its sign: a true minus, a plus for a gain", () => {
  setLang("ru");
  assert.equal(signedWhists("24"), "+24");
  assert.equal(signedWhists(-4), "\u22124");
  assert.equal(signedWhists("37.5"), "+37,5");
  assert.equal(signedWhists("0"), "0");
});
