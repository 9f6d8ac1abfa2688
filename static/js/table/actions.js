// The player's controls (the "panel" under his hand): the cut, picking the cards up, the bidding
// box of the table's preset with only the legal calls enabled, taking (or buying) and returning
// the talon, the discard, naming the contract, whist / pass / half-whist, open or closed play,
// accepting a result, the claims in words, a button for any legal command without a control of
// its own, the practice table's hint, and «next deal» between deals. One part: redrawn only when
// the legal moves, the selection for the discard, the hint or what the words depend on changed.
import { post } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { callClass, callText, cardFace, cardLabel } from "./cards.js";
import { part } from "./part.js";
import { claimWords } from "./words.js";

const LEVELS = [6, 7, 8, 9, 10];
const STRAINS = ["S", "C", "D", "H", "NT"];

/** The suggested call or card in words (cards.js's labels: the page's language). */
function hintWords(a) {
  if (a.card) return cardLabel(a.card);
  if (a.cards) return a.cards.map(cardLabel).join(", ");
  if (a.call) return callText(a.call);
  if (a.contract) return callText(a.contract);
  if (a.type === "cut") return `${t("table.cut")}: ${a.position}`;
  return a.type;
}

/** Words for an action this page has no own control for (the misère invitation R-B9, the
 * dealer's look at a hand R-W4, …); a numbered "action" only for what it cannot name. */
function actionText(a, i, names) {
  if (a.type === "invite_misere") return t("tp.act.inviteMisere");
  if (a.type === "answer_invitation") return t(a.accept ? "tp.act.acceptInvitation" : "tp.act.declineInvitation");
  if (a.type === "look_at_hand") return t("tp.act.lookAt", { name: names[a.target] || `#${a.target + 1}` });
  return `${t("tp.action")} ${i + 1}`;
}

/**
 * The controls of the table page `ctx`: `selected` is the set of cards chosen for the discard,
 * `move(command, button)` sends a move shown at once, `redraw()` redraws the page, `practice`
 * says whether the hint is offered.
 */
