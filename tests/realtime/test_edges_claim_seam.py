"""The live tables' claim seam (app/realtime/engine.py): a claim is solved in a worker, never on
the event loop (R-W11). Since the engine's split by phase the hook must reach the claims phase's
one solver seam, ``claim_verdict`` — also for a defender's claim (issue 12)."""

from __future__ import annotations

import pytest

from app.realtime import engine
from app.rules import Claim, Contract, Defend, Discard, NameContract
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, cards, run, start


def _six_spades_two_whisters():  # type: ignore[no-untyped-def]
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(6, "S")),
        Defend(2, "whist"),
        Defend(0, "whist"),
    )
    return state


@pytest.mark.parametrize("claim", [Claim(1, 10), Claim(2, 2)])
def test_an_unsolved_claim_is_never_solved_inline(claim: Claim) -> None:
    state = _six_spades_two_whisters()
    with engine.inline_claims_forbidden(), pytest.raises(engine.ClaimNotSolved):
        engine.apply(state, claim)


@pytest.mark.parametrize(("claim", "holds"), [(Claim(1, 10), True), (Claim(2, 2), False)])
def test_a_worker_result_is_used_as_the_verdict(claim: Claim, holds: bool) -> None:
    """The worker's verdict (solve_claim) is applied as is: a defender's failed claim stays
    failed, a declarer's claim that holds ends the deal."""
    state = _six_spades_two_whisters()
    assert engine.solve_claim(state, claim) is holds
    engine.remember_claim(state, claim, holds)
    with engine.inline_claims_forbidden():
        after, events = engine.apply(state, claim)
    assert events[0].type == ("claim_accepted" if holds else "claim_rejected")
    assert after.finished is holds
