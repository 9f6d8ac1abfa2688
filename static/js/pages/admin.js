// Running a club night (#/admin, admins): the sessions with their own times, an extra session,
// cancelling an extra session before its draw, ending a session after its end time; the open
// tables with their extension past the end (R-S2) which the admin may refuse,
// closing a pulka, and asking for a fourth player (R-T4) or a replacement (R-T5) — the players'
// consents are collected in their lobbies; the club's move timer for club tables (off by
// default); the seasons and the minimum to qualify in the standings (admin-seasons.js); the
// audit log («Журнал изменений», admin-audit.js). Nothing an officer does needs curl.
import { get, post, put } from "../api.js";
import { attempt, fmtDate, notify } from "../app.js";
import { clear, fmtTime, h } from "../dom.js";
import { t } from "../i18n.js";
import { TIMER_CHOICES, timerChoice } from "../table/extras.js";
import { renderBackups } from "./admin-backups.js";
import { adminAuditSection } from "./admin-audit.js";
import { adminSeasonsSection } from "./admin-seasons.js";
import { entryReason } from "./fund.js";

/** The sessions worth showing: the last two past ones and the next ten. */
function visibleSessions(all, now) {
  const past = all.filter((s) => new Date(s.ends_at).getTime() <= now);
  const ahead = all.filter((s) => new Date(s.ends_at).getTime() > now);
  return [...past.slice(-2), ...ahead.slice(0, 10)];
}

function sessionState(s, now) {
  if (s.ended_at) return t("lobby.ended");
  if (now >= new Date(s.ends_at).getTime()) return t("admin.running");
  if (now >= new Date(s.starts_at).getTime()) return t("admin.running");
  return t("admin.upcoming");
}

