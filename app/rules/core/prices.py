"""The game's fixed numbers: what a game costs and what its defenders owe (RULES.md §8, R-W1).

The one table of prices and whist requirements of the package. The score sheet
(:mod:`app.rules.scoring.sheet`) and the pulka validator (:mod:`app.rules.scoring.pulka`) read it
from here;
nothing else keeps a copy.
"""

from __future__ import annotations

from collections.abc import Mapping

PRICES: Mapping[int, int] = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
"""Price of a game by level (K96 2.2.2); misère costs :data:`MISERE_PRICE`."""
MISERE_PRICE = 10
REQUIREMENT: Mapping[int, int] = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
"""Tricks the defenders owe together (R-W1); a checked ten owes none (R-W9)."""
HALF_WHIST_TRICKS: Mapping[int, int] = {6: 2, 7: 1}
"""Tricks a half-whister writes for (R-W4): half the requirement."""


def price(level: int) -> int:
    """Price of a trick game of ``level`` (K96 2.2.2)."""
    return PRICES[level]
