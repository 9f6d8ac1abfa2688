"""Talon, discard and contract (R-C1..R-C6) and the defence calls (R-W1..R-W6, R-W9)."""

from __future__ import annotations

import pytest

from app.rules import (
    ChoosePlay,
    Concede,
    Contract,
    Conventions,
    Defend,
    Discard,
    IllegalActionError,
    NameContract,
    ReturnTalon,
    ReturnWhist,
    TakeTalon,
    apply,
    legal_actions,
    outcome,
    view,
)
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, cards, hand, run, start, start4

CLUB = Conventions()
SOCHI = Conventions.preset_named("sochi")


def declare(contract: str = "6C", conventions: Conventions = CLUB, bid: str = "6S"):  # type: ignore[no-untyped-def]
    """Seat 1 wins with ``bid``, discards the talon ♥8 ♥7, names ``contract``."""
    state = bids(start(LAYOUT, LAYOUT_TALON, conventions=conventions), bid, "pass", "pass")
    a, b = cards("8H 7H")
    state, _ = run(state, Discard(1, (a, b)))
    from app.rules import parse_contract

    state, _ = run(state, NameContract(1, parse_contract(contract)))
    return state


# ---- R-C1..R-C6


def test_r_c1_talon_is_shown_to_everyone_then_taken_discard_then_contract() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass")
    assert view(state, 0)["talon"] is None and view(state, None)["talon"] is None
    state = bids(state, "pass")
    assert state.phase == "discard" and state.to_move == 1
    for seat in (None, 0, 1, 2):
        assert view(state, seat)["talon"] == ["8H", "7H"]
    assert len(hand(state, 1)) == 12
    a, b = cards("7S 8S")
    state, events = run(state, Discard(1, (a, b)))
    assert [e.type for e in events] == ["discarded"] and "cards" not in events[0].data
    assert state.phase == "contract" and len(hand(state, 1)) == 10


def test_r_c1_discard_must_be_two_own_cards() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass", "pass")
    with pytest.raises(IllegalActionError, match="not in your hand"):
        apply(state, Discard(1, tuple(cards("AD 8H"))))  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="two different"):
        apply(state, Discard(1, tuple(cards("8H 8H"))))  # type: ignore[arg-type]
    assert len([a for a in legal_actions(state, 1) if isinstance(a, Discard)]) == 66


def test_r_c2_contract_not_below_bid() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "7S", "pass", "pass")
    assert state.declarer == 1 and state.bid == Contract(7, "S")
    state, _ = run(state, Discard(1, tuple(cards("8H 7H"))))  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="below your bid 7♠"):
        apply(state, NameContract(1, Contract(6, "NT")))
    with pytest.raises(IllegalActionError, match="misère"):
        apply(state, NameContract(1, "misere"))
    named = [a.contract for a in legal_actions(state, 1) if isinstance(a, NameContract)]
    assert named[0] == Contract(7, "S") and len(named) == 20
    state, _ = run(state, NameContract(1, Contract(7, "S")))
    assert state.contract == Contract(7, "S")


def test_r_c2_misere_bid_plays_misere() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "misere", "pass", "pass")
    state, events = run(state, Discard(1, tuple(cards("8H 7H"))))  # type: ignore[arg-type]
    assert state.contract == "misere" and state.phase == "play"
    assert any(e.type == "contract_named" and e.data["contract"] == "misere" for e in events)


def test_r_c3_discard_seen_by_declarer_only_until_first_lead() -> None:
    state = declare("6S")
    assert view(state, 1)["discard"] == ["7H", "8H"]
    for seat in (None, 0, 2):
        assert view(state, seat)["discard"] is None
    state, _ = run(state, Defend(2, "whist"), Defend(0, "whist"))
    assert view(state, 1)["discard"] == ["7H", "8H"]
    from tests.support.engine import plays

    state = plays(state, "AS")  # forehand 1 leads: the first lead
    assert view(state, 1)["discard"] is None


