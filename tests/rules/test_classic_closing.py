"""003 30-31 (issue 26): a classic pulka is settled "по тому же расчёту" — a point written off
the stake is worth one remiz, so each pool point over or short of the target comes off or goes
on the hill once (K-12, ``closing = once``), where the club's closing counts it twice (R-P9).
A pulka stored before revision 0020 says ``"closing": "double"`` and keeps that reading.

Every figure is worked by hand in the test's docstring, through the engine (:class:`Pulka`,
:func:`settle`) and through ``prefclub score``.
"""

from __future__ import annotations

import io
import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from app.commands.score import run_score
from app.rules import (
    Conventions,
    DealOutcome,
    InvalidConventionError,
    Pulka,
    Sheet,
    parse_contract,
    settle,
)

CLASSIC = Conventions.preset_named("classic")


def _made(declarer: int, dealer: int, contract: str) -> DealOutcome:
    """A classic game nobody whisted: made unplayed, its value into the pool (K-7, K-9)."""
    others = [s for s in range(3) if s != declarer]
    return DealOutcome(
        kind="game",
        dealer=dealer,
        declarer=declarer,
        contract=parse_contract(contract),
        defence=dict.fromkeys(others, "pass"),
        tricks=None,
    )


def test_k12_the_classic_preset_closes_once() -> None:
    """K-12: the preset's closing is ``once``; the club's stays ``double`` (R-P9)."""
    assert CLASSIC.closing == "once"
    assert Conventions.preset_named("club").closing == "double"


def test_k12_a_pulka_ended_early_puts_each_point_short_on_the_hill_once() -> None:
    """Target 10. Anna makes 6♥ (4) and 6♦ (3): pool 7; Boris 6♣ (2): pool 2; Vera nothing.
    Ended by agreement. Points short 3 / 8 / 10, once each: hills 3, 8, 10; mean 7; 10 x (mean -
    hill): Anna +40, Boris -10, Vera -30 (the club's double would give 6, 16, 20: +80, -20,
    -60)."""
    pulka = Pulka.new(3, conventions=CLASSIC, target=10, stake="1", first_dealer=2)
    for o in (_made(0, 2, "6H"), _made(1, 0, "6C"), _made(0, 1, "6D")):
        pulka, _ = pulka.record(o)
    assert pulka.sheet.pool == (7, 2, 0)
    result = pulka.close("agreement").settle()
    assert result.hills == (3, 8, 10)
    assert result.rounded == (40, -10, -30)
    assert result.money == (Decimal("40"), Decimal("-10"), Decimal("-30"))


def test_k12_a_point_over_the_target_comes_off_the_hill_once() -> None:
    """Target 4, ended at the target: pools 6 / 4 / 4 (Anna's 6♥ on 2 passes the target by 2),
    hills 0 / 3 / 0. Corrected: 0 - 2 = -2, 3, 0; mean 1/3; 10 x (mean - hill): Anna +70/3,
    Boris -80/3, Vera +10/3 -> 23.33, -26.67, 3.33; whole whists 24, -27, 3 (R-P4: the
    missing whist to the largest remainder, three equal thirds, so to the lowest seat); at
    0.50 a whist: 12, -13.50, 1.50."""
    sheet = Sheet(
        pool=(Fraction(6), Fraction(4), Fraction(4)),
        hill=(Fraction(0), Fraction(3), Fraction(0)),
        whists=tuple((Fraction(0),) * 3 for _ in range(3)),
    )
    result = settle(sheet, (), CLASSIC, target=4, stake=Decimal("0.5"), ended="target")
    assert result.hills == (-2, 3, 0)
    assert result.shown == ("23.33", "-26.67", "3.33")
    assert result.rounded == (24, -27, 3)
    assert result.money == (Decimal("12"), Decimal("-13.5"), Decimal("1.5"))


RECORD: dict[str, Any] = {
    "format": "pulka/1",
    "conventions": {"preset": "classic"},
    "players": ["Anna", "Boris", "Vera"],
    "target": 10,
    "stake": "0.50",
    "ended": "agreement",
    "deals": [
        {
            "dealer": 2,
            "type": "game",
            "declarer": 0,
            "contract": "6H",
            "defence": {"1": "pass", "2": "pass"},
        },
        {
            "dealer": 0,
            "type": "game",
            "declarer": 1,
            "contract": "6S",
            "defence": {"2": "whist", "0": "pass"},
            "play": "closed",
            "tricks": {"1": 4, "2": 4, "0": 2},
        },
    ],
}
"""Anna makes 6♥ unwhisted (pool 4); Boris is two short on 6♠ (hill 2 x 1 = 2); Vera whisted
and took her two of his four (no remiz)."""


def _score(doc: dict[str, Any]) -> dict[str, Any]:
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(doc))) == 0
    return json.loads(out.getvalue())


def test_k12_prefclub_score_settles_a_classic_record_once() -> None:
    """``prefclub score``: pools 4 / 0 / 0, hills 0 / 2 / 0 against 10, ended by agreement.
    Once: hills 0 + 6, 2 + 10, 0 + 10 = 6, 12, 10; mean 28/3; 10 x (mean - hill): Anna +100/3,
    Boris -80/3, Vera -20/3 -> 33.33, -26.67, -6.67; whole 34, -27, -7 (the missing whist to the
    lowest of three equal remainders, R-P4); money at 0.50: 17.00, -13.50, -3.50."""
    result = _score(RECORD)
    assert result["sheet"]["pool"] == [4, 0, 0] and result["sheet"]["hill"] == [0, 2, 0]
    assert result["settlement"] == {
        "whists": ["33.33", "-26.67", "-6.67"],
        "rounded": [34, -27, -7],
        "money": ["17.00", "-13.50", "-3.50"],
    }


def test_k12_a_record_stored_with_the_double_closing_keeps_it() -> None:
    """A classic pulka stored before revision 0020 says ``"closing": "double"``: hills 0 + 12,
    2 + 20, 0 + 20 = 12, 22, 20; mean 18; Anna +60, Boris -40, Vera -20; at 0.50: 30, -20, -10."""
    doc = {**RECORD, "conventions": {"preset": "classic", "closing": "double"}}
    assert _score(doc)["settlement"] == {
        "whists": ["60.00", "-40.00", "-20.00"],
        "rounded": [60, -40, -20],
        "money": ["30.00", "-20.00", "-10.00"],
    }


def test_k12_classic_overrides_only_its_closing() -> None:
    """The closing is the one convention a classic table or record may name; any other is
    refused as before (K-13: classic has none of the club's switches)."""
    assert Conventions.from_mapping({"preset": "classic", "closing": "double"}).closing == "double"
    with pytest.raises(InvalidConventionError):
        Conventions.from_mapping({"preset": "classic", "stalingrad": True})
    with pytest.raises(InvalidConventionError):
        Conventions.from_mapping({"preset": "classic", "closing": "twice"})
