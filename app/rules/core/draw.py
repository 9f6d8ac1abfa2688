"""Draws before play: tables (R-T1), seats (R-T2, тираж) and the first dealer (R-T3).

Each draw is a function of a supplied ``random.Random`` and returns the full record of what was
drawn, so the table can show every step to the players and the draw can be replayed from its seed.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from app.rules.core.cards import ACE_RANK, SUIT_LETTERS, Card, card_text, rank_of, suit_of
from app.rules.core.rule_errors import RulesError


class InvalidDrawError(RulesError):
    """A draw that cannot be made (wrong number of members, bad table sizes)."""


@dataclasses.dataclass(frozen=True, slots=True)
class TableDraw:
    """R-T1: the prepared cards, who drew which, and the resulting tables.

    ``tables[t]`` lists the members drawn to table ``t`` (whose suit is ``SUIT_LETTERS[t]``) in
    the order they drew.
    """

    prepared: tuple[Card, ...]
    draws: tuple[tuple[str, Card], ...]
    tables: tuple[tuple[str, ...], ...]

    def to_json(self) -> dict[str, object]:
        """JSON-ready form with cards in canonical text."""
        return {
            "prepared": [card_text(c) for c in self.prepared],
            "draws": [{"member": m, "card": card_text(c)} for m, c in self.draws],
            "tables": [list(t) for t in self.tables],
        }


def draw_tables(
    members: Sequence[str], table_sizes: Sequence[int], rng: random.Random
) -> TableDraw:
    """R-T1: prepare ``len(table_sizes)`` suits with as many cards as each table has seats
    (ace, king, queen, ...), shuffle them, let each member draw one; the suit is the table.

    Tables have 3 or 4 seats; one table of 5 only when exactly five members are present.
    """
    n = len(members)
    if len(set(members)) != n:
        raise InvalidDrawError("each member may draw only once")
    if not table_sizes or len(table_sizes) > 4:
        raise InvalidDrawError("between one and four tables")
    if sum(table_sizes) != n:
        raise InvalidDrawError(f"table sizes add up to {sum(table_sizes)}, but {n} members drew")
    for size in table_sizes:
        if size not in (3, 4, 5) or (size == 5 and n != 5):
            raise InvalidDrawError("a table has 3 or 4 players (5 only when five are present)")
    prepared = [
        suit * 8 + (ACE_RANK - i) for suit, size in enumerate(table_sizes) for i in range(size)
    ]
    pile = list(prepared)
    rng.shuffle(pile)
    draws = tuple(zip(members, pile, strict=True))
    tables: list[list[str]] = [[] for _ in table_sizes]
    for member, card in draws:
        tables[suit_of(card)].append(member)
    return TableDraw(tuple(prepared), draws, tuple(tuple(t) for t in tables))


def seat_draw_key(card: Card) -> tuple[int, int]:
    """R-T2 order of a drawn card: ace lowest, then 7..K; ties by suit ♠ < ♣ < ♦ < ♥."""
    rank = rank_of(card)
    return (-1 if rank == ACE_RANK else rank, suit_of(card))


@dataclasses.dataclass(frozen=True, slots=True)
class SeatDraw:
    """R-T2: each player's drawn card and the resulting seat order (seat 0 = lowest card)."""

    draws: tuple[tuple[str, Card], ...]
    seats: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "draws": [{"player": p, "card": card_text(c)} for p, c in self.draws],
            "seats": list(self.seats),
        }


def draw_seats(players: Sequence[str], rng: random.Random) -> SeatDraw:
    """R-T2 (тираж): each player draws a card from a shuffled deck; the lowest card takes seat 0
    (the seat he chose first) and the others follow clockwise in increasing order."""
    if not 3 <= len(players) <= 5 or len(set(players)) != len(players):
        raise InvalidDrawError("a seat draw needs 3 to 5 distinct players")
    deck = list(range(32))
    rng.shuffle(deck)
    draws = tuple(zip(players, deck[: len(players)], strict=True))
    ordered = sorted(draws, key=lambda d: seat_draw_key(d[1]))
    return SeatDraw(draws, tuple(p for p, _ in ordered))


@dataclasses.dataclass(frozen=True, slots=True)
class DealerLot:
    """R-T3: the face-up cards dealt one at a time clockwise until the first ace."""

    steps: tuple[tuple[int, Card], ...]
    dealer: int

    def to_json(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "steps": [{"seat": s, "card": card_text(c)} for s, c in self.steps],
            "dealer": self.dealer,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class Seating:
    """A rule set's own draw that seats a table and names its first dealer at once (A-26), in
    place of the club's seat draw (R-T2) and first-dealer lot (R-T3)."""

    seats: tuple[str, ...]
    """The players clockwise from seat 0."""
    dealer: int
    """The seat that deals first."""
    seat_record: dict[str, object]
    """The seat draw's record, JSON-ready (its ``rule``, every card dealt, the seats)."""
    dealer_record: dict[str, object]
    """The first dealer's record, shaped like :class:`DealerLot`'s (``steps`` by seat,
    ``dealer``), with its ``rule``."""


def draw_first_dealer(players: int, rng: random.Random, start: int = 0) -> DealerLot:
    """R-T3: deal a shuffled deck face up one card at a time clockwise from ``start``; the
    player who receives the first ace deals first. Every step is in the record."""
    if players not in (3, 4, 5):
        raise InvalidDrawError("a table has 3, 4 or 5 players")
    deck = list(range(32))
    rng.shuffle(deck)
    steps: list[tuple[int, Card]] = []
    for index, card in enumerate(deck):
        seat = (start + index) % players
        steps.append((seat, card))
        if rank_of(card) == ACE_RANK:
            return DealerLot(tuple(steps), seat)
    raise AssertionError("a deck always holds an ace")  # pragma: no cover


__all__ = [
    "SUIT_LETTERS",
    "DealerLot",
    "InvalidDrawError",
    "SeatDraw",
    "Seating",
    "TableDraw",
    "draw_first_dealer",
    "draw_seats",
    "draw_tables",
    "seat_draw_key",
]
