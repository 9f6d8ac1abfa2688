"""The state of one deal as an immutable value, and the few helpers every phase shares.

:class:`DealState` is the whole state of a deal; :class:`DealConfig` its fixed inputs. The
phase modules (:mod:`app.rules.deal.phases`) build new states only through :func:`evolve`, the one
place that copies a state; :mod:`app.rules.deal.dispatch` dispatches actions to them.

Seats are table seats ``0..players-1`` clockwise. At four players the dealer gets no cards
(R-T6); the three *active* seats are the dealer's left neighbours in order, forehand first. At
five the dealer and the seat opposite him sit out; the dealer's two left neighbours and his
right neighbour play (R-T6).

In open play (R-W3, R-W4, R-W5) one whister plays both defending hands, so the seat that must
act (``to_move``) is not always the hand whose card is due (``turn``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, NamedTuple, TypeAlias

from app.rules.core.actions import Event
from app.rules.core.auction import PASS_ONLY_LEVEL, Auction, ContractCall
from app.rules.core.cards import Card, CardMask
from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealKind, DefenceCall, PlayMode
from app.rules.core.rule_errors import IllegalActionError, RulesError
from app.rules.core.seats import NEXT_PLAYING, TABLE_SIZES, playing_seats

Phase: TypeAlias = Literal[
    "cut", "auction", "talon", "discard", "contract", "defence", "play_mode", "play", "done"
]
DefenceStage: TypeAlias = Literal["first", "second", "return", "return_dealer", "dealer", ""]
EndReason: TypeAlias = Literal[
    "", "played", "claim", "agreement", "conceded", "without_play", "half_whist", "redeal"
]


class OutOfTurnError(IllegalActionError):
    """An action by a seat whose turn it is not, or in the wrong phase (R-B8)."""


class IllegalContractError(IllegalActionError):
    """A contract that may not be named (R-C2) or a talon/discard action out of place."""


class IllegalClaimError(IllegalActionError):
    """A claim or proposed result that cannot be made now."""


class Partners(NamedTuple):
    """The four-player dealer's looks at a hand, one field of :class:`DealState`.

    One field rather than four: :func:`evolve` copies the state's ``__dict__`` on every card,
    and past 42 keys that dict doubles its table and the copy gets twice as slow.
    """

    invited: int | None = None
    """R-B9: the seat whose misère invitation the dealer is answering now."""
    invitations: int = 0
    """R-B9: bit per seat that has invited the dealer in this deal (one invitation each)."""
    partner: int | None = None
    """R-B9: the dealer who accepted a misère invitation: half of every misère entry is his."""
    looked_at: int | None = None
    """R-W4: the declarer's opponent whose cards the dealer looked at."""
    partner_of: int | None = None
    """A-19: the inviter the dealer agreed to go halves with (on any game he then plays)."""


NO_PARTNERS = Partners()


@dataclasses.dataclass(frozen=True, slots=True)
class DealConfig:
    """Who plays and under which rules: the fixed inputs of one deal.

    ``min_level`` is the lowest bid level of this deal, normally
    ``conventions.minimum_level(consecutive_pass_outs)`` (R-B3, R-R6); ``PASS_ONLY_LEVEL``
    (11) makes a forced pass-out, where no bid is allowed (A-3).
    """

    players: int
    dealer: int
    conventions: Conventions = dataclasses.field(default_factory=Conventions)
    min_level: int = 6

    def __post_init__(self) -> None:
        if self.players not in TABLE_SIZES:
            raise RulesError("a deal has 3, 4 or 5 players")
        if self.players not in self.conventions.table_sizes():
            raise RulesError(f"the {self.conventions.preset} preset is played by 3 or 4 players")
        if not 0 <= self.dealer < self.players:
            raise RulesError(f"the dealer must be a seat from 0 to {self.players - 1}")
        if not 6 <= self.min_level <= PASS_ONLY_LEVEL:
            raise RulesError("the minimum bid level is between 6 and 10 (11: pass only)")


