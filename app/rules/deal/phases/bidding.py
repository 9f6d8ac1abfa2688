"""The auction phase of a deal (R-B1..R-B8): calls in turn until it is won or passed out.

The shared ladder and its rules live in the :class:`~app.rules.core.auction.Auction` value:
:meth:`~app.rules.core.auction.Auction.call` (used by :func:`apply_bid`) and the ``may_*`` and
``lowest_rank`` queries (used by :func:`bid_options`) are its one source of legality. A rule set
with calls of its own gives them through its deal hooks (``bid_options``, ``auction_call``,
``auction_won``, ``face_down``, ``picked_up``; :mod:`app.rules.deal.deal_rules`). Here the
result is carried into the deal: a won auction shows the talon and goes to the talon phase
(R-C1, R-C6), a passed-out one to pass-out play (R-R1).
"""

from __future__ import annotations

from app.rules.core.actions import Action, Bid, Event, PickUp
from app.rules.core.auction import ALL_CONTRACTS, Auction, call_text, first_with_talon
from app.rules.core.cards import card_text
from app.rules.core.seats import TABLE_SIZES
from app.rules.deal.deal_rules import deal_rules_of
from app.rules.deal.phases.contract import take_talon
from app.rules.deal.phases.tricks import start_pass_out
from app.rules.deal.state import DealState, OutOfTurnError, Transition, evolve, require_turn

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


def blind(state: DealState, seat: int | None) -> bool:
    """Is ``seat``'s own hand still face down (A-10, A-11: it may yet call in the dark)? The
    rule set's ``face_down`` hook; the shared rules deal every hand face up."""
    if seat is None or state.auction is None or state.phase != "auction":
        return False
    return deal_rules_of(state.config).face_down(state, seat)


def pick_up_options(state: DealState, seat: int) -> list[Action]:
    """A seat whose cards are face down may pick them up at any time (A-10, A-11)."""
    return [PickUp(seat)] if blind(state, seat) else []


def apply_pick_up(state: DealState, action: PickUp) -> Transition:
    """The seat picks up its cards and so gives up its dark call (A-10, A-11)."""
    if not blind(state, action.seat):
        raise OutOfTurnError("your cards are already in your hand (A-10, A-11)")
    state = deal_rules_of(state.config).picked_up(state, action.seat)
    return state, (Event("cards_picked_up", {"seat": action.seat}),)


def bid_options(state: DealState, seat: int) -> list[Action]:
    """Every call ``seat`` (the seat to call) may make now."""
    custom = deal_rules_of(state.config).bid_options(state, seat)
    if custom is not None:
        return custom
    auction = state.auction
    assert auction is not None
    cached = _BIDS[seat]
    out: list[Action] = [cached[0]]
    if auction.may_hold(auction.turn):
        out.append(cached[1])
    if auction.may_misere(auction.turn):
        out.append(cached[2])
    out.extend(cached[3 + first_with_talon(auction.lowest_rank()) :])
    return out


def apply_bid(state: DealState, action: Bid) -> Transition:
    """One call; the auction value refuses an illegal one (R-B8)."""
    rules = deal_rules_of(state.config)
    custom = rules.apply_bid(state, action)
    if custom is not None:
        return custom
    require_turn(state, action.seat, "auction")
    if state.invited is not None:
        raise OutOfTurnError("the dealer is answering a misère invitation (R-B9)")
    assert state.auction is not None
    auction = rules.auction_call(state.auction, action.call)
    events: list[Event] = [Event("called", {"seat": action.seat, "call": call_text(action.call)})]
    if not auction.finished:
        return evolve(state, auction=auction, to_move=auction.seat_to_call), tuple(events)
    if auction.passed_out:
        events.append(Event("pass_out", {}))
        state = evolve(state, auction=auction, kind="pass_out", phase="play")
        return start_pass_out(state, events)
    custom = rules.auction_won(evolve(state, auction=auction), events)
    if custom is not None:
        return custom
    return won(state, auction, events)


def won(state: DealState, auction: Auction, events: list[Event]) -> Transition:
    """The auction is won: the ``auction_won`` event, the talon shown and taken (R-C1, R-C6)."""
    winner = auction.winner
    assert winner is not None
    declarer = auction.order[winner]
    bid = auction.winning_call()
    assert bid is not None
    events.append(Event("auction_won", {"seat": declarer, "bid": call_text(bid)}))
    events.append(Event("talon_shown", {"cards": [card_text(c) for c in state.talon]}))
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
