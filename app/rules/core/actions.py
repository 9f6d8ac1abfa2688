"""Actions players take in a deal, and the public events the engine reports.

Every action is a small frozen dataclass with the acting ``seat``;
:func:`app.rules.deal.dispatch.apply`
checks it against the rules. Events are public by construction: they never carry a card that not
every player may see (the hands come only through :func:`app.rules.deal.dispatch.view`), so the
socket
layer may broadcast them to everyone at the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, TypeAlias

from app.rules.core.auction import Call, ContractCall
from app.rules.core.cards import Card
from app.rules.core.outcome import DefenceCall, PlayMode


@dataclasses.dataclass(frozen=True, slots=True)
class Cut:
    """The dealer's right neighbour cuts: the top ``position`` cards go under the rest (R-D2)."""

    seat: int
    position: int


@dataclasses.dataclass(frozen=True, slots=True)
class Bid:
    """An auction call: a contract, ``"misere"``, ``"pass"``, ``"here"`` (R-B1..R-B6), or a
    dark call, ``"dark_pass"`` or a :class:`~app.rules.core.auction.DarkBid` (A-10, A-11)."""

    seat: int
    call: Call


@dataclasses.dataclass(frozen=True, slots=True)
class TakeTalon:
    """The declarer takes the shown talon (needed only when ``talon_return_penalty`` is on)."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class ReturnTalon:
    """R-C6: the declarer refuses the shown talon; he plays his ten cards with no discard."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class Discard:
    """The declarer puts two cards away face down (R-C1)."""

    seat: int
    cards: tuple[Card, Card]


@dataclasses.dataclass(frozen=True, slots=True)
class NameContract:
    """The declarer names the contract: not below his bid, misère only after a misère bid (R-C2)."""

    seat: int
    contract: ContractCall


@dataclasses.dataclass(frozen=True, slots=True)
class Concede:
    """R-C4: the declarer, having taken the talon, gives up "без трёх" instead of playing."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class Defend:
    """A defender's call after the contract: whist, pass or half-whist (R-W1, R-W4, R-W5)."""

    seat: int
    call: DefenceCall


@dataclasses.dataclass(frozen=True, slots=True)
class ReturnWhist:
    """R-W4: after a half-whist, the first defender (then the four-player dealer) whists after
    all; the game is then played open with the returner as the only whister."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class ChoosePlay:
    """R-W3: a single whister chooses open or closed play."""

    seat: int
    mode: PlayMode


@dataclasses.dataclass(frozen=True, slots=True)
class PlayCard:
    """Play ``card`` from the hand whose turn it is; ``seat`` is who controls that hand."""

    seat: int
    card: Card


@dataclasses.dataclass(frozen=True, slots=True)
class Claim:
    """R-W11: the declarer lays his cards open and claims ``tricks`` of the remaining tricks
    (on misère: ``0``, he takes none). The engine verifies it against every defence."""

    seat: int
    tricks: int


@dataclasses.dataclass(frozen=True, slots=True)
class ProposeResult:
    """Propose to end the deal now with final trick counts ``tricks`` (seat, total) (R-W11)."""

    seat: int
    tricks: tuple[tuple[int, int], ...]


@dataclasses.dataclass(frozen=True, slots=True)
class AcceptResult:
    """Agree to the pending proposed result."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class DeclineResult:
    """Refuse the pending proposed result; play goes on."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class InviteMisere:
    """R-B9: before his first call a player of a four-player table hands his cards to the
    dealer and invites him to a misère («Приглашаю»)."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class AnswerInvitation:
    """R-B9: the four-player dealer accepts (the partners bid misère) or declines."""

    seat: int
    accept: bool


@dataclasses.dataclass(frozen=True, slots=True)
class LookAtHand:
    """R-W4: before deciding to return a half-whist, the four-player dealer looks at the cards
    of one of the declarer's opponents (``target``)."""

    seat: int
    target: int


@dataclasses.dataclass(frozen=True, slots=True)
class PickUp:
    """A-10, A-11: a seat picks up its cards, giving up its dark call (``dark_calls`` only).

    Until it does (or makes any call) its own hand is hidden from it in the auction."""

    seat: int


Action: TypeAlias = (
    Cut
    | Bid
    | TakeTalon
    | ReturnTalon
    | Discard
    | NameContract
    | Concede
    | Defend
    | ReturnWhist
    | ChoosePlay
    | PlayCard
    | Claim
    | ProposeResult
    | AcceptResult
    | DeclineResult
    | InviteMisere
    | AnswerInvitation
    | LookAtHand
    | PickUp
)

ACTION_TYPES: dict[str, type[Any]] = {
    "cut": Cut,
    "bid": Bid,
    "take_talon": TakeTalon,
    "return_talon": ReturnTalon,
    "discard": Discard,
    "name_contract": NameContract,
    "concede": Concede,
    "defend": Defend,
    "return_whist": ReturnWhist,
    "choose_play": ChoosePlay,
    "play_card": PlayCard,
    "claim": Claim,
    "propose_result": ProposeResult,
    "accept_result": AcceptResult,
    "decline_result": DeclineResult,
    "invite_misere": InviteMisere,
    "answer_invitation": AnswerInvitation,
    "look_at_hand": LookAtHand,
    "pick_up": PickUp,
}
"""JSON ``type`` of each action class."""
ACTION_NAMES: dict[type[Any], str] = {cls: name for name, cls in ACTION_TYPES.items()}

EventType: TypeAlias = Literal[
    "deal_started",
    "deck_cut",
    "cards_dealt",
    "called",
    "auction_won",
    "pass_out",
    "talon_shown",
    "talon_taken",
    "talon_returned",
    "discarded",
    "contract_named",
    "conceded",
    "defended",
    "whist_returned",
    "play_chosen",
    "hands_opened",
    "talon_card_turned",
    "card_played",
    "trick_taken",
    "claim_accepted",
    "claim_rejected",
    "result_proposed",
    "result_accepted",
    "result_declined",
    "result_withdrawn",
    "deal_ended",
    "misere_invited",
    "invitation_answered",
    "hand_looked_at",
    "cards_picked_up",
    "misere_switched",
]


class Event(NamedTuple):
    """A public event: ``type`` plus JSON-ready ``data`` (cards in canonical text).

    A named tuple rather than a dataclass: the engine makes one or two per card played, and a
    tuple is built several times faster (bench/engine.py). Treat ``data`` as read-only.
    """

    type: EventType
    data: Mapping[str, Any] = MappingProxyType({})
