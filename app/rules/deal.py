"""One deal as an immutable value: cut, auction, talon, contract, defence, play, result.

The only ways to use it (DESIGN.md)::

    state = new_deal(config, deck, salt)           # phase "cut", commitment public
    state, events = apply(state, action)           # raises IllegalActionError subclasses
    legal_actions(state, seat)                     # what ``seat`` may do now
    view(state, seat)                              # what ``seat`` may see now (None: spectator)
    outcome(state)                                 # DealOutcome once ``state.finished``

Seats are table seats ``0..players-1`` clockwise. At four players the dealer gets no cards
(R-T6); the three *active* seats are the dealer's left neighbours in order, forehand first.

In open play (R-W3, R-W4, R-W5) one whister plays both defending hands, so the seat that must
act (``to_move``) is not always the hand whose card is due (``turn``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, TypeAlias

from app.rules.actions import (
    AcceptResult,
    Action,
    Bid,
    ChoosePlay,
    Claim,
    Concede,
    Cut,
    DeclineResult,
    Defend,
    Discard,
    Event,
    NameContract,
    PlayCard,
    ProposeResult,
    ReturnTalon,
    ReturnWhist,
    TakeTalon,
)
from app.rules.auction import (
    ALL_CONTRACTS,
    Auction,
    ContractCall,
    call_rank,
    call_text,
    contract_pretty,
)
from app.rules.cards import (
    ALL_CARDS,
    CARD_TEXTS,
    SUIT_MASKS,
    Card,
    CardMask,
    card_pretty,
    card_text,
    mask_cards,
    mask_text,
)
from app.rules.claims import claim_holds
from app.rules.conventions import Conventions
from app.rules.deck import check_deck, commitment, cut_deck, deal_cards
from app.rules.errors import IllegalActionError, RulesError
from app.rules.outcome import (
    Contract,
    DealKind,
    DealOutcome,
    DefenceCall,
    PlayMode,
)
from app.rules.outcome_json import deal_to_json as outcome_to_json
from app.rules.play import IllegalCardError, check_card, legal_cards, trick_winner
from app.rules.seats import NEXT_PLAYING, NO_SEAT, playing_seats

Phase: TypeAlias = Literal[
    "cut", "auction", "talon", "discard", "contract", "defence", "play_mode", "play", "done"
]
DefenceStage: TypeAlias = Literal["first", "second", "return", "return_dealer", "dealer", ""]
EndReason: TypeAlias = Literal[
    "", "played", "claim", "agreement", "conceded", "without_play", "half_whist"
]


class OutOfTurnError(IllegalActionError):
    """An action by a seat whose turn it is not, or in the wrong phase (R-B8)."""


class IllegalContractError(IllegalActionError):
    """A contract that may not be named (R-C2) or a talon/discard action out of place."""


class IllegalClaimError(IllegalActionError):
    """A claim or proposed result that cannot be made now."""


@dataclasses.dataclass(frozen=True, slots=True)
class DealConfig:
    """Who plays and under which rules: the fixed inputs of one deal.

    ``min_level`` is the lowest bid level of this deal, normally
    ``conventions.minimum_level(consecutive_pass_outs)`` (R-B3, R-R6).
    """

    players: int
    dealer: int
    conventions: Conventions = dataclasses.field(default_factory=Conventions)
    min_level: int = 6

    def __post_init__(self) -> None:
        if self.players not in (3, 4):
            raise RulesError("a deal has 3 or 4 players")
        if not 0 <= self.dealer < self.players:
            raise RulesError(f"the dealer must be a seat from 0 to {self.players - 1}")
        if not 6 <= self.min_level <= 10:
            raise RulesError("the minimum bid level is between 6 and 10")


@dataclasses.dataclass(frozen=True)
class DealState:
    """The whole state of a deal. Treat it as opaque; look at it through :func:`view`.

    Equal states compare equal field by field (a replayed deal equals the live one).

    Card sets are masks (see :mod:`app.rules.cards`); ``hands[seat]`` are the cards a seat
    still holds, ``dealt`` the hands as dealt. ``trick`` holds ``(seat, card)`` of the current
    trick; on a pass-out the talon card leading a trick has seat ``-1`` at three players (it
    only sets the suit, R-R2) and the dealer's seat at four (R-R3).
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
    claim_failed: int = 0
    proposal: tuple[int, tuple[tuple[int, int], ...]] | None = None
    accepted: int = 0
    end: EndReason = ""

    @property
    def finished(self) -> bool:
        """True once the deal is over (``phase == "done"``)."""
        return self.phase == "done"

    @property
    def players(self) -> int:
        """Number of seats at the table (3 or 4)."""
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


_DEFAULTS: dict[str, Any] = {
    field.name: field.default
    for field in dataclasses.fields(DealState)
    if field.default is not dataclasses.MISSING
}
"""Default field values, so a new state is built by one dict update (see :func:`_evolve`)."""


def _evolve(state: DealState, **changes: Any) -> DealState:
    """A copy of ``state`` with ``changes``: a dict copy, not ``dataclasses.replace``.

    ``DealState`` deliberately has no ``__slots__``: copying its ``__dict__`` is one C-level
    operation, which makes ``apply`` several times faster than re-running ``__init__`` for
    forty-odd fields on every card (bench/engine.py). Field names are checked in tests.
    """
    new = object.__new__(DealState)
    attrs = new.__dict__
    attrs.update(state.__dict__)
    attrs.update(changes)
    return new


def _next_active(state: DealState, seat: int) -> int:
    return NEXT_PLAYING[state.config.players][state.config.dealer][seat]


