"""The fast claim solver (app.rules.search.solver) against the simple reference search (R-W11,
R-W9).

The claim check must be exact: a claim is accepted exactly when no defence can deny it
(R-W11), on misère too (R-W10: no trumps, the declarer avoids tricks). The reference is the
former solver, kept in tests/rules/reference_solver.py as ``_reference_best_tricks`` /
``_reference_claim_holds``.
"""

from __future__ import annotations

import pickle

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from app.rules.core.play import legal_cards
from app.rules.search import solver
from app.rules.search.claims import best_tricks, claim_holds
from app.rules.search.solver import max_good_tricks, reaches
from bench.engine import solver_deals
from tests.rules.reference_solver import _reference_best_tricks, _reference_claim_holds

Hands = tuple[int, int, int]


@st.composite
def end_positions(
    draw: st.DrawFn,
) -> tuple[Hands, int, tuple[tuple[int, int], ...], int | None, int, bool]:
    """A random ending with 1..6 tricks left, sometimes inside a trick (legal cards only)."""
    size = draw(st.integers(1, 6))
    deck = draw(st.permutations(list(range(32))))[: 3 * size]
    hands = [sum(1 << c for c in deck[p * size : p * size + size]) for p in range(3)]
    leader = draw(st.integers(0, 2))
    declarer = draw(st.integers(0, 2))
    misere = draw(st.booleans())
    trump = None if misere else draw(st.sampled_from([None, 0, 1, 2, 3]))
    played = draw(st.integers(0, 2))
    trick: list[tuple[int, int]] = []
    for offset in range(played):
        position = (leader + offset) % 3
        led = trick[0][1] >> 3 if trick else None
        legal = legal_cards(hands[position], led, trump)
        options = [c for c in range(32) if legal >> c & 1]
        card = draw(st.sampled_from(options))
        hands[position] ^= 1 << card
        trick.append((position, card))
    return (hands[0], hands[1], hands[2]), leader, tuple(trick), trump, declarer, misere


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(end_positions(), st.integers(-1, 7))
def test_fast_solver_equals_reference_on_random_endings(
    position: tuple[Hands, int, tuple[tuple[int, int], ...], int | None, int, bool],
    claimed: int,
) -> None:
    """R-W11: the same exact value and the same verdict on every claim as the reference."""
    hands, leader, trick, trump, declarer, misere = position
    expected = _reference_best_tricks(hands, leader, trick, trump, declarer, misere)
    assert best_tricks(hands, leader, trick, trump, declarer, misere) == expected
    assert claim_holds(hands, leader, trick, trump, declarer, misere, claimed) == (
        _reference_claim_holds(hands, leader, trick, trump, declarer, misere, claimed)
    )


@st.composite
def boundary_endings(draw: st.DrawFn) -> tuple[Hands, int, int | None, int, bool]:
    """A random ending at a trick boundary with 4..6 tricks left, two thirds of them misère,
    dealt from two, three or four suits (few suits: long suits, where the misère bounds and
    the declarer's lead orders matter). The solver has three active hands: with four players
    the dealer sits out, so these cover three- and four-player deals."""
    size = draw(st.integers(4, 6))
    suits = draw(st.sets(st.integers(0, 3), min_size=2 if size < 6 else 3))
    pool = [c for c in range(32) if c >> 3 in suits]
    deck = draw(st.permutations(pool))[: 3 * size]
    hands = [sum(1 << c for c in deck[p * size : p * size + size]) for p in range(3)]
    leader = draw(st.integers(0, 2))
    declarer = draw(st.integers(0, 2))
    misere = draw(st.integers(0, 2)) > 0
    trump = None if misere else draw(st.sampled_from([None, *sorted(suits)]))
    return (hands[0], hands[1], hands[2]), leader, trump, declarer, misere


@seed(14)
@settings(
    max_examples=500,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(boundary_endings())
def test_exact_values_equal_reference_on_boundary_endings(
    position: tuple[Hands, int, int | None, int, bool],
) -> None:
    """R-W11, R-W10: the exact value (good tricks: won in a game, lost on misère) equals the
    reference's on endings of 4..6 tricks, games and misère."""
    hands, leader, trump, declarer, misere = position
    expected = _reference_best_tricks(hands, leader, (), trump, declarer, misere)
    good = hands[leader].bit_count() - expected if misere else expected
    assert max_good_tricks(hands, leader, (), trump, declarer, misere) == good


@seed(15)
@settings(
    max_examples=200,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(boundary_endings())
def test_interrupted_misere_searches_keep_the_value(
    position: tuple[Hands, int, int | None, int, bool],
) -> None:
    """With a budget of a few positions, every misère search is interrupted and restarted in
    another lead order many times (solver._probe): the table must stay valid, so the value
    and the claim verdicts are still the reference's."""
    hands, leader, trump, declarer, misere = position
    expected = _reference_best_tricks(hands, leader, (), trump, declarer, misere)
    good = hands[leader].bit_count() - expected if misere else expected
    budget = solver._FIRST_BUDGET
    solver._FIRST_BUDGET = 3
    try:
        assert max_good_tricks(hands, leader, (), trump, declarer, misere) == good
        assert reaches(hands, leader, (), trump, declarer, misere, good)
        assert not reaches(hands, leader, (), trump, declarer, misere, good + 1)
    finally:
        solver._FIRST_BUDGET = budget


def test_misere_endings() -> None:
    """R-W10: on misère the declarer avoids tricks; a card that must win is counted."""
    seven, eight, nine, ten, ace = 0, 1, 2, 3, 7
    hearts = 24
    # the declarer (0) leads 7♠: 9♠ and 10♠ cover it; on the 8♥ lead he discards 8♠
    hands = (1 << seven | 1 << eight, 1 << nine | 1 << hearts, 1 << ten | 1 << hearts + 1)
    assert best_tricks(hands, 0, (), None, 0, True) == 0
    assert claim_holds(hands, 0, (), None, 0, True, 0)
    # the declarer's A♠ wins when spades are led and he has to follow
    hands = (1 << ace | 1 << seven, 1 << nine | 1 << ten, 1 << eight | 1 << hearts)
    assert best_tricks(hands, 1, (), None, 0, True) == 1
    assert not claim_holds(hands, 1, (), None, 0, True, 0)
    assert claim_holds(hands, 1, (), None, 0, True, 1)


@pytest.mark.parametrize("index", range(50))
def test_bench_deals_equal_reference(index: int) -> None:
    """The 50 whole bench deals (games and misère, from the first lead): the same value."""
    hands, trump, declarer, misere = solver_deals()[index]
    value = best_tricks(hands, 0, (), trump, declarer, misere)
    # the reference proves the value exact with two claims: ``value`` holds, one better fails
    better = value - 1 if misere else value + 1
    assert _reference_claim_holds(hands, 0, (), trump, declarer, misere, value)
    assert not _reference_claim_holds(hands, 0, (), trump, declarer, misere, better)
    assert claim_holds(hands, 0, (), trump, declarer, misere, value)
    assert not claim_holds(hands, 0, (), trump, declarer, misere, better)
    good = max_good_tricks(hands, 0, (), trump, declarer, misere)
    assert reaches(hands, 0, (), trump, declarer, misere, good)
    assert not reaches(hands, 0, (), trump, declarer, misere, good + 1)


def test_entry_points_are_picklable() -> None:
    """The table runs claim checks in a worker process: module-level functions pickle."""
    for function in (claim_holds, best_tricks, reaches, max_good_tricks):
        assert pickle.loads(pickle.dumps(function)) is function
