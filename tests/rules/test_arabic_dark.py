"""Arabic preferans (seed 004): the dark pass and dark bids, A-10 and A-11.

Hand-built deals (tests/support/engine.py's LAYOUT: dealer 0, forehand 1, then 2, then 0).
Rule IDs are docs/rules-arabic.md's.
"""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import pytest

from app.commands.score import run_score
from app.rules import (
    Bid,
    Conventions,
    DarkBid,
    DealState,
    Defend,
    Discard,
    NameContract,
    PickUp,
    TakeTalon,
    action_from_json,
    action_to_json,
    legal_actions,
    outcome,
    view,
    visible_cards,
)
from app.rules.core.auction import IllegalBidError, parse_call, parse_contract
from app.rules.core.cards import mask_cards
from app.rules.core.outcome_json import deal_from_json, deal_to_json
from app.rules.core.rule_errors import IllegalActionError, InvalidRecordError
from app.rules.deal.dispatch import apply
from app.rules.deal.state import OutOfTurnError
from tests.support.engine import LAYOUT, LAYOUT_TALON, play_out, start
from tests.support.scoring import arabic_record, game, new, pass_out, writes

ARABIC = Conventions.preset_named("arabic")
NO_OPENING = ARABIC.with_overrides({"opening_bombs": 0})
SOCHI = Conventions.preset_named("sochi")


def _arabic() -> DealState:
    return start(LAYOUT, LAYOUT_TALON, conventions=ARABIC)


def _calls(state: DealState, seat: int) -> list[str]:
    return [str(a.call) for a in legal_actions(state, seat) if isinstance(a, Bid)]


def _call(state: DealState, text: str) -> DealState:
    seat = state.to_move
    assert seat is not None
    state, _ = apply(state, Bid(seat, parse_call(text)))
    return state


def test_a10_a11_hands_are_face_down_until_picked_up() -> None:
    """A-10, A-11: "объявляется до того, как подняты карты": each hand is hidden from its
    own seat until it picks its cards up or calls; picking up is allowed out of turn."""
    state = _arabic()
    for seat in (1, 2, 0):
        assert view(state, seat)["hand"] == [] and view(state, seat)["blind"] is True
        assert visible_cards(state, seat) & state.hands[seat] == 0
        assert PickUp(seat) in legal_actions(state, seat)
    state, events = apply(state, PickUp(2))  # seat 2 is not to move
    assert [e.type for e in events] == ["cards_picked_up"]
    assert view(state, 2)["hand"] == mask_cards_text(state, 2)
    assert PickUp(2) not in legal_actions(state, 2)
    with pytest.raises(OutOfTurnError):
        apply(state, PickUp(2))
    state = _call(state, "pass")  # seat 1 calls without the dark: his cards are up
    assert view(state, 1)["blind"] is False
    assert not any(c.startswith("dark") for c in _calls(state, 2))
    with pytest.raises(IllegalBidError):
        apply(state, Bid(2, parse_call("dark_pass")))


def mask_cards_text(state: DealState, seat: int) -> list[str]:
    return view(dataclasses.replace(state, auction=None), seat)["hand"]  # type: ignore[no-any-return]


def test_a10_a_dark_pass_is_overbid_by_a_dark_six_or_an_open_seven() -> None:
    """A-10: "Пас в тёмную перебивается «разом в тёмную» или семерной"."""
    state = _call(_arabic(), "dark_pass")
    calls = _calls(state, 2)
    assert "dark_6S" in calls and "7S" in calls
    assert not any(c[0] == "6" for c in calls)  # no open six after a dark pass
    with pytest.raises(IllegalBidError, match="A-10"):
        apply(state, Bid(2, parse_contract("6H")))
    state, _ = apply(state, PickUp(2))
    assert "dark_6S" not in _calls(state, 2) and "7S" in _calls(state, 2)


def test_a10_everyone_passing_after_a_dark_pass_is_a_dark_pass_out() -> None:
    """A-10: "Если другие игроки пасанули… то играются распасы": the pass-out is marked dark;
    R-A1: seats 2 and 0 passed openly (``open_passes``), so only seat 1 earns a bomb."""
    state = _call(_call(_call(_arabic(), "dark_pass"), "pass"), "pass")
    assert state.kind == "pass_out"
    result = outcome(play_out(state))
    assert result is not None and "dark" in result.marks
    assert deal_to_json(result)["dark"] is True
    assert deal_to_json(result)["open_passes"] == [0, 2]
    assert deal_from_json(deal_to_json(result), 3) == result


