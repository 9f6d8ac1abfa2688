"""Deals driven in process for the bot tests: every seat sees only its protocol message."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from app.bots.strategy import Strategy
from app.rules import (
    Conventions,
    Cut,
    DealConfig,
    DealState,
    action_from_json,
    apply,
    new_deal,
    shuffled_deck,
)
from bench.bots import message_for


def play_until(
    seed: int, stop: Callable[[DealState], bool], players: list[Strategy] | None = None
) -> DealState | None:
    """Deal ``seed`` played by ``players`` (beginners by default) until ``stop(state)``;
    None if the deal ended first."""
    rng = random.Random(seed)
    players = players or [Strategy(random.Random(seed * 10 + s)) for s in range(3)]
    state = new_deal(DealConfig(3, seed % 3, Conventions(), 6), shuffled_deck(rng), b"t")
    state, _ = apply(state, Cut(state.cutter, 16))
    while not state.finished:
        if stop(state):
            return state
        seat = state.to_move
        assert seat is not None
        message = message_for(state, seat)
        choice = players[seat].choose(message, message["legal"], seat)
        assert choice is not None
        state, _ = apply(state, action_from_json({**choice, "seat": seat}))
    return None


def declarer_to_play(cards_left: int) -> Callable[[DealState], bool]:
    """Stop when the declarer of a closed game must play with ``cards_left`` cards in hand."""

    def stop(state: DealState) -> bool:
        return (
            state.phase == "play"
            and state.kind == "game"
            and state.open_seats == 0
            and state.to_move == state.declarer
            and state.turn == state.declarer
            and state.hands[state.declarer].bit_count() == cards_left
        )

    return stop


def message(state: DealState, seat: int) -> dict[str, Any]:
    return message_for(state, seat)
