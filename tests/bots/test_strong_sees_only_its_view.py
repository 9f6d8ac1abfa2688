"""The strong bot decides from its protocol view alone: hidden cards cannot change its move."""

from __future__ import annotations

import dataclasses
import random

from app.bots.levels import SearchStrategy, make_strategy
from app.rules import DealState, mask_cards, view
from tests.support.bot_deals import declarer_to_play, message, play_until


def _swap_hidden(state: DealState) -> DealState:
    """The same deal with the two defenders' remaining cards exchanged card for card (each
    keeps his count), so the declarer's view cannot tell the two apart."""
    declarer = state.declarer
    assert declarer is not None
    d1, d2 = [s for s in range(3) if s != declarer]
    a, b = mask_cards(state.hands[d1]), mask_cards(state.hands[d2])
    n = min(len(a), len(b))
    moved_a = sum(1 << c for c in b[:n]) | sum(1 << c for c in a[n:])
    moved_b = sum(1 << c for c in a[:n]) | sum(1 << c for c in b[n:])
    hands = list(state.hands)
    hands[d1], hands[d2] = moved_a, moved_b
    return dataclasses.replace(state, hands=tuple(hands))


def _first_searchable() -> DealState:
    for seed in range(200):
        state = play_until(seed, declarer_to_play(5))
        if state is None:
            continue
        suits = {c >> 3 for c in mask_cards(state.hands[state.declarer or 0])}
        if len(suits) > 1:
            return state
    raise AssertionError("no deal reached a declarer's play with five cards")


def test_two_deals_differing_only_in_hidden_cards_get_the_same_move() -> None:
    state = _first_searchable()
    other = _swap_hidden(state)
    seat = state.declarer
    assert seat is not None
    assert other.hands != state.hands  # the hidden cards really differ
    assert view(other, seat) == view(state, seat)  # … and the declarer cannot see it
    moves = []
    for deal in (state, other):
        bot = make_strategy("strong", random.Random(7))
        assert isinstance(bot, SearchStrategy)
        first = message(deal, seat)
        moves.append(bot.choose(first, first["legal"], seat))
        assert bot.last_samples > 0  # it searched (PIMC), not the fallback heuristic
    assert moves[0] == moves[1]


def test_the_bot_is_handed_the_protocol_message_not_the_state() -> None:
    state = _first_searchable()
    seat = state.declarer
    assert seat is not None
    bot = make_strategy("strong", random.Random(1))
    sent = message(state, seat)
    assert set(sent) == {"deal", "legal"}
    assert sent["deal"] == view(state, seat)
    # Other seats' hands are not in what the bot gets.
    for other in range(3):
        if other != seat:
            assert str(other) not in sent["deal"]["open_hands"]
    move = bot.choose(sent, sent["legal"], seat)
    assert move in sent["legal"]
