"""Deal setup and the cut (R-D2..R-D4, R-T6): a new deal, its commitment, the cut and the deal.

:func:`new_deal` fixes the shuffled deck and publishes its commitment; the dealer's right
neighbour cuts (at four players his right neighbour may cut for him, R-D2), and the cut deck is
dealt in pairs with the talon as the fourth pair (R-D3). The auction starts with forehand.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.core.actions import Action, Cut, Event
from app.rules.core.deck import check_deck, commitment, cut_deck, deal_cards
from app.rules.core.rule_errors import RulesError
from app.rules.deal.deal_rules import deal_rules_of
from app.rules.deal.state import (
    DealConfig,
    DealState,
    Transition,
    blank_state,
    evolve,
    require_turn,
)


def new_deal(config: DealConfig, deck: Sequence[int], salt: bytes) -> DealState:
    """Start a deal from a shuffled ``deck`` and a secret ``salt`` (R-D4).

    The deal waits for the cut by the dealer's right neighbour (R-D2); the commitment is public
    from now on.
    """
    order = check_deck(deck)
    if not isinstance(salt, bytes) or len(salt) < 1:
        raise RulesError("the salt must be non-empty bytes")
    return blank_state(
        config,
        order,
        bytes(salt),
        commitment(order, salt),
        to_move=(config.dealer - 1) % config.players,
    )


def start_events(state: DealState) -> tuple[Event, ...]:
    """The public event announcing a new deal (players, dealer, cutter, commitment)."""
    return (
        Event(
            "deal_started",
            {
                "players": state.players,
                "dealer": state.dealer,
                "forehand": state.forehand,
                "cutter": state.cutter,
                "min_level": state.config.min_level,
                "commitment": state.commitment,
            },
        ),
    )


def cut_options(state: DealState, seat: int) -> list[Action]:
    """Every cut position: each part keeps at least ``cut_min`` cards (R-D2)."""
    cut_min = state.config.conventions.cut_min
    return [Cut(seat, p) for p in range(cut_min, 32 - cut_min + 1)]


def apply_cut(state: DealState, action: Cut) -> Transition:
    """Cut the deck and deal it (R-D2, R-D3); the auction starts with forehand (R-B1)."""
    substitute = state.players >= 4 and action.seat == (state.cutter - 1) % state.players
    if not (state.phase == "cut" and substitute):
        # R-D2: at four (and five) players the cutter's right neighbour may cut for him when he
        # is away
        # (the service decides that he is); otherwise only the cutter cuts.
        require_turn(state, action.seat, "cut")
    order = cut_deck(state.deck, action.position, state.config.conventions.cut_min)
    hands, talon = deal_cards(order, state.players, state.dealer)
    active = state.active
    state = evolve(
        state,
        phase="auction",
        cut=action.position,
        dealt=hands,
        hands=hands,
        talon=talon,
        auction=deal_rules_of(state.config).opening_auction(state.config, active),
        to_move=active[0],
        turn=None,
        tricks=(0,) * state.players,
        controllers=tuple(range(state.players)),
    )
    events = (
        Event("deck_cut", {"seat": action.seat, "position": action.position}),
        Event("cards_dealt", {"hands": {str(s): 10 for s in active}, "talon": 2}),
    )
    return state, events
