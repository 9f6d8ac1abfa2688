// Money and whists as the club writes them, on every page: the server's exact amount ("-1096.5",
// "548.00") with two decimals, the language's decimal mark and digit groups and a true minus
// sign; money also with ₽ — «−1 096,50 ₽», «548,00 ₽» in Russian, «548.00 ₽» in English. Done on
// the digits, never through a float, so a kopeck is never lost.
import { lang } from "./i18n.js";

const NUMBER = /^[-+]?\d+(\.\d+)?$/;

/** The digits of a number text in the page's language: a true minus sign, the language's
 * digit groups and decimal mark; `places` fixes the decimals (padded, cut), `null` keeps them. */
function localDigits(text, places) {
  const negative = text.startsWith("-") && /[1-9]/.test(text);
  const [whole, fraction] = text.replace(/^[-+]/, "").split(".");
  const ru = lang() === "ru";
  const grouped = String(BigInt(whole)).replace(/\B(?=(\d{3})+(?!\d))/g, ru ? "\u00a0" : ",");
  const kept = places === null ? fraction : `${fraction ?? ""}${"0".repeat(places)}`.slice(0, places);
  const tail = kept === undefined || kept === "" ? "" : `${ru ? "," : "."}${kept}`;
  return `${negative ? "\u2212" : ""}${grouped}${tail}`;
}

/** `value` (a decimal string or number) with two decimals in the page's language, or the text
 * unchanged when it is not a number. */
export function formatDecimal(value) {
  const text = String(value ?? "").trim();
  return NUMBER.test(text) ? localDigits(text, 2) : text;
}

/** `value` (a decimal string or number of roubles) as the club's money text. */
export function formatMoney(value) {
  const text = String(value ?? "").trim();
  return NUMBER.test(text) ? `${localDigits(text, 2)}\u00a0₽` : text;
}

/** Whists as the sheet writes them: the server's exact figure with the digits it has («−85»,
 * «37,8», «−26,67»), a true minus sign, the language's decimal mark and digit groups. */
export function formatWhists(value) {
  const text = String(value ?? "").trim();
  return NUMBER.test(text) ? localDigits(text, null) : text;
}

/** A sheet write's amount as written beside its column: «+24», «−4», «+37,5» (a true minus). */
export function signedWhists(value) {
  const text = formatWhists(value);
  return Number(value) > 0 ? `+${text}` : text;
}
