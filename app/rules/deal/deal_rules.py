"""The hooks a rule set may give one deal: the shared phases call them at their branch points.

Each hook has the club's answer as its default; ``None`` from a hook that returns an optional
value means "the shared rule applies", so a rule set overrides only where it differs and the
shared phases hold no test of which rule set they play. :func:`deal_rules` finds the hooks of a
deal's preset in the registry (:mod:`app.rules.core.ruleset`); a rule set that changes nothing in a
deal need not inherit :class:`DealRules` at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from app.rules.core.actions import Action, Bid, Event, NameContract, TakeTalon
from app.rules.core.auction import Auction, Call
from app.rules.core.conventions import Conventions
from app.rules.core.outcome import DealOutcome
from app.rules.core.rule_errors import IllegalActionError
from app.rules.core.ruleset import rule_set_of
from app.rules.deal.state import DealConfig, DealState, Transition


class DealRules:
    """A deal's branch points: the auction, the talon, the contract, conceding, invitations."""

    misere_invitation: ClassVar[bool] = True
    """R-B9: the four-player dealer may be invited to a misère (with its A-19 extension)."""

    def opening_auction(self, config: DealConfig, order: tuple[int, int, int]) -> Auction:
        """The auction as the cards are dealt: the ladder and the special calls it offers."""
        return Auction(order=order, min_level=config.min_level)

    def bid_options(self, state: DealState, seat: int) -> list[Action] | None:
        """Every auction action of the seat to call, or ``None`` for the shared ladder."""
        return None

    def apply_bid(self, state: DealState, action: Bid) -> Transition | None:
        """One call of this rule set's own auction, or ``None`` for the shared ladder."""
        return None

    def auction_call(self, auction: Auction, call: Call) -> Auction:
        """The auction after the player to call makes ``call`` (the shared ladder's steps, a
        rule set's special calls and its ``Auction.extra`` state); raises ``IllegalBidError``."""
        return auction.call(call)

    def auction_won(self, state: DealState, events: list[Event]) -> Transition | None:
        """What follows a won auction (``state.auction``) where the shared rule does not: the
        talon shown and taken (R-C1). ``None`` for the shared rule."""
        return None

    def face_down(self, state: DealState, seat: int) -> bool:
        """Does ``seat`` still bid with its cards face down (A-10, A-11)? Never, shared."""
        return False

    def picked_up(self, state: DealState, seat: int) -> DealState:
        """The deal once ``seat``, :meth:`face_down` until now, picked up its cards."""
        return state

    def take_talon(self, state: DealState, action: TakeTalon) -> Transition | None:
        """Taking the talon where the shared rule has none (K-5: buying it in the auction)."""
        return None

    def may_return_talon(self, state: DealState) -> bool:
        """May this declarer return the shown talon where the convention allows it (R-C6)?"""
        return True

    def discarding_hand(self, state: DealState, seat: int) -> int:
        """The hand ``seat``'s discard comes from: his own (R-C3)."""
        return seat

    def after_discard(self, state: DealState, events: list[Event]) -> Transition | None:
        """What follows the discard where the shared rule (naming the contract) does not."""
        return None

    def talon_options(self, state: DealState, seat: int) -> list[Action] | None:
        """The declarer's choices in the talon phase, or ``None`` for take or return (R-C6)."""
        return None

    def name_at_talon(self, state: DealState, action: NameContract) -> Transition | None:
        """Naming a contract before the talon is taken (A-11: a dark declarer's misère), or
        ``None``: the shared rule names it after the discard (R-C2)."""
        return None

    def contract_options(self, state: DealState, seat: int) -> list[Action] | None:
        """The contracts the declarer may name, or ``None`` for the bid or higher (R-C2)."""
        return None

    def name_contract(self, state: DealState, action: NameContract) -> Transition | None:
        """Naming a contract under this rule set's list, or ``None`` for R-C2."""
        return None

    def invite_refusal(self, state: DealState) -> IllegalActionError | None:
        """Why nobody may invite the dealer under this rule set (R-B9), or ``None``."""
        return None

    def forced_whist(self, state: DealState) -> str | None:
        """Why both defenders must whist this game under this rule set (A-11), or ``None``."""
        return None

    def view_flags(self, state: DealState) -> Mapping[str, bool]:
        """This rule set's values of the view's flags (``dark``, ``dark_game``); the shared
        view has them all ``false``."""
        return {}

    def finish_outcome(self, state: DealState, outcome: DealOutcome) -> DealOutcome:
        """The finished deal's outcome with what this rule set adds (its marks); ``outcome``
        is the shared one."""
        return outcome

    def concede_refusal(self, state: DealState) -> IllegalActionError | None:
        """Why the declarer may not concede at all under this rule set (R-C4), or ``None``."""
        return None


_SHARED = DealRules()


def deal_rules(conventions: Conventions) -> DealRules:
    """The deal hooks of ``conventions``' rule set (the shared rules if it has none)."""
    rule_set = rule_set_of(conventions.preset)
    return rule_set if isinstance(rule_set, DealRules) else _SHARED


def deal_rules_of(config: DealConfig) -> DealRules:
    """The deal hooks of one deal."""
    return deal_rules(config.conventions)
