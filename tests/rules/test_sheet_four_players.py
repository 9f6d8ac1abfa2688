"""Four-player scoring: dealer's consolation, talon bonus, dealer's whist, talon return, penalties.

R-T6, R-C5, R-C6, R-W5, R-P1 and the recorded penalties of RULES.md §10.
"""

from __future__ import annotations

import pytest

from app.rules.core.rule_errors import InvalidRecordError
from tests.support.scoring import (
    CLUB,
    LENINGRAD,
    SOCHI,
    conceded,
    game,
    ints,
    misere,
    one,
    penalty,
    whists,
)

# Four players, dealer 3: forehand 0; declarer 0's defenders are 1 (first) and 2 (second).


def test_dealer_writes_consolation() -> None:
    # R-P1: consolation by every opponent, the four-player dealer included.
    p = one(game(3, 0, "7S", {1: "whist", 2: "whist"}, {0: 6, 1: 2, 2: 2}), SOCHI, players=4)
    assert [row[0] for row in whists(p)] == [0, 2 * 4 + 4, 2 * 4 + 4, 4]


def test_declarer_cannot_be_the_dealer() -> None:
    with pytest.raises(InvalidRecordError) as err:
        one(game(3, 3, "7S", {0: "pass", 1: "pass"}), CLUB, players=4)
    assert err.value.field == "declarer"


@pytest.mark.parametrize(
    ("talon", "tricks"),
    [
        (("AS", "AH"), 3),
        (("AS", "KS"), 2),
        (("A♦", "K♣"), 1),
        (("KH", "QH"), 1),
        (("7H", "QH"), 0),
        (("10D", "AD"), 1),
    ],
)
def test_talon_bonus_club(talon, tricks) -> None:
    # R-C5: the dealer writes on the declarer as for tricks on the named game (7: 8 a trick).
    o = game(3, 0, "7S", {1: "pass", 2: "pass"}, talon=talon)
    p = one(o, CLUB, players=4)
    assert whists(p)[3][0] == tricks * 8
    # Leningrad (talon_bonus off) writes nothing for the talon.
    assert whists(one(o, LENINGRAD, players=4))[3][0] == 0


def test_dealer_whists_on_eight_after_two_passes() -> None:
    # R-W5: only the dealer may whist after two passes on 8+; he plays both hands and answers
    # for them alone (one whister, R-P1); no gentleman split without a single passer.
    o = game(3, 0, "8H", {1: "pass", 2: "pass", 3: "whist"}, {0: 7, 1: 2, 2: 1})
    p = one(o, LENINGRAD, players=4)
    assert whists(p)[3][0] == 3 * 12 + 6  # trick whists for both hands + consolation
    assert whists(p)[1][0] == 6 and whists(p)[2][0] == 6
    with pytest.raises(InvalidRecordError):
        one(game(3, 0, "7H", {1: "pass", 2: "pass", 3: "whist"}, {0: 7, 1: 2, 2: 1}), players=4)


def test_dealer_returns_half_whist() -> None:
    # R-W4: at four players the dealer may return the whist, last.
    o = game(3, 0, "6H", {1: "pass", 2: "pass", 3: "whist"}, {0: 6, 1: 2, 2: 2}, returned_from=2)
    p = one(o, CLUB, players=4)
    assert whists(p)[3][0] == 4 * 4 and whists(p)[2][0] == 0


def test_dealer_cannot_pass_in_defence() -> None:
    with pytest.raises(InvalidRecordError) as err:
        one(game(3, 0, "6H", {1: "whist", 2: "whist", 3: "pass"}, {0: 6, 1: 2, 2: 2}), players=4)
    assert err.value.field == "defence"


def test_talon_return_penalty() -> None:
    # R-C6: with the convention on, the dealer writes the cost of the game into his own hill.
    o = game(3, 0, "7S", {1: "pass", 2: "pass"}, talon_returned=True)
    with pytest.raises(InvalidRecordError) as err:
        one(o, CLUB.with_overrides({"talon_return_penalty": False}), players=4)
    assert err.value.field == "talon_returned"
    p = one(o, CLUB, players=4)  # on in the club preset (issue 12)
    assert ints(p.sheet.hill) == [0, 0, 0, 4]
    assert ints(p.sheet.pool) == [4, 0, 0, 0]


def test_misere_and_conceded_at_four() -> None:
    assert ints(one(misere(3, 1, {0: 5, 1: 0, 2: 5}), players=4).sheet.pool) == [0, 10, 0, 0]
    p = one(conceded(3, 2, "6NT"), SOCHI, players=4)
    assert [row[2] for row in whists(p)] == [6, 6, 0, 6]


def test_physical_table_penalties() -> None:
    # §10: the scorer's catalogue penalties are written with the rule they cite (R-X4, R-X6).
    o = game(
        0,
        1,
        "6H",
        {2: "pass", 0: "pass"},
        penalties=(penalty(2, "talon_seen", hill=5), penalty(0, "wrong_card_count")),
    )
    p = one(o)
    assert ints(p.sheet.hill) == [12, 0, 5]
    assert [e.rule for e in p.entries][-2:] == ["R-X4", "R-X6"]
