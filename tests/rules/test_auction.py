"""The auction, R-B1..R-B8 (and the exits of R-R6 through DealConfig.min_level)."""

from __future__ import annotations

import pytest

from app.rules import (
    Bid,
    Contract,
    IllegalActionError,
    IllegalBidError,
    apply,
    legal_actions,
    view,
)
from app.rules.core.auction import ALL_CONTRACTS, MISERE_RANK, call_rank, contract_rank
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, start


def fresh(**kwargs: object):  # type: ignore[no-untyped-def]
    return start(LAYOUT, LAYOUT_TALON, **kwargs)  # type: ignore[arg-type]


def calls_of(state, seat):  # type: ignore[no-untyped-def]
    return [a.call for a in legal_actions(state, seat) if isinstance(a, Bid)]


def test_r_b1_forehand_speaks_first_then_clockwise() -> None:
    state = fresh()
    assert state.phase == "auction" and state.to_move == 1
    state = bids(state, "6S")
    assert state.to_move == 2
    state = bids(state, "6C")
    assert state.to_move == 0


def test_r_b1_r_b8_call_out_of_turn_is_rejected_and_state_unchanged() -> None:
    state = fresh()
    with pytest.raises(IllegalActionError, match="not your turn"):
        apply(state, Bid(2, Contract(6, "S")))
    assert state.to_move == 1 and state.auction is not None and state.auction.calls == ()


def test_r_b1_pass_is_final() -> None:
    state = bids(fresh(), "pass", "6S", "6C")
    assert state.to_move == 2  # seat 1 passed and is skipped
    state = bids(state, "6D")
    assert state.to_move == 0
    with pytest.raises(IllegalActionError):
        apply(state, Bid(1, Contract(7, "S")))
    assert calls_of(state, 1) == []


def test_r_b2_ladder_order() -> None:
    ranks = [contract_rank(c) for c in ALL_CONTRACTS]
    assert ranks == sorted(ranks) and len(set(ranks)) == 25
    assert str(ALL_CONTRACTS[0]) == "6S" and str(ALL_CONTRACTS[4]) == "6NT"
    assert str(ALL_CONTRACTS[5]) == "7S" and str(ALL_CONTRACTS[-1]) == "10NT"
    assert contract_rank(Contract(8, "NT")) < MISERE_RANK < contract_rank(Contract(9, "S"))
    assert call_rank("misere") == MISERE_RANK


def test_r_b2_r_b8_bid_not_above_current_is_rejected_with_reason() -> None:
    state = bids(fresh(), "7D")
    with pytest.raises(IllegalBidError, match="7♣ is not above 7♦ held by seat 1"):
        apply(state, Bid(2, Contract(7, "C")))
    with pytest.raises(IllegalBidError, match="not above"):
        apply(state, Bid(2, Contract(7, "D")))


def test_r_b2_only_9s_or_higher_overbids_misere() -> None:
    state = bids(fresh(), "misere")
    assert Contract(8, "NT") not in calls_of(state, 2)
    with pytest.raises(IllegalBidError, match="not above misère"):
        apply(state, Bid(2, Contract(8, "NT")))
    assert calls_of(state, 2)[:2] == ["pass", Contract(9, "S")]
    state = bids(state, "9S")
    assert state.auction is not None and state.auction.holder == 1


def test_r_b3_lowest_opening_is_6s_and_everything_is_offered() -> None:
    offered = calls_of(fresh(), 1)
    assert offered[:3] == ["pass", "misere", Contract(6, "S")]
    assert len(offered) == 2 + 25


def test_r_r6_r_b3_minimum_level_after_pass_outs() -> None:
    state = fresh(min_level=7)
    with pytest.raises(IllegalBidError, match="lowest bid in this deal is 7♠"):
        apply(state, Bid(1, Contract(6, "NT")))
    assert calls_of(state, 1)[2] == Contract(7, "S")
    state = fresh(min_level=8)
    assert calls_of(state, 1)[2] == Contract(8, "S")
    # R-R6: whoever says "раз" after two pass-outs undertakes eight.
    state = bids(state, "8S", "pass", "pass")
    assert state.declarer == 1 and state.bid == Contract(8, "S")


def test_r_b4_jumps_are_allowed() -> None:
    state = bids(fresh(), "6S", "8NT")
    assert state.auction is not None and state.auction.high == contract_rank(Contract(8, "NT"))


def test_r_b5_most_senior_bidder_may_say_here_and_junior_must_raise() -> None:
    state = bids(fresh(), "6S", "6C")
    state = bids(state, "pass")  # seat 0 passes; forehand (1) is the most senior still bidding
    assert "here" in calls_of(state, 1)
    state = bids(state, "here")
    assert state.auction is not None and state.auction.holder == 0  # position 0 = forehand
    # the junior must now raise: 6♣ again is not above, and "here" is not his
    assert "here" not in calls_of(state, 2)
    with pytest.raises(IllegalBidError):
        apply(state, Bid(2, Contract(6, "C")))
    with pytest.raises(IllegalBidError, match="most senior"):
        apply(state, Bid(2, "here"))
    state = bids(state, "pass")
    assert state.declarer == 1 and state.bid == Contract(6, "C")


def test_r_b5_here_needs_a_bid_and_not_on_misere() -> None:
    state = fresh()
    assert "here" not in calls_of(state, 1)
    with pytest.raises(IllegalBidError, match="no bid to hold"):
        apply(state, Bid(1, "here"))
    state = bids(fresh(), "pass", "misere")
    assert "here" not in calls_of(state, 0)


def test_r_b5_junior_cannot_hold_while_a_senior_bids() -> None:
    state = bids(fresh(), "6S", "6C")
    assert "here" not in calls_of(state, 0)  # seat 0 is the third hand; forehand still bids
    with pytest.raises(IllegalBidError, match="most senior"):
        apply(state, Bid(0, "here"))


def test_r_b6_misere_only_as_first_call() -> None:
    state = bids(fresh(), "6S", "6C", "pass")
    assert "misere" not in calls_of(state, 1)
    with pytest.raises(IllegalBidError, match="first call"):
        apply(state, Bid(1, "misere"))
    state = bids(fresh(), "6S", "misere")
    assert state.auction is not None and state.auction.holder == 1


def test_r_b7_two_passes_make_the_remaining_bidder_declarer() -> None:
    state = bids(fresh(), "6S", "pass", "7H", "pass")
    assert state.declarer == 0 and state.bid == Contract(7, "H")
    assert state.phase == "discard"


def test_r_b7_the_last_player_may_still_bid_after_two_passes() -> None:
    state = bids(fresh(), "pass", "pass")
    assert state.to_move == 0 and state.phase == "auction"
    state = bids(state, "6S")
    assert state.declarer == 0 and state.phase == "discard"


def test_r_b7_all_pass_is_a_pass_out() -> None:
    state = bids(fresh(), "pass", "pass", "pass")
    assert state.kind == "pass_out" and state.phase == "play"
    assert state.declarer is None


def test_auction_history_is_public() -> None:
    state = bids(fresh(), "6S", "pass")
    for seat in (None, 0, 1, 2):
        assert view(state, seat)["auction"] == [
            {"seat": 1, "call": "6S"},
            {"seat": 2, "call": "pass"},
        ]


def test_four_players_dealer_does_not_bid() -> None:
    from tests.support.engine import start4

    state = start4()
    assert state.to_move == 1
    assert legal_actions(state, 0) == []
    state = bids(state, "pass", "pass", "pass")
    assert state.kind == "pass_out"