def test_a11_a_dark_six_is_overbid_by_a_higher_dark_six_or_an_open_seven() -> None:
    """A-11: "Перебить можно либо «6 Треф в тёмную» (или выше), либо семерной"; and nobody
    holds a dark bid with "here"."""
    state = _call(_arabic(), "dark_6S")
    calls = _calls(state, 2)
    assert "dark_6C" in calls and "dark_6S" not in calls
    assert "7S" in calls and "6C" not in calls and "6NT" not in calls
    state = _call(state, "dark_6C")
    assert "here" not in _calls(state, 0)
    assert [c for c in _calls(state, 0) if c[0] == "6"] == []


def _dark_declared(named: str) -> DealState:
    """Seat 1 wins the talon with "раз в тёмную", discards his two lowest, names ``named``."""
    state = _call(_call(_call(_arabic(), "dark_6S"), "pass"), "pass")
    assert state.declarer == 1 and view(state, 1)["dark"] is True
    state, _ = apply(state, TakeTalon(1))
    low = tuple(sorted(mask_cards(state.hands[1]))[:2])
    state, _ = apply(state, Discard(1, low))
    state, _ = apply(state, NameContract(1, parse_contract(named)))
    return state


def test_a11_the_dark_declarer_may_switch_to_misere_before_taking_the_talon() -> None:
    """A-11: "После того, как игрок, выигравший торговлю за прикуп на тёмной игре, поднимет
    свои карты, но до того, как взять прикуп — он имеет право перейти на мизер"."""
    state = _call(_call(_call(_arabic(), "dark_6S"), "pass"), "pass")
    assert state.phase == "talon" and state.to_move == 1
    assert view(state, 1)["talon"] is None and len(view(state, 1)["hand"]) == 10
    assert legal_actions(state, 1)[-2:] == [TakeTalon(1), NameContract(1, "misere")]
    switched, events = apply(state, NameContract(1, "misere"))
    assert [e.type for e in events][:2] == ["misere_switched", "talon_shown"]
    assert switched.phase == "discard" and switched.bid == "misere"
    low = tuple(sorted(mask_cards(switched.hands[1]))[:2])
    switched, _ = apply(switched, Discard(1, low))
    result = outcome(play_out(switched))
    assert result is not None and result.kind == "misere" and "dark" not in result.marks
    taken, _ = apply(state, TakeTalon(1))
    assert taken.phase == "discard" and view(taken, 0)["talon"] == ["8H", "7H"]


def test_a11_a_dark_game_at_its_level_is_whisted_by_force_and_marked_dark() -> None:
    """A-11: "Любая игра, объявленная в тёмную и сыгранная по тому же номиналу… вистуется
    принудительно" — 6♥ after "раз в тёмную" is the same level."""
    state = _dark_declared("6H")
    assert state.phase == "defence"
    assert [a for a in legal_actions(state, 2) if isinstance(a, Defend)] == [Defend(2, "whist")]
    with pytest.raises(IllegalActionError, match="A-11"):
        apply(state, Defend(2, "pass"))
    state, _ = apply(state, Defend(2, "whist"))
    assert [a for a in legal_actions(state, 0) if isinstance(a, Defend)] == [Defend(0, "whist")]
    state, _ = apply(state, Defend(0, "whist"))
    result = outcome(play_out(state))
    assert result is not None and "dark" in result.marks and result.play == "closed"
    assert deal_to_json(result)["dark"] is True


def test_a11_a_dark_game_named_at_another_level_is_played_as_usual() -> None:
    """A-11: "Если после сноса объявлена игра, отличная от номинала… (напр., 7 Бубей), то игра
    вистуется и пишется по обычным правилам"."""
    state = _dark_declared("7S")
    assert Defend(2, "pass") in legal_actions(state, 2)
    state, _ = apply(state, Defend(2, "pass"))
    state, _ = apply(state, Defend(0, "pass"))
    result = outcome(state)
    assert result is not None and "dark" not in result.marks


def test_a11_a_dark_game_at_its_level_is_written_twice() -> None:
    """A-11: "Пишется с умножением на 2": every entry of the dark 6♥ doubled."""
    tricks = {1: 6, 2: 2, 0: 2}
    defence = {2: "whist", 0: "whist"}
    _, plain = new(NO_OPENING).record(game(0, 1, "6H", defence, tricks))
    _, dark = new(NO_OPENING).record(game(0, 1, "6H", defence, tricks, marks=frozenset({"dark"})))
    assert writes(dark) == [(s, c, 2 * a, on) for s, c, a, on in writes(plain)]
    assert (1, "pool", 4, None) in writes(dark)


