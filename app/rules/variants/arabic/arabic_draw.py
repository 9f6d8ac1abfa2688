"""Seed 004's seat choice by aces (A-26), the arabic rule set's seating draw.

004: «По одной в открытую сдаются карты. Кому выпал первый туз — первым выбирает место и первый
сдаёт. Второй туз — второй выбирает место. Третий игрок (если нет четвёртого) занимает
оставшееся место.» Cards are dealt face up one at a time, clockwise from the first player
listed, to the players who have no ace yet; each ace seats its receiver at the next seat, the
first at seat 0 (he deals first), and the player left when every other one has his ace takes
the last seat. A choice of seat is not asked at the screen: the aces' order is the seats'
order clockwise (docs/rules-notes.md); players who agree on other seats seat the table by
choice (R-T2) instead.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from app.rules.core.cards import ACE_RANK, Card, card_text, rank_of
from app.rules.core.draw import InvalidDrawError, Seating

RULE = "A-26"


def seat_by_aces(players: Sequence[str], deck: Sequence[Card]) -> Seating:
    """A-26 over ``deck`` in the order it is dealt (a deck holds four aces, enough for four
    players). Every card dealt is in both records."""
    count = len(players)
    if count not in (3, 4) or len(set(players)) != count:
        raise InvalidDrawError("a seating by aces needs 3 or 4 distinct players")
    seated: list[str] = []
    steps: list[tuple[str, Card]] = []
    turn = 0
    for card in deck:
        if len(seated) == count - 1:
            break
        while players[turn % count] in seated:
            turn += 1
        player = players[turn % count]
        turn += 1
        steps.append((player, card))
        if rank_of(card) == ACE_RANK:
            seated.append(player)
    if len(seated) != count - 1:
        raise InvalidDrawError("the deck ran out of aces")
    seated.extend(p for p in players if p not in seated)
    seat_of = {p: i for i, p in enumerate(seated)}
    return Seating(
        seats=tuple(seated),
        dealer=0,
        seat_record={
            "rule": RULE,
            "draws": [{"player": p, "card": card_text(c)} for p, c in steps],
            "seats": list(seated),
        },
        dealer_record={
            "rule": RULE,
            "steps": [{"seat": seat_of[p], "card": card_text(c)} for p, c in steps],
            "dealer": 0,
        },
    )


def draw_by_aces(players: Sequence[str], rng: random.Random) -> Seating:
    """A-26 with a deck shuffled by ``rng``."""
    deck = list(range(32))
    rng.shuffle(deck)
    return seat_by_aces(players, deck)