def _set(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return (*values[:index], value, *values[index + 1 :])


def new_deal(config: DealConfig, deck: Sequence[int], salt: bytes) -> DealState:
    """Start a deal from a shuffled ``deck`` and a secret ``salt`` (R-D4).

    The deal waits for the cut by the dealer's right neighbour (R-D2); the commitment is public
    from now on.
    """
    order = check_deck(deck)
    if not isinstance(salt, bytes) or len(salt) < 1:
        raise RulesError("the salt must be non-empty bytes")
    state = object.__new__(DealState)
    state.__dict__.update(_DEFAULTS)
    state.__dict__.update(
        config=config,
        deck=order,
        salt=bytes(salt),
        commitment=commitment(order, salt),
        to_move=(config.dealer - 1) % config.players,
    )
    return state


def start_events(state: DealState) -> tuple[Event, ...]:
    """The public event announcing a new deal (players, dealer, cutter, commitment)."""
    return (
        Event(
            "deal_started",
            {
                "players": state.players,
                "dealer": state.dealer,
                "forehand": state.forehand,
                "cutter": state.cutter,
                "min_level": state.config.min_level,
                "commitment": state.commitment,
            },
        ),
    )


# --------------------------------------------------------------------------------------------
# apply


def apply(state: DealState, action: Action) -> tuple[DealState, tuple[Event, ...]]:
    """Apply ``action``; return the new state and the public events it caused.

    Raises an :class:`IllegalActionError` subclass (message readable by the player) if the
    action is not allowed now; ``state`` itself never changes.
    """
    attrs = state.__dict__
    if (
        type(action) is PlayCard
        and attrs["phase"] == "play"
        and type(action.seat) is int
        and attrs["to_move"] == action.seat
    ):
        return _apply_play(state, action)  # the hot path: every card of every deal
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalActionError(f"{action!r} is not an action")
    seat = action.seat
    if type(seat) is not int or not 0 <= seat < state.config.players:
        raise IllegalActionError(f"there is no seat {seat!r} at this table")
    if state.phase == "done":
        raise OutOfTurnError("the deal is over")
    return handler(state, action)


def _require(state: DealState, seat: int, *phases: Phase) -> None:
    if state.phase not in phases:
        raise OutOfTurnError(f"that cannot be done now: the deal is in the {state.phase} phase")
    if state.to_move != seat:
        who = "nobody" if state.to_move is None else f"seat {state.to_move}"
        raise OutOfTurnError(f"it is not your turn: {who} is to act")


def _apply_cut(state: DealState, action: Cut) -> tuple[DealState, tuple[Event, ...]]:
    substitute = state.players == 4 and action.seat == (state.cutter - 1) % 4
    if not (state.phase == "cut" and substitute):
        # R-D2: at four players the cutter's right neighbour may cut for him when he is away
        # (the service decides that he is); otherwise only the cutter cuts.
        _require(state, action.seat, "cut")
    order = cut_deck(state.deck, action.position, state.config.conventions.cut_min)
    hands, talon = deal_cards(order, state.players, state.dealer)
    active = state.active
    state = _evolve(
        state,
        phase="auction",
        cut=action.position,
        dealt=hands,
        hands=hands,
        talon=talon,
        auction=Auction(order=active, min_level=state.config.min_level),
        to_move=active[0],
        turn=None,
        tricks=(0,) * state.players,
        controllers=tuple(range(state.players)),
    )
    events = (
        Event("deck_cut", {"seat": action.seat, "position": action.position}),
        Event("cards_dealt", {"hands": {str(s): 10 for s in active}, "talon": 2}),
    )
    return state, events


def _apply_bid(state: DealState, action: Bid) -> tuple[DealState, tuple[Event, ...]]:
    _require(state, action.seat, "auction")
    assert state.auction is not None
    auction = state.auction.call(action.call)
    events: list[Event] = [Event("called", {"seat": action.seat, "call": call_text(action.call)})]
    if not auction.finished:
        return _evolve(state, auction=auction, to_move=auction.seat_to_call), tuple(events)
    if auction.passed_out:
        events.append(Event("pass_out", {}))
        state = _evolve(state, auction=auction, kind="pass_out", phase="play")
        return _start_pass_out(state, events)
    winner = auction.winner
    assert winner is not None
    declarer = auction.order[winner]
    bid = auction.winning_call()
    assert bid is not None
    events.append(Event("auction_won", {"seat": declarer, "bid": call_text(bid)}))
    events.append(Event("talon_shown", {"cards": [card_text(c) for c in state.talon]}))
    state = _evolve(
        state,
        auction=auction,
        declarer=declarer,
        bid=bid,
        talon_shown=2,
        kind="misere" if bid == "misere" else "game",
        to_move=declarer,
    )
    if state.config.conventions.talon_return_penalty:
        return _evolve(state, phase="talon"), tuple(events)
    return _take_talon(state, events)


def _take_talon(state: DealState, events: list[Event]) -> tuple[DealState, tuple[Event, ...]]:
    declarer = state.declarer
    assert declarer is not None
    hand = state.hands[declarer] | (1 << state.talon[0]) | (1 << state.talon[1])
    events.append(Event("talon_taken", {"seat": declarer}))
    state = _evolve(state, hands=_set(state.hands, declarer, hand), phase="discard")
    return state, tuple(events)


def _apply_take_talon(state: DealState, action: TakeTalon) -> tuple[DealState, tuple[Event, ...]]:
    _require(state, action.seat, "talon")
    return _take_talon(state, [])


def _apply_return_talon(
    state: DealState, action: ReturnTalon
) -> tuple[DealState, tuple[Event, ...]]:
    _require(state, action.seat, "talon")
    events = [Event("talon_returned", {"seat": action.seat})]
    state = _evolve(state, talon_returned=True)
    if state.bid == "misere":
        return _name(state, "misere", events)
    return _evolve(state, phase="contract"), tuple(events)


def _apply_discard(state: DealState, action: Discard) -> tuple[DealState, tuple[Event, ...]]:
    _require(state, action.seat, "discard")
    cards = action.cards
    if len(cards) != 2 or cards[0] == cards[1]:
        raise IllegalContractError("discard exactly two different cards")
    hand = state.hands[action.seat]
    for card in cards:
        if not isinstance(card, int) or not 0 <= card < 32 or not hand >> card & 1:
            text = card_pretty(card) if isinstance(card, int) and 0 <= card < 32 else repr(card)
            raise IllegalContractError(f"you cannot discard {text}: it is not in your hand")
    mask = (1 << cards[0]) | (1 << cards[1])
    state = _evolve(state, hands=_set(state.hands, action.seat, hand & ~mask), discard=mask)
    events = [Event("discarded", {"seat": action.seat})]
    if state.bid == "misere":
        return _name(state, "misere", events)
    return _evolve(state, phase="contract"), tuple(events)


def _apply_name(state: DealState, action: NameContract) -> tuple[DealState, tuple[Event, ...]]:
    _require(state, action.seat, "contract")
    contract = action.contract
    bid = state.bid
    assert bid is not None
    if contract == "misere" or bid == "misere":
        raise IllegalContractError(
            "misère may be named only by a player whose bid was misère (R-C2)"
        )
    if not isinstance(contract, Contract):
        raise IllegalContractError(f"{contract!r} is not a contract")
    if call_rank(contract) < call_rank(bid):
        raise IllegalContractError(
            f"{contract_pretty(contract)} is below your bid {contract_pretty(bid)} (R-C2)"
        )
    return _name(state, contract, [])


def _name(
    state: DealState, contract: ContractCall, events: list[Event]
) -> tuple[DealState, tuple[Event, ...]]:
    declarer = state.declarer
    assert declarer is not None
    events.append(Event("contract_named", {"seat": declarer, "contract": call_text(contract)}))
    state = _evolve(state, contract=contract, trump=_trump_of(contract))
    d1 = _next_active(state, declarer)
    d2 = _next_active(state, d1)
    if contract == "misere":
        # R-W10: no whist calls; both defenders catch it open, each playing his own hand.
        return _start_play(state, events, whisters=(), mode="open", open_mask=(1 << d1) | (1 << d2))
    assert isinstance(contract, Contract)
    if contract.level == 10 and state.config.conventions.ten_checked:
        # R-W9: a ten is not whisted; all hands are laid open and it is played out.
        state = _evolve(state, calls=((d1, "pass"), (d2, "pass")))
        everyone = (1 << declarer) | (1 << d1) | (1 << d2)
        return _start_play(state, events, whisters=(), mode="open", open_mask=everyone, now=True)
    return _evolve(state, phase="defence", stage="first", to_move=d1), tuple(events)


def _apply_concede(state: DealState, action: Concede) -> tuple[DealState, tuple[Event, ...]]:
    if state.phase not in ("discard", "contract", "defence", "play_mode"):
        raise OutOfTurnError("you can concede only after taking the talon and before play (R-C4)")
    if action.seat != state.declarer:
        raise OutOfTurnError("only the declarer can concede (R-C4)")
    if state.bid == "misere" or state.talon_returned:
        raise IllegalContractError(
            "only a declarer who took the talon for a trick game can concede (R-C4)"
        )
    contract = state.contract if isinstance(state.contract, Contract) else state.bid
    assert isinstance(contract, Contract)
    state = _evolve(
        state, contract=contract, kind="conceded", end="conceded", phase="done", to_move=None
    )
    events = (
        Event("conceded", {"seat": action.seat, "contract": str(contract)}),
        _ended_event(state),
    )
    return state, events


# ---- defence (R-W1..R-W6)


def _defenders(state: DealState) -> tuple[int, int]:
    declarer = state.declarer
    assert declarer is not None
    d1 = _next_active(state, declarer)
    return d1, _next_active(state, d1)


def _defence_options(state: DealState) -> list[Action]:
    """Every defence action of the seat to move."""
    seat = state.to_move
    assert seat is not None and isinstance(state.contract, Contract)
    level = state.contract.level
    conv = state.config.conventions
    stalingrad = conv.stalingrad and state.contract == Contract(6, "S")
    calls = dict(state.calls)
    d1, _ = _defenders(state)
    if state.stage == "first":
        if stalingrad:
            return [Defend(seat, "whist")]  # R-W6
        return [Defend(seat, "whist"), Defend(seat, "pass")]
    if state.stage == "second":
        if stalingrad:
            return [Defend(seat, "whist")]  # R-W6
        options: list[Action] = [Defend(seat, "whist"), Defend(seat, "pass")]
        if calls[d1] == "pass" and level in (6, 7) and conv.half_whist:
            options.append(Defend(seat, "half"))  # R-W4
        return options
    if state.stage in ("return", "return_dealer"):
        return [ReturnWhist(seat), Defend(seat, "pass")]  # R-W4
    if state.stage == "dealer":
        return [Defend(seat, "whist"), Defend(seat, "pass")]  # R-W5
    return []


def _apply_defend(state: DealState, action: Defend) -> tuple[DealState, tuple[Event, ...]]:
    if state.phase == "play_mode" and action.call == "half":
        return _gentleman_half(state, action)
    _require(state, action.seat, "defence")
    if action not in _defence_options(state):
        raise IllegalActionError(_why_not_call(state, action.call))
    seat, call = action.seat, action.call
    events = [Event("defended", {"seat": seat, "call": call})]
    state = _evolve(state, defence=(*state.defence, (seat, call)))
    d1, d2 = _defenders(state)
    assert isinstance(state.contract, Contract)
    level = state.contract.level
    if state.stage == "first":
        state = _evolve(state, calls=((d1, call),), stage="second", to_move=d2)
        return state, tuple(events)
    if state.stage == "second":
        c1 = dict(state.calls)[d1]
        state = _evolve(state, calls=((d1, c1), (d2, call)))
        whisters = tuple(s for s, c in ((d1, c1), (d2, call)) if c == "whist")
        if len(whisters) == 2:
            return _start_play(state, events, whisters=whisters, mode="closed")
        if len(whisters) == 1:
            return _evolve(state, phase="play_mode", stage="", whisters=whisters,
                           to_move=whisters[0]), tuple(events)
        if call == "half":
            return _evolve(state, stage="return", half_from=d2, to_move=d1), tuple(events)
        if level >= 8 and state.players == 4:
            return _evolve(state, stage="dealer", to_move=state.dealer), tuple(events)  # R-W5
        return _finish(state, events, "without_play")
    if state.stage == "return":
        if state.players == 4:
            return _evolve(state, stage="return_dealer", to_move=state.dealer), tuple(events)
        return _finish(state, events, "half_whist")
    if state.stage == "return_dealer":
        return _finish(state, events, "half_whist")
    # stage "dealer": R-W5, the four-player dealer whists on 8+ after two passes.
    if call == "whist":
        dealer = state.dealer
        state = _evolve(state, calls=(*state.calls, (dealer, "whist")))
        return _start_play(state, events, whisters=(dealer,), mode="open", controller=dealer)
    return _finish(state, events, "without_play")


def _may_half_first(state: DealState) -> bool:
    """Gentleman's whist (000): a first defender who whisted, the second having passed, may
    still go for half-whist on 6 and 7; the passer may then return the whist (R-W4)."""
    contract = state.contract
    conv = state.config.conventions
    return (
        state.phase == "play_mode"
        and isinstance(contract, Contract)
        and contract.level in (6, 7)
        and conv.half_whist
        and conv.whist_style == "gentleman"
        and state.whisters == (_defenders(state)[0],)
    )


def _gentleman_half(state: DealState, action: Defend) -> tuple[DealState, tuple[Event, ...]]:
    _require(state, action.seat, "play_mode")
    if not _may_half_first(state):
        raise IllegalActionError(
            "half-whist after whisting is only for the first defender when the second passed, "
            "on 6 and 7, under gentleman's whist"
        )
    d1, d2 = _defenders(state)
    events = [Event("defended", {"seat": d1, "call": "half"})]
    state = _evolve(
        state,
        phase="defence",
        defence=(*state.defence, (d1, "half")),
        calls=((d1, "half"), (d2, "pass")),
        whisters=(),
        stage="return",
        half_from=d1,
        to_move=d2,
    )
    return state, tuple(events)


def _why_not_call(state: DealState, call: str) -> str:
    assert isinstance(state.contract, Contract)
    if state.config.conventions.stalingrad and state.contract == Contract(6, "S"):
        return "6♠ is Stalingrad: both defenders must whist (R-W6)"
    if call == "half":
        if state.stage != "second":
            return "only the second defender may take half-whist (R-W4)"
        if state.contract.level not in (6, 7):
            return "half-whist exists only on 6 and 7 (R-W4)"
        if not state.config.conventions.half_whist:
            return "half-whist is not played under these conventions"
        return "half-whist only after the first defender passed (R-W4)"
    if state.stage in ("return", "return_dealer"):
        return "after a half-whist you may only return the whist or pass (R-W4)"
    return f"{call} is not a defence call"


def _apply_return_whist(
    state: DealState, action: ReturnWhist
) -> tuple[DealState, tuple[Event, ...]]:
    _require(state, action.seat, "defence")
    if state.stage not in ("return", "return_dealer"):
        raise IllegalActionError("a whist can be returned only after a half-whist (R-W4)")
    d1, d2 = _defenders(state)
    seat = action.seat
    half = state.half_from
    assert half is not None
    events = [Event("whist_returned", {"seat": seat, "from": half})]
    calls: dict[int, DefenceCall] = {d1: "pass", d2: "pass"}
    calls[seat] = "whist"
    state = _evolve(
        state,
        defence=(*state.defence, (seat, "return")),
        calls=tuple(calls.items()),
        returned_from=half,
    )
    # R-W4: after a returned whist the game is played open, the returner the only whister.
    return _start_play(state, events, whisters=(seat,), mode="open", controller=seat)


def _apply_choose(state: DealState, action: ChoosePlay) -> tuple[DealState, tuple[Event, ...]]:
    _require(state, action.seat, "play_mode")
    if action.mode not in ("open", "closed"):
        raise IllegalActionError("choose open or closed play (R-W3)")
    events = [Event("play_chosen", {"seat": action.seat, "mode": action.mode})]
    if action.mode == "closed":
        return _start_play(state, events, whisters=state.whisters, mode="closed")
    return _start_play(
        state, events, whisters=state.whisters, mode="open", controller=action.seat
    )


# ---- play


def _start_play(
    state: DealState,
    events: list[Event],
    *,
    whisters: tuple[int, ...],
    mode: PlayMode,
    open_mask: int | None = None,
    controller: int | None = None,
    now: bool = False,
) -> tuple[DealState, tuple[Event, ...]]:
    """Set up trick play after the contract and defence (R-W3, R-W7, R-W9, R-W10)."""
    declarer = state.declarer
    assert declarer is not None
    d1, d2 = _defenders(state)
    controllers = list(range(state.players))
    if controller is not None:
        controllers[d1] = controllers[d2] = controller
        if open_mask is None:
            open_mask = (1 << d1) | (1 << d2)
    open_mask = open_mask or 0
    leader = state.forehand
    pending = 0
    if open_mask and leader == declarer and not now:
        # R-W3, R-W10: the declarer leads blind; the defenders lay down after his card.
        pending, open_mask = open_mask, 0
    state = _evolve(
        state,
        phase="play",
        stage="",
        whisters=whisters,
        play_mode=mode,
        controllers=tuple(controllers),
        open_seats=open_mask,
        open_pending=pending,
        leader=leader,
        turn=leader,
        to_move=controllers[leader],
    )
    if open_mask:
        events.append(_opened_event(state, open_mask))
    return state, tuple(events)


def _opened_event(state: DealState, mask: int) -> Event:
    hands = {str(s): mask_text(state.hands[s]) for s in range(state.players) if mask >> s & 1}
    return Event("hands_opened", {"hands": hands})


def _start_pass_out(
    state: DealState, events: list[Event]
) -> tuple[DealState, tuple[Event, ...]]:
    """R-R1..R-R3: no trumps; the talon cards lead the first two tricks."""
    return _turn_talon_card(state, events, 0)


def _talon_seat(state: DealState) -> int:
    return state.dealer if state.players == 4 else NO_SEAT


def _turn_talon_card(
    state: DealState, events: list[Event], index: int
) -> tuple[DealState, tuple[Event, ...]]:
    card = state.talon[index]
    fh = state.forehand
    events.append(Event("talon_card_turned", {"card": card_text(card), "trick": index + 1}))
    state = _evolve(
        state,
        trick=((_talon_seat(state), card),),
        talon_shown=index + 1,
        leader=_talon_seat(state),
        turn=fh,
        to_move=fh,
    )
    return state, tuple(events)


def _trump(state: DealState) -> int | None:
    return state.trump


def _trump_of(contract: ContractCall) -> int | None:
    if contract == "misere":
        return None
    assert isinstance(contract, Contract)
    return _TRUMPS[contract.strain]


_TRUMPS = {"S": 0, "C": 1, "D": 2, "H": 3, "NT": None}


def _apply_play(state: DealState, action: PlayCard) -> tuple[DealState, tuple[Event, ...]]:
    # The hot path of every deal: one legality test on masks, one state copy per card.
    attrs = state.__dict__
    if attrs["phase"] != "play" or attrs["to_move"] != action.seat:
        _require(state, action.seat, "play")
    hand_seat = attrs["turn"]
    assert hand_seat is not None
    card = action.card
    if type(card) is not int or not 0 <= card < 32:
        raise IllegalCardError(f"{card!r} is not a card")
    hands = attrs["hands"]
    hand = hands[hand_seat]
    trick = attrs["trick"]
    led = trick[0][1] >> 3 if trick else None
    trump = attrs["trump"]
    if not legal_cards(hand, led, trump) >> card & 1:
        try:
            check_card(hand, card, led, trump)
        except IllegalCardError as error:
            if hand_seat != action.seat:
                raise IllegalCardError(f"seat {hand_seat}: {error}") from None
            raise
    # Build the next state by copying the attribute dict once and editing the copy, which is
    # not shared with anyone until it is returned.
    new = object.__new__(DealState)
    na = new.__dict__
    na.update(attrs)
    events: list[Event] = []
    if attrs["proposal"] is not None:
        events.append(Event("result_withdrawn", {}))
        na["proposal"] = None
        na["accepted"] = 0
    events.append(
        Event("card_played", {"seat": hand_seat, "card": CARD_TEXTS[card], "by": action.seat})
    )
    na["hands"] = (*hands[:hand_seat], hand & ~(1 << card), *hands[hand_seat + 1 :])
    na["trick"] = trick = (*trick, (hand_seat, card))
    opened = 0
    if attrs["open_pending"] and hand_seat == attrs["declarer"]:
        opened = attrs["open_pending"]
        na["open_seats"] = attrs["open_seats"] | opened
        na["open_pending"] = 0
        events.append(_opened_event(new, opened))
    # A trick has three players' cards; a pass-out's talon lead is one card more (R-R2, R-R3).
    size = 4 if attrs["kind"] == "pass_out" and attrs["tricks_done"] < 2 else 3
    if len(trick) < size:
        config = attrs["config"]
        nxt = NEXT_PLAYING[config.players][config.dealer][hand_seat]
        na["turn"] = nxt
        na["to_move"] = attrs["controllers"][nxt]
        return new, (events[0],) if len(events) == 1 else tuple(events)
    return _close_trick(new, trick, events)


def _trick_winner(state: DealState, trick: tuple[tuple[int, Card], ...]) -> int:
    led = trick[0][1] >> 3
    trump = _trump(state)
    candidates = trick
    if state.kind == "pass_out" and state.players == 3 and state.tricks_done < 2:
        # R-R2: the talon card only sets the suit; the highest of the players' cards wins.
        candidates = trick[1:]
        if not any(c >> 3 == led for _, c in candidates):
            led = candidates[0][1] >> 3  # nobody followed: forehand's card sets the suit
    return trick_winner(candidates, led, trump)


def _close_trick(
    new: DealState, trick: tuple[tuple[int, Card], ...], events: list[Event]
) -> tuple[DealState, tuple[Event, ...]]:
    """Close the complete ``trick`` in ``new``, a fresh state no one else holds yet."""
    na = new.__dict__
    winner = _trick_winner(new, trick)
    done = na["tricks_done"] + 1
    events.append(
        Event(
            "trick_taken",
            {
                "seat": winner,
                "trick": done,
                "cards": [{"seat": s, "card": CARD_TEXTS[c]} for s, c in trick],
            },
        )
    )
    tricks = na["tricks"]
    na["trick"] = ()
    na["tricks_done"] = done
    na["last_trick"] = trick
    na["last_winner"] = winner
    na["history"] = (*na["history"], trick)
    na["tricks"] = (*tricks[:winner], tricks[winner] + 1, *tricks[winner + 1 :])
    passed_out = na["kind"] == "pass_out"
    if done == 10:
        return _finish(new, events, "played")
    if passed_out and done < 2:
        return _turn_talon_card(new, events, done)
    leader = winner
    if passed_out and done == 2:
        leader = new.forehand  # R-R2, R-R3: forehand leads the third trick
    na["leader"] = na["turn"] = leader
    na["to_move"] = na["controllers"][leader]
    return new, tuple(events)


def _finish(
    state: DealState, events: list[Event], reason: EndReason
) -> tuple[DealState, tuple[Event, ...]]:
    state = _evolve(state, phase="done", end=reason, to_move=None, turn=None, stage="")
    events.append(_ended_event(state))
    return state, tuple(events)


def _ended_event(state: DealState) -> Event:
    result = outcome(state)
    assert result is not None
    return Event(
        "deal_ended",
        {"reason": state.end, "outcome": outcome_to_json(result), "reveal": deal_reveal(state)},
    )


# ---- claims and agreed results (R-W11)


def _claim_dictator(state: DealState) -> int:
    """Who dictates a failed claimer's cards: the (first) whister, else the declarer's left."""
    if state.whisters:
        return state.whisters[0]
    return _defenders(state)[0]


def _apply_claim(state: DealState, action: Claim) -> tuple[DealState, tuple[Event, ...]]:
    if state.phase != "play" or state.kind not in ("game", "misere"):
        raise IllegalClaimError("claims are made during the play of a game or misère (R-W11)")
    seat = action.seat
    if seat != state.declarer:
        raise IllegalClaimError("only the declarer can claim (R-W11)")
    if state.claim_failed >> seat & 1:
        raise IllegalClaimError("your claim already failed; play the deal out")
    tricks = action.tricks
    turn = state.turn
    assert turn is not None
    remaining = state.hands[turn].bit_count()
    if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= remaining:
        raise IllegalClaimError(f"claim between 0 and {remaining} of the remaining tricks")
    misere = state.kind == "misere"
    if misere and tricks != 0:
        raise IllegalClaimError("on misère you can only claim that you take no more tricks")
    if not misere and tricks == 0:
        raise IllegalClaimError("claim at least one trick")
    if not misere and tricks < remaining and len(state.whisters) == 2:
        raise IllegalClaimError(
            "with two whisters only a claim of all the remaining tricks can be settled"
        )
    active = state.active
    pos = {s: i for i, s in enumerate(active)}
    hands3 = (state.hands[active[0]], state.hands[active[1]], state.hands[active[2]])
    trick = tuple((pos[s], c) for s, c in state.trick)
    leader = pos[state.trick[0][0]] if state.trick else pos[turn]
    holds = claim_holds(hands3, leader, trick, _trump(state), pos[seat], misere, tricks)
    everyone = (1 << active[0]) | (1 << active[1]) | (1 << active[2])
    if not holds:
        # R-W11 / 000: the claimer's cards are open and the defenders dictate his play.
        dictator = _claim_dictator(state)
        controllers = _set(state.controllers, seat, dictator)
        opened = (1 << seat) & ~state.open_seats
        state = _evolve(
            state,
            claim_failed=state.claim_failed | (1 << seat),
            controllers=controllers,
            open_seats=state.open_seats | (1 << seat),
            to_move=controllers[turn],
        )
        events = [Event("claim_rejected", {"seat": seat, "tricks": tricks, "dictator": dictator})]
        if opened:
            events.append(_opened_event(state, opened))
        return state, tuple(events)
    counts = list(state.tricks)
    rest = remaining - tricks
    if misere:
        counts[_defenders(state)[0]] += rest
    else:
        counts[seat] += tricks
        receiver = state.whisters[0] if state.whisters else _defenders(state)[0]
        if receiver not in state.active:
            receiver = _defenders(state)[0]  # the four-player dealer whists with their cards
        counts[receiver] += rest
    state = _evolve(state, tricks=tuple(counts), open_seats=state.open_seats | everyone)
    events = [Event("claim_accepted", {"seat": seat, "tricks": tricks})]
    return _finish(state, events, "claim")


def _result_seats(state: DealState) -> tuple[int, ...]:
    if state.kind == "pass_out" and state.players == 4:
        return tuple(range(4))
    return state.active


def _apply_propose(
    state: DealState, action: ProposeResult
) -> tuple[DealState, tuple[Event, ...]]:
    if state.phase != "play":
        raise IllegalClaimError("a result can be proposed during play (R-W11)")
    seat = action.seat
    if seat not in state.active:
        raise IllegalClaimError("only the players of this deal can propose a result")
    seats = _result_seats(state)
    try:
        proposed = {int(s): int(n) for s, n in action.tricks}
    except (TypeError, ValueError):
        raise IllegalClaimError("a result gives each seat's trick count") from None
    if sorted(proposed) != sorted(seats):
        raise IllegalClaimError(f"a result gives the tricks of seats {', '.join(map(str, seats))}")
    if sum(proposed.values()) != 10:
        raise IllegalClaimError("the proposed tricks must add up to 10")
    for s in seats:
        if proposed[s] < state.tricks[s]:
            raise IllegalClaimError(f"seat {s} already has {state.tricks[s]} tricks")
    if state.players == 4 and state.kind == "pass_out":
        dealer = state.dealer
        most = state.tricks[dealer] + max(0, 2 - state.tricks_done)
        if proposed[dealer] > most:
            raise IllegalClaimError(
                f"the dealer can win only the talon tricks: at most {most} (R-R3)"
            )
    tricks = tuple(sorted(proposed.items()))
    state = _evolve(state, proposal=(seat, tricks), accepted=1 << seat)
    event = Event(
        "result_proposed", {"seat": seat, "tricks": {str(s): n for s, n in tricks}}
    )
    return state, (event,)


def _apply_accept(state: DealState, action: AcceptResult) -> tuple[DealState, tuple[Event, ...]]:
    if state.proposal is None:
        raise IllegalClaimError("there is no proposed result to accept")
    seat = action.seat
    if seat not in state.active:
        raise IllegalClaimError("only the players of this deal can accept a result")
    accepted = state.accepted | (1 << seat)
    events = [Event("result_accepted", {"seat": seat})]
    if all(accepted >> s & 1 for s in state.active):
        counts = [0] * state.players
        for s, n in state.proposal[1]:
            counts[s] = n
        state = _evolve(state, tricks=tuple(counts), proposal=None, accepted=0)
        return _finish(state, events, "agreement")
    return _evolve(state, accepted=accepted), tuple(events)


def _apply_decline(
    state: DealState, action: DeclineResult
) -> tuple[DealState, tuple[Event, ...]]:
    if state.proposal is None:
        raise IllegalClaimError("there is no proposed result to decline")
    if action.seat not in state.active:
        raise IllegalClaimError("only the players of this deal can decline a result")
    state = _evolve(state, proposal=None, accepted=0)
    return state, (Event("result_declined", {"seat": action.seat}),)


_BIDS: tuple[tuple[Bid, ...], ...] = tuple(
    (Bid(seat, "pass"), Bid(seat, "here"), Bid(seat, "misere"),
     *(Bid(seat, c) for c in ALL_CONTRACTS))
    for seat in range(4)
)
"""Every call of each seat, built once: pass, here, misère, then the ladder (R-B2)."""

_Handler: TypeAlias = Callable[[DealState, Any], tuple[DealState, tuple[Event, ...]]]
_HANDLERS: dict[type[Any], _Handler] = {
    Cut: _apply_cut,
    Bid: _apply_bid,
    TakeTalon: _apply_take_talon,
    ReturnTalon: _apply_return_talon,
    Discard: _apply_discard,
    NameContract: _apply_name,
    Concede: _apply_concede,
    Defend: _apply_defend,
    ReturnWhist: _apply_return_whist,
    ChoosePlay: _apply_choose,
    PlayCard: _apply_play,
    Claim: _apply_claim,
    ProposeResult: _apply_propose,
    AcceptResult: _apply_accept,
    DeclineResult: _apply_decline,
}


# --------------------------------------------------------------------------------------------
# legal actions


def legal_cards_now(state: DealState) -> CardMask:
    """The mask of cards the hand due to play (``state.turn``) may play now (0 if none)."""
    attrs = state.__dict__
    turn = attrs["turn"]
    if attrs["phase"] != "play" or turn is None:
        return 0
    hand: int = attrs["hands"][turn]
    trick = attrs["trick"]
    if not trick:
        return hand  # a lead: any card
    led = SUIT_MASKS[trick[0][1] >> 3]
    follow: int = hand & led
    if follow:
        return follow
    trump = attrs["trump"]
    if trump is not None:
        trumps: int = hand & SUIT_MASKS[trump]
        if trumps:
            return trumps
    return hand


def legal_actions(state: DealState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now.

    Parametric actions are listed in their usual form only: a claim of all the remaining
    tricks (on misère: of none), no :class:`ProposeResult` (any legal proposal may be sent).
    """
    phase = state.phase
    out: list[Action] = []
    if phase == "done":
        return out
    if state.proposal is not None and seat in state.active and not state.accepted >> seat & 1:
        out.extend((AcceptResult(seat), DeclineResult(seat)))
    if phase == "play":
        if state.to_move == seat:
            out.extend(PlayCard(seat, c) for c in mask_cards(legal_cards_now(state)))
        if (
            seat == state.declarer
            and state.kind in ("game", "misere")
            and not state.claim_failed >> seat & 1
        ):
            assert state.turn is not None
            remaining = state.hands[state.turn].bit_count()
            out.append(Claim(seat, 0 if state.kind == "misere" else remaining))
        return out
    if (
        phase in ("discard", "contract", "defence", "play_mode")
        and seat == state.declarer
        and state.bid != "misere"
        and not state.talon_returned
    ):
        out.append(Concede(seat))
    if state.to_move != seat:
        return out
    if phase == "cut":
        cut_min = state.config.conventions.cut_min
        out.extend(Cut(seat, p) for p in range(cut_min, 32 - cut_min + 1))
    elif phase == "auction":
        auction = state.auction
        assert auction is not None
        cached = _BIDS[seat]
        out.append(cached[0])
        if auction.may_hold(auction.turn):
            out.append(cached[1])
        if auction.may_misere(auction.turn):
            out.append(cached[2])
        out.extend(cached[3 + auction.lowest_rank() // 2 :])
    elif phase == "talon":
        out.extend((TakeTalon(seat), ReturnTalon(seat)))
    elif phase == "discard":
        cards = mask_cards(state.hands[seat])
        out.extend(
            Discard(seat, (a, b)) for i, a in enumerate(cards) for b in cards[i + 1 :]
        )
    elif phase == "contract":
        bid = state.bid
        assert isinstance(bid, Contract)
        out.extend(NameContract(seat, c) for c in ALL_CONTRACTS[call_rank(bid) // 2 :])
    elif phase == "defence":
        out.extend(_defence_options(state))
    elif phase == "play_mode":
        out.extend((ChoosePlay(seat, "open"), ChoosePlay(seat, "closed")))
        if _may_half_first(state):
            out.append(Defend(seat, "half"))
    return out


# --------------------------------------------------------------------------------------------
# outcome, reveal, view


def deal_reveal(state: DealState) -> dict[str, Any]:
    """The R-D4 reveal (deck order, salt, cut, hands, talon) once the deal is over.

    :func:`app.rules.deck.verify_deal` re-checks it from the published texts alone.
    """
    if not state.finished or state.cut is None:
        raise RulesError("the deck is revealed only after the deal")
    return {
        "commitment": state.commitment,
        "deck": list(map(CARD_TEXTS.__getitem__, state.deck)),
        "salt": state.salt.hex(),
        "cut": state.cut,
        "players": state.players,
        "dealer": state.dealer,
        "hands": [mask_text(h) for h in state.dealt],
        "talon": [card_text(c) for c in state.talon],
    }


def outcome(state: DealState) -> DealOutcome | None:
    """What the score sheet needs of the deal, once it is over; ``None`` before."""
    if state.phase != "done":
        return None
    talon = (card_text(state.talon[0]), card_text(state.talon[1]))
    dealer = state.dealer
    if state.kind == "pass_out":
        return DealOutcome(
            dealer=dealer,
            kind="pass_out",
            tricks={s: state.tricks[s] for s in _result_seats(state)},
            talon=talon,
        )
    declarer = state.declarer
    returned = state.talon_returned  # R-C6: the sheet charges the dealer
    calls = dict(state.calls)
    tricks = {s: state.tricks[s] for s in state.active}
    if state.kind == "conceded":
        assert isinstance(state.contract, Contract)
        return DealOutcome(
            dealer=dealer,
            kind="conceded",
            declarer=declarer,
            contract=state.contract,
            defence=calls,
            talon=talon,
            talon_returned=returned,
        )
    if state.kind == "misere":
        return DealOutcome(
            dealer=dealer,
            kind="misere",
            declarer=declarer,
            play="open",
            tricks=tricks,
            talon=talon,
            talon_returned=returned,
        )
    assert isinstance(state.contract, Contract)
    played = state.end not in ("without_play", "half_whist")
    return DealOutcome(
        dealer=dealer,
        kind="game",
        declarer=declarer,
        contract=state.contract,
        defence=calls,
        returned_from=state.returned_from,
        play=state.play_mode if played else None,
        tricks=tricks if played else None,
        talon=talon,
        talon_returned=returned,
    )


def _trick_json(trick: Iterable[tuple[int, Card]]) -> list[dict[str, Any]]:
    return [{"seat": s, "card": card_text(c)} for s, c in trick]


def visible_cards(state: DealState, seat: int | None) -> CardMask:
    """Every card ``seat`` may see now (``None``: a spectator); used by :func:`view` and tests."""
    if state.finished:
        return ALL_CARDS
    mask = 0
    for s in range(state.players):
        if state.open_seats >> s & 1 or s == seat:
            mask |= state.hands[s]
    if state.kind != "pass_out" and state.talon_shown == 2:
        mask |= (1 << state.talon[0]) | (1 << state.talon[1])
    if (
        seat is not None
        and seat == state.declarer
        and not state.history
        and not state.trick
    ):
        mask |= state.discard  # R-C3: the declarer sees his discard until the first lead
    for _, card in state.trick:
        mask |= 1 << card
    for _, card in state.last_trick:
        mask |= 1 << card
    return mask


def view(state: DealState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see now, JSON-ready (``None``: a spectator sees what all players see).

    Hidden: other players' hands (unless laid open), the talon before it is shown, the discard
    (except to the declarer before the first lead, R-C3) and every closed trick but the last
    (R-W8). Once the deal is over everything is shown, with the deck and salt (R-D4).
    """
    if seat is not None and not (
        isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state.players
    ):
        raise RulesError(f"there is no seat {seat!r} at this table")
    done = state.finished
    auction = state.auction
    out: dict[str, Any] = {
        "players": state.players,
        "dealer": state.dealer,
        "forehand": state.forehand,
        "cutter": state.cutter,
        "seat": seat,
        "phase": state.phase,
        "to_move": state.to_move,
        "turn": state.turn,
        "commitment": state.commitment,
        "cut": state.cut,
        "min_level": state.config.min_level,
        "conventions": state.config.conventions.preset,
        "auction": [
            {"seat": s, "call": call_text(c)} for s, c in (auction.calls if auction else ())
        ],
        "declarer": state.declarer,
        "bid": call_text(state.bid) if state.bid is not None else None,
        "talon_returned": state.talon_returned,
        "contract": call_text(state.contract) if state.contract is not None else None,
        "defence": [{"seat": s, "call": c} for s, c in state.defence],
        "whisters": list(state.whisters),
        "play_mode": state.play_mode,
        "kind": state.kind,
        "hand_sizes": {str(s): state.hands[s].bit_count() for s in state.active}
        if state.hands
        else {},
        "hand": mask_text(state.hands[seat]) if seat is not None and state.hands else [],
        "open_hands": {
            str(s): mask_text(state.hands[s])
            for s in range(state.players)
            if state.hands and (done or state.open_seats >> s & 1)
        },
        "talon": None,
        "discard": None,
        "trick": _trick_json(state.trick),
        "trick_leader": state.leader if state.phase == "play" else None,
        "last_trick": _trick_json(state.last_trick) if state.last_trick else None,
        "last_trick_winner": state.last_winner,
        "tricks": {str(s): state.tricks[s] for s in range(state.players)} if state.tricks else {},
        "tricks_played": state.tricks_done,
        "proposal": None,
        "finished": done,
    }
    if state.talon:
        if state.kind == "pass_out":
            # R-R2/R-R3: only the talon card leading the current trick is public (it is in it).
            out["talon"] = mask_text(
                sum(1 << c for c in state.talon[: state.talon_shown]) & visible_cards(state, seat)
            )
        elif state.talon_shown == 2 or done:
            out["talon"] = [card_text(c) for c in state.talon]
    before_lead = not state.history and not state.trick
    if state.discard and (done or (seat == state.declarer and before_lead)):
        out["discard"] = mask_text(state.discard)
    if state.proposal is not None:
        proposer, tricks = state.proposal
        out["proposal"] = {
            "seat": proposer,
            "tricks": {str(s): n for s, n in tricks},
            "accepted": [s for s in range(state.players) if state.accepted >> s & 1],
        }
    if done:
        result = outcome(state)
        assert result is not None
        out["end"] = state.end
        out["outcome"] = outcome_to_json(result)
        out["dealt"] = {str(s): mask_text(state.dealt[s]) for s in state.active}
        out["history"] = [_trick_json(t) for t in state.history]
        if state.cut is not None:
            out["reveal"] = deal_reveal(state)
    return out


# --------------------------------------------------------------------------------------------
# replay


def replay(
    config: DealConfig, deck: Sequence[int], salt: bytes, actions: Iterable[Action]
) -> tuple[DealState, tuple[Event, ...]]:
    """Rebuild a deal from its inputs and the applied actions; equal to the live state."""
    state = new_deal(config, deck, salt)
    events: list[Event] = list(start_events(state))
    for action in actions:
        state, new = apply(state, action)
        events.extend(new)
    return state, tuple(events)