def test_r_c4_concede_down_three_on_the_bid() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "7H", "pass", "pass")
    assert Concede(1) in legal_actions(state, 1)
    state, events = run(state, Concede(1))
    assert state.finished and state.end == "conceded"
    result = outcome(state)
    assert result is not None and result.kind == "conceded"
    assert result.contract == Contract(7, "H") and result.tricks is None
    assert events[-1].type == "deal_ended"


def test_r_c4_concede_uses_the_named_contract_and_not_on_misere() -> None:
    state = declare("8S")
    state, _ = run(state, Concede(1))
    assert outcome(state).contract == Contract(8, "S")  # type: ignore[union-attr]
    mis = bids(start(LAYOUT, LAYOUT_TALON), "misere", "pass", "pass")
    with pytest.raises(IllegalActionError):
        apply(mis, Concede(1))
    with pytest.raises(IllegalActionError):
        apply(declare("6S"), Concede(2))


def test_r_c5_outcome_carries_the_talon_for_the_bonus() -> None:
    state = declare("6C")
    state, _ = run(state, Defend(2, "pass"), Defend(0, "pass"))
    assert outcome(state).talon == ("8H", "7H")  # type: ignore[union-attr]


def test_r_c6_return_talon_only_with_the_convention() -> None:
    off = CLUB.with_overrides({"talon_return_penalty": False})
    state = bids(start(LAYOUT, LAYOUT_TALON, conventions=off), "6S", "pass", "pass")
    assert state.phase == "discard"
    assert ReturnTalon(1) not in legal_actions(state, 1)
    with pytest.raises(IllegalActionError):
        apply(state, ReturnTalon(1))
    # R-C6 (issue 12): on in the club preset; offered with the discard, after the talon is shown
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass", "pass")
    assert state.phase == "discard" and len(hand(state, 1)) == 12
    assert ReturnTalon(1) in legal_actions(state, 1)
    assert view(state, 0)["talon"] == ["8H", "7H"]  # shown before he decides
    assert view(state, 0)["talon_return_penalty"] is True
    with pytest.raises(IllegalActionError):
        apply(state, TakeTalon(1))  # the talon is already in his hand
    state, events = run(state, ReturnTalon(1))
    assert state.phase == "contract" and len(hand(state, 1)) == 10
    assert "8H" not in hand(state, 1) and "7H" not in hand(state, 1)
    assert [e.type for e in events] == ["talon_returned"]
    assert ReturnTalon(1) not in legal_actions(state, 1)
    state, _ = run(state, NameContract(1, Contract(6, "C")), Defend(2, "pass"), Defend(0, "pass"))
    result = outcome(state)
    assert result is not None and result.talon_returned and result.kind == "game"


# ---- R-W1..R-W6, R-W9


def test_r_w1_first_defender_is_declarer_left_then_the_next() -> None:
    state = declare("6C")
    assert state.phase == "defence" and state.to_move == 2
    assert legal_actions(state, 2) == [Defend(2, "whist"), Defend(2, "pass")]
    with pytest.raises(IllegalActionError):
        apply(state, Defend(0, "whist"))
    state, _ = run(state, Defend(2, "pass"))
    assert state.to_move == 0


def test_r_w2_two_whisters_play_closed() -> None:
    state = declare("6C")
    state, _ = run(state, Defend(2, "whist"), Defend(0, "whist"))
    assert state.phase == "play" and state.play_mode == "closed"
    assert state.whisters == (2, 0) and state.open_seats == 0
    assert state.to_move == 1  # forehand leads (R-W7)


