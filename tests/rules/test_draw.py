"""Draws: tables (R-T1), seats (R-T2), first dealer (R-T3)."""

from __future__ import annotations

import random

import pytest

from app.rules import (
    InvalidDrawError,
    card_text,
    draw_first_dealer,
    draw_seats,
    draw_tables,
    parse_card,
)
from app.rules.core.draw import seat_draw_key


def test_r_t1_tables_by_suit_sizes_and_full_record() -> None:
    members = [f"m{i}" for i in range(7)]
    result = draw_tables(members, [4, 3], random.Random(1))
    assert sorted(len(t) for t in result.tables) == [3, 4]
    assert [len(t) for t in result.tables] == [4, 3]
    assert sorted(m for t in result.tables for m in t) == sorted(members)
    for member, card in result.draws:
        assert member in result.tables[card >> 3]  # the suit is the table
    assert sorted(result.prepared) == sorted(c for _, c in result.draws)
    assert result.to_json()["draws"][0]["member"] == "m0"  # type: ignore[index]
    assert draw_tables(members, [4, 3], random.Random(1)) == result


@pytest.mark.parametrize(
    ("n", "sizes"), [(7, [5, 2]), (6, [4, 3]), (10, [5, 5]), (4, [2, 2]), (3, [])]
)
def test_r_t1_rejects_impossible_tables(n: int, sizes: list[int]) -> None:
    with pytest.raises(InvalidDrawError):
        draw_tables([f"m{i}" for i in range(n)], sizes, random.Random(1))


def test_r_t1_five_only_when_five_present() -> None:
    assert draw_tables(list("abcde"), [5], random.Random(0)).tables[0]


def test_r_t2_ace_lowest_then_ranks_then_suit() -> None:
    keys = [seat_draw_key(parse_card(t)) for t in ["AH", "7S", "7C", "KS"]]
    assert keys == sorted(keys)


def test_r_t2_lowest_card_sits_first_others_clockwise_increasing() -> None:
    result = draw_seats(["ann", "bob", "vera", "gleb"], random.Random(5))
    drawn = dict(result.draws)
    ordered = [drawn[p] for p in result.seats]
    assert ordered == sorted(ordered, key=seat_draw_key)
    assert len(set(drawn.values())) == 4
    assert result.to_json()["seats"] == list(result.seats)


def test_r_t3_first_ace_deals_every_step_recorded() -> None:
    for seed in range(30):
        lot = draw_first_dealer(3, random.Random(seed))
        aces = [i for i, (_, c) in enumerate(lot.steps) if card_text(c).startswith("A")]
        assert aces == [len(lot.steps) - 1]
        assert lot.steps[-1][0] == lot.dealer
        assert [s for s, _ in lot.steps] == [i % 3 for i in range(len(lot.steps))]
    assert draw_first_dealer(4, random.Random(2)) == draw_first_dealer(4, random.Random(2))
