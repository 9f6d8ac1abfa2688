// The single page: a hash router (#/lobby, #/table/7, #/members, #/history, #/password,
// #/night/3, #/room; /room opens the room's screen), the
// logged-in member, the top bar and the error notice every page uses.
import { ApiError, errorText, get, post } from "./api.js";
import { clear, h, setClubZone } from "./dom.js";
import { lang, setLang, t } from "./i18n.js";
import { wordNativeChecks } from "./validity.js";

const app = document.getElementById("app");
wordNativeChecks();
let me = null;
/** The member was asked for just now (the first route): a 401 need not be asked again. */
let meJustAsked = false;
let cleanup = null;

let noticeTimer;

/** Show an error (or a plain message with kind "info") at the top of the page. */
export function notify(message, kind = "error") {
  const box = document.getElementById("notice");
  clear(box);
  box.className = `notice notice-${kind}`;
  box.append(h("span", { text: message }),
    h("button", { type: "button", class: "link", "aria-label": t("common.close"),
      onclick: () => { box.hidden = true; } }, "×"));
  box.hidden = false;
  // an earlier message's timer must not hide this one
  clearTimeout(noticeTimer);
  if (kind !== "error") noticeTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

/** The button the member just pressed (clicked, or the submit button of the form he pressed
 * Enter in), if any: the one an action started from. Only while a press is being handled: a
 * page's own loads (a timer's refresh, the steps after an answer) started while the focus
 * rests in a form must not disable that form's button — a click landing then was lost. */
function pressedButton() {
  const event = window.event;
  if (!event || !["click", "submit", "keydown"].includes(event.type)) return null;
  const active = document.activeElement;
  if (active instanceof HTMLButtonElement) return active;
  if (active && active.form) return active.form.querySelector("button[type=submit], button:not([type])");
  return null;
}

/** Hide the error notice (an action has since succeeded). */
export function clearError() {
  const box = document.getElementById("notice");
  if (box.classList.contains("notice-error")) box.hidden = true;
}

/**
 * Run an async action; show its error to the user instead of throwing. When a button started
 * it (the member's press is being handled), the button is disabled until the answer comes (a
 * second click cannot send it twice), and a success clears the red notice an earlier attempt
 * left; a page's own loads leave both alone.
 */
export async function attempt(action) {
  const button = pressedButton();
  const wasDisabled = button ? button.disabled : false;
  if (button) {
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
  }
  try {
    const result = await action();
    if (button) clearError();
    return result;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && !["login_failed", "wrong_credentials"].includes(err.code)) {
      me = null;
      go("#/login");
    }
    notify(describeError(err));
    return undefined;
  } finally {
    if (button) {
      button.removeAttribute("aria-busy");
      if (!wasDisabled) button.disabled = false;
    }
  }
}

/**
 * What to tell the player about a failed action, in his language: a server error by its code
 * (api.js errorText); anything else (a bug in a page) as the generic server error, never the
 * English text of a JavaScript exception.
 */
export function describeError(err) {
  if (err instanceof ApiError) return err.message;
  console.error(err);
  return errorText(500, null);
}

let zone;

/** The club's day of `iso` in its own time zone (CLUB_TZ), e.g. "30 нояб." or with the year. */
export function fmtDate(iso, { year = false, weekday = false } = {}) {
  if (!iso) return "";
  const opts = { day: "numeric", month: "short", timeZone: zone };
  if (year) opts.year = "numeric";
  if (weekday) opts.weekday = "short";
  return new Date(iso).toLocaleDateString(document.documentElement.lang || "ru", opts);
}

/** Date and time of `iso` in the club's time zone. */
export function fmtDateTime(iso) {
  if (!iso) return "";
  return new Date(iso).toLocaleString(document.documentElement.lang || "ru", {
    day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
    timeZone: zone });
}

