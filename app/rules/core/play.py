"""Trick rules: which cards may be played and who wins a trick (R-W7, R-W10, R-R1..R-R3).

Pure functions on card masks, shared by the deal engine and the claim solver.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.core.cards import SUIT_MASKS, Card, CardMask, card_pretty, suit_name
from app.rules.core.rule_errors import IllegalActionError


class IllegalCardError(IllegalActionError):
    """A card that may not be played now (not held, not following suit, not trumping)."""


def legal_cards(hand: CardMask, led_suit: int | None, trump: int | None) -> CardMask:
    """The cards of ``hand`` that may be played to a trick whose led suit is ``led_suit``.

    R-W7: follow suit; if void, play a trump; if void of both, any card. ``led_suit`` is
    ``None`` for a lead (any card). On misère and pass-out ``trump`` is ``None`` (R-W10, R-R1).
    """
    if led_suit is None:
        return hand
    follow = hand & SUIT_MASKS[led_suit]
    if follow:
        return follow
    if trump is not None:
        trumps = hand & SUIT_MASKS[trump]
        if trumps:
            return trumps
    return hand


def check_card(hand: CardMask, card: Card, led_suit: int | None, trump: int | None) -> None:
    """Raise :class:`IllegalCardError` with a player-readable reason unless ``card`` is legal."""
    if not (0 <= card < 32) or not hand >> card & 1:
        text = card_pretty(card) if 0 <= card < 32 else repr(card)
        raise IllegalCardError(f"{text} is not in the hand to play")
    if legal_cards(hand, led_suit, trump) >> card & 1:
        return
    assert led_suit is not None
    if hand & SUIT_MASKS[led_suit]:
        raise IllegalCardError(f"you must follow {suit_name(led_suit)} (R-W7)")
    assert trump is not None
    raise IllegalCardError(
        f"you have no {suit_name(led_suit)}: you must play a trump {suit_name(trump)} (R-W7)"
    )


def trick_winner(cards: Sequence[tuple[int, Card]], led_suit: int, trump: int | None) -> int:
    """The seat that wins a trick of ``(seat, card)`` pairs: the highest trump, else the highest
    card of the suit led (R-W7). Ranks grow with the card index within a suit."""
    best_seat = -1
    best_key = -1
    for seat, card in cards:
        suit = card >> 3
        if trump is not None and suit == trump:
            key = 100 + card
        elif suit == led_suit:
            key = card
        else:
            continue
        if key > best_key:
            best_key, best_seat = key, seat
    return best_seat
