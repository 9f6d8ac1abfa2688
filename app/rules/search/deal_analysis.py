"""Deal analysis after the deal (issue 15): what was makeable and where tricks were lost.

Everything here is double-dummy (all cards known, the declarer against two defenders who
cooperate) and uses the exact solver behind :func:`app.rules.search.claims.best_tricks`. The input
is a
finished deal reduced to plain data (:class:`DealFacts`); the output is a JSON-ready dict.
It is pure and CPU-heavy (a few seconds for a whole deal): the server runs
:func:`analyse_deal` in its worker pool and caches the result (``app.services.analysis_cache``).

What is computed (docs/analysis.md says why each is defined the way it is):

* ``makeable``: for each playing seat as declarer and each strain (♠ ♣ ♦ ♥, no-trump), the most
  tricks he takes from the hands *as dealt* (no talon), forehand leading (R-W7);
* ``misere``: for each playing seat as a misère declarer (hands as dealt), the fewest tricks the
  defenders can force on him, and ``caught`` when that is at least one (R-W10);
* ``contract``: the played game or misère from the first lead (the declarer's hand after his
  discard): the double-dummy result against the tricks really taken;
* ``best_discard``: for a game, over all 66 discards of the declarer's twelve cards, the one that
  maximises his double-dummy tricks in the declared strain (the first found of the best, with
  the count of discards that reach the same number);
* ``pass_out``: for a pass-out, each player's tricks in the talon tricks (R-R2, R-R3) plus the
  fewest he can hold himself to from the third trick on when the other two play to give him as
  many as possible;
* ``plays``: every card played marked with the tricks it cost its side against best play
  (``loss``) and the better cards, from the value before and after the card.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from app.rules.core.cards import CARD_TEXTS, CardMask, strain_suit
from app.rules.core.play import legal_cards, trick_winner
from app.rules.search.claims import best_tricks
from app.rules.search.solver import reaches

STRAINS = ("S", "C", "D", "H", "NT")
PLAY_BUDGET_SECONDS = 20.0
"""The per-card marks stop (``plays_complete`` false) after this long: a cap on one job."""

Trick = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class DealFacts:
    """A finished deal as plain data: seats and cards (card numbers ``8 * suit + rank``).

    ``active`` are the three playing seats in playing order (forehand first); ``tricks`` the
    tricks played, each as ``(seat, card)`` pairs in order (a pass-out's talon card under a
    seat that is not in ``active``: it is left out); ``discard`` is empty when the declarer did
    not take the talon (or nobody declared).
    """

    active: tuple[int, int, int]
    dealt: Mapping[int, CardMask]
    talon: tuple[int, ...]
    kind: str
    declarer: int | None = None
    contract: str | None = None
    discard: CardMask = 0
    tricks: Sequence[Sequence[tuple[int, int]]] = field(default_factory=tuple)
    winners: Sequence[int] = field(default_factory=tuple)
    """The seat that won each trick in ``tricks`` (as recorded)."""


def _strain_of(contract: str | None) -> str | None:
    """The strain of a game contract text such as ``"6S"`` or ``"10NT"``."""
    if not contract:
        return None
    strain = contract.lstrip("0123456789")
    return strain if strain in STRAINS else None


def _hands(facts: DealFacts, with_discard: bool) -> tuple[int, int, int]:
    """The three hands by position: as dealt, or with the declarer's talon taken and discard
    made."""
    out = [facts.dealt[s] for s in facts.active]
    if with_discard and facts.declarer is not None and facts.discard:
        talon = sum(1 << c for c in facts.talon)
        i = facts.active.index(facts.declarer)
        out[i] = (out[i] | talon) & ~facts.discard
    return out[0], out[1], out[2]


def makeable_table(hands: tuple[int, int, int], leader: int = 0) -> dict[int, dict[str, int]]:
    """``table[position][strain]``: the most tricks ``position`` takes as declarer."""
    return {
        pos: {s: best_tricks(hands, leader, (), strain_suit(s), pos) for s in STRAINS}
        for pos in range(3)
    }


def misere_table(hands: tuple[int, int, int], leader: int = 0) -> dict[int, int]:
    """``table[position]``: the fewest tricks the defenders can force on ``position`` on
    misère (he is caught when this is at least one, R-W10)."""
    return {pos: best_tricks(hands, leader, (), None, pos, misere=True) for pos in range(3)}


def best_discard(
    hands: tuple[int, int, int], declarer: int, twelve: CardMask, trump: int | None, leader: int = 0
) -> tuple[CardMask, int, int]:
    """Over all discards of two of ``twelve`` (the declarer's cards with the talon): the first
    discard (lowest cards first) that maximises his tricks, that number, and how many discards
    reach it.

    Once a best is known, a discard needs its exact value only when it beats that best: one
    null-window search (can he take one trick more?) rules most discards out, and a second
    (can he take as many?) counts the ties. The same answer as solving every discard exactly,
    in about half the time (tests/rules/test_analysis.py holds them equal)."""
    cards = [c for c in range(32) if twelve >> c & 1]
    best_mask, best, ties = 0, -1, 0
    for a, b in combinations(cards, 2):
        trial = list(hands)
        trial[declarer] = twelve & ~(1 << a | 1 << b)
        position = (trial[0], trial[1], trial[2])
        if best >= 0 and not reaches(position, leader, (), trump, declarer, False, best + 1):
            if reaches(position, leader, (), trump, declarer, False, best):
                ties += 1
            continue
        tricks = best_tricks(position, leader, (), trump, declarer)
        if tricks > best:
            best_mask, best, ties = 1 << a | 1 << b, tricks, 1
        elif tricks == best:
            ties += 1
    return best_mask, best, ties


@dataclass
class _Walk:
    """Replaying the tricks position by position for the per-card values."""

    hands: list[int]
    leader: int
    trick: Trick
    taken: list[int]


def _value(walk: _Walk, trump: int | None, subject: int, misere: bool) -> int:
    """``subject``'s total tricks (taken so far plus double-dummy from here) when he maximises
    them (game) or minimises them (misère, pass-out) against the other two."""
    rest = best_tricks(
        (walk.hands[0], walk.hands[1], walk.hands[2]),
        walk.leader,
        walk.trick,
        trump,
        subject,
        misere,
    )
    return walk.taken[subject] + rest


def _after(walk: _Walk, position: int, card: int, trump: int | None) -> _Walk:
    """The position after ``position`` plays ``card`` (the trick settled when it is full)."""
    hands = list(walk.hands)
    hands[position] ^= 1 << card
    trick = (*walk.trick, (position, card))
    if len(trick) < 3:
        return _Walk(hands, walk.leader, trick, list(walk.taken))
    winner = trick_winner(trick, trick[0][1] >> 3, trump)
    taken = list(walk.taken)
    taken[winner] += 1
    return _Walk(hands, winner, (), taken)


def _mark_plays(
    facts: DealFacts,
    start: tuple[int, int, int],
    tricks: Sequence[Trick],
    first_trick: int,
    trump: int | None,
    deadline: float,
    taken: list[int],
    misere: bool,
) -> tuple[list[dict[str, Any]], bool]:
    """The per-card marks over ``tricks`` (positions, not seats), from hands ``start``;
    ``misere``: the subject avoids tricks (misère, pass-out)."""
    passed_out = facts.kind == "pass_out"
    declarer = (
        facts.active.index(facts.declarer)
        if facts.declarer is not None and not passed_out
        else None
    )
    walk = _Walk(list(start), tricks[0][0][0] if tricks and tricks[0] else 0, (), list(taken))
    marks: list[dict[str, Any]] = []
    known: tuple[int, int] | None = None  # (subject, value) of the current position
    for number, trick in enumerate(tricks, start=first_trick):
        for position, card in trick:
            if time.monotonic() > deadline:
                return marks, False
            subject = declarer if declarer is not None else position
            # the side that plays: the declarer wants his value up (game) or down (misère);
            # defenders the opposite; a pass-out player wants his own tricks down
            wants_more = (position == subject) != misere
            if known is not None and known[0] == subject:
                before = known[1]
            else:
                before = _value(walk, trump, subject, misere)
            nxt = _after(walk, position, card, trump)
            after = _value(nxt, trump, subject, misere)
            known = (subject, after)
            loss = (before - after) if wants_more else (after - before)
            mark: dict[str, Any] = {
                "trick": number,
                "seat": facts.active[position],
                "card": CARD_TEXTS[card],
                "loss": max(loss, 0),
                "better": [],
            }
            if loss > 0:
                led = walk.trick[0][1] >> 3 if walk.trick else None
                legal = legal_cards(walk.hands[position], led, trump)
                for alt in range(32):
                    if legal >> alt & 1 and alt != card:
                        value = _value(_after(walk, position, alt, trump), trump, subject, misere)
                        if value == before:
                            mark["better"].append(CARD_TEXTS[alt])
            marks.append(mark)
            walk = nxt
    return marks, True


def _positions(facts: DealFacts, trick: Sequence[tuple[int, int]]) -> Trick:
    """A trick's players' cards by position (a talon card is left out)."""
    return tuple((facts.active.index(s), c) for s, c in trick if s in facts.active)


def analyse_deal(facts: DealFacts, play_budget: float = PLAY_BUDGET_SECONDS) -> dict[str, Any]:
    """The whole analysis of a finished deal as a JSON-ready dict (see the module's doc)."""
    seats = facts.active
    dealt = _hands(facts, with_discard=False)
    makeable = makeable_table(dealt)
    misere = misere_table(dealt)
    out: dict[str, Any] = {
        "version": 1,
        "seats": list(seats),
        "makeable": {str(seats[p]): row for p, row in makeable.items()},
        "misere": {str(seats[p]): {"tricks": n, "caught": n >= 1} for p, n in misere.items()},
        "contract": None,
        "best_discard": None,
        "pass_out": None,
        "plays": [],
        "plays_complete": True,
    }
    tricks = [_positions(facts, t) for t in facts.tricks]
    deadline = time.monotonic() + play_budget
    strain = _strain_of(facts.contract)
    if facts.kind in ("game", "misere", "conceded") and facts.declarer is not None:
        # a conceded game (R-C4) is analysed as the game it would have been
        is_misere = facts.kind == "misere" or (facts.kind == "conceded" and strain is None)
        trump = strain_suit(strain) if not is_misere and strain else None
        start = _hands(facts, with_discard=True)
        pos = seats.index(facts.declarer)
        leader = tricks[0][0][0] if tricks and tricks[0] else 0
        if not is_misere and strain is None:
            return out
        result = best_tricks(start, leader, (), trump, pos, misere=is_misere)
        won = sum(1 for w in facts.winners if w == facts.declarer) if tricks else None
        out["contract"] = {
            "declarer": facts.declarer,
            "contract": facts.contract,
            "misere": is_misere,
            "tricks": result,
            "taken": won,
            "played_tricks": len(tricks),
        }
        if not is_misere and facts.discard:
            twelve = facts.dealt[facts.declarer] | sum(1 << c for c in facts.talon)
            mask, best, ties = best_discard(start, pos, twelve, trump, leader)
            out["best_discard"] = {
                "cards": [CARD_TEXTS[c] for c in range(32) if mask >> c & 1],
                "tricks": best,
                "ties": ties,
                "actual": [CARD_TEXTS[c] for c in range(32) if facts.discard >> c & 1],
                "actual_tricks": result,
            }
        if tricks:
            out["plays"], out["plays_complete"] = _mark_plays(
                facts, start, tricks, 1, trump, deadline, [0, 0, 0], is_misere
            )
    elif facts.kind == "pass_out":
        talon_tricks = min(2, len(facts.tricks))
        hands = list(dealt)
        taken = [0, 0, 0]
        for played, winner_seat in zip(tricks[:talon_tricks], facts.winners, strict=False):
            for p, c in played:
                hands[p] ^= 1 << c
            if winner_seat in seats:
                taken[seats.index(winner_seat)] += 1
        start3 = (hands[0], hands[1], hands[2])
        rest = tricks[talon_tricks:]
        leader3 = rest[0][0][0] if rest and rest[0] else 0
        if len(facts.tricks) >= 2 and hands[0]:
            held = [
                taken[p] + best_tricks(start3, leader3, (), None, p, misere=True) for p in range(3)
            ]
            actual = [sum(1 for w in facts.winners if w == s) for s in seats]
            out["pass_out"] = {
                str(seats[p]): {"held_to": held[p], "taken": actual[p], "talon_tricks": taken[p]}
                for p in range(3)
            }
            if rest:
                out["plays"], out["plays_complete"] = _mark_plays(
                    facts, start3, rest, talon_tricks + 1, None, deadline, taken, True
                )
    return out


__all__ = ["DealFacts", "analyse_deal", "best_discard", "makeable_table", "misere_table"]
