"""Seed 004's seat choice by aces (A-26; issue 26), over hand-made decks.

004: «По одной в открытую сдаются карты. Кому выпал первый туз — первым выбирает место и первый
сдаёт. Второй туз — второй выбирает место. Третий игрок (если нет четвёртого) занимает
оставшееся место.»
"""

from __future__ import annotations

import random

import pytest

from app.rules.core.cards import parse_card
from app.rules.core.draw import InvalidDrawError
from app.rules.core.ruleset import rule_set_of
from app.rules.variants.arabic.arabic_draw import draw_by_aces, seat_by_aces


def _deck(*texts: str) -> list[int]:
    return [parse_card(t) for t in texts]


def test_a26_the_first_ace_sits_first_and_deals_the_second_sits_next() -> None:
    """Dealt to Anna, Boris, Vera in turn: 7♠ Anna, A♦ Boris (seated first, deals), then only
    Vera and Anna receive: K♣ Vera, A♥ Anna (seated second); Vera takes the last seat."""
    seating = seat_by_aces(["anna", "boris", "vera"], _deck("7S", "AD", "KC", "AH", "AS", "AC"))
    assert seating.seats == ("boris", "anna", "vera") and seating.dealer == 0
    assert seating.seat_record == {
        "rule": "A-26",
        "draws": [
            {"player": "anna", "card": "7S"},
            {"player": "boris", "card": "AD"},
            {"player": "vera", "card": "KC"},
            {"player": "anna", "card": "AH"},
        ],
        "seats": ["boris", "anna", "vera"],
    }
    assert seating.dealer_record["steps"] == [
        {"seat": 1, "card": "7S"},
        {"seat": 0, "card": "AD"},
        {"seat": 2, "card": "KC"},
        {"seat": 1, "card": "AH"},
    ]
    assert seating.dealer_record["dealer"] == 0


def test_a26_four_players_three_aces_seat_three_the_fourth_takes_what_is_left() -> None:
    """A♠ goes to the first card's player at once; dealing goes on clockwise over the others."""
    seating = seat_by_aces(["a", "b", "c", "d"], _deck("AS", "8H", "AC", "9D", "10S", "AH"))
    # a: A♠ (seat 0); b: 8♥; c: A♣ (seat 1); d: 9♦; b: 10♠; d: A♥ (seat 2); b is left
    assert seating.seats == ("a", "c", "d", "b")
    assert len(seating.seat_record["draws"]) == 6  # type: ignore[arg-type]


def test_a26_is_the_arabic_rule_sets_seating_and_only_its_own() -> None:
    """Only the arabic rule set seats by aces; the club's presets keep R-T2 then R-T3."""
    arabic = rule_set_of("arabic").draw_seating(["x", "y", "z"], random.Random(3))
    assert arabic is not None and arabic.seat_record["rule"] == "A-26"
    assert sorted(arabic.seats) == ["x", "y", "z"]
    assert rule_set_of("club").draw_seating(["x", "y", "z"], random.Random(3)) is None
    assert rule_set_of("classic").draw_seating(["x", "y", "z"], random.Random(3)) is None
    with pytest.raises(InvalidDrawError):
        draw_by_aces(["a", "b", "c", "d", "e"], random.Random(1))


@pytest.mark.parametrize("seed", range(200))
def test_a26_every_seating_holds_each_player_once_and_each_ace_seats_one(seed: int) -> None:
    players = ["p0", "p1", "p2", "p3"][: 3 + seed % 2]
    seating = draw_by_aces(players, random.Random(seed))
    assert sorted(seating.seats) == sorted(players)
    draws = seating.seat_record["draws"]
    aces = [d["player"] for d in draws if d["card"].startswith("A")]  # type: ignore[union-attr, index]
    assert aces == list(seating.seats[: len(players) - 1])
