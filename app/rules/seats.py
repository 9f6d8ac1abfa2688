"""Who holds cards in a deal: the three playing seats and the order around them (R-D3, R-T6).

Seats are table seats ``0..players-1`` clockwise. At four players the dealer gets no cards; the
three playing seats are the dealer's left neighbours in order, forehand first. The deck, the
deal engine, the score sheet and the pulka validator all ask this module, so there is one
definition of "who plays".
"""

from __future__ import annotations

NO_SEAT = -1
"""Not a seat: the talon's place in a three-player pass-out trick (R-R2)."""


def playing_seats(players: int, dealer: int) -> tuple[int, int, int]:
    """The three seats that receive cards, from the dealer's left clockwise (R-D3, R-T6)."""
    if players == 3:
        return ((dealer + 1) % 3, (dealer + 2) % 3, dealer)
    return ((dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4)


def defenders(players: int, dealer: int, declarer: int) -> tuple[int, int]:
    """The two playing seats other than the declarer, clockwise from the declarer's left."""
    seats = playing_seats(players, dealer)
    after = [s for s in ((declarer + k) % players for k in range(1, players)) if s in seats]
    return after[0], after[1]


def _next_table(players: int, dealer: int) -> tuple[int, ...]:
    seats = playing_seats(players, dealer)
    nxt = [NO_SEAT] * players
    for i, seat in enumerate(seats):
        nxt[seat] = seats[(i + 1) % 3]
    return tuple(nxt)


NEXT_PLAYING: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(_next_table(n, d) for d in range(n)) for n in (3, 4)
}
"""``NEXT_PLAYING[players][dealer][seat]``: the next playing seat clockwise (``-1``: none).

A precomputed table because the deal engine asks it on every card."""
