"""The socket layer's only door into the rules engine (``app.rules``).

Everything the live tables need from the engine goes through these few functions, so the rest of
``app.realtime`` knows nothing of the engine's internals.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.codec import MalformedActionError
from app.rules.codec import action_from_json as _action_from_json
from app.rules.codec import action_to_json as _action_to_json
from app.rules.codec import event_to_json as _event_to_json
from app.rules.deal import DealConfig, DealState, OutOfTurnError, new_deal, start_events
from app.rules.deal import apply as _apply
from app.rules.deal import legal_actions as _legal_actions
from app.rules.deal import outcome as _outcome
from app.rules.deal import view as _view
from app.rules.deal import visible_cards as _visible_cards
from app.rules.deck import shuffled_deck
from app.rules.errors import IllegalActionError, RulesError
from app.rules.outcome import DealOutcome
from app.rules.pulka import Pulka

__all__ = [
    "IllegalActionError",
    "MalformedActionError",
    "OutOfTurnError",
    "RulesError",
]

Action = Any


def shuffle(rng: random.Random) -> list[int]:
    """A shuffled deck order (ints) from ``rng`` (R-D4: the service passes SystemRandom)."""
    return list(shuffled_deck(rng))


def start_deal(pulka: Pulka, dealer: int, min_level: int, deck: Sequence[int],
               salt: bytes) -> DealState:
    """The deal state right after the shuffle, waiting for the cut."""
    config = DealConfig(players=pulka.players, dealer=dealer, conventions=pulka.conventions,
                        min_level=min_level)
    return new_deal(config, deck, salt)


def deal_start_events(deal: DealState) -> list[dict[str, Any]]:
    return [_event_to_json(e) for e in start_events(deal)]


def action_from_json(data: Mapping[str, Any], seat: int) -> Action:
    """Parse an action sent by ``seat`` (the seat is the server's, never the client's)."""
    body = {k: v for k, v in data.items() if k not in ("id", "seq", "seat")}
    body["seat"] = seat
    return _action_from_json(body)


def action_to_json(action: Action) -> dict[str, Any]:
    return _action_to_json(action)


def event_to_json(event: Any) -> dict[str, Any]:
    return _event_to_json(event)


def apply(deal: DealState, action: Action) -> tuple[DealState, tuple[Any, ...]]:
    return _apply(deal, action)


def outcome(deal: DealState) -> DealOutcome | None:
    return _outcome(deal)


def view(deal: DealState, seat: int | None) -> dict[str, Any]:
    return _view(deal, seat)


def visible_cards(deal: DealState, seat: int | None) -> int:
    return _visible_cards(deal, seat)


def in_progress(deal: DealState) -> bool:
    """Cards are out and the deal is not over (bidding or play: table talk is closed)."""
    return deal.phase not in ("cut", "done")


def legal_json(deal: DealState, seat: int) -> list[dict[str, Any]]:
    """The actions ``seat`` may send now, as protocol objects (without ``seat``)."""
    out = []
    for action in _legal_actions(deal, seat):
        data = _action_to_json(action)
        data.pop("seat", None)
        out.append(data)
    return out


def to_move(deal: DealState) -> int | None:
    return deal.to_move


def phase(deal: DealState) -> str:
    return deal.phase
