"""The classic auction phase (seed 003, K-3..K-6): suits without the talon, then the talon bought.

:mod:`app.rules.phases.auction` hands a deal played under the ``classic`` preset here. A suit
won in the bidding is played at once without the talon (K-4): the contract is named and the
defence follows. If every suit call was a pass, the talon is offered in turn (K-5); the buyer
takes it, discards two and names a suit (the shared talon and contract phases, K-5); if all
three pass it, the deal ends and is dealt again (K-6).
"""

from __future__ import annotations

from app.rules.actions import Action, Bid, Event, TakeTalon
from app.rules.auction import call_text, contract_from_rank
from app.rules.cards import card_text
from app.rules.classic import is_classic
from app.rules.classic_auction import bought, buying, classic_call, classic_calls
from app.rules.phases.contract import apply_take_talon, name_contract, take_talon
from app.rules.phases.outcome import finish
from app.rules.state import (
    DealState,
    IllegalContractError,
    Transition,
    evolve,
    require_turn,
)


def classic_bid_options(state: DealState, seat: int) -> list[Action]:
    """Every call of the seat to call, and buying the talon when it is offered (K-3, K-5)."""
    auction = state.auction
    assert auction is not None
    out: list[Action] = [Bid(seat, call) for call in classic_calls(auction)]
    if buying(auction):
        out.append(TakeTalon(seat))
    return out


def apply_classic_bid(state: DealState, action: Bid) -> Transition:
    """One classic call: a suit wins without the talon, three talon passes redeal (K-3..K-6)."""
    require_turn(state, action.seat, "auction")
    assert state.auction is not None
    auction = classic_call(state.auction, action.call)
    events: list[Event] = [Event("called", {"seat": action.seat, "call": call_text(action.call)})]
    if not auction.finished:
        return evolve(state, auction=auction, to_move=auction.seat_to_call), tuple(events)
    if auction.passed_out:
        state = evolve(state, auction=auction, kind="redeal")
        return finish(state, events, "redeal")
    declarer = auction.order[auction.holder]
    bid = contract_from_rank(auction.high)
    events.append(Event("auction_won", {"seat": declarer, "bid": call_text(bid)}))
    state = evolve(state, auction=auction, declarer=declarer, bid=bid, kind="game")
    return name_contract(state, bid, events)  # K-4: no talon; it stays face down


def apply_take(state: DealState, action: TakeTalon) -> Transition:
    """Take the talon: in a classic auction, buy it (K-5); otherwise the shared R-C6 step."""
    if not (state.phase == "auction" and is_classic(state.config.conventions)):
        return apply_take_talon(state, action)
    require_turn(state, action.seat, "auction")
    auction = state.auction
    assert auction is not None
    if not buying(auction):
        raise IllegalContractError("the talon is offered only after all three passed (K-5)")
    events = [Event("talon_shown", {"cards": [card_text(c) for c in state.talon]})]
    state = evolve(
        state,
        auction=bought(auction),
        declarer=action.seat,
        talon_shown=2,
        kind="game",
        to_move=action.seat,
    )
    return take_talon(state, events)
