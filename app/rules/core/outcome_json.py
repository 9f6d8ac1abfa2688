"""A :class:`~app.rules.core.outcome.DealOutcome` as a JSON object and back (the ``pulka/1`` deal).

Engine-side on purpose: the deal engine (the outcome in :func:`app.rules.deal.dispatch.view` and the
``deal_ended`` event) and :class:`~app.rules.scoring.pulka.Pulka` persistence both write outcomes,
and
Pulka replays them, so the dict building and its strict reader live here, below both. The
``pulka/1`` document codec (:mod:`app.rules.scoring.record`) builds on this module, never the
reverse.

The shape is specified in ``PULKA_FORMAT.md``; :func:`deal_from_json` checks only the shape
(unknown keys, wrong types, contracts outside 6-10). Whether a deal could have happened is
:meth:`app.rules.scoring.pulka.Pulka.record`'s job.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast, get_args

from app.rules.core.outcome import (
    Contract,
    DealKind,
    DealOutcome,
    DefenceCall,
    Penalty,
    Strain,
    declared_marks,
    mark_seats,
    seat_marks,
)
from app.rules.core.rule_errors import InvalidRecordError

CARD_RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
CARD_SUITS = {"S": "S", "C": "C", "D": "D", "H": "H", "♠": "S", "♣": "C", "♦": "D", "♥": "H"}
_DEAL_KEYS = (  # and every declared mark (:func:`app.rules.core.outcome.declared_marks`)
    "dealer",
    "type",
    "declarer",
    "contract",
    "defence",
    "returned_from",
    "play",
    "tricks",
    "talon",
    "penalties",
    "talon_returned",
    "misere_partner",
    "halves_with",
    "out_of_turn",
)
_CONTRACT = re.compile(r"^(\d{1,2})(NT|БК|S|C|D|H|♠|♣|♦|♥)(BP)?$", re.IGNORECASE)
_STRAIN_NAMES: dict[str, Strain] = {
    "S": "S", "C": "C", "D": "D", "H": "H", "NT": "NT", "БК": "NT",
    "♠": "S", "♣": "C", "♦": "D", "♥": "H",
}  # fmt: skip


def deal_to_json(o: DealOutcome) -> dict[str, Any]:
    """One :class:`DealOutcome` as a ``pulka/1`` deal object (optional fields only when set)."""
    out: dict[str, Any] = {"dealer": o.dealer, "type": o.kind}
    if o.declarer is not None:
        out["declarer"] = o.declarer
    if o.contract is not None:
        out["contract"] = str(o.contract)
    if o.defence:
        out["defence"] = {str(s): call for s, call in o.defence.items()}
    for mark in declared_marks():
        if mark.seats and mark.on(o.marks):
            out[mark.key] = list(mark_seats(o.marks, mark.key))
        elif mark.key in o.marks:
            out[mark.key] = True
    if o.returned_from is not None:
        out["returned_from"] = o.returned_from
    if o.play is not None:
        out["play"] = o.play
    if o.tricks is not None:
        out["tricks"] = {str(s): t for s, t in o.tricks.items()}
    if o.talon is not None:
        out["talon"] = list(o.talon)
    if o.penalties:
        out["penalties"] = [_penalty_to_json(p) for p in o.penalties]
    if o.talon_returned:
        out["talon_returned"] = True
    if o.misere_partner is not None:
        out["misere_partner" if o.kind == "misere" else "halves_with"] = o.misere_partner
    if o.out_of_turn:
        out["out_of_turn"] = True
    return out


def deal_from_json(data: object, index: int) -> DealOutcome:
    """Parse one ``pulka/1`` deal object (deal number ``index``) into a :class:`DealOutcome`."""

    def fail(field: str | None, message: str) -> InvalidRecordError:
        return InvalidRecordError(message, deal=index, field=field)

    if not isinstance(data, Mapping):
        raise fail(None, "a deal is a JSON object")
    mark_keys = {mark.key for mark in declared_marks()}
    for key in data:
        if key not in _DEAL_KEYS and key not in mark_keys:
            raise fail(str(key), f"unknown key {key!r}")
    if "dealer" not in data:
        raise fail("dealer", "dealer is required")
    dealer = _int(data["dealer"], fail, "dealer")
    kind = data.get("type")
    if kind not in get_args(DealKind):
        raise fail("type", "type must be game, misere, pass_out, conceded or redeal")
    declarer = None
    if data.get("declarer") is not None:
        declarer = _int(data["declarer"], fail, "declarer")
    elif kind not in ("pass_out", "redeal"):
        raise fail("declarer", "declarer is required")
    contract = None
    if data.get("contract") is not None:
        contract = _contract(data["contract"], fail)
    defence: dict[int, DefenceCall] = {}
    if data.get("defence") is not None:
        raw = data["defence"]
        if not isinstance(raw, Mapping):
            raise fail("defence", "defence must be an object of seat: call")
        for seat, call in raw.items():
            if call not in ("whist", "pass", "half"):
                raise fail("defence", f"call {call!r} is not whist, pass or half")
            defence[_seat_key(seat, fail, "defence")] = cast(DefenceCall, call)
    returned_from = None
    if data.get("returned_from") is not None:
        returned_from = _int(data["returned_from"], fail, "returned_from")
    play = data.get("play")
    if play is not None and play not in ("open", "closed"):
        raise fail("play", "play must be open or closed")
    tricks: dict[int, int] | None = None
    if data.get("tricks") is not None:
        raw = data["tricks"]
        if not isinstance(raw, Mapping):
            raise fail("tricks", "tricks must be an object of seat: count")
        tricks = {_seat_key(s, fail, "tricks"): _int(t, fail, "tricks") for s, t in raw.items()}
    talon: tuple[str, str] | None = None
    if data.get("talon") is not None:
        raw = data["talon"]
        if not isinstance(raw, list) or len(raw) != 2 or not all(is_card_text(c) for c in raw):
            raise fail("talon", 'talon must be two cards such as ["AS", "10H"]')
        talon = (raw[0], raw[1])
    penalties = tuple(_penalty(p, fail) for p in _list(data.get("penalties", []), fail))
    talon_returned = data.get("talon_returned", False)
    if not isinstance(talon_returned, bool):
        raise fail("talon_returned", "talon_returned must be true or false")
    misere_partner = None
    if data.get("misere_partner") is not None:
        misere_partner = _int(data["misere_partner"], fail, "misere_partner")
        if kind != "misere" or misere_partner != dealer or misere_partner == declarer:
            raise fail(
                "misere_partner", "only the dealer can be a misère partner, on a misère (R-B9)"
            )
    if data.get("halves_with") is not None:
        misere_partner = _int(data["halves_with"], fail, "halves_with")
        on_game = kind in ("game", "conceded")
        if not on_game or misere_partner != dealer or misere_partner == declarer:
            raise fail("halves_with", "only the dealer goes halves, on a game (A-19)")
    marks: set[str] = set()
    for mark in declared_marks():
        value = data.get(mark.key, [] if mark.seats else False)
        misplaced = kind not in mark.kinds or (mark.needs is not None and mark.needs not in marks)
        if mark.seats:
            if not _seat_list(value) or (value and misplaced):
                raise fail(mark.key, mark.shape)
            marks |= seat_marks(mark.key, value)
            continue
        if not isinstance(value, bool) or (value and misplaced):
            raise fail(mark.key, mark.shape)
        if value:
            marks.add(mark.key)
    out_of_turn = data.get("out_of_turn", False)
    if not isinstance(out_of_turn, bool):
        raise fail("out_of_turn", "out_of_turn must be true or false")
    return DealOutcome(
        dealer=dealer,
        kind=cast(DealKind, kind),
        declarer=declarer,
        contract=contract,
        defence=defence,
        returned_from=returned_from,
        play=play,
        tricks=tricks,
        talon=talon,
        penalties=penalties,
        talon_returned=talon_returned,
        misere_partner=misere_partner,
        out_of_turn=out_of_turn,
        marks=frozenset(marks),
    )


def _seat_list(value: object) -> bool:
    """Is ``value`` a list of distinct seat numbers (a seats mark, :class:`Mark`)?"""
    return (
        isinstance(value, list)
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
        and len(set(value)) == len(value)
    )


def _penalty_to_json(p: Penalty) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": p.seat, "rule": p.rule}
    if p.whists_on is not None:
        out["whists_on"] = p.whists_on
        out["amount"] = p.amount
    if p.hill is not None:
        out["hill"] = p.hill
    if p.size is not None:
        out["size"] = p.size
    return out


def _int(value: object, fail: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(field, f"{field} must be an integer, got {value!r}")
    return value


def _seat_key(key: object, fail: Any, field: str) -> int:
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and key.isdigit():
        return int(key)
    raise fail(field, f"{key!r} is not a seat number")


def _list(value: object, fail: Any) -> list[Any]:
    if not isinstance(value, list):
        raise fail("penalties", "penalties must be a list")
    return value


def _contract(raw: object, fail: Any) -> Contract:
    if not isinstance(raw, str):
        raise fail("contract", 'contract must be a string such as "7H"')
    match = _CONTRACT.match(raw.strip())
    if match is None:
        raise fail("contract", f"{raw!r} is not a contract such as 7H or 10NT")
    level = int(match.group(1))
    if not 6 <= level <= 10:
        raise fail("contract", f"contract level {level} is not 6-10")
    return Contract(level, _STRAIN_NAMES[match.group(2).upper()], match.group(3) is not None)


def _penalty(raw: object, fail: Any) -> Penalty:
    if not isinstance(raw, Mapping):
        raise fail("penalties", "a penalty is an object")
    for key in raw:
        if key not in ("seat", "rule", "hill", "whists_on", "amount", "size"):
            raise fail("penalties", f"unknown penalty key {key!r}")
    rule = raw.get("rule")
    if not isinstance(rule, str) or not rule:
        raise fail("penalties", "a penalty names its rule")
    seat = _int(raw.get("seat"), fail, "penalties")
    hill = None if raw.get("hill") is None else _int(raw["hill"], fail, "penalties")
    size = None if raw.get("size") is None else _int(raw["size"], fail, "penalties")
    whists_on = None
    amount = 0
    if "whists_on" in raw:
        whists_on = _int(raw["whists_on"], fail, "penalties")
        amount = _int(raw.get("amount"), fail, "penalties")
    elif "amount" in raw:
        raise fail("penalties", "a whists penalty needs whists_on")
    return Penalty(seat=seat, rule=rule, hill=hill, whists_on=whists_on, amount=amount, size=size)


def is_card_text(card: object) -> bool:
    """True if ``card`` is a card written as ``pulka/1`` writes it (``"AS"``, ``"10♥"``)."""
    return (
        isinstance(card, str)
        and len(card) >= 2
        and card[-1].upper() in CARD_SUITS
        and card[:-1].upper() in CARD_RANKS
    )
