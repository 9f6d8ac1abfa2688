"""The hooks a rule set may give the pulka, and the state it carries from deal to deal.

:class:`app.rules.scoring.pulka.Pulka` is shared by every rule set; where one differs it asks
:func:`pulka_rules` of its preset: the lowest bid of the next deal, the factor every entry of a
deal is multiplied by, what a recorded deal may not be, a deal scored off the shared sheet, and
who deals next. What a rule set must remember between deals (Arabic preferans: the opening bombs
still to play, the run of dark pass-outs; issue 26: each player's own bombs) is its
:class:`VariantState`, a value the pulka keeps and hands back to the hooks — per pulka and, in
:attr:`VariantState.seats`, per player, renumbered when a fourth player joins (R-T4). It is
rebuilt by replaying the pulka's deals, so it is never stored on its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Self

from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome, declared_marks
from app.rules.core.ruleset import rule_set_of
from app.rules.scoring.sheet import Entry, Sheet


@dataclasses.dataclass(frozen=True, slots=True)
class VariantState:
    """What a rule set carries from deal to deal; the shared rules carry nothing.

    A rule set subclasses it (a frozen dataclass of its own fields). ``seats`` holds one value
    per seat for the state that belongs to a player; :meth:`moved` renumbers it.
    """

    seats: tuple[int, ...] = ()
    """Per-seat values (one per seat when a rule set keeps any), renumbered on a join."""

    def moved(self, mapping: Sequence[int], players: int) -> Self:
        """This state after the seats were renumbered ``mapping[old] -> new`` for ``players``
        seats (R-T4: a fourth player joins; a new seat starts at 0)."""
        if not self.seats:
            return self
        out = [0] * players
        for old, value in enumerate(self.seats):
            out[mapping[old]] = value
        return dataclasses.replace(self, seats=tuple(out))


NO_STATE = VariantState()


@dataclasses.dataclass(frozen=True, slots=True)
class NextDeal:
    """A recorded deal's final entries and what the next deal starts from."""

    entries: list[Entry]
    dealer: int
    streak: int
    """Consecutive pass-outs before the next deal (R-R5, R-R6)."""
    state: VariantState


@dataclasses.dataclass(frozen=True, slots=True)
class PulkaTurn:
    """The pulka as a deal is recorded: what :meth:`PulkaRules.after_deal` may read."""

    conventions: Conventions
    players: int
    deal: int
    """The recorded deal's index."""
    streak: int
    """Consecutive pass-outs before it."""
    state: VariantState
    earlier: tuple[Entry, ...]
    """Every entry before this deal."""


class PulkaRules:
    """A pulka's branch points; the defaults are the club's (R-D1, R-B3, R-R6)."""

    def start(self, conventions: Conventions, players: int) -> VariantState:
        """The state the first deal starts from."""
        return NO_STATE

    def min_level(self, conventions: Conventions, streak: int, state: VariantState) -> int:
        """The next deal's lowest bid level (R-B3, R-R6)."""
        return conventions.minimum_level(streak)

    def deal_factor(self, conventions: Conventions, players: int, state: VariantState) -> int:
        """What every entry of the next deal is multiplied by."""
        return 1

    def record_refusal(self, outcome: DealOutcome, state: VariantState) -> tuple[str, str] | None:
        """Why ``outcome`` cannot be a deal of this pulka, as ``(field, message)``, or ``None``.
        Asked before the shared checks; the club writes no redeal."""
        if outcome.kind == "redeal":
            return "type", "a redeal is written only in classic preferans (K-6)"
        return None

    def marks_refusal(
        self, outcome: DealOutcome, conventions: Conventions
    ) -> tuple[str, str] | None:
        """Why the deal's marks (:attr:`DealOutcome.marks`) cannot be written in this pulka, as
        ``(field, message)``, or ``None``. The shared rules play no mark: each refuses."""
        for mark in declared_marks():
            if mark.on(outcome.marks):
                return mark.key, mark.refused
        return None

    def own_entries(
        self, outcome: DealOutcome, sheet: Sheet, target: int, deal: int, conventions: Conventions
    ) -> list[Entry] | None:
        """The entries of a deal scored off the shared sheet, or ``None`` (the shared one)."""
        return None

    def seat_marks(self, state: VariantState, players: int) -> list[dict[str, int]] | None:
        """What the sheet shows by each player's name from the carried state (JSON-ready, one
        object per seat), or ``None``: the shared rules show nothing."""
        return None

    def after_deal(self, turn: PulkaTurn, outcome: DealOutcome, entries: list[Entry]) -> NextDeal:
        """The deal's final entries and who deals next: clockwise, pass-outs included (R-D1)."""
        streak = turn.streak + 1 if outcome.kind == "pass_out" else 0
        return NextDeal(entries, (outcome.dealer + 1) % turn.players, streak, turn.state)


_SHARED = PulkaRules()


def pulka_rules(conventions: Conventions) -> PulkaRules:
    """The pulka hooks of ``conventions``' rule set (the shared ones if it has none)."""
    rule_set = rule_set_of(conventions.preset)
    return rule_set if isinstance(rule_set, PulkaRules) else _SHARED
