"""JSON codec for actions and events (the shapes the socket layer and the event store use).

Actions::

    {"type": "bid", "seat": 0, "call": "6S"}          # or "misere", "pass", "here"
    {"type": "play_card", "seat": 1, "card": "10H"}
    {"type": "discard", "seat": 2, "cards": ["7S", "8D"]}
    {"type": "propose_result", "seat": 0, "tricks": {"0": 6, "1": 2, "2": 2}}

Cards are canonical text (``"AS"``, ``"10H"``; ``"A♠"`` is accepted on input). A client message
id under ``"id"`` is ignored; any other unknown key, missing field or wrong type raises
:class:`MalformedActionError` (a :class:`~app.rules.core.rule_errors.RulesError`). Events are
``{"type": ..., **data}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.core.actions import (
    ACTION_NAMES,
    ACTION_TYPES,
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
    EventType,
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
from app.rules.core.auction import call_text, parse_call, parse_contract
from app.rules.core.cards import card_text, parse_card
from app.rules.core.rule_errors import RulesError


class MalformedActionError(RulesError):
    """Input that is not a well-formed action."""


_FIELDS: dict[str, tuple[str, ...]] = {
    "cut": ("position",),
    "bid": ("call",),
    "take_talon": (),
    "return_talon": (),
    "discard": ("cards",),
    "name_contract": ("contract",),
    "concede": (),
    "defend": ("call",),
    "return_whist": (),
    "choose_play": ("mode",),
    "play_card": ("card",),
    "claim": ("tricks",),
    "propose_result": ("tricks",),
    "accept_result": (),
    "decline_result": (),
    "invite_misere": (),
    "answer_invitation": ("accept",),
    "look_at_hand": ("target",),
    "pick_up": (),
}


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedActionError(f"{key} must be a whole number")
    return value


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise MalformedActionError(f"{key} must be text")
    return value


def action_from_json(data: Any) -> Action:
    """Parse a JSON object into an action; raise :class:`MalformedActionError` if malformed."""
    if not isinstance(data, Mapping):
        raise MalformedActionError("an action must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise MalformedActionError(f"unknown action type {kind!r}")
    fields = _FIELDS[kind]
    allowed = {"type", "seat", "id", *fields}
    extra = sorted(set(data) - allowed)
    if extra:
        raise MalformedActionError(f"unexpected field {extra[0]!r} in {kind}")
    for key in ("seat", *fields):
        if key not in data:
            raise MalformedActionError(f"{kind} needs the field {key!r}")
    seat = _int(data, "seat")
    try:
        if kind == "cut":
            return Cut(seat, _int(data, "position"))
        if kind == "bid":
            return Bid(seat, parse_call(_str(data, "call")))
        if kind == "take_talon":
            return TakeTalon(seat)
        if kind == "return_talon":
            return ReturnTalon(seat)
        if kind == "discard":
            cards = data["cards"]
            if not isinstance(cards, list) or len(cards) != 2:
                raise MalformedActionError("cards must be a list of two cards")
            return Discard(seat, (parse_card(cards[0]), parse_card(cards[1])))
        if kind == "name_contract":
            text = _str(data, "contract")
            return NameContract(seat, "misere" if text == "misere" else parse_contract(text))
        if kind == "concede":
            return Concede(seat)
        if kind == "defend":
            call = _str(data, "call")
            if call not in ("whist", "pass", "half"):
                raise MalformedActionError("call must be whist, pass or half")
            return Defend(seat, call)  # type: ignore[arg-type]
        if kind == "return_whist":
            return ReturnWhist(seat)
        if kind == "choose_play":
            mode = _str(data, "mode")
            if mode not in ("open", "closed"):
                raise MalformedActionError("mode must be open or closed")
            return ChoosePlay(seat, mode)  # type: ignore[arg-type]
        if kind == "play_card":
            return PlayCard(seat, parse_card(_str(data, "card")))
        if kind == "claim":
            return Claim(seat, _int(data, "tricks"))
        if kind == "propose_result":
            tricks = data["tricks"]
            if not isinstance(tricks, Mapping):
                raise MalformedActionError("tricks must map seats to trick counts")
            pairs: list[tuple[int, int]] = []
            for key, value in tricks.items():
                if not isinstance(key, str) or not key.isdigit():
                    raise MalformedActionError("tricks must be keyed by seat numbers")
                if isinstance(value, bool) or not isinstance(value, int):
                    raise MalformedActionError("trick counts must be whole numbers")
                pairs.append((int(key), value))
            return ProposeResult(seat, tuple(sorted(pairs)))
        if kind == "accept_result":
            return AcceptResult(seat)
        if kind == "invite_misere":
            return InviteMisere(seat)
        if kind == "answer_invitation":
            accept = data["accept"]
            if not isinstance(accept, bool):
                raise MalformedActionError("accept must be true or false")
            return AnswerInvitation(seat, accept)
        if kind == "look_at_hand":
            return LookAtHand(seat, _int(data, "target"))
        if kind == "pick_up":
            return PickUp(seat)
        return DeclineResult(seat)
    except MalformedActionError:
        raise
    except RulesError as error:
        raise MalformedActionError(str(error)) from None


def action_to_json(action: Action) -> dict[str, Any]:
    """The JSON object of an action (inverse of :func:`action_from_json`)."""
    kind = ACTION_NAMES[type(action)]
    out: dict[str, Any] = {"type": kind, "seat": action.seat}
    if isinstance(action, Cut):
        out["position"] = action.position
    elif isinstance(action, Bid):
        out["call"] = call_text(action.call)
    elif isinstance(action, Discard):
        out["cards"] = [card_text(c) for c in action.cards]
    elif isinstance(action, NameContract):
        out["contract"] = call_text(action.contract)
    elif isinstance(action, Defend):
        out["call"] = action.call
    elif isinstance(action, ChoosePlay):
        out["mode"] = action.mode
    elif isinstance(action, PlayCard):
        out["card"] = card_text(action.card)
    elif isinstance(action, Claim):
        out["tricks"] = action.tricks
    elif isinstance(action, ProposeResult):
        out["tricks"] = {str(s): n for s, n in action.tricks}
    elif isinstance(action, AnswerInvitation):
        out["accept"] = action.accept
    elif isinstance(action, LookAtHand):
        out["target"] = action.target
    return out


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object of an event: ``{"type": ..., **data}``."""
    return {"type": event.type, **event.data}


def event_from_json(data: Mapping[str, Any]) -> Event:
    """Rebuild an event from its JSON object."""
    if not isinstance(data, Mapping) or not isinstance(data.get("type"), str):
        raise MalformedActionError("an event is an object with a type")
    kind: EventType = data["type"]
    return Event(kind, {k: v for k, v in data.items() if k != "type"})
