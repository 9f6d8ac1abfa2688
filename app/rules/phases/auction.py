"""The auction phase of a deal (R-B1..R-B8): calls in turn until it is won or passed out.

The ladder and every bidding rule live in the :class:`~app.rules.auction.Auction` value:
:meth:`~app.rules.auction.Auction.call` (used by :func:`apply_bid`) and the ``may_*`` and
``lowest_rank`` queries (used by :func:`bid_options`) are its one source of legality. Here the
result is carried into the deal: a won auction shows the talon and goes to the talon phase
(R-C1, R-C6), a passed-out one to pass-out play (R-R1).
"""

from __future__ import annotations

from app.rules.actions import Action, Bid, Event, PickUp
from app.rules.auction import ALL_CONTRACTS, LADDER, DarkBid, call_text, first_with_talon
from app.rules.cards import card_text
from app.rules.classic import is_classic
from app.rules.outcome import Contract
from app.rules.phases.classic import apply_classic_bid, classic_bid_options
from app.rules.phases.contract import name_contract, take_talon
from app.rules.phases.play import opened_event, start_pass_out
from app.rules.seats import TABLE_SIZES
from app.rules.state import (
    DealState,
    OutOfTurnError,
    Transition,
    defenders_of,
    evolve,
    require_turn,
)

_BIDS: tuple[tuple[Bid, ...], ...] = tuple(
    (
        Bid(seat, "pass"),
        Bid(seat, "here"),
        Bid(seat, "misere"),
        *(Bid(seat, c) for c in ALL_CONTRACTS),
    )
    for seat in range(max(TABLE_SIZES))
)
"""Every call of each seat, built once: pass, here, misère, then the ladder (R-B2)."""
_LADDER_BIDS: tuple[tuple[Bid, ...], ...] = tuple(
    tuple(Bid(seat, c) for c in LADDER) for seat in range(max(TABLE_SIZES))
)
"""Every contract bid of each seat with the games without the talon (A-12), in ladder order."""
_MISERE_BP = tuple(Bid(seat, "misere_bp") for seat in range(max(TABLE_SIZES)))
_PREFERANS = tuple(Bid(seat, "preferans") for seat in range(max(TABLE_SIZES)))
_DARK_BIDS: tuple[tuple[Bid, ...], ...] = tuple(
    (Bid(seat, "dark_pass"), *(Bid(seat, DarkBid(c)) for c in ALL_CONTRACTS))
    for seat in range(max(TABLE_SIZES))
)
"""A-10, A-11: each seat's dark pass, then its dark bids in ladder order."""


def blind(state: DealState, seat: int | None) -> bool:
    """A-10, A-11: is ``seat``'s own hand still face down (it may yet call in the dark)?"""
    auction = state.auction
    if seat is None or auction is None or not auction.blind or state.phase != "auction":
        return False
    active = state.active
    return seat in active and bool(auction.blind >> active.index(seat) & 1)


def pick_up_options(state: DealState, seat: int) -> list[Action]:
    """A-10, A-11: a seat whose cards are face down may pick them up at any time."""
    return [PickUp(seat)] if blind(state, seat) else []


def apply_pick_up(state: DealState, action: PickUp) -> Transition:
    """A-10, A-11: the seat picks up its cards and so gives up its dark call."""
    if not blind(state, action.seat):
        raise OutOfTurnError("your cards are already in your hand (A-10, A-11)")
    assert state.auction is not None
    auction = state.auction.picked_up(state.active.index(action.seat))
    return evolve(state, auction=auction), (Event("cards_picked_up", {"seat": action.seat}),)


def bid_options(state: DealState, seat: int) -> list[Action]:
    """Every call ``seat`` (the seat to call) may make now."""
    if is_classic(state.config.conventions):
        return classic_bid_options(state, seat)  # K-3, K-5
    auction = state.auction
    assert auction is not None
    cached = _BIDS[seat]
    out: list[Action] = [cached[0]]
    if auction.may_hold(auction.turn):
        out.append(cached[1])
    if auction.may_misere(auction.turn):
        out.append(cached[2])
    if auction.may_misere_bp(auction.turn):
        out.append(_MISERE_BP[seat])
    if auction.no_talon:
        out.extend(_LADDER_BIDS[seat][auction.lowest_rank() // 2 :])
    else:
        out.extend(cached[3 + first_with_talon(auction.lowest_rank()) :])
    if auction.may_preferans(auction.turn):
        out.append(_PREFERANS[seat])
    if auction.may_dark(auction.turn):
        dark = _DARK_BIDS[seat]
        out.append(dark[0])
        out.extend(dark[1 + first_with_talon(auction.lowest_dark_rank()) :])
    return out


def apply_bid(state: DealState, action: Bid) -> Transition:
    """One call; the auction value refuses an illegal one (R-B8)."""
    if is_classic(state.config.conventions):
        return apply_classic_bid(state, action)  # K-3..K-6
    require_turn(state, action.seat, "auction")
    if state.invited is not None:
        raise OutOfTurnError("the dealer is answering a misère invitation (R-B9)")
    assert state.auction is not None
    auction = state.auction.call(action.call)
    events: list[Event] = [Event("called", {"seat": action.seat, "call": call_text(action.call)})]
    if not auction.finished:
        return evolve(state, auction=auction, to_move=auction.seat_to_call), tuple(events)
    if auction.passed_out:
        events.append(Event("pass_out", {}))
        state = evolve(state, auction=auction, kind="pass_out", phase="play")
        return start_pass_out(state, events)
    winner = auction.winner
    assert winner is not None
    declarer = auction.order[winner]
    bid = auction.winning_call()
    assert bid is not None
    won: dict[str, object] = {"seat": declarer, "bid": call_text(bid)}
    if auction.high_dark:
        won["dark"] = True
    events.append(Event("auction_won", won))
    if bid == "misere_bp" or (isinstance(bid, Contract) and bid.no_talon):
        # a game or misère without the talon is played as bid; the talon stays closed.
        kind = "misere" if bid == "misere_bp" else "game"
        state = evolve(state, auction=auction, declarer=declarer, bid=bid, kind=kind)
        return name_contract(state, "misere" if bid == "misere_bp" else bid, events)
    if auction.high_dark:
        # the dark declarer looks at his cards and may still switch to misère before he
        # takes the talon; it stays face down until he does (TakeTalon or NameContract misère).
        state = evolve(
            state, auction=auction, declarer=declarer, bid=bid, kind="game", phase="talon",
            to_move=declarer,
        )
        return state, tuple(events)
    events.append(Event("talon_shown", {"cards": [card_text(c) for c in state.talon]}))
    if bid == "preferans":
        # the talon goes into his hand and the first defender discards for him.
        state = evolve(
            state,
            auction=auction,
            declarer=declarer,
            bid=bid,
            talon_shown=2,
            kind="game",
            open_seats=1 << declarer,  # his twelve cards lie open for the discard
        )
        state, _ = take_talon(state, events)
        events.append(opened_event(state.hands, 1 << declarer))
        return evolve(state, to_move=defenders_of(state)[0]), tuple(events)
    state = evolve(
        state,
        auction=auction,
        declarer=declarer,
        bid=bid,
        talon_shown=2,
        kind="misere" if bid == "misere" else "game",
        to_move=declarer,
    )
    # R-C6: with ``talon_return_penalty`` the declarer may still return the shown talon from
    # the discard phase (ReturnTalon before his discard), so no deal waits for an extra step.
    return take_talon(state, events)
