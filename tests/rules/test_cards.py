"""Cards as ints and masks; text forms (app.rules.core.cards)."""

from __future__ import annotations

import pytest

from app.rules import (
    InvalidCardError,
    RulesError,
    card_pretty,
    card_text,
    cards_mask,
    mask_cards,
    mask_text,
    parse_card,
)
from app.rules.core.cards import SUIT_MASKS, highest, make_card, rank_of, suit_of


def test_every_card_round_trips_through_text() -> None:
    for card in range(32):
        assert parse_card(card_text(card)) == card
        assert parse_card(card_pretty(card)) == card


@pytest.mark.parametrize(
    ("text", "expected"),
    [("AS", "AS"), ("10H", "10H"), ("7♠", "7S"), ("th", "10H"), (" q♦ ", "QD"), ("k♧", "KC")],
)
def test_parse_accepts_ascii_symbols_and_case(text: str, expected: str) -> None:
    assert card_text(parse_card(text)) == expected


@pytest.mark.parametrize("text", ["", "A", "1S", "11H", "AX", "6S", "10", "ASS"])
def test_parse_rejects_non_cards_with_a_rules_error(text: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_card(text)
    assert isinstance(info.value, RulesError) and isinstance(info.value, ValueError)


def test_parse_rejects_non_text() -> None:
    with pytest.raises(InvalidCardError):
        parse_card(12)  # type: ignore[arg-type]


def test_layout_suit_rank_order_matches_the_ladder() -> None:
    """Suits ♠ ♣ ♦ ♥ are 0..3 (R-B2 ladder order), ranks 7..A are 0..7."""
    ace_spades = parse_card("AS")
    assert (suit_of(ace_spades), rank_of(ace_spades)) == (0, 7)
    assert make_card(3, 0) == parse_card("7H")
    assert card_pretty(parse_card("10C")) == "10♣"
    assert highest(SUIT_MASKS[2]) == parse_card("AD")


def test_masks_round_trip_in_ascending_order() -> None:
    cs = [parse_card(t) for t in ["KH", "7S", "10D", "AS"]]
    mask = cards_mask(cs)
    assert mask_cards(mask) == sorted(cs)
    assert mask_text(mask) == ["7S", "AS", "10D", "KH"]
    assert mask_cards((1 << 32) - 1) == list(range(32))
    assert mask_cards(0) == []
