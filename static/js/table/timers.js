// The move timer's countdown (or the cut's) when the server keeps a deadline for this table,
// with what happens at zero. The part is redrawn only when the deadline or the seat to move
// changes; the page's once-a-second ticker (extras.js `tick`) refreshes its clock in between.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { tick } from "./extras.js";
import { part } from "./part.js";

/** The countdown's data, or null when there is none to show (ctx: the table page's context). */
function timerSlice(ctx) {
  const { deal: d, info, seat } = ctx.st;
  const deadline = ctx.deadline();
  if (!d || !deadline || info.status !== "playing" || d.to_move === null || d.to_move === undefined) return null;
  const at = Date.parse(deadline);
  if (!Number.isFinite(at)) return null;
  const mine = d.to_move === seat;
  return { at, mine, key: d.phase === "cut" ? "tp.cutTimer" : mine ? "tp.moveTimerMe" : "tp.moveTimer" };
}

function timerView(slice) {
  if (!slice) return null;
  const line = h("span", { class: "countdown", "data-deadline": slice.at, "data-key": slice.key });
  tick(h("div", {}, line));
  return h("div", { class: `move-timer${slice.mine ? " mine" : ""}`, role: "timer", "data-testid": "move-timer" },
    line, h("span", { class: "small", text: ` ${t("tp.timeoutRule")}` }));
}

export function timerPart(ctx) {
  return part(() => timerSlice(ctx), timerView);
}
