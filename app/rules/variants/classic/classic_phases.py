"""The classic auction phase (seed 003, K-3..K-6): suits without the talon, then the talon bought.

The classic rule set's auction hooks (:mod:`app.rules.variants.classic.classic_rules`) are
these functions. A suit
won in the bidding is played at once without the talon (K-4): the contract is named and the
defence follows. If every suit call was a pass, the talon is offered in turn (K-5); the buyer
takes it, discards two and names a suit (the shared talon and contract phases, K-5); if all
three pass it, the deal ends and is dealt again (K-6).
"""

from __future__ import annotations

from app.rules.core.actions import Action, Bid, Event, TakeTalon
from app.rules.core.auction import call_text, contract_from_rank
from app.rules.core.cards import card_text
from app.rules.deal.phases.contract import name_contract, take_talon
from app.rules.deal.phases.ending import finish
from app.rules.deal.state import (
    DealState,
    IllegalContractError,
    Transition,
    evolve,
    require_turn,
)
from app.rules.variants.classic.classic_bidding import bought, buying, classic_call, classic_calls


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


def apply_buy(state: DealState, action: TakeTalon) -> Transition | None:
    """Take the talon in the auction: buy it (K-5); ``None`` elsewhere (the shared R-C6 step)."""
    if state.phase != "auction":
        return None
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
