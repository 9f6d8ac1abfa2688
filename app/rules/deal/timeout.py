"""The default move of a seat whose move timer ran out (docs/protocol.md §6).

RULES.md has no move timer (a club table plays without one); a table that turns it on needs a
move the server can make for a player who does not answer. That move is a rule of the game, so
it lives here, pure, and the server (``app.services.table_commands.fire_deadline``) and the bots
(``app.bots.strategy.timeout_action``) both use it: pass when passing is legal (a call in the
auction, R-B1, or a defender's pass, R-W1), else take the talon, else cut at the middle of the
deck (:data:`DEFAULT_CUT`, 16: both parts keep 16 cards, inside R-D2's limits whatever the
table's minimum), else the first legal ordinary action. The same cut is made when the cutter
lets the server cut for him (a ``cut`` command with ``"auto": true``, docs/protocol.md).
Claims, concessions and result proposals (R-W11, R-C4) and the answers to a proposal are never
made for a player, nor is returning the talon (R-C6), inviting the dealer to a misère
(R-B9) or looking at a hand (R-W4): those leave the seat to wait (an invitation's answer lists
"decline" first, so the timer declines).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.core.actions import (
    AcceptResult,
    Action,
    Bid,
    Claim,
    Concede,
    Cut,
    DeclineResult,
    Defend,
    InviteMisere,
    LookAtHand,
    ProposeResult,
    ReturnTalon,
    TakeTalon,
)
from app.rules.deal.dispatch import legal_actions
from app.rules.deal.state import DealState

NEVER_BY_DEFAULT: tuple[type, ...] = (
    Claim,
    Concede,
    ProposeResult,
    AcceptResult,
    DeclineResult,
    ReturnTalon,
    InviteMisere,
    LookAtHand,
)
"""Actions that are a player's own decision: the timer never makes them for him."""
DEFAULT_CUT = 16
"""The default cut position: the middle of the 32 cards (R-D2: each part keeps at least
``cut_min`` cards; 16 is inside that range for every allowed minimum)."""


def default_choice(legal: Sequence[Action]) -> Action | None:
    """The default move among ``legal`` (a seat's legal actions, in the engine's order), or
    None when only a player's own decisions are left (the seat then simply waits)."""
    for action in legal:
        if isinstance(action, Bid | Defend) and action.call == "pass":
            return action
    for action in legal:
        if isinstance(action, TakeTalon):
            return action
    cuts = [action for action in legal if isinstance(action, Cut)]
    if cuts:
        return min(cuts, key=lambda cut: abs(cut.position - DEFAULT_CUT))
    for action in legal:
        if not isinstance(action, NEVER_BY_DEFAULT):
            return action
    return None


def default_move(state: DealState, seat: int) -> Action | None:
    """The move made for ``seat`` when its time ran out at ``state``; None if there is none
    (not the seat's turn, the deal is over, or only its own decisions are left)."""
    return default_choice(legal_actions(state, seat))


__all__ = ["DEFAULT_CUT", "NEVER_BY_DEFAULT", "default_choice", "default_move"]
