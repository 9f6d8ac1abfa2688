"""The four-player dealer's two looks at a hand (000, RULES.md R-B9 and R-W4).

At five players the dealer sits on the talon as at four and has the same two looks (R-T6).

* **Misère invitation (R-B9).** Before his first call a player may hand his cards to the dealer
  (:class:`InviteMisere`): the auction waits while the dealer, who has seen no other hand, looks
  at them and answers (:class:`AnswerInvitation`). Accepted, the partners bid misère at once (the
  inviter's call) and every entry of that misère is written half on each of them (the outcome's
  ``partner``). Declined, the inviter makes his call as usual. One invitation per seat and deal.
* **A look before returning a whist (R-W4).** When the dealer may return a half-whist, last, he
  may first look at the cards of one of the declarer's opponents (:class:`LookAtHand`).

Only the dealer sees the hand he looks at (:func:`app.rules.deal.dispatch.visible_cards`); everyone
sees
that he looked, and at whose cards (the events name the seats, never a card).
"""

from __future__ import annotations

from app.rules.core.actions import Action, AnswerInvitation, Bid, Event, InviteMisere, LookAtHand
from app.rules.core.auction import PASS_ONLY_LEVEL
from app.rules.core.rule_errors import IllegalActionError
from app.rules.core.seats import dealer_on_talon
from app.rules.deal.deal_rules import deal_rules_of
from app.rules.deal.phases.bidding import apply_bid
from app.rules.deal.state import DealState, Transition, defenders_of, evolve, require_turn


def invite_refusal(state: DealState, seat: int) -> IllegalActionError | None:
    """Why ``seat`` may not invite the dealer to a misère now, or ``None`` (R-B9)."""
    if not dealer_on_talon(state.players):
        return IllegalActionError(
            "a misère invitation needs a four-player or five-player dealer (R-B9)"
        )
    refusal = deal_rules_of(state.config).invite_refusal(state)
    if refusal is not None:
        return refusal
    if state.phase != "auction" or state.to_move != seat or state.invited is not None:
        return IllegalActionError("you can invite the dealer only at your turn to bid (R-B9)")
    auction = state.auction
    assert auction is not None
    if auction.spoke >> auction.turn & 1:
        return IllegalActionError("the dealer can be invited only before your first call (R-B9)")
    if state.invitations >> seat & 1:
        return IllegalActionError("you have already invited the dealer in this deal (R-B9)")
    if not _may_invite(state):
        return IllegalActionError("misère cannot be bid now, so there is nothing to invite to")
    return None


def _may_invite(state: DealState) -> bool:
    """R-B9: misère can still be bid; A-19 (``halves_any_game``): any game can (first call)."""
    auction = state.auction
    assert auction is not None
    if state.config.conventions.halves_any_game:
        return not auction.spoke >> auction.turn & 1 and auction.min_level < PASS_ONLY_LEVEL
    return auction.may_misere(auction.turn)


def invitation_options(state: DealState, seat: int) -> list[Action]:
    """The auction actions that are not calls: invite (R-B9), or answer an invitation."""
    if not dealer_on_talon(state.config.players):
        return []  # the common case, decided without building a refusal
    if not deal_rules_of(state.config).misere_invitation:
        return []
    if state.invited is not None:
        if seat == state.dealer:
            return [AnswerInvitation(seat, False), AnswerInvitation(seat, True)]  # decline first
        return []
    auction = state.auction
    if (
        auction is not None
        and state.phase == "auction"
        and state.to_move == seat
        and not state.invitations >> seat & 1
        and _may_invite(state)  # R-B6: before his first call, nothing above it (A-19: any game)
    ):
        return [InviteMisere(seat)]
    return []


def apply_invite(state: DealState, action: InviteMisere) -> Transition:
    """Hand the cards to the dealer: he alone sees them until he answers (R-B9)."""
    refusal = invite_refusal(state, action.seat)
    if refusal is not None:
        raise refusal
    partners = state.partners._replace(
        invited=action.seat, invitations=state.invitations | (1 << action.seat)
    )
    state = evolve(state, partners=partners, to_move=state.dealer)
    return state, (Event("misere_invited", {"seat": action.seat, "dealer": state.dealer}),)


def apply_answer(state: DealState, action: AnswerInvitation) -> Transition:
    """Accept (the partners bid misère: the inviter's call) or decline (he calls) (R-B9)."""
    require_turn(state, action.seat, "auction")
    inviter = state.invited
    if inviter is None:
        raise IllegalActionError("nobody has invited you to a misère (R-B9)")
    if not isinstance(action.accept, bool):
        raise IllegalActionError("answer the invitation with yes or no")
    event = Event("invitation_answered", {"seat": action.seat, "accept": action.accept})
    partner = action.seat if action.accept else None
    partners = state.partners._replace(invited=None, partner=partner)
    if action.accept and state.config.conventions.halves_any_game:
        # halves on whatever game the inviter now bids and plays; he calls as usual.
        partners = partners._replace(partner_of=inviter)
        return evolve(state, partners=partners, to_move=inviter), (event,)
    state = evolve(state, partners=partners, to_move=inviter)
    if not action.accept:
        return state, (event,)
    state, events = apply_bid(state, Bid(inviter, "misere"))
    return state, (event, *events)


def look_options(state: DealState, seat: int) -> list[Action]:
    """The dealer's look at one opponent's cards before returning a whist, if he may (R-W4)."""
    if state.stage != "return_dealer" or look_refusal(state, seat) is not None:
        return []
    return [LookAtHand(seat, target) for target in defenders_of(state)]


def look_refusal(state: DealState, seat: int) -> IllegalActionError | None:
    """Why ``seat`` may not look at a hand now, or ``None`` (R-W4)."""
    if (
        state.phase != "defence"
        or state.stage != "return_dealer"
        or seat != state.dealer
        or state.to_move != seat
    ):
        return IllegalActionError(
            "only the dealer sitting on the talon, deciding whether to return a whist, may look "
            "(R-W4)"
        )
    if state.looked_at is not None:
        return IllegalActionError("you have already looked at one hand (R-W4)")
    return None


def apply_look(state: DealState, action: LookAtHand) -> Transition:
    """Look at one of the declarer's opponents' cards; the dealer still decides after (R-W4)."""
    refusal = look_refusal(state, action.seat)
    if refusal is not None:
        raise refusal
    if action.target not in defenders_of(state):
        raise IllegalActionError("look at the cards of one of the declarer's opponents (R-W4)")
    state = evolve(state, partners=state.partners._replace(looked_at=action.target))
    return state, (Event("hand_looked_at", {"seat": action.seat, "target": action.target}),)
