// What the server says in codes, said in the player's words: error codes, the rule behind a
// sheet entry (never its rule ID), the kind of a deal, why a pulka ended, its settlement, and a
// balance's sign. The server's English `message`/`detail` is shown in English mode only.
import { lang, t } from "../i18n.js";
import { formatMoney } from "../money.js";

const ERROR_CODES = new Set(["bad_json", "bad_command", "unknown_command", "not_seated", "not_your_turn",
  "illegal", "chat_closed", "chat_rate", "chat_empty", "chat_too_long", "bad_character", "not_now",
  "no_table", "stale_seq"]);

/** A refused command (`{code, message}`) in the player's language; never raw English in ru. */
export function errorText(error) {
  const code = error?.code;
  const known = ERROR_CODES.has(code) ? t(`tp.err.${code}`) : t("tp.err.generic");
  if (lang() === "en" && error?.message) return `${known} (${error.message})`;
  return known;
}

/**
 * Whether an R-P1 whists entry is the consolation of a declarer's remiz rather than whists for
 * tricks: the sheet writes each opponent's trick whists first and his consolation last (R-P1),
 * so under a remiz a writer's last R-P1 whists entry of the deal is his consolation.
 */
function isConsolation(entry, entries) {
  const remiz = entries.some((e) => e.rule === "R-P1" && e.column === "hill" && Number(e.amount) > 0);
  if (!remiz) return false;
  const his = entries.filter((e) => e.column === "whists" && e.rule === "R-P1" && e.seat === entry.seat);
  return !his.length || his[his.length - 1] === entry || !his.includes(entry);
}

/**
 * The words for one sheet entry (column, rule, amount) given the other entries of its deal
 * (a declarer's remiz: each opponent's trick whists and his consolation are named apart, R-P1).
 */
export function entryWords(entry, entries = []) {
  const { column, rule } = entry;
  const byRule = {
    "R-P1": column === "pool" ? "game" : column === "hill" ? "remiz"
      : isConsolation(entry, entries) ? "consolation" : "whist",
    "R-C4": column === "whists" ? "concededWhist" : "conceded",
    "R-C5": "talonBonus", "R-C6": "talonReturn", "R-W10": "misere",
    "R-W9": column === "hill" ? "remiz" : "ten", "R-P2": "responsible", "R-P3": "gentleman",
    "R-W4": "half", "R-R4": "raspasy", "R-R5": "raspasy", "R-T4": "join", "R-T5": "replace",
    "K-9": "game", "K-10": "remiz", "K-11": "whisterRemiz",
  };
  // A penalty of the catalogue (RULES.md §10, app/rules/scoring/penalties.py) cites its rule
  // R-X1 … R-X11; seed 004's own (app/rules/variants/arabic/arabic_penalties.py) A-23, A-24;
  // seed 003's remizes (app/rules/variants/classic/classic_penalties.py) K-14 … K-16.
  if (/^(R-X\d+|A-2[34]|K-1[4-6])$/.test(rule || "")) return t(`tp.rule.penalty.${rule}`);
  return t(`tp.rule.${byRule[rule] || "other"}`);
}

/**
 * A claim (R-W11) in words, as players say it at the table: in a game the declarer's "the rest
 * are mine" and a defender's "the rest are ours"; on misère the declarer's "no more tricks" and
 * a catcher's "the rest are his". `tricks` is the claimer's side's count of the tricks left.
 */
export function claimWords({ kind, declarer, seat, tricks }) {
  if (kind === "misere") return t(seat === declarer ? "tp.claim.misereMine" : "tp.claim.misereHis");
  const key = seat === declarer ? "tp.claim.mine" : "tp.claim.ours";
  return t(key, { n: tricks });
}

/** The kind of a finished deal from its outcome: game, misère, down three, pass-out. */
export function kindText(outcome) {
  const type = outcome?.type || outcome?.kind;
  return ["game", "misere", "conceded", "pass_out", "redeal"].includes(type) ? t(`tp.kind.${type}`) : t("tp.kind.other");
}

/** Why a pulka ended, from `pulka_ended.data.ended` or the snapshot's notice "pulka ended (x)". */
export function endedText(ended, notice) {
  let why = ended;
  if (!why && typeof notice === "string") why = /\((\w+)\)/.exec(notice)?.[1];
  return ["target", "agreement", "session_end"].includes(why) ? t(`tp.ended.${why}`) : t("tp.ended.other");
}

const num = (v) => {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
};

const fmt = (n, digits = 2) => {
  const abs = Math.abs(n);
  const text = Number.isInteger(abs) ? String(abs) : abs.toFixed(digits).replace(/0+$/, "").replace(/\.$/, "");
  return lang() === "ru" ? text.replace(".", ",") : text;
};

/** The settlement (`{whists, rounded, money}`) as one sentence per player. */
export function settlementLines(settlement, nameOf) {
  return (settlement?.whists || []).map((w, i) => {
    const whists = num(settlement.rounded?.[i] ?? w);
    const money = num(settlement.money?.[i]);
    const vars = { name: nameOf(i), w: fmt(whists), m: formatMoney(String(settlement.money?.[i] ?? "0").replace(/^-/, "")) };
    if (whists === 0 && money === 0) return t("tp.settle.zero", vars);
    return t(whists > 0 || money > 0 ? "tp.settle.plus" : "tp.settle.minus", vars);
  });
}

/** A balance number with its sign, for the running balance line. */
export function signed(n) {
  const rounded = Math.round(n * 10) / 10;
  if (rounded === 0) return "0";
  return `${rounded > 0 ? "+" : "−"}${fmt(rounded, 1)}`;
}
