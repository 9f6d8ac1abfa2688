"""Cards of the 32-card Preferans deck as compact values.

A card is an ``int`` from 0 to 31: ``suit * 8 + rank`` where suits run ♠ ♣ ♦ ♥ (0..3, the order of
the bidding ladder, R-B2) and ranks run 7 8 9 10 J Q K A (0..7). A set of cards (a hand, a trick's
cards, the talon) is a 32-bit mask: card ``c`` is in ``mask`` when ``mask >> c & 1``. Within a suit
a higher index is a higher card, which makes "highest card of a suit" a bit operation.

    >>> card_text(parse_card("10H"))
    '10H'
    >>> card_pretty(parse_card("a♠"))
    'A♠'
    >>> mask_text(cards_mask([parse_card("7S"), parse_card("AS")]))
    ['7S', 'AS']

The canonical text form (``"AS"``, ``"10H"``) is ASCII and what the JSON codec and
:class:`~app.rules.core.outcome.DealOutcome` use; the pretty form (``"A♠"``) is for people.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, TypeAlias

from app.rules.core.rule_errors import RulesError

Card: TypeAlias = int
"""A card: ``suit * 8 + rank``, 0..31."""
CardMask: TypeAlias = int
"""A set of cards as a 32-bit mask."""
Suit: TypeAlias = Literal[0, 1, 2, 3]

SPADES: Final = 0
CLUBS: Final = 1
DIAMONDS: Final = 2
HEARTS: Final = 3

SUIT_LETTERS: Final = ("S", "C", "D", "H")
SUIT_SYMBOLS: Final = ("♠", "♣", "♦", "♥")
RANK_TEXT: Final = ("7", "8", "9", "10", "J", "Q", "K", "A")
ALL_CARDS: Final[CardMask] = (1 << 32) - 1
SUIT_MASKS: Final = tuple(0xFF << (8 * s) for s in range(4))
"""``SUIT_MASKS[s]`` is the mask of all eight cards of suit ``s``."""

ACE_RANK: Final = 7


class InvalidCardError(RulesError):
    """A card written in a form that is not a card of the 32-card deck."""


def suit_of(card: Card) -> int:
    """The suit of ``card`` (0 ♠, 1 ♣, 2 ♦, 3 ♥)."""
    return card >> 3


def rank_of(card: Card) -> int:
    """The rank of ``card`` (0 for a seven .. 7 for an ace)."""
    return card & 7


def make_card(suit: int, rank: int) -> Card:
    """The card of ``suit`` (0..3) and ``rank`` (0 seven .. 7 ace)."""
    if not (0 <= suit < 4 and 0 <= rank < 8):
        raise InvalidCardError(f"no card with suit {suit} and rank {rank}")
    return suit * 8 + rank


_SUIT_BY_TEXT: Final = {
    "S": 0,
    "C": 1,
    "D": 2,
    "H": 3,
    "♠": 0,
    "♣": 1,
    "♦": 2,
    "♥": 3,
    "♤": 0,
    "♧": 1,
    "♢": 2,
    "♡": 3,
}
_RANK_BY_TEXT: Final = {
    "7": 0,
    "8": 1,
    "9": 2,
    "10": 3,
    "T": 3,
    "J": 4,
    "Q": 5,
    "K": 6,
    "A": 7,
}
_PARSED: dict[str, Card] = {}


def parse_card(text: str) -> Card:
    """Parse ``"AS"``, ``"10H"``, ``"th"`` or ``"7♠"`` into a card.

    Raises :class:`InvalidCardError` (a ``RulesError``) for anything else, so malformed client
    input gets a readable message.
    """
    if not isinstance(text, str):
        raise InvalidCardError(f"a card must be text such as 'AS' or '10H', not {text!r}")
    cached = _PARSED.get(text)
    if cached is not None:
        return cached
    cleaned = text.strip().upper()
    if len(cleaned) < 2 or len(cleaned) > 3:
        raise InvalidCardError(f"{text!r} is not a card (write it like 'AS', '10H' or '7♠')")
    suit = _SUIT_BY_TEXT.get(cleaned[-1])
    rank = _RANK_BY_TEXT.get(cleaned[:-1])
    if suit is None or rank is None:
        raise InvalidCardError(f"{text!r} is not a card (write it like 'AS', '10H' or '7♠')")
    card = suit * 8 + rank
    if len(_PARSED) < 4096:
        _PARSED[text] = card
    return card


_TEXT: Final = tuple(RANK_TEXT[c & 7] + SUIT_LETTERS[c >> 3] for c in range(32))
_PRETTY: Final = tuple(RANK_TEXT[c & 7] + SUIT_SYMBOLS[c >> 3] for c in range(32))


CARD_TEXTS: Final = _TEXT
"""``CARD_TEXTS[card]`` is the canonical text of ``card`` (a lookup table, for hot paths)."""


def card_text(card: Card) -> str:
    """The canonical ASCII form of ``card``: ``"AS"``, ``"10H"``."""
    return _TEXT[card]


def card_pretty(card: Card) -> str:
    """The form with a suit symbol: ``"A♠"``, ``"10♥"``."""
    return _PRETTY[card]


def cards_mask(cards: Iterable[Card]) -> CardMask:
    """The mask of a collection of cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


_BYTE_CARDS: Final = tuple(
    tuple(tuple(base + bit for bit in range(8) if byte >> bit & 1) for byte in range(256))
    for base in (0, 8, 16, 24)
)

_BYTE_TEXTS: Final = tuple(
    tuple(tuple(_TEXT[card] for card in cards) for cards in table) for table in _BYTE_CARDS
)


def mask_cards(mask: CardMask) -> list[Card]:
    """The cards of ``mask`` in ascending order (by suit, then rank)."""
    table = _BYTE_CARDS
    return [
        *table[0][mask & 0xFF],
        *table[1][mask >> 8 & 0xFF],
        *table[2][mask >> 16 & 0xFF],
        *table[3][mask >> 24 & 0xFF],
    ]


def mask_text(mask: CardMask) -> list[str]:
    """The cards of ``mask`` in canonical text, ascending (every seat's view of every event
    spells its hand: a table per byte of the mask, as :func:`mask_cards`)."""
    table = _BYTE_TEXTS
    return [
        *table[0][mask & 0xFF],
        *table[1][mask >> 8 & 0xFF],
        *table[2][mask >> 16 & 0xFF],
        *table[3][mask >> 24 & 0xFF],
    ]


def count(mask: CardMask) -> int:
    """How many cards ``mask`` holds."""
    return mask.bit_count()


def highest(mask: CardMask) -> Card:
    """The highest-indexed card of a non-empty mask (within one suit: the highest card)."""
    return mask.bit_length() - 1


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse several card texts (see :func:`parse_card`)."""
    return [parse_card(t) for t in texts]


def strain_suit(strain: str) -> int | None:
    """The trump suit of a strain ``"S" "C" "D" "H"``, ``None`` for ``"NT"``."""
    if strain == "NT":
        return None
    return _SUIT_BY_TEXT[strain]


def suit_name(suit: int) -> str:
    """The suit symbol used in player-readable messages."""
    return SUIT_SYMBOLS[suit]
