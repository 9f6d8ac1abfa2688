"""One deal as an immutable value: the entry points, and the dispatch to its phases.

The only ways to use it (DESIGN.md)::

    state = new_deal(config, deck, salt)           # phase "cut", commitment public
    state, events = apply(state, action)           # raises IllegalActionError subclasses
    legal_actions(state, seat)                     # what ``seat`` may do now
    view(state, seat)                              # what ``seat`` may see now (None: spectator)
    outcome(state)                                 # DealOutcome once ``state.finished``

The state type is :mod:`app.rules.deal.state`; each phase of a deal (setup and cut, auction, talon
and contract, defence, play, claims, outcome) is a module of :mod:`app.rules.deal.phases`, which
offers the ``apply_*`` handler and the ``*_options`` list of that phase. This module routes an
action to its handler and a ``legal_actions`` question to the options of the current phase, and
builds the per-seat :func:`view`. The names other layers import from here stay here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

from app.rules.core.actions import (
    AcceptResult,
    Action,
    AnswerInvitation,
    Bid,
    ChoosePlay,
    Claim,
    Concede,
    Cut,
    DeclineResult,
    Defend,
    Discard,
    Event,
    InviteMisere,
    LookAtHand,
    NameContract,
    PickUp,
    PlayCard,
    ProposeResult,
    ReturnTalon,
    ReturnWhist,
    TakeTalon,
)
from app.rules.core.auction import call_text
from app.rules.core.cards import ALL_CARDS, Card, CardMask, card_text, mask_text
from app.rules.core.outcome_json import deal_to_json
from app.rules.core.rule_errors import IllegalActionError, RulesError
from app.rules.deal.deal_rules import deal_rules_of
from app.rules.deal.phases.bidding import (
    apply_bid,
    apply_pick_up,
    bid_options,
    blind,
    pick_up_options,
)
from app.rules.deal.phases.claiming import (
    answer_options,
    apply_accept,
    apply_claim,
    apply_decline,
    apply_propose,
    claim_options,
)
from app.rules.deal.phases.contract import (
    apply_concede,
    apply_discard,
    apply_name,
    apply_return_talon,
    apply_take_talon,
    concede_refusal,
    contract_options,
    discard_options,
    talon_options,
)
from app.rules.deal.phases.defence import (
    apply_choose,
    apply_defend,
    apply_return_whist,
    defence_options,
    play_mode_options,
)
from app.rules.deal.phases.ending import deal_reveal, outcome
from app.rules.deal.phases.partners import (
    apply_answer,
    apply_invite,
    apply_look,
    invitation_options,
    look_options,
)
from app.rules.deal.phases.setup import apply_cut, cut_options, new_deal, start_events
from app.rules.deal.phases.tricks import apply_play, legal_cards_now, play_options
from app.rules.deal.state import (
    DealConfig,
    DealState,
    IllegalClaimError,
    IllegalContractError,
    OutOfTurnError,
    Phase,
    Transition,
)

__all__ = [
    "DealConfig",
    "DealState",
    "IllegalClaimError",
    "IllegalContractError",
    "OutOfTurnError",
    "Phase",
    "apply",
    "deal_reveal",
    "legal_actions",
    "legal_cards_now",
    "new_deal",
    "outcome",
    "replay",
    "start_events",
    "view",
    "visible_cards",
]


# --------------------------------------------------------------------------------------------
# apply

_Handler: TypeAlias = Callable[[DealState, Any], Transition]
_HANDLERS: dict[type[Any], _Handler] = {
    Cut: apply_cut,
    Bid: apply_bid,
    TakeTalon: apply_take_talon,
    ReturnTalon: apply_return_talon,
    Discard: apply_discard,
    NameContract: apply_name,
    Concede: apply_concede,
    Defend: apply_defend,
    ReturnWhist: apply_return_whist,
    ChoosePlay: apply_choose,
    PlayCard: apply_play,
    Claim: apply_claim,
    ProposeResult: apply_propose,
    AcceptResult: apply_accept,
    DeclineResult: apply_decline,
    InviteMisere: apply_invite,
    AnswerInvitation: apply_answer,
    LookAtHand: apply_look,
    PickUp: apply_pick_up,
}
"""The handler of each action type, in its phase module."""


def apply(state: DealState, action: Action) -> tuple[DealState, tuple[Event, ...]]:
    """Apply ``action``; return the new state and the public events it caused.

    Raises an :class:`IllegalActionError` subclass (message readable by the player) if the
    action is not allowed now; ``state`` itself never changes.
    """
    if (
        type(action) is PlayCard
        and state.phase == "play"
        and type(action.seat) is int
        and state.to_move == action.seat
    ):
        return apply_play(state, action)  # the hot path: every card of every deal
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise IllegalActionError(f"{action!r} is not an action")
    seat = action.seat
    if type(seat) is not int or not 0 <= seat < state.config.players:
        raise IllegalActionError(f"there is no seat {seat!r} at this table")
    if state.phase == "done":
        raise OutOfTurnError("the deal is over")
    return handler(state, action)


# --------------------------------------------------------------------------------------------
# legal actions


def legal_actions(state: DealState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, from the options of the current phase.

    Parametric actions are listed in their usual form only: a claim of all the remaining
    tricks (on misère: of none), no :class:`ProposeResult` (any legal proposal may be sent).
    """
    phase = state.phase
    if phase == "done":
        return []
    out = answer_options(state, seat)
    if phase == "play":
        out.extend(play_options(state, seat))
        out.extend(claim_options(state, seat))
        return out
    if concede_refusal(state, seat) is None:
        out.append(Concede(seat))
    if phase == "auction":
        out.extend(pick_up_options(state, seat))  # at any time, out of turn too
    if state.to_move != seat:
        return out
    if phase == "cut":
        out.extend(cut_options(state, seat))
    elif phase == "auction":
        if state.invited is None:
            out.extend(bid_options(state, seat))
        out.extend(invitation_options(state, seat))
    elif phase == "talon":
        out.extend(talon_options(state, seat))
    elif phase == "discard":
        out.extend(discard_options(state, seat))
    elif phase == "contract":
        out.extend(contract_options(state, seat))
    elif phase == "defence":
        out.extend(defence_options(state))
        out.extend(look_options(state, seat))
    elif phase == "play_mode":
        out.extend(play_mode_options(state, seat))
    return out