/** The wall-clock parts of `instant` in the club's zone: {date: "2026-11-30", minutes: 1140}. */
export function clubClock(instant) {
  const parts = {};
  const fmt = new Intl.DateTimeFormat("en-GB", { timeZone: zone, year: "numeric", month: "2-digit",
    day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  for (const p of fmt.formatToParts(new Date(instant))) parts[p.type] = p.value;
  return { date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

export function currentMember() {
  return me;
}

export function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

/** The member the login answer named (saves asking the server again at once). */
export function setMe(member) {
  me = member;
}

export async function refreshMe() {
  try {
    me = await get("/api/auth/me");
  } catch {
    me = null;
  }
  return me;
}

function renderTop() {
  const nav = clear(document.getElementById("nav"));
  const who = clear(document.getElementById("whoami"));
  document.getElementById("lang").textContent = lang() === "ru" ? "EN" : "RU";
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  if (!me || me.must_change_password) return;
  const links = [["#/lobby", "nav.lobby"], ["#/history", "nav.history"], ["#/stats", "nav.stats"],
    ["#/standings", "nav.standings"]];
  links.push(["#/fund", "nav.fund"]);
  if (me.role === "admin") links.push(["#/members", "nav.members"], ["#/admin", "nav.admin"]);
  for (const [href, key] of links) {
    const current = location.hash.startsWith(href);
    nav.append(h("a", { href, "aria-current": current ? "page" : null, text: t(key) }));
  }
  who.append(
    h("span", { class: "me", text: me.display_name }),
    h("a", { href: "#/password", text: t("nav.password") }),
    h("button", { type: "button", class: "link", onclick: logout, text: t("nav.logout") }),
  );
}

async function logout() {
  await attempt(() => post("/api/auth/logout"));
  me = null;
  go("#/login");
}

const PAGES = {
  login: () => import("./pages/login.js").then((m) => m.renderLogin),
  password: () => import("./pages/login.js").then((m) => m.renderPassword),
  reset: () => import("./pages/login.js").then((m) => m.renderReset),
  lobby: () => import("./pages/lobby.js").then((m) => m.renderLobby),
  table: () => import("./pages/table.js").then((m) => m.renderTable),
  recording: () => import("./pages/recording.js").then((m) => m.renderRecording),
  members: () => import("./pages/members.js").then((m) => m.renderMembers),
  fund: () => import("./pages/fund.js").then((m) => m.renderFund),
  history: () => import("./pages/history.js").then((m) => m.renderHistory),
  replay: () => import("./pages/replay.js").then((m) => m.renderReplay),
  stats: () => import("./pages/stats.js").then((m) => m.renderStats),
  standings: () => import("./pages/standings.js").then((m) => m.renderStandings),
  member: () => import("./pages/member.js").then((m) => m.renderMember),
  admin: () => import("./pages/admin.js").then((m) => m.renderAdmin),
  night: () => import("./pages/night.js").then((m) => m.renderNight),
  sheet: () => import("./pages/night-sheet.js").then((m) => m.renderSheet),
  room: () => import("./pages/room.js").then((m) => m.renderRoom),
};

async function route() {
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  clearError();
  const [name, ...args] = location.hash.replace(/^#\/?/, "").split("/");
  let page = name || "lobby";
  if (location.pathname === "/reset-password" && !name) page = "reset";
  if (location.pathname === "/room" && !name) page = "room";
  if (page !== "reset") {
    if (me === null && !meJustAsked) await refreshMe();
    if (!me) page = "login";
    else if (me.must_change_password) page = "password";
    else if (page === "login") page = "lobby";
  }
  meJustAsked = false;
  if (!PAGES[page]) page = "lobby";
  renderTop();
  clear(app);
  app.dataset.page = page;
  const render = await PAGES[page]();
  const result = await render(app, { args, me });
  if (typeof result === "function") cleanup = result;
}

document.getElementById("lang").addEventListener("click", () => {
  setLang(lang() === "ru" ? "en" : "ru");
  route();
});
window.addEventListener("hashchange", route);
document.documentElement.lang = lang();
if ("serviceWorker" in navigator) {
  // The page's shell for the home screen and for a lost network (static/sw.js): never a hand.
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}
// The first page's module loads beside the club's settings and the member, asked at once: the
// first page waits for both (issue 28: the first render); the router's import then finds it.
PAGES[location.hash.replace(/^#\/?/, "").split("/")[0]]?.().catch(() => {});
Promise.all([get("/api/ui/config").then((c) => {
  zone = c.club_tz || undefined;
  setClubZone(c.club_tz);
}).catch(() => {}), refreshMe().then(() => { meJustAsked = true; })]).finally(route);
