"""Settlement: closing (double / help), average hill, rounding and money (R-P4, R-P5, R-P9)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from app.rules.scoring.settlement import largest_remainder, money, round_hundredths, settle
from app.rules.scoring.sheet import Sheet
from tests.support.scoring import CLUB, LENINGRAD, ROSTOV, SOCHI, game, ints, new, play


def _sheet(pool, hill, whists=None) -> Sheet:
    n = len(pool)
    w = whists or [[0] * n for _ in range(n)]
    return Sheet(
        tuple(map(Fraction, pool)),
        tuple(map(Fraction, hill)),
        tuple(tuple(map(Fraction, r)) for r in w),
    )


def test_k96_4233_leningrad_closing_example() -> None:
    # K96 4.2.3.3: pools 54/48/48 at 50: the first takes 8 off his hill, the others add 4 each.
    for conv in (CLUB, LENINGRAD):
        s = settle(
            _sheet([54, 48, 48], [0, 0, 0]),
            [],
            conv,
            target=50,
            stake=Decimal("0.50"),
            ended="target",
        )
        assert ints(s.hills) == [-8, 4, 4]
        assert s.exact == (80, -40, -40)
        assert s.rounded == (80, -40, -40)
        assert s.money == (Decimal("40.00"), Decimal("-20.00"), Decimal("-20.00"))


def test_k96_published_settlement_42_96_132() -> None:
    # K96 4.2.14: hills 42/96/132, whists A→B 170, A→C 60, B→A 64, B→C 178, C→A 88, C→B 95.
    sheet = _sheet([20, 20, 20], [42, 96, 132], [[0, 170, 60], [64, 0, 178], [88, 95, 0]])
    s = settle(sheet, [], SOCHI, target=20, stake=Decimal("0.50"), ended="target")
    assert s.exact == (558, -83, -475)
    assert s.rounded == (558, -83, -475)
    assert s.to_json()["whists"] == ["558.00", "-83.00", "-475.00"]
    assert s.to_json()["money"] == ["279.00", "-41.50", "-237.50"]


def test_k96_4212_fractions_and_whole_whists() -> None:
    # K96 4.2.12: a hill of 1 at three players leaves thirds; whole whists sum to zero.
    s = settle(
        _sheet([10, 10, 10], [1, 0, 0]), [], SOCHI, target=10, stake=Decimal("1"), ended="target"
    )
    assert s.exact == (Fraction(-20, 3), Fraction(10, 3), Fraction(10, 3))
    assert s.shown == ("-6.67", "3.33", "3.33")
    assert s.rounded == (-6, 3, 3)  # remainders all 1/3: the lowest seat gets the unit
    assert sum(s.rounded) == 0


def test_largest_remainder_ties_to_lower_seat() -> None:
    assert largest_remainder([Fraction(1, 2), Fraction(-1, 2)]) == [1, -1]
    assert largest_remainder([Fraction(-1, 2), Fraction(1, 2)]) == [0, 0]
    assert largest_remainder([Fraction(10, 3), Fraction(10, 3), Fraction(-20, 3)]) == [4, 3, -7]
    assert largest_remainder([Fraction(1, 3), Fraction(1, 3), Fraction(-2, 3)]) == [1, 0, -1]


def test_money_in_kopecks_sums_to_zero() -> None:
    # R-P5: whole whists × stake in minor units; an odd stake still sums to zero.
    assert money([3, -1, -2], Decimal("0.50")) == [Decimal("1.5"), Decimal("-0.5"), Decimal("-1")]
    odd = money([1, 1, -2], Decimal("0.125"))
    assert sum(odd) == 0 and all(m == m.quantize(Decimal("0.01")) for m in odd)


def test_round_hundredths() -> None:
    assert round_hundredths(Fraction(37, 3)) == "12.33"
    assert round_hundredths(Fraction(-62, 3)) == "-20.67"
    assert round_hundredths(Fraction(1, 200)) == "0.01"
    assert round_hundredths(Fraction(-1, 1000)) == "0.00"


def test_club_ended_early_short_points_twice() -> None:
    # R-P9: club, each point short of the target goes on the hill twice.
    p = play([game(0, 1, "10NT", {2: "pass", 0: "pass"})], CLUB, target=20)
    p = p.close("agreement")
    s = p.settle()
    assert ints(s.hills) == [40, 20, 40]
    assert s.exact == (Fraction(-200, 3), Fraction(400, 3), Fraction(-200, 3))


@pytest.mark.parametrize("conv", [SOCHI, ROSTOV])
def test_help_ended_early_short_points_once(conv) -> None:
    # R-P9: Sochi/Rostov, each point short goes on the hill once.
    p = play([game(0, 1, "10NT", {2: "pass", 0: "whist"}, {1: 10, 2: 0, 0: 0})], conv, target=20)
    s = p.close("session_end").settle()
    assert ints(s.hills) == [20 + 10 * conv.whist_liability, 10, 20]


def test_help_overflow_goes_to_largest_pool_below_target() -> None:
    # §8 closing help (K96 4.2.3): points over the target help the opponent with the largest
    # pool below it, 10 whists a point; the sheet keeps the raw pool (PULKA_FORMAT.md).
    deals = [
        game(0, 1, "10H", {2: "pass", 0: "pass"}),  # 1: 10
        game(1, 2, "9H", {0: "pass", 1: "pass"}),  # 2: 8
        game(2, 1, "8H", {0: "pass", 2: "pass"}),  # 1: 16 -> 12 over target 12 -> helps 2 by 4
    ]
    p = play(deals, SOCHI, target=12)
    assert ints(p.sheet.pool) == [0, 16, 8]
    s = p.settle()
    assert ints(s.pools) == [0, 12, 12]
    assert s.help_whists[1][2] == 40
    assert not p.is_complete
    # nobody left below the target: the rest comes off the own hill (K96 4.1.1).
    p, _ = p.record(game(0, 1, "10S", {2: "pass", 0: "pass"}))  # 1 -> 10 more: 0 gets 10
    assert ints(p.pools) == [10, 12, 12]
    p, _ = p.record(game(1, 0, "9S", {1: "pass", 2: "pass"}))  # 0: +8 -> 2 to own, 6 over
    assert p.is_complete
    s = p.settle()
    assert ints(s.pools) == [12, 12, 12]
    assert ints(s.hills) == [-6, 0, 0]


def test_help_tie_goes_to_the_left() -> None:
    # §8 help: on a tie the one on the helper's left is helped.
    p = play([game(0, 1, "10H", {2: "pass", 0: "pass"})], SOCHI, target=6)
    s = p.settle()
    assert ints(s.pools) == [0, 6, 4]
    assert s.help_whists[1][2] == 40


def test_results_sum_to_zero_with_four_players() -> None:
    pulka = new(SOCHI, players=4, target=100)
    pulka, _ = pulka.record(game(0, 1, "6S", {2: "whist", 3: "whist"}, {1: 5, 2: 3, 3: 2}))
    s = pulka.settle()
    assert sum(s.exact) == 0 and sum(s.rounded) == 0 and sum(s.money) == 0
