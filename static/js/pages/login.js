// Login, the forced (or voluntary) password change, and setting a password from a reset link.
import { post } from "../api.js";
import { attempt, go, notify, refreshMe, setMe } from "../app.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";

/** The shortest password the server accepts (app/services/accounts.py MIN_PASSWORD). */
export const MIN_PASSWORD = 8;
/** The longest password the server takes (app/api/auth.py: max_length=256). */
const MAX_PASSWORD = 256;

function field(id, label, attrs = {}, hint = null) {
  const hintId = hint ? `${id}-hint` : null;
  return h("div", { class: "field" },
    h("label", { for: id, text: label }),
    h("input", { id, name: id, required: true, "aria-describedby": hintId,
      ...(attrs.type === "password" ? { maxlength: MAX_PASSWORD } : {}), ...attrs }),
    hint ? h("p", { id: hintId, class: "hint small", text: hint }) : null);
}

/** The new password's field, saying its rule before anyone types. */
function newPasswordField() {
  return field("new_password", t("pw.new"), { type: "password", autocomplete: "new-password" },
    t("pw.rule", { min: MIN_PASSWORD }));
}

/**
 * What is wrong with a new password before it is sent, in the server's order: too short first
 * (the rule), then the repeat that differs; null when it may go (the server still checks it).
 */
function newPasswordProblem(data) {
  const password = data.get("new_password") || "";
  if (password.length < MIN_PASSWORD) return t("err.code.password_too_short", { min: MIN_PASSWORD });
  if (password !== data.get("repeat_password")) return t("pw.mismatch");
  return null;
}

export function renderLogin(root) {
  const form = h("form", { class: "card narrow", "aria-labelledby": "login-title" },
    h("h1", { id: "login-title", text: t("login.title") }),
    field("login", t("login.login"), { autocomplete: "username", autofocus: true }),
    field("password", t("login.password"), { type: "password", autocomplete: "current-password" }),
    h("button", { type: "submit", class: "primary", text: t("login.submit") }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const out = await attempt(() => post("/api/auth/login",
      { login: data.get("login"), password: data.get("password") }));
    if (!out) return;
    setMe({ ...out.member, must_change_password: out.must_change_password });
    go(out.must_change_password ? "#/password" : "#/lobby");
  });
  root.append(form);
}

export function renderPassword(root, { me }) {
  const form = h("form", { class: "card narrow", "aria-labelledby": "pw-title" },
    h("h1", { id: "pw-title", text: t("pw.title") }),
    me && me.must_change_password ? h("p", { class: "hint", text: t("pw.forced") }) : null,
    field("current_password", t("pw.current"), { type: "password", autocomplete: "current-password" }),
    newPasswordField(),
    field("repeat_password", t("pw.repeat"), { type: "password", autocomplete: "new-password" }),
    h("button", { type: "submit", class: "primary", text: t("pw.submit") }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const problem = newPasswordProblem(data);
    if (problem) {
      notify(problem);
      return;
    }
    const out = await attempt(() => post("/api/auth/password", {
      current_password: data.get("current_password"), new_password: data.get("new_password"),
    }));
    if (!out) return;
    notify(t("pw.changed"), "info");
    const member = await refreshMe();
    go(member ? "#/lobby" : "#/login");
  });
  root.append(form);
}

export function renderReset(root) {
  const token = new URLSearchParams(location.search).get("token");
  if (!token) {
    root.append(h("p", { class: "card narrow", text: t("reset.notoken") }));
    return;
  }
  const form = h("form", { class: "card narrow", "aria-labelledby": "reset-title" },
    h("h1", { id: "reset-title", text: t("reset.title") }),
    newPasswordField(),
    field("repeat_password", t("pw.repeat"), { type: "password", autocomplete: "new-password" }),
    h("button", { type: "submit", class: "primary", text: t("pw.submit") }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const problem = newPasswordProblem(data);
    if (problem) {
      notify(problem);
      return;
    }
    const out = await attempt(() => post("/api/auth/password-reset",
      { token, new_password: data.get("new_password") }));
    if (!out) return;
    history.replaceState(null, "", "/#/login");
    notify(t("reset.done"), "info");
    go("#/login");
  });
  root.append(form);
}
