"""The house bots answer every call of preset ``arabic`` (docs/rules-arabic.md): the forced
opening pass-out (A-3), the calls without the talon (A-12, A-13) they never make themselves
but defend against, and the dealer's invitation to go halves (A-19)."""

from __future__ import annotations

import random

import pytest

from app.bots.strategy import Strategy, contract_parts
from app.rules import (
    Bid,
    Conventions,
    Cut,
    DealConfig,
    action_from_json,
    apply,
    new_deal,
    shuffled_deck,
)
from app.rules.core.auction import PASS_ONLY_LEVEL, parse_contract
from bench.bots import message_for

ARABIC = Conventions.preset_named("arabic")


def test_a12_contract_parts_reads_a_game_without_the_talon_as_its_game() -> None:
    assert contract_parts("7SBP") == (7, "S") and contract_parts("10NTBP") == (10, "NT")
    assert contract_parts("misere_bp") is None


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("min_level", [6, 8, PASS_ONLY_LEVEL])
def test_a3_a12_a19_bots_finish_arabic_deals(players: int, min_level: int) -> None:
    """Every seat a beginner bot; in half the deals forehand opens 6♠ without the talon."""
    for seed in range(12):
        rng = random.Random(seed)
        bots = [Strategy(random.Random(seed * 10 + s)) for s in range(players)]
        config = DealConfig(players, seed % players, ARABIC, min_level)
        state = new_deal(config, shuffled_deck(rng), b"t")
        state, _ = apply(state, Cut(state.cutter, 16))
        if seed % 2 and min_level == 6:
            assert state.to_move is not None
            state, _ = apply(state, Bid(state.to_move, parse_contract("6SBP")))
        steps = 0
        while not state.finished:
            seat = state.to_move
            assert seat is not None and steps < 400
            message = message_for(state, seat)
            choice = bots[seat].choose(message, message["legal"], seat)
            assert choice is not None and choice in message["legal"]
            state, _ = apply(state, action_from_json({**choice, "seat": seat}))
            steps += 1
        if min_level == PASS_ONLY_LEVEL:
            assert state.kind == "pass_out"
