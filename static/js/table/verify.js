// The deal check done by the browser itself (RULES.md R-D4, docs/protocol.md): after a deal the
// server reveals the deck order and the salt; the page recomputes
//     sha256("deck/1:" + deck.join(" ") + ":" + salt)
// with Web Crypto, compares it with the commitment it was shown BEFORE the cut, then cuts the
// revealed deck where the cut was made and deals it again by twos (the talon is the fourth pair,
// R-D3), and compares hands and talon with what was dealt — so a player need not take the
// server's word for it. Mirrors app/rules/deck.py (commitment, cut_deck, _deal_plan).

const SUITS = ["S", "C", "D", "H"];
const RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"];
const ALL_CARDS = new Set(SUITS.flatMap((s) => RANKS.map((r) => `${r}${s}`)));

/** SHA-256 of an ASCII text, as lower-case hex (Web Crypto). */
export async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The commitment the server publishes before the cut (app/rules/deck.py `commitment`). */
export function commitmentText(deck, salt) {
  return `deck/1:${deck.join(" ")}:${salt}`;
}

/** The three seats that get cards, from the dealer's left clockwise (R-D3, R-T6). */
function playingSeats(players, dealer) {
  if (players === 3) return [(dealer + 1) % 3, (dealer + 2) % 3, dealer];
  if (players === 4) return [(dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4];
  return [(dealer + 1) % 5, (dealer + 2) % 5, (dealer + 4) % 5]; // five: the dealer and the seat opposite sit out
}

/**
 * Cut the deck at `cut` (the top `cut` cards go under) and deal it by twos clockwise from the
 * dealer's left, the fourth pair being the talon. Returns {hands: [[cards] per seat], talon}.
 */
export function redeal(deck, cut, players, dealer) {
  const order = [...deck.slice(cut), ...deck.slice(0, cut)];
  const seats = playingSeats(players, dealer);
  const hands = Array.from({ length: players }, () => []);
  const talon = [];
  for (let pair = 0; pair < 16; pair += 1) {
    const cards = order.slice(2 * pair, 2 * pair + 2);
    if (pair === 3) talon.push(...cards);
    else hands[seats[(pair < 3 ? pair : pair - 1) % 3]].push(...cards);
  }
  return { hands, talon };
}

const sameSet = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length
  && [...a].sort().join(",") === [...b].sort().join(",");

/**
 * Check a revealed deal. `reveal`: {deck, salt, cut, players, dealer, hands, talon, commitment}
 * (the finished deal view's `reveal`). `seen` (optional) is what this browser itself saw during
 * the deal: {commitment (shown before the cut), cut, seat, hand (own cards as dealt)}.
 * Resolves to {ok, checks: [{key, ok}]}; `key` names the check in the i18n catalogue.
 */
export async function verifyDeal(reveal, seen = {}) {
  const checks = [];
  const add = (key, ok) => checks.push({ key, ok: Boolean(ok) });
  const deck = Array.isArray(reveal?.deck) ? reveal.deck : [];
  const deckOk = deck.length === 32 && new Set(deck).size === 32 && deck.every((c) => ALL_CARDS.has(c));
  add("deck", deckOk);
  const hash = await sha256Hex(commitmentText(deck, String(reveal?.salt ?? "")));
  const announced = seen.commitment || reveal?.commitment;
  add("hash", typeof announced === "string" && hash === announced.toLowerCase());
  if (seen.commitment && reveal?.commitment) add("seen", seen.commitment === reveal.commitment);
  if (seen.cut !== undefined && seen.cut !== null) add("cut", seen.cut === reveal?.cut);
  const cut = Number(reveal?.cut);
  const players = Number(reveal?.players);
  const dealer = Number(reveal?.dealer);
  if (deckOk && Number.isInteger(cut) && cut > 0 && cut < 32 && [3, 4, 5].includes(players)) {
    const again = redeal(deck, cut, players, dealer);
    const shownHands = reveal.hands || [];
    add("hands", again.hands.every((hand, seat) => sameSet(hand, shownHands[seat] || [])));
    // in dealt order, as the engine checks it: on a pass-out the first talon card leads (R-R2)
    add("talon", Array.isArray(reveal.talon) && again.talon.join(",") === reveal.talon.join(","));
    if (Array.isArray(seen.hand) && seen.hand.length && seen.seat !== null && seen.seat !== undefined) {
      add("mine", sameSet(again.hands[seen.seat] || [], seen.hand));
    }
  } else {
    add("hands", false);
  }
  return { ok: checks.every((c) => c.ok), checks };
}
