// The table's keys (the head's help lists them): a digit 6–9/0 then S C D H N bids or names the
// contract, P pass, M misère, E here, W / P / H whist / pass / half-whist, ← → pick a card and
// Enter plays it, ? the help, Esc closes it; the blind mode's reading keys first. A key presses
// the very button a click would, so a move by key is shown at once as a click's is.

const KEY_LEVELS = { Digit6: 6, Digit7: 7, Digit8: 8, Digit9: 9, Digit0: 10, Numpad6: 6, Numpad7: 7,
  Numpad8: 8, Numpad9: 9, Numpad0: 10 };
const KEY_STRAINS = { KeyS: "S", KeyC: "C", KeyD: "D", KeyH: "H", KeyN: "NT" };
const CARDS = "[data-testid=my-hand] button.card-face:not(:disabled), [data-testid^=open-hand-] button.card-face:not(:disabled)";

/**
 * The keydown handler of the table page `ctx` whose controls are under `felt`; `head` is the
 * page's head (its help), `redraw()` redraws the page.
 */
export function tableKeys(ctx, { felt, head, redraw }) {
  let pendingLevel = null;

  function clickIf(selector) {
    const el = felt.querySelector(selector);
    if (el && !el.disabled) {
      el.click();
      return true;
    }
    return false;
  }

  function moveFocus(step) {
    const cards = [...felt.querySelectorAll(CARDS)];
    if (!cards.length) return false;
    const at = cards.indexOf(document.activeElement);
    const next = at < 0 ? (step > 0 ? 0 : cards.length - 1) : (at + step + cards.length) % cards.length;
    cards[next].focus();
    return true;
  }

  /** A bid (or the named contract) typed as a level, then a strain; P, M, E. */
  function bidKey(code, prefix) {
    if (code in KEY_LEVELS) {
      pendingLevel = KEY_LEVELS[code];
      return true;
    }
    if (pendingLevel && code in KEY_STRAINS) {
      clickIf(`#${prefix}-${pendingLevel}${KEY_STRAINS[code]}`);
      pendingLevel = null;
      return true;
    }
    pendingLevel = null;
    if (code === "KeyP") return clickIf("#bid-pass");
    if (code === "KeyM") return clickIf(`#${prefix}-misere`) || clickIf("[data-testid=actions] button[data-call=misere]");
    if (code === "KeyE") return clickIf("#bid-here");
    return false;
  }

  return function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
    if (event.key === "?") {
      head.toggleHelp();
      redraw();
      event.preventDefault();
      return;
    }
    if (ctx.blind.key(event)) {
      event.preventDefault();
      return;
    }
    if (event.key === "Escape") {
      head.closeHelp();
      pendingLevel = null;
      redraw();
      return;
    }
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      if (moveFocus(event.key === "ArrowRight" ? 1 : -1)) event.preventDefault();
      return;
    }
    const d = ctx.st.deal;
    if (!d) return;
    if (d.phase === "auction" || ctx.legalOf("name_contract").length) {
      if (bidKey(event.code, d.phase === "auction" ? "bid" : "contract")) event.preventDefault();
      return;
    }
    const calls = { KeyW: "whist", KeyP: "pass", KeyH: "half" };
    if (event.code in calls && clickIf(`[data-testid=actions] button[data-call=${calls[event.code]}]`)) event.preventDefault();
  };
}
