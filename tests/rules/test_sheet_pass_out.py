"""Pass-outs: rates, progression, amnesty, zero-tricks bonus, Rostov whists (R-R4, R-R5, R-R6)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.core.rule_errors import InvalidRecordError
from tests.support.scoring import (
    CLUB,
    LENINGRAD,
    ROSTOV,
    SOCHI,
    game,
    ints,
    new,
    one,
    pass_out,
    play,
    whists,
)


def test_k96_amnesty_four_three_three() -> None:
    # R-R4 amnesty: 4/3/3 -> everyone's tricks reduced by 3, one trick at rate 2 is written.
    p = one(pass_out(0, {1: 4, 2: 3, 0: 3}))
    assert ints(p.sheet.hill) == [0, 2, 0]


@pytest.mark.parametrize(
    ("conv", "rates"),
    [(CLUB, [2, 4, 6, 6]), (LENINGRAD, [2, 4, 6, 6]), (SOCHI, [1, 2, 3, 3])],
)
def test_progression(conv, rates) -> None:
    # R-R5: rate per trick on the 1st, 2nd, 3rd and later consecutive pass-outs.
    deals = [pass_out(d % 3, {(d + 1) % 3: 2, (d + 2) % 3: 3, d % 3: 5}) for d in range(4)]
    pulka = new(conv, first_dealer=0)
    seen = []
    for d in deals:
        assert pulka.pass_out_rate() == rates[len(seen)]
        pulka, entries = pulka.record(d)
        seen.append(sum(e.amount for e in entries if e.column == "hill" and e.seat == d.dealer))
    assert seen == [3 * r for r in rates]


def test_game_resets_progression() -> None:
    # R-R5: any played game resets it; R-R6 exits 7 then 8, back to 6 after a game.
    p = play([pass_out(0, {1: 2, 2: 3, 0: 5})])
    assert (p.pass_out_streak, p.next_min_level(), p.pass_out_rate()) == (1, 7, 4)
    p, _ = p.record(pass_out(1, {2: 2, 0: 3, 1: 5}))
    assert (p.next_min_level(), p.pass_out_rate()) == (8, 6)
    p, _ = p.record(game(2, 0, "8S", {1: "pass", 2: "pass"}))
    assert (p.pass_out_streak, p.next_min_level(), p.pass_out_rate()) == (0, 6, 2)


@pytest.mark.parametrize(("conv", "levels"), [(CLUB, (7, 8)), (SOCHI, (6, 6)), (ROSTOV, (6, 6))])
def test_exit_levels(conv, levels) -> None:
    p = play([pass_out(0, {1: 2, 2: 3, 0: 5})], conv)
    assert p.next_min_level() == levels[0]
    p, _ = p.record(pass_out(1, {2: 2, 0: 3, 1: 5}))
    assert p.next_min_level() == levels[1]


def test_game_below_exit_level_rejected() -> None:
    p = play([pass_out(0, {1: 2, 2: 3, 0: 5})])
    with pytest.raises(InvalidRecordError) as err:
        p.record(game(1, 2, "6H", {0: "pass", 1: "pass"}))
    assert (err.value.deal, err.value.field) == (1, "contract")


@pytest.mark.parametrize(
    ("conv", "pool", "hill"),
    [
        (CLUB, [0, 0, 0], [-4, 2 * 4, 2 * 6]),  # hill minus two tricks at rate 2
        (LENINGRAD, [2, 0, 0], [0, 8, 12]),  # pool plus one trick at the rate
        (SOCHI, [1, 0, 0], [0, 4, 6]),
    ],
)
def test_zero_tricks_bonus(conv, pool, hill) -> None:
    # R-R4 raspasy_zero: a player with no tricks; amnesty is 0 then.
    p = one(pass_out(1, {2: 6, 0: 0, 1: 4}), conv)
    assert ints(p.sheet.pool) == pool
    assert ints(p.sheet.hill) == hill


def test_four_players_dealer_talon_tricks_count_for_amnesty() -> None:
    # R-R4: at four players the dealer's talon tricks count; none -> no amnesty, and he gets the
    # zero bonus as well (000: "в том числе сдающий").
    p = one(pass_out(3, {0: 3, 1: 4, 2: 3, 3: 0}), CLUB, players=4)
    assert ints(p.sheet.hill) == [6, 8, 6, -4]
    p = one(pass_out(3, {0: 3, 1: 4, 2: 2, 3: 1}), CLUB, players=4)
    assert ints(p.sheet.hill) == [4, 6, 2, 0]


def test_four_players_dealer_at_most_two_talon_tricks() -> None:
    with pytest.raises(InvalidRecordError) as err:
        one(pass_out(3, {0: 3, 1: 4, 2: 0, 3: 3}), CLUB, players=4)
    assert err.value.field == "tricks"


def test_rostov_k96_example() -> None:
    # K96 3.7.2.2 and its 3.9.14 example: A 2, B 1, C 7 -> B writes 10 on A and 35 on C;
    # no amnesty (K96 note 46).
    p = one(pass_out(2, {0: 2, 1: 1, 2: 7}), ROSTOV)
    assert whists(p) == [[0, 0, 0], [10, 0, 35], [0, 0, 0]]
    assert ints(p.sheet.hill) == [0, 0, 0]


def test_rostov_zero_tricks_one_point_and_tie() -> None:
    # Zero tricks: one point into the pool; two lowest takers share what they write.
    p = one(pass_out(2, {0: 0, 1: 0, 2: 10}), ROSTOV)
    assert ints(p.sheet.pool) == [1, 1, 0]
    assert whists(p) == [[0, 0, 25], [0, 0, 25], [0, 0, 0]]
    p = one(pass_out(2, {0: 3, 1: 3, 2: 4}), ROSTOV)
    assert p.sheet.whists[0][2] == p.sheet.whists[1][2] == 10
    p = one(pass_out(2, {0: 4, 1: 4, 2: 2}), ROSTOV)
    assert p.sheet.whists[2][0] == 20
    # At four players a shared write can be a half (exact, never rounded).
    p = one(pass_out(3, {0: 2, 1: 5, 2: 2, 3: 1}), ROSTOV, players=4)
    assert p.sheet.whists[0][1] == p.sheet.whists[2][1] == Fraction(25, 2)
    assert p.sheet.whists[0][3] == p.sheet.whists[2][3] == Fraction(5, 2)


def test_rostov_rate_does_not_progress() -> None:
    p = play([pass_out(0, {1: 2, 2: 3, 0: 5}), pass_out(1, {2: 2, 0: 3, 1: 5})], ROSTOV)
    assert whists(p)[1][0] == 25 and whists(p)[2][1] == 25


def test_pass_out_rejects_declarer_and_bad_sums() -> None:
    with pytest.raises(InvalidRecordError) as err:
        one(pass_out(0, {1: 4, 2: 3, 0: 4}))
    assert (err.value.deal, err.value.field) == (0, "tricks")
    assert "sum to 11" in err.value.message
