"""The former exhaustive claim search, kept as an independent reference for the tests only.

The engine's claims and analysis use ``app.rules.search.solver`` (through
``app.rules.search.claims``); this
slower boolean search with bounds memoised at trick boundaries checks it.
"""

from __future__ import annotations

from app.rules.core.cards import CardMask
from app.rules.core.play import legal_cards, trick_winner


def _representatives(candidates: CardMask, alive: CardMask) -> list[int]:
    """One card of each run of touching cards (among ``alive``) in ``candidates``, high first."""
    out: list[int] = []
    rest = candidates
    while rest:
        card = rest.bit_length() - 1
        out.append(card)
        rest ^= 1 << card
        low = card & ~7
        below = card - 1
        while below >= low:
            if alive >> below & 1:
                if rest >> below & 1:
                    rest ^= 1 << below
                else:
                    break
            below -= 1
    return out


class _Solver:
    """One search: fixed trump, declarer position and goal; a memo of bounds."""

    __slots__ = ("declarer", "memo", "misere", "nodes", "trump")

    def __init__(self, trump: int | None, declarer: int, misere: bool) -> None:
        self.trump = trump
        self.declarer = declarer
        self.misere = misere
        self.memo: dict[tuple[int, int, int, int], tuple[int, int]] = {}
        self.nodes = 0

    def at_boundary(self, hands: tuple[int, int, int], leader: int, need: int) -> bool:
        """Can the declarer get ``need`` good tricks from a trick boundary?"""
        if need <= 0:
            return True
        remaining = hands[0].bit_count()
        if need > remaining:
            return False
        key = (hands[0], hands[1], hands[2], leader)
        lo, hi = self.memo.get(key, (0, remaining + 1))
        if need <= lo:
            return True
        if need >= hi:
            return False
        result = self.in_trick(hands, leader, (), need)
        if result:
            lo = max(lo, need)
        else:
            hi = min(hi, need)
        self.memo[key] = (lo, hi)
        return result

    def in_trick(
        self,
        hands: tuple[int, int, int],
        leader: int,
        trick: tuple[tuple[int, int], ...],
        need: int,
    ) -> bool:
        """Search from inside a trick with ``trick`` already played."""
        self.nodes += 1
        position = (leader + len(trick)) % 3
        hand = hands[position]
        led = trick[0][1] >> 3 if trick else None
        moves = legal_cards(hand, led, self.trump)
        alive = hands[0] | hands[1] | hands[2]
        for _, card in trick:
            alive |= 1 << card
        is_declarer = position == self.declarer
        for card in _representatives(moves, alive):
            new_hands = (
                (hands[0] ^ (1 << card), hands[1], hands[2])
                if position == 0
                else (hands[0], hands[1] ^ (1 << card), hands[2])
                if position == 1
                else (hands[0], hands[1], hands[2] ^ (1 << card))
            )
            played = (*trick, (position, card))
            if len(played) == 3:
                winner = trick_winner(played, played[0][1] >> 3, self.trump)
                good = (winner == self.declarer) != self.misere
                ok = self.at_boundary(new_hands, winner, need - (1 if good else 0))
            else:
                ok = self.in_trick(new_hands, leader, played, need)
            if ok and is_declarer:
                return True
            if not ok and not is_declarer:
                return False
        return not is_declarer


def _reference_claim_holds(
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    trump: int | None,
    declarer: int,
    misere: bool,
    claimed: int,
) -> bool:
    """Does the declarer's claim hold against every defence?

    ``hands`` are the three hands' remaining cards by position in playing order, ``leader`` the
    position that
    led ``trick`` (the cards already in the current trick as ``(position, card)``), ``declarer``
    the declarer's position. For a game, ``claimed`` is the number of the remaining tricks
    (the current one included) the declarer says he takes; for misère, the number he says he
    takes at most (normally 0).
    """
    remaining = hands[(leader + len(trick)) % 3].bit_count()
    solver = _Solver(trump, declarer, misere)
    need = remaining - claimed if misere else claimed
    if trick:
        return solver.in_trick(hands, leader, trick, need)
    return solver.at_boundary(hands, leader, need)


def _reference_best_tricks(
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    trump: int | None,
    declarer: int,
    misere: bool = False,
) -> int:
    """The number of remaining tricks the declarer can guarantee (game) or the fewest he can
    hold himself to (misère), by a search per possible count."""
    remaining = hands[(leader + len(trick)) % 3].bit_count()
    if misere:
        for taken in range(remaining + 1):
            if _reference_claim_holds(hands, leader, trick, trump, declarer, True, taken):
                return taken
        return remaining
    best = 0
    for claimed in range(1, remaining + 1):
        if _reference_claim_holds(hands, leader, trick, trump, declarer, False, claimed):
            best = claimed
        else:
            break
    return best
