// The R-S2 extension asked at the table itself: past the session's end a club table starts no new
// deal unless every player agreed to one more round. The players are at the table then, not in
// the lobby, so the table page asks them too ("play one more round after 21:45?", with who has
// agreed). The state is GET /api/tables/{id}/extension, polled while the table plays (the page
// cannot know the server's time) and reloaded after every deal.
import { get, post } from "../api.js";
import { attempt } from "../app.js";
import { fmtTime, h } from "../dom.js";
import { t } from "../i18n.js";

const POLL_MS = 5000;

/**
 * The ask for a club table (`onChange` re-renders the page): `view(nameOf)` is the box to show or
 * null, `state()` the last answer of the server (what the box is drawn from), `reload()` after a
 * deal, `stop()` when the page goes.
 */
export function extensionAsk(tableId, me, onChange) {
  let ext = null;
  let busy = false;

  async function reload() {
    if (busy) return;
    busy = true;
    try {
      ext = await get(`/api/tables/${tableId}/extension`).catch(() => ext);
    } finally {
      busy = false;
    }
    onChange();
  }

  async function answer(agree) {
    const out = await attempt(() => post(`/api/tables/${tableId}/extension`, { agree }));
    if (out) {
      ext = out;
      onChange();
    }
  }

  function view(nameOf) {
    // asked only past the end, before the round's first deal, of a player who must agree
    if (!ext || !ext.past_end || ext.refused || ext.may_start_deal || ext.extension_agreed || ext.deals_after_end > 0
      || !ext.required.includes(me.id)) return null;
    const mine = ext.agreed.includes(me.id);
    const waiting = ext.required.filter((id) => !ext.agreed.includes(id)).map(nameOf);
    return h("div", { class: "extension-ask", role: "status", "data-testid": "extension-ask" },
      h("p", {}, h("strong", { text: t("tp.extAsk", { end: fmtTime(ext.ends_at) }) }), " ",
        h("span", { class: "small", text: t("tp.extHow") })),
      mine
        ? h("p", { class: "small", text: t("tp.extWaiting", { names: waiting.join(", ") }) })
        : h("div", { class: "actions" },
          h("button", { type: "button", class: "primary", "data-answer": "agree", text: t("lobby.agree"),
            onclick: () => answer(true) }),
          h("button", { type: "button", "data-answer": "refuse", text: t("lobby.refuse"),
            onclick: () => answer(false) })));
  }

  reload();
  const timer = setInterval(reload, POLL_MS);
  return { view, state: () => ext, reload, stop: () => clearInterval(timer) };
}
