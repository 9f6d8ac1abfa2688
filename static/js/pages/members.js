// Members (admin): create a member with a one-time password, change role, hand out a password
// reset link (shown once, with a copy button), deactivate or reactivate.
import { get, patch, post } from "../api.js";
import { attempt, fmtDateTime, notify } from "../app.js";
import { clear, h } from "../dom.js";
import { t } from "../i18n.js";

const ROLES = ["member", "treasurer", "admin"];

function roleSelect(id, value) {
  return h("select", { id, name: "role", "aria-label": t("members.role") },
    ROLES.map((r) => h("option", { value: r, selected: r === value, text: t(`role.${r}`) })));
}

/** Copy the field's text to the clipboard (or select it, where the clipboard is not allowed). */
async function copyText(field) {
  field.focus();
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
  } catch {
    document.execCommand("copy"); // plain http pages have no async clipboard
  }
  notify(t("members.copied"), "info");
}

export async function renderMembers(root, { me }) {
  if (me.role !== "admin") {
    // everyone may see who is in the club; only the admin manages accounts
    const members = (await attempt(() => get("/api/members"))) || [];
    root.append(h("h1", { text: t("members.title") }), h("ul", { class: "card" },
      members.filter((m) => m.active).map((m) => h("li", {}, m.display_name,
        m.role !== "member" ? h("span", { class: "badge", text: t(`role.${m.role}`) }) : null))));
    return;
  }
  const result = h("div", { class: "result", "aria-live": "polite" });
  const tbody = h("tbody");
  const form = h("form", { class: "card", id: "create-member", "aria-labelledby": "cm-title" },
    h("h2", { id: "cm-title", text: t("members.create") }),
    h("div", { class: "row" },
      h("div", { class: "field" }, h("label", { for: "m-login", text: t("members.login") }),
        // no pattern: the server says in words what a login may hold (Cyrillic too)
        h("input", { id: "m-login", name: "login", required: true, autocomplete: "off",
          "aria-describedby": "m-login-hint" }),
        h("p", { id: "m-login-hint", class: "hint small", text: t("members.loginRule") })),
      h("div", { class: "field" }, h("label", { for: "m-name", text: t("members.name") }),
        h("input", { id: "m-name", name: "display_name", required: true })),
      h("div", { class: "field" }, h("label", { for: "m-role", text: t("members.role") }),
        roleSelect("m-role", "member")),
      h("button", { type: "submit", class: "primary", text: t("members.add") })),
    result);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const out = await attempt(() => post("/api/members", {
      login: data.get("login"), display_name: data.get("display_name"), role: data.get("role"),
    }));
    if (!out) return;
    clear(result).append(h("p", { class: "secret" },
      t("members.otp", { login: out.member.login }), " ",
      h("code", { class: "otp", text: out.one_time_password }),
      h("span", { class: "muted small", text: ` ${t("members.otpOnce")}` })));
    form.reset();
    await load();
  });

  const table = h("table", { class: "list members-table", "aria-label": t("members.title") },
    h("thead", {}, h("tr", {},
      ["members.login", "members.name", "members.role", "members.status", "nav.actions"].map((k) =>
        h("th", { scope: "col", text: k === "nav.actions" ? "" : t(k), class: k === "nav.actions" ? "th-actions" : null },
          k === "nav.actions" ? h("span", { class: "sr-only", text: t("admin.actions") }) : null)))),
    tbody);

  async function load() {
    const members = await attempt(() => get("/api/members"));
    if (!members) return;
    clear(tbody);
    for (const m of members) tbody.append(row(m));
  }

  function row(m) {
    const name = h("input", { value: m.display_name, "aria-label": `${t("members.name")} ${m.login}` });
    const role = roleSelect(`role-${m.id}`, m.role);
    const save = h("button", { type: "button", text: t("members.save"),
      "aria-label": `${t("members.save")} ${m.login}`,
      onclick: async () => {
        const out = await attempt(() => patch(`/api/members/${m.id}`,
          { display_name: name.value, role: role.value }));
        if (out) await load();
      } });
    const linkBox = h("div", { class: "reset-link" });
    const reset = h("button", { type: "button", text: t("members.reset"),
      "aria-label": `${t("members.reset")} ${m.login}`,
      onclick: async () => {
        const out = await attempt(() => post(`/api/members/${m.id}/password-reset`));
        if (!out) return;
        const url = new URL(out.url, location.origin).href;
        const field = h("input", { readonly: true, value: url, class: "copy",
          "aria-label": t("members.resetLinkLabel", { login: m.login }),
          onfocus: (e) => e.target.select() });
        clear(linkBox).append(
          h("span", { text: t("members.resetLink", { login: m.login, until: fmtDateTime(out.expires_at) }) }), " ",
          h("span", { class: "copy-row" }, field,
            h("button", { type: "button", class: "copy-button", text: t("members.copy"),
              "aria-label": `${t("members.copy")}: ${t("members.resetLinkLabel", { login: m.login })}`,
              onclick: () => copyText(field) })));
      } });
    const toggle = h("button", {
      type: "button", class: m.active ? "danger" : "",
      text: m.active ? t("members.deactivate") : t("members.activate"),
      "aria-label": `${m.active ? t("members.deactivate") : t("members.activate")} ${m.login}`,
      disabled: me && me.id === m.id,
      onclick: async () => {
        if (m.active && !confirm(t("members.confirmDeactivate", { login: m.login }))) return;
        const out = await attempt(() => post(`/api/members/${m.id}/${m.active ? "deactivate" : "activate"}`));
        if (out) await load();
      } });
    return h("tr", { class: m.active ? "" : "inactive", dataset: { login: m.login } },
      h("td", {}, h("code", { text: m.login })),
      h("td", {}, name),
      h("td", {}, role),
      h("td", {}, m.active ? t("members.active") : t("members.inactive"),
        m.must_change_password ? h("div", { class: "muted small", text: t("members.mustChange") }) : null),
      h("td", { class: "actions" }, save, reset, toggle, linkBox));
  }

  root.append(h("h1", { text: t("members.title") }), form, h("div", { class: "card scroll-x" }, table));
  await load();
}
