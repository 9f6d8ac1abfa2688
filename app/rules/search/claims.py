"""The claim solver (R-W11, R-W9): can the declarer guarantee a number of tricks?

A claim holds when the declarer has a way of playing that reaches the claim *against every
defence*, all cards being known (the claimer lays his cards open; the engine knows the rest).
On misère the declarer's goal is the opposite one: avoid tricks; both are counted as "good"
tricks (tricks the declarer wins in a game, or does not win on misère).

Both functions delegate to the exact double-dummy search of :mod:`app.rules.search.solver`. The
tests
check it against the former exhaustive search, kept in ``tests/rules/reference_solver.py``.
"""

from __future__ import annotations

from app.rules.search.solver import max_good_tricks, reaches


def claim_holds(
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
    position that led ``trick`` (the cards already in the current trick as
    ``(position, card)``), ``declarer`` the declarer's position. For a game, ``claimed`` is the
    number of the remaining tricks (the current one included) the declarer says he takes; for
    misère, the number he says he takes at most (normally 0).
    """
    remaining = hands[(leader + len(trick)) % 3].bit_count()
    need = remaining - claimed if misere else claimed
    return reaches(hands, leader, trick, trump, declarer, misere, need)


def best_tricks(
    hands: tuple[int, int, int],
    leader: int,
    trick: tuple[tuple[int, int], ...],
    trump: int | None,
    declarer: int,
    misere: bool = False,
) -> int:
    """The number of remaining tricks the declarer can guarantee (game) or the fewest he can
    hold himself to (misère)."""
    good = max_good_tricks(hands, leader, trick, trump, declarer, misere)
    if misere:
        return hands[(leader + len(trick)) % 3].bit_count() - good
    return good


__all__ = ["best_tricks", "claim_holds"]
