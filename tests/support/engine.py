"""Helpers for the engine tests: hand-built decks and short ways to act.

``deal_of({1: "AS KS ...", 2: "...", 0: "..."}, talon="8H 7H")`` builds the deck order that,
cut at :data:`CUT`, deals exactly those hands (R-D3), so every rule test knows each hand.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from app.rules import (
    Action,
    Bid,
    Conventions,
    Cut,
    DealConfig,
    DealState,
    Event,
    PlayCard,
    apply,
    cards_mask,
    legal_actions,
    legal_cards,
    mask_text,
    new_deal,
    parse_card,
    parse_contract,
)
from app.rules.core.deck import playing_seats

CUT = 16
SALT = b"test-salt"


def cards(text: str) -> list[int]:
    """``"AS KS 10H"`` -> cards."""
    return [parse_card(t) for t in text.split()]


def deck_for(
    hands: Mapping[int, str], talon: str, players: int = 3, dealer: int = 0
) -> tuple[int, ...]:
    """The deck order that deals ``hands`` and ``talon`` after a cut at :data:`CUT`."""
    seats = playing_seats(players, dealer)
    piles = {seat: cards(hands[seat]) for seat in seats}
    for seat, pile in piles.items():
        assert len(pile) == 10, (seat, len(pile))
    talon_cards = cards(talon)
    assert len(talon_cards) == 2
    pairs: list[list[int]] = []
    for round_ in range(5):
        for seat in seats:
            pairs.append(piles[seat][2 * round_ : 2 * round_ + 2])
        if round_ == 0:
            pairs.append(talon_cards)
    order = [c for pair in pairs for c in pair]
    assert sorted(order) == list(range(32)), "hands and talon must hold each card once"
    # cut_deck moves the top CUT cards under the rest: invert it.
    return tuple(order[-CUT:] + order[:-CUT])


def start(
    hands: Mapping[int, str],
    talon: str,
    *,
    players: int = 3,
    dealer: int = 0,
    conventions: Conventions | None = None,
    min_level: int = 6,
) -> DealState:
    """A deal with these hands, already cut: phase ``auction``."""
    config = DealConfig(players, dealer, conventions or Conventions(), min_level)
    state = new_deal(config, deck_for(hands, talon, players, dealer), SALT)
    state, _ = apply(state, Cut(state.cutter, CUT))
    for seat, text in hands.items():
        assert state.hands[seat] == cards_mask(cards(text)), seat
    return state


def run(state: DealState, *actions: Action) -> tuple[DealState, list[Event]]:
    """Apply actions in order; return the final state and all events."""
    events: list[Event] = []
    for action in actions:
        state, new = apply(state, action)
        events.extend(new)
    return state, events


def bids(state: DealState, *calls: str) -> DealState:
    """Make auction calls in turn order: ``"6S"``, ``"pass"``, ``"here"``, ``"misere"``."""
    for call in calls:
        seat = state.to_move
        assert seat is not None
        parsed = call if call in ("pass", "here", "misere") else parse_contract(call)
        state, _ = apply(state, Bid(seat, parsed))  # type: ignore[arg-type]
    return state


def plays(state: DealState, *texts: str) -> DealState:
    """Play cards in turn order (by whoever is to move)."""
    for text in texts:
        seat = state.to_move
        assert seat is not None
        state, _ = apply(state, PlayCard(seat, parse_card(text)))
    return state


def play_out(state: DealState, last: bool = False) -> DealState:
    """Play the deal to the end, each hand playing its lowest (or highest) legal card."""
    while not state.finished:
        seat = state.to_move
        assert seat is not None
        options = [a for a in legal_actions(state, seat) if isinstance(a, PlayCard)]
        state, _ = apply(state, options[-1] if last else options[0])
    return state


def hand(state: DealState, seat: int) -> list[str]:
    """The seat's current hand in text."""
    return mask_text(state.hands[seat])


# A three-player layout, dealer 0: forehand 1, then 2, then 0.
# Seat 1: all spades and ♣AK; seat 2: ♣Q..7 and ♦AKQJ; seat 0: ♦10..7 and ♥A..9. Talon ♥8 ♥7.
LAYOUT = {
    1: "AS KS QS JS 10S 9S 8S 7S AC KC",
    2: "QC JC 10C 9C 8C 7C AD KD QD JD",
    0: "10D 9D 8D 7D AH KH QH JH 10H 9H",
}
LAYOUT_TALON = "8H 7H"

# A four-player layout, dealer 0 (no cards): forehand 1, then 2, then 3.
LAYOUT4 = {
    0: "",
    1: "AS KS QS JS 10S 9S 8S 7S AC KC",
    2: "QC JC 10C 9C 8C 7C AD KD QD JD",
    3: "10D 9D 8D 7D AH KH QH JH 10H 9H",
}


def start4(talon: str = LAYOUT_TALON, **kwargs: object) -> DealState:
    """The four-player layout, dealer 0."""
    hands = {s: h for s, h in LAYOUT4.items() if h}
    return start(hands, talon, players=4, dealer=0, **kwargs)  # type: ignore[arg-type]


def brute_value(
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    trump: int | None,
    declarer: int,
    misere: bool,
) -> int:
    """Exact declarer tricks under optimal play (max for games, min for misère): plain
    minimax over every legal card (cached, but no pruning and no card equivalences), the
    independent oracle for the claim solver."""

    @functools.cache
    def go(h: tuple[int, int, int], lead: int, t: tuple[tuple[int, int], ...]) -> int:
        pos = (lead + len(t)) % 3
        if not h[pos] and not t:
            return 0
        led = t[0][1] >> 3 if t else None
        moves = legal_cards(h[pos], led, trump)
        results = []
        for card in range(32):
            if not moves >> card & 1:
                continue
            nh = list(h)
            nh[pos] ^= 1 << card
            nt = (*t, (pos, card))
            if len(nt) == 3:
                lead_suit = nt[0][1] >> 3
                best, win = -1, -1
                for p, c in nt:
                    key = (
                        100 + c
                        if trump is not None and c >> 3 == trump
                        else (c if c >> 3 == lead_suit else -1)
                    )
                    if key > best:
                        best, win = key, p
                value = (1 if win == declarer else 0) + go((nh[0], nh[1], nh[2]), win, ())
            else:
                value = go((nh[0], nh[1], nh[2]), lead, nt)
            results.append(value)
        maximize = (pos == declarer) != misere
        return max(results) if maximize else min(results)

    return go(hands, leader, trick)
