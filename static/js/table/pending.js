// A click's effect shown at once (issue 28: the table at the speed of a hand): the moment a
// move leaves for the server, the page changes the few elements it touches — the card leaves
// the hand for the cloth, the pressed call is marked and its box goes quiet — without waiting
// for the answer or redrawing the page. The server's next message redraws the parts whose state
// it changed; a refusal redraws every part as it was, so a refused move is undone by the redraw.
import { cardFace } from "./cards.js";
import { h } from "../dom.js";

/** The selector of the button that makes `command` (to show it again after a redraw). */
export function sentButton(command) {
  if (command.type === "play_card") return `button.card-face[data-card="${command.card}"]`;
  if (command.type === "bid") return `#bid-${command.call}`;
  if (command.type === "name_contract") return `[data-testid=actions] button[data-call="${command.contract}"]`;
  return `[data-testid=actions] button[data-call="${command.call}"]`;
}

/** Quiet every button of the group the move was made from, and mark the pressed one. */
function quiet(group, pressed) {
  for (const button of group.querySelectorAll("button")) button.disabled = true;
  pressed.classList.add("sent");
  pressed.setAttribute("aria-busy", "true");
}

/**
 * Show the move `command` made by pressing `button` as made: a played card goes from the hand
 * to the trick under `name`; a call, a whist or a pass marks its button and quiets the box.
 */
export function showSent(felt, button, command, name) {
  if (command.type === "play_card") {
    const hand = button.closest(".hand");
    if (hand) quiet(hand, button);
    button.classList.add("gone");
    const trick = felt.querySelector("[data-testid=trick], [data-testid=trick-done], .trick.empty");
    // shown again after a redraw: the cloth, if it was not redrawn, has the card already
    if (trick && !trick.querySelector("[data-testid=sent-card]")) {
      if (!trick.matches("[data-testid=trick]")) trick.replaceChildren();
      trick.classList.remove("empty", "completed");
      trick.append(h("div", { class: "trick-card sent", "data-testid": "sent-card" },
        cardFace(command.card), h("span", { text: name })));
    }
    return;
  }
  const group = button.closest(".bidbox, .actions, .panel");
  if (group) quiet(group, button);
}
