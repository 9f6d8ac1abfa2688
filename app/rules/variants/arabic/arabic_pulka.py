"""Seed 004 (Arabic preferans) at the pulka level: bombs, forced openings and who deals next.

The pure rules of docs/rules-arabic.md that are not about one deal's cards but about the run
of deals, behind the Arabic rule set's pulka hooks
(:mod:`app.rules.variants.arabic.arabic_rules`):

* A-3: ``opening_bombs`` rounds of forced pass-outs (one deal per seat, no bidding) at ×2, ×4,
  ×8, the pass-out's own price (the bombs they stand for are every player's, arabic_bombs).
* R-A3: a pass-out after a dark pass is written at 2, 4, 8 in place of the plain 1, 2, 3.
* A-5, A-6: with ``deal_stays`` an all-pass keeps the deal with the dealer (the next deal
  opens at 7, then 8, the exits), and so does a caught misère.
* A-7: the third pass-out in a row passes the deal on and costs the dealer: 10 into his hill
  at three players; at four the mean of the hill the other three wrote in those pass-outs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from fractions import Fraction

from app.rules.core.auction import PASS_ONLY_LEVEL
from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome
from app.rules.scoring.sheet import Entry, pass_out_rate
from app.rules.variants.arabic.arabic_marks import DARK

PASS_OUTS_BEFORE_PENALTY = 3
"""A-7: the dealer who deals this many pass-outs in a row is penalised and the deal passes."""
THREE_PLAYER_PENALTY = 10
"""A-7: hill points the three-player dealer writes for three pass-outs in a row."""
BOMB_BASE = 2
"""A-2: the n-th bomb multiplies by 2**n (×2, ×4, ×8)."""
DARK_GAME_FACTOR = 2
"""A-11: "пишется с умножением на 2"."""
DARK_PASS_BOMBS = 3
"""A-10: dark-pass bombs go up to the third (×8)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Next:
    """Who deals the next deal and what it is, after one deal was recorded."""

    dealer: int
    streak: int
    """Consecutive pass-outs (the forced opening ones not counted) before the next deal."""
    opening_left: int
    """Forced opening pass-outs still to deal (A-3)."""
    penalised: bool = False
    """A-7: the deal just recorded was the dealer's third pass-out in a row."""


def opening_deals(c: Conventions, players: int) -> int:
    """A-3: the forced pass-outs of the opening, one round (a deal per seat) per bomb."""
    return c.opening_bombs * players


def bomb_factor(c: Conventions, players: int, opening_left: int) -> int:
    """A-2: the multiplier of the next deal: 2, 4, 8 in the opening rounds, else 1."""
    if opening_left <= 0:
        return 1
    rounds_left = -(-opening_left // players)
    return int(BOMB_BASE ** (c.opening_bombs - rounds_left + 1))


def min_level(c: Conventions, streak: int, opening_left: int) -> int:
    """The next deal's lowest bid: pass only in the opening (A-3), else the exits (A-5)."""
    if opening_left > 0:
        return PASS_ONLY_LEVEL
    return c.minimum_level(streak)


def dark_factor(outcome: DealOutcome) -> int:
    """A-11: a dark game at its level is written × 2 (R-A3: on top of its bomb)."""
    if DARK in outcome.marks and outcome.kind != "pass_out":
        return DARK_GAME_FACTOR
    return 1


def pass_out_scale(c: Conventions, outcome: DealOutcome, streak: int, dark_run: int) -> Fraction:
    """R-A3: what a pass-out scored at the plain rate (×1, ×2, ×3) is multiplied by so that it
    is written at its own price: after a dark pass 2, 4, 8 for the first, second and third in
    a row (and later), replacing the plain rate, never multiplied by it."""
    if outcome.kind != "pass_out" or DARK not in outcome.marks:
        return Fraction(1)
    dark_rate = BOMB_BASE ** min(max(dark_run, 1), DARK_PASS_BOMBS)
    return Fraction(dark_rate, pass_out_rate(c, streak))


def advance(
    c: Conventions, players: int, outcome: DealOutcome, streak: int, opening_left: int
) -> Next:
    """Who deals next (R-D1 unless ``deal_stays``: A-5, A-6, A-7) after ``outcome``."""
    passed_on = (outcome.dealer + 1) % players
    if opening_left > 0:
        return Next(passed_on, 0, opening_left - 1)
    if outcome.kind != "pass_out":
        caught = (
            outcome.kind == "misere"
            and outcome.tricks is not None
            and outcome.declarer is not None
            and outcome.tricks.get(outcome.declarer, 0) > 0
        )
        stays = c.deal_stays and caught
        return Next(outcome.dealer if stays else passed_on, 0, 0)
    if not c.deal_stays:
        return Next(passed_on, streak + 1, 0)
    if streak + 1 >= PASS_OUTS_BEFORE_PENALTY:
        return Next(passed_on, 0, 0, penalised=True)
    return Next(outcome.dealer, streak + 1, 0)


def pass_out_penalty(
    entries: Sequence[Entry], players: int, dealer: int, first_deal: int, deal: int
) -> Entry | None:
    """A-7: the dealer's hill entry for dealing three pass-outs in a row.

    ``entries`` must hold the entries of deals ``first_deal..deal`` (the pass-outs). At four
    players it is the mean of what the other three wrote into their hills in them, exact.
    """
    if players == 3:
        amount = Fraction(THREE_PLAYER_PENALTY)
    else:
        written = sum(
            (
                e.amount
                for e in entries
                if e.column == "hill" and e.seat != dealer and first_deal <= e.deal <= deal
            ),
            Fraction(0),
        )
        amount = written / (players - 1)
    return Entry(deal, dealer, "hill", amount, "A-7") if amount else None
