"""The bots answer classic preferans' calls (docs/rules-classic.md K-3..K-6): suit bids, the talon
offered in turn, the redeal; every choice is legal and every deal ends."""

from __future__ import annotations

import random

import pytest

from app.bots.levels import make_strategy
from app.bots.strategy import Strategy
from app.rules import (
    Conventions,
    Cut,
    DealConfig,
    DealState,
    action_from_json,
    apply,
    new_deal,
    outcome,
    shuffled_deck,
)
from bench.bots import message_for

CLASSIC = Conventions.preset_named("classic")


def play_classic(seed: int, players: int, level: str) -> DealState:
    rng = random.Random(seed)
    bots: list[Strategy] = [
        make_strategy(level, random.Random(seed * 10 + s)) for s in range(players)
    ]
    state = new_deal(DealConfig(players, seed % players, CLASSIC), shuffled_deck(rng), b"k")
    state, _ = apply(state, Cut(state.cutter, 16))
    while not state.finished:
        seat = state.to_move
        assert seat is not None
        message = message_for(state, seat)
        choice = bots[seat].choose(message, message["legal"], seat)
        assert choice is not None  # apply() below refuses an illegal one
        state, _ = apply(state, action_from_json({**choice, "seat": seat}))
    return state


@pytest.mark.parametrize(("players", "level"), [(3, "beginner"), (4, "beginner"), (3, "club")])
def test_k3_k5_bots_play_classic_deals_to_the_end(players: int, level: str) -> None:
    """K-3..K-5: suits are bid and played, and a talon is bought when all three pass."""
    bought = suits = 0
    for seed in range(40 if level == "beginner" else 6):
        state = play_classic(seed, players, level)
        result = outcome(state)
        assert result is not None and result.kind in ("game", "redeal")
        if result.kind == "game":
            assert result.contract is not None and result.contract.level == 6
            bought += state.discard != 0
            suits += state.discard == 0
    assert suits > 0
    if level == "beginner":
        assert bought > 0
