// Deal replay (#/replay/<pulka>/<deal>): a finished deal from the archive, stepped through trick
// by trick — the hands as dealt, the auction, talon and discard, the defence, every trick with
// its winner, the sheet entries, and the R-D4 check of the shuffle (the server re-runs the
// engine's verify on the revealed deck and salt; the badge shows its verdict). The analysis panel
// fetches the deal's double-dummy analysis on demand (docs/analysis.md) and marks the costly cards.
import { get } from "../api.js";
import { attempt } from "../app.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { signedWhists } from "../money.js";
import { analysisPath, analysisView, costlyMarks } from "../table/analysis.js";
import { callClass, callText, cardFace, cardLabel, sortHand } from "../table/cards.js";
import { claimWords, entryWords } from "../table/words.js";
import { archiveCss, outcomeText } from "./archive-common.js";

export async function renderReplay(root, { args }) {
  archiveCss();
  const [pulkaId, dealNo] = args.map(Number);
  const deal = await attempt(() => get(`/api/pulkas/${pulkaId}/deals/${dealNo}`));
  if (!deal) {
    root.append(h("p", {}, h("a", { href: "#/history", text: t("archive.back") })));
    return undefined;
  }
  const names = deal.names;
  const nameOf = (s) => (s < 0 ? t("table.talon") : names[s] ?? `${t("table.seat")} ${s + 1}`);
  const total = deal.tricks.length;
  let step = 0;
  let marks = null; // trick number -> card -> mark, once the analysis is loaded

  // The cards each seat held for play: the declarer's hand is the dealt one with the talon
  // taken and the discard put away.
  const start = {};
  for (const seat of deal.active) {
    let cards = [...(deal.dealt[String(seat)] || [])];
    if (seat === deal.declarer && deal.discard) {
      cards = cards.concat(deal.talon || []).filter((c) => !deal.discard.includes(c));
    }
    start[seat] = cards;
  }

  const prevLink = dealNo > 1 ? h("a", { href: `#/replay/${pulkaId}/${dealNo - 1}`, text: `← ${t("archive.prevDeal")}` }) : null;
  const nextLink = dealNo < deal.deals ? h("a", { href: `#/replay/${pulkaId}/${dealNo + 1}`, text: `${t("archive.nextDeal")} →` }) : null;
  const badge = h("span", {
    class: `verify ${deal.verified ? "good" : "bad"}`, "data-testid": "verify",
    title: t("archive.verifyHint"),
    text: deal.verified ? `✓ ${t("archive.verified")}` : `✗ ${t("archive.notVerified")}`,
  });
  root.append(
    h("h1", {}, `${t("archive.deal")} ${dealNo} · ${t("archive.pulka")} ${pulkaId} `, badge),
    h("p", { class: "actions" }, h("a", { href: "#/history", text: t("archive.back") }), prevLink, nextLink));

  const seatsBox = h("div", { class: "replay-seats" });
  const trickBox = h("div", { class: "replay-trick", "aria-live": "polite" });
  const counter = h("span", { "data-testid": "step" });
  const btn = (label, text, to) => h("button", { type: "button", "aria-label": label, text, onclick: () => show(to()) });
  const controls = h("div", { class: "replay-controls" },
    btn(t("archive.first"), "«", () => 0), btn(t("archive.prev"), "◀", () => step - 1),
    counter,
    h("button", { type: "button", id: "replay-next", "aria-label": t("archive.next"), text: "▶", onclick: () => show(step + 1) }),
    btn(t("archive.last"), "»", () => total));

  function show(k) {
    step = Math.max(0, Math.min(total, k));
    const played = new Set();
    const taken = {};
    for (const trick of deal.tricks.slice(0, step)) {
      for (const c of trick.cards) played.add(c.card);
      taken[trick.winner] = (taken[trick.winner] || 0) + 1;
    }
    const current = step > 0 ? deal.tricks[step - 1] : null;
    clear(seatsBox).append(...deal.active.map((seat) => {
      const cards = step === 0 ? deal.dealt[String(seat)] || [] : start[seat].filter((c) => !played.has(c));
      const roles = [seat === deal.dealer ? t("table.dealer") : null, seat === deal.declarer ? t("table.declarer") : null]
        .filter(Boolean).join(", ");
      return h("div", { class: `replay-seat${current && current.winner === seat ? " won" : ""}`, "data-seat": seat },
        h("h3", {}, nameOf(seat), roles ? ` (${roles})` : "", step > 0 ? ` · ${t("table.tricks")}: ${taken[seat] || 0}` : ""),
        h("div", { class: "cards" }, sortHand(cards).map((c) => cardFace(c, { small: true }))));
    }));
    counter.textContent = `${t("table.trick")} ${step} / ${total}`;
    clear(trickBox);
    if (current) {
      trickBox.append(
        h("div", { class: "trick", role: "group", "aria-label": `${t("table.trick")} ${step}` },
          current.cards.map((c) => {
            const mark = marks?.[step]?.[c.card];
            return h("div", { class: "trick-card" }, cardFace(c.card), h("span", { text: nameOf(c.seat) }),
              mark ? h("span", { class: "loss", "data-testid": "loss", title: t("analysis.better", { cards: mark.better.map(cardLabel).join(", ") }), text: ` −${mark.loss}` }) : null);
          })),
        h("div", { "data-testid": "winner", text: `${t("archive.takes")}: ${nameOf(current.winner)}` }));
    } else {
      trickBox.append(h("div", { text: total ? t("archive.asDealt") : t("archive.noTricks") }));
    }
  }

  const talon = deal.talon || [];
  const felt = h("div", { class: "felt" },
    h("div", { class: "actions", style: "color:#fff" }, `${t("table.talon")}: `,
      h("span", { class: "cards", "data-testid": "talon" }, talon.map((c) => cardFace(c, { small: true }))),
      deal.discard ? [` ${t("table.discard")}: `, h("span", { class: "cards" }, deal.discard.map((c) => cardFace(c, { small: true })))] : null),
    seatsBox, trickBox, controls);

  const auction = h("div", { class: "auction-log", "data-testid": "auction" },
    deal.auction.map((c) => h("span", { class: `call ${callClass(c.call)}`, text: `${nameOf(c.seat)}: ${callText(c.call)}` })));
  const defence = deal.defence.length
    ? h("p", {}, `${t("archive.defence")}: `, deal.defence.map((d) => `${nameOf(d.seat)} — ${callText(d.call)}`).join(", "))
    : null;
  const entries = h("ul", { class: "entries", "data-testid": "entries" }, deal.entries.map((e) => h("li", {
    text: `${e.on !== undefined && e.on !== null ? `${nameOf(e.seat)} → ${nameOf(e.on)}` : nameOf(e.seat)}: `
      + `${t(`table.${e.column}`)} ${signedWhists(e.amount)} — ${entryWords(e, deal.entries)}` })));
  const reveal = deal.reveal;
  const side = h("div", { class: "side" },
    h("section", { class: "card" },
      h("h2", { text: t("table.bidding") }), auction,
      h("p", {}, `${t("table.dealer")}: ${nameOf(deal.dealer)}`),
      deal.contract ? h("p", {}, `${t("table.contract")}: `, h("strong", { text: callText(deal.contract) })) : null,
      defence,
      h("p", { class: "deal-result", "data-testid": "outcome", text: outcomeText(deal.outcome, names) }),
      endLine(deal, nameOf),
      entries),
    h("section", { class: "card" },
      h("h2", { text: t("archive.check") }), badge.cloneNode(true),
      h("p", { class: "small", text: t("archive.verifyHint") }),
      h("details", {},
        h("summary", { text: t("archive.revealData") }),
        h("div", { class: "reveal-data" },
          h("p", {}, `${t("table.commitment")}: ${reveal.commitment}`),
          h("p", {}, `salt: ${reveal.salt}`), h("p", {}, `cut: ${reveal.cut}`),
          h("p", {}, `deck: ${reveal.deck.join(" ")}`)))));

  root.append(h("div", { class: "replay" }, felt, side));
  const analysisBox = h("section", { class: "card analysis", "data-testid": "analysis" },
    h("h2", { text: t("analysis.title") }));
  const load = h("button", { type: "button", id: "analysis-load", text: t("analysis.show"), onclick: async () => {
    load.disabled = true;
    const wait = h("p", { text: t("analysis.loading") });
    analysisBox.append(wait);
    const result = await attempt(() => get(analysisPath(pulkaId, dealNo)));
    wait.remove();
    if (!result) { load.disabled = false; return; }
    load.remove();
    marks = costlyMarks(result);
    analysisBox.append(...analysisView(result, nameOf));
    show(step);
  } });
  analysisBox.append(load);
  root.append(analysisBox);
  show(0);
  const keys = (ev) => {
    if (ev.target.closest("input, textarea, select")) return;
    if (ev.key === "ArrowRight") show(step + 1);
    else if (ev.key === "ArrowLeft") show(step - 1);
  };
  document.addEventListener("keydown", keys);
  return () => document.removeEventListener("keydown", keys);
}

/** How the play ended when it was not played out (R-W11, R-C4): the claim in its words. */
function endLine(deal, nameOf) {
  let text = null;
  if (deal.end === "claim") {
    const claim = deal.events.filter((e) => e.type === "claim_accepted").at(-1);
    if (claim) {
      const what = claimWords({ kind: deal.kind, declarer: deal.declarer, seat: claim.seat, tricks: claim.tricks });
      text = t("tp.claim.ended", { who: nameOf(claim.seat), what });
    }
  } else if (deal.end === "agreement") text = t("tp.claim.agreed");
  else if (deal.end === "conceded") text = t("tp.claim.conceded");
  return text ? h("p", { class: "deal-end", "data-testid": "deal-end", text }) : null;
}
