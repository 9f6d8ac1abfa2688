// The paper pulka's layout (static/js/table/sheet.js): whose field is where, every column's
// running totals with the last one bold, and the whists cut into one part per opponent.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installBrowser } from "./dom-stub.js";

installBrowser("ru");
const { drawPulka, whistsLabel } = await import("../../static/js/table/sheet.js");

function sheetOf(players) {
  return {
    pool: Array.from({ length: players }, (_, i) => 2 * i),
    hill: Array.from({ length: players }, (_, i) => 4 * i),
    whists: Array.from({ length: players }, (_, i) => Array.from({ length: players }, (_, j) => (i === j ? 0 : 10 * i + j))),
  };
}

function draw(players, seat, extra = {}) {
  const names = ["Анна", "Борис", "Вера", "Глеб", "Дина"].slice(0, players);
  return drawPulka({ players, names, seat, target: 20, sheet: sheetOf(players), ...extra });
}

const centre = (svg) => {
  const circle = svg.findAll((n) => n.tagName === "circle")[0];
  return { x: Number(circle.attributes.cx), y: Number(circle.attributes.cy) };
};
const at = (node) => ({ x: Number(node.attributes.x), y: Number(node.attributes.y) });

for (const players of [3, 4, 5]) {
  test(`${players} players: the viewer's field at the bottom, his left neighbour's on the left`, () => {
    for (let seat = 0; seat < players; seat += 1) {
      const svg = draw(players, seat);
      const c = centre(svg);
      const mine = at(svg.byTestId(`hill-${seat}`));
      assert.ok(mine.y > c.y, "the viewer's hill is below the circle");
      assert.ok(Math.abs(mine.x - c.x) < 1, "and straight below it");
      const left = at(svg.byTestId(`hill-${(seat + 1) % players}`));
      const right = at(svg.byTestId(`hill-${(seat + players - 1) % players}`));
      assert.ok(left.x < c.x, "the next seat clockwise sits on the viewer's left");
      assert.ok(right.x > c.x, "the seat before him on his right");
    }
  });

  test(`${players} players: every seat has a hill, a pool and one whist part per opponent`, () => {
    const svg = draw(players, 0);
    for (let seat = 0; seat < players; seat += 1) {
      const last = svg.byTestId(`hill-${seat}`).findAll((n) => n.attributes.class === "last");
      assert.deepEqual(last.map((n) => n.textContent), seat ? [String(4 * seat)] : [], "a zero column is empty");
      for (let on = 0; on < players; on += 1) {
        const part = svg.byTestId(`whists-${seat}-${on}`);
        if (on === seat) assert.equal(part, null);
        else assert.ok(part, `whists of ${seat} on ${on}`);
      }
    }
    assert.equal(svg.findAll((n) => n.attributes.class === "target")[0].textContent, "20");
  });
}

test("a long column shows an ellipsis and its last four totals, the last in bold (R-P6)", () => {
  const lines = [2, 4, 6, 8, 10, 12].map((total) => ({ column: "pool", seat: 0, total }));
  const svg = draw(3, 0, { lines });
  const pool = svg.byTestId("pool-0");
  const values = pool.children.filter((n) => n.tagName === "tspan" && n.attributes.class !== "sep");
  assert.deepEqual(values.map((n) => n.textContent), ["…", "6", "8", "10", "12"]);
  assert.equal(values.at(-1).attributes.class, "last");
  const title = pool.children.find((n) => n.tagName === "title");
  assert.equal(title.textContent, "2 . 4 . 6 . 8 . 10 . 12", "the whole column in its tooltip");
});

test("a pool that reached the target is drawn closed", () => {
  const sheet = sheetOf(3);
  sheet.pool[1] = 20;
  const svg = draw(3, 0, { sheet });
  assert.match(svg.byTestId("pool-1").attributes.class, /closed/);
  assert.doesNotMatch(svg.byTestId("pool-2").attributes.class, /closed/);
});

test("a whists part names its player whole, else by his first name, cut only if even that is long", () => {
  assert.equal(whistsLabel("Лев", 8), "→ Лев");
  assert.equal(whistsLabel("Кира Живая", 11), "Кира Живая");
  assert.equal(whistsLabel("Кира Живая", 7), "→ Кира");
  assert.equal(whistsLabel("Тамара Сидорова", 6), "Тамара");
  assert.equal(whistsLabel("Тамара Сидорова", 4), "Там…");
});
