"""``pulka/1`` records: parsing, scoring into ``pulka-score/1``, and exporting a live pulka.

The format is specified in ``PULKA_FORMAT.md``. A record is checked as a whole before anything is
scored: its shape here (unknown keys, wrong types, contracts outside 6-10, unknown conventions),
and its sense by replaying every deal through :meth:`app.rules.pulka.Pulka.record` — the same
method a live table uses — so an imported record and a live pulka are scored by one code path.
Every problem raises :class:`InvalidRecordError` carrying the deal index (``None`` outside the
deals) and the field at fault::

    >>> doc = {"format": "pulka/1", "players": ["A", "B", "C"], "target": 10,
    ...        "deals": [{"dealer": 0, "type": "pass_out", "tricks": {"0": 5, "1": 3, "2": 3}}]}
    >>> score_document(doc)
    Traceback (most recent call last):
    ...
    app.rules.errors.InvalidRecordError: tricks sum to 11, expected 10

:func:`export_document` writes a live :class:`~app.rules.pulka.Pulka` back as ``pulka/1``;
scoring the export gives the live pulka's sheet and settlement exactly.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, cast, get_args

from app.rules.conventions import Conventions
from app.rules.errors import InvalidConventionError, InvalidRecordError
from app.rules.outcome import Contract, DealKind, DealOutcome, DefenceCall, Penalty, Strain
from app.rules.pulka import Pulka, _is_card, parse_stake
from app.rules.settlement import END_REASONS, EndReason

FORMAT = "pulka/1"
SCORE_FORMAT = "pulka-score/1"
_TOP_KEYS = ("format", "conventions", "players", "target", "stake", "ended", "deals")
_DEAL_KEYS = (
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
)
_CONTRACT = re.compile(r"^(\d{1,2})(NT|БК|S|C|D|H|♠|♣|♦|♥)$", re.IGNORECASE)
_STRAIN_NAMES: dict[str, Strain] = {
    "S": "S", "C": "C", "D": "D", "H": "H", "NT": "NT", "БК": "NT",
    "♠": "S", "♣": "C", "♦": "D", "♥": "H",
}  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class RecordMeta:
    """Everything of a ``pulka/1`` document except its deals."""

    conventions: Conventions
    players: tuple[str, ...]
    target: int
    stake: str
    ended: EndReason | None


def parse_document(doc: object) -> tuple[RecordMeta, list[DealOutcome]]:
    """Check the shape of a ``pulka/1`` document and return its metadata and deal outcomes.

    Only the shape is checked here; whether the deals could have happened is checked when they
    are recorded (:func:`replay`).
    """
    if not isinstance(doc, Mapping):
        raise InvalidRecordError("a pulka/1 document is a JSON object")
    for key in doc:
        if key not in _TOP_KEYS:
            raise InvalidRecordError(f"unknown key {key!r}", field=str(key))
    if doc.get("format") != FORMAT:
        raise InvalidRecordError(f"format must be {FORMAT!r}", field="format")
    raw_conv = doc.get("conventions", {"preset": "club"})
    if not isinstance(raw_conv, Mapping):
        raise InvalidRecordError("conventions must be an object", field="conventions")
    try:
        conventions = Conventions.from_mapping(raw_conv)
    except InvalidConventionError as exc:
        raise InvalidRecordError(str(exc), field="conventions") from None
    players = doc.get("players")
    if (
        not isinstance(players, list)
        or len(players) not in (3, 4)
        or not all(isinstance(p, str) and p for p in players)
    ):
        raise InvalidRecordError("players must be a list of 3 or 4 names", field="players")
    target = doc.get("target")
    if isinstance(target, bool) or not isinstance(target, int) or target <= 0:
        raise InvalidRecordError("target must be a positive integer", field="target")
    stake = doc.get("stake", "0.50")
    if not isinstance(stake, (str, int)) or isinstance(stake, bool):
        raise InvalidRecordError('stake must be a decimal string such as "0.50"', field="stake")
    parse_stake(stake)
    ended = doc.get("ended")
    if ended is not None and ended not in END_REASONS:
        raise InvalidRecordError(f"ended must be one of {', '.join(END_REASONS)}", field="ended")
    deals = doc.get("deals", [])
    if not isinstance(deals, list):
        raise InvalidRecordError("deals must be a list", field="deals")
    meta = RecordMeta(conventions, tuple(players), target, str(stake), ended)
    return meta, [deal_from_json(d, i) for i, d in enumerate(deals)]


def deal_from_json(data: object, index: int) -> DealOutcome:
    """Parse one ``pulka/1`` deal object (deal number ``index``) into a :class:`DealOutcome`."""

    def fail(field: str | None, message: str) -> InvalidRecordError:
        return InvalidRecordError(message, deal=index, field=field)

    if not isinstance(data, Mapping):
        raise fail(None, "a deal is a JSON object")
    for key in data:
        if key not in _DEAL_KEYS:
            raise fail(str(key), f"unknown key {key!r}")
    if "dealer" not in data:
        raise fail("dealer", "dealer is required")
    dealer = _int(data["dealer"], fail, "dealer")
    kind = data.get("type")
    if kind not in get_args(DealKind):
        raise fail("type", "type must be game, misere, pass_out or conceded")
    declarer = None
    if data.get("declarer") is not None:
        declarer = _int(data["declarer"], fail, "declarer")
    elif kind != "pass_out":
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
        if not isinstance(raw, list) or len(raw) != 2 or not all(_is_card(c) for c in raw):
            raise fail("talon", 'talon must be two cards such as ["AS", "10H"]')
        talon = (raw[0], raw[1])
    penalties = tuple(_penalty(p, fail) for p in _list(data.get("penalties", []), fail))
    talon_returned = data.get("talon_returned", False)
    if not isinstance(talon_returned, bool):
        raise fail("talon_returned", "talon_returned must be true or false")
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
    )


def replay(meta: RecordMeta, outcomes: list[DealOutcome]) -> Pulka:
    """Record every deal through :meth:`Pulka.record` and close the pulka as the record says."""
    first_dealer = outcomes[0].dealer if outcomes else 0
    if not 0 <= first_dealer < len(meta.players):
        raise InvalidRecordError(f"dealer {first_dealer} is not a seat", deal=0, field="dealer")
    pulka = Pulka.new(
        len(meta.players),
        names=meta.players,
        conventions=meta.conventions,
        target=meta.target,
        stake=meta.stake,
        first_dealer=first_dealer,
    )
    for outcome in outcomes:
        pulka, _ = pulka.record(outcome)
    if meta.ended == "target" and not pulka.is_complete:
        # PULKA_FORMAT's own example says "target" before any pool is full: a record that
        # stops short of the target ended early, whatever it calls itself (R-P8, R-P9).
        pulka = pulka.close("agreement")
    elif meta.ended is not None:
        pulka = pulka.close(meta.ended)
    return pulka


def score_pulka(pulka: Pulka) -> dict[str, Any]:
    """The ``pulka-score/1`` document of a pulka (recorded or live)."""
    return {
        "format": SCORE_FORMAT,
        "players": list(_names(pulka)),
        "sheet": pulka.sheet.to_json(),
        "entries": [e.to_json() for e in pulka.entries],
        "ended": pulka.ended,
        "settlement": pulka.settle().to_json(),
    }


def score_document(doc: object) -> dict[str, Any]:
    """Score a ``pulka/1`` document into ``pulka-score/1``; InvalidRecordError if invalid."""
    meta, outcomes = parse_document(doc)
    return score_pulka(replay(meta, outcomes))


def export_document(pulka: Pulka) -> dict[str, Any]:
    """The ``pulka/1`` document of a live pulka; scoring it reproduces the pulka's score.

    A pulka that a fourth player joined mid-way (R-T4) cannot be written in ``pulka/1``, whose
    players are fixed; it raises :class:`InvalidRecordError`.
    """
    if any(e.kind == "join" for e in pulka.events):
        raise InvalidRecordError("pulka/1 cannot express a player joining mid-pulka (R-T4)")
    deals = [deal_to_json(e.outcome) for e in pulka.events if e.outcome is not None]
    return {
        "format": FORMAT,
        "conventions": conventions_to_json(pulka.conventions),
        "players": list(_names(pulka)),
        "target": pulka.target,
        "stake": str(pulka.stake),
        "ended": pulka.ended,
        "deals": deals,
    }


def deal_to_json(o: DealOutcome) -> dict[str, Any]:
    """One :class:`DealOutcome` as a ``pulka/1`` deal object (optional fields only when set)."""
    out: dict[str, Any] = {"dealer": o.dealer, "type": o.kind}
    if o.declarer is not None:
        out["declarer"] = o.declarer
    if o.contract is not None:
        out["contract"] = str(o.contract)
    if o.defence:
        out["defence"] = {str(s): call for s, call in o.defence.items()}
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
    return out


def conventions_to_json(c: Conventions) -> dict[str, Any]:
    """``preset`` plus every convention that differs from it, as ``pulka/1`` spells them."""
    base = Conventions.preset_named(c.preset)
    out: dict[str, Any] = {"preset": c.preset}
    for f in dataclasses.fields(c):
        value = getattr(c, f.name)
        if f.name == "preset" or value == getattr(base, f.name):
            continue
        if isinstance(value, Fraction):
            value = int(value) if value.denominator == 1 else str(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def _names(pulka: Pulka) -> tuple[str, ...]:
    if pulka.names is not None:
        return pulka.names
    return tuple(f"Seat {i}" for i in range(pulka.players))


def _penalty_to_json(p: Penalty) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": p.seat, "rule": p.rule}
    if p.whists_on is not None:
        out["whists_on"] = p.whists_on
        out["amount"] = p.amount
    if p.hill or p.whists_on is None:
        out["hill"] = p.hill
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
    return Contract(level, _STRAIN_NAMES[match.group(2).upper()])


def _penalty(raw: object, fail: Any) -> Penalty:
    if not isinstance(raw, Mapping):
        raise fail("penalties", "a penalty is an object")
    for key in raw:
        if key not in ("seat", "rule", "hill", "whists_on", "amount"):
            raise fail("penalties", f"unknown penalty key {key!r}")
    rule = raw.get("rule")
    if not isinstance(rule, str) or not rule:
        raise fail("penalties", "a penalty names its rule")
    seat = _int(raw.get("seat"), fail, "penalties")
    hill = _int(raw.get("hill", 0), fail, "penalties")
    whists_on = None
    amount = 0
    if "whists_on" in raw:
        whists_on = _int(raw["whists_on"], fail, "penalties")
        amount = _int(raw.get("amount"), fail, "penalties")
    elif "amount" in raw:
        raise fail("penalties", "a whists penalty needs whists_on")
    elif "hill" not in raw:
        raise fail("penalties", "a penalty has hill or whists_on and amount")
    return Penalty(seat=seat, rule=rule, hill=hill, whists_on=whists_on, amount=amount)
