"""Trick play: R-W7 (follow, trump, winner, leads), R-W8 (last trick only), R-W10 (misère)."""

from __future__ import annotations

import pytest

from app.rules import (
    Defend,
    Discard,
    IllegalActionError,
    IllegalCardError,
    PlayCard,
    apply,
    legal_actions,
    legal_cards,
    mask_text,
    outcome,
    parse_card,
    view,
)
from app.rules.core.cards import cards_mask
from app.rules.core.play import trick_winner
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, cards, play_out, plays, run, start


def m(text: str) -> int:
    return cards_mask(cards(text))


def six_spades_dealer2():  # type: ignore[no-untyped-def]
    """Dealer 2: forehand 0 (♦ and ♥), seat 1 (♠ and ♣AK) declares 6♠ (Stalingrad)."""
    state = start(LAYOUT, LAYOUT_TALON, dealer=2)
    state = bids(state, "pass", "6S", "pass")
    assert state.declarer == 1
    state, _ = run(state, Discard(1, tuple(cards("8H 7H"))))  # type: ignore[arg-type]
    from app.rules import Contract, NameContract

    state, _ = run(state, NameContract(1, Contract(6, "S")), Defend(2, "whist"), Defend(0, "whist"))
    assert state.phase == "play"
    return state


def test_r_w7_legal_cards_follow_then_trump_then_any() -> None:
    hand = m("AS 7S AC 8D")
    assert mask_text(legal_cards(hand, 1, 0)) == ["AC"]  # follow ♣
    assert mask_text(legal_cards(hand, 3, 0)) == ["7S", "AS"]  # void ♥: trump ♠
    assert legal_cards(hand, 3, None) == hand  # no trumps: any card
    assert legal_cards(m("AC 8D"), 3, 0) == m("AC 8D")  # void of both: any
    assert legal_cards(hand, None, 0) == hand  # a lead: any


def test_r_w7_trick_winner_highest_trump_else_highest_of_led_suit() -> None:
    c = parse_card
    assert trick_winner([(0, c("KH")), (1, c("AH")), (2, c("7S"))], 3, 0) == 2
    assert trick_winner([(0, c("KH")), (1, c("AH")), (2, c("AD"))], 3, 0) == 1
    assert trick_winner([(0, c("7H")), (1, c("AD")), (2, c("AC"))], 3, None) == 0
    assert trick_winner([(0, c("7S")), (1, c("8S")), (2, c("AH"))], 0, 0) == 1


def test_r_w7_forehand_leads_first_and_errors_are_readable() -> None:
    state = six_spades_dealer2()
    assert state.to_move == 0 and state.turn == 0  # forehand 0 leads, not the declarer
    state = plays(state, "AH")
    with pytest.raises(IllegalCardError, match="you have no ♥: you must play a trump ♠"):
        apply(state, PlayCard(1, parse_card("AC")))
    with pytest.raises(IllegalCardError, match="not in the hand"):
        apply(state, PlayCard(1, parse_card("AD")))
    with pytest.raises(IllegalActionError, match="not your turn"):
        apply(state, PlayCard(2, parse_card("AD")))
    assert sorted(a.card for a in legal_actions(state, 1) if isinstance(a, PlayCard)) == cards(
        "7S 8S 9S 10S JS QS KS AS"
    )
    state = plays(state, "7S", "AD")  # seat 2: void of ♥ and ♠, any card
    assert state.tricks[1] == 1 and state.to_move == 1  # the trump wins and leads next
    state = plays(state, "AC")
    with pytest.raises(IllegalCardError, match="you must follow ♣"):
        apply(state, PlayCard(2, parse_card("KD")))
    state = plays(state, "7C", "9D")
    assert state.tricks == (0, 2, 0)


def test_r_w7_ten_tricks_then_outcome() -> None:
    state = six_spades_dealer2()
    state = play_out(state)
    result = outcome(state)
    assert result is not None and result.kind == "game" and result.play == "closed"
    assert sum(result.tricks.values()) == 10  # type: ignore[union-attr]
    assert set(result.tricks) == {0, 1, 2}  # type: ignore[arg-type]


def test_r_w8_only_the_last_closed_trick_is_visible() -> None:
    state = six_spades_dealer2()
    state = plays(state, "AH", "7S", "AD")
    assert view(state, 0)["last_trick"] == [
        {"seat": 0, "card": "AH"},
        {"seat": 1, "card": "7S"},
        {"seat": 2, "card": "AD"},
    ]
    state = plays(state, "AC", "7C")
    v = view(state, 2)
    assert v["trick"] == [{"seat": 1, "card": "AC"}, {"seat": 2, "card": "7C"}]
    state = plays(state, "9D")
    for seat in (None, 0, 1, 2):
        text = str(view(state, seat))
        assert "'AH'" not in text and "'AD'" not in text  # the first trick is gone
        assert view(state, seat)["last_trick_winner"] == 1
    assert "history" not in view(state, 0)


def misere_by(dealer: int, bidding: tuple[str, ...], declarer: int):  # type: ignore[no-untyped-def]
    state = start(LAYOUT, LAYOUT_TALON, dealer=dealer)
    state = bids(state, *bidding)
    assert state.declarer == declarer and state.bid == "misere"
    state, events = run(state, Discard(declarer, tuple(cards("8H 7H"))))  # type: ignore[arg-type]
    return state, events


def test_r_w10_misere_declarer_leads_blind_then_defenders_lay_down() -> None:
    state, events = misere_by(0, ("misere", "pass", "pass"), 1)
    assert state.to_move == 1 and state.open_seats == 0
    assert "hands_opened" not in [e.type for e in events]
    assert view(state, 1)["open_hands"] == {}
    state, events = apply(state, PlayCard(1, parse_card("7S")))
    assert [e.type for e in events][-1] == "hands_opened"
    assert set(events[-1].data["hands"]) == {"0", "2"}
    assert set(view(state, 1)["open_hands"]) == {"0", "2"}
    assert "1" not in view(state, None)["open_hands"]  # the declarer's hand stays hidden
    # R-W10: no trumps; defenders play their own hands.
    cards_now = [a for a in legal_actions(state, 2) if isinstance(a, PlayCard)]
    assert state.to_move == 2 and len(cards_now) == 10


def test_r_w10_misere_defender_leads_defenders_open_first() -> None:
    state, events = misere_by(1, ("pass", "pass", "misere"), 1)
    assert state.turn == 2 and state.to_move == 2
    assert state.open_seats == (1 << 0) | (1 << 2)
    assert "hands_opened" in [e.type for e in events]


def test_r_w10_misere_outcome() -> None:
    state, _ = misere_by(0, ("misere", "pass", "pass"), 1)
    state = play_out(state, last=True)
    result = outcome(state)
    assert result is not None and result.kind == "misere" and result.contract is None
    assert dict(result.defence) == {} and result.play == "open"
    assert sum(result.tricks.values()) == 10  # type: ignore[union-attr]