def test_r_w3_single_whister_chooses_open_and_plays_both_hands() -> None:
    state = declare("6C")
    state, _ = run(state, Defend(2, "pass"), Defend(0, "whist"))
    assert state.phase == "play_mode" and state.to_move == 0
    assert ChoosePlay(0, "open") in legal_actions(state, 0)
    state, events = run(state, ChoosePlay(0, "open"))
    # forehand is the declarer: he leads blind, the defenders lay down after his card
    assert state.open_seats == 0 and "hands_opened" not in [e.type for e in events]
    assert view(state, 1)["open_hands"] == {}
    from tests.support.engine import plays

    state = plays(state, "AC")
    assert state.open_seats == (1 << 2) | (1 << 0)
    assert set(view(state, None)["open_hands"]) == {"0", "2"}
    assert state.turn == 2 and state.to_move == 0  # the whister plays the passer's cards
    assert legal_actions(state, 2) == []


def test_r_w3_defender_on_lead_lays_down_before_the_lead() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "pass", "6D", "pass")
    assert state.declarer == 2
    state, _ = run(state, Discard(2, tuple(cards("8H 7H"))), NameContract(2, Contract(6, "D")))  # type: ignore[arg-type]
    assert state.to_move == 0  # d1 is seat 0
    state, _ = run(state, Defend(0, "whist"), Defend(1, "pass"), ChoosePlay(0, "open"))
    assert state.open_seats == (1 << 0) | (1 << 1)
    assert state.to_move == 0 and state.turn == 1  # forehand 1 leads, played by whister 0


def test_r_w3_closed_single_whist_each_plays_own_hand() -> None:
    state = declare("6C")
    state, _ = run(state, Defend(2, "whist"), Defend(0, "pass"), ChoosePlay(2, "closed"))
    assert state.open_seats == 0 and state.controllers == (0, 1, 2)
    assert state.play_mode == "closed" and state.whisters == (2,)


def test_r_w4_half_whist_only_on_6_and_7_after_first_pass() -> None:
    state = declare("6C")
    state, _ = run(state, Defend(2, "whist"))
    assert Defend(0, "half") not in legal_actions(state, 0)
    state = declare("7C")
    state, _ = run(state, Defend(2, "pass"))
    assert Defend(0, "half") in legal_actions(state, 0)
    state = declare("8C")
    state, _ = run(state, Defend(2, "pass"))
    assert Defend(0, "half") not in legal_actions(state, 0)
    with pytest.raises(IllegalActionError, match="only on 6 and 7"):
        apply(state, Defend(0, "half"))


def test_r_w4_half_whist_made_without_play() -> None:
    state = declare("6C")
    state, _ = run(state, Defend(2, "pass"), Defend(0, "half"))
    assert state.to_move == 2 and legal_actions(state, 2) == [ReturnWhist(2), Defend(2, "pass")]
    state, _ = run(state, Defend(2, "pass"))
    result = outcome(state)
    assert result is not None and result.tricks is None and result.play is None
    assert dict(result.defence) == {2: "pass", 0: "half"}


def test_r_w4_returned_whist_is_played_open_by_the_returner() -> None:
    state = declare("7C")
    state, _ = run(state, Defend(2, "pass"), Defend(0, "half"), ReturnWhist(2))
    assert state.phase == "play" and state.play_mode == "open"
    assert state.whisters == (2,) and state.returned_from == 0
    assert state.controllers[0] == 2 and state.controllers[2] == 2
    assert dict(state.calls) == {2: "whist", 0: "pass"}


def test_r_w4_half_whist_off_by_convention() -> None:
    conv = CLUB.with_overrides({"half_whist": False})
    state = declare("6C", conv)
    state, _ = run(state, Defend(2, "pass"))
    assert Defend(0, "half") not in legal_actions(state, 0)


def test_r_w4_four_players_dealer_may_return_last() -> None:
    state = bids(start4(), "6S", "pass", "pass")
    state, _ = run(state, Discard(1, tuple(cards("8H 7H"))), NameContract(1, Contract(6, "C")))  # type: ignore[arg-type]
    state, _ = run(state, Defend(2, "pass"), Defend(3, "half"), Defend(2, "pass"))
    assert state.to_move == 0 and legal_actions(state, 0)[:2] == [ReturnWhist(0), Defend(0, "pass")]
    returned, _ = run(state, ReturnWhist(0))
    assert returned.whisters == (0,) and returned.play_mode == "open"
    assert returned.controllers[2] == 0 and returned.controllers[3] == 0
    assert dict(returned.calls) == {2: "pass", 3: "pass", 0: "whist"}
    done, _ = run(state, Defend(0, "pass"))
    assert done.finished and dict(outcome(done).defence) == {2: "pass", 3: "half"}  # type: ignore[union-attr]


