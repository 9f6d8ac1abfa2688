"""A toy rule set written from ``tests/`` alone (issue 25: the design holds without touching app/).

``toy`` is the club's game with two changes, each a hook of the rule-set interface:

* **its pass-out exit** (``min_level``): after any run of pass-outs the next deal opens at seven,
  never at six, however long the run (the club's exits are 6, 7, 8);
* **its own entry on the sheet** (``after_deal``, with state carried from deal to deal): after
  every deal its dealer writes into his hill the number of deals he has dealt in this pulka —
  a per-player count kept in the pulka's :class:`~app.rules.scoring.pulka_rules.VariantState`
  (``seats``), renumbered when a fourth player joins — under rule ``TOY-1``.

:func:`register_toy` adds it to the registry (once per process); :func:`withdraw_toy` removes it.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import ClassVar

from app.rules import Conventions, RuleSet, register, rule_sets, unregister
from app.rules.core.conventions import CONVENTION_NAMES
from app.rules.core.outcome import DealOutcome
from app.rules.scoring.pulka_rules import NextDeal, PulkaRules, PulkaTurn, VariantState
from app.rules.scoring.sheet import Entry

TOY = dataclasses.replace(Conventions(), preset="toy")
TOY_RULE = "TOY-1"
TOY_EXIT = 7


class ToyRules(RuleSet, PulkaRules):
    """The club's deal and sheet; a pulka with its own exit and its own entry."""

    name: ClassVar[str] = "toy"
    presets: ClassVar[tuple[Conventions, ...]] = (TOY,)
    titles: ClassVar = {"toy": {"ru": "игрушечные правила", "en": "Toy rules"}}
    overridable: ClassVar[frozenset[str]] = CONVENTION_NAMES - {"opening_bombs", "dark_calls"}

    def start(self, conventions: Conventions, players: int) -> VariantState:
        return VariantState(seats=(0,) * players)

    def min_level(self, conventions: Conventions, streak: int, state: VariantState) -> int:
        return TOY_EXIT if streak else 6

    def after_deal(self, turn: PulkaTurn, outcome: DealOutcome, entries: list[Entry]) -> NextDeal:
        shared = super().after_deal(turn, outcome, entries)
        dealt = list(turn.state.seats)
        dealt[outcome.dealer] += 1
        fee = Entry(turn.deal, outcome.dealer, "hill", Fraction(dealt[outcome.dealer]), TOY_RULE)
        state = dataclasses.replace(turn.state, seats=tuple(dealt))
        return dataclasses.replace(shared, entries=[*shared.entries, fee], state=state)


def register_toy() -> None:
    """Register the toy rule set unless this process already has it."""
    if not any(r.name == ToyRules.name for r in rule_sets()):
        register(ToyRules())


def withdraw_toy() -> None:
    """Remove the toy rule set and its preset again."""
    unregister(ToyRules.name)
