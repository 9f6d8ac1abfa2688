"""The bombs that belong to a player (RULES.md R-A1..R-A4; seed 004, K96 3.3.19, notes 29-31).

Pure functions over one pulka's bombs, a tuple per seat of the factors he holds in the order he
earned them (``bombs[seat][0]`` is the bomb his next game is played on):

* R-A1: the opening writes ``opening_bombs`` bombs to every player, ×2, ×4, ×8 ("Сразу
  записывается три бомбы"); a pass-out after his dark pass writes him the next bomb of his own
  series (his n-th dark pass-out in a row: ×2ⁿ, up to ×8), the four-player dealer too; a seat
  that passed openly gets none ("Не получает бомбу только игрок, сказавший пас в светлую").
* R-A2: his current bomb multiplies everything his game as declarer writes; a made game uses
  it up, a lost one keeps it (K96 note 30); a made «преферанс» clears them all (004).
* R-A3: the factors multiply (a dark game × its bomb); a pass-out is written at its own price.
* R-A4: fixed penalties are written as they stand, never multiplied.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from fractions import Fraction

from app.rules.core.outcome import DealOutcome, mark_seats
from app.rules.core.seats import pass_out_seats
from app.rules.scoring.sheet import Entry
from app.rules.variants.arabic.arabic_marks import OPEN_PASSES, PREFERANS

Bombs = tuple[tuple[int, ...], ...]
"""Per seat, the factors of the bombs he holds, oldest first."""

BOMB_BASE = 2
"""R-A1: the n-th bomb of a series multiplies by 2ⁿ (×2, ×4, ×8)."""
SERIES_LENGTH = 3
"""004 names three bombs in a series (a fourth dark pass-out in a row writes ×8 again)."""
UNMULTIPLIED_RULES = frozenset({"A-7", "A-21"})
"""R-A4: the three-pass-out fine (a fixed 10 or a mean of written hills) and the spit, written
"без учета бомб"."""
CATALOGUE_PREFIX = "R-X"
"""R-A4: the rule IDs of the club's penalty catalogue (RULES.md §10), fixed fines."""


def bomb(n: int) -> int:
    """The factor of the ``n``-th bomb of a series (1-based, capped at the third)."""
    return int(BOMB_BASE ** min(n, SERIES_LENGTH))


def opening(count: int, players: int) -> Bombs:
    """R-A1: every player's bombs at the start: ``count`` of them, ×2, ×4, ×8."""
    return (tuple(bomb(n) for n in range(1, count + 1)),) * players


def current(bombs: Bombs, seat: int) -> int:
    """The factor the next game of ``seat`` is played on (1: he holds no bomb)."""
    held = bombs[seat] if seat < len(bombs) else ()
    return held[0] if held else 1


def declarer_factor(bombs: Bombs, outcome: DealOutcome) -> int:
    """R-A2: the bomb the deal's declarer plays on (pass-outs have none)."""
    if outcome.declarer is None or outcome.kind == "pass_out":
        return 1
    return current(bombs, outcome.declarer)


def made(outcome: DealOutcome) -> bool:
    """Did the declarer make his game (a misère clean, a game unplayed or with its tricks)?"""
    if outcome.declarer is None or outcome.kind == "conceded":
        return False
    taken = None if outcome.tricks is None else outcome.tricks.get(outcome.declarer, 0)
    if outcome.kind == "misere":
        return taken == 0
    assert outcome.contract is not None
    return taken is None or taken >= outcome.contract.level


def after_game(bombs: Bombs, outcome: DealOutcome) -> Bombs:
    """R-A2: a made game uses the declarer's current bomb up, a made «преферанс» all of them;
    a lost game keeps it."""
    seat = outcome.declarer
    if seat is None or not made(outcome) or not bombs[seat]:
        return bombs
    left = () if PREFERANS in outcome.marks else bombs[seat][1:]
    return (*bombs[:seat], left, *bombs[seat + 1 :])


def earners(outcome: DealOutcome, players: int) -> tuple[int, ...]:
    """R-A1: who earns a bomb by a dark pass-out: every seat of it but those who passed openly
    (the four-player dealer included)."""
    open_passes = set(mark_seats(outcome.marks, OPEN_PASSES))
    return tuple(s for s in pass_out_seats(players, outcome.dealer) if s not in open_passes)


def after_dark_pass_out(
    bombs: Bombs, series: tuple[int, ...], outcome: DealOutcome, players: int
) -> tuple[Bombs, tuple[int, ...]]:
    """R-A1: each earner gets the next bomb of his own series (his dark pass-outs in a row);
    a seat that passed openly gets none and his series starts again."""
    won = set(earners(outcome, players))
    new_series = tuple(series[s] + 1 if s in won else 0 for s in range(players))
    new_bombs = tuple(
        (*bombs[s], bomb(new_series[s])) if s in won else bombs[s] for s in range(players)
    )
    return new_bombs, new_series


def is_fixed(entry: Entry) -> bool:
    """R-A4: an entry written as it stands: a fine of the club's catalogue (R-X*, RULES.md
    §10), the A-7 fine or the spit."""
    return entry.rule.startswith(CATALOGUE_PREFIX) or entry.rule in UNMULTIPLIED_RULES


def multiplied(entries: Iterable[Entry], factor: Fraction) -> list[Entry]:
    """Every entry of the deal multiplied by ``factor``, the fixed ones (R-A4) as they are."""
    if factor == 1:
        return list(entries)
    return [e if is_fixed(e) else dataclasses.replace(e, amount=e.amount * factor) for e in entries]
