// The table for a blind member (docs/browser.md «Режим для незрячих»; Lichess's blind mode
// does this for chess): one `aria-live` log that says every event in words, a command line
// where bids, cards and questions are typed («6т», «пас», «дп», «рука»), and keys that read
// the hand, the trick, the last trick, the contract, the sheet and the clock. Its elements
// are made once and never re-rendered, so a screen reader hears each line once; the table
// page feeds it messages and asks it for card names.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import {
  actionWords, cardWords, clockWords, contractWords, eventLines, handWords, lastTrickWords, legalWords, moveWords, sheetWords,
  trickWords,
} from "./announce.js";
import { parseTyped } from "./typed.js";

const STORE = "prefclub.blind";
/** Lines kept in the log: a whole deal and then some (a pulka's log stays readable). */
const KEEP = 600;
/** Letters that read a part of the table outside the field, on a Russian or a Latin layout
 * (by the letter typed, not the key's position: «Р» is where «H» is). */
const READ_KEYS = {
  р: "hand", r: "hand", т: "trick", t: "trick", л: "last", l: "last",
  к: "contract", k: "contract", п: "sheet", g: "sheet", о: "clock", o: "clock",
};

export function blindStored() {
  try {
    return localStorage.getItem(STORE) === "1";
  } catch {
    return false;
  }
}

/**
 * The blind mode of one table page. `table` gives what it reads: `state()` (the page's `st`),
 * `nameOf(seat)`, `myMove()`, `deadline()`, `balance()`, `signed(n)`, `send(command)`,
 * `rerender()` (the page redraws when the mode is switched), `place(box)` (puts the mode's
 * section on the page: it is there only while the mode is on) and, at a practice table,
 * `hint()` (the strong bot's suggested action, `"busy"`, or null: docs/bots.md).
 */
export function blindMode(table) {
  let on = blindStored();
  let last = null;
  let said = 0;  // lines said so far: each line's data-n, so a reader of the log can resume
  let sentDiscard = null;
  const log = h("div", { class: "blind-log", role: "log", "aria-live": "polite", "aria-relevant": "additions",
    "aria-label": t("bl.log"), "data-testid": "blind-log", tabindex: "0" });
  const input = h("input", { id: "blind-command", autocomplete: "off", spellcheck: "false",
    "aria-describedby": "blind-command-hint", "data-testid": "blind-command" });
  const form = h("form", { class: "blind-form", onsubmit: (event) => { event.preventDefault(); typed(); } },
    h("label", { for: "blind-command", text: t("bl.command") }), input,
    h("button", { type: "submit", text: t("bl.submit") }),
    h("p", { id: "blind-command-hint", class: "small muted", text: t("bl.commandHint") }));
  const box = h("section", { class: "blind-box", "aria-labelledby": "blind-title", "data-testid": "blind" },
    h("h2", { id: "blind-title", text: t("bl.title") }), form, log);

  /** Append sentences to the log (each a paragraph: a screen reader reads each once). */
  function say(lines) {
    for (const line of lines.filter(Boolean)) {
      said += 1;
      log.append(h("p", { text: line, dataset: { n: said } }));
      last = line;
    }
    while (log.childElementCount > KEEP) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
  }

  const yourMove = () => (table.myMove() ? t("bl.yourMove", { what: moveWords(table.state().legal) }) : null);

  function turnWords() {
    const st = table.state();
    if (table.myMove()) return yourMove();
    const seat = st.deal?.to_move;
    return seat === null || seat === undefined ? t("bl.turnNobody") : t("bl.turnOf", { name: table.nameOf(seat) });
  }

  function read(what) {
    const st = table.state();
    const d = st.deal;
    switch (what) {
      case "hand": return handWords(d?.hand);
      case "trick": return trickWords(d, table.nameOf);
      case "last": return lastTrickWords(d, table.nameOf);
      case "contract": return contractWords(d, table.nameOf);
      case "sheet": {
        const n = st.info.players || d?.players || 3;
        const names = Array.from({ length: n }, (_, i) => table.nameOf(i));
        return sheetWords(st.info.sheet, table.balance(), names, table.signed);
      }
      case "clock": return clockWords(table.deadline(), Date.now());
      case "turn": return turnWords();
      case "legal": return legalWords(table.myMove() || st.legal.some((a) => a.type !== "propose_result") ? st.legal : []);
      case "help": return t("bl.help");
      case "repeat": return last ?? t("bl.nothingYet");
      default: return null;
    }
  }

  /** The practice table's hint, said in the words a typed move uses. */
  async function askHint() {
    if (!table.hint || !table.myMove()) {
      say([t(table.hint ? "bl.legalNone" : "bl.noHint")]);
      return;
    }
    say([t("hint.loading")]);
    const action = await table.hint();
    if (action === "busy") say([t("hint.busy")]);
    else if (action) say([t("hint.suggest", { what: actionWords(action) })]);
    else say([t("bl.noHint")]);
  }

  function typed() {
    const st = table.state();
    const out = parseTyped(input.value, { legal: st.legal, hand: st.deal?.hand });
    if (out.send) {
      if (out.send.type === "discard") sentDiscard = out.send.cards;
      table.send(out.send);
      input.value = "";
      return;
    }
    if (out.read === "hint") {
      input.value = "";
      askHint();
      return;
    }
    if (out.read) {
      say([read(out.read)]);
      input.value = "";
      return;
    }
    const vars = { ...out.vars };
    if (vars.card) vars.card = cardWords(vars.card);
    say([t(out.error, vars)]); // it names what was typed: the field is emptied for the next try
    input.value = "";
  }

  if (on) table.place(box);

  return {
    get on() { return on; },
    /** The head's switch: the page redraws with the mode's card names and focuses the field. */
    toggle() {
      return h("button", { type: "button", class: "link blind-btn", "aria-pressed": on ? "true" : "false",
        title: t("bl.toggleHint"), "data-testid": "blind-toggle", text: t("bl.toggle"), onclick: () => {
          on = !on;
          try {
            localStorage.setItem(STORE, on ? "1" : "0");
          } catch { /* storage off: the mode lasts for this page */ }
          if (on) table.place(box);
          else box.remove();
          table.rerender();
          if (on) {
            say([t("bl.on"), turnWords()]);
            input.focus();
          }
        } });
    },
    /** A card's accessible name: words («дама пик») in the mode, else the page's own. */
    label: (card) => (on ? cardWords(card) : undefined),
    /** A sequenced event (after the page took it in): its sentences, then «Ваш ход» if so. */
    event(msg) {
      if (!on) return;
      const st = table.state();
      const lines = eventLines(msg, { nameOf: table.nameOf, mySeat: st.seat, after: msg.deal, discard: sentDiscard });
      if (msg.type === "action" && (msg.data?.events || []).some((e) => e.type === "discarded")) sentDiscard = null;
      say([...lines, yourMove()]);
    },
    /** A snapshot (the page opened or came back): where the table stands. */
    snapshot() {
      if (!on) return;
      const st = table.state();
      say([t("bl.snapshot", { id: st.info.table_id ?? "", status: contractWords(st.deal, table.nameOf) }), turnWords()]);
    },
    /** A refused command, in the words the page shows. */
    refused(words) {
      if (on) say([t("bl.refused", { why: words })]);
    },
    /** «/» to the command line and the reading keys, outside any field; true when the key was the mode's. */
    key(event) {
      if (on && event.key === "/") {
        input.focus();
        return true;
      }
      const letter = (event.key || "").toLowerCase();
      if (!on || !(letter in READ_KEYS)) return false;
      say([read(READ_KEYS[letter])]);
      return true;
    },
  };
}
