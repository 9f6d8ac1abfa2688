// The single page: a hash router (#/lobby, #/table/7, #/members, #/history, #/password), the
// logged-in member, the top bar and the error notice every page uses.
import { ApiError, get, post } from "./api.js";
import { clear, h, setClubZone } from "./dom.js";
import { lang, setLang, t } from "./i18n.js";

const app = document.getElementById("app");
let me = null;
let cleanup = null;

/** Show an error (or a plain message with kind "info") at the top of the page. */
export function notify(message, kind = "error") {
  const box = document.getElementById("notice");
  clear(box);
  box.className = `notice notice-${kind}`;
  box.append(h("span", { text: message }),
    h("button", { type: "button", class: "link", "aria-label": t("common.close"),
      onclick: () => { box.hidden = true; } }, "×"));
  box.hidden = false;
  if (kind !== "error") setTimeout(() => { box.hidden = true; }, 4000);
}

/** Run an async action; show its error to the user instead of throwing. */
export async function attempt(action) {
  try {
    return await action();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      me = null;
      go("#/login");
    }
    notify(err.message || String(err));
    return undefined;
  }
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
  const links = [["#/lobby", "nav.lobby"], ["#/history", "nav.history"], ["#/stats", "nav.stats"]];
  links.push(["#/fund", "nav.fund"]);
  if (me.role === "admin") links.push(["#/members", "nav.members"]);
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
  members: () => import("./pages/members.js").then((m) => m.renderMembers),
  fund: () => import("./pages/fund.js").then((m) => m.renderFund),
  history: () => import("./pages/history.js").then((m) => m.renderHistory),
  replay: () => import("./pages/replay.js").then((m) => m.renderReplay),
  stats: () => import("./pages/stats.js").then((m) => m.renderStats),
};

async function route() {
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  const box = document.getElementById("notice");
  if (box.classList.contains("notice-error")) box.hidden = true;
  const [name, ...args] = location.hash.replace(/^#\/?/, "").split("/");
  let page = name || "lobby";
  if (location.pathname === "/reset-password" && !name) page = "reset";
  if (page !== "reset") {
    if (me === null) await refreshMe();
    if (!me) page = "login";
    else if (me.must_change_password) page = "password";
    else if (page === "login") page = "lobby";
  }
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
get("/api/ui/config").then((c) => setClubZone(c.club_tz)).catch(() => {}).finally(route);
