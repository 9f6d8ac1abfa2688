// Money as the club writes it, on every page: the server's exact amount ("-1096.5", "548.00")
// with two decimals, the language's decimal mark and digit groups, a true minus sign and ₽ —
// «−1 096,50 ₽», «548,00 ₽» in Russian, «548.00 ₽» in English. Done on the digits, never
// through a float, so a kopeck is never lost.
import { lang } from "./i18n.js";

/** `value` (a decimal string or number of roubles) as the club's money text. */
export function formatMoney(value) {
  const text = String(value ?? "").trim();
  if (!/^[-+]?\d+(\.\d+)?$/.test(text)) return text;
  const negative = text.startsWith("-") && /[1-9]/.test(text);
  const [whole, fraction = ""] = text.replace(/^[-+]/, "").split(".");
  const ru = lang() === "ru";
  const grouped = String(BigInt(whole)).replace(/\B(?=(\d{3})+(?!\d))/g, ru ? "\u00a0" : ",");
  const kopecks = `${fraction}00`.slice(0, 2);
  return `${negative ? "\u2212" : ""}${grouped}${ru ? "," : "."}${kopecks}\u00a0₽`;
}
