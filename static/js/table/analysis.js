// The deal analysis as a page shows it (issue 15, docs/analysis.md): the makeable table (tricks
// per player and strain, misère caught or clean), the played contract with open cards, the best
// discard, the pass-out minimums and the costly cards ("−1 здесь" with the better card). Shared by
// the archive's replay page and the live table's «Разбор сдачи» panel.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { SUIT_SYMBOL, callText, cardLabel } from "./cards.js";

const STRAINS = ["S", "C", "D", "H", "NT"];

/** The analysis URL of finished deal `dealNo` of pulka `pulkaId` (GET, docs/analysis.md). */
export function analysisPath(pulkaId, dealNo) {
  return `/api/pulkas/${pulkaId}/deals/${dealNo}/analysis`;
}

/** trick number -> card -> the play mark, for the costly cards only. */
export function costlyMarks(a) {
  const marks = {};
  for (const m of a.plays) if (m.loss > 0) (marks[m.trick] ||= {})[m.card] = m;
  return marks;
}

function makeableTable(a, nameOf) {
  const head = h("tr", {}, h("th", { scope: "col", text: t("analysis.player") }),
    STRAINS.map((s) => h("th", { scope: "col", text: s === "NT" ? callText("6NT").replace(/^6\s*/, "") : SUIT_SYMBOL[s] })),
    h("th", { scope: "col", text: t("analysis.misere") }));
  const rows = a.seats.map((seat) => {
    const m = a.misere[String(seat)];
    return h("tr", { "data-seat": seat }, h("th", { scope: "row", text: nameOf(seat) }),
      STRAINS.map((s) => h("td", { "data-strain": s, text: String(a.makeable[String(seat)][s]) })),
      h("td", { "data-strain": "misere", text: m.caught ? t("analysis.caught", { n: m.tricks }) : t("analysis.clean") }));
  });
  return h("table", { class: "makeable", "data-testid": "makeable" }, h("thead", {}, head), h("tbody", {}, rows));
}

/** One costly card in words: "взятка 3: Анна — 10♠: −1 здесь (лучше: В♠, Д♠)". */
function markText(m, nameOf) {
  const better = m.better.length ? ` (${t("analysis.better", { cards: m.better.map(cardLabel).join(", ") })})` : "";
  return `${t("analysis.mark", { trick: m.trick, name: nameOf(m.seat), card: cardLabel(m.card), loss: m.loss })}${better}`;
}

/**
 * The cards played trick by trick, each costly card marked "−1" beside it (its title names the
 * better card): where the replay page steps through the tricks, the live table shows this list.
 */
export function playedTricks(a, nameOf) {
  const tricks = new Map();
  for (const m of a.plays) {
    if (!tricks.has(m.trick)) tricks.set(m.trick, []);
    tricks.get(m.trick).push(m);
  }
  if (!tricks.size) return null;
  const cardText = (m) => h("span", { class: m.loss > 0 ? "costly" : null },
    `${nameOf(m.seat)} ${cardLabel(m.card)}`,
    m.loss > 0 ? h("span", { class: "loss", "data-testid": "loss", text: ` −${m.loss}`,
      title: m.better.length ? t("analysis.better", { cards: m.better.map(cardLabel).join(", ") }) : null }) : null);
  const items = [...tricks.entries()].map(([no, cards]) => h("li", { value: no, "data-trick": no },
    cards.map((m, i) => [i ? ", " : null, cardText(m)])));
  return h("details", { class: "played-tricks", "data-testid": "played-tricks" },
    h("summary", { text: t("analysis.byTrick") }), h("ol", {}, items));
}

/** The analysis panel's content: the makeable table, the contract, discard, pass-out and marks. */
export function analysisView(a, nameOf) {
  const out = [h("p", { class: "small", text: t("analysis.hint") }), makeableTable(a, nameOf)];
  const c = a.contract;
  if (c) {
    out.push(h("p", { "data-testid": "dd-contract", text: t(c.misere ? "analysis.misereContract" : "analysis.contract", { dd: c.tricks, taken: c.taken ?? "—" }) }));
  }
  const d = a.best_discard;
  if (d) {
    out.push(h("p", { "data-testid": "best-discard", text: t("analysis.bestDiscard", {
      cards: d.cards.map(cardLabel).join(" "), tricks: d.tricks, actual: d.actual.map(cardLabel).join(" "), actualTricks: d.actual_tricks }) }));
  }
  if (a.pass_out) {
    out.push(h("p", { text: t("analysis.passOut") }), h("ul", { "data-testid": "pass-out" },
      a.seats.map((seat) => {
        const p = a.pass_out[String(seat)];
        return h("li", { "data-seat": seat, text: `${nameOf(seat)}: ${t("analysis.heldTo", { held: p.held_to, taken: p.taken })}` });
      })));
  }
  const costly = a.plays.filter((m) => m.loss > 0);
  out.push(h("h3", { text: t("analysis.plays") }), costly.length
    ? h("ul", { "data-testid": "marks" }, costly.map((m) => h("li", { text: markText(m, nameOf) })))
    : h("p", { "data-testid": "marks", text: t("analysis.noMistakes") }));
  if (!a.plays_complete) out.push(h("p", { class: "small", text: t("analysis.partial") }));
  return out;
}
