"""Scoring trick games, misère and conceded games (RULES.md §8, R-P1, R-P2, R-P3, R-W4, R-C4)."""

from __future__ import annotations

import pytest

from app.rules.core.rule_errors import InvalidRecordError
from tests.support.scoring import (
    CLUB,
    LENINGRAD,
    ROSTOV,
    SOCHI,
    conceded,
    game,
    ints,
    misere,
    one,
    whists,
)

# Three players, dealer 0: forehand 1. Declarer 1's defenders are 2 (first) and 0 (second).


def test_made_without_whist_goes_into_the_pool() -> None:
    # R-P1: contract made -> price into the pool; two passes: no play, no whists.
    p = one(game(0, 1, "7H", {2: "pass", 0: "pass"}))
    assert ints(p.sheet.pool) == [0, 4, 0]
    assert ints(p.sheet.hill) == [0, 0, 0]
    assert whists(p) == [[0] * 3] * 3


@pytest.mark.parametrize(("conv", "pool", "each"), [(CLUB, 2, 4), (SOCHI, 2, 2)])
def test_two_whisters_each_write_for_his_own_tricks(conv, pool, each) -> None:
    # R-P1 two whisters; whist_multiplier club 2, Sochi 1 (price of 6 = 2).
    p = one(game(0, 1, "6S", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}), conv)
    assert ints(p.sheet.pool) == [0, pool, 0]
    assert p.sheet.whists[2][1] == 2 * each
    assert p.sheet.whists[0][1] == 2 * each
    assert ints(p.sheet.hill) == [0, 0, 0]


def test_k96_386_two_whisters_one_short() -> None:
    # R-P2, K96 3.8.6: 6♦ whisted by two, one took 2 and one 1 -> the second writes one trick.
    p = one(game(0, 1, "6D", {2: "whist", 0: "whist"}, {1: 7, 2: 2, 0: 1}))
    assert ints(p.sheet.hill) == [2, 0, 0]  # 1 missing trick × price 2 × liability 1
    assert p.sheet.whists[2][1] == 2 * 4 and p.sheet.whists[0][1] == 1 * 4


def test_k96_386_declarer_took_nine() -> None:
    # R-P2, K96 3.8.6: declarer took 9 -> the one with 1 writes one, the one with none two.
    p = one(game(0, 1, "6D", {2: "whist", 0: "whist"}, {1: 9, 2: 1, 0: 0}))
    assert ints(p.sheet.hill) == [4, 0, 2]


def test_two_whisters_enough_together_no_liability() -> None:
    # K96 3.8.6: liability only when the whisters together are short.
    p = one(game(0, 1, "6D", {2: "whist", 0: "whist"}, {1: 6, 2: 3, 0: 1}))
    assert ints(p.sheet.hill) == [0, 0, 0]


def test_eight_second_whister_alone_answers() -> None:
    # R-W2: on 8, 9, 10 the second whister alone answers for the trick.
    p = one(game(0, 1, "8C", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}), LENINGRAD)
    assert ints(p.sheet.hill) == [6, 0, 0]


