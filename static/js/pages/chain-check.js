// The club's chain of deals re-checked by the browser itself (docs/chain.md): the archive's
// "Проверить цепочку сдач" button downloads the deal-chain/1 file (GET /api/archive/chain) and
// recomputes, with Web Crypto, every entry's
//     hash = sha256("deal-chain/1\n" + prev_hash + "\n" + position + "\n" + table + "\n" + seq
//                   + "\n" + commitment)
// checking that each entry names the hash before it (the first one 64 zeros), that no position
// is skipped, that the head is the last entry, and, for every deal that has ended, that the
// revealed deck and salt give its commitment (table/verify.js) — so a dropped, re-dealt or
// edited deal shows, whatever the server says.
import { get } from "../api.js";
import { attempt } from "../app.js";
import { h } from "../dom.js";
import { t, tn } from "../i18n.js";
import { commitmentText, sha256Hex } from "../table/verify.js";

export const FORMAT = "deal-chain/1";
export const GENESIS = "0".repeat(64);
const BATCH = 512;

/** The text an entry's hash is the SHA-256 of (app/services/deal_chain.py `link_hash`). */
export function linkText(prevHash, entry) {
  return [FORMAT, prevHash, entry.position, entry.table, entry.seq, entry.commitment].join("\n");
}

/**
 * Check a deal-chain/1 document. Resolves to {ok, count, failure}: `count` the entries checked,
 * `failure` (when not ok) {position, table, seq, reason}, `reason` naming the check in the
 * i18n catalogue (chain.reason.*).
 */
export async function checkChain(doc) {
  const fail = (reason, entry = {}) => ({ ok: false, count: 0,
    failure: { position: entry.position ?? null, table: entry.table ?? null, seq: entry.seq ?? null, reason } });
  if (!doc || doc.format !== FORMAT || !Array.isArray(doc.entries)) return fail("format");
  let prev = GENESIS;
  let position = 0;
  // Hashed a batch at a time (Web Crypto works in parallel), compared in order.
  for (let start = 0; start < doc.entries.length; start += BATCH) {
    const batch = doc.entries.slice(start, start + BATCH);
    const hashes = await Promise.all(batch.map((e) => sha256Hex(linkText(String(e.prev_hash), e))));
    const commitments = await Promise.all(batch.map((e) => (e.status === "revealed"
      ? sha256Hex(commitmentText(Array.isArray(e.deck) ? e.deck : [], String(e.salt ?? ""))) : null)));
    for (const [i, entry] of batch.entries()) {
      if (entry.position !== position + 1) return fail("position", entry);
      if (entry.prev_hash !== prev) return fail("prev", entry);
      if (hashes[i] !== entry.hash) return fail("hash", entry);
      if (entry.status === "missing") return fail("missing", entry);
      if (entry.status !== "revealed" && entry.status !== "hidden") return fail("format", entry);
      if (entry.status === "revealed" && commitments[i] !== entry.commitment) return fail("commitment", entry);
      prev = entry.hash;
      position = entry.position;
    }
  }
  if (!doc.head || doc.head.position !== position || (position > 0 && doc.head.hash !== prev)) {
    return fail("head");
  }
  if (Array.isArray(doc.unchained) && doc.unchained.length) {
    return fail("unchained", { table: doc.unchained[0].table, seq: doc.unchained[0].seq });
  }
  return { ok: true, count: position, failure: null };
}

/** The result in words (no hashes, no rule IDs on screen). */
function resultText(result) {
  if (result.ok) return t("chain.whole", { n: result.count, deals: tn("common.deals", result.count) });
  const { position, table, seq, reason } = result.failure;
  const where = position !== null ? t("chain.at", { position, table, seq })
    : table !== null ? t("chain.atDeal", { table, seq }) : "";
  return `${t("chain.broken")}${where ? ` ${where}` : ""}: ${t(`chain.reason.${reason}`)}`;
}

/** The archive's card: the button, and the verdict once the whole file is checked. */
export function chainCheckCard() {
  const out = h("p", { class: "small", "data-testid": "chain-result", role: "status" });
  const button = h("button", { type: "button", "data-testid": "chain-check", text: t("chain.check"),
    onclick: async () => {
      button.disabled = true;
      out.dataset.state = "busy";
      out.className = "small muted";
      out.textContent = t("chain.checking");
      try {
        const doc = await attempt(() => get("/api/archive/chain"));
        if (!doc) {
          out.textContent = "";
          return;
        }
        const result = await checkChain(doc);
        out.className = result.ok ? "small ok" : "small bad";
        out.dataset.ok = String(result.ok);
        out.textContent = resultText(result);
      } finally {
        button.disabled = false;
        out.dataset.state = "done";
      }
    } });
  return h("section", { class: "card chain-check" }, h("p", { class: "small muted", text: t("chain.about") }), button, out);
}
