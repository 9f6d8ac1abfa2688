// Interface strings: Russian first, English second. Each page's words are a catalogue of their
// own in static/js/i18n/, every key with its Russian and English side by side; this module joins
// them. t(key, vars) falls back to English, then to the key itself, so a missing translation
// never breaks a page.
import admin from "./i18n/admin.js";
import archive from "./i18n/archive.js";
import audit from "./i18n/audit.js";
import common from "./i18n/common.js";
import fund from "./i18n/fund.js";
import lobby from "./i18n/lobby.js";
import login from "./i18n/login.js";
import members from "./i18n/members.js";
import night from "./i18n/night.js";
import recording from "./i18n/recording.js";
import standings from "./i18n/standings.js";
import table from "./i18n/table.js";
import tableBlind from "./i18n/table-blind.js";
import tableWords from "./i18n/table-words.js";

/** Every catalogue by its file's name (static/js/i18n/<name>.js). */
export const CATALOGUES = {
  common, login, lobby, table, "table-words": tableWords, "table-blind": tableBlind, members, archive, fund, admin, audit,
  recording, night, standings,
};

/** The keys two catalogues both define (the unit tests keep it empty). */
export const DUPLICATES = [];

/** Every string by language and key, joined from the catalogues. */
export const STRINGS = { ru: {}, en: {} };

for (const catalogue of Object.values(CATALOGUES)) {
  for (const [key, [ru, en]] of Object.entries(catalogue)) {
    if (key in STRINGS.ru) DUPLICATES.push(key);
    STRINGS.ru[key] = ru;
    STRINGS.en[key] = en;
  }
}

const KEY = "prefclub.lang";

export function lang() {
  const stored = localStorage.getItem(KEY);
  return stored === "en" ? "en" : "ru";
}

export function setLang(value) {
  localStorage.setItem(KEY, value === "en" ? "en" : "ru");
  document.documentElement.lang = lang();
}

const PLURAL_FORM = {
  ru: { one: 0, few: 1, many: 2, other: 1 },
  en: { one: 0, other: 1 },
};

/** The word of `key` that goes with the number `n`: the key's text holds the forms split by
 * "|" — Russian "одна|две|пять" (1 взятка, 2 взятки, 5 взяток; a fraction takes the second),
 * English "one|many" — chosen by the language's plural rules. */
export function tn(key, n) {
  const code = lang();
  const forms = t(key).split("|");
  const form = PLURAL_FORM[code][new Intl.PluralRules(code).select(n)] ?? forms.length - 1;
  return forms[Math.min(form, forms.length - 1)];
}

/** The string `key` in the current language, `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = STRINGS[lang()][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (vars[name] ?? `{${name}}`));
}
