// The page's own deal check (static/js/table/verify.js) against deals the engine made
// (tests/js/fixtures/reveals.json, kept equal to app/rules by tests/rules/test_js_fixtures.py):
// the commitment (R-D4) and the deal by twos with the talon as the fourth pair (R-D3, R-T6).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { commitmentText, redeal, sha256Hex, verifyDeal } from "../../static/js/table/verify.js";

const fixture = JSON.parse(readFileSync(new URL("./fixtures/reveals.json", import.meta.url), "utf8"));
const checks = (result) => Object.fromEntries(result.checks.map((c) => [c.key, c.ok]));

test("the fixture is the version this test reads, with every table size and dealer", () => {
  assert.equal(fixture.version, 1);
  const kinds = new Set(fixture.reveals.map((r) => `${r.players}/${r.dealer}`));
  assert.equal(kinds.size, 3 + 4 + 5);
});

test("the commitment is the server's SHA-256 of the deck and the salt (R-D4)", async () => {
  for (const r of fixture.reveals) {
    assert.equal(await sha256Hex(commitmentText(r.deck, r.salt)), r.commitment);
  }
});

test("dealing the cut deck again gives the server's hands and talon, in the talon's order (R-D3)", () => {
  for (const r of fixture.reveals) {
    const again = redeal(r.deck, r.cut, r.players, r.dealer);
    const sorted = (cards) => [...cards].sort();
    assert.deepEqual(again.hands.map(sorted), r.hands.map(sorted), `${r.players} players, dealer ${r.dealer}`);
    assert.deepEqual(again.talon, r.talon);
    const sitting = again.hands.filter((hand) => hand.length === 0).length;
    assert.equal(sitting, r.players - 3, "the seats out of the deal get no cards (R-T6)");
  }
});

test("every engine deal passes the page's check, with what the seat saw", async () => {
  for (const r of fixture.reveals) {
    const seat = r.hands.findIndex((hand) => hand.length);
    const result = await verifyDeal(r, { commitment: r.commitment, cut: r.cut, seat, hand: r.hands[seat] });
    assert.ok(result.ok, JSON.stringify(result.checks));
    assert.deepEqual(Object.keys(checks(result)).sort(), ["cut", "deck", "hands", "hash", "mine", "seen", "talon"]);
  }
});

test("a changed deck, hand, talon, cut or commitment fails the check it touches", async () => {
  const r = fixture.reveals[0];
  const swapped = [...r.deck];
  [swapped[0], swapped[1]] = [swapped[1], swapped[0]];
  assert.equal(checks(await verifyDeal({ ...r, deck: swapped })).hash, false);

  const hands = r.hands.map((hand) => [...hand]);
  [hands[0][0], hands[1][0]] = [hands[1][0], hands[0][0]];
  const badHands = checks(await verifyDeal({ ...r, hands }));
  assert.equal(badHands.hands, false);
  assert.equal(badHands.hash, true);

  assert.equal(checks(await verifyDeal({ ...r, talon: [...r.talon].reverse() })).talon, false, "the talon's order counts");
  assert.equal(checks(await verifyDeal(r, { cut: r.cut + 1 })).cut, false);
  assert.equal(checks(await verifyDeal(r, { commitment: "0".repeat(64) })).seen, false);
  assert.equal(checks(await verifyDeal({ ...r, cut: 0 })).hands, false);
  assert.equal(checks(await verifyDeal({ ...r, deck: r.deck.slice(1) })).deck, false);
});
