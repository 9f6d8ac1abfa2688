"""The verifiable deal: shuffle, commitment, cut and dealing by twos (R-D2, R-D3, R-D4).

The server shuffles with a random source it is given (the service passes
``random.SystemRandom()``, tests pass a seeded ``random.Random``), then publishes a commitment to
the shuffled order before anyone cuts::

    commitment = sha256("deck/1:" + " ".join(card texts of the order) + ":" + salt.hex())

The cutter cuts at a position (the top ``position`` cards go to the bottom; each part keeps at
least ``cut_min`` cards); the cards are then dealt two at a time clockwise from the dealer's left,
the talon being the fourth pair (R-D3). When the deal is over the order and the salt are revealed
and :func:`verify_deal` lets anyone re-check hands and talon against the commitment.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Sequence

from app.rules.core.cards import CARD_TEXTS, Card, card_text, mask_text, parse_card
from app.rules.core.rule_errors import IllegalActionError, RulesError
from app.rules.core.seats import TABLE_SIZES
from app.rules.core.seats import playing_seats as playing_seats  # re-exported

DECK_SIZE = 32
_FULL_DECK = frozenset(range(DECK_SIZE))


class InvalidDeckError(RulesError):
    """A deck order that is not a permutation of the 32 cards."""


def shuffled_deck(rng: random.Random) -> tuple[Card, ...]:
    """A uniformly shuffled deck order drawn from ``rng`` (R-D4)."""
    order = list(range(DECK_SIZE))
    rng.shuffle(order)
    return tuple(order)


def check_deck(deck: Sequence[int]) -> tuple[Card, ...]:
    """Return ``deck`` as a tuple after checking it holds each of the 32 cards once."""
    order = tuple(deck)
    if len(order) != DECK_SIZE or frozenset(order) != _FULL_DECK or set(map(type, order)) != {int}:
        raise InvalidDeckError("a deck must hold each of the 32 cards exactly once")
    return order


def commitment(deck: Sequence[Card], salt: bytes) -> str:
    """The SHA-256 commitment (hex) to a deck order and a secret salt (R-D4)."""
    text = "deck/1:" + " ".join(map(CARD_TEXTS.__getitem__, deck)) + ":" + salt.hex()
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def cut_deck(deck: Sequence[Card], position: int, cut_min: int) -> tuple[Card, ...]:
    """Cut: the top ``position`` cards go under the rest (R-D2).

    Each part must keep at least ``cut_min`` cards, else :class:`IllegalActionError`.
    """
    if isinstance(position, bool) or not isinstance(position, int):
        raise IllegalActionError("the cut position must be a whole number")
    if position < cut_min or DECK_SIZE - position < cut_min:
        raise IllegalActionError(
            f"cut between {cut_min} and {DECK_SIZE - cut_min} cards: each part of the cut "
            f"must keep at least {cut_min} cards"
        )
    return tuple(deck[position:]) + tuple(deck[:position])


def _deal_plan(players: int, dealer: int) -> tuple[int, ...]:
    """Who receives the card at each position of the cut deck: a seat, or -1 for the talon."""
    seats = playing_seats(players, dealer)
    plan: list[int] = []
    for pair in range(16):
        if pair == 3:
            plan += [-1, -1]  # R-D3: the talon is the fourth pair
        else:
            index = pair if pair < 3 else pair - 1
            plan += [seats[index % 3]] * 2
    return tuple(plan)


_PLANS = {(n, d): _deal_plan(n, d) for n in TABLE_SIZES for d in range(n)}


def deal_cards(
    cut_order: Sequence[Card], players: int, dealer: int
) -> tuple[tuple[int, ...], tuple[Card, Card]]:
    """Deal a cut deck: pairs clockwise from the dealer's left, the talon as the 4th pair (R-D3).

    Returns the hand masks per seat (0 for a seat sitting out, R-T6) and the talon.
    """
    hands = [0] * players
    for seat, card in zip(_PLANS[players, dealer], cut_order, strict=True):
        if seat >= 0:
            hands[seat] |= 1 << card
    return tuple(hands), (cut_order[6], cut_order[7])


@dataclasses.dataclass(frozen=True, slots=True)
class DealReveal:
    """What is published after a deal: enough to re-check it independently (R-D4)."""

    commitment: str
    deck: tuple[str, ...]
    salt: str
    cut: int
    players: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    talon: tuple[str, str]
    cut_min: int = 4
    """The table's ``cut_min`` (convention): the cut the deal was checked against (R-D2)."""

    def to_json(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "commitment": self.commitment,
            "deck": list(self.deck),
            "salt": self.salt,
            "cut": self.cut,
            "players": self.players,
            "dealer": self.dealer,
            "hands": [list(h) for h in self.hands],
            "talon": list(self.talon),
            "cut_min": self.cut_min,
        }


def reveal(
    deck: Sequence[Card], salt: bytes, cut: int, players: int, dealer: int, cut_min: int = 4
) -> DealReveal:
    """Build the public reveal of a deal from its secret inputs."""
    order = check_deck(deck)
    hands, talon = deal_cards(cut_deck(order, cut, cut_min), players, dealer)
    return DealReveal(
        commitment=commitment(order, salt),
        deck=tuple(card_text(c) for c in order),
        salt=salt.hex(),
        cut=cut,
        players=players,
        dealer=dealer,
        hands=tuple(tuple(mask_text(h)) for h in hands),
        talon=(card_text(talon[0]), card_text(talon[1])),
        cut_min=cut_min,
    )


def verify_deal(data: DealReveal, cut_min: int | None = None) -> bool:
    """Independently re-check a reveal: the commitment matches and hands/talon follow R-D3.

    The cut must leave ``cut_min`` cards in each part: by default the table's own
    ``data.cut_min`` (R-D2), so a reveal with a cut the table forbids fails. The talon is
    checked card by card in dealt order, since its order matters (on a pass-out the first
    talon card leads the first trick, R-R2/R-R3). Uses only the published texts, as an outside
    checker would; returns ``False`` on any mismatch or malformed value instead of raising.
    """
    if cut_min is None:
        cut_min = data.cut_min

    try:
        order = check_deck([parse_card(t) for t in data.deck])
        salt = bytes.fromhex(data.salt)
        if commitment(order, salt) != data.commitment:
            return False
        hands, talon = deal_cards(cut_deck(order, data.cut, cut_min), data.players, data.dealer)
    except (RulesError, ValueError):
        return False
    if tuple(tuple(mask_text(h)) for h in hands) != tuple(tuple(h) for h in data.hands):
        return False
    try:
        shown = tuple(parse_card(t) for t in data.talon)
    except (RulesError, ValueError):
        return False
    return shown == talon  # R-D4: the talon in its dealt order, not just its two cards
