"""``pulka/1`` records: parsing, scoring into ``pulka-score/1``, and exporting a live pulka.

The format is specified in ``PULKA_FORMAT.md``. A record is checked as a whole before anything is
scored: its shape here and, per deal, in :mod:`app.rules.core.outcome_json` (unknown keys, wrong
types, contracts outside 6-10, unknown conventions), and its sense by replaying every deal
through :meth:`app.rules.scoring.pulka.Pulka.record` — the same method a live table uses — so an
imported record and a live pulka are scored by one code path. Every problem raises
:class:`InvalidRecordError` carrying the deal index (``None`` outside the
deals) and the field at fault::

    >>> doc = {"format": "pulka/1", "players": ["A", "B", "C"], "target": 10,
    ...        "deals": [{"dealer": 0, "type": "pass_out", "tricks": {"0": 5, "1": 3, "2": 3}}]}
    >>> score_document(doc)
    Traceback (most recent call last):
    ...
    app.rules.core.rule_errors.InvalidRecordError: tricks sum to 11, expected 10

:func:`export_document` writes a live :class:`~app.rules.scoring.pulka.Pulka` back as ``pulka/1``;
scoring the export gives the live pulka's sheet and settlement exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from app.rules.core.conventions import Conventions, conventions_to_json
from app.rules.core.outcome import DealOutcome
from app.rules.core.outcome_json import deal_from_json, deal_to_json
from app.rules.core.rule_errors import InvalidConventionError, InvalidRecordError
from app.rules.core.seats import TABLE_SIZES
from app.rules.scoring.pulka import Pulka, parse_stake
from app.rules.scoring.settlement import END_REASONS, JOIN_RULE, EndReason

__all__ = [
    "FORMAT",
    "SCORE_FORMAT",
    "RecordMeta",
    "conventions_to_json",
    "deal_from_json",
    "deal_to_json",
    "export_document",
    "parse_document",
    "replay",
    "score_document",
    "score_pulka",
]

FORMAT = "pulka/1"
SCORE_FORMAT = "pulka-score/1"
_TOP_KEYS = (
    "format", "conventions", "players", "target", "stake", "ended", "first_dealer", "deals",
    "seat_changes",
)  # fmt: skip
_JOIN_KEYS = frozenset({"before_deal", "kind", "name", "pool", "hill"})
_REPLACE_KEYS = frozenset({"before_deal", "kind", "seat", "name"})


@dataclasses.dataclass(frozen=True, slots=True)
class RecordMeta:
    """Everything of a ``pulka/1`` document except its deals."""

    conventions: Conventions
    players: tuple[str, ...]
    target: int
    stake: str
    ended: EndReason | None
    first_dealer: int | None = None
    """The seat the rotation starts from, when the first deal was dealt out of turn (R-X3)."""
    seat_changes: tuple[SeatChange, ...] = ()
    """Joins (R-T4) and replacements (R-T5), in order; ``players`` is the initial seating."""


@dataclasses.dataclass(frozen=True, slots=True)
class SeatChange:
    """One ``seat_changes`` item: a join (R-T4) or a replacement (R-T5) before deal ``before``.

    ``seat`` (replacements) counts seats as they are at the time of the change, after any
    earlier join renumbered them. ``pool``/``hill`` (joins) are what the newcomer writes; when
    stated they must equal what R-T4 computes.
    """

    index: int
    before: int
    kind: str
    name: str
    seat: int | None = None
    pool: int | None = None
    hill: int | None = None


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
        or len(players) not in TABLE_SIZES
        or not all(isinstance(p, str) and p for p in players)
    ):
        raise InvalidRecordError("players must be a list of 3, 4 or 5 names", field="players")
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
    first_dealer = doc.get("first_dealer")
    if first_dealer is not None and (
        isinstance(first_dealer, bool)
        or not isinstance(first_dealer, int)
        or not 0 <= first_dealer < len(players)
    ):
        raise InvalidRecordError("first_dealer must be a seat", field="first_dealer")
    changes = _parse_seat_changes(doc.get("seat_changes", []), len(deals))
    meta = RecordMeta(conventions, tuple(players), target, str(stake), ended, first_dealer, changes)
    return meta, [deal_from_json(d, i) for i, d in enumerate(deals)]


def _parse_seat_changes(raw: object, deal_count: int) -> tuple[SeatChange, ...]:
    """Check the shape of ``seat_changes``; whether each change was possible is checked later."""
    field = "seat_changes"
    if not isinstance(raw, list):
        raise InvalidRecordError("seat_changes must be a list", field=field)
    changes: list[SeatChange] = []
    last = 0
    for i, item in enumerate(raw):

        def fail(message: str, i: int = i) -> InvalidRecordError:
            return InvalidRecordError(f"seat_changes[{i}]: {message}", field=field)

        if not isinstance(item, Mapping):
            raise fail("a seat change is an object")
        kind = item.get("kind")
        if kind not in ("join", "replace"):
            raise fail('kind must be "join" or "replace"')
        allowed = _JOIN_KEYS if kind == "join" else _REPLACE_KEYS
        for key in item:
            if key not in allowed:
                raise fail(f"unknown key {key!r}")
        before = item.get("before_deal")
        if not isinstance(before, int) or isinstance(before, bool) or not 0 <= before <= deal_count:
            raise fail(f"before_deal must be a deal index 0-{deal_count}")
        if before < last:
            raise fail("seat changes must be in the order of before_deal")
        last = before
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise fail("name must be a non-empty string")
        numbers: dict[str, int | None] = {}
        for key in ("seat",) if kind == "replace" else ("pool", "hill"):
            value = item.get(key)
            if (kind == "replace" or value is not None) and not _is_int(value):
                raise fail(f"{key} must be an integer")
            numbers[key] = value
        changes.append(SeatChange(i, before, kind, name, **numbers))
    return tuple(changes)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _apply_change(pulka: Pulka, change: SeatChange) -> Pulka:
    """Apply one seat change through :meth:`Pulka.join_fourth` / :meth:`Pulka.replace_player`."""
    prefix = f"seat_changes[{change.index}]: "
    try:
        if change.kind == "replace":
            assert change.seat is not None
            return pulka.replace_player(change.seat, change.name)
        if pulka.players != 3:
            raise InvalidRecordError("a fourth player joins only a three-player pulka (R-T4)")
        new, joined = pulka.join_fourth((pulka.next_dealer - 1) % 3, change.name)
    except InvalidRecordError as exc:
        raise InvalidRecordError(prefix + exc.message, field="seat_changes") from None
    for entry in joined:
        stated = change.pool if entry.column == "pool" else change.hill
        if stated is not None and stated != entry.amount:
            raise InvalidRecordError(
                f"{prefix}the newcomer writes {entry.column} {entry.amount} (R-T4), not {stated}",
                field="seat_changes",
            )
    return new


def replay(meta: RecordMeta, outcomes: list[DealOutcome]) -> Pulka:
    """Record every deal through :meth:`Pulka.record` and close the pulka as the record says."""
    first_dealer = outcomes[0].dealer if outcomes else 0
    if meta.first_dealer is not None:
        first_dealer = meta.first_dealer
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
    changes = list(meta.seat_changes)
    for index, outcome in enumerate(outcomes):
        while changes and changes[0].before == index:
            pulka = _apply_change(pulka, changes.pop(0))
        pulka, _ = pulka.record(outcome)
    for change in changes:  # after the last deal
        pulka = _apply_change(pulka, change)
    if meta.ended == "target" and not pulka.is_complete:
        # PULKA_FORMAT's own example says "target" before any pool is full: a record that
        # stops short of the target ended early, whatever it calls itself (R-P8, R-P9).
        pulka = pulka.close("agreement")
    elif meta.ended is not None:
        pulka = pulka.close(meta.ended)
    return pulka


def score_pulka(pulka: Pulka) -> dict[str, Any]:
    """The ``pulka-score/1`` document of a pulka (recorded or live); ``seats`` only where the
    rule set shows something by each player (Arabic: his bombs, R-A1)."""
    out: dict[str, Any] = {
        "format": SCORE_FORMAT,
        "players": list(_names(pulka)),
        "sheet": pulka.sheet.to_json(),
        "entries": [e.to_json() for e in pulka.entries],
        "ended": pulka.ended,
        "settlement": pulka.settle().to_json(),
    }
    marks = pulka.seat_marks()
    if marks is not None:
        out["seats"] = marks
    return out


def score_document(doc: object) -> dict[str, Any]:
    """Score a ``pulka/1`` document into ``pulka-score/1``; InvalidRecordError if invalid."""
    meta, outcomes = parse_document(doc)
    return score_pulka(replay(meta, outcomes))


def export_document(pulka: Pulka) -> dict[str, Any]:
    """The ``pulka/1`` document of a live pulka; scoring it reproduces the pulka's score.

    ``players`` is the initial seating; a fourth player joining (R-T4) and a replacement
    (R-T5) are written in ``seat_changes``, each before the deal that followed it.
    """
    deals: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    seat_count = pulka.players - sum(1 for e in pulka.events if e.kind == "join")
    names = list(pulka.initial_names or (f"Seat {i}" for i in range(seat_count)))
    for e in pulka.events:
        if e.outcome is not None:
            deals.append(deal_to_json(e.outcome))
        elif e.kind == "join":
            assert e.seat is not None
            seat = e.seat + 1
            name = e.name or f"Seat {len(names)}"
            names.insert(seat, name)
            pool, hill = _join_amounts(pulka, len(deals), seat)
            changes.append(
                {"before_deal": len(deals), "kind": "join", "name": name, "pool": pool,
                 "hill": hill}
            )  # fmt: skip
        elif e.kind == "replace":
            assert e.seat is not None
            name = e.name or names[e.seat]
            names[e.seat] = name
            changes.append({"before_deal": len(deals), "kind": "replace", "seat": e.seat,
                            "name": name})  # fmt: skip
    start: dict[str, Any] = {}
    if deals and deals[0]["dealer"] != pulka.first_dealer:
        start["first_dealer"] = pulka.first_dealer  # the first deal was out of turn (R-X3)
    return {
        "format": FORMAT,
        "conventions": conventions_to_json(pulka.conventions),
        "players": list(pulka.initial_names or _names(pulka)[:seat_count]),
        "target": pulka.target,
        "stake": str(pulka.stake),
        "ended": pulka.ended,
        **start,
        "deals": deals,
        **({"seat_changes": changes} if changes else {}),
    }


def _join_amounts(pulka: Pulka, deal: int, seat: int) -> tuple[int, int]:
    """The pool and hill the newcomer wrote when he joined before ``deal`` (R-T4 entries)."""
    amounts = {e.column: e.amount for e in pulka.entries if e.rule == JOIN_RULE and e.deal == deal}
    return int(amounts["pool"]), int(amounts["hill"])


def _names(pulka: Pulka) -> tuple[str, ...]:
    if pulka.names is not None:
        return pulka.names
    return tuple(f"Seat {i}" for i in range(pulka.players))
