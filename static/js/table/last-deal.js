// The deal just ended, on the side: its contract, calls, tricks and sheet entries in words; under
// it «Проверить сдачу», the browser's own check of the revealed deck against the commitment it
// saw before the cut (verify.js, R-D4; a page opened later fetches the reveal from the archive),
// and «Разбор сдачи», the double-dummy analysis (analysis.js, docs/analysis.md; R-W8: only for
// a deal whose end the server announced). Also the running deal's commitment behind «verify».
import { get } from "../api.js";
import { attempt } from "../app.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { signedWhists } from "../money.js";
import { analysisPath, analysisView, playedTricks } from "./analysis.js";
import { callText, cardLabel } from "./cards.js";
import { part } from "./part.js";
import { verifyDeal } from "./verify.js";
import { entryWords, kindText } from "./words.js";

/**
 * The last deal's box of the table page `ctx` (`ctx.save()` keeps a fetched reveal), with
 * `pulkaId` when the page already knows it; `redraw()` redraws the page.
 */
export function lastDeal(ctx, { pulkaId, redraw }) {
  let verifyOpen = false;
  const verified = {}; // deal_no -> verifyDeal() result
  const fetchedReveal = new Set(); // deal numbers whose reveal was asked of the archive
  const analyses = {}; // deal_no -> {loading: true} | {result}
  const analysisShut = new Set(); // deal numbers whose loaded analysis the player folded

  /** Run the browser's own check of the finished deal (optionally with changed reveal fields). */
  async function verifyFinished(overrides = null) {
    const fin = ctx.st.info.finished_deal;
    if (!fin?.reveal) return null;
    return verifyDeal({ ...fin.reveal, ...(overrides || {}) }, fin.seen || {});
  }

  function check(dealNo) {
    verifyFinished().then((result) => {
      verified[dealNo] = result;
      redraw();
    });
  }

  /**
   * A page opened after the deal ended has not seen its reveal: fetch it from the archive
   * (GET /api/tables/{id}/pulka for the pulka id, then /api/pulkas/{id}/deals/{no}). The check
   * then compares with the commitment this browser remembered before the cut, if it did.
   */
  async function fetchReveal(dealNo) {
    fetchedReveal.add(dealNo);
    const pulka = await get(`/api/tables/${ctx.tableId}/pulka`).catch(() => null);
    const deal = pulka?.id ? await get(`/api/pulkas/${pulka.id}/deals/${dealNo}`).catch(() => null) : null;
    if (!deal?.reveal) return;
    ctx.st.info.finished_deal = { deal_no: dealNo, reveal: deal.reveal, seen: { ...(ctx.st.seen[dealNo] || {}) } };
    ctx.save();
    check(dealNo);
  }

  /**
   * Fetch the analysis of finished deal `dealNo` (GET /api/pulkas/{pulka}/deals/{n}/analysis).
   * The first request computes it for a few seconds in the server's worker pool; `busy` (the
   * pool is full) or any refusal is told by its code and the button comes back.
   */
  async function loadAnalysis(dealNo) {
    analyses[dealNo] = { loading: true };
    redraw();
    const result = await attempt(async () => {
      if (!pulkaId) pulkaId = (await get(`/api/tables/${ctx.tableId}/pulka`)).id;
      return get(analysisPath(pulkaId, dealNo));
    });
    if (result) analyses[dealNo] = { result };
    else delete analyses[dealNo];
    redraw();
  }

  function analysisBox(dealNo) {
    const got = analyses[dealNo];
    if (!got?.result) {
      return h("div", { class: "deal-analysis", "data-testid": "deal-analysis" },
        h("button", { type: "button", id: "deal-analysis-load", class: "small-btn", disabled: Boolean(got?.loading),
          text: t("tp.analysis"), onclick: () => loadAnalysis(dealNo) }),
        got?.loading ? h("p", { class: "small", role: "status", text: t("analysis.loading") }) : null);
    }
    const shut = (closed) => { if (closed) analysisShut.add(dealNo); else analysisShut.delete(dealNo); };
    const details = h("details", { class: "deal-analysis", "data-testid": "deal-analysis", open: !analysisShut.has(dealNo) },
      h("summary", { text: t("tp.analysisOf", { n: dealNo }), onclick: () => shut(details.open) }),
      analysisView(got.result, ctx.nameOf), playedTricks(got.result, ctx.nameOf));
    details.addEventListener("toggle", () => {  // as the verify box: the click decides
      if (!details.isConnected) return;
      shut(!details.open);
    });
    return details;
  }

  function verifyBox(dealNo) {
    const fin = ctx.st.info.finished_deal;
    const usable = fin && fin.deal_no === dealNo && fin.reveal;
    // The open state is taken at the click, not at the "toggle" event that follows it a task
    // later: a box redrawn in between (any message) would otherwise be drawn open again, and a
    // stale element's event must not overwrite the state either.
    const details = h("details", { class: "verify", "data-testid": "verify-deal", open: verifyOpen },
      h("summary", { text: t("tp.verify"), onclick: () => { verifyOpen = !details.open; } }));
    details.addEventListener("toggle", () => {
      if (!details.isConnected) return;
      verifyOpen = details.open;
      if (details.open && !usable && !fetchedReveal.has(dealNo)) fetchReveal(dealNo);
      if (details.open && usable && !verified[dealNo]) check(dealNo);
    });
    if (!usable) {
      details.append(h("p", { class: "small", text: t("tp.verifyNoData") }));
      return details;
    }
    const result = verified[dealNo];
    const r = fin.reveal;
    details.append(h("p", { class: "small", text: t("tp.verifyIntro") }));
    if (result) {
      details.append(h("p", { class: `verdict ${result.ok ? "good" : "bad"}`, "data-testid": "verdict",
        text: result.ok ? `✓ ${t("tp.verifyOk")}` : `✗ ${t("tp.verifyBad")}` }),
      h("ul", { class: "checks" }, result.checks.map((c) => h("li", { class: c.ok ? "good" : "bad", "data-check": c.key },
        `${c.ok ? "✓" : "✗"} ${t(`tp.check.${c.key}`)}`))));
    } else {
      details.append(h("p", { class: "small", text: t("common.loading") }));
    }
    details.append(h("button", { type: "button", class: "small-btn", text: t("tp.verifyRun"), onclick: () => {
      delete verified[dealNo];
      check(dealNo);
    } }),
    h("div", { class: "reveal-data small" },
      h("p", {}, `${t("tp.hash")}: `, h("code", { text: fin.seen?.commitment || r.commitment })),
      h("p", {}, `${t("tp.salt")}: `, h("code", { text: r.salt })),
      h("p", {}, `${t("tp.cutAt")}: ${r.cut}`),
      h("p", {}, `${t("tp.deck")}: `, h("span", { class: "deck-text", title: (r.deck || []).join(" "),
        text: (r.deck || []).map(cardLabel).join(" ") }))));
    return details;
  }

  function lastDealBox(last) {
    const nameOf = ctx.nameOf;
    const o = last.outcome || {};
    let text = `${t("table.deal")} ${last.deal_no}: `;
    if (o.type === "pass_out") text += t("table.passOut");
    else if (o.contract) text += `${callText(o.contract)} — ${nameOf(o.declarer)} (${kindText(o)})`;
    else text += kindText(o);
    const defence = o.defence ? Object.entries(o.defence).map(([s, c]) => `${nameOf(Number(s))}: ${callText(c)}`).join(", ") : "";
    const tricks = o.tricks ? Object.entries(o.tricks).map(([s, k]) => `${nameOf(Number(s))} ${k}`).join(", ") : "";
    const columns = { pool: t("table.pool"), hill: t("table.hill"), whists: t("table.whists") };
    const all = last.entries || [];
    const entries = all.map((e) => {
      const who = e.column === "whists" ? `${nameOf(e.seat)} → ${nameOf(e.on)}` : nameOf(e.seat);
      return h("li", {}, `${who}: ${columns[e.column] || e.column} ${signedWhists(e.amount)} `,
        h("span", { class: "rule-word", text: `— ${entryWords(e, all)}` }));
    });
    return h("section", { class: "card deal-result side-sheet", "data-testid": "last-deal" },
      h("h2", { text: t("table.dealEnded") }), h("p", { text }),
      defence ? h("p", { class: "small", text: defence }) : null,
      tricks ? h("p", { class: "small", text: `${t("table.tricks")}: ${tricks}` }) : null,
      entries.length ? h("ul", { class: "small entries" }, entries) : null,
      verifyBox(last.deal_no),
      analysisBox(last.deal_no));
  }

  const box = part(() => {
    const last = ctx.st.info.last_deal;
    if (!last) return null;
    const fin = ctx.st.info.finished_deal;
    const got = analyses[last.deal_no];
    return { last, names: ctx.names(), fin: fin && { no: fin.deal_no, reveal: fin.reveal, seen: fin.seen?.commitment },
      verifyOpen, verified: verified[last.deal_no] ?? null,
      analysis: got?.result ? "ready" : got?.loading ? "loading" : "none", shut: analysisShut.has(last.deal_no) };
  }, (slice) => (slice ? lastDealBox(slice.last) : null));

  return {
    part: box,
    verifyFinished,
    /** A new deal's end folds the check again. */
    foldCheck() {
      verifyOpen = false;
    },
  };
}

/** The running deal's commitment, announced before the cut, behind «verify the deal». */
export function currentCheckPart(ctx) {
  return part(() => {
    const d = ctx.st.deal;
    return d?.commitment && !d.finished ? d.commitment : null;
  }, (commitment) => (commitment ? h("details", { class: "verify small", "data-testid": "verify-current" },
    h("summary", { text: t("tp.verify") }),
    h("p", { text: t("tp.verifyPending") }), h("code", { class: "commit", text: commitment })) : null));
}
