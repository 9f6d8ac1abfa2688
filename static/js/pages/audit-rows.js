// The audit log's rows in words (issue 23), shared by the admin page's «Журнал изменений» and the
// fund page's part of it: each row's time, who (or «сервер»), from which address, the action in
// Russian, what it changed and its values before → after. Values are shown as text only (never
// as HTML); an unknown field or action falls back to a neutral word, never to server English.
import { get } from "../api.js";
import { attempt, fmtDateTime } from "../app.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";
import { formatMoney } from "../money.js";

/** The action in the reader's language (e.g. `member.role` → «роль изменена»). */
export function actionName(action) {
  const text = t(`audit.action.${action}`);
  return text === `audit.action.${action}` ? t("audit.action.other") : text;
}

function fieldName(key) {
  const text = t(`audit.field.${key}`);
  return text === `audit.field.${key}` ? key.replaceAll("_", " ") : text;
}

/** One value as short text: yes/no, a role or status in words, money with ₽, lists joined. */
export function valueText(key, value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? t("audit.yes") : t("audit.no");
  if (Array.isArray(value)) return value.length ? value.map((v) => valueText(key, v)).join(", ") : "—";
  if (typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${fieldName(k)}: ${valueText(k, v)}`).join("; ");
  }
  if (key === "role") return t(`role.${value}`);
  if (key === "status" || key === "kind" || key === "reason" || key === "by") {
    const word = t(`audit.value.${value}`);
    if (word !== `audit.value.${value}`) return word;
  }
  if (key === "amount" || key === "balance") return formatMoney(value);
  if (key === "move_timer_seconds") return t("audit.seconds", { n: value });
  if (/_at$/.test(key) && typeof value === "string") return fmtDateTime(value);
  return String(value);
}

/** What changed, field by field: `field: before → after` (only `after` for a creation). */
export function changeView(before, after) {
  const keys = [...new Set([...Object.keys(before || {}), ...Object.keys(after || {})])];
  if (!keys.length) return h("span", { class: "muted", text: "—" });
  return h("ul", { class: "audit-change" }, keys.map((k) => {
    const was = before ? valueText(k, before[k]) : null;
    const now = after ? valueText(k, after[k]) : null;
    let text;
    if (before && after) text = was === now ? now : `${was} → ${now}`;
    else text = before ? `${was} → ${t("audit.removed")}` : now;
    return h("li", {}, h("span", { class: "audit-field", text: `${fieldName(k)}: ` }), text);
  }));
}

function targetText(target) {
  const [kind, id] = target.split(":");
  const word = t(`audit.target.${kind}`);
  return word === `audit.target.${kind}` ? target : `${word} №${id}`;
}

/** `value` with each fund entry's stored reason (the server's words) replaced by the page's
 * own words for it (`describe`, fund.js entryReason); a reason a person typed stays as typed. */
function inWords(value, describe) {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inWords(v, describe)]));
  if (describe && "kind" in out && "reason" in out) out.reason = describe(out);
  return out;
}

function rowView(e, describe) {
  const before = inWords(e.before, describe);
  const after = inWords(e.after, describe);
  return h("tr", { dataset: { audit: e.id, action: e.action } },
    h("td", { class: "when", text: fmtDateTime(e.at) }),
    h("td", { text: e.actor_id === null ? t("audit.server") : (e.actor_name || `#${e.actor_id}`) }),
    h("td", { class: "small", text: e.address || "—" }),
    h("td", { text: actionName(e.action) }),
    h("td", { text: targetText(e.target) }),
    h("td", {}, changeView(before, after)));
}

/** A paged audit table reading `path` with the filter `params`; «Показать ещё» asks for the
 * next (older) page with the keyset cursor; `describe` words a fund entry's reason. Returns
 * the element. */
export function auditTable(path, params, labelledby, describe = null) {
  const body = h("tbody");
  const box = h("div", { class: "audit-list" });
  const more = h("button", { type: "button", class: "audit-more", text: t("audit.more") });
  more.style.display = "none"; // buttons are display: inline-block, which beats [hidden]
  let cursor = null;
  async function load() {
    const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== "" && v !== null && v !== undefined));
    if (cursor) query.set("before_id", cursor);
    const page = await attempt(() => get(`${path}?${query}`));
    if (!page) return;
    body.append(...page.entries.map((e) => rowView(e, describe)));
    cursor = page.next_before_id;
    more.style.display = cursor ? "" : "none";
    if (!body.children.length) clear(box).append(h("p", { class: "muted", text: t("audit.empty") }));
  }
  more.addEventListener("click", load);
  box.append(h("div", { class: "scroll-x", tabindex: "0", role: "region", "aria-labelledby": labelledby },
    h("table", { class: "list audit", "data-testid": "audit" },
      h("thead", {}, h("tr", {}, ["audit.when", "audit.who", "audit.address", "audit.what",
        "audit.target", "audit.change"].map((k) => h("th", { scope: "col", text: t(k) })))),
      body)), more);
  load();
  return box;
}
