"""What a table's subscribers are sent, and what the hub keeps per table to send it: the
:class:`TableChannel` (state, ``seq``, recent events, sockets, presence), the messages of an event
and of a snapshot, and whether missed events may be replayed (docs/protocol.md)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.realtime import game
from app.realtime.connection import Connection
from app.realtime.game import TableState

MAX_REPLAY = 64
"""A client further behind gets a snapshot (a long replay would overflow its send queue)."""
RECENT_EVENTS = MAX_REPLAY
"""Events (with their states) kept per table for replays: no more than a replay may use, as
every state kept is walked by the garbage collector."""
UNSAFE_ENGINE_EVENTS = frozenset({"card_played", "talon_card_turned", "trick_taken"})
"""Engine events after which an earlier view may show what is hidden now (R-W8, R-C3)."""


@dataclass
class Recent:
    seq: int
    kind: str
    payload: dict[str, Any]
    state: TableState


@dataclass
class TableChannel:
    table_id: int
    state: TableState | None = None
    seq: int = 0
    conns: set[Connection] = field(default_factory=set)
    recent: deque[Recent] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    presence: tuple[list[int], int] = ([], 0)
    away: dict[int, str] = field(default_factory=dict)
    """Seat -> when this process first saw it disconnected (ISO UTC): the presence's ``since``."""
    sheet: tuple[object, dict[str, Any]] | None = None
    """The last sheet fanned out and its JSON: a sheet changes only when a deal ends, and every
    event's message carries it."""

    def sheet_json(self, state: TableState) -> dict[str, Any]:
        """``state``'s sheet as JSON, made once per sheet (sheets are immutable values)."""
        sheet = state.pulka.sheet
        if self.sheet is None or self.sheet[0] is not sheet:
            self.sheet = (sheet, sheet.to_json())
        return self.sheet[1]


def event_message(
    state: TableState,
    seq: int,
    kind: str,
    payload: dict[str, Any],
    seat: int | None,
    shared: tuple[dict[str, Any], dict[str, Any]] | None = None,
    view: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Event ``seq`` as ``seat`` (None: a spectator) receives it: public data plus its view.

    When several seats get the event, ``shared`` (:func:`event_shared`) and the seat's ``view``
    (:func:`game.seat_views`) are made once for all of them."""
    data, table = shared if shared is not None else event_shared(state, kind, payload)
    if view is None:
        view = game.seat_view(state, seat)
    return {"seq": seq, "type": kind, "data": data, **view, "table": table}


def event_shared(
    state: TableState, kind: str, payload: dict[str, Any], sheet: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parts of an event's message that are the same for every seat: its public data and
    the table's brief (``sheet``: the pulka's sheet as JSON, when the caller has it)."""
    return game.public_data(kind, payload), brief(state, sheet)


def brief(state: TableState, sheet: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "status": state.status,
        "deal_no": state.deal_no,
        "chat_open": not state.deal_in_progress,
        "sheet": state.pulka.sheet.to_json() if sheet is None else sheet,
        "notice": state.notice,
        "deadline_at": state.deadline_at,
    }


def snapshot_message(state: TableState, seat: int | None) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "seq": state.seq,
        "seat": seat,
        **game.seat_view(state, seat),
        "table": game.table_info(state),
    }


def replay_safe(items: Iterable[Recent]) -> bool:
    """May these missed events be replayed as they were sent? Not if a card was played in them
    (its trick may be closed by now, R-W8; the first lead also hides the declarer's discard from
    him, R-C3) — unless their deal has ended since (then everything is shown)."""
    pending_unsafe = False
    for item in items:
        if item.kind in game.SEATING_KINDS:
            return False  # seats moved: earlier events were addressed to other seat numbers
        if item.kind == "deal_ended":
            pending_unsafe = False
        elif item.kind == "action":
            kinds = {e.get("type") for e in item.payload.get("events", ())}
            if kinds & UNSAFE_ENGINE_EVENTS:
                pending_unsafe = True
    return not pending_unsafe
