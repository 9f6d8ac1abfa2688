"""The outcome of one deal: the contract between play and scoring.

A :class:`DealOutcome` says what a paper score sheet needs to know of a deal, and nothing more. The
live engine produces one when a deal ends; a ``pulka/1`` record's deal is parsed into one; the
sheet (``app.rules.sheet``) scores only these. That is what makes "one scoring code path" true.

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

    ``rule`` is an id of the penalty catalogue (:mod:`app.rules.penalties`); ``hill`` is the
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
    misere_no_talon: bool = False
    """A-13: the misère was bid and played without the talon (``pulka/1`` ``no_talon``)."""
    out_of_turn: bool = False
    """Dealt out of turn and not claimed in time: it stands (R-X3)."""
    preferans: bool = False
    """A-16: the game is "преферанс" (``contract`` 10NT): made, it closes the declarer's pool
    and clears his hill and the whists on him; failed, nothing is written."""
    preferans_short: bool = False
    """A-16: the "преферанс" was declared without nine sure tricks (a hill penalty)."""
    dark: bool = False
    """A-11 on a game: won with a dark bid and played at its level, every entry × 2. A-10 on a
    pass-out: somebody passed in the dark, the pass-out is played on a bomb."""
