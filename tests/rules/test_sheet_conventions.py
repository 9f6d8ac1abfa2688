"""RULES.md §8's preset table, row by row, under every preset (club = Leningrad where 000 is
silent; Sochi; Rostov). Each test names the row it checks."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules.core.rule_errors import InvalidRecordError
from tests.support.scoring import (
    PRESETS,
    game,
    ints,
    misere,
    one,
    pass_out,
    play,
    whists,
)

ALL = list(PRESETS)


def _expect(table: dict[str, object]) -> list[tuple[str, object]]:
    assert set(table) == set(PRESETS)
    return list(table.items())


@pytest.mark.parametrize(("preset", "pool"), _expect({p: 4 for p in ALL}))
def test_row_contract_made(preset, pool) -> None:
    assert (
        ints(one(game(0, 1, "7D", {2: "pass", 0: "pass"}), PRESETS[preset]).sheet.pool)[1] == pool
    )


@pytest.mark.parametrize(
    ("preset", "hill"), _expect({"club": 8, "leningrad": 8, "sochi": 4, "rostov": 4})
)
def test_row_each_undertrick(preset, hill) -> None:
    p = one(game(0, 1, "7D", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}), PRESETS[preset])
    assert ints(p.sheet.hill)[1] == hill


@pytest.mark.parametrize(
    ("preset", "per_trick"), _expect({"club": 8, "leningrad": 8, "sochi": 4, "rostov": 4})
)
def test_row_each_defender_trick(preset, per_trick) -> None:
    p = one(game(0, 1, "7D", {2: "whist", 0: "whist"}, {1: 7, 2: 2, 0: 1}), PRESETS[preset])
    assert whists(p)[2][1] == 2 * per_trick and whists(p)[0][1] == per_trick


@pytest.mark.parametrize(
    ("preset", "each"), _expect({"club": 4, "leningrad": 4, "sochi": 4, "rostov": 10})
)
def test_row_consolation(preset, each) -> None:
    # consolation from every opponent; declarer 7, down one, two passes cannot go down so whist
    p = one(game(0, 1, "7D", {2: "whist", 0: "whist"}, {1: 6, 2: 4, 0: 0}), PRESETS[preset])
    tw = 4 * PRESETS[preset].whist_multiplier
    assert whists(p)[2][1] == 4 * tw + each and whists(p)[0][1] == each


@pytest.mark.parametrize(
    ("preset", "hill"), _expect({"club": 4, "leningrad": 4, "sochi": 4, "rostov": 2})
)
def test_row_whisters_short(preset, hill) -> None:
    p = one(game(0, 1, "7D", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0}), PRESETS[preset])
    assert ints(p.sheet.hill)[2] == hill


@pytest.mark.parametrize(
    ("preset", "made", "per_trick"),
    [("club", 10, 20), ("leningrad", 10, 20), ("sochi", 10, 10), ("rostov", 10, 10)],
)
def test_row_misere(preset, made, per_trick) -> None:
    assert ints(one(misere(0, 1, {1: 0, 2: 5, 0: 5}), PRESETS[preset]).sheet.pool)[1] == made
    assert ints(one(misere(0, 1, {1: 1, 2: 5, 0: 4}), PRESETS[preset]).sheet.hill)[1] == per_trick


@pytest.mark.parametrize(
    ("preset", "expected"),
    _expect(
        {
            "club": (16 + 4, 16 + 4),  # gentleman: halves of 4 tricks × 8, plus consolation
            "leningrad": (16 + 4, 16 + 4),
            "sochi": (16 + 4, 4),  # greedy: the passer writes only his consolation
            "rostov": (16 + 10, 10),
        }
    ),
)
def test_row_whist_style(preset, expected) -> None:
    p = one(game(0, 1, "7H", {2: "whist", 0: "pass"}, {1: 6, 2: 3, 0: 1}), PRESETS[preset])
    assert (whists(p)[2][1], whists(p)[0][1]) == expected


@pytest.mark.parametrize(
    ("preset", "hills"),
    _expect(
        {
            "club": [2, 4, 6],
            "leningrad": [2, 4, 6],
            "sochi": [1, 2, 3],
            "rostov": [0, 0, 0],
        }
    ),
)
def test_row_pass_out_rates(preset, hills) -> None:
    deals = [pass_out(d, {(d + 1) % 3: 2, (d + 2) % 3: 4, d: 4}) for d in range(3)]
    p = play(deals, PRESETS[preset])
    per_deal = [
        sum(e.amount for e in p.entries if e.deal == k and e.column == "hill") // 4
        for k in range(3)
    ]
    assert per_deal == hills
    if preset == "rostov":  # lowest taker writes 5 whists per trick on each other player
        assert whists(p)[1][2] == 20 and whists(p)[1][0] == 20


@pytest.mark.parametrize(
    ("preset", "expected"),
    _expect(
        {
            "club": (0, -4),
            "leningrad": (2, 0),
            "sochi": (1, 0),
            "rostov": (1, 0),
        }
    ),
)
def test_row_pass_out_zero_tricks(preset, expected) -> None:
    p = one(pass_out(0, {1: 0, 2: 5, 0: 5}), PRESETS[preset])
    assert (ints(p.sheet.pool)[1], ints(p.sheet.hill)[1]) == expected


@pytest.mark.parametrize(
    ("preset", "exits"),
    _expect({"club": (6, 7, 8), "leningrad": (6, 7, 8), "sochi": (6, 6, 6), "rostov": (6, 6, 6)}),
)
def test_row_pass_out_exit(preset, exits) -> None:
    c = PRESETS[preset]
    assert tuple(c.minimum_level(k) for k in (0, 1, 2)) == exits


@pytest.mark.parametrize(
    ("preset", "results"),
    _expect(
        {
            # pools 0/12/2 at target 10, ended by agreement.
            # double: hills 20/-4/16 (over off twice, short on twice), mean 32/3
            "club": (Fraction(-280, 3), Fraction(440, 3), Fraction(-160, 3)),
            "leningrad": (Fraction(-280, 3), Fraction(440, 3), Fraction(-160, 3)),
            # help: seat 1's 2 points over the target help seat 2 (20 whists); pools 0/10/4,
            # hills 10/0/6 (short once), mean 16/3
            "sochi": (Fraction(-140, 3), Fraction(220, 3), Fraction(-80, 3)),
            "rostov": (Fraction(-140, 3), Fraction(220, 3), Fraction(-80, 3)),
        }
    ),
)
def test_row_closing(preset, results) -> None:
    deals = [
        game(0, 1, "10H", {2: "pass", 0: "pass"}),
        game(1, 2, "6H", {0: "pass", 1: "pass"}),
        game(2, 1, "6H", {0: "pass", 2: "pass"}),
    ]
    p = play(deals, PRESETS[preset], target=10)
    assert ints(p.sheet.pool) == [0, 12, 2]
    s = p.close("agreement").settle()
    assert s.exact == results


@pytest.mark.parametrize(
    ("preset", "checked"),
    _expect({"club": True, "leningrad": False, "sochi": False, "rostov": False}),
)
def test_row_tens(preset, checked) -> None:
    whisted = game(0, 1, "10S", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0})
    if checked:
        with pytest.raises(InvalidRecordError):
            one(whisted, PRESETS[preset])
        p = one(game(0, 1, "10S", {2: "pass", 0: "pass"}, {1: 9, 2: 1, 0: 0}), PRESETS[preset])
        assert (whists(p)[2][1], whists(p)[0][1]) == (10, 10)  # consolation only
    else:
        p = one(whisted, PRESETS[preset])
        # one defence trick: Leningrad 20 split in halves (gentleman), Sochi/Rostov 10 to the
        # whister (greedy); plus consolation 10 from each.
        expected = {"leningrad": (20, 20), "sochi": (20, 10), "rostov": (20, 10)}[preset]
        assert (whists(p)[2][1], whists(p)[0][1]) == expected


@pytest.mark.parametrize(
    ("preset", "stalingrad"),
    _expect({"club": True, "leningrad": False, "sochi": False, "rostov": False}),
)
def test_row_half_whist_and_stalingrad(preset, stalingrad) -> None:
    c = PRESETS[preset]
    one(game(0, 1, "6H", {2: "pass", 0: "half"}), c)  # half-whist on under every preset
    half_on_6s = game(0, 1, "6S", {2: "pass", 0: "half"})
    if stalingrad:
        with pytest.raises(InvalidRecordError):
            one(half_on_6s, c)
    else:
        one(half_on_6s, c)


@pytest.mark.parametrize(
    ("preset", "bonus"), _expect({"club": 24, "leningrad": 0, "sochi": 0, "rostov": 0})
)
def test_row_talon_bonus(preset, bonus) -> None:
    o = game(3, 0, "7S", {1: "pass", 2: "pass"}, talon=("AS", "AD"))
    assert whists(one(o, PRESETS[preset], players=4))[3][0] == bonus


@pytest.mark.parametrize("preset", [p for p in ALL if p != "club"])
def test_row_talon_return_penalty_off_but_in_the_club(preset) -> None:
    """R-C6: on in the club preset only (000, issue 12); a returned talon elsewhere is refused."""
    assert PRESETS["club"].talon_return_penalty
    with pytest.raises(InvalidRecordError):
        one(game(0, 1, "7S", {2: "pass", 0: "pass"}, talon_returned=True), PRESETS[preset])