@pytest.mark.parametrize(("conv", "hill"), [(CLUB, 2), (LENINGRAD, 2), (SOCHI, 2), (ROSTOV, 1)])
def test_one_whister_liability(conv, hill) -> None:
    # R-P2 responsible whist; whist_liability club/Sochi 1, Rostov 0.5 (half-responsible).
    p = one(game(0, 1, "6H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1}), conv)
    assert ints(p.sheet.hill) == [0, 0, hill]


def test_one_whister_counts_both_hands_when_made() -> None:
    # R-P1: one whister, both defending hands count for him; made -> he writes all (any style).
    p = one(game(0, 1, "6H", {2: "whist", 0: "pass"}, {1: 6, 2: 1, 0: 3}))
    assert whists(p)[2][1] == 4 * 4
    assert whists(p)[0][1] == 0


def test_gentleman_splits_when_declarer_down() -> None:
    # §8 whist style, club gentleman: trick whists split in half between whister and passer.
    p = one(game(0, 1, "7H", {2: "whist", 0: "pass"}, {1: 6, 2: 3, 0: 1}), CLUB)
    # 4 defence tricks × 8 = 32, halves of 16; consolation 1 × 4 each; hill 1 × 4 × 2.
    assert whists(p) == [[0, 16 + 4, 0], [0, 0, 0], [0, 16 + 4, 0]]
    assert ints(p.sheet.hill) == [0, 8, 0]


@pytest.mark.parametrize("conv", [SOCHI, ROSTOV])
def test_greedy_whister_writes_all_when_declarer_down(conv) -> None:
    # §8 whist style greedy (Sochi, Rostov): the whister writes all, the passer only consolation.
    p = one(game(0, 1, "7H", {2: "whist", 0: "pass"}, {1: 6, 2: 3, 0: 1}), conv)
    cons = 4 if conv is SOCHI else 10
    assert whists(p)[2][1] == 4 * 4 + cons
    assert whists(p)[0][1] == cons
    assert ints(p.sheet.hill) == [0, 4, 0]


def test_gentleman_override_under_sochi() -> None:
    p = one(
        game(0, 1, "7H", {2: "whist", 0: "pass"}, {1: 6, 2: 3, 0: 1}),
        SOCHI.with_overrides({"whist_style": "gentleman"}),
    )
    assert whists(p)[2][1] == 8 + 4 and whists(p)[0][1] == 8 + 4


@pytest.mark.parametrize(
    ("conv", "under_hill", "cons"),
    [(CLUB, 2 * 2 * 2, 2 * 2), (LENINGRAD, 8, 4), (SOCHI, 2 * 2, 2 * 2), (ROSTOV, 4, 20)],
)
def test_undertricks_and_consolation(conv, under_hill, cons) -> None:
    # §8: each undertrick p×remiz_multiplier into the hill; consolation per undertrick by every
    # opponent (price; Rostov fixed 10).
    p = one(game(0, 1, "6C", {2: "whist", 0: "whist"}, {1: 4, 2: 3, 0: 3}), conv)
    tw = 2 * conv.whist_multiplier
    assert ints(p.sheet.hill) == [0, under_hill, 0]
    assert whists(p)[2][1] == 3 * tw + cons
    assert whists(p)[0][1] == 3 * tw + cons


@pytest.mark.parametrize(("conv", "amount"), [(CLUB, 8), (LENINGRAD, 8), (SOCHI, 4), (ROSTOV, 4)])
def test_half_whist_on_six(conv, amount) -> None:
    # R-W4: half-whist on 6: game made without play, half-whister writes for 2 tricks.
    p = one(game(0, 1, "6H", {2: "pass", 0: "half"}), conv)
    assert ints(p.sheet.pool) == [0, 2, 0]
    assert whists(p)[0][1] == amount


def test_half_whist_on_seven() -> None:
    p = one(game(0, 1, "7D", {2: "pass", 0: "half"}))
    assert whists(p)[0][1] == 1 * 8


def test_half_whist_on_eight_rejected() -> None:
    with pytest.raises(InvalidRecordError) as err:
        one(game(0, 1, "8D", {2: "pass", 0: "half"}))
    assert err.value.field == "defence" and err.value.deal == 0


def test_half_whist_off() -> None:
    with pytest.raises(InvalidRecordError):
        one(game(0, 1, "6H", {2: "pass", 0: "half"}), CLUB.with_overrides({"half_whist": False}))


@pytest.mark.parametrize(("conv", "returner"), [(CLUB, 20 + 2), (SOCHI, 10 + 2)])
def test_returned_whist_declarer_down(conv, returner) -> None:
    # R-W4 returned whist, R-P3: the half-whister writes nothing but his consolation.
    o = game(0, 1, "6H", {2: "whist", 0: "pass"}, {1: 5, 2: 4, 0: 1}, returned_from=0)
    p = one(o, conv)
    assert whists(p)[2][1] == returner
    assert whists(p)[0][1] == 2  # consolation only
    assert ints(p.sheet.hill) == [0, 2 * conv.remiz_multiplier, 0]


def test_returned_whist_must_name_the_half_whister() -> None:
    o = game(0, 1, "6H", {2: "whist", 0: "pass"}, {1: 5, 2: 4, 0: 1}, returned_from=2)
    with pytest.raises(InvalidRecordError) as err:
        one(o)
    assert err.value.field == "returned_from"


@pytest.mark.parametrize(("conv", "ok"), [(CLUB, False), (LENINGRAD, True), (SOCHI, True)])
def test_stalingrad(conv, ok) -> None:
    # R-W6: under the club's Stalingrad 6♠ must be whisted by both.
    o = game(0, 1, "6S", {2: "whist", 0: "pass"}, {1: 6, 2: 3, 0: 1})
    if ok:
        one(o, conv)
    else:
        with pytest.raises(InvalidRecordError) as err:
            one(o, conv)
        assert err.value.field == "defence"


def test_checked_ten_club() -> None:
    # R-W9: the club checks tens: nobody whists; made -> pool 10.
    with pytest.raises(InvalidRecordError):
        one(game(0, 1, "10NT", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}))
    p = one(game(0, 1, "10NT", {2: "pass", 0: "pass"}))
    assert ints(p.sheet.pool) == [0, 10, 0]
    # a failed check: remiz as usual (hill and consolation), no trick whists.
    p = one(game(0, 1, "10NT", {2: "pass", 0: "pass"}, {1: 9, 2: 1, 0: 0}))
    assert ints(p.sheet.hill) == [0, 20, 0]
    assert whists(p) == [[0, 10, 0], [0, 0, 0], [0, 10, 0]]


def test_whisted_ten_leningrad() -> None:
    # ten_checked off: tens are whisted, requirement 1.
    p = one(game(0, 1, "10NT", {2: "whist", 0: "pass"}, {1: 10, 2: 0, 0: 0}), LENINGRAD)
    assert ints(p.sheet.pool) == [0, 10, 0]
    assert ints(p.sheet.hill) == [0, 0, 10]


@pytest.mark.parametrize(("conv", "hill"), [(CLUB, 40), (LENINGRAD, 40), (SOCHI, 20), (ROSTOV, 20)])
def test_misere(conv, hill) -> None:
    # §8 misère: made 10 into the pool; failed 10×misere_multiplier per trick; no whists (R-P1).
    assert ints(one(misere(0, 1, {1: 0, 2: 5, 0: 5}), conv).sheet.pool) == [0, 10, 0]
    p = one(misere(0, 1, {1: 2, 2: 4, 0: 4}), conv)
    assert ints(p.sheet.hill) == [0, hill, 0]
    assert whists(p) == [[0] * 3] * 3


def test_misere_with_contract_rejected() -> None:
    from dataclasses import replace

    o = replace(misere(0, 1, {1: 0, 2: 5, 0: 5}), contract=game(0, 1, "8S", {}).contract)
    with pytest.raises(InvalidRecordError) as err:
        one(o)
    assert err.value.field == "contract"


@pytest.mark.parametrize(
    ("conv", "hill", "cons"), [(CLUB, 36, 18), (SOCHI, 18, 18), (ROSTOV, 18, 30)]
)
def test_conceded_down_three(conv, hill, cons) -> None:
    # R-C4: three undertricks, consolation for three, no trick whists.
    p = one(conceded(0, 2, "8NT"), conv)
    assert ints(p.sheet.hill) == [0, 0, hill]
    assert whists(p) == [[0, 0, cons], [0, 0, cons], [0, 0, 0]]


def test_entries_name_deal_and_rule() -> None:
    # R-P6: every write is an entry naming its deal and rule; the sheet is their sum.
    p = one(game(0, 1, "7H", {2: "whist", 0: "pass"}, {1: 6, 2: 3, 0: 1}))
    assert all(e.deal == 0 and e.rule.startswith("R-") for e in p.entries)
    assert {e.rule for e in p.entries} == {"R-P1"}


def test_running_totals_as_the_club_writes_them() -> None:
    # R-P6: after each deal the new running total of every changed column is written.
    from app.rules.scoring.sheet import running_totals
    from tests.support.scoring import play

    p = play(
        [
            game(0, 1, "7H", {2: "pass", 0: "pass"}),
            game(1, 2, "6S", {0: "whist", 1: "whist"}, {2: 6, 0: 2, 1: 2}),
            game(2, 1, "6H", {0: "whist", 2: "pass"}, {1: 7, 0: 2, 2: 1}),
        ]
    )
    lines = [(ln.deal, ln.seat, ln.column, ln.total, ln.on) for ln in running_totals(p.entries)]
    assert lines == [
        (0, 1, "pool", 4, None),
        (1, 2, "pool", 2, None),
        (1, 0, "whists", 8, 2),
        (1, 1, "whists", 8, 2),
        (2, 1, "pool", 6, None),
        (2, 0, "whists", 12, 1),
        (2, 0, "hill", 2, None),
    ]