# --------------------------------------------------------------------------------------------
# view


def _trick_json(trick: Iterable[tuple[int, Card]]) -> list[dict[str, Any]]:
    return [{"seat": s, "card": card_text(c)} for s, c in trick]


def visible_cards(state: DealState, seat: int | None) -> CardMask:
    """Every card ``seat`` may see now (``None``: a spectator); used by :func:`view` and tests."""
    if state.finished:
        return ALL_CARDS
    mask = 0
    for s in range(state.players):
        if state.open_seats >> s & 1 or (s == seat and not blind(state, seat)):
            mask |= state.hands[s]
    if state.kind != "pass_out" and state.talon_shown == 2:
        mask |= (1 << state.talon[0]) | (1 << state.talon[1])
    if seat is not None and seat == state.declarer and not state.history and not state.trick:
        mask |= state.discard  # R-C3: the declarer sees his discard until the first lead
    if seat is not None and seat == state.config.dealer and state.players >= 4:
        mask |= _dealer_sight(state)
    for _, card in state.trick:
        mask |= 1 << card
    for _, card in state.last_trick:
        mask |= 1 << card
    return mask


def _dealer_sight(state: DealState) -> CardMask:
    """The hand the four-player dealer is shown: the inviter's while he answers a misère
    invitation (R-B9), the hand he looked at while the defence is decided (R-W4)."""
    if state.invited is not None:
        return state.hands[state.invited]
    if state.looked_at is not None and state.phase == "defence":
        return state.hands[state.looked_at]
    return 0


