"""Views: exactly what each seat may see (DESIGN.md "Hidden information", R-C3, R-W8, R-D4)."""

from __future__ import annotations

import json

import pytest

from app.rules import (
    Contract,
    Defend,
    Discard,
    NameContract,
    RulesError,
    verify_deal,
    view,
)
from app.rules.core.deck import DealReveal
from tests.support.engine import LAYOUT, LAYOUT_TALON, bids, cards, play_out, run, start, start4


def test_each_seat_sees_its_own_hand_only_and_spectators_none() -> None:
    state = start(LAYOUT, LAYOUT_TALON)
    for seat in (0, 1, 2):
        v = view(state, seat)
        assert v["hand"] == sorted(v["hand"], key=lambda t: cards(t)[0])
        assert set(v["hand"]) == set(LAYOUT[seat].split())
        assert v["open_hands"] == {}
        others = {c for s, h in LAYOUT.items() if s != seat for c in h.split()}
        assert not others & set(json.dumps(v).replace('"', " ").split())
    spectator = view(state, None)
    assert spectator["hand"] == [] and spectator["hand_sizes"] == {"1": 10, "2": 10, "0": 10}
    json.dumps(spectator)


def test_talon_hidden_until_shown() -> None:
    state = start(LAYOUT, LAYOUT_TALON)
    for seat in (None, 0, 1, 2):
        text = json.dumps(view(state, seat))
        assert '"8H"' not in text and '"7H"' not in text
        assert view(state, seat)["talon"] is None


def test_four_player_dealer_sees_only_public_things() -> None:
    state = start4()
    v = view(state, 0)
    assert v["hand"] == [] and v["open_hands"] == {}
    assert v["hand_sizes"] == {"1": 10, "2": 10, "3": 10}


def test_r_c3_discard_never_shown_to_others_and_to_declarer_until_lead() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass", "pass")
    state, _ = run(state, Discard(1, tuple(cards("7S AC"))))  # type: ignore[arg-type]
    assert view(state, 1)["discard"] == ["7S", "AC"]
    for seat in (None, 0, 2):
        text = json.dumps(view(state, seat))
        assert '"7S"' not in text and '"AC"' not in text
    state, _ = run(state, NameContract(1, Contract(6, "C")), Defend(2, "whist"), Defend(0, "whist"))
    assert view(state, 1)["discard"] == ["7S", "AC"]


def test_view_is_complete_after_the_deal_with_reveal() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S", "pass", "pass")
    state, _ = run(
        state,
        Discard(1, tuple(cards("8H 7H"))),  # type: ignore[arg-type]
        NameContract(1, Contract(6, "S")),
        Defend(2, "whist"),
        Defend(0, "whist"),
    )
    state = play_out(state)
    for seat in (None, 0, 1, 2):
        v = view(state, seat)
        assert v["finished"] and v["discard"] == ["7H", "8H"]
        assert len(v["history"]) == 10 and v["outcome"]["type"] == "game"
        assert v["dealt"]["1"] == sorted(LAYOUT[1].split(), key=lambda t: cards(t)[0])
        reveal = v["reveal"]
        data = DealReveal(
            commitment=reveal["commitment"],
            deck=tuple(reveal["deck"]),
            salt=reveal["salt"],
            cut=reveal["cut"],
            players=reveal["players"],
            dealer=reveal["dealer"],
            hands=tuple(tuple(h) for h in reveal["hands"]),
            talon=tuple(reveal["talon"]),  # type: ignore[arg-type]
        )
        assert verify_deal(data, cut_min=4)


def test_view_fields_for_the_client() -> None:
    state = bids(start(LAYOUT, LAYOUT_TALON), "6S")
    v = view(state, 2)
    for key in (
        "phase",
        "to_move",
        "turn",
        "auction",
        "contract",
        "defence",
        "trick",
        "last_trick",
        "tricks",
        "commitment",
        "dealer",
        "forehand",
        "min_level",
    ):
        assert key in v
    assert v["phase"] == "auction" and v["to_move"] == 2 and v["seat"] == 2


def test_view_rejects_unknown_seats() -> None:
    state = start(LAYOUT, LAYOUT_TALON)
    for bad in (3, -1, "1", True):
        with pytest.raises(RulesError):
            view(state, bad)  # type: ignore[arg-type]