export async function renderAdmin(root, { me }) {
  if (me.role !== "admin") {
    root.append(h("h1", { text: t("admin.title") }), h("p", { class: "card muted", text: t("err.code.forbidden") }));
    return undefined;
  }
  const sessionsBox = h("section", { class: "card", "aria-labelledby": "adm-sessions" });
  const extraBox = h("section", { class: "card", "aria-labelledby": "adm-extra" });
  const tablesBox = h("section", { class: "card", "aria-labelledby": "adm-tables" });
  const settingsBox = h("section", { class: "card", "aria-labelledby": "adm-settings" });
  const backupsBox = h("section", { class: "card", "aria-labelledby": "adm-backups" });
  root.append(h("h1", { text: t("admin.title") }),
    // the sessions' list takes the page's whole width: in a column of the grid its buttons were
    // cut off at 1366×768 (issue 28)
    h("div", { class: "admin-grid" }, h("div", {}, extraBox, settingsBox), tablesBox), sessionsBox, backupsBox);
  renderBackups(backupsBox);

  /** The club's move timer for club tables opened from now on (PUT /api/club/settings). */
  async function loadSettings() {
    const current = await attempt(() => get("/api/club/settings"));
    const value = current?.move_timer_seconds ?? 0;
    const choices = TIMER_CHOICES.includes(value) ? TIMER_CHOICES : [...TIMER_CHOICES, value];
    const form = h("form", { class: "row", id: "club-timer-form" },
      h("div", { class: "field" }, h("label", { for: "club-timer", text: t("timer.club") }),
        h("select", { id: "club-timer", name: "move_timer_seconds" },
          ...choices.map((v) => h("option", { value: v, text: timerChoice(v), selected: v === value })))),
      h("button", { type: "submit", class: "primary", text: t("timer.save") }));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const seconds = Number(new FormData(form).get("move_timer_seconds")) || null;
      const out = await attempt(() => put("/api/club/settings", { move_timer_seconds: seconds }));
      if (!out) return;
      // the form already shows what was saved: redrawing it from a second read would put back
      // the old choice over one the admin makes meanwhile (the race test_timer_settings met)
      notify(t("timer.saved", { what: timerChoice(out.move_timer_seconds || 0) }), "info");
    });
    clear(settingsBox).append(h("h2", { id: "adm-settings", text: t("timer.clubTitle") }),
      h("p", { class: "muted small", text: t("timer.clubHint") }), form,
      h("p", { class: "muted small", text: t("timer.rule") }));
  }

  const members = (await attempt(() => get("/api/members"))) || [];
  const byId = new Map(members.map((m) => [m.id, m]));
  const nameOf = (id) => byId.get(id)?.display_name ?? `#${id}`;
  const requests = new Map(); // table id → the seat change asked from this page
  const seatName = (tb, st) => {
    if (!st.member_id) return t("table.emptySeat");
    return byId.has(st.member_id) ? nameOf(st.member_id) : (tb.names?.[st.seat] ?? nameOf(st.member_id));
  };

  /** An extra session not yet over may be cancelled (the server refuses it once drawn). */
  function cancelButton(s, now) {
    if (!s.extra || s.ended_at || now >= new Date(s.ends_at).getTime()) return null;
    return h("button", { type: "button", class: "danger cancel-session", text: t("admin.cancelSession"),
      onclick: async () => {
        if (!confirm(t("admin.confirmCancel"))) return;
        // 204: the answer is null; attempt() gives undefined only when it was refused
        if ((await attempt(() => post(`/api/sessions/${s.id}/cancel`))) === undefined) return;
        notify(t("admin.cancelledOk"), "info");
        await loadSessions();
      } });
  }

  async function loadSessions() {
    clear(sessionsBox).append(h("h2", { id: "adm-sessions", text: t("admin.sessions") }));
    const all = await attempt(() => get("/api/sessions"));
    if (!all) return;
    const now = Date.now();
    const shown = visibleSessions(all, now);
    if (!shown.length) {
      sessionsBox.append(h("p", { class: "muted", text: t("admin.noSessions") }));
    } else {
      sessionsBox.append(h("div", { class: "scroll-x" }, h("table", { class: "list", "data-testid": "sessions" },
        h("thead", {}, h("tr", {}, ["admin.when", "admin.kind", "admin.state"].map((k) =>
          h("th", { scope: "col", text: t(k) })), h("th", { scope: "col", class: "th-actions" }, h("span", { class: "sr-only", text: t("admin.actions") })))),
        h("tbody", {}, shown.map((s) => h("tr", { dataset: { session: s.id } },
          h("td", { class: "when" }, `${fmtDate(s.starts_at, { weekday: true })} `,
            h("strong", { text: `${fmtTime(s.starts_at)}–${fmtTime(s.ends_at)}` })),
          h("td", { text: s.extra ? t("lobby.extra") : t("admin.regular") }),
          h("td", {}, sessionState(s, now), ...(now >= new Date(s.starts_at).getTime()
            ? [" · ", h("a", { class: "night-link", href: `#/night/${s.id}`, text: t("night.link") })] : [])),
          h("td", {}, !s.ended_at && now >= new Date(s.ends_at).getTime()
            ? h("button", { type: "button", class: "danger", text: t("admin.endSession"),
              onclick: async () => {
                if (!confirm(t("admin.confirmEnd"))) return;
                const out = await attempt(() => post(`/api/sessions/${s.id}/end`));
                if (!out) return;
                notify(t("admin.endedOk", { n: out.closed_tables.length }), "info");
                await Promise.all([loadSessions(), loadTables(), loadSettings()]);
              } })
            : cancelButton(s, now))))))));
    }
    sessionsBox.append(h("button", { type: "button", text: t("admin.generate"), onclick: async () => {
        if (await attempt(() => post("/api/sessions/generate", { weeks: 8 }))) await loadSessions();
      } }));
  }

  const extraForm = h("form", { id: "extra-session", class: "row" },
    h("div", { class: "field" }, h("label", { for: "x-date", text: t("admin.date") }),
      h("input", { id: "x-date", name: "date", type: "date", required: true })),
    h("div", { class: "field" }, h("label", { for: "x-start", text: t("admin.start") }),
      h("input", { id: "x-start", name: "start", type: "time", required: true, value: "19:00" })),
    h("div", { class: "field" }, h("label", { for: "x-end", text: t("admin.end") }),
      h("input", { id: "x-end", name: "end", type: "time", required: true, value: "22:15" })),
    h("button", { type: "submit", class: "primary", text: t("admin.add") }));
  extraForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = new FormData(extraForm);
    const out = await attempt(() => post("/api/sessions/extra",
      { date: data.get("date"), start: data.get("start"), end: data.get("end") }));
    if (!out) return;
    notify(t("admin.added", { when: `${fmtDate(out.starts_at, { weekday: true })} ${fmtTime(out.starts_at)}–${fmtTime(out.ends_at)}` }), "info");
    await loadSessions();
  });
  extraBox.append(h("h2", { id: "adm-extra", text: t("admin.extra") }), extraForm);

  function requestView(change) {
    const waiting = change.required.filter((id) => !change.consents.includes(id));
    return h("div", { class: "seat-request", "data-change": change.id },
      h("p", {}, h("strong", { text: change.kind === "join" ? t("admin.join") : t("admin.replace") }),
        `: ${nameOf(change.member_id)} — `, h("span", { class: "badge", text: t(`admin.status.${change.status}`) })),
      change.consents.length ? h("p", { class: "small", text: `${t("admin.consents")}: ${change.consents.map(nameOf).join(", ")}` }) : null,
      waiting.length && change.status === "pending"
        ? h("p", { class: "small", text: `${t("admin.waitingFor")}: ${waiting.map(nameOf).join(", ")}` }) : null,
      change.status === "agreed"
        ? h("button", { type: "button", text: t("admin.apply"), onclick: async () => {
          const out = await attempt(() => post(`/api/seat-changes/${change.id}/apply`));
          if (out) { requests.set(change.table_id, out); await loadTables(); }
        } }) : null);
  }

  function seatChangeForm(tb) {
    const id = `sc-${tb.id}`;
    const candidates = members.filter((m) => m.active && !m.is_bot
      && !tb.seats.some((st) => st.member_id === m.id));
    const kind = h("select", { id: `${id}-kind`, name: "kind" },
      tb.seats.length === 3 ? h("option", { value: "join", text: t("admin.join") }) : null,
      h("option", { value: "replace", text: t("admin.replace") }));
    const seat = h("select", { id: `${id}-seat`, name: "seat" },
      tb.seats.map((st) => h("option", { value: st.seat, text: `${st.seat + 1}: ${seatName(tb, st)}` })));
    const who = h("select", { id: `${id}-who`, name: "member", required: true },
      candidates.map((m) => h("option", { value: m.id, text: m.display_name })));
    const seatField = h("div", { class: "field" }, h("label", { for: `${id}-seat`, text: t("admin.seat") }), seat);
    // .field sets display, so the hidden attribute alone would not hide it
    const sync = () => { seatField.style.display = kind.value === "join" ? "none" : ""; };
    kind.addEventListener("change", sync);
    sync();
    const form = h("form", { class: "row seat-change", dataset: { table: tb.id } },
      h("div", { class: "field" }, h("label", { for: `${id}-kind`, text: t("admin.seatChange") }), kind),
      seatField,
      h("div", { class: "field" }, h("label", { for: `${id}-who`, text: t("admin.newcomer") }), who),
      h("button", { type: "submit", text: t("admin.ask"), disabled: !candidates.length }));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const memberId = Number(who.value);
      const out = kind.value === "join"
        ? await attempt(() => post(`/api/tables/${tb.id}/join`, { member_id: memberId }))
        : await attempt(() => post(`/api/tables/${tb.id}/replace`, { seat: Number(seat.value), member_id: memberId }));
      if (!out) return;
      requests.set(tb.id, out);
      notify(t("admin.requested"), "info");
      await loadTables();
    });
    return form;
  }

  function extensionView(tb, ext) {
    if (!ext) return null;
    let text;
    if (ext.refused) text = t("admin.extRefused");
    else if (ext.extension_agreed) text = t("admin.extYes");
    else if ((ext.may_start_deal || !ext.past_end) && !ext.agreed.length) text = t("admin.extNone", { end: fmtTime(ext.ends_at) });
    else text = t("admin.extAgreed", { n: ext.agreed.length, of: ext.required.length });
    const waiting = ext.required.filter((id) => !ext.agreed.includes(id));
    return h("p", { class: "small extension" }, h("strong", { text: `${t("admin.extension")}: ` }), text,
      !ext.extension_agreed && ext.agreed.length ? ` · ${t("admin.waitingFor")}: ${waiting.map(nameOf).join(", ")}` : "",
      ` · ${ext.may_start_deal ? t("admin.mayDeal") : t("admin.mayNotDeal")}`,
      // R-S2: the admin may refuse the extension until its round has started
      ext.refused || ext.deals_after_end > 0 ? null : [" ", h("button", { type: "button",
        class: "danger refuse-extension", text: t("admin.refuseExtension"), onclick: async () => {
          if (!confirm(t("admin.confirmRefuseExt", { id: tb.id }))) return;
          if (!(await attempt(() => post(`/api/tables/${tb.id}/extension/refuse`)))) return;
          notify(t("admin.extRefusedOk", { id: tb.id }), "info");
          await loadTables();
        } })]);
  }

  async function loadTables() {
    clear(tablesBox).append(h("h2", { id: "adm-tables", text: t("admin.tables") }));
    const tables = await attempt(() => get("/api/tables?status=playing"));
    if (!tables) return;
    const open = tables.filter((tb) => tb.status === "playing").reverse();
    if (!open.length) {
      tablesBox.append(h("p", { class: "muted", text: t("admin.noTables") }));
      return;
    }
    const details = await Promise.all(open.map(async (tb) => {
      const detail = await get(`/api/tables/${tb.id}`).catch(() => null);
      if (detail && detail.seats.some((st) => st.member_id && !byId.has(st.member_id))) {
        // house bots are not in the members list: the table's own names say who sits there
        const state = await get(`/api/tables/${tb.id}/state`).catch(() => null);
        detail.names = state?.table?.names ?? null;
      }
      const ext = tb.practice || !tb.club_session_id ? null
        : await get(`/api/tables/${tb.id}/extension`).catch(() => null);
      return detail && { ...detail, ext };
    }));
    tablesBox.append(h("ul", { class: "admin-tables" }, details.filter(Boolean).map((tb) => {
      const reason = h("select", { id: `close-${tb.id}`, "aria-label": `${t("admin.closePulka")} ${tb.id}` },
        h("option", { value: "agreement", text: t("admin.closeAgreement") }),
        h("option", { value: "session_end", text: t("admin.closeSessionEnd") }));
      const request = requests.get(tb.id);
      return h("li", { class: "admin-table", dataset: { table: tb.id } },
        h("h3", {}, h("a", { href: `#/table/${tb.id}`, text: `${t("table.t")} ${tb.id}` }),
          tb.practice ? h("span", { class: "badge", text: t("table.practice") }) : null),
        h("p", { class: "small", text: tb.seats.map((st) =>
          `${st.seat + 1}: ${seatName(tb, st)}`).join(" · ") }),
        extensionView(tb, tb.ext),
        request ? requestView(request) : null,
        seatChangeForm(tb),
        h("div", { class: "row" }, reason,
          h("button", { type: "button", class: "danger", text: t("admin.closePulka"), onclick: async () => {
            if (!confirm(t("admin.confirmClose", { id: tb.id }))) return;
            const out = await attempt(() => post(`/api/tables/${tb.id}/close`, { reason: reason.value }));
            if (!out) return;
            notify(t("admin.closed", { id: tb.id }), "info");
            await loadTables();
          } })));
    })));
  }

  await Promise.all([loadSessions(), loadTables(), loadSettings()]);
  root.append(adminSeasonsSection());
  root.append(adminAuditSection(members, entryReason));
  const timer = setInterval(() => { loadTables(); }, 15000);
  return () => clearInterval(timer);
}
