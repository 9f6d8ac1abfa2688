// Moves and questions typed at the table, for a blind member (docs/browser.md «Режим для
// незрячих»): «6т» (6 треф), «6бк», «пас», «вист», «дп» (дама пик), «10ч», «снос дп 7ч»,
// «рука», «последняя» — or their English «6c», «qs», «discard qs 7h», «hand». A typed move
// becomes the very command the server lists as legal (docs/protocol.md §3), so nothing is
// sent that the server would refuse for its form; anything else is answered in words.

const SUITS = {
  п: "S", пик: "S", пики: "S", s: "S", spade: "S", spades: "S",
  т: "C", треф: "C", трефы: "C", c: "C", club: "C", clubs: "C",
  б: "D", бубен: "D", бубны: "D", буби: "D", d: "D", diamond: "D", diamonds: "D",
  ч: "H", червей: "H", черви: "H", червы: "H", h: "H", heart: "H", hearts: "H",
};
const NO_TRUMPS = new Set(["бк", "б/к", "безкозыря", "без козыря", "без козырей", "nt", "notrump", "notrumps", "no trumps"]);
const RANKS = {
  7: "7", 8: "8", 9: "9", 10: "10",
  в: "J", валет: "J", j: "J", jack: "J",
  д: "Q", дама: "Q", q: "Q", queen: "Q",
  к: "K", король: "K", k: "K", king: "K",
  т: "A", туз: "A", a: "A", ace: "A",
  семерка: "7", восьмерка: "8", девятка: "9", десятка: "10",
  seven: "7", eight: "8", nine: "9", ten: "10",
};

/** Questions: the word typed → what to read (table/announce.js). */
const QUESTIONS = {
  рука: "hand", карты: "hand", hand: "hand", cards: "hand",
  стол: "trick", взятка: "trick", trick: "trick", table: "trick",
  последняя: "last", прошлая: "last", last: "last",
  контракт: "contract", игра: "contract", торговля: "contract", contract: "contract", bidding: "contract",
  пулька: "sheet", пуля: "sheet", счет: "sheet", sheet: "sheet", score: "sheet",
  время: "clock", часы: "clock", таймер: "clock", time: "clock", clock: "clock",
  "чей ход": "turn", ход: "turn", кто: "turn", turn: "turn", whose: "turn",
  можно: "legal", варианты: "legal", legal: "legal", options: "legal",
  помощь: "help", справка: "help", help: "help", "?": "help",
  повтори: "repeat", еще: "repeat", repeat: "repeat", again: "repeat",
  подсказка: "hint", совет: "hint", hint: "hint",
};

/** Words naming one action; the value is a predicate over a legal action. */
const WORD_MOVES = {
  пас: (a) => a.call === "pass", pass: (a) => a.call === "pass",
  вист: (a) => a.call === "whist", whist: (a) => a.call === "whist",
  полвиста: (a) => a.call === "half", "пол-виста": (a) => a.call === "half", пол: (a) => a.call === "half",
  half: (a) => a.call === "half",
  мизер: (a) => a.call === "misere" || a.contract === "misere",
  misere: (a) => a.call === "misere" || a.contract === "misere",
  здесь: (a) => a.call === "here", here: (a) => a.call === "here",
  прикуп: (a) => a.type === "take_talon", взять: (a) => a.type === "take_talon",
  take: (a) => a.type === "take_talon", buy: (a) => a.type === "take_talon",
  "вернуть прикуп": (a) => a.type === "return_talon", return: (a) => a.type === "return_talon",
  дальше: (a) => a.type === "next_deal", следующая: (a) => a.type === "next_deal", next: (a) => a.type === "next_deal",
  открыто: (a) => a.mode === "open", open: (a) => a.mode === "open",
  закрыто: (a) => a.mode === "closed", closed: (a) => a.mode === "closed",
  сдаюсь: (a) => a.type === "concede", concede: (a) => a.type === "concede",
  согласен: (a) => a.type === "accept_result", accept: (a) => a.type === "accept_result",
  "не согласен": (a) => a.type === "decline_result", decline: (a) => a.type === "decline_result",
  поднять: (a) => a.type === "pick_up", "pick up": (a) => a.type === "pick_up",
  остальные: (a) => a.type === "claim", claim: (a) => a.type === "claim",
};

/** The text as compared: lower case, «ё» as «е», single spaces, no final full stop. */
export function normalise(text) {
  return String(text).toLowerCase().replace(/ё/g, "е").replace(/\s+/g, " ").trim().replace(/[.!]+$/, "");
}

