"""Card play by Perfect Information Monte Carlo (PIMC) from a seat's protocol view only.

The bot never sees a hidden card. From the views it is shown (the same ``deal`` dict a
websocket client gets: its hand, open hands, the current and the last trick, the talon once
shown, the discard to the declarer before the first lead) it keeps a small memory per deal
(:class:`Memory`: the cards it has seen played and the suits each seat has shown void in by not
following suit). To choose a card it deals the cards it cannot place at random over the hidden
hands, consistent with that memory (:func:`sample_hands`), solves each sample exactly with the
project's double-dummy solver (:func:`app.rules.best_tricks`) after each candidate card, and
plays the card with the best average over the samples.

The thinking time adapts: samples are solved until ``budget`` seconds have passed (or
``samples`` are done), so a faster solver simply buys more samples. If not even one sample is
finished in time (the first leads are the costliest), the caller falls back to its heuristic.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.rules import best_tricks, parse_card, playing_seats

SUIT_LETTERS = ("S", "C", "D", "H")
FULL_DECK = (1 << 32) - 1
MISERE_TRICK_WEIGHT = 5.0
"""On misère the first trick is what matters: a sample where the declarer takes any trick
counts this much more than one extra trick."""
CONTRACT_BONUS = 2.0
"""In a game, reaching the contract (declarer) or holding him under it (defence) is worth this
many tricks more than the plain trick count."""


@dataclass
class Memory:
    """What one seat has seen of the current deal (keyed by the deal's public commitment)."""

    key: str | None = None
    played: int = 0
    """Mask of the cards seen played in closed or current tricks."""
    voids: dict[int, set[int]] = field(default_factory=dict)
    """Seat → suits it has shown void in (it did not follow suit)."""

    def update(self, deal: Mapping[str, Any]) -> None:
        """Fold in what ``deal`` (a protocol view) shows; a new deal resets the memory."""
        key = str(deal.get("commitment"))
        if key != self.key:
            self.key, self.played, self.voids = key, 0, {}
        for trick in (deal.get("last_trick") or [], deal.get("trick") or []):
            if not trick:
                continue
            led = parse_card(trick[0]["card"]) >> 3
            for item in trick:
                card = parse_card(item["card"])
                self.played |= 1 << card
                seat = item["seat"]
                if seat is not None and seat >= 0 and card >> 3 != led:
                    self.voids.setdefault(int(seat), set()).add(led)


def mask_of(cards: Sequence[str] | None) -> int:
    """The card mask of protocol card texts (``["10H", "AS"]``)."""
    mask = 0
    for text in cards or ():
        mask |= 1 << parse_card(text)
    return mask


def active_seats(deal: Mapping[str, Any]) -> list[int]:
    """The three seats in the deal, in playing order from forehand (the dealer sits out at
    four; at five he and the seat opposite him, R-T6)."""
    return list(playing_seats(int(deal["players"]), int(deal["dealer"])))


def trump_of(contract: str | None) -> int | None:
    """The trump suit index of a contract text (``"7S"`` → 0), None for no-trumps/misère."""
    if not contract or contract in ("misere", "pass", "here") or contract.endswith("NT"):
        return None
    return SUIT_LETTERS.index(contract[-1])


def sample_hands(
    deal: Mapping[str, Any], memory: Memory, rng: random.Random, tries: int = 50
) -> dict[int, int] | None:
    """One random placement of the unseen cards: seat → mask for every active seat.

    Known hands (the seat's own, open ones) are kept; the other active seats get as many cards
    as ``hand_sizes`` says, drawn from the cards this seat cannot place, never in a suit the
    seat has shown void in. Cards left over (talon, discard, tricks not seen) stay out.
    Returns None if no placement was found in ``tries`` attempts."""
    me = deal.get("seat")
    sizes = {int(s): int(n) for s, n in (deal.get("hand_sizes") or {}).items()}
    known: dict[int, int] = {int(s): mask_of(c) for s, c in (deal.get("open_hands") or {}).items()}
    if me is not None:
        known[int(me)] = mask_of(deal.get("hand"))
    located = memory.played | mask_of([t["card"] for t in deal.get("trick") or []])
    located |= mask_of(deal.get("talon")) | mask_of(deal.get("discard"))
    for mask in known.values():
        located |= mask
    seats = active_seats(deal)
    hidden = [s for s in seats if s not in known]
    pool = [c for c in range(32) if not located >> c & 1]
    need = {s: sizes.get(s, 0) for s in hidden}
    if sum(need.values()) > len(pool):
        return None
    for _ in range(tries):
        rng.shuffle(pool)
        left = dict(need)
        hands = {s: 0 for s in hidden}
        spare = len(pool) - sum(need.values())
        ok = True
        # Cards in suits some seat is void in first: they have the fewest places to go.
        ordered = sorted(
            pool, key=lambda c: -sum(c >> 3 in memory.voids.get(s, ()) for s in hidden)
        )
        for card in ordered:
            places = [s for s in hidden if left[s] > 0 and card >> 3 not in memory.voids.get(s, ())]
            weights = [left[s] for s in places]
            if spare > 0:
                places.append(-1)
                weights.append(spare)
            if not places:
                ok = False
                break
            where = rng.choices(places, weights)[0]
            if where == -1:
                spare -= 1
            else:
                hands[where] |= 1 << card
                left[where] -= 1
        if ok and all(n == 0 for n in left.values()):
            out = {s: known.get(s, 0) for s in seats if s in known}
            out.update(hands)
            return out
    return None


def _winner(trick: Sequence[tuple[int, int]], trump: int | None) -> int:
    led = trick[0][1] >> 3
    best_pos, best_key = -1, -1
    for pos, card in trick:
        suit = card >> 3
        key = 100 + card if trump is not None and suit == trump else card if suit == led else -1
        if key > best_key:
            best_pos, best_key = pos, key
    return best_pos


def declarer_tricks_after(
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    card: int,
    trump: int | None,
    declarer: int,
    misere: bool,
) -> int:
    """The declarer's tricks from now (current trick included) if the hand to play plays
    ``card`` and everyone plays perfectly after (exact, by :func:`app.rules.best_tricks`)."""
    pos = (leader + len(trick)) % 3
    new = list(hands)
    new[pos] ^= 1 << card
    hands3 = (new[0], new[1], new[2])
    played = (*trick, (pos, card))
    if len(played) < 3:
        return best_tricks(hands3, leader, played, trump, declarer, misere)
    winner = _winner(played, trump)
    won = 1 if winner == declarer else 0
    return won + best_tricks(hands3, winner, (), trump, declarer, misere)


def representatives(cards: Sequence[int], alive: int) -> dict[int, list[int]]:
    """Group ``cards`` into runs touching among ``alive`` cards: one card stands for its run
    (playing either is the same). Maps the representative (the run's top card) to its run."""
    groups: dict[int, list[int]] = {}
    root_of: dict[int, int] = {}
    for card in sorted(cards, reverse=True):
        above = card + 1
        while above <= (card | 7) and not alive >> above & 1:
            above += 1
        root = root_of[above] if above <= card | 7 and above in root_of else card
        root_of[card] = root
        groups.setdefault(root, []).append(card)
    return groups


class SolveCost:
    """Running mean of one solve's seconds per hand size (cards left in the hand to play).

    A search is started only where the expected cost of one sample (one solve per candidate)
    fits the budget; sizes never measured are tried only next to a cheap measured one, so the
    bot starts from the end of the deal and searches earlier as the solver proves fast (a
    faster solver automatically buys earlier and more searches)."""

    def __init__(self, first: int = 6) -> None:
        self.first = first
        self.mean: dict[int, float] = {}
        self.count: dict[int, int] = {}

    def record(self, size: int, seconds: float) -> None:
        n = self.count.get(size, 0)
        self.mean[size] = (self.mean.get(size, 0.0) * n + seconds) / (n + 1)
        self.count[size] = min(n + 1, 50)

    def affordable(self, size: int, candidates: int, budget: float) -> bool:
        if size <= self.first:
            return True
        if size in self.mean:
            return self.mean[size] * candidates <= budget / 2
        below = self.mean.get(size - 1)
        return below is not None and below * candidates * 8 <= budget / 2


SOLVE_COST = SolveCost()
"""This process's measured solver speed (shared by every bot in it)."""


def hands_left(deal: Mapping[str, Any], seat: int) -> int:
    """Cards left in the hand of ``seat``."""
    return int((deal.get("hand_sizes") or {}).get(str(seat), 10))


@dataclass
class Decision:
    """A PIMC choice: the card, the samples solved and each candidate's mean value."""

    card: str | None
    samples: int
    scores: dict[str, float]


def choose_card(
    deal: Mapping[str, Any],
    legal_cards: Sequence[str],
    memory: Memory,
    rng: random.Random,
    *,
    samples: int,
    budget: float,
) -> Decision:
    """The card to play by PIMC, or ``Decision(None, …)`` when no sample was solved in time
    (or the deal is not one the declarer-vs-defence solver models: a pass-out)."""
    kind = deal.get("kind")
    declarer_seat = deal.get("declarer")
    if kind not in ("game", "misere") or declarer_seat is None or not legal_cards:
        return Decision(None, 0, {})
    if len(legal_cards) == 1:
        return Decision(legal_cards[0], 0, {legal_cards[0]: 0.0})
    misere = kind == "misere"
    trump = None if misere else trump_of(deal.get("contract"))
    seats = active_seats(deal)
    pos = {s: i for i, s in enumerate(seats)}
    declarer = pos[int(declarer_seat)]
    turn = int(deal["turn"])
    trick_json = deal.get("trick") or []
    trick = tuple((pos[int(t["seat"])], parse_card(t["card"])) for t in trick_json)
    leader = pos[int(deal["trick_leader"])] if trick else pos[turn]
    for_declarer = pos[turn] == declarer
    level = 0 if misere else int(str(deal["contract"]).rstrip("SCDHNT"))
    taken = int((deal.get("tricks") or {}).get(str(declarer_seat), 0))
    cards = [parse_card(c) for c in legal_cards]
    alive = FULL_DECK & ~(memory.played | mask_of([t["card"] for t in trick_json]))
    groups = representatives(cards, alive)
    if len(groups) == 1:
        return Decision(legal_cards[0], 0, {})
    size = int(hands_left(deal, turn))
    if not SOLVE_COST.affordable(size, len(groups), budget):
        return Decision(None, 0, {})
    totals = {c: 0.0 for c in groups}
    done = 0
    deadline = time.perf_counter() + budget
    while done < samples and time.perf_counter() < deadline:
        placed = sample_hands(deal, memory, rng)
        if placed is None:
            break
        hands = (placed[seats[0]], placed[seats[1]], placed[seats[2]])
        values: dict[int, float] = {}
        for card in groups:
            if time.perf_counter() > deadline and done > 0:
                break
            started = time.perf_counter()
            got = declarer_tricks_after(hands, leader, trick, card, trump, declarer, misere)
            SOLVE_COST.record(size, time.perf_counter() - started)
            if misere:
                values[card] = got + (MISERE_TRICK_WEIGHT if got > 0 else 0.0)
            else:
                values[card] = got + (CONTRACT_BONUS if taken + got >= level else 0.0)
        if len(values) < len(groups):
            break  # out of time mid-sample: this sample would bias the comparison
        for card, value in values.items():
            totals[card] += value
        done += 1
    if done == 0:
        return Decision(None, 0, {})
    # The declarer of a game wants the most, of a misère the fewest; the defence the opposite.
    sign = 1.0 if for_declarer != misere else -1.0
    best = max(groups, key=lambda c: (sign * totals[c], -(c & 7)))
    names = {c: legal_cards[cards.index(c)] for c in groups}
    return Decision(names[best], done, {names[c]: totals[c] / done for c in groups})


__all__ = ["Decision", "Memory", "choose_card", "declarer_tricks_after", "sample_hands"]