def test_a10_r_a3_dark_pass_outs_in_a_row_are_written_2_4_8_per_trick() -> None:
    """A-10, R-A3: "За «пас в тёмную» записывается первая бомба, за второй подряд — вторая…
    третья… коэффициент распасов — умножение на 2, 4, 8"; a deal without one ends the run.

    The split 4/3/3 has the amnesty 3, so seat 1 writes one trick at the deal's rate. The rate
    of a dark pass-out is its own price, 2, 4, 8 (8 for the fourth in a row too), replacing the
    plain 1, 2, 3 (the third deal's plain rate is 3: 3 × 8 = 24 was the old, wrong reading).
    The third pass-out in a row passes the deal on (A-7), so the fourth is plain streak 0; the
    fifth, not dark, is plain 2 (streak 1); the sixth, dark again, starts the run at 2.
    """
    pulka = new(NO_OPENING)
    rates = []
    for dark in (True, True, True, True, False, True):
        dealer = pulka.next_dealer
        tricks = {(dealer + 1) % 3: 4, (dealer + 2) % 3: 3, dealer: 3}
        deal = dataclasses.replace(
            pass_out(dealer, tricks), marks=frozenset({"dark"} if dark else ())
        )
        pulka, entries = pulka.record(deal)
        rates.append([e.amount for e in entries if e.rule == "R-R4"])
    assert rates == [[2], [4], [8], [8], [2], [2]]


def test_a10_a11_dark_calls_and_picking_up_round_trip_as_json() -> None:
    """A-10, A-11: the protocol's ``bid`` carries ``dark_pass``/``dark_6S``; ``pick_up``."""
    for action in (Bid(1, "dark_pass"), Bid(2, DarkBid(parse_contract("6C"))), PickUp(0)):
        assert action_from_json(action_to_json(action)) == action
    assert action_to_json(Bid(2, DarkBid(parse_contract("6C"))))["call"] == "dark_6C"
    with pytest.raises(IllegalBidError):
        parse_call("dark_6SBP")


def test_a10_a11_dark_records_are_refused_where_dark_calls_are_not_played() -> None:
    """A-10, A-11: ``"dark": true`` only under ``dark_calls`` (the arabic preset)."""
    with pytest.raises(InvalidRecordError, match="dark"):
        new(SOCHI).record(
            game(
                0, 1, "6H", {2: "whist", 0: "whist"}, {1: 6, 2: 2, 0: 2}, marks=frozenset({"dark"})
            )
        )


DARK_RECORD: dict[str, Any] = arabic_record(
    [
        {"dealer": 0, "type": "pass_out", "tricks": {"1": 4, "2": 3, "0": 3}, "dark": True},
        {
            "dealer": 0,
            "type": "game",
            "declarer": 1,
            "contract": "7H",
            "defence": {"2": "whist", "0": "whist"},
            "tricks": {"1": 7, "2": 2, "0": 1},
            "dark": True,
        },
    ]
)


def test_a10_a11_prefclub_score_rescores_dark_deals() -> None:
    """A-10, A-11, R-A1..R-A3 (004 "за «пас в тёмную» записывается первая бомба", "пишется с
    умножением на 2 (с учетом бомб)"; K96 note 31 "коэффициенты перемножаются"): a dark
    pass-out is written at its price 2 (after the amnesty of 3, seat 1 writes 1 × 2) and writes
    every seat, all dark, his first bomb ×2. At the 7 exit seat 1's dark 7♥ made is on that bomb:
    × 2 (dark) × 2 (bomb) = × 4: pool 4 × 4 = 16, whists 4 per trick × 4 (seat 2: 2 × 16 = 32,
    seat 0: 16), and it uses the bomb up (seats 0 and 2 keep theirs)."""
    out = io.StringIO()
    assert run_score("-", out, io.StringIO(json.dumps(DARK_RECORD))) == 0
    doc = json.loads(out.getvalue())
    sheet = doc["sheet"]
    assert sheet["pool"] == [0, 16, 0]
    assert sheet["hill"] == [0, (4 - 3) * 2, 0]  # R-R4 amnesty of 3
    assert sheet["whists"][2][1] == 2 * 4 * 4 and sheet["whists"][0][1] == 1 * 4 * 4
    assert doc["seats"] == [
        {"bombs": 1, "next_game": 2},
        {"bombs": 0, "next_game": 1},
        {"bombs": 1, "next_game": 2},
    ]
