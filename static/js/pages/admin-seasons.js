// «Сезоны» on #/admin (issue 27): the club's seasons (name, first and last day; they never
// overlap) and the minimum of pulkas to qualify in the standings. POST/PUT/DELETE
// /api/seasons and PUT /api/club/settings/min-pulkas; every change is audited.
import { del, get, post, put } from "../api.js";
import { attempt, notify } from "../app.js";
import { clear, h } from "../dom.js";
import { t, tn } from "../i18n.js";
import { wholeNumber } from "../validity.js";

const field = (id, label, input) => h("div", { class: "field" }, h("label", { for: id, text: t(label) }), input);

/** The admin's seasons section (it loads itself). */
export function adminSeasonsSection() {
  const box = h("section", { class: "card", "aria-labelledby": "adm-seasons", id: "admin-seasons" });

  function seasonForm(season, onSaved) {
    const key = season ? `s${season.id}` : "new";
    const name = h("input", { id: `season-name-${key}`, name: "name", maxlength: 100, required: true, value: season?.name ?? "" });
    const first = h("input", { id: `season-first-${key}`, name: "first_day", type: "date", required: true, value: season?.first_day ?? "" });
    const last = h("input", { id: `season-last-${key}`, name: "last_day", type: "date", required: true, value: season?.last_day ?? "" });
    const form = h("form", { class: "row season-form" },
      field(`season-name-${key}`, "seasons.name", name), field(`season-first-${key}`, "seasons.first", first),
      field(`season-last-${key}`, "seasons.last", last),
      h("button", { type: "submit", class: "primary", text: t(season ? "seasons.save" : "seasons.add") }));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = { name: name.value.trim(), first_day: first.value, last_day: last.value };
      const out = await attempt(() => (season ? put(`/api/seasons/${season.id}`, body) : post("/api/seasons", body)));
      if (!out) return;
      notify(t("seasons.saved", { name: out.name }), "info");
      await onSaved();
    });
    if (season) {
      form.append(h("button", { type: "button", class: "danger", text: t("seasons.delete"),
        onclick: async () => {
          if (!window.confirm(t("seasons.confirmDelete", { name: season.name }))) return;
          if ((await attempt(() => del(`/api/seasons/${season.id}`))) === undefined) return;
          await onSaved();
        } }));
    }
    return form;
  }

  async function load() {
    const [seasons, settings] = await Promise.all([attempt(() => get("/api/seasons")), attempt(() => get("/api/club/settings"))]);
    const minimum = h("input", wholeNumber({ id: "min-pulkas", name: "min_pulkas", min: 0, max: 1000, required: true,
      value: settings?.min_pulkas ?? 5 }));
    const minForm = h("form", { class: "row", id: "min-pulkas-form" }, field("min-pulkas", "seasons.minimum", minimum),
      h("button", { type: "submit", class: "primary", text: t("seasons.save") }));
    minForm.addEventListener("submit", async (e) => {
      e.preventDefault();
      const out = await attempt(() => put("/api/club/settings/min-pulkas", { min_pulkas: Number(minimum.value) }));
      if (out) notify(t("seasons.minimumSaved", { n: out.min_pulkas, pulkas: tn("common.fromPulkas", out.min_pulkas) }), "info");
    });
    clear(box).append(h("h2", { id: "adm-seasons", text: t("seasons.title") }),
      h("p", { class: "muted small", text: t("seasons.hint") }),
      ...(seasons || []).map((s) => seasonForm(s, load)),
      h("h3", { text: t("seasons.new") }), seasonForm(null, load), minForm);
  }
  load();
  return box;
}
