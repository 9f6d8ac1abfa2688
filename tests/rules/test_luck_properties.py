"""Luck apart from skill over thousands of random deals (issue 27, docs/luck.md): whatever the
rule set, the table size, the deal and its analysis, ``weigh_deal`` answers every playing seat
with figures that are never negative, a zero worth for cards that make nothing, and never
raises. The deals are played by the engine (``bench.archive_data.play_events``, as the archive
benchmark plays them); the analyses are drawn at random in the analysis's shape, so the
weighing meets contracts and trick counts no solver would give."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bots.strategy import Strategy
from app.rules import Conventions, Pulka, deal_from_json, weigh_deal
from bench.archive_data import play_events

STRAINS = ("S", "C", "D", "H", "NT")
PRESETS = ("club", "sochi", "leningrad", "rostov", "arabic", "classic")


def _deals(preset: str, players: int, seed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(pulka before the deal, its ``deal_ended`` payload) of a few engine-played deals."""
    rng = random.Random(seed)
    pulka = Pulka.new(players, conventions=Conventions.preset_named(preset), target=30)
    strategies = [Strategy(random.Random(seed * 7 + i)) for i in range(players)]
    events, _ = play_events(
        rng, pulka, [f"p{i}" for i in range(players)], [None] * players, strategies, 4
    )
    out, start = [], None
    for kind, payload in events:
        if kind == "deal_started":
            start = payload
        elif kind == "deal_ended" and start is not None:
            out.append((start, payload))
    return out


@st.composite
def analyses(draw: st.DrawFn, outcome: Any, seats: list[int]) -> dict[str, Any]:
    """A random analysis of one deal, in the shape ``analyse_deal`` gives."""
    tricks = st.integers(0, 10)
    contract = None
    if outcome.declarer is not None and outcome.kind in ("game", "misere", "conceded"):
        contract = {
            "declarer": outcome.declarer,
            "misere": outcome.kind == "misere",
            "tricks": draw(tricks),
        }
    return {
        "seats": seats,
        "makeable": {str(s): {k: draw(tricks) for k in STRAINS} for s in seats},
        "misere": {str(s): {"tricks": draw(st.integers(0, 3))} for s in seats},
        "contract": contract,
        "best_discard": {"tricks": draw(tricks)} if draw(st.booleans()) else None,
        "plays": [
            {"seat": draw(st.sampled_from(seats)), "loss": draw(st.integers(0, 3))}
            for _ in range(draw(st.integers(0, 12)))
        ],
        "plays_complete": draw(st.booleans()),
    }


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    players=st.sampled_from((3, 4)),
    seed=st.integers(0, 10_000),
    data=st.data(),
)
def test_every_playing_seat_gets_figures_that_are_never_negative(
    preset: str, players: int, seed: int, data: st.DataObject
) -> None:
    for start, ended in _deals(preset, players, seed):
        pulka = Pulka.from_json(start["pulka"])
        outcome = deal_from_json(ended["outcome"], pulka.deal_index)
        seats = [s for s in range(players) if players == 3 or s != outcome.dealer]
        analysis = data.draw(analyses(outcome, seats))
        luck = weigh_deal(pulka, outcome, analysis)
        assert sorted(luck) == seats
        for seat, figures in luck.items():
            assert min(figures.worth, figures.bidding, figures.defence, figures.play) >= 0
            assert figures.lost == figures.bidding + figures.defence + figures.play
            assert figures.complete == analysis["plays_complete"]
            if seat != outcome.declarer:
                assert figures.bidding == 0
            nothing = max(analysis["makeable"][str(seat)].values()) < 6
            if nothing and analysis["misere"][str(seat)]["tricks"] > 0:
                assert figures.worth == 0
