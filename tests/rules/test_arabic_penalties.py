"""Seed 004's own penalties (A-23..A-25; issue 26), recorded like the club's catalogue (§10).

004: «Снос не по масти — провинившемуся пишется в гору игра с учетом бомбы»; «За заклад
(который можно доказать) — игроку пишется игра в гору с учетом бомбы, на которой он играл. За
недоказуемый заклад… ничего не пишется»; «Открылась карта при сдаче — ничего не пишется, но
пересдавать или нет решает тот игрок». Every deal is hand-built: a dark pass-out (nobody passed
openly) gives every seat a bomb ×2 (R-A1); the next deal (the dealer stays, A-5; the 7 exit,
A-4) is seat 1's 7♥ on his ×2, whisted by both, 7-2-1. Prices: 7 → 4; Sochi whists = price per
trick.
"""

from __future__ import annotations

import dataclasses
import io
import json
from fractions import Fraction

import pytest

from app.commands.score import run_score
from app.rules import Conventions
from app.rules.core.outcome import Penalty, seat_marks
from app.rules.core.rule_errors import InvalidRecordError
from app.rules.scoring.pulka import Pulka
from tests.support.scoring import arabic_record, game, new, pass_out, penalty

NO_OPENING = Conventions.preset_named("arabic").with_overrides({"opening_bombs": 0})
DARK = frozenset({"dark"})


def _on_his_bomb(*penalties: Penalty) -> list[tuple[int, str, Fraction, str]]:
    """The writes of seat 1's 7♥ on ×2 with ``penalties``: (seat, column, amount, rule)."""
    pulka = new(NO_OPENING, first_dealer=0)
    dark = dataclasses.replace(
        pass_out(0, {1: 4, 2: 3, 0: 3}), marks=DARK | seat_marks("open_passes", ())
    )
    pulka, _ = pulka.record(dark)
    assert pulka.seat_marks()[1] == {"bombs": 1, "next_game": 2}
    seven = game(0, 1, "7H", {2: "whist", 0: "whist"}, {1: 7, 2: 2, 0: 1}, penalties=penalties)
    _, entries = pulka.record(seven)
    return [(e.seat, e.column, e.amount, e.rule) for e in entries]


GAME_ON_X2 = [
    (1, "pool", Fraction(8), "R-P1"),
    (2, "whists", Fraction(16), "R-P1"),
    (0, "whists", Fraction(8), "R-P1"),
]
"""The 7♥ itself × 2: pool 4 × 2; seat 2's 2 tricks × 4 × 2, seat 0's 1 × 4 × 2."""


def test_a23_an_off_suit_discard_writes_the_game_times_the_bomb() -> None:
    """A-23: seat 0 (a whister) discarded off suit: the game (7: 4) × the deal's bomb (2) = 8
    into his hill, beside the game's own writes."""
    writes = _on_his_bomb(penalty(0, "off_suit_discard"))
    assert writes == [*GAME_ON_X2, (0, "hill", Fraction(8), "A-23")]


def test_a24_a_proven_pledge_writes_the_game_on_his_bomb_an_unprovable_one_nothing() -> None:
    """A-24: the declarer's proven pledge: 4 × 2 = 8 into his hill; unprovable: nothing."""
    assert _on_his_bomb(penalty(1, "pledge_proven")) == [
        *GAME_ON_X2,
        (1, "hill", Fraction(8), "A-24"),
    ]
    assert _on_his_bomb(penalty(1, "pledge_unproven")) == GAME_ON_X2


def test_a25_a_card_exposed_in_the_deal_and_kept_writes_nothing() -> None:
    """A-25: the player whose card showed chose to play the deal: nothing is written."""
    assert _on_his_bomb(penalty(2, "card_exposed_kept")) == GAME_ON_X2


def test_004s_penalties_are_the_arabic_rule_sets_and_charge_a_seat_that_played() -> None:
    """The club's own presets do not know them; the four-player dealer who sat out cannot be
    charged one (he played no card)."""
    club = new(Conventions.preset_named("club"))
    with pytest.raises(InvalidRecordError, match="unknown penalty 'off_suit_discard'"):
        club.record(
            game(
                0,
                1,
                "7H",
                {2: "whist", 0: "pass"},
                {1: 7, 2: 2, 0: 1},
                penalties=(penalty(0, "off_suit_discard"),),
            )
        )
    four = Pulka.new(4, conventions=NO_OPENING, target=100, first_dealer=0)
    with pytest.raises(InvalidRecordError, match="A-23"):
        four.record(
            game(
                0,
                1,
                "6C",
                {2: "whist", 3: "whist"},
                {1: 6, 2: 2, 3: 2},
                penalties=(penalty(0, "off_suit_discard"),),
            )
        )


def test_prefclub_score_writes_004s_penalties() -> None:
    """Through ``prefclub score``: the dark pass-out (4/3/3, amnesty 3: seats 2 and 0 write
    none, seat 1 writes (4 - 3) × 2 = 2), then the 7♥ on ×2 with seat 0's off-suit discard:
    hills 8 (A-23) for seat 0, 2 for seat 1."""
    record = arabic_record([
        {"dealer": 0, "type": "pass_out", "tricks": {"1": 4, "2": 3, "0": 3}, "dark": True},
        {"dealer": 0, "type": "game", "declarer": 1, "contract": "7H",
         "defence": {"2": "whist", "0": "whist"}, "play": "closed",
         "tricks": {"1": 7, "2": 2, "0": 1},
         "penalties": [{"seat": 0, "rule": "off_suit_discard"}]},
    ])  # fmt: skip
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(record))) == 0
    sheet = json.loads(out.getvalue())["sheet"]
    assert sheet["hill"] == [8, 2, 0] and sheet["pool"] == [0, 8, 0]
