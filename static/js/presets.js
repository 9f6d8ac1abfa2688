// The rule sets' presets as the server describes them (GET /api/presets, issue 25): the lobby's
// preset choice, the table's bidding box and talon button and the recording form are built from
// this answer, so no page names a preset and a rule set added on the server needs no change here.
import { get } from "./api.js";
import { lang } from "./i18n.js";

let loaded = null;
let list = [];

/** Fetch the presets once per page load; later calls reuse the answer. */
export async function loadPresets() {
  if (!loaded) {
    loaded = get("/api/presets").then((body) => { list = body.presets; return list; })
      .catch((err) => { loaded = null; throw err; });
  }
  return loaded;
}

/** Every preset, the club's first (after loadPresets). */
export function presetList() {
  return list;
}

/** The description of preset `name`, or null when the server does not know it. */
export function presetOf(name) {
  return list.find((p) => p.name === name) ?? null;
}

/** The preset's name in the player's language (its code when unknown). */
export function presetTitle(name) {
  const p = presetOf(name);
  return p ? (p.title[lang()] ?? p.title.en) : String(name);
}

/** The preset a new table gets when nobody chooses: the first the server lists. */
export function defaultPreset() {
  return list.length ? list[0].name : "";
}
