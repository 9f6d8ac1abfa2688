// The table page's parts (static/js/table/part.js): a part is redrawn only when the signature of
// its slice changed, keeps its place while it shows nothing, and is redrawn when forced; and the
// page's state (static/js/table/state.js) as the socket's messages change it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { part, signature, updateAll } = await import("../../static/js/table/part.js");
const { emptyState, fromSnapshot, rememberSeen, withEvent } = await import("../../static/js/table/state.js");

test("equal slices have equal signatures, a changed value a different one", () => {
  assert.equal(signature({ hand: ["SA", "D7"], legal: [] }), signature({ hand: ["SA", "D7"], legal: [] }));
  assert.notEqual(signature({ hand: ["SA", "D7"] }), signature({ hand: ["SA"] }));
  assert.notEqual(signature(null), signature({}));
  assert.equal(signature(undefined), "");
});

/** A part over a mutable slice that counts its drawings, placed in a parent element. */
function counted(initial) {
  const state = { slice: initial, draws: 0 };
  const one = part(() => state.slice, (slice) => {
    state.draws += 1;
    return slice ? document.createElement(slice.tag) : null;
  });
  const parent = document.createElement("div");
  parent.append(one.node);
  return { state, one, parent };
}

test("a part is drawn again only when its slice changed", () => {
  const { state, one, parent } = counted({ tag: "p", lines: ["a"] });
  assert.equal(one.update(), true);
  assert.equal(parent.children[0].tagName, "p");
  const drawn = parent.children[0];
  assert.equal(one.update(), false);
  state.slice = { tag: "p", lines: ["a"] };  // a new object with the same content
  assert.equal(one.update(), false);
  assert.equal(parent.children[0], drawn);
  state.slice = { tag: "p", lines: ["a", "b"] };
  assert.equal(one.update(), true);
  assert.notEqual(parent.children[0], drawn);
  assert.equal(state.draws, 2);
});

test("a part showing nothing keeps its place and comes back there; forcing redraws", () => {
  const { state, one, parent } = counted({ tag: "p" });
  parent.append(document.createElement("hr"));
  one.update();
  state.slice = null;
  one.update();
  assert.equal(parent.children[0].tagName, "#comment");
  state.slice = { tag: "ul" };
  one.update();
  assert.deepEqual(parent.children.map((c) => c.tagName), ["ul", "hr"]);
  const drawn = parent.children[0];
  assert.equal(updateAll([one]), false);
  assert.equal(updateAll([one], true), true);
  assert.notEqual(parent.children[0], drawn);
});

test("a chat event changes the chat and the seq, not the deal's objects", () => {
  const deal = { phase: "play", hand: ["SA"], trick: [] };
  const st = fromSnapshot(emptyState(), { seq: 4, seat: 1, deal, legal: [], table: { names: ["A", "B", "C"] } });
  const next = withEvent(st, { type: "chat", seq: 5, deal, legal: [], data: { name: "A", text: "привет" } });
  assert.equal(next.seq, 5);
  assert.deepEqual(next.info.chat, [{ seq: 5, name: "A", text: "привет" }]);
  assert.equal(next.deal, deal);
  assert.deepEqual(next.info.names, ["A", "B", "C"]);
  const ended = withEvent(next, { type: "deal_ended", seq: 6, deal, legal: [], data: { deal_no: 1 } });
  assert.deepEqual(ended.info.chat, []);
  assert.deepEqual(ended.info.last_deal, { deal_no: 1 });
});

test("a seat change comes with the event; the commitment, the cut and the hand are remembered", () => {
  const st = fromSnapshot(emptyState(), { seq: 1, seat: null, deal: null, legal: [], table: {} });
  const seated = withEvent(st, { type: "player_joined", seq: 2, seat: 3, deal: null, legal: [],
    data: { names: ["A", "B", "C", "D"], players: 4 } });
  assert.equal(seated.seat, 3);
  assert.equal(seated.info.players, 4);
  const hand = ["SA", "SK", "SQ", "SJ", "ST", "S9", "S8", "S7", "DA", "DK"];
  const at = (deal_no, deal) => ({ ...seated, info: { ...seated.info, deal_no }, deal });
  let now = at(1, { phase: "cut", commitment: "abc", cut: null });
  rememberSeen(now);
  now = { ...at(1, { phase: "auction", cut: 7, hand }), seen: now.seen };
  rememberSeen(now);
  assert.deepEqual(now.seen[1], { commitment: "abc", cut: 7, hand, seat: 3 });
  for (const no of [2, 3, 4]) {
    now = { ...at(no, { phase: "cut", commitment: `c${no}` }), seen: now.seen };
    rememberSeen(now);
  }
  assert.deepEqual(Object.keys(now.seen), ["2", "3", "4"]);
  now = { ...at(4, { phase: "done", finished: true, reveal: { salt: "s" } }), seen: now.seen };
  rememberSeen(now);
  assert.deepEqual(now.info.finished_deal, { deal_no: 4, reveal: { salt: "s" }, seen: { commitment: "c4" } });
});
