"""Claims (R-W11, R-W9's solver proof) and results ended by agreement."""

from __future__ import annotations

import random

import pytest

from app.rules import (
    AcceptResult,
    Claim,
    Contract,
    DeclineResult,
    Defend,
    Discard,
    IllegalActionError,
    NameContract,
    PlayCard,
    ProposeResult,
    apply,
    best_tricks,
    claim_holds,
    legal_actions,
    outcome,
    view,
)
from app.rules.core.cards import cards_mask
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, brute_value, cards, plays, run, start


def m(text: str) -> int:
    return cards_mask(cards(text))


def test_solver_simple_endings() -> None:
    # misère: the declarer's 7♠ under 8♠ and 9♠ never wins
    assert claim_holds((m("7S"), m("8S"), m("9S")), 0, (), None, 0, True, 0)
    assert not claim_holds((m("AS"), m("8S"), m("9S")), 0, (), None, 0, True, 0)
    # a choice: lead ♠A then lose the club; one trick holds, two do not
    hands = (m("AS 7C"), m("KS 8C"), m("QS 9C"))
    assert claim_holds(hands, 0, (), None, 0, False, 1)
    assert not claim_holds(hands, 0, (), None, 0, False, 2)
    assert best_tricks(hands, 0, (), None, 0) == 1
    # trumps: ♥ leads are ruffed
    hands = (m("AS KS"), m("AH KH"), m("QH JH"))
    assert claim_holds(hands, 1, (), 0, 0, False, 2)


@pytest.mark.parametrize("seed", range(6))
def test_solver_agrees_with_brute_force_on_random_endings(seed: int) -> None:
    """R-W11: a claim is accepted exactly when no defence can deny it."""
    rng = random.Random(seed)
    for _ in range(40):
        size = rng.randint(1, 4)
        deck = rng.sample(range(32), 3 * size)
        hands = (
            cards_mask(deck[:size]),
            cards_mask(deck[size : 2 * size]),
            cards_mask(deck[2 * size :]),
        )
        trump = rng.choice([None, 0, 1, 2, 3])
        declarer = rng.randrange(3)
        leader = rng.randrange(3)
        misere = rng.random() < 0.3
        if misere:
            trump = None
        exact = brute_value(hands, leader, (), trump, declarer, misere)
        for k in range(size + 1):
            if misere:
                assert claim_holds(hands, leader, (), trump, declarer, True, k) == (exact <= k)
            else:
                assert claim_holds(hands, leader, (), trump, declarer, False, k) == (exact >= k)
        assert best_tricks(hands, leader, (), trump, declarer, misere) == exact


def test_solver_from_inside_a_trick() -> None:
    rng = random.Random(99)
    for _ in range(60):
        size = 3
        deck = rng.sample(range(32), 9)
        hands = [cards_mask(deck[:3]), cards_mask(deck[3:6]), cards_mask(deck[6:])]
        leader = rng.randrange(3)
        trump = rng.choice([None, 0])
        # the leader plays one card
        card = deck[3 * leader]
        hands[leader] ^= 1 << card
        trick = ((leader, card),)
        h = (hands[0], hands[1], hands[2])
        exact = brute_value(h, leader, trick, trump, 1, False)
        for k in range(size + 1):
            assert claim_holds(h, leader, trick, trump, 1, False, k) == (exact >= k)


def test_solver_full_deal_is_fast() -> None:
    import time

    rng = random.Random(4)
    for _ in range(3):
        deck = rng.sample(range(32), 30)
        hands = (cards_mask(deck[:10]), cards_mask(deck[10:20]), cards_mask(deck[20:]))
        started = time.perf_counter()
        best_tricks(hands, 0, (), rng.choice([None, 0, 3]), 0)
        assert time.perf_counter() - started < 10


def nt_by_seat1(contract: str = "6NT"):  # type: ignore[no-untyped-def]
    """Dealer 2: forehand 0 (♦ and ♥) leads against seat 1's NT; both whist."""
    from app.rules import parse_contract

    state = bids(start(LAYOUT, LAYOUT_TALON, dealer=2), "pass", contract, "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, parse_contract(contract)),
        Defend(2, "whist"),
        Defend(0, "whist"),
    )
    return state


def test_r_w11_claim_that_holds_ends_the_deal() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON, dealer=2), "pass", "6S", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(6, "S")),
        Defend(2, "whist"),
        Defend(0, "whist"),
    )
    assert Claim(1, 10) in legal_actions(state, 1)
    state, events = apply(state, Claim(1, 10))
    assert state.finished and state.end == "claim"
    assert [e.type for e in events][:1] == ["claim_accepted"]
    assert outcome(state).tricks == {0: 0, 1: 10, 2: 0}  # type: ignore[union-attr]


