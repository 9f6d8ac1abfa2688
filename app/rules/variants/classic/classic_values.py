"""Classic preferans (seed 003, docs/rules-classic.md): its fixed numbers and the one test of it.

The ``classic`` preset plays in the same engine as the club's game; its rule set
(:mod:`app.rules.variants.classic.classic_rules`) hooks in at the few places the old rules
differ (the auction, the contracts a buyer may name, conceding, the misère invitation, scoring,
the record). Everything those hooks need is a value here::

    >>> classic_price(Contract(6, "H"))
    4
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from app.rules.core.outcome import Contract

CLASSIC_CONTRACTS: Final = (
    Contract(6, "S"),
    Contract(6, "C"),
    Contract(6, "D"),
    Contract(6, "H"),
)
"""K-3: the only games, six tricks in a suit, junior to senior: ♠ < ♣ < ♦ < ♥ (seed 003, 22-23)."""

PREFERANS: Final = Contract(6, "H")
"""K-4: hearts, the senior suit, "преферанс": nothing overbids it (seed 003, 21, Примечание)."""

CLASSIC_PRICES: Final[Mapping[str, int]] = {"S": 1, "C": 2, "D": 3, "H": 4}
"""K-9: what a game is worth by its suit, written off when made and put as a remiz per trick
short (seed 003, 29-32; the amounts are the club's decision, docs/rules-notes.md)."""

WHIST_TRICKS: Final = 2
"""K-7: the tricks each whister answers for (seed 003, 21: "две верные взятки")."""


def classic_price(contract: Contract) -> int:
    """K-9: the value of a classic game (and of one remiz on it) by its suit."""
    return CLASSIC_PRICES[contract.strain]
