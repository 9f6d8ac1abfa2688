// The table's head: its number, the preset's badge, the connection's state, the tools (the blind
// mode's switch, the turn tone, the keys' help) and the way back to the lobby; and, on a phone,
// the tabs Стол / Пулька / Чат. The head is one part: it is redrawn when the connection, the
// help, the tone or the blind mode changes, not on the table's moves.
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { presetTitle } from "../presets.js";
import { beep, setSound, soundOn } from "./extras.js";
import { part } from "./part.js";

const CONN_WORDS = { open: "table.connectedOk", flooded: "table.flooded", replaced: "table.replaced" };
const KEY_LINES = ["tp.keysBid", "tp.keysPass", "tp.keysDefend", "tp.keysCards", "tp.keysHelp"];

/** The head of the table page `ctx` (`redraw()` redraws the page). */
export function tableHead(ctx, redraw) {
  let helpOpen = false;

  function tools(slice) {
    const button = h("button", { type: "button", class: "link keys-btn", "aria-expanded": helpOpen ? "true" : "false",
      "aria-controls": "keys-help", text: `⌨ ${t("tp.keys")}`, onclick: () => { helpOpen = !helpOpen; redraw(); } });
    const sound = h("button", { type: "button", class: "link sound-btn", "aria-pressed": slice.sound ? "true" : "false",
      title: t("tp.sound"), text: slice.sound ? t("tp.soundOn") : t("tp.soundOff"),
      onclick: () => { setSound(!soundOn()); if (soundOn()) beep(); redraw(); } });
    const help = helpOpen ? h("div", { class: "keys-help", id: "keys-help", role: "dialog", "aria-label": t("tp.keysTitle") },
      h("strong", { text: t("tp.keysTitle") }), h("ul", {}, KEY_LINES.map((k) => h("li", { text: t(k) })))) : null;
    return [ctx.blind.toggle(), sound, button, help];
  }

  const head = part(() => ({ preset: ctx.st.info.preset ?? null, conn: ctx.conn, help: helpOpen, sound: soundOn(),
    blind: ctx.blind.on }),
  (slice) => h("div", { class: "table-head" },
    h("h1", {}, `${t("table.t")} ${ctx.tableId}`),
    slice.preset ? h("span", { class: "badge", "data-testid": "preset", title: t("preset.label"),
      text: presetTitle(slice.preset) }) : null,
    h("span", { class: `conn${slice.conn === "open" || slice.conn === "connecting" ? "" : " down"}`,
      text: t(CONN_WORDS[slice.conn] || "table.reconnecting") }),
    h("span", { class: "head-tools" }, tools(slice)),
    h("a", { href: "#/lobby", text: t("table.back") })));

  return {
    part: head,
    toggleHelp() {
      helpOpen = !helpOpen;
    },
    closeHelp() {
      helpOpen = false;
    },
  };
}

/** The phone's tabs; `choose(key)` shows one of "table", "sheet", "chat" (the page's `data-tab`). */
export function tableTabs(choose) {
  let tab = "table";
  const nav = h("nav", { class: "table-tabs", "aria-label": t("tp.tabs") });
  function draw() {
    clear(nav).append(...[["table", "tp.tab.table"], ["sheet", "tp.tab.sheet"], ["chat", "tp.tab.chat"]].map(([key, label]) =>
      h("button", { type: "button", class: `tab${tab === key ? " active" : ""}`, "aria-pressed": tab === key ? "true" : "false",
        "data-tab": key, text: t(label), onclick: () => {
          tab = key;
          choose(key);
          draw();
        } })));
  }
  draw();
  return nav;
}
