"""Pass-outs: R-R1 (no trumps), R-R2 (three players: talon cards set the suit), R-R3 (four
players: the dealer's talon card can win), the forehand leading the third trick."""

from __future__ import annotations

from app.rules import PlayCard, legal_actions, outcome, view
from tests.support.engine import bids, play_out, plays, start

THREE = {
    1: "AS KS QS JS 10S 9S 8S 7S AC KC",
    2: "QC JC 10C 9C 8C 7C AD KD QD JD",
    0: "10D 9D 8D 7D KH QH JH 10H 9H 8H",
}
FOUR = {
    1: "AS KS QS JS 10S 9S 8S 7S AC KC",
    2: "QC JC 10C 9C 8C 7C AD KD QD JD",
    3: "10D 9D 8D 7D KH QH JH 10H 9H 8H",
}
TALON = "AH 7H"


def passed_out(players: int = 3):  # type: ignore[no-untyped-def]
    state = start(THREE, TALON) if players == 3 else start(FOUR, TALON, players=4, dealer=0)
    return bids(state, "pass", "pass", "pass")


def test_r_r2_first_talon_card_is_turned_as_the_lead_and_forehand_plays_first() -> None:
    state = passed_out()
    assert state.kind == "pass_out" and state.phase == "play"
    assert state.to_move == 1  # forehand
    assert view(state, None)["trick"] == [{"seat": -1, "card": "AH"}]
    assert view(state, None)["talon"] == ["AH"]
    assert "7H" not in str(view(state, 1))  # the second talon card is still hidden


def test_r_r1_no_trumps_a_void_player_plays_any_card() -> None:
    state = passed_out()
    assert len([a for a in legal_actions(state, 1) if isinstance(a, PlayCard)]) == 10


def test_r_r2_talon_card_only_sets_the_suit_highest_player_card_wins() -> None:
    state = passed_out()
    state = plays(state, "7S", "7C", "8H")  # seat 0 must follow ♥; ♥A of the talon does not count
    assert state.tricks == (1, 0, 0)
    assert view(state, None)["trick"] == [{"seat": -1, "card": "7H"}]
    assert state.to_move == 1  # the second talon trick again starts with forehand
    state = plays(state, "8S", "8C", "9H")
    assert state.tricks == (2, 0, 0)
    # R-R2: the third trick is led by forehand whoever won before
    assert state.to_move == 1 and state.trick == ()


def test_r_r3_four_players_talon_card_can_win_for_the_dealer() -> None:
    state = passed_out(4)
    assert state.to_move == 1
    assert view(state, None)["trick"] == [{"seat": 0, "card": "AH"}]
    state = plays(state, "7S", "7C", "8H")
    assert state.tricks == (1, 0, 0, 0)  # the dealer's ♥A won
    state = plays(state, "8S", "8C", "9H")
    assert state.tricks == (1, 0, 0, 1)
    assert state.to_move == 1  # R-R3: forehand leads the third trick


def test_r_r3_outcome_dealer_seat_holds_talon_tricks() -> None:
    state = passed_out(4)
    state = play_out(state)
    result = outcome(state)
    assert result is not None and result.kind == "pass_out"
    assert set(result.tricks) == {0, 1, 2, 3}  # type: ignore[arg-type]
    assert sum(result.tricks.values()) == 10  # type: ignore[union-attr]
    assert result.tricks[0] >= 1  # type: ignore[index]
    assert result.talon == ("AH", "7H")


def test_three_player_pass_out_outcome_sums_to_ten() -> None:
    state = passed_out()
    state = play_out(state, last=True)
    result = outcome(state)
    assert result is not None and set(result.tricks) == {0, 1, 2}  # type: ignore[arg-type]
    assert sum(result.tricks.values()) == 10  # type: ignore[union-attr]
