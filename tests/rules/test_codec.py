"""JSON codec for actions and events."""

from __future__ import annotations

import pytest

from app.rules import (
    AcceptResult,
    Bid,
    ChoosePlay,
    Claim,
    Concede,
    Contract,
    Cut,
    DeclineResult,
    Defend,
    Discard,
    MalformedActionError,
    NameContract,
    PlayCard,
    ProposeResult,
    ReturnTalon,
    ReturnWhist,
    RulesError,
    TakeTalon,
    action_from_json,
    action_to_json,
    event_from_json,
    event_to_json,
    parse_card,
)
from app.rules.core.actions import Event

ACTIONS = [
    Cut(2, 16),
    Bid(0, Contract(6, "S")),
    Bid(0, Contract(10, "NT")),
    Bid(1, "misere"),
    Bid(1, "pass"),
    Bid(1, "here"),
    TakeTalon(0),
    ReturnTalon(0),
    Discard(0, (parse_card("7S"), parse_card("10H"))),
    NameContract(0, Contract(7, "H")),
    NameContract(0, "misere"),
    Concede(0),
    Defend(1, "whist"),
    Defend(1, "half"),
    ReturnWhist(2),
    ChoosePlay(1, "open"),
    PlayCard(1, parse_card("AS")),
    Claim(0, 5),
    ProposeResult(0, ((0, 6), (1, 2), (2, 2))),
    AcceptResult(1),
    DeclineResult(2),
]


@pytest.mark.parametrize("action", ACTIONS)
def test_actions_round_trip(action: object) -> None:
    data = action_to_json(action)  # type: ignore[arg-type]
    assert action_from_json(data) == action


def test_documented_shapes() -> None:
    assert action_to_json(Bid(0, Contract(6, "S"))) == {"type": "bid", "seat": 0, "call": "6S"}
    assert action_to_json(PlayCard(1, parse_card("10H"))) == {
        "type": "play_card",
        "seat": 1,
        "card": "10H",
    }
    assert action_from_json({"type": "play_card", "seat": 1, "card": "10♥", "id": "x1"}) == (
        PlayCard(1, parse_card("10H"))
    )


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {"type": "dance", "seat": 0},
        {"type": "bid", "seat": 0},
        {"type": "bid", "seat": "0", "call": "6S"},
        {"type": "bid", "seat": True, "call": "6S"},
        {"type": "bid", "seat": 0, "call": "5S"},
        {"type": "bid", "seat": 0, "call": 6},
        {"type": "play_card", "seat": 0, "card": "ZZ"},
        {"type": "play_card", "seat": 0, "card": "AS", "extra": 1},
        {"type": "discard", "seat": 0, "cards": ["AS"]},
        {"type": "defend", "seat": 0, "call": "double"},
        {"type": "choose_play", "seat": 0, "mode": "dark"},
        {"type": "propose_result", "seat": 0, "tricks": {"a": 1}},
        {"type": "propose_result", "seat": 0, "tricks": [1, 2]},
        {"type": "claim", "seat": 0, "tricks": 1.5},
    ],
)
def test_malformed_actions_raise_a_rules_error(data: object) -> None:
    with pytest.raises(MalformedActionError) as info:
        action_from_json(data)
    assert isinstance(info.value, RulesError)


def test_events_round_trip() -> None:
    event = Event("card_played", {"seat": 1, "card": "AS", "by": 1})
    data = event_to_json(event)
    assert data == {"type": "card_played", "seat": 1, "card": "AS", "by": 1}
    assert event_from_json(data) == event