def view(state: DealState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see now, JSON-ready (``None``: a spectator sees what all players see).

    Hidden: other players' hands (unless laid open), the talon before it is shown, the discard
    (except to the declarer before the first lead, R-C3) and every closed trick but the last
    (R-W8). Once the deal is over everything is shown, with the deck and salt (R-D4).
    """
    return views(state, (seat,))[seat]


def views(state: DealState, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """:func:`view` for each of ``seats``: what every seat sees alike is built once (an
    event's fan-out asks for every seat of the table at once)."""
    wanted = list(dict.fromkeys(seats))
    for seat in wanted:
        if seat is not None and not (
            isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state.players
        ):
            raise RulesError(f"there is no seat {seat!r} at this table")
    shared = _shared_view(state)
    return {seat: _seat_view(state, seat, shared) for seat in wanted}


def _seat_view(state: DealState, seat: int | None, shared: dict[str, Any]) -> dict[str, Any]:
    """``shared`` with what only ``seat`` sees: his hand, the discard (R-C3), the four-player
    dealer's sight, the pass-out talon card he may see."""
    out = dict(shared)
    out["seat"] = seat
    blind_seat = blind(state, seat)
    if seat is not None and state.hands and not blind_seat:
        out["hand"] = mask_text(state.hands[seat])
    out["blind"] = blind_seat
    if seat is not None and seat == state.dealer and state.players >= 4 and not state.finished:
        sight = _dealer_sight(state)
        if sight:
            shown = state.invited if state.invited is not None else state.looked_at
            out["seen_hand"] = {"seat": shown, "cards": mask_text(sight)}
    if state.talon and state.kind == "pass_out":
        # R-R2/R-R3: only the talon card leading the current trick is public (it is in it).
        out["talon"] = mask_text(
            sum(1 << c for c in state.talon[: state.talon_shown]) & visible_cards(state, seat)
        )
    before_lead = not state.history and not state.trick
    if state.discard and (state.finished or (seat == state.declarer and before_lead)):
        out["discard"] = mask_text(state.discard)
    return out


def _shared_view(state: DealState) -> dict[str, Any]:
    """The view every seat gets alike; the seat's own keys hold a spectator's values."""
    done = state.finished
    auction = state.auction
    out: dict[str, Any] = {
        "players": state.players,
        "dealer": state.dealer,
        "forehand": state.forehand,
        "cutter": state.cutter,
        "seat": None,
        "phase": state.phase,
        "to_move": state.to_move,
        "turn": state.turn,
        "commitment": state.commitment,
        "cut": state.cut,
        "min_level": state.config.min_level,
        "conventions": state.config.conventions.preset,
        "auction": [
            {"seat": s, "call": call_text(c)} for s, c in (auction.calls if auction else ())
        ],
        "declarer": state.declarer,
        "bid": call_text(state.bid) if state.bid is not None else None,
        "talon_returned": state.talon_returned,
        "talon_return_penalty": state.config.conventions.talon_return_penalty,
        "contract": call_text(state.contract) if state.contract is not None else None,
        "defence": [{"seat": s, "call": c} for s, c in state.defence],
        "whisters": list(state.whisters),
        "play_mode": state.play_mode,
        "kind": state.kind,
        "hand_sizes": {str(s): state.hands[s].bit_count() for s in state.active}
        if state.hands
        else {},
        "hand": [],
        "blind": False,
        "dark": False,
        "dark_game": False,
        "open_hands": {
            str(s): mask_text(state.hands[s])
            for s in range(state.players)
            if state.hands and (done or state.open_seats >> s & 1)
        },
        "talon": None,
        "discard": None,
        "trick": _trick_json(state.trick),
        "trick_leader": state.leader if state.phase == "play" else None,
        "last_trick": _trick_json(state.last_trick) if state.last_trick else None,
        "last_trick_winner": state.last_winner,
        "tricks": {str(s): state.tricks[s] for s in range(state.players)} if state.tricks else {},
        "tricks_played": state.tricks_done,
        "proposal": None,
        "finished": done,
        "invitation": state.invited,
        "misere_partner": state.partner,
        "looked_at": state.looked_at,
        "seen_hand": None,
    }
    out.update(deal_rules_of(state.config).view_flags(state))  # dark, dark_game
    if state.talon and state.kind != "pass_out" and (state.talon_shown == 2 or done):
        out["talon"] = [card_text(c) for c in state.talon]
    if state.proposal is not None:
        proposer, tricks = state.proposal
        out["proposal"] = {
            "seat": proposer,
            "tricks": {str(s): n for s, n in tricks},
            "accepted": [s for s in range(state.players) if state.accepted >> s & 1],
        }
    if done:
        result = outcome(state)
        assert result is not None
        out["end"] = state.end
        out["outcome"] = deal_to_json(result)
        out["dealt"] = {str(s): mask_text(state.dealt[s]) for s in state.active}
        out["history"] = [_trick_json(t) for t in state.history]
        if state.cut is not None:
            out["reveal"] = deal_reveal(state)
    return out


# --------------------------------------------------------------------------------------------
# replay


def replay(
    config: DealConfig, deck: Sequence[int], salt: bytes, actions: Iterable[Action]
) -> tuple[DealState, tuple[Event, ...]]:
    """Rebuild a deal from its inputs and the applied actions; equal to the live state."""
    state = new_deal(config, deck, salt)
    events: list[Event] = list(start_events(state))
    for action in actions:
        state, new = apply(state, action)
        events.extend(new)
    return state, tuple(events)
