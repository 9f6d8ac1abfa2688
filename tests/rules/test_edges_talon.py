"""Issue 12 rule edge: R-C6 (return of the talon) is a club rule (000): ``talon_return_penalty``
is on in the club preset, offered at the table with the discard, and the dealer pays."""

from __future__ import annotations

from app.rules import (
    Contract,
    Conventions,
    Defend,
    NameContract,
    ReturnTalon,
    legal_actions,
    outcome,
    view,
)
from app.rules.scoring.sheet import score_deal
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, hand, run, start


def test_r_c6_club_preset_offers_the_return_of_the_talon() -> None:
    """R-C6: on in the club preset, off in the others."""
    assert Conventions.preset_named("club").talon_return_penalty
    for name in ("leningrad", "sochi", "rostov"):
        assert not Conventions.preset_named(name).talon_return_penalty
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass", "pass")
    assert ReturnTalon(1) in legal_actions(state, 1)
    assert ReturnTalon(0) not in legal_actions(state, 0)  # only the declarer
    shown = view(state, 1)
    assert shown["talon"] == ["8H", "7H"] and shown["talon_return_penalty"] is True


def test_r_c6_returned_talon_the_dealer_writes_the_declared_game() -> None:
    """R-C6: the declarer plays his ten cards; the dealer writes the game's cost in his hill."""
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass", "pass")  # dealer 0, declarer 1
    state, _ = run(state, ReturnTalon(1))
    assert len(hand(state, 1)) == 10 and view(state, None)["talon_returned"] is True
    state, _ = run(state, NameContract(1, Contract(7, "S")), Defend(2, "pass"), Defend(0, "pass"))
    result = outcome(state)
    assert result is not None and result.talon_returned
    entries = score_deal(result, Conventions(), players=3)
    # 7♠ costs 4 (R-C6: the declared game, into the dealer's hill)
    assert (0, "hill", 4) in [(e.seat, e.column, e.amount) for e in entries]
