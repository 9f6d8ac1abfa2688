// The lobby: today's (or the next) session with check-in (disabled, with the reason, while the
// server would refuse it), late notices, who is present and who waits; the session's drawn
// tables; the consents asked of me (seat changes, the extension past the session's end); the
// open tables; a practice table.
import { ApiError, del, get, post } from "../api.js";
import { attempt, go } from "../app.js";
import { clear, fmtTime, h } from "../dom.js";
import { t } from "../i18n.js";
import { defaultPreset, loadPresets, presetList, presetTitle } from "../presets.js";
import { TIMER_CHOICES, timerChoice } from "../table/extras.js";
import { wholeNumber } from "../validity.js";

const SUITS = ["♠", "♣", "♦", "♥"];
/** A <select name="preset"> of every preset the server plays (GET /api/presets), named in the
 * player's language, the server's first preset first. */
function presetSelect(id) {
  return h("select", { id, name: "preset", "aria-label": t("preset.label") },
    ...presetList().map((p) => h("option", { value: p.name, text: presetTitle(p.name) })));
}
/** Check-in opens six hours before the start (13:00 for a 19:00 session; R-S4). */
const CHECK_IN_OPENS_MS = 6 * 3600 * 1000;

/**
 * Why the server would refuse my check-in right now, or null when it would take it: before the
 * check-in opens, after the start without a notice of being late, after the session.
 */
export function checkInRefusal(session, noticed, now = Date.now()) {
  const starts = new Date(session.starts_at).getTime();
  if (session.ended_at || now >= new Date(session.ends_at).getTime()) return t("lobby.checkinOver");
  if (now < starts - CHECK_IN_OPENS_MS) {
    return t("lobby.checkinBefore", { at: fmtTime(new Date(starts - CHECK_IN_OPENS_MS).toISOString(), true) });
  }
  if (now >= starts && !noticed) return t("lobby.checkinLate", { start: fmtTime(session.starts_at) });
  return null;
}

async function sessionOf() {
  try {
    return { detail: await get("/api/sessions/current"), today: true };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
  }
  const all = await get("/api/sessions");
  const now = Date.now();
  const next = all.find((s) => !s.ended_at && new Date(s.ends_at).getTime() > now);
  if (!next) return { detail: null, today: false, any: all.length > 0 };
  return { detail: await get(`/api/sessions/${next.id}`), today: false };
}

function names(ids, byId) {
  return ids.map((id) => (byId.get(id)?.display_name ?? `#${id}`));
}

function peopleList(title, items, testid) {
  return h("section", { class: "people", "data-testid": testid },
    h("h3", { text: `${title} (${items.length})` }),
    items.length
      ? h("ul", {}, items.map((item) => h("li", {}, item)))
      : h("p", { class: "muted", text: t("lobby.nobody") }));
}

/** Seating a drawn table by the seat draw, under the preset the players choose (issue 13),
 * with the server's deal or real cards whose deals a seated player enters (RULES.md §10). */
function seatDrawControls(d) {
  const preset = presetSelect(`d-preset-${d.id}`);
  const cards = h("select", { id: `d-cards-${d.id}`, "aria-label": t("lobby.cards"), "data-testid": "cards" },
    h("option", { value: "dealt", text: t("lobby.cardsDealt") }),
    h("option", { value: "real", text: t("lobby.cardsReal") }));
  return h("span", { class: "seat-draw" }, preset, " ", cards, " ",
    h("button", { type: "button", text: t("lobby.seatDraw"), onclick: async () => {
      const out = await attempt(() => post(`/api/drawn-tables/${d.id}/seat`,
        { mode: "draw", preset: preset.value, cards: cards.value }));
      if (out) go(`#/table/${out.table_id}`);
    } }));
}

