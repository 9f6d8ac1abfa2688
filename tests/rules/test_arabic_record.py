"""Arabic preferans (seed 004) in ``pulka/1`` records and ``prefclub score``; whist rules A-15."""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import pytest

from app.commands.score import run_score
from app.rules import Conventions
from app.rules.core.outcome import Penalty
from app.rules.core.rule_errors import InvalidRecordError
from tests.support.scoring import arabic_record, game, ints, new

ARABIC = Conventions.preset_named("arabic").with_overrides({"opening_bombs": 0})

RECORD: dict[str, Any] = arabic_record(
    [
        {"dealer": 0, "type": "pass_out", "tricks": {"1": 4, "2": 3, "0": 3}},
        {"dealer": 1, "type": "pass_out", "tricks": {"2": 4, "0": 3, "1": 3}},
        {"dealer": 2, "type": "pass_out", "tricks": {"0": 4, "1": 3, "2": 3}},
        {"dealer": 0, "type": "pass_out", "tricks": {"1": 0, "2": 5, "0": 5}},
        {
            "dealer": 0,
            "type": "game",
            "declarer": 1,
            "contract": "7H",
            "defence": {"2": "pass", "0": "pass"},
        },
        {"dealer": 1, "type": "pass_out", "tricks": {"2": 4, "0": 3, "1": 3}},
    ],
    opening_bombs=1,
)


def test_a1_a3_a5_prefclub_score_rescores_an_arabic_record() -> None:
    """A-1, A-3, A-5, R-A1, R-A2: one opening bomb (three pass-outs ×2, and a ×2 bomb written
    to every player), an all-pass that keeps the deal with dealer 0, seat 1's 7♥ exit made on
    his bomb (price 4 × 2 = 8 into the pool, which uses it up), then the deal passes to seat 1
    at rate 1."""
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(RECORD))) == 0
    scored = json.loads(out.getvalue())
    assert scored["sheet"]["pool"] == [0, 1 + 4 * 2, 0]
    assert scored["sheet"]["hill"] == [2 + 5, 2, 2 + 5 + 1]


def test_a5_a_record_that_passes_the_deal_after_an_all_pass_is_refused() -> None:
    """A-5: seat 1 cannot deal after dealer 0's all-pass; ``prefclub score`` says where."""
    bad = json.loads(json.dumps(RECORD))
    bad["deals"][4]["dealer"] = 1
    bad["deals"][4]["defence"] = {"2": "pass", "0": "pass"}
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(bad))) == 2
    error = json.loads(out.getvalue())["error"]
    assert error["deal"] == 4 and error["field"] == "dealer"


def test_a15_seven_asks_two_of_one_whister_and_one_of_a_half_whister() -> None:
    """A-15: on 7 a lone whister owes two tricks (one short: price 4 into his hill)."""
    pulka = new(ARABIC, first_dealer=0)
    pulka, _ = pulka.record(game(0, 1, "7H", {2: "whist", 0: "pass"}, {1: 9, 2: 1, 0: 0}))
    assert ints(pulka.sheet.hill) == [0, 0, 4]


def test_a15_no_half_whist_on_eight() -> None:
    """A-15: "Восьмерная — … полвиста не допускаются"."""
    pulka = new(ARABIC, first_dealer=0)
    with pytest.raises(InvalidRecordError):
        pulka.record(game(0, 1, "8H", {2: "pass", 0: "half"}))


def test_a15_two_whists_on_nine_the_last_whister_answers() -> None:
    """A-15: two whists on 9; no trick taken: the last whister writes the hill (price 8)."""
    pulka = new(ARABIC, first_dealer=0)
    pulka, _ = pulka.record(game(0, 1, "9H", {2: "whist", 0: "whist"}, {1: 10, 2: 0, 0: 0}))
    assert ints(pulka.sheet.hill) == [8, 0, 0]


def test_two_revokes_after_the_declarers_own_are_refused_not_crashing() -> None:
    """R-X9 (found by the penalties property suite): the declarer's revoke makes the deal
    "без трёх"; a second revoke fine in the same deal is an invalid record, not a crash."""
    pulka = new(first_dealer=1)
    outcome = game(1, 2, "7H", {0: "whist", 1: "pass"}, {2: 6, 0: 3, 1: 1})
    outcome = dataclasses.replace(
        outcome,
        penalties=(Penalty(seat=2, rule="late_revoke"), Penalty(seat=0, rule="late_revoke")),
    )
    with pytest.raises(InvalidRecordError) as err:
        pulka.record(outcome)
    assert err.value.field == "penalties"