def test_r_w11_failed_claim_opens_the_hand_and_defenders_dictate() -> None:
    state = nt_by_seat1()
    state, events = apply(state, Claim(1, 10))  # ♥ tricks are lost: it fails
    assert not state.finished
    assert [e.type for e in events] == ["claim_rejected", "hands_opened"]
    assert state.open_seats >> 1 & 1 and "1" in view(state, None)["open_hands"]
    state = plays(state, "AH")
    assert state.turn == 1 and state.to_move == 2  # the first whister plays the claimer's card
    assert legal_actions(state, 1) == []  # and no second claim
    with pytest.raises(IllegalActionError, match="already failed"):
        apply(state, Claim(1, 3))
    state, _ = apply(state, PlayCard(2, cards("7S")[0]))
    assert state.turn == 2 and state.to_move == 2


def test_r_w11_partial_claims() -> None:
    state = nt_by_seat1()
    # issue 12: a partial claim against two whisters is settled on its merits (it fails here)
    _, events = apply(state, Claim(1, 4))
    assert events[0].type == "claim_rejected"
    with pytest.raises(IllegalActionError):
        apply(state, Claim(1, 11))


def test_r_w11_partial_claim_with_one_whister_gives_the_rest_to_him() -> None:
    from app.rules import ChoosePlay, Conventions

    sochi = Conventions.preset_named("sochi")  # no Stalingrad: one whister on 6♠
    state = bids(start(LAYOUT, LAYOUT_TALON, conventions=sochi), "6S", "pass", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(6, "S")),
        Defend(2, "whist"),
        Defend(0, "pass"),
        ChoosePlay(2, "closed"),
    )
    state, _ = apply(state, Claim(1, 8))
    assert state.finished
    assert outcome(state).tricks == {0: 0, 1: 8, 2: 2}  # type: ignore[union-attr]


def test_r_w11_squeezed_claim_fails() -> None:
    """6NT by seat 1 with one whister: ♣A K are not sure tricks (he runs out of guards)."""
    from app.rules import ChoosePlay, parse_contract

    state = bids(start(LAYOUT, LAYOUT_TALON, dealer=2), "pass", "6NT", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, parse_contract("6NT")),
        Defend(2, "pass"),
        Defend(0, "whist"),
        ChoosePlay(0, "closed"),
    )
    state, events = apply(state, Claim(1, 1))
    assert events[0].type == "claim_rejected" and not state.finished
    assert events[0].data["dictator"] == 0


def test_r_w11_misere_claim() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "misere", "pass", "pass")
    state, _ = run(state, Discard(1, tuple(cards("8H 7H"))))  # type: ignore[arg-type]
    assert Claim(1, 0) in legal_actions(state, 1)
    with pytest.raises(IllegalActionError, match="no more tricks"):
        apply(state, Claim(1, 1))
    state, events = apply(state, Claim(1, 0))  # ♠A and friends: the misère is caught
    assert events[0].type == "claim_rejected" and not state.finished


def test_agreement_ends_the_deal_with_the_stated_result() -> None:
    state = nt_by_seat1()
    proposal = ProposeResult(0, ((0, 5), (1, 4), (2, 1)))
    state, _ = apply(state, proposal)
    assert view(state, None)["proposal"]["tricks"] == {"0": 5, "1": 4, "2": 1}
    assert AcceptResult(1) in legal_actions(state, 1)
    declined, events = apply(state, DeclineResult(2))
    assert declined.proposal is None and events[0].type == "result_declined"
    state, _ = apply(state, AcceptResult(1))
    assert not state.finished
    state, events = apply(state, AcceptResult(2))
    assert state.finished and state.end == "agreement"
    assert outcome(state).tricks == {0: 5, 1: 4, 2: 1}  # type: ignore[union-attr]


def test_agreement_must_be_consistent() -> None:
    state = nt_by_seat1()
    with pytest.raises(IllegalActionError, match="add up to 10"):
        apply(state, ProposeResult(0, ((0, 5), (1, 4), (2, 0))))
    with pytest.raises(IllegalActionError):
        apply(state, ProposeResult(0, ((0, 5), (1, 5))))
    state = plays(state, "AH", "7S", "7C")  # seat 1 ruffs nothing in NT; ♥A wins for seat 0
    with pytest.raises(IllegalActionError, match="already has 1"):
        apply(state, ProposeResult(1, ((0, 0), (1, 10), (2, 0))))
    state, _ = apply(state, ProposeResult(1, ((0, 5), (1, 5), (2, 0))))
    state, events = apply(state, PlayCard(0, cards("KH")[0]))
    assert state.proposal is None and events[0].type == "result_withdrawn"
