"""Arabic preferans (seed 004) inside one deal: the forced opening pass-out, the talon's place.

Rule IDs are docs/rules-arabic.md's; deals are hand-built (tests/rules/engine_support.py).
"""

from __future__ import annotations

import pytest

from app.rules import Bid, Conventions, legal_actions
from app.rules.auction import PASS_ONLY_LEVEL, IllegalBidError, parse_contract
from app.rules.deal import apply
from app.rules.deck import deal_cards
from app.rules.seats import playing_seats

from .engine_support import LAYOUT, LAYOUT_TALON, bids, start

ARABIC = Conventions.preset_named("arabic")


def test_a3_an_opening_deal_allows_only_pass_and_is_played_as_a_pass_out() -> None:
    """A-3: on an opening bomb nobody may bid, not even misère; the deal is a pass-out."""
    state = start(LAYOUT, LAYOUT_TALON, conventions=ARABIC, min_level=PASS_ONLY_LEVEL)
    assert legal_actions(state, 1) == [Bid(1, "pass")]
    for call in ("misere", parse_contract("10NT")):
        with pytest.raises(IllegalBidError):
            apply(state, Bid(1, call))  # type: ignore[arg-type]
    state = bids(state, "pass", "pass", "pass")
    assert state.kind == "pass_out" and state.phase == "play"


@pytest.mark.parametrize(("players", "dealer"), [(3, 0), (3, 2), (4, 0), (4, 3)])
def test_a8_the_talon_is_never_the_first_or_last_two_cards(players: int, dealer: int) -> None:
    """A-8: the talon is the 4th pair; the first pair goes to forehand, the last two to the
    last hand (at three players that is the dealer: "две последние карты сдатчик кладёт себе")."""
    order = tuple(range(32))
    hands, talon = deal_cards(order, players, dealer)
    assert talon == (6, 7)
    seats = playing_seats(players, dealer)
    assert hands[seats[0]] & 0b11 == 0b11
    assert hands[seats[2]] >> 30 == 0b11
    if players == 3:
        assert seats[2] == dealer
