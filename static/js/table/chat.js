// The chat between deals (R-W12: open only while `chat_open`): the deal's lines and a field to
// write one. One part, redrawn only when a line comes, the chat opens or closes, or the blind
// mode (which says the lines itself) is switched; a half-written line survives a redraw.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { part } from "./part.js";

/** The chat of the table page `ctx`. */
export function chatPart(ctx) {
  let draft = "";
  return part(() => ({ lines: ctx.st.info.chat || [], open: ctx.st.info.chat_open !== false,
    watching: ctx.st.seat === null, words: ctx.blind.on }),
  ({ lines, open, watching, words }) => {
    const input = h("input", { id: "chat-text", maxlength: 500, required: true,
      placeholder: t("table.chatPlaceholder"), "aria-label": t("table.chatPlaceholder"),
      disabled: !open || watching, value: draft,
      oninput: (e) => { draft = e.target.value; } });
    const form = h("form", { class: "inline", onsubmit: (e) => {
      e.preventDefault();
      if (!input.value.trim()) return; // only spaces: validity.js has said so on the field
      ctx.send({ type: "chat", text: input.value });
      draft = "";
      input.value = "";
    } }, input, h("button", { type: "submit", disabled: !open || watching, text: t("table.send") }));
    return h("section", { class: "card side-chat", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title", text: t("table.chat") }),
      h("div", { class: "chat-log", "aria-live": words ? null : "polite" },
        lines.map((line) => h("p", {}, h("strong", { text: `${line.name}: ` }), line.text))),
      open ? null : h("p", { class: "muted small", text: t("tp.chatClosed") }),
      form);
  });
}