export function actions(ctx, { selected, move, redraw, practice }) {
  let hint = null; // { seq, text }: the strong bot's move for this seat at seq (docs/bots.md)
  const legalOf = (type) => ctx.st.legal.filter((a) => a.type === type);

  function bidBox() {
    const legal = new Set(legalOf("bid").map((a) => a.call));
    const box = h("div", { class: "bidbox", role: "group", "aria-label": t("table.bidding"), "data-testid": "bidbox" });
    const bid = (call) => (e) => move({ type: "bid", call }, e.currentTarget);
    // the preset's own box (GET /api/presets): its ladder, the calls with a name of their own
    // (K-4: 6♥ "преферанс"), the games without the talon, the special calls
    const rules = ctx.presetRules();
    for (const call of rules.ladder) {
      const named = rules.named_calls[call];
      const label = named ? `${callText(call)} ${t(named)}` : callText(call);
      box.append(h("button", { type: "button", class: named ? `${callClass(call)} named` : callClass(call),
        disabled: !legal.has(call), id: `bid-${call}`, "aria-label": label, dataset: { call }, text: label,
        onclick: bid(call) }));
    }
    const noTalon = rules.ladder_no_talon && [...legal].some((c) => c.endsWith("BP"));
    if (noTalon) {  // games without the talon
      for (const call of rules.ladder.map((c) => `${c}BP`)) {
        box.append(h("button", { type: "button", class: callClass(call), disabled: !legal.has(call),
          id: `bid-${call}`, "aria-label": callText(call), dataset: { call }, text: callText(call), onclick: bid(call) }));
      }
    }
    const bpOn = noTalon || legal.has("misere_bp");
    const specials = rules.special_calls.filter((call) => call !== "misere_bp" || bpOn);
    box.append(h("div", { class: "specials" }, specials.map((call) =>
      h("button", { type: "button", disabled: !legal.has(call), dataset: { call }, text: callText(call),
        id: `bid-${call}`, class: call === "pass" ? "primary" : "", onclick: bid(call) }))));
    const dark = [...legal].filter((c) => c.startsWith("dark_"));  // before looking
    if (dark.length) {
      box.append(h("div", { class: "specials dark", "data-testid": "dark-calls", "aria-label": t("table.darkCalls") },
        h("span", { class: "small muted", text: t("table.darkCalls") }),
        dark.slice(0, 11).map((call) => h("button", { type: "button", dataset: { call }, text: callText(call),
          class: callClass(call), id: `bid-${call}`, onclick: bid(call) }))));
    }
    return box;
  }

  function cutControls(cuts) {
    const positions = cuts.map((a) => a.position);
    const range = h("input", { type: "range", min: Math.min(...positions), max: Math.max(...positions),
      value: positions[Math.floor(positions.length / 2)], id: "cut-pos", "aria-label": t("table.cut") });
    const out = h("output", { for: "cut-pos", text: range.value });
    range.addEventListener("input", () => { out.textContent = range.value; });
    // a random position from the browser's crypto source; or the default: the server cuts in
    // the middle (`"auto": true`), as the move timer does when the countdown runs out (a
    // table without a timer calls it what it is, a cut in the middle)
    const timed = Boolean(ctx.moveTimer());
    const random = () => {
      const pick = new Uint32Array(1);
      crypto.getRandomValues(pick);
      ctx.send({ type: "cut", position: positions[pick[0] % positions.length] });
    };
    return [h("h2", { text: t("table.cut") }), h("p", { class: "small", text: t("table.cutHint") }),
      h("div", { class: "actions" }, range, out,
        h("button", { type: "button", class: "primary", text: t("table.cut"),
          onclick: () => ctx.send({ type: "cut", position: Number(range.value) }) }),
        h("button", { type: "button", id: "cut-random", text: t("tp.cutRandom"), onclick: random }),
        h("button", { type: "button", id: "cut-auto", text: t(timed ? "tp.cutAuto" : "tp.cutMiddle"),
          title: t(timed ? "tp.cutAutoHint" : "tp.cutMiddleHint"),
          "data-testid": "cut-auto", onclick: () => ctx.send({ type: "cut", auto: true }) })),
      h("p", { class: "small muted", text: t(timed ? "tp.cutAutoHint" : "tp.cutMiddleHint") })];
  }

  function contractBox(contracts) {
    const legal = new Set(contracts.map((a) => a.contract));
    const name = (contract) => (e) => move({ type: "name_contract", contract }, e.currentTarget);
    const box = h("div", { class: "bidbox", role: "group", "aria-label": t("table.contract") });
    for (const level of LEVELS) {
      for (const strain of STRAINS) {
        const call = `${level}${strain}`;
        box.append(h("button", { type: "button", class: callClass(call), disabled: !legal.has(call), dataset: { call },
          id: `contract-${call}`, text: callText(call), onclick: name(call) }));
      }
    }
    box.append(h("div", { class: "specials" },
      h("button", { type: "button", disabled: !legal.has("misere"), dataset: { call: "misere" }, text: callText("misere"),
        onclick: name("misere") })));
    return box;
  }

  function hintBox() {
    const shown = hint && hint.seq === ctx.st.seq ? hint.text : null;
    return h("div", { class: "actions hint", "data-testid": "hint" },
      h("button", { type: "button", text: t("hint.button"), onclick: async () => {
        const seq = ctx.st.seq;
        hint = { seq, text: t("hint.loading") };
        redraw();
        const out = await post(`/api/tables/${ctx.tableId}/hint`).catch((err) => ({ error: err }));
        hint = { seq, text: out?.action ? t("hint.suggest", { what: hintWords(out.action) })
          : out?.error?.status === 503 ? t("hint.busy") : null };
        redraw();
      } }),
      shown ? h("span", { class: "muted", text: shown }) : null);
  }

  function panelView() {
    const { st } = ctx;
    const d = st.deal;
    const panel = h("div", { class: "panel", "aria-live": ctx.blind.on ? null : "polite", "data-testid": "actions" });
    if (!d || st.info.status !== "playing") {
      if (st.info.status === "waiting" && st.info.deal_no && st.seat !== null) {
        panel.append(h("button", { type: "button", class: "primary", text: t("table.nextDeal"),
          onclick: () => ctx.send({ type: "next_deal" }) }));
        return panel;
      }
      return null;
    }
    const handled = new Set();
    const plain = (type, key) => h("button", { type: "button", text: t(key), onclick: () => ctx.send({ type }) });
    const cuts = legalOf("cut");
    if (cuts.length) {
      handled.add("cut");
      panel.append(...cutControls(cuts));
    }
    if (legalOf("pick_up").length) {  // the cards lie face down until picked up
      handled.add("pick_up");
      panel.append(h("p", { class: "small", text: t("table.faceDown") }),
        h("button", { type: "button", class: "primary", id: "pick-up", text: t("table.pickUp"),
          onclick: () => ctx.send({ type: "pick_up" }) }));
    }
    if (d.phase === "auction") {
      handled.add("bid");
      // R-T6: the four-player dealer, and at five also the seat opposite him, hold no cards:
      // words instead of a box of disabled bids
      const out = st.seat !== null && d.players >= 4 && d.hand_sizes
        && Object.keys(d.hand_sizes).length && !(String(st.seat) in d.hand_sizes)
        && !legalOf("bid").length;
      // A-3 (arabic): an opening round is a pass-out without bidding; say why only «Пас» is live
      const bombRound = d.min_level > 10
        ? h("p", { class: "small", "data-testid": "bomb-round", text: t("tp.bombRound", { f: st.info.bomb_factor ?? 2 }) })
        : null;
      // DOM append writes a null as "null": only the lines there are
      panel.append(...[h("h2", { text: t("table.bidding") }), bombRound, out
        ? h("p", { class: "small", "data-testid": "sits-out",
          text: t(st.seat === d.dealer ? "table.youDealAndSitOut" : "table.youSitOut", { dealer: ctx.nameOf(d.dealer) }) })
        : bidBox()].filter(Boolean));
    }
    const take = `table.${ctx.presetRules().talon}Talon`;  // take (R-C1) or buy (K-5)
    for (const [type, key] of [["take_talon", take], ["return_talon", "table.returnTalon"]]) {
      if (legalOf(type).length) {
        handled.add(type);
        panel.append(plain(type, key));
      }
    }
    const discards = legalOf("discard");
    if (discards.length) {
      handled.add("discard");
      const chosen = [...selected];
      const ok = chosen.length === 2 && discards.some((a) => a.cards.every((c) => selected.has(c)));
      panel.append(h("h2", { text: t("table.discard") }), h("p", { class: "small", text: t("table.discardHint") }),
        h("div", { class: "actions" }, h("div", { class: "cards" }, chosen.map((c) => cardFace(c, { small: true }))),
          h("button", { type: "button", class: "primary", disabled: !ok, text: t("table.doDiscard"),
            onclick: () => ctx.send({ type: "discard", cards: chosen }) })));
    }
    const contracts = legalOf("name_contract");
    if (contracts.length) {
      handled.add("name_contract");
      panel.append(h("h2", { text: t("table.contract") }), contractBox(contracts));
    }
    if (legalOf("concede").length) {
      handled.add("concede");
      panel.append(h("button", { type: "button", class: "danger", text: t("table.concede"),
        onclick: () => ctx.send({ type: "concede" }) }));
    }
    const defend = legalOf("defend");
    if (defend.length || legalOf("return_whist").length) {
      handled.add("defend");
      handled.add("return_whist");
      panel.append(h("h2", { text: `${t("table.whist")} / ${t("table.pass")}` }), h("div", { class: "actions" },
        defend.map((a) => h("button", { type: "button", class: a.call === "whist" ? "primary" : "",
          dataset: { call: a.call }, text: callText(a.call), onclick: (e) => move({ type: "defend", call: a.call }, e.currentTarget) })),
        legalOf("return_whist").length ? plain("return_whist", "table.returnWhist") : null));
    }
    const modes = legalOf("choose_play");
    if (modes.length) {
      handled.add("choose_play");
      panel.append(h("div", { class: "actions" }, modes.map((a) => h("button", { type: "button", dataset: { mode: a.mode },
        text: a.mode === "open" ? t("table.open") : t("table.closed"), onclick: () => ctx.send({ type: "choose_play", mode: a.mode }) }))));
    }
    handled.add("play_card");
    for (const [type, key] of [["accept_result", "table.accept"], ["decline_result", "table.decline"]]) {
      if (legalOf(type).length) {
        handled.add(type);
        panel.append(plain(type, key));
      }
    }
    const claims = legalOf("claim");
    if (claims.length) {
      handled.add("claim");
      // R-W11: one button per claim the server offers, in the words said at the table
      panel.append(h("div", { class: "actions", role: "group", "aria-label": t("table.claim") },
        claims.map((a) => h("button", { type: "button", dataset: { claim: a.tricks },
          text: claimWords({ kind: d.kind, declarer: d.declarer, seat: st.seat, tricks: a.tricks }),
          onclick: () => ctx.send({ type: "claim", tricks: a.tricks }) }))));
    }
    // anything the protocol allows that this page has no special control for
    const rest = st.legal.filter((a) => !handled.has(a.type) && a.type !== "propose_result");
    if (rest.length) {
      panel.append(h("div", { class: "actions" }, rest.slice(0, 12).map((a, i) => h("button", { type: "button",
        text: actionText(a, i, ctx.names()), onclick: () => ctx.send({ ...a }) }))));
    }
    if (practice && ctx.myMove()) panel.append(hintBox());
    return panel.childNodes.length ? panel : null;
  }

  /** Everything panelView reads (the seats' names for the dealer, a claim, a looked-at hand). */
  function panelSlice() {
    const { st } = ctx;
    const d = st.deal;
    return { status: st.info.status, dealNo: st.info.deal_no, seat: st.seat, legal: st.legal,
      deal: d && { phase: d.phase, players: d.players, hand_sizes: d.hand_sizes, min_level: d.min_level,
        dealer: d.dealer, kind: d.kind, declarer: d.declarer, to_move: d.to_move },
      bombFactor: st.info.bomb_factor, preset: st.info.preset, timed: Boolean(ctx.moveTimer()),
      selected: [...selected], hint: hint && hint.seq === st.seq ? hint.text : null, words: ctx.blind.on,
      names: ctx.seatNames() };
  }

  return part(panelSlice, panelView);
}
