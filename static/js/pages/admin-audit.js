// «Журнал изменений» on #/admin (issue 23): the whole audit log, newest first, filtered by the
// kind of change, who made it, what it changed and the dates (GET /api/admin/audit). The rows
// are drawn by audit-rows.js; the server keeps them append-only and hash-chained (docs/audit.md).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { auditTable } from "./audit-rows.js";

/** The filter's kinds of change: an action prefix each (empty: everything). */
const GROUPS = ["", "member", "club", "season", "table", "session", "pulka", "penalty", "fund"];

/** The admin's audit section; `members` feeds the "who" choice, `describe` words a ledger
 * entry's reason (fund.js entryReason). */
export function adminAuditSection(members, describe) {
  const box = h("section", { class: "card", "aria-labelledby": "adm-audit", id: "admin-audit" });
  const field = (id, label, input) => h("div", { class: "field" }, h("label", { for: id, text: t(label) }), input);
  const action = h("select", { id: "audit-action", name: "action" },
    GROUPS.map((g) => h("option", { value: g, text: t(`audit.group.${g || "all"}`) })));
  const actor = h("select", { id: "audit-actor", name: "actor_id" },
    h("option", { value: "", text: t("audit.anyone") }),
    members.map((m) => h("option", { value: m.id, text: m.display_name })));
  const target = h("input", { id: "audit-target", name: "target", maxlength: 100, placeholder: "member:12" });
  const since = h("input", { id: "audit-since", name: "since", type: "date" });
  const until = h("input", { id: "audit-until", name: "until", type: "date" });
  const form = h("form", { class: "row", id: "audit-filter" },
    field("audit-action", "audit.kind", action), field("audit-actor", "audit.who", actor),
    field("audit-target", "audit.target", target), field("audit-since", "audit.since", since),
    field("audit-until", "audit.until", until),
    h("button", { type: "submit", class: "primary", text: t("audit.show") }));
  let list = null;
  function show() {
    const params = { action: action.value, actor_id: actor.value, target: target.value.trim(),
      since: since.value, until: until.value };
    const next = auditTable("/api/admin/audit", params, "adm-audit", describe);
    if (list) list.replaceWith(next); else box.append(next);
    list = next;
  }
  form.addEventListener("submit", (e) => { e.preventDefault(); show(); });
  box.append(h("h2", { id: "adm-audit", text: t("audit.title") }),
    h("p", { class: "muted small", text: t("audit.hint") }), form);
  show();
  return box;
}
