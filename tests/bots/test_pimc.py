"""Sampling the hidden hands and the PIMC choice (no hidden card ever used)."""

from __future__ import annotations

import random

from app.bots.pimc import Memory, SolveCost, choose_card, mask_of, representatives, sample_hands
from app.rules import parse_card
from tests.support.bot_deals import declarer_to_play, message, play_until


def test_samples_fill_the_hidden_hands_with_unseen_cards_and_respect_voids() -> None:
    state = None
    for seed in range(200):
        state = play_until(seed, declarer_to_play(6))
        if state is not None:
            break
    assert state is not None and state.declarer is not None
    seat = state.declarer
    deal = message(state, seat)["deal"]
    memory = Memory()
    memory.update(deal)
    defenders = [s for s in range(3) if s != seat]
    memory.voids.setdefault(defenders[0], set()).add(0)  # pretend he showed out of spades
    mine = mask_of(deal["hand"])
    for i in range(100):
        placed = sample_hands(deal, memory, random.Random(i))
        if placed is None:
            continue  # impossible with the pretended void: allowed, never a wrong sample
        assert placed[seat] == mine
        for d in defenders:
            assert placed[d].bit_count() == deal["hand_sizes"][str(d)]
            assert placed[d] & mine == 0
            assert placed[d] & memory.played == 0
        assert placed[defenders[0]] & 0xFF == 0  # no spade for the void seat
        assert placed[defenders[0]] & placed[defenders[1]] == 0


def test_memory_records_played_cards_and_a_void_when_a_seat_does_not_follow() -> None:
    memory = Memory()
    memory.update(
        {
            "commitment": "c1",
            "last_trick": [
                {"seat": 0, "card": "AS"},
                {"seat": 1, "card": "7H"},
                {"seat": 2, "card": "8S"},
            ],
            "trick": [{"seat": 2, "card": "KD"}],
        }
    )
    assert memory.played == mask_of(["AS", "7H", "8S", "KD"])
    assert memory.voids == {1: {0}}
    memory.update({"commitment": "c2", "last_trick": None, "trick": []})
    assert memory.played == 0 and memory.voids == {}  # a new deal forgets the old one


def test_touching_cards_are_one_choice() -> None:
    ks, qs, nine = parse_card("KS"), parse_card("QS"), parse_card("9S")
    alive = (1 << 32) - 1 & ~(1 << parse_card("10S")) & ~(1 << parse_card("JS"))
    groups = representatives([ks, qs, nine], alive)
    assert groups == {ks: [ks, qs, nine]}  # J and 10 are gone: K, Q and 9 touch
    groups = representatives([ks, nine], (1 << 32) - 1)
    assert sorted(groups) == [nine, ks]


def test_search_budget_adapts_to_the_measured_solver_speed() -> None:
    cost = SolveCost(first=6)
    assert cost.affordable(6, 5, 0.8)
    assert not cost.affordable(8, 5, 0.8)  # never measured, nothing cheap below it
    cost.record(7, 0.001)
    assert cost.affordable(8, 5, 0.8)  # the size below is cheap: try one more card
    cost.record(8, 1.0)
    assert not cost.affordable(8, 5, 0.8)  # measured slow: fall back to the heuristic


def test_declarer_cashes_his_ace_before_it_can_be_squeezed_out() -> None:
    """No trumps, two cards each, only four cards unseen (KH 8H QS JS). Leading the ace takes a
    trick whatever the split; leading the seven lets a defender win and, holding a spade, lead
    it so the ace must be thrown: the exact search sees it and leads the ace."""
    deal = {
        "players": 3,
        "dealer": 2,
        "forehand": 0,
        "seat": 0,
        "kind": "game",
        "declarer": 0,
        "contract": "6NT",
        "turn": 0,
        "trick_leader": None,
        "trick": [],
        "last_trick": None,
        "commitment": "x",
        "hand": ["AH", "7H"],
        "open_hands": {},
        "tricks": {"0": 6},
        "hand_sizes": {"0": 2, "1": 2, "2": 2},
        "talon": None,
        "discard": None,
    }
    memory = Memory()
    unseen = mask_of(["KH", "8H", "QS", "JS"])
    memory.played = ((1 << 32) - 1) & ~mask_of(deal["hand"]) & ~unseen
    decision = choose_card(deal, ["AH", "7H"], memory, random.Random(1), samples=20, budget=5)
    assert decision.samples > 0
    assert decision.card == "AH"
    assert decision.scores["AH"] > decision.scores["7H"]
