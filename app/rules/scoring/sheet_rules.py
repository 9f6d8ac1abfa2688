"""The hooks a rule set may give the score sheet: what one deal writes (RULES.md §7).

:func:`app.rules.scoring.sheet.score_deal` asks :func:`sheet_rules` of the deal's preset before its
shared scoring: a rule set with a sheet of its own (K-9..K-11: the remiz sheet of classic
preferans) returns its writes; ``None`` means the shared §7 scoring. The writes are plain tuples
so that this module needs nothing of the sheet itself.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal, TypeAlias

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome
from app.rules.core.ruleset import rule_set_of

Write: TypeAlias = tuple[int, Literal["pool", "hill", "whists"], Fraction | int, str, int | None]
"""One write: seat, column, amount, rule ID, and the seat written on (whists only)."""


class SheetRules:
    """What a deal of this rule set writes on the sheet."""

    def deal_writes(
        self, outcome: DealOutcome, conventions: Conventions, players: int, pass_out_streak: int
    ) -> list[Write] | None:
        """Every write of the deal before penalties, or ``None`` for the shared scoring."""
        return None

    def returned_talon(self, outcome: DealOutcome, conventions: Conventions, cost: int) -> Write:
        """R-C6: a returned talon; the dealer writes the bid game's cost into his hill."""
        return (outcome.dealer, "hill", cost, "R-C6", None)

    def consoles_failed_ten(self, conventions: Conventions) -> bool:
        """R-W9: a checked ten that failed is "remiz as usual": each opponent also writes the
        consolation whists (R-P1)."""
        return True


_SHARED = SheetRules()


def sheet_rules(conventions: Conventions) -> SheetRules:
    """The sheet hooks of ``conventions``' rule set (the shared ones if it has none)."""
    rule_set = rule_set_of(conventions.preset)
    return rule_set if isinstance(rule_set, SheetRules) else _SHARED
