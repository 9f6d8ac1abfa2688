// The fund's part of the audit log on #/fund (issue 23), for the treasurer and admins: every
// ledger entry, proposal, vote, approval, rejection and payout with who, when and from where
// (GET /api/fund/audit). Rows are drawn by audit-rows.js.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { auditTable } from "./audit-rows.js";

/** The fund's audit section; `describe` words a ledger entry's reason (fund.js entryReason). */
export function fundAuditSection(describe) {
  return h("section", { class: "card", "aria-labelledby": "fund-audit-title", id: "fund-audit" },
    h("h2", { id: "fund-audit-title", text: t("audit.fundTitle") }),
    h("p", { class: "muted small", text: t("audit.fundHint") }),
    auditTable("/api/fund/audit", {}, "fund-audit-title", describe));
}
