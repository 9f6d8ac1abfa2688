"""``pulka/1`` records: parsing, scoring into ``pulka-score/1``, and exporting a live pulka.

The format is specified in ``PULKA_FORMAT.md``. A record is checked as a whole before anything is
scored: its shape here and, per deal, in :mod:`app.rules.outcome_json` (unknown keys, wrong
types, contracts outside 6-10, unknown conventions), and its sense by replaying every deal
through :meth:`app.rules.pulka.Pulka.record` — the same method a live table uses — so an
imported record and a live pulka are scored by one code path. Every problem raises
:class:`InvalidRecordError` carrying the deal index (``None`` outside the
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
from collections.abc import Mapping
from typing import Any

from app.rules.conventions import Conventions, conventions_to_json
from app.rules.errors import InvalidConventionError, InvalidRecordError
from app.rules.outcome import DealOutcome
from app.rules.outcome_json import deal_from_json, deal_to_json
from app.rules.pulka import Pulka, parse_stake
from app.rules.settlement import END_REASONS, EndReason

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
)  # fmt: skip



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
    first_dealer = doc.get("first_dealer")
    if first_dealer is not None and (
        isinstance(first_dealer, bool)
        or not isinstance(first_dealer, int)
        or not 0 <= first_dealer < len(players)
    ):
        raise InvalidRecordError("first_dealer must be a seat", field="first_dealer")
    meta = RecordMeta(conventions, tuple(players), target, str(stake), ended, first_dealer)
    return meta, [deal_from_json(d, i) for i, d in enumerate(deals)]


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
    start: dict[str, Any] = {}
    if deals and deals[0]["dealer"] != pulka.first_dealer:
        start["first_dealer"] = pulka.first_dealer  # the first deal was out of turn (R-X3)
    return {
        "format": FORMAT,
        "conventions": conventions_to_json(pulka.conventions),
        "players": list(_names(pulka)),
        "target": pulka.target,
        "stake": str(pulka.stake),
        "ended": pulka.ended,
        **start,
        "deals": deals,
    }


def _names(pulka: Pulka) -> tuple[str, ...]:
    if pulka.names is not None:
        return pulka.names
    return tuple(f"Seat {i}" for i in range(pulka.players))


