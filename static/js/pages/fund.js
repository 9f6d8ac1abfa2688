// The club fund — кубышка (RULES.md §9): balance, outstanding debts, the ledger (newest first),
// spending proposals ranked by the proposer's attendance (R-F4) with the members' votes (R-F2);
// the treasurer's form for payments, the admin's veto and payouts. Money stays a decimal string
// end to end. Every state-changing request carries an Idempotency-Key made when its form or
// button is shown and reused when the same action is retried, so a retry never acts twice;
// refusals are shown from their `code` in the reader's language.
import { ApiError, cookie, errorText, get } from "../api.js";
import { attempt, notify } from "../app.js";
import { clear, fmtTime, h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { formatMoney } from "../money.js";
import { fundAuditSection } from "./fund-audit.js";

/** An amount as typed: digits with at most two decimals after a point or the local comma. */
const MONEY = /^-?[0-9]{1,10}([.,][0-9]{1,2})?$/;

/** A fresh idempotency key (a UUID v4; crypto.getRandomValues works on plain http too). */
export function newKey() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The message of a refusal: the translation of its code; the server's English detail only
 * in English mode (a Russian reader gets a general Russian message, never English server text
 * or rule IDs). */
function refusalText(status, data, fallback) {
  if (data && data.code) {
    const text = t(`err.${data.code}`);
    if (text !== `err.${data.code}`) return text;
    // a field error (the field and its limit) or another coded refusal of the server
    const params = data.params && typeof data.params === "object" ? data.params : null;
    const coded = errorText(status, data.code, params, null);
    if (coded !== errorText(status, null)) return coded;
  }
  if (lang() === "ru") return t("fund.refused");
  if (data && typeof data.detail === "string") return data.detail;
  if (data && Array.isArray(data.detail)) {
    return data.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
  }
  return fallback;
}

/** POST `body` with the CSRF header and `key` as Idempotency-Key; reject with ApiError whose
 * `code` is the server's and whose message is translated. */
async function send(path, body, key) {
  const headers = { Accept: "application/json", "Content-Type": "application/json",
    "Idempotency-Key": key };
  const csrf = cookie("prefclub_csrf");
  if (csrf) headers["X-CSRF-Token"] = csrf;
  let response;
  try {
    response = await fetch(path, { method: "POST", headers, credentials: "same-origin",
      body: JSON.stringify(body ?? {}) });
  } catch {
    throw new ApiError(0, t("err.network"));
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { detail: text }; }
  if (!response.ok) {
    const err = new ApiError(response.status, refusalText(response.status, data, response.statusText));
    err.code = data && data.code;
    throw err;
  }
  return data;
}

function money(value) {
  return h("span", { class: value.startsWith("-") ? "money neg" : "money", text: formatMoney(value) });
}

/** A member's outstanding debt; below zero he paid ahead, which is a credit, not a debt. */
function outstanding(value) {
  if (!value.startsWith("-")) return money(value);
  return h("span", { class: "money credit", text: t("fund.credit", { amount: formatMoney(value.slice(1)) }) });
}

/** A wide table in a box of its own that scrolls sideways on a phone (the page never does);
 * focusable, so the keyboard can scroll it too. */
function scroller(labelledby, table) {
  return h("div", { class: "scroll-x", tabindex: "0", role: "region", "aria-labelledby": labelledby }, table);
}

/**
 * Why an entry was made, in the reader's words. The server writes the reason of its own entries
 * (a settled pulka's debt, R-F1; a paid proposal, R-F2) in English for the log; the page names
 * them from the catalogue by their pulka or proposal. A reason a person typed is shown as typed.
 */
export function entryReason(e) {
  if (e.kind === "payment_due" && e.pulka_id) return t("fund.reasonDebt", { pulka: e.pulka_id });
  if (e.kind === "spending" && e.proposal_id) {
    const title = String(e.reason || "").replace(/^proposal \d+: /, "");
    return t("fund.reasonSpending", { id: e.proposal_id, title });
  }
  if (e.kind === "payment" && /^paid in by member \d+$/.test(e.reason || "")) return t("fund.reasonPaid");
  return e.reason;
}

/** Check the amount input before sending: "12,5" becomes "12.5"; a bad value gets a message
 * under the field (in the reader's language) and null, so nothing is sent. */
function checkedAmount(input, errorBox) {
  const raw = input.value.trim();
  const ok = MONEY.test(raw);
  input.setAttribute("aria-invalid", ok ? "false" : "true");
  errorBox.textContent = ok ? "" : t("fund.amountBad");
  if (!ok) {
    input.focus();
    return null;
  }
  return raw.replace(",", ".");
}

/** An amount field with its error line, which is announced when it changes. */
function amountField(id, placeholder) {
  const input = h("input", { id, name: "amount", required: true, inputmode: "decimal",
    placeholder, "aria-describedby": `${id}-error` });
  const error = h("p", { id: `${id}-error`, class: "field-error", role: "alert" });
  return { input, error, field: h("div", { class: "field" },
    h("label", { for: id, text: t("fund.amount") }), input, error) };
}

export async function renderFund(root, { me }) {
  const canRecord = me.role === "treasurer" || me.role === "admin";
  const isAdmin = me.role === "admin";
  const summary = h("section", { class: "card", "aria-labelledby": "fund-balance-title" });
  const debts = h("section", { class: "card", "aria-labelledby": "fund-debts-title" });
  const proposals = h("section", { class: "card", "aria-labelledby": "fund-proposals-title" });
  const ledger = h("section", { class: "card", "aria-labelledby": "fund-ledger-title" });
  let members = [];
  let names = new Map();

  root.append(h("h1", { text: t("fund.title") }), h("p", { class: "muted small", text: t("fund.rules") }),
    summary, proposals, debts, ledger);
  if (canRecord) root.append(fundAuditSection(entryReason));

  /** After a "key already used for another request" refusal the form was sent before with
   * other values: take a new key and show the fund as it now is. */
  function forgetKey(renew) {
    return (err) => {
      if (err && err.code === "fund_idempotency_key_reused") {
        renew();
        load();
      }
      throw err;
    };
  }

  async function load() {
    const [fund, list, people] = await Promise.all([
      attempt(() => get("/api/fund")),
      attempt(() => get("/api/fund/proposals")),
      members.length ? Promise.resolve(members) : attempt(() => get("/api/members")),
    ]);
    if (!fund || !list) return;
    members = people || [];
    names = new Map(members.map((m) => [m.id, m.display_name]));
    for (const d of fund.debts) names.set(d.member_id, d.display_name);
    renderSummary(fund);
    renderDebts(fund);
    renderProposals(list);
    renderLedger(fund);
  }

  function renderSummary(fund) {
    clear(summary).append(
      h("h2", { id: "fund-balance-title", text: t("fund.balance") }),
      h("p", { class: "balance", "aria-live": "polite" }, money(fund.balance)));
    if (canRecord) summary.append(paymentForm());
  }

  function paymentForm() {
    let key = newKey();
    const amount = amountField("fp-amount", "40,00");
    const form = h("form", { id: "fund-payment", "aria-labelledby": "fp-title", novalidate: true },
      h("h3", { id: "fp-title", text: t("fund.record") }),
      h("div", { class: "row" },
        h("div", { class: "field" }, h("label", { for: "fp-kind", text: t("fund.kind") }),
          h("select", { id: "fp-kind", name: "kind" },
            ["payment", "adjustment"].map((k) => h("option", { value: k, text: t(`fund.kind.${k}`) })))),
        h("div", { class: "field" }, h("label", { for: "fp-member", text: t("fund.member") }),
          h("select", { id: "fp-member", name: "member_id" },
            h("option", { value: "", text: "—" }),
            members.filter((m) => m.active && !m.is_bot).map((m) =>
              h("option", { value: String(m.id), text: m.display_name })))),
        amount.field,
        h("div", { class: "field" }, h("label", { for: "fp-reason", text: t("fund.reason") }),
          h("input", { id: "fp-reason", name: "reason", maxlength: "300" })),
        h("button", { type: "submit", class: "primary", text: t("fund.save") })));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = checkedAmount(amount.input, amount.error);
      if (value === null) return;
      const data = new FormData(form);
      const memberId = data.get("member_id");
      const out = await attempt(() => send("/api/fund/payments", {
        kind: data.get("kind"), member_id: memberId ? Number(memberId) : null,
        amount: value, reason: data.get("reason") || null,
      }, key).catch(forgetKey(() => { key = newKey(); })));
      if (!out) return;
      notify(t("fund.saved"), "info");
      await load();
    });
    return form;
  }

  function renderDebts(fund) {
    clear(debts).append(h("h2", { id: "fund-debts-title", text: t("fund.debts") }));
    if (!fund.debts.length) {
      debts.append(h("p", { class: "muted", text: t("fund.noDebts") }));
      return;
    }
    debts.append(scroller("fund-debts-title", h("table", { class: "list", "aria-labelledby": "fund-debts-title" },
      h("thead", {}, h("tr", {}, ["fund.member", "fund.owed", "fund.paid", "fund.outstanding"]
        .map((k) => h("th", { scope: "col", text: t(k) })))),
      h("tbody", {}, fund.debts.map((d) => h("tr", {},
        h("td", { text: d.display_name }), h("td", {}, money(d.owed)), h("td", {}, money(d.paid)),
        h("td", {}, outstanding(d.outstanding))))))));
  }

  function renderProposals(list) {
    clear(proposals).append(h("h2", { id: "fund-proposals-title", text: t("fund.proposals") }),
      h("p", { class: "muted small", text: t("fund.ranking", { q: list.quorum }) }));
    if (list.may_propose) proposals.append(proposalForm());
    else proposals.append(h("p", { class: "muted small", text: t("fund.proposedThisYear") }));
    if (!list.proposals.length) {
      proposals.append(h("p", { class: "muted", text: t("fund.noProposals") }));
      return;
    }
    proposals.append(scroller("fund-proposals-title", h("table", { class: "list", "aria-labelledby": "fund-proposals-title" },
      h("thead", {}, h("tr", {}, ["fund.rank", "fund.proposal", "fund.proposer", "fund.attendance",
        "fund.amount", "fund.status", "fund.votes", ""].map((k) => h("th", { scope: "col", text: k ? t(k) : "" })))),
      h("tbody", {}, list.proposals.map(proposalRow)))));
  }

  /** A button that POSTs once per key: the key is made now and kept while retries fail. */
  function action(path, label, body, extra = {}, question = null) {
    let key = newKey();
    return h("button", { type: "button", text: label, ...extra,
      onclick: async () => {
        if (question && !window.confirm(question)) return;
        const out = await attempt(() => send(`/api/fund/proposals/${path}`, body, key)
          .catch(forgetKey(() => { key = newKey(); })));
        if (out) await load();
      } });
  }

  function proposalRow(p) {
    const act = (path, label, question = null) => action(`${p.id}/${path}`, label, undefined,
      { "aria-label": `${label}: ${p.title}` }, question);
    const vote = (yes) => action(`${p.id}/vote`, t(yes ? "fund.voteYes" : "fund.voteNo"), { yes },
      { "aria-pressed": p.my_vote === yes ? "true" : "false",
        "aria-label": `${t(yes ? "fund.voteYes" : "fund.voteNo")}: ${p.title}` });
    const actions = [];
    if (p.status === "open" && p.proposer_id !== me.id) actions.push(vote(true), vote(false));
    if (isAdmin && (p.status === "open" || p.status === "approved")) actions.push(act("reject", t("fund.reject")));
    if (canRecord && p.status === "approved") actions.push(act("pay", t("fund.pay"),
      t("fund.payConfirm", { title: p.title, amount: formatMoney(p.amount) })));
    return h("tr", { dataset: { status: p.status } },
      h("td", { text: p.rank ?? "" }), h("td", { text: p.title }),
      h("td", { text: `${p.proposer_name} (${p.year})` }), h("td", { text: String(p.attendance) }),
      h("td", {}, money(p.amount)), h("td", { text: t(`fund.status.${p.status}`) }),
      h("td", { title: t("fund.quorum", { q: p.quorum }) }, `${p.yes} / ${p.no}`,
        p.my_vote === true || p.my_vote === false
          ? h("span", { class: "my-vote", text: t(p.my_vote ? "fund.myVoteYes" : "fund.myVoteNo") })
          : null),
      h("td", { class: "row" }, actions));
  }

  function proposalForm() {
    let key = newKey();
    const amount = amountField("fprop-amount", "1200,00");
    const form = h("form", { id: "fund-proposal", "aria-labelledby": "fprop-title", novalidate: true },
      h("h3", { id: "fprop-title", text: t("fund.propose") }),
      h("div", { class: "row" },
        h("div", { class: "field" }, h("label", { for: "fprop-title-in", text: t("fund.proposal") }),
          h("input", { id: "fprop-title-in", name: "title", required: true, maxlength: "200" })),
        amount.field,
        h("button", { type: "submit", class: "primary", text: t("fund.submit") })),
      h("p", { class: "muted small", text: t("fund.oncePerYear") }));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = checkedAmount(amount.input, amount.error);
      if (value === null) return;
      const data = new FormData(form);
      const out = await attempt(() => send("/api/fund/proposals", {
        title: data.get("title"), amount: value,
      }, key).catch(forgetKey(() => { key = newKey(); })));
      if (out) await load();
    });
    return form;
  }

  function renderLedger(fund) {
    clear(ledger).append(h("h2", { id: "fund-ledger-title", text: t("fund.ledger") }),
      h("p", { class: "muted small", text: t("fund.ledgerHint") }));
    if (!fund.entries.length) {
      ledger.append(h("p", { class: "muted", text: t("fund.noEntries") }));
      return;
    }
    ledger.append(scroller("fund-ledger-title", h("table", { class: "list", "aria-labelledby": "fund-ledger-title" },
      h("thead", {}, h("tr", {}, ["fund.when", "fund.kind", "fund.member", "fund.amount",
        "fund.reason", "fund.by"].map((k) => h("th", { scope: "col", text: t(k) })))),
      h("tbody", {}, fund.entries.map((e) => h("tr", { dataset: { kind: e.kind } },
        h("td", { text: fmtTime(e.recorded_at, true) }), h("td", { text: t(`fund.kind.${e.kind}`) }),
        h("td", { text: e.member_id ? names.get(e.member_id) || `#${e.member_id}` : "" }),
        h("td", {}, money(e.amount)), h("td", { text: entryReason(e) }),
        h("td", { text: e.recorded_by_id ? names.get(e.recorded_by_id) || `#${e.recorded_by_id}` : t("fund.server") })))))));
  }

  await load();
}