/** «6т», «6 треф», «7бк», «6п бп» → "6C", "7NT", "6SBP"; null when it is not a level call. */
export function levelCall(text) {
  const m = /^(6|7|8|9|10)\s*(.+?)(\s*(бп|б\/п|без прикупа|wt|w\/o talon))?$/.exec(text);
  if (!m) return null;
  const strain = NO_TRUMPS.has(m[2].trim()) ? "NT" : SUITS[m[2].trim()];
  if (!strain) return null;
  return `${m[1]}${strain}${m[3] ? "BP" : ""}`;
}

/** «дп», «д п», «дама пик», «10ч», «qs», «queen of spades» → "QS"; null when not a card. */
export function cardOf(text) {
  const words = text.replace(/\bof\b/g, " ").replace(/\s+/g, " ").trim();
  const spaced = /^(\S+)\s(\S+)$/.exec(words);
  if (spaced && RANKS[spaced[1]] && SUITS[spaced[2]]) return `${RANKS[spaced[1]]}${SUITS[spaced[2]]}`;
  const joined = /^(10|[789]|[вдктjqka])([птбчscdh])$/.exec(words);
  if (joined) return `${RANKS[joined[1]]}${SUITS[joined[2]]}`;
  return null;
}

/** Two cards of a discard: «дп 7ч», «дама пик, семерка червей» → ["QS", "7H"], else null. */
function twoCards(text) {
  const parts = text.split(/\s*,\s*|\s+и\s+|\s+and\s+/).filter(Boolean);
  if (parts.length === 2) {
    const cards = parts.map(cardOf);
    return cards.every(Boolean) ? cards : null;
  }
  const words = text.split(" ");
  for (let cut = 1; cut < words.length; cut += 1) {
    const cards = [cardOf(words.slice(0, cut).join(" ")), cardOf(words.slice(cut).join(" "))];
    if (cards.every(Boolean)) return cards;
  }
  return null;
}

/**
 * What a typed line means now: `{send: action}` (an action of `legal`, exactly as listed),
 * `{read: what}` (a question), or `{error: key, vars}` (a sentence of the catalogue saying why
 * not). `hand` is this seat's cards, to tell «you do not hold it» from «not now».
 */
export function parseTyped(raw, { legal, hand }) {
  const text = normalise(raw);
  if (!text) return { error: "bl.err.unknown", vars: { text: raw } };
  if (text in QUESTIONS) return { read: QUESTIONS[text] };
  const pick = (test) => legal.find(test);
  if (text in WORD_MOVES) {
    const found = pick(WORD_MOVES[text]);
    return found ? { send: found } : { error: "bl.err.notNow", vars: { text: raw.trim() } };
  }
  if (["сдвиг", "сдвинуть", "cut"].includes(text)) {  // in the middle, as the page's own button
    return legal.some((a) => a.type === "cut") ? { send: { type: "cut", auto: true } }
      : { error: "bl.err.notNow", vars: { text: raw.trim() } };
  }
  const cutAt = /^(?:сдвиг|сдвинуть|cut)\s+(\d+)$/.exec(text);
  if (cutAt) {
    const found = pick((a) => a.type === "cut" && a.position === Number(cutAt[1]));
    return found ? { send: found } : { error: "bl.err.notNow", vars: { text: raw.trim() } };
  }
  const discard = /^(?:снос|снести|сношу|discard)\s+(.+)$/.exec(text);
  const discarding = legal.some((a) => a.type === "discard");
  if (discard || (discarding && twoCards(text))) {
    const cards = twoCards(discard ? discard[1] : text);
    const found = cards && pick((a) => a.type === "discard" && cards.every((c) => a.cards.includes(c)));
    if (found) return { send: { type: "discard", cards } };
    return { error: discarding ? "bl.err.discard" : "bl.err.notNow", vars: { text: raw.trim() } };
  }
  const call = levelCall(text);
  if (call) {
    const found = pick((a) => (a.type === "bid" && a.call === call) || (a.type === "name_contract" && a.contract === call));
    if (found) return { send: found };
  }
  const card = cardOf(text);
  if (card) {
    const found = pick((a) => a.type === "play_card" && a.card === card);
    if (found) return { send: found };
    if (!call) return { error: (hand || []).includes(card) ? "bl.err.cardNotNow" : "bl.err.noCard", vars: { card } };
  }
  if (call) return { error: "bl.err.notNow", vars: { text: raw.trim() } };
  return { error: "bl.err.unknown", vars: { text: raw.trim() } };
}
