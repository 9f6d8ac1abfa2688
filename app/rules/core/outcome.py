"""The outcome of one deal: the contract between play and scoring.

A :class:`DealOutcome` says what a paper score sheet needs to know of a deal, and nothing more. The
live engine produces one when a deal ends; a ``pulka/1`` record's deal is parsed into one; the
sheet (``app.rules.scoring.sheet``) scores only these. That is what makes "one scoring code path"
true.

Seats are table seats ``0..n-1`` clockwise. Cards are written in the canonical text form
(``"AS"``, ``"10H"``) so this module needs nothing from the card code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal, TypeAlias

DealKind: TypeAlias = Literal["game", "misere", "pass_out", "conceded", "redeal"]
"""``redeal``: classic preferans, everyone passed the talon; nothing is written (K-6)."""
Strain: TypeAlias = Literal["S", "C", "D", "H", "NT"]
DefenceCall: TypeAlias = Literal["whist", "pass", "half"]
PlayMode: TypeAlias = Literal["open", "closed"]

STRAINS: tuple[Strain, ...] = ("S", "C", "D", "H", "NT")


@dataclasses.dataclass(frozen=True, slots=True)
class Contract:
    """A trick contract: level 6..10 and a strain (``NT`` is no trumps)."""

    level: int
    strain: Strain
    no_talon: bool = False
    """A-12: a game "без прикупа": bid and played without the talon (written ``6SBP``)."""

    def __str__(self) -> str:
        return f"{self.level}{self.strain}{'BP' if self.no_talon else ''}"


@dataclasses.dataclass(frozen=True, slots=True)
class Penalty:
    """A penalty a scorer recorded at a physical table (RULES.md §10).

    ``rule`` is an id of the penalty catalogue (:mod:`app.rules.scoring.penalties`); ``hill`` is the
    amount as recorded (``None``: not stated, the catalogue computes it). ``size`` is the
    over-entry of an entry error (R-X11). ``whists_on``/``amount`` are refused by the catalogue,
    kept so that an old record fails with a clear message.
    """

    seat: int
    rule: str
    hill: int | None = None
    whists_on: int | None = None
    amount: int = 0
    size: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DealOutcome:
    """What happened in one deal, as the score sheet sees it (mirrors a ``pulka/1`` deal)."""

    dealer: int
    kind: DealKind
    declarer: int | None = None
    contract: Contract | None = None
    """The named trick contract; ``None`` for misère and pass-out."""
    defence: Mapping[int, DefenceCall] = dataclasses.field(default_factory=dict)
    """Each defender's final call. At four players the dealer appears only if he whisted."""
    returned_from: int | None = None
    """The half-whister whose half-whist was returned (R-W4); his call is then ``pass``."""
    play: PlayMode | None = None
    tricks: Mapping[int, int] | None = None
    """Tricks per seat; on a four-player pass-out the dealer's seat holds his talon tricks."""
    talon: tuple[str, str] | None = None
    penalties: tuple[Penalty, ...] = ()
    talon_returned: bool = False
    """The declarer refused the talon (R-C6, convention ``talon_return_penalty``)."""
    misere_partner: int | None = None
    """R-B9: the four-player dealer who accepted the declarer's misère invitation; every entry
    of the misère is written half on each partner."""
    out_of_turn: bool = False
    """Dealt out of turn and not claimed in time: it stands (R-X3)."""
    marks: frozenset[str] = frozenset()
    """The rule set's own flags on this deal (Arabic preferans: ``dark``, ``preferans``, …), each
    a :class:`Mark` its rule set declared; the shared engine and sheet never read one, the
    rule set's hooks do. Written in ``pulka/1`` as ``"key": true``."""


@dataclasses.dataclass(frozen=True, slots=True)
class Mark:
    """A flag one rule set writes on its deals: a boolean key of a ``pulka/1`` deal.

    The shared outcome has one slot for them (:attr:`DealOutcome.marks`), so a variant's facts
    about a deal (a dark game, a "преферанс") stay out of the shared value. The record codec
    checks a mark's shape from this declaration; whether a pulka plays it is the rule set's
    ``marks_refusal`` pulka hook.
    """

    key: str
    """The ``pulka/1`` key and the member of :attr:`DealOutcome.marks`."""
    kinds: frozenset[DealKind]
    """The deal types it may be written on."""
    shape: str
    """The error message of a mark that is not ``true``/``false`` or on the wrong deal."""
    refused: str
    """The error message where the pulka's rule set does not play it."""
    needs: str | None = None
    """Another mark it is written only together with."""
    seats: bool = False
    """A mark that names seats: ``pulka/1`` writes it as a list of seats (``"key": [0, 2]``),
    :attr:`DealOutcome.marks` holds ``"key:0"``, ``"key:2"`` (:func:`mark_seats`)."""

    def on(self, marks: frozenset[str]) -> bool:
        """Is this mark written in ``marks`` (for a seats mark: on any seat)?"""
        if not self.seats:
            return self.key in marks
        return any(m.startswith(self.key + ":") for m in marks)


def mark_seats(marks: frozenset[str], key: str) -> tuple[int, ...]:
    """The seats a seats mark ``key`` names in ``marks``, in increasing order."""
    prefix = key + ":"
    return tuple(sorted(int(m[len(prefix) :]) for m in marks if m.startswith(prefix)))


def seat_marks(key: str, seats: tuple[int, ...] | list[int]) -> frozenset[str]:
    """The members of :attr:`DealOutcome.marks` that write seats mark ``key`` on ``seats``."""
    return frozenset(f"{key}:{seat}" for seat in seats)


_MARKS: dict[str, Mark] = {}


def declare_marks(marks: tuple[Mark, ...]) -> None:
    """Make ``marks`` known to the record codec (called by the registry for a rule set)."""
    for mark in marks:
        _MARKS[mark.key] = mark


def withdraw_marks(marks: tuple[Mark, ...]) -> None:
    """Forget ``marks`` again (a rule set withdrawn from the registry)."""
    for mark in marks:
        _MARKS.pop(mark.key, None)


def declared_marks() -> tuple[Mark, ...]:
    """Every declared mark, in declaration order (the order ``pulka/1`` writes them in)."""
    return tuple(_MARKS.values())
