"""Closing and settling a pulka (RULES.md R-P4, R-P5, R-P8, R-P9; K96 4.2.3, 4.2.12, 4.2.14).

Closing turns the sheet into one number per player, in whists:

1. Pools. Under ``closing = help`` (Sochi, Rostov) points written into a pool beyond the target
   help the opponent with the largest pool still below it (tie: the one on the helper's left),
   and the helper writes 10 whists on him per point; with nobody left to help, the points come
   off the helper's own hill (K96 4.2.3, 4.1.1). Help is replayed from the sheet's pool entries
   in the order they were written, so the sheet itself keeps what each player actually scored.
   Under ``closing = double`` (club, Leningrad) and ``once`` (classic) there is no help.
2. Hills are corrected for the pools (R-P4, R-P9): ``double`` takes every point over the target
   off the hill twice and puts every point short on it twice (K96 4.2.3.3); ``once`` does the
   same once (003 30-31: a point written off the stake is worth one remiz, K-12); ``help`` puts
   every point still short (a pulka ended early) on the hill once.
3. ``result_i = 10·(mean(hill) − hill_i) + Σ_j (whists_i→j − whists_j→i)`` (K96 4.2.14, average
   hill). Results are exact fractions that sum to zero.
4. Whole whists by the largest remainder (ties to the lower seat), then money = whole whists ×
   stake in minor units, again by the largest remainder, so both sum to zero (R-P4, R-P5).

    >>> from app.rules.scoring.sheet import Sheet
    >>> s = Sheet.empty(3)
    >>> s = Sheet((Fraction(54), Fraction(48), Fraction(48)), s.hill, s.whists)
    >>> settle(s, [], Conventions(), target=50, stake=Decimal("0.50"), ended="target").rounded
    (80, -40, -40)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal, TypeAlias

from app.rules.core.conventions import Conventions
from app.rules.scoring.sheet import WHISTS_PER_POINT, Entry, Sheet

EndReason: TypeAlias = Literal["target", "agreement", "session_end"]
END_REASONS: tuple[EndReason, ...] = ("target", "agreement", "session_end")
POOL_FACTOR: Mapping[str, int] = {"double": 2, "once": 1}
"""Hill points per pool point over or short of the target, for the closings without help."""
JOIN_RULE = "R-T4"
"""Rule of the entries that seat a joining fourth player; his seat exists only from then on."""


@dataclasses.dataclass(frozen=True, slots=True)
class HelpResult:
    """Pools after help, the help whists (``whists[i][j]``: i helped j) and hill corrections."""

    pools: tuple[Fraction, ...]
    whists: tuple[tuple[Fraction, ...], ...]
    hill: tuple[Fraction, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Settlement:
    """The settled pulka: exact results, whole whists and money, each summing to zero."""

    ended: EndReason
    pools: tuple[Fraction, ...]
    """Pools after help (equal to the sheet's pools under ``double``)."""
    hills: tuple[Fraction, ...]
    """Hills corrected for the pools (R-P4)."""
    help_whists: tuple[tuple[Fraction, ...], ...]
    exact: tuple[Fraction, ...]
    rounded: tuple[int, ...]
    money: tuple[Decimal, ...]

    @property
    def shown(self) -> tuple[str, ...]:
        """Exact results rounded to 0.01 for display (half away from zero)."""
        return tuple(round_hundredths(x) for x in self.exact)

    def to_json(self) -> dict[str, Any]:
        """The ``pulka-score/1`` ``settlement`` object."""
        return {
            "whists": list(self.shown),
            "rounded": list(self.rounded),
            "money": [f"{m:.2f}" for m in self.money],
        }


def effective_pools(
    entries: Sequence[Entry],
    players: int,
    target: int,
    conventions: Conventions,
    spared: Mapping[int, int] | None = None,
) -> HelpResult:
    """Replay the pool entries with help (``closing = help``) or plainly (``double``).

    ``spared`` maps a deal to a seat that may not be helped ("closed") by its entries: 004's
    four-player dealer (A-22); with nobody else to help the surplus comes off the own hill.
    """
    zero = Fraction(0)
    pools = [zero] * players
    hill = [zero] * players
    whists = [[zero] * players for _ in range(players)]
    joining = {e.seat for e in entries if e.rule == JOIN_RULE}
    present = [s not in joining for s in range(players)]
    for e in entries:
        if e.column != "pool":
            continue
        s = e.seat
        if e.rule == JOIN_RULE:
            present[s] = True
        if conventions.closing != "help" or e.amount <= 0 or pools[s] + e.amount <= target:
            pools[s] += e.amount
            continue
        take = max(Fraction(target) - pools[s], zero)
        pools[s] += take
        over = e.amount - take
        while over > 0:
            below = [
                (s + k) % players
                for k in range(1, players)
                if present[(s + k) % players]
                and pools[(s + k) % players] < target
                and (spared is None or spared.get(e.deal) != (s + k) % players)
            ]
            if not below:
                hill[s] -= over  # nobody to help: off the own hill (K96 4.1.1)
                break
            best = max(pools[j] for j in below)
            helped = next(j for j in below if pools[j] == best)  # tie: the one on the left
            give = min(over, Fraction(target) - pools[helped])
            pools[helped] += give
            whists[s][helped] += give * WHISTS_PER_POINT
            over -= give
    return HelpResult(tuple(pools), tuple(tuple(r) for r in whists), tuple(hill))


def settle(
    sheet: Sheet,
    entries: Sequence[Entry],
    conventions: Conventions,
    *,
    target: int,
    stake: Decimal,
    ended: EndReason,
    spared: Mapping[int, int] | None = None,
) -> Settlement:
    """Settle ``sheet`` (whose writes are ``entries``) under R-P4, R-P5 and R-P9."""
    n = sheet.players
    helped = effective_pools(entries, n, target, conventions, spared)
    if conventions.closing in POOL_FACTOR:
        pools = sheet.pool
        factor = POOL_FACTOR[conventions.closing]
        help_whists = tuple(tuple(Fraction(0) for _ in range(n)) for _ in range(n))
        hills = tuple(sheet.hill[i] - factor * (pools[i] - target) for i in range(n))
    else:
        pools = helped.pools
        help_whists = helped.whists
        hills = tuple(
            sheet.hill[i] + helped.hill[i] + max(Fraction(0), target - pools[i]) for i in range(n)
        )
    mean = sum(hills, Fraction(0)) / n
    exact = []
    for i in range(n):
        result = WHISTS_PER_POINT * (mean - hills[i])
        for j in range(n):
            result += sheet.whists[i][j] + help_whists[i][j]
            result -= sheet.whists[j][i] + help_whists[j][i]
        exact.append(result)
    rounded = largest_remainder(exact)
    return Settlement(
        ended=ended,
        pools=tuple(pools),
        hills=hills,
        help_whists=help_whists,
        exact=tuple(exact),
        rounded=tuple(rounded),
        money=tuple(money(rounded, stake)),
    )


def largest_remainder(values: Sequence[Fraction]) -> list[int]:
    """Whole numbers closest to ``values`` (which sum to a whole number) keeping their sum.

    Every value is rounded down, then the missing units go to the largest fractional parts; ties
    go to the lower seat (R-P4).
    """
    floors = [math.floor(v) for v in values]
    missing = int(sum(values, Fraction(0))) - sum(floors)
    order = sorted(range(len(values)), key=lambda i: (-(values[i] - floors[i]), i))
    for i in order[:missing]:
        floors[i] += 1
    return floors


def money(rounded: Sequence[int], stake: Decimal) -> list[Decimal]:
    """Whole whists × stake in minor units (kopecks), summing to zero (R-P5)."""
    cents = [Fraction(stake) * r * 100 for r in rounded]
    return [Decimal(c) / 100 for c in largest_remainder(cents)]


def round_hundredths(value: Fraction) -> str:
    """``value`` rounded to 0.01, half away from zero, as a string such as ``"-20.67"``."""
    hundredths = math.floor(abs(value) * 100 + Fraction(1, 2))
    if value < 0 and hundredths:
        hundredths = -hundredths
    return f"{Decimal(hundredths) / 100:.2f}"
