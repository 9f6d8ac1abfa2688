// Where the table stands, over the trick: the status line (the deal, its phase and whose move,
// or why the table waits or how the pulka ended) and the contract bar (the contract, the whist
// calls, the tricks per seat and the auction as a compact history). Two parts of the page.
import { h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { callClass, callText } from "./cards.js";
import { part } from "./part.js";
import { endedText } from "./words.js";

function statusLine({ status, ended, notice, dealNo, phase, toMove, seat, toMoveName }) {
  if (status === "finished") {
    return h("p", { class: "status-line" }, h("strong", { text: t("table.finished") }), h("br"), endedText(ended, notice));
  }
  if (status === "waiting" && !dealNo) {
    // a club table seated before its session: the server deals the first deal by itself
    return h("p", { class: "status-line", "data-testid": "waiting-first", text: t("tp.waitingFirst") });
  }
  if (status === "waiting") {
    return h("p", { class: "status-line", text: lang() === "en" && notice ? notice : t("tp.waiting") });
  }
  if (!phase) return h("p", { class: "status-line", text: t("common.loading") });
  let who = "";
  if (toMove !== null && toMove !== undefined) {
    who = toMove === seat ? t("table.yourMove") : `${t("table.toMove")}: ${toMoveName}`;
  }
  return h("p", { class: "status-line", role: "status" }, `${t("table.deal")} ${dealNo || ""} · ${t(`table.phase.${phase}`)}`,
    who ? " · " : null, who ? h("strong", { text: who }) : null);
}

export function statusPart(ctx) {
  return part(() => {
    const { info, deal: d, seat } = ctx.st;
    return { status: info.status, ended: info.ended, notice: info.notice, dealNo: info.deal_no, phase: d?.phase,
      toMove: d?.to_move, seat, toMoveName: d && d.to_move !== null && d.to_move !== undefined ? ctx.nameOf(d.to_move) : null };
  }, statusLine);
}

/** The contract, the whist calls and the tricks per seat; the auction as a compact history. */
function contractBar({ playing, d, names }) {
  if (!d || !playing) return null;
  const nameOf = (seat) => names[seat];
  const parts = [];
  if (d.contract) parts.push(h("span", { class: "cb-contract" }, `${t("table.contract")}: `,
    h("strong", { class: callClass(d.contract), text: callText(d.contract) }), ` — ${nameOf(d.declarer)}`));
  else if (d.kind === "pass_out") parts.push(h("strong", { text: t("table.passOut") }));
  if (d.defence.length) {
    parts.push(h("span", {}, `${t("tp.defence")}: `,
      d.defence.map((a) => `${nameOf(a.seat)} — ${callText(a.call)}`).join(", ")));
  }
  if (["play", "done"].includes(d.phase) && d.tricks) {
    parts.push(h("span", { "data-testid": "tricks" }, `${t("tp.tricksBy")}: `,
      Object.entries(d.tricks).map(([s, n]) => `${nameOf(Number(s))} ${n}`).join(", ")));
  }
  const auction = d.auction.length ? h("div", { class: `auction-log${d.phase === "auction" ? "" : " compact"}`,
    "aria-label": t("table.bidding"), "data-testid": "auction" },
  h("span", { class: "lbl", text: `${t("tp.auction")}:` }),
  d.auction.map((a) => h("span", { class: callClass(a.call) }, `${nameOf(a.seat)}: ${callText(a.call)}`))) : null;
  if (!parts.length && !auction) return null;
  return h("div", { class: "contract-bar", "data-testid": "contract-bar" },
    parts.length ? h("div", { class: "cb-line" }, parts.map((p, i) => [i ? " · " : null, p])) : null, auction);
}

export function contractPart(ctx) {
  return part(() => {
    const d = ctx.st.deal;
    const playing = ctx.st.info.status === "playing";
    if (!d || !playing) return null;
    return { playing, names: ctx.seatNames(), d: { contract: d.contract, declarer: d.declarer, kind: d.kind,
      defence: d.defence, phase: d.phase, tricks: d.tricks, auction: d.auction } };
  }, (slice) => (slice ? contractBar(slice) : null));
}
