"""The hot path's shortcuts give exactly what the plain fold gives.

A deal's end builds on the pulka before it instead of replaying every deal: ``game.pulka_after``
must give what ``Pulka.from_json`` (a replay from the first deal) gives. A move is applied once:
``game.action_played`` must give what ``fold`` of ``action_event`` gives. These tests play whole
pulkas in memory with the house bots and compare at every event.
"""

from __future__ import annotations

import random

import pytest

from app.bots.strategy import Strategy
from app.realtime import engine, game
from app.realtime.game import TableState
from app.rules.scoring.pulka import Pulka

Folded = list[tuple[str, dict, TableState]]


def _play_pulka(seed: int, players: int = 3, target: int = 12) -> Folded:
    """A whole pulka folded in memory (bots move): every pulka-carrying event, with the state
    before and after it."""
    names = ["A", "B", "C", "D"][:players]
    pulka = Pulka.new(players, names=names, target=target)
    state = game.fold(None, 1, 1, *game.pulka_started(pulka, names, list(range(1, players + 1))))
    strategy = Strategy(random.Random(seed))
    rng = random.Random(seed)
    seen: list[tuple[str, dict, TableState]] = []

    def add(kind: str, payload: dict) -> None:
        nonlocal state
        before = state
        state = game.fold(state, 1, state.seq + 1, kind, payload)
        if "pulka" in payload:
            seen.append((kind, payload, before))
            assert state.pulka.to_json() == Pulka.from_json(payload["pulka"]).to_json()
            assert state.pulka.sheet.to_json() == Pulka.from_json(payload["pulka"]).sheet.to_json()

    for _ in range(200):
        if state.pulka.is_complete:
            add(*game.pulka_ended(state, "target"))
            break
        add(*game.deal_started(state, rng))
        while (ended := game.deal_ended(state)) is None:
            mover = engine.to_move(state.deal)
            assert mover is not None
            view = game.seat_view(state, mover)
            choice = strategy.choose(view, view["legal"], mover)
            assert choice is not None
            prior = state
            kind, payload, played = game.action_played(prior, prior.seq + 1, mover, choice)
            assert (kind, payload) == game.action_event(prior, mover, choice)
            add(kind, payload)
            assert played == state  # what the plain fold of the event gives
        add(*ended)
    assert state.status == "finished", "the pulka should reach its target"
    return seen


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_deal_end_and_deal_start_fold_to_what_a_full_replay_gives(seed: int) -> None:
    events = _play_pulka(seed)
    ends = [e for e in events if e[0] == "deal_ended"]
    assert len(ends) >= 5  # a pulka of several deals: the incremental path is exercised
    for kind, payload, before in events:
        if kind == "deal_started" and before.pulka is not None and before.seq > 1:
            # The checkpoint's pulka is the one the state already holds: taken as it is.
            assert game.pulka_after(before.pulka, payload["pulka"]) is before.pulka


def test_a_four_player_pulka_folds_the_same_way() -> None:
    events = _play_pulka(5, players=4, target=10)
    assert events[-1][0] == "pulka_ended"


def test_a_pulka_of_other_settings_is_replayed_not_extended() -> None:
    """A record whose settings differ from the state's pulka is replayed from its first deal."""
    events = _play_pulka(4)
    _, payload, before = next(e for e in events if e[0] == "deal_ended" and e[2].pulka.events)
    other = dict(payload["pulka"], target=payload["pulka"]["target"] + 10)
    rebuilt = game.pulka_after(before.pulka, other)
    assert rebuilt.target == before.pulka.target + 10
    assert rebuilt.to_json() == Pulka.from_json(other).to_json()
    assert game.pulka_after(None, payload["pulka"]).to_json() == payload["pulka"]


def test_a_pulka_two_deals_ahead_is_replayed() -> None:
    events = _play_pulka(6)
    starts = [e for e in events if e[0] == "deal_started"]
    early = starts[1][2].pulka  # one deal recorded
    later = starts[4][1]["pulka"]  # four deals recorded
    assert len(later["events"]) - len(early.events) == 3
    assert game.pulka_after(early, later).to_json() == later


def test_a_pulka_whose_last_deal_was_rewritten_is_replayed() -> None:
    """Same settings, same number of deals, another last deal (as a correction writes it): the
    state's pulka is not taken for it."""
    ours = [e for e in _play_pulka(7) if e[0] == "deal_started"][3][1]["pulka"]
    theirs = [e for e in _play_pulka(8) if e[0] == "deal_started"][3][1]["pulka"]
    assert len(ours["events"]) == len(theirs["events"]) and ours != theirs
    rewritten = {**ours, "events": [*ours["events"][:-1], theirs["events"][-1]]}
    before = Pulka.from_json(ours)
    after = game.pulka_after(before, rewritten)
    assert after is not before
    assert after.to_json() == Pulka.from_json(rewritten).to_json()
