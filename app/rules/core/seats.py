"""Who holds cards in a deal: the three playing seats and the order around them (R-D3, R-T6).

Seats are table seats ``0..players-1`` clockwise. At four players the dealer gets no cards; the
three playing seats are the dealer's left neighbours in order, forehand first. At five the
dealer's two left neighbours and his right neighbour play (R-T6); the dealer and the seat
opposite him (two to his right) sit out. The deck, the deal engine, the score sheet and the
pulka validator all ask this module, so there is one definition of "who plays".
"""

from __future__ import annotations

NO_SEAT = -1
"""Not a seat: the talon's place in a three-player pass-out trick (R-R2)."""


TABLE_SIZES = (3, 4, 5)
"""The table sizes the engine deals for (R-T1, R-T6)."""


def playing_seats(players: int, dealer: int) -> tuple[int, int, int]:
    """The three seats that receive cards, from the dealer's left clockwise (R-D3, R-T6)."""
    if players == 3:
        return ((dealer + 1) % 3, (dealer + 2) % 3, dealer)
    if players == 4:
        return ((dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4)
    return ((dealer + 1) % 5, (dealer + 2) % 5, (dealer + 4) % 5)


def dealer_on_talon(players: int) -> bool:
    """True when the dealer holds no cards and "sits on the talon" (R-T6: four or five).

    Such a dealer has every role 000 gives the four-player dealer: the talon bonus (R-C5), the
    misère invitation (R-B9), returning a half-whist (R-W4), whisting on 8+ (R-W5), and the
    talon tricks of a pass-out (R-R3).
    """
    return players >= 4


def idle_seats(players: int, dealer: int) -> tuple[int, ...]:
    """The seats holding no cards this deal: none at three, the dealer at four, the dealer and
    the seat opposite him at five (R-T6)."""
    playing = playing_seats(players, dealer)
    return tuple(s for s in range(players) if s not in playing)


def pass_out_seats(players: int, dealer: int) -> tuple[int, ...]:
    """Whose tricks a pass-out writes, forehand first: the three hands, then a dealer sitting on
    the talon for the talon tricks (R-R3, R-R4). The fifth seat's idle partner takes no part."""
    playing = playing_seats(players, dealer)
    return (*playing, dealer) if dealer_on_talon(players) else playing


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
    n: tuple(_next_table(n, d) for d in range(n)) for n in TABLE_SIZES
}
"""``NEXT_PLAYING[players][dealer][seat]``: the next playing seat clockwise (``-1``: none).

A precomputed table because the deal engine asks it on every card."""
