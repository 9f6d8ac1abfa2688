"""Issue 12 rule edge: R-W11 says "a player" may claim. A defender claims (or concedes) tricks
for his side, verified by the solver like the declarer's claims, and a partial claim is allowed
against two whisters (R-W2: the defence's tricks are split between them)."""

from __future__ import annotations

import pytest

from app.rules import (
    Claim,
    Contract,
    Defend,
    Discard,
    IllegalActionError,
    NameContract,
    apply,
    legal_actions,
    outcome,
    view,
)
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, cards, run, start


def six_spades_two_whisters():  # type: ignore[no-untyped-def]
    """Dealer 0: seat 1 (all eight spades, ♣A K) plays 6♠; seats 2 and 0 whist (R-W6)."""
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(6, "S")),
        Defend(2, "whist"),
        Defend(0, "whist"),
    )
    return state


def nt_by_seat1():  # type: ignore[no-untyped-def]
    """Dealer 2: seat 1 plays 6NT with no heart or diamond; seats 0 and 2 whist and can take
    all ten tricks (six hearts, then the diamonds)."""
    state = bids(start(LAYOUT, LAYOUT_TALON, dealer=2), "pass", "6NT", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(6, "NT")),
        Defend(2, "whist"),
        Defend(0, "whist"),
    )
    return state


def test_r_w11_partial_claim_against_two_whisters_splits_the_rest() -> None:
    """R-W11 + R-W2: the declarer's 8 of 10 holds; the two defence tricks go one to each."""
    state, events = apply(six_spades_two_whisters(), Claim(1, 8))
    assert events[0].type == "claim_accepted" and state.finished
    assert outcome(state).tricks == {0: 1, 1: 8, 2: 1}  # type: ignore[union-attr]


def test_r_w11_a_defender_claims_for_the_defence() -> None:
    """R-W11: whister 0 claims all ten against 6NT; the solver proves it; 5 and 5 (R-W2)."""
    state = nt_by_seat1()
    assert Claim(0, 10) in legal_actions(state, 0)
    assert Claim(2, 10) in legal_actions(state, 2)
    state, events = apply(state, Claim(0, 10))
    assert events[0].type == "claim_accepted" and state.end == "claim"
    assert outcome(state).tricks == {0: 5, 1: 0, 2: 5}  # type: ignore[union-attr]


def test_r_w11_a_defender_may_concede_tricks() -> None:
    """A defender concedes: his side takes 0 of the rest, the declarer all of them."""
    state, events = apply(six_spades_two_whisters(), Claim(2, 0))
    assert events[0].type == "claim_accepted"
    assert outcome(state).tricks == {0: 0, 1: 10, 2: 0}  # type: ignore[union-attr]


def test_r_w11_a_failed_defender_claim_opens_his_hand_and_the_declarer_dictates() -> None:
    """R-W11: the claim of two defence tricks against eight trumps fails; the claimer's
    opponent (the declarer) dictates his cards, and he cannot claim again."""
    state = six_spades_two_whisters()
    state, events = apply(state, Claim(2, 2))
    assert [e.type for e in events] == ["claim_rejected", "hands_opened"]
    assert events[0].data["dictator"] == 1
    assert not state.finished and "2" in view(state, 0)["open_hands"]
    assert state.controllers[2] == 1
    with pytest.raises(IllegalActionError, match="already failed"):
        apply(state, Claim(2, 1))
    assert not [a for a in legal_actions(state, 2) if isinstance(a, Claim)]


def test_r_w11_catchers_claim_on_misere() -> None:
    """R-W11 on misère: the catchers say they take at most one more trick, so the declarer
    (eight spades, ♣A K: every card wins) takes at least nine; the solver proves it."""
    state = bids(start(LAYOUT, LAYOUT_TALON), "misere", "pass", "pass")
    state, _ = run(state, Discard(1, tuple(cards("8H 7H"))))  # type: ignore[arg-type]
    assert Claim(2, 0) in legal_actions(state, 2)
    state, events = apply(state, Claim(2, 1))
    assert events[0].type == "claim_accepted"
    assert outcome(state).tricks == {0: 0, 1: 9, 2: 1}  # type: ignore[union-attr]
