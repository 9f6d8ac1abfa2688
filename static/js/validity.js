// The browser's own form checks (required, min/max, maxlength, a number, a date) in the page's
// language: Chromium words its bubbles in English whatever the page's language, so every
// `invalid` event gets the message the server would give for the same fault (err.input.*), naming
// the field by its label and the limit. The message is cleared as soon as the field is edited.
// A whole-number field is a text field (`wholeNumber`): Chromium's number field drops what it
// does not understand, so «0,001» would arrive as 1 and «1 000» as 1000; here it is refused.
import { t } from "./i18n.js";

/** The attributes of a whole-number field from `min` to `max` (either may be left out). */
export function wholeNumber({ min = null, max = null, ...attrs } = {}) {
  return { type: "text", inputmode: "numeric", autocomplete: "off", "data-whole": "",
    ...(min === null ? {} : { "data-min": String(min) }), ...(max === null ? {} : { "data-max": String(max) }), ...attrs };
}

/** What is wrong with a whole-number field's text, or "" (an empty one only if required). */
export function wholeNumberText(el) {
  const text = el.value.trim();
  const field = fieldName(el);
  if (text === "") return el.required ? t("err.input.required", { field }) : "";
  if (!/^-?\d{1,9}$/.test(text)) return t("err.input.not_a_whole_number", { field });
  const n = Number(text);
  if (el.dataset.min !== undefined && n < Number(el.dataset.min)) return t("err.input.too_small", { field, limit: el.dataset.min });
  if (el.dataset.max !== undefined && n > Number(el.dataset.max)) return t("err.input.too_big", { field, limit: el.dataset.max });
  return "";
}

/**
 * What the browser's own checks let through but the server refuses, worded before sending: a
 * required field holding only spaces, a NUL or a lone surrogate (no field takes one), and a
 * text longer than its `maxlength` (the browser checks the limit only while the member types,
 * not on a value put there otherwise).
 */
export function textFieldText(el) {
  const value = typeof el.value === "string" ? el.value : "";
  if (!value || el.disabled || !["text", "password", "search", "textarea"].includes(el.type)) return "";
  const field = fieldName(el);
  if (el.required && !value.trim()) return t("err.input.required", { field }); // only spaces
  if (value.includes("\u0000") || !value.isWellFormed()) {
    return t("err.input.bad_character", { field });
  }
  if (el.maxLength > 0 && value.length > el.maxLength) return t("err.input.too_long", { field, limit: el.maxLength });
  return "";
}

const own = (el) => (el.dataset && "whole" in el.dataset ? wholeNumberText(el) : "") || textFieldText(el);

/** The field's name as the member reads it: its label, else its aria-label or placeholder. */
export function fieldName(el) {
  const label = el.labels && el.labels.length ? el.labels[0].textContent : "";
  return (label || el.getAttribute("aria-label") || el.placeholder || el.name || "").trim();
}

/** The words for what is wrong with `el` (an input, select or textarea), or "" if nothing. */
export function validityText(el) {
  const v = el.validity;
  const field = fieldName(el);
  if (!v || v.valid) return "";
  if (v.valueMissing) return t("err.input.required", { field });
  if (v.badInput) return t(el.type === "date" ? "err.input.not_a_date" : el.type === "time" ? "err.input.not_a_time" : "err.input.not_a_number", { field });
  if (v.rangeUnderflow) return t("err.input.too_small", { field, limit: el.min });
  if (v.rangeOverflow) return t("err.input.too_big", { field, limit: el.max });
  if (v.stepMismatch) return t("err.input.not_a_whole_number", { field });
  if (v.tooLong) return t("err.input.too_long", { field, limit: el.maxLength });
  if (v.tooShort) return t("err.input.too_short", { field, limit: el.minLength });
  if (v.typeMismatch || v.patternMismatch) return t("err.input.bad_format", { field });
  return t("err.input.invalid", { field });
}

/** Word every native check of the document in the page's language (once, at start-up). */
export function wordNativeChecks(doc = document) {
  doc.addEventListener("invalid", (ev) => {
    const el = ev.target;
    if (!(el instanceof HTMLElement) || typeof el.setCustomValidity !== "function") return;
    el.setCustomValidity("");
    const text = own(el) || validityText(el);
    if (text) el.setCustomValidity(text);
  }, true);
  const reset = (ev) => {
    if (typeof ev.target?.setCustomValidity === "function") ev.target.setCustomValidity(own(ev.target));
  };
  // A value the browser's checks let through (textFieldText) stops the sending here, before the
  // form's own submit handler runs, and is said on the field like any other check.
  doc.addEventListener("submit", (ev) => {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || form.noValidate) return;
    const bad = [...form.elements].find((el) => typeof el.setCustomValidity === "function" && textFieldText(el));
    if (!bad) return;
    bad.setCustomValidity(textFieldText(bad));
    ev.preventDefault();
    ev.stopImmediatePropagation();
    form.reportValidity();
  }, true);
  doc.addEventListener("input", reset, true);
  doc.addEventListener("change", reset, true);
}
