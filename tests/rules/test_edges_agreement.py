"""Issue 12 rule edge: an agreed result (R-W11) needs the four-player dealer's agreement, and
his talon tricks of a pass-out (R-R3, R-R4) are part of it."""

from __future__ import annotations

import pytest

from app.rules import (
    AcceptResult,
    DeclineResult,
    IllegalActionError,
    ProposeResult,
    apply,
    legal_actions,
    outcome,
    view,
)
from tests.support.engine import bids, plays, start

# Dealer 0 holds no cards; the talon ♦7 ♥7 are the lowest of their suits, so the dealer can
# win no talon trick while seat 3 follows suit (R-R3).
FOUR = {
    1: "AS KS QS JS 10S 9S 8S 7S AC KC",
    2: "QC JC 10C 9C 8C 7C AD KD QD JD",
    3: "10D 9D 8D AH KH QH JH 10H 9H 8H",
}
TALON = "7D 7H"


def passed_out_four():  # type: ignore[no-untyped-def]
    return bids(start(FOUR, TALON, players=4, dealer=0), "pass", "pass", "pass")


def test_r_w11_three_players_cannot_write_the_dealer_talon_tricks_alone() -> None:
    """R-W11 + R-R4: giving the dealer two tricks costs him his zero-trick bonus; he must agree."""
    state = passed_out_four()
    proposal = ProposeResult(1, ((0, 2), (1, 3), (2, 3), (3, 2)))
    state, _ = apply(state, proposal)
    state, _ = apply(state, AcceptResult(2))
    state, _ = apply(state, AcceptResult(3))
    assert not state.finished  # the dealer has not agreed
    assert view(state, 0)["proposal"]["accepted"] == [1, 2, 3]
    assert AcceptResult(0) in legal_actions(state, 0)
    assert DeclineResult(0) in legal_actions(state, 0)
    declined, events = apply(state, DeclineResult(0))
    assert declined.proposal is None and events[0].type == "result_declined"
    state, _ = apply(state, AcceptResult(0))
    assert state.finished and state.end == "agreement"
    assert outcome(state).tricks == {0: 2, 1: 3, 2: 3, 3: 2}  # type: ignore[union-attr]


def test_r_w11_the_dealer_may_propose_and_his_talon_tricks_count() -> None:
    """R-R3: once the talon tricks are played the dealer's count is fixed in any agreement."""
    state = passed_out_four()
    state = plays(state, "7S", "JD", "8D", "8S", "8C", "8H")  # both talon cards beaten
    assert state.tricks == (0, 0, 1, 1)
    with pytest.raises(IllegalActionError, match="at most 0"):
        apply(state, ProposeResult(0, ((0, 1), (1, 3), (2, 3), (3, 3))))
    state, _ = apply(state, ProposeResult(0, ((0, 0), (1, 4), (2, 3), (3, 3))))
    assert view(state, 1)["proposal"]["seat"] == 0
    for seat in (1, 2):
        state, _ = apply(state, AcceptResult(seat))
    assert not state.finished
    state, _ = apply(state, AcceptResult(3))
    assert state.finished
    assert outcome(state).tricks == {0: 0, 1: 4, 2: 3, 3: 3}  # type: ignore[union-attr]
