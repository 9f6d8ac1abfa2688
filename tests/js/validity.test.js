// What the browser's own checks let through, worded before sending (static/js/validity.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { setLang } = await import("../../static/js/i18n.js");
const { textFieldText } = await import("../../static/js/validity.js");

const field = (value, extra = {}) => ({ value, type: "text", disabled: false, required: false,
  maxLength: 500, labels: [], getAttribute: (name) => (name === "aria-label" ? "Сообщение" : null),
  placeholder: "", name: "", ...extra });

test("a required field of only spaces is said to be empty; an optional one is left alone", () => {
  setLang("ru");
  assert.match(textFieldText(field("   ", { required: true })), /^«Сообщение»: заполните/);
  assert.equal(textFieldText(field("   ")), "");
  assert.equal(textFieldText(field("привет", { required: true })), "");
});

test("a NUL and an over-long line are named by the field", () => {
  setLang("ru");
  assert.match(textFieldText(field("a\u0000b")), /недопустимый символ/);
  assert.match(textFieldText(field("я".repeat(501))), /500/);
});
