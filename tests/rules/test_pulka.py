"""The pulka state machine the live table uses (R-D1, R-P8, R-T4, R-T5)."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest

from app.rules.core.rule_errors import InvalidRecordError
from app.rules.scoring.pulka import Pulka
from tests.support.scoring import CLUB, SOCHI, game, ints, misere, new, pass_out, play


def test_new_pulka_defaults() -> None:
    p = Pulka.new(3, names=("Anna", "Boris", "Vera"), target=20, first_dealer=2)
    assert p.next_dealer == 2 and p.deal_index == 0 and p.next_min_level() == 6
    assert p.stake == Decimal("0.50") and not p.is_complete and p.closed is None


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"players": 6}, "players"), ({"target": 0}, "target"), ({"stake": "x"}, "stake")],
)
def test_new_rejects_bad_settings(kwargs, field) -> None:
    with pytest.raises(InvalidRecordError) as err:
        Pulka.new(**kwargs)
    assert err.value.field == field


def test_rotation_clockwise_including_pass_outs() -> None:
    # R-D1: the deal passes clockwise after every deal, pass-outs included.
    p = new(first_dealer=1)
    p, _ = p.record(pass_out(1, {2: 4, 0: 3, 1: 3}))
    assert p.next_dealer == 2
    with pytest.raises(InvalidRecordError) as err:
        p.record(misere(1, 2, {2: 0, 0: 5, 1: 5}))
    assert (err.value.deal, err.value.field) == (1, "dealer")
    p, _ = p.record(misere(2, 0, {0: 0, 1: 5, 2: 5}))
    assert p.next_dealer == 0 and p.deal_index == 2


def test_four_player_rotation_and_dealer_out_of_play() -> None:
    p = new(players=4, first_dealer=3)
    p, _ = p.record(pass_out(3, {0: 3, 1: 3, 2: 3, 3: 1}))
    assert p.next_dealer == 0
    with pytest.raises(InvalidRecordError) as err:
        p.record(misere(0, 1, {0: 3, 1: 0, 2: 4, 3: 3}))
    assert err.value.field == "tricks"


def test_complete_pulka_refuses_further_deals_and_closes_at_target() -> None:
    # R-P8: the pulka ends when every pool reaches the target.
    deals = [
        misere(0, 1, {0: 5, 1: 0, 2: 5}),
        misere(1, 2, {0: 5, 1: 5, 2: 0}),
        misere(2, 0, {0: 0, 1: 5, 2: 5}),
    ]
    p = play(deals, CLUB, target=10)
    assert p.is_complete and p.ended == "target"
    with pytest.raises(InvalidRecordError) as err:
        p.record(misere(0, 1, {0: 5, 1: 0, 2: 5}))
    assert err.value.deal == 3
    closed = p.close("target")
    assert closed.closed == "target"
    with pytest.raises(InvalidRecordError):
        closed.close("agreement")


def test_close_target_requires_complete() -> None:
    p = new()
    with pytest.raises(InvalidRecordError) as err:
        p.close("target")
    assert err.value.field == "ended"
    q = p.close("session_end")
    assert q.ended == "session_end"
    with pytest.raises(InvalidRecordError):
        q.record(misere(0, 1, {0: 5, 1: 0, 2: 5}))


def test_join_fourth_rounds_against_him() -> None:
    # R-T4: the newcomer writes the mean of the pools (rounded down) and hills (rounded up),
    # sits left of the player who has just dealt and deals next.
    deals = [
        game(0, 1, "7H", {2: "pass", 0: "pass"}),  # pool 1: 4
        game(1, 2, "7H", {0: "pass", 1: "pass"}),  # pool 2: 4
        game(2, 0, "6H", {1: "whist", 2: "whist"}, {0: 5, 1: 3, 2: 2}),  # 0: hill 4
    ]
    p = play(deals, CLUB)
    p, _ = p.record(game(0, 2, "6S", {0: "whist", 1: "whist"}, {2: 6, 0: 2, 1: 2}))
    # pools 0/4/6 -> mean 10/3 -> 3; hills 4/0/0 -> mean 4/3 -> 2
    assert ints(p.sheet.pool) == [0, 4, 6] and ints(p.sheet.hill) == [4, 0, 0]
    assert p.next_dealer == 1
    with pytest.raises(InvalidRecordError):
        p.join_fourth(after_dealer_seat=1)
    q, entries = p.join_fourth(after_dealer_seat=0)
    assert q.players == 4 and q.next_dealer == 1
    assert ints(q.sheet.pool) == [0, 3, 4, 6]
    assert ints(q.sheet.hill) == [4, 2, 0, 0]
    assert [(e.seat, e.column, e.amount, e.rule) for e in entries] == [
        (1, "pool", 3, "R-T4"),
        (1, "hill", 2, "R-T4"),
    ]
    # the old seats 1 and 2 moved to 2 and 3, whists and entries with them
    assert q.sheet.whists[0][3] == p.sheet.whists[0][2]
    assert all(e.seat != 1 for e in q.entries if e.rule != "R-T4")
    # the new player deals; the one left of him plays forehand
    q, _ = q.record(pass_out(1, {2: 3, 3: 3, 0: 3, 1: 1}))
    assert q.next_dealer == 2
    s = q.settle()
    assert sum(s.exact) == 0 and len(s.rounded) == 4


def test_join_fourth_only_at_three() -> None:
    p = new(players=4)
    with pytest.raises(InvalidRecordError):
        p.join_fourth(after_dealer_seat=3)


def test_replace_player_inherits_the_seat() -> None:
    # R-T5: the replacement inherits the seat's sheet.
    p = Pulka.new(3, names=("Anna", "Boris", "Vera"), target=50, first_dealer=0)
    p, _ = p.record(game(0, 1, "7H", {2: "pass", 0: "pass"}))
    q = p.replace_player(1, "Dina")
    assert q.names == ("Anna", "Dina", "Vera")
    assert q.sheet == p.sheet and q.entries == p.entries
    with pytest.raises(InvalidRecordError):
        p.replace_player(1)


def test_to_json_round_trip_replays_everything() -> None:
    p = Pulka.new(3, names=("Anna", "Boris", "Vera"), conventions=SOCHI, target=30)
    p, _ = p.record(pass_out(0, {1: 4, 2: 3, 0: 3}))
    p, _ = p.record(game(1, 2, "6H", {0: "whist", 1: "pass"}, {2: 5, 0: 4, 1: 1}))
    p = p.replace_player(0, "Gleb")
    p, _ = p.join_fourth(after_dealer_seat=1, name="Ira")
    p, _ = p.record(game(2, 3, "7NT", {0: "whist", 1: "whist"}, {3: 7, 0: 2, 1: 1}))
    p = p.close("session_end")
    data = json.loads(json.dumps(p.to_json()))
    q = Pulka.from_json(data)
    assert q == p
    assert q.names == ("Gleb", "Boris", "Ira", "Vera")


def test_fraction_amounts_survive_persistence() -> None:
    conv = SOCHI.with_overrides({"whist_liability": "1/3"})
    p = Pulka.new(3, conventions=conv, target=30)
    p, _ = p.record(game(0, 1, "6H", {2: "whist", 0: "pass"}, {1: 7, 2: 2, 0: 1}))
    assert p.sheet.hill[2] == Fraction(2, 3)
    assert Pulka.from_json(json.loads(json.dumps(p.to_json()))) == p


def test_four_player_pass_out_dealer_tricks_may_be_omitted() -> None:
    # PULKA_FORMAT: the dealer's seat counts talon tricks; an absent dealer means none.
    p = new(players=4, first_dealer=3)
    p, _ = p.record(pass_out(3, {0: 3, 1: 4, 2: 3}))
    assert ints(p.sheet.hill) == [6, 8, 6, -4]


def test_from_json_rejects_garbage() -> None:
    with pytest.raises(InvalidRecordError):
        Pulka.from_json({"players": 3})