def test_gentleman_first_defender_may_go_half_after_the_second_passes() -> None:
    state = declare("6C")
    state, _ = run(state, Defend(2, "whist"), Defend(0, "pass"))
    assert Defend(2, "half") in legal_actions(state, 2)
    half, _ = run(state, Defend(2, "half"))
    assert half.to_move == 0 and legal_actions(half, 0) == [ReturnWhist(0), Defend(0, "pass")]
    back, _ = run(half, ReturnWhist(0))
    assert back.returned_from == 2 and back.whisters == (0,)
    greedy = declare("6C", SOCHI)
    greedy, _ = run(greedy, Defend(2, "whist"), Defend(0, "pass"))
    assert Defend(2, "half") not in legal_actions(greedy, 2)


def test_two_passes_game_made_without_play() -> None:
    state = declare("6C")
    state, _ = run(state, Defend(2, "pass"), Defend(0, "pass"))
    result = outcome(state)
    assert state.end == "without_play" and result is not None
    assert result.kind == "game" and result.tricks is None
    assert dict(result.defence) == {2: "pass", 0: "pass"}


def test_r_w5_eight_after_two_passes_three_players_no_whist() -> None:
    state = declare("8C")
    state, _ = run(state, Defend(2, "pass"), Defend(0, "pass"))
    assert state.finished and state.end == "without_play"


def test_r_w5_four_player_dealer_may_whist_eight_after_two_passes() -> None:
    state = bids(start4(), "6S", "pass", "pass")
    state, _ = run(state, Discard(1, tuple(cards("8H 7H"))), NameContract(1, Contract(8, "S")))  # type: ignore[arg-type]
    state, _ = run(state, Defend(2, "pass"), Defend(3, "pass"))
    assert state.to_move == 0 and Defend(0, "whist") in legal_actions(state, 0)
    state, _ = run(state, Defend(0, "whist"))
    assert state.whisters == (0,) and state.play_mode == "open"
    assert dict(outcome_calls(state)) == {2: "pass", 3: "pass", 0: "whist"}
    six = bids(start4(), "6S", "pass", "pass")
    six, _ = run(six, Discard(1, tuple(cards("8H 7H"))), NameContract(1, Contract(7, "S")))  # type: ignore[arg-type]
    six, _ = run(six, Defend(2, "pass"), Defend(3, "pass"))
    assert six.finished  # on 7 the dealer only returns a half-whist


def outcome_calls(state):  # type: ignore[no-untyped-def]
    return state.calls


def test_r_w6_stalingrad_both_must_whist() -> None:
    state = declare("6S")
    assert legal_actions(state, 2) == [Defend(2, "whist")]
    with pytest.raises(IllegalActionError, match="Stalingrad"):
        apply(state, Defend(2, "pass"))
    state, _ = run(state, Defend(2, "whist"))
    assert legal_actions(state, 0) == [Defend(0, "whist")]
    sochi = declare("6S", SOCHI)
    assert Defend(2, "pass") in legal_actions(sochi, 2)
    not_six_spades = declare("6C")
    assert Defend(2, "pass") in legal_actions(not_six_spades, 2)


def test_r_w9_ten_checked_is_played_open_without_whist() -> None:
    state = declare("10S")
    assert state.phase == "play" and state.play_mode == "open"
    assert state.open_seats == 0b111
    assert set(view(state, None)["open_hands"]) == {"0", "1", "2"}
    assert dict(state.calls) == {2: "pass", 0: "pass"}
    sochi = declare("10S", SOCHI)
    assert sochi.phase == "defence"