@dataclasses.dataclass(frozen=True)
class DealState:
    """The whole state of a deal. Treat it as opaque; look at it through ``view``.

    Equal states compare equal field by field (a replayed deal equals the live one). It has no
    ``__slots__`` on purpose: see :func:`evolve`.

    Card sets are masks (see :mod:`app.rules.core.cards`); ``hands[seat]`` are the cards a seat
    still holds, ``dealt`` the hands as dealt. ``trick`` holds ``(seat, card)`` of the current
    trick; on a pass-out the talon card leading a trick has seat ``-1`` at three players (it
    only sets the suit, R-R2) and the dealer's seat at four and five (R-R3).
    """

    config: DealConfig
    deck: tuple[Card, ...]
    salt: bytes
    commitment: str
    phase: Phase = "cut"
    to_move: int | None = None
    turn: int | None = None
    cut: int | None = None
    dealt: tuple[CardMask, ...] = ()
    hands: tuple[CardMask, ...] = ()
    talon: tuple[Card, ...] = ()
    talon_shown: int = 0
    auction: Auction | None = None
    declarer: int | None = None
    bid: ContractCall | None = None
    talon_returned: bool = False
    discard: CardMask = 0
    contract: ContractCall | None = None
    trump: int | None = None
    defence: tuple[tuple[int, str], ...] = ()
    calls: tuple[tuple[int, DefenceCall], ...] = ()
    stage: DefenceStage = ""
    returned_from: int | None = None
    half_from: int | None = None
    whisters: tuple[int, ...] = ()
    play_mode: PlayMode | None = None
    open_seats: int = 0
    open_pending: int = 0
    controllers: tuple[int, ...] = ()
    kind: DealKind | None = None
    leader: int | None = None
    trick: tuple[tuple[int, Card], ...] = ()
    tricks_done: int = 0
    last_trick: tuple[tuple[int, Card], ...] = ()
    last_winner: int | None = None
    history: tuple[tuple[tuple[int, Card], ...], ...] = ()
    tricks: tuple[int, ...] = ()
    partners: Partners = dataclasses.field(default_factory=lambda: NO_PARTNERS)
    """The four-player dealer's looks at a hand (R-B9, R-W4); see :class:`Partners`."""
    claim_failed: int = 0
    proposal: tuple[int, tuple[tuple[int, int], ...]] | None = None
    accepted: int = 0
    end: EndReason = ""

    @property
    def finished(self) -> bool:
        """True once the deal is over (``phase == "done"``)."""
        return self.phase == "done"

    @property
    def invited(self) -> int | None:
        """R-B9: the seat whose misère invitation the dealer is answering now."""
        return self.partners.invited

    @property
    def invitations(self) -> int:
        """R-B9: bit per seat that has invited the dealer in this deal."""
        return self.partners.invitations

    @property
    def partner(self) -> int | None:
        """R-B9: the dealer who accepted a misère invitation."""
        return self.partners.partner

    @property
    def looked_at(self) -> int | None:
        """R-W4: the declarer's opponent whose cards the dealer looked at."""
        return self.partners.looked_at

    @property
    def players(self) -> int:
        """Number of seats at the table (3, 4 or 5)."""
        return self.config.players

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self.config.dealer

    @property
    def active(self) -> tuple[int, int, int]:
        """The three seats holding cards, forehand first (R-D3, R-T6)."""
        return playing_seats(self.config.players, self.config.dealer)

    @property
    def forehand(self) -> int:
        """The seat left of the dealer: first to speak and to lead (R-B1, R-W7)."""
        return (self.config.dealer + 1) % self.config.players

    @property
    def cutter(self) -> int:
        """The dealer's right neighbour, who cuts (R-D2)."""
        return (self.config.dealer - 1) % self.config.players


Transition: TypeAlias = tuple[DealState, tuple[Event, ...]]
"""What applying an action gives: the new state and the public events it caused."""


def evolve(state: DealState, /, **changes: Any) -> DealState:
    """A copy of ``state`` with ``changes`` (field name -> new value).

    The one place a :class:`DealState` is built without ``__init__``, and why: it hands the
    new instance one merged dict (a C-level copy of the old ``__dict__`` plus the changes)
    through the ``__dict__`` descriptor, instead of ``dataclasses.replace``, which re-runs the
    frozen ``__init__`` for forty-odd fields on every card and makes ``apply`` several times
    slower (``python -m bench.engine``). That is also why ``DealState`` has no ``__slots__``.
    The frozen guarantee holds: the copy is new, and nobody else holds it until it is returned.
    Callers pass only field names of :class:`DealState`.
    """
    new = _new(DealState)
    _set_dict(new, {**state.__dict__, **changes})
    return new


_new = object.__new__
_set_dict = DealState.__dict__["__dict__"].__set__
"""The instance-``__dict__`` setter of ``DealState`` (bypasses the frozen ``__setattr__``)."""


_BLANK = DealState(config=DealConfig(3, 0), deck=(), salt=b"", commitment="")
"""Every field at its default; :func:`blank_state` fills in the rest."""


def blank_state(
    config: DealConfig, deck: tuple[Card, ...], salt: bytes, commitment: str, to_move: int
) -> DealState:
    """A deal before the cut: every field at its default but the given ones."""
    return evolve(
        _BLANK, config=config, deck=deck, salt=salt, commitment=commitment, to_move=to_move
    )


def require_turn(state: DealState, seat: int, *phases: Phase) -> None:
    """Raise :class:`OutOfTurnError` unless the deal is in one of ``phases`` and ``seat`` acts."""
    if state.phase not in phases:
        raise OutOfTurnError(f"that cannot be done now: the deal is in the {state.phase} phase")
    if state.to_move != seat:
        who = "nobody" if state.to_move is None else f"seat {state.to_move}"
        raise OutOfTurnError(f"it is not your turn: {who} is to act")


def next_active(state: DealState, seat: int) -> int:
    """The next seat holding cards clockwise after ``seat``."""
    return NEXT_PLAYING[state.config.players][state.config.dealer][seat]


def defenders_of(state: DealState) -> tuple[int, int]:
    """The declarer's two opponents holding cards, clockwise from his left (R-W1)."""
    declarer = state.declarer
    assert declarer is not None
    d1 = next_active(state, declarer)
    return d1, next_active(state, d1)


def set_at(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    """``values`` with ``values[index]`` replaced by ``value``."""
    return (*values[:index], value, *values[index + 1 :])
