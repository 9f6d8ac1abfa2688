// The server's backups on #/admin ("Резервные копии", admins): the list with each backup's
// reason in words, age and size, a download link per backup (GET /api/admin/backups/{name},
// audited on the server), "make a backup now", and a warning when the newest backup is older
// than a day or there is none. See docs/backup.md.
import { get, post } from "../api.js";
import { attempt, fmtDateTime, notify } from "../app.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";

/** An age in words: minutes, hours or days. */
function fmtAge(seconds) {
  if (seconds < 3600) return t("backups.ageMinutes", { n: Math.max(1, Math.round(seconds / 60)) });
  if (seconds < 48 * 3600) return t("backups.ageHours", { n: Math.round(seconds / 3600) });
  return t("backups.ageDays", { n: Math.round(seconds / 86400) });
}

/** A size in KB/MB. */
function fmtSize(bytes) {
  if (bytes < 1024 * 1024) return t("backups.kb", { n: Math.max(1, Math.round(bytes / 1024)) });
  return t("backups.mb", { n: (bytes / 1024 / 1024).toFixed(1) });
}

/** Fill ``box`` with the backups section; it reloads itself after "make a backup now". */
export async function renderBackups(box) {
  async function load() {
    clear(box).append(h("h2", { id: "adm-backups", text: t("backups.title") }));
    const data = await attempt(() => get("/api/admin/backups"));
    if (!data) return;
    if (data.stale) {
      box.append(h("p", { class: "notice notice-error", role: "alert", "data-testid": "backups-stale",
        text: data.newest_age_seconds === null ? t("backups.none")
          : t("backups.stale", { age: fmtAge(data.newest_age_seconds) }) }));
    }
    if (data.backups.length) {
      box.append(h("div", { class: "scroll-x" }, h("table", { class: "list", "data-testid": "backups" },
        h("thead", {}, h("tr", {}, ["backups.when", "backups.reason", "backups.age", "backups.size"].map((k) =>
          h("th", { scope: "col", text: t(k) })), h("th", { scope: "col", class: "th-actions" },
          h("span", { class: "sr-only", text: t("admin.actions") })))),
        h("tbody", {}, data.backups.map((b) => h("tr", { dataset: { backup: b.name } },
          h("td", { text: fmtDateTime(b.made_at) }),
          h("td", { text: t(`backups.reason.${b.reason}`) }),
          h("td", { text: fmtAge(b.age_seconds) }),
          h("td", { text: fmtSize(b.size) }),
          h("td", {}, h("a", { href: `/api/admin/backups/${encodeURIComponent(b.name)}`, download: b.name,
            class: "button", text: t("backups.download") }))))))));
    }
    box.append(h("p", { class: "muted small", text: t("backups.hint", { keep: data.keep }) }),
      h("button", { type: "button", id: "backup-now", text: t("backups.makeNow"), onclick: async (e) => {
        e.target.disabled = true;
        const made = await attempt(() => post("/api/admin/backups"));
        e.target.disabled = false;
        if (!made) return;
        notify(t("backups.made"), "info");
        await load();
      } }));
  }
  await load();
}