export async function renderLobby(root, { me }) {
  await loadPresets();
  const sessionBox = h("section", { class: "card", "aria-labelledby": "session-title" });
  const tablesBox = h("section", { class: "card", "aria-labelledby": "tables-title" });
  const practiceBox = h("section", { class: "card", "aria-labelledby": "practice-title" });
  const consentBox = h("section", { class: "card consent-box", "aria-labelledby": "consents-title",
    "data-testid": "consents", hidden: true });
  root.append(h("h1", { text: t("lobby.title") }),
    h("div", { class: "lobby-grid" }, sessionBox, h("div", {}, consentBox, tablesBox, practiceBox)));

  const members = (await attempt(() => get("/api/members"))) || [];
  const byId = new Map(members.map((m) => [m.id, m]));

  async function loadSession() {
    clear(sessionBox).append(h("h2", { id: "session-title", text: t("lobby.session") }));
    const found = await attempt(sessionOf);
    if (!found) return null;
    const { detail, today } = found;
    if (!detail) {
      sessionBox.append(h("p", { class: "muted", text: found.any ? t("lobby.none") : t("lobby.noneAhead") }));
      if (me.role === "admin") {
        sessionBox.append(h("button", { type: "button", text: t("lobby.generate"),
          onclick: async () => {
            if (await attempt(() => post("/api/sessions/generate", { weeks: 8 }))) await loadSession();
          } }));
      }
      return null;
    }
    const s = detail.session;
    const started = Date.now() >= new Date(s.starts_at).getTime();
    const present = detail.attendance.some((a) => a.member_id === me.id);
    const noticed = detail.late_notices.some((n) => n.member_id === me.id);
    sessionBox.querySelector("h2").textContent = today ? t("lobby.today") : t("lobby.next");
    sessionBox.append(h("p", { class: "session-time" },
      h("strong", { text: fmtTime(s.starts_at, true) }), ` – ${fmtTime(s.ends_at)}`,
      s.extra ? h("span", { class: "badge", text: t("lobby.extra") }) : null,
      s.ended_at ? h("span", { class: "badge", text: t("lobby.ended") }) : null));

    const actions = h("div", { class: "actions" });
    if (present) actions.append(h("span", { class: "ok", text: `✓ ${t("lobby.checkedIn")}` }));
    else if (!s.ended_at) {
      const refusal = checkInRefusal(s, noticed);
      actions.append(h("button", { type: "button", class: "primary", id: "check-in", text: t("lobby.checkin"),
        disabled: Boolean(refusal), "aria-describedby": refusal ? "check-in-why" : null,
        onclick: async () => {
          if (await attempt(() => post(`/api/sessions/${s.id}/check-in`))) await loadSession();
        } }));
      if (refusal) actions.append(h("span", { id: "check-in-why", class: "muted small why", text: refusal }));
    }
    if (!started && !present) {
      if (noticed) {
        actions.append(h("button", { type: "button", text: t("lobby.withdrawLate"),
          onclick: async () => {
            await attempt(() => del(`/api/sessions/${s.id}/late-notice`));
            await loadSession();
          } }));
      } else {
        const note = h("input", { id: "late-note", placeholder: t("lobby.lateNote"),
          "aria-label": t("lobby.lateNote"), maxlength: 200 });
        actions.append(h("form", { class: "inline", onsubmit: async (e) => {
          e.preventDefault();
          if (await attempt(() => post(`/api/sessions/${s.id}/late-notice`,
            { note: note.value || null }))) await loadSession();
        } }, note, h("button", { type: "submit", text: t("lobby.late") })));
      }
    }
    sessionBox.append(actions);
    sessionBox.append(h("div", { class: "people-grid" },
      peopleList(t("lobby.present"), detail.attendance.map((a) =>
        [a.display_name, a.late ? h("span", { class: "muted small", text: ` (${fmtTime(a.checked_in_at)})` }) : null]),
      "present"),
      peopleList(t("lobby.lateList"), detail.late_notices.map((n) =>
        [n.display_name, n.note ? h("span", { class: "muted small", text: ` — ${n.note}` }) : null]),
      "late"),
      peopleList(t("lobby.waiting"), names(detail.waiting, byId), "waiting")));

    if (detail.drawn_tables.length) {
      sessionBox.append(h("h3", { text: t("lobby.drawn") }), h("ul", { class: "drawn" },
        detail.drawn_tables.map((d) => h("li", {},
          h("span", { class: `suit suit-${d.suit}`, "aria-label": `${t("table.suit")} ${SUITS[d.suit]}`,
            text: SUITS[d.suit] ?? "?" }), " ",
          names(d.member_ids, byId).join(", "), " ",
          d.table_id
            ? h("a", { class: "button", href: `#/table/${d.table_id}`, text: t("table.go") })
            : seatDrawControls(d)))));
    }
    // A session draws its tables once (latecomers join a three-player table as its fourth).
    const mayDraw = (present || me.role === "admin") && today && !s.ended_at
      && !detail.drawn_tables.length && detail.waiting.length >= 3;
    if (mayDraw) {
      sessionBox.append(h("button", { type: "button", text: t("lobby.drawTables"), onclick: async () => {
        if (await attempt(() => post(`/api/sessions/${s.id}/draw-tables`, {}))) await loadSession();
      } }));
    }
    return s;
  }

  /**
   * What is asked of me: seat changes waiting for my consent (GET /api/seat-changes?awaiting=me;
   * R-T4, R-T5) and, at my club tables past the session's end, the extension (R-S2).
   */
  async function loadConsents(myTables) {
    // Built first and shown at once: two loads that overlap (the poll, an answer) never both
    // append to the box.
    const items = [];
    let changes = [];
    try {
      changes = await get("/api/seat-changes?awaiting=me");
    } catch {
      changes = []; // an older server has no list of seat changes: nothing to show
    }
    for (const c of changes || []) {
      if (c.status !== "pending" || !c.required.includes(me.id) || c.consents.includes(me.id)) continue;
      const name = byId.get(c.member_id)?.display_name ?? `#${c.member_id}`;
      const text = c.kind === "join"
        ? t("lobby.consentJoin", { name, table: c.table_id })
        : t("lobby.consentReplace", { name, seat: Number(c.seat) + 1, table: c.table_id });
      items.push(h("li", { "data-change": c.id }, h("span", { text }), " ",
        answerButtons(() => `/api/seat-changes/${c.id}/consent`, (agree) => ({ agree }))));
    }
    for (const tb of myTables) {
      if (tb.practice || !tb.club_session_id) continue;
      let ext = null;
      try { ext = await get(`/api/tables/${tb.id}/extension`); } catch { ext = null; }
      // nothing to ask once the admin refused the extension (R-S2)
      if (!ext || !ext.past_end || ext.refused || ext.may_start_deal || ext.extension_agreed || !ext.required.includes(me.id)
        || ext.agreed.includes(me.id) || ext.deals_after_end > 0) continue;
      items.push(h("li", { "data-extension": tb.id }, h("span", { text: t("lobby.extensionAsk", { table: tb.id, end: fmtTime(ext.ends_at) }) }), " ",
        answerButtons(() => `/api/tables/${tb.id}/extension`, (agree) => ({ agree }))));
    }
    clear(consentBox);
    if (!items.length) { consentBox.hidden = true; return; }
    consentBox.hidden = false;
    consentBox.append(h("h2", { id: "consents-title", text: t("lobby.consents") }),
      h("ul", { class: "consents" }, items));
  }

  function answerButtons(path, body) {
    const answer = (agree) => async () => {
      if (await attempt(() => post(path(), body(agree)))) await loadTables();
    };
    return h("span", { class: "actions" },
      h("button", { type: "button", class: "primary", text: t("lobby.agree"), onclick: answer(true) }),
      h("button", { type: "button", text: t("lobby.refuse"), onclick: answer(false) }));
  }

  async function loadTables() {
    tablesBox.dataset.loaded = "false";
    try {
      await showTables();
    } finally {
      tablesBox.dataset.loaded = "true";
    }
  }

  async function showTables() {
    clear(tablesBox).append(h("h2", { id: "tables-title", text: t("lobby.tables") }));
    // Only tables still playing: a finished table has gone to the history.
    const tables = await attempt(() => get("/api/tables?status=playing"));
    if (!tables) return;
    const open = tables.filter((tb) => tb.status === "playing").slice(-30).reverse();
    if (!open.length) {
      tablesBox.append(h("p", { class: "muted", text: t("lobby.noTables") }));
      await loadConsents([]);
      return;
    }
    const details = await Promise.all(open.map(async (tb) => {
      const detail = await get(`/api/tables/${tb.id}`).catch(() => null);
      if (detail && detail.seats.some((st) => st.member_id && !byId.has(st.member_id))) {
        // house bots are not in the members list: the table's own names say who sits there
        const state = await get(`/api/tables/${tb.id}/state`).catch(() => null);
        detail.names = state?.table?.names ?? null;
      }
      return detail;
    }));
    await loadConsents(details.filter((tb) => tb && tb.seats.some((st) => st.member_id === me.id)));
    tablesBox.append(h("ul", { class: "tables" }, details.filter(Boolean).map((tb) => {
      const seated = tb.seats.map((st) => (st.member_id
        ? (byId.get(st.member_id)?.display_name ?? tb.names?.[st.seat] ?? `#${st.member_id}`)
        : t("table.emptySeat")));
      const mine = tb.seats.some((st) => st.member_id === me.id);
      return h("li", { class: mine ? "mine" : "" },
        h("a", { href: `#/table/${tb.id}`, text: `${t("table.t")} ${tb.id}` }),
        tb.practice ? h("span", { class: "badge", text: t("table.practice") }) : null,
        tb.preset ? h("span", { class: "badge", "data-testid": "table-preset", text: presetTitle(tb.preset) }) : null,
        h("span", { class: "muted small", text: ` ${t(`table.status.${tb.status}`)} · ${t("lobby.target")} ${tb.target}` }),
        h("div", { class: "small" }, seated.join(" · ")));
    })));
  }

  const practice = h("form", { class: "row", id: "practice-form" },
    h("div", { class: "field" }, h("label", { for: "p-players", text: t("lobby.players") }),
      h("select", { id: "p-players", name: "players" },
        h("option", { value: "3", text: "3" }), h("option", { value: "4", text: "4" }))),
    h("div", { class: "field" }, h("label", { for: "p-target", text: t("lobby.target") }),
      h("input", wholeNumber({ id: "p-target", name: "target", min: 1, max: 200, value: 10 }))),
    h("div", { class: "field" }, h("label", { for: "p-level", text: t("botlevel.label") }),
      h("select", { id: "p-level", name: "bot_level" },
        ...["beginner", "club", "strong"].map((v) => h("option", { value: v, text: t(`botlevel.${v}`) })))),
    h("div", { class: "field" }, h("label", { for: "p-timer", text: t("timer.label") }),
      h("select", { id: "p-timer", name: "move_timer_seconds" },
        ...TIMER_CHOICES.map((v) => h("option", { value: v, text: timerChoice(v) })))),
    h("p", { class: "muted small", text: t("timer.rule") }),
    h("div", { class: "field" }, h("label", { for: "p-preset", text: t("preset.label") }), presetSelect("p-preset")),
    h("button", { type: "submit", class: "primary", text: t("lobby.create") }));
  practice.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = new FormData(practice);
    const out = await attempt(() => post("/api/practice-tables",
      { players: Number(data.get("players")), target: Number(data.get("target")),
        bot_level: String(data.get("bot_level") || "beginner"),
        move_timer_seconds: Number(data.get("move_timer_seconds")) || null,
        preset: String(data.get("preset") || defaultPreset()) }));
    if (out) go(`#/table/${out.table_id}`);
  });
  practiceBox.append(h("h2", { id: "practice-title", text: t("lobby.practice") }),
    h("p", { class: "muted small", text: t("lobby.practiceHint") }), practice);

  const nightsBox = h("section", { class: "card", "aria-labelledby": "nights-title", "data-testid": "nights" });
  root.append(nightsBox);

  /** The last ended sessions, each linking to its night's results (pages/night.js). */
  async function loadNights() {
    const all = (await attempt(() => get("/api/sessions"))) || [];
    const ended = all.filter((s) => s.ended_at).slice(-4).reverse();
    clear(nightsBox).hidden = !ended.length;
    nightsBox.append(h("h2", { id: "nights-title", text: t("night.sessions") }),
      h("ul", {}, ended.map((s) => h("li", {}, h("a", { href: `#/night/${s.id}`, dataset: { night: s.id },
        text: `${fmtTime(s.starts_at, true)}${s.extra ? ` · ${t("lobby.extra")}` : ""}` })))));
  }

  await Promise.all([loadSession(), loadTables(), loadNights()]);
  const timer = setInterval(() => { loadTables(); }, 15000);
  return () => clearInterval(timer);
}
