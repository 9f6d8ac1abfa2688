"""The table hub of one server process: subscribers, ordered fan-out, cross-process wake-ups.

No in-memory state here is authoritative. For each table with local subscribers the hub keeps a
:class:`TableChannel`: the state after the last event it fanned out (``seq``), a short buffer of
recent events for replays, and the connections. :meth:`Hub.catch_up` reads every committed event
after ``seq`` from the database, folds it and sends each seat its own view, in ``seq`` order,
under the channel's lock. It runs after a local command commits, when another process's
``NOTIFY`` arrives (LISTEN on a dedicated psycopg connection), on a periodic safety poll, and for
every table after the listener reconnects — so a committed event reaches every subscriber even
if the process that committed it died a moment later.

Presence (who is connected) is announced between processes with ``NOTIFY`` too, refreshed every
few seconds and expired when a process stops announcing.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import time
import uuid
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import psycopg
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import Clock
from app.db.engine import session_scope
from app.db.group_commit import GroupCommit
from app.db.models.table import Table
from app.realtime import game
from app.realtime.connection import CLOSE_SESSION_ENDED, Connection, dumps
from app.realtime.game import TableState
from app.realtime.metrics import CommandStats
from app.realtime.store import (
    NOTIFY_CHANNEL,
    WRITER_SETUP,
    Appended,
    Note,
    StateCache,
    events_after,
    note_origin,
    parse_note,
    rebuild,
    write_moves,
)
from app.workers import WorkerPool

log = logging.getLogger(__name__)

SOLVER_WORKERS = 2
SOLVER_PENDING = 4
"""Claims being solved or waiting, per process; one more is refused with ``busy``."""

PRESENCE_CHANNEL = "prefclub_presence"
SESSIONS_CHANNEL = "prefclub_sessions"
"""Sent by database triggers (migration 0008) when a login session ends: ``s:<session id>``, or
``m:<member id>`` when a member is deactivated. Every process closes the matching sockets."""
MAX_REPLAY = 64
"""A client further behind gets a snapshot (a long replay would overflow its send queue)."""
RECENT_EVENTS = MAX_REPLAY
"""Events (with their states) kept per table for replays: no more than a replay may use, as
every state kept is walked by the garbage collector."""
FIRST_DEAL_TICKS = 2
"""The timer loop looks for club tables whose first deal is due every this many ticks
(and at once when it starts: a restarted process deals what came due while it was down)."""
UNSAFE_ENGINE_EVENTS = frozenset({"card_played", "talon_card_turned", "trick_taken"})
"""Engine events after which an earlier view may show what is hidden now (R-W8, R-C3)."""


_ANNOUNCE = text("SELECT pg_notify(:c, note) FROM unnest(CAST(:notes AS text[])) AS note")
"""Presence notes of many tables in one round trip."""
_VERSIONS = text("SELECT id, version FROM tables WHERE id = ANY(CAST(:ids AS integer[]))")
"""The poll's statement: the versions of every table this process serves."""
SENDS_PER_TURN = 200
"""Periodic messages (heartbeats, presence) queued in one turn of the event loop before it
lets commands through: a thousand tables' worth at once stalled every table for ~0.1 s."""

GC_THRESHOLDS = (10_000, 5, 20)
"""The collector's thresholds in a serving process (Python's defaults are 700, 10, 10).
Every surviving object is walked once in each younger generation whatever the thresholds, so
they set the size of a pause, not the total: collections of the middle generation every 5
young ones keep each pause short (at 1,000 tables, every 20 walked ~0.2 s of objects at once)."""
_gc_tuned = False


def tune_gc() -> None:
    """Once per process, when the server has started: move everything alive now (modules, the
    app, the engine's tables) to the collector's permanent generation (``gc.freeze``) and make
    young collections rarer. Measured under ``prefclub selfplay``: a full collection walked
    ~180,000 start-up objects and stalled the event loop for 350 ms at a time, several times
    per run; frozen objects are never walked again (docs/performance.md "Hot path")."""
    global _gc_tuned
    if _gc_tuned:
        return
    _gc_tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class DeadlineFirer(Protocol):
    """Plays the default move at a table whose move deadline passed; True if it moved (the
    services' command executor, ``TableCommands.fire_deadline``)."""

    async def __call__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        cache: StateCache | None,
        table_id: int,
        now: datetime,
    ) -> bool: ...


class SessionSweeper(Protocol):
    """Ends the club sessions that are due, in the caller's transaction (R-S3; the schedule
    service's ``end_due_sessions``)."""

    async def __call__(self, db: AsyncSession, now: datetime) -> object: ...


class FirstDealer(Protocol):
    """Deals a club table's first deal if it is due; True if this call dealt it (the first-deal
    service's ``deal_first``: row-locked, so any number of callers deal once)."""

    async def __call__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        cache: StateCache | None,
        table_id: int,
        now: datetime,
    ) -> bool: ...


class FirstDealSweeper(Protocol):
    """The club tables whose first deal is due now (``due_first_deals``)."""

    async def __call__(self, db: AsyncSession, now: datetime) -> list[int]: ...


@dataclass(frozen=True, slots=True)
class TableTimers:
    """What the hub's timer loop calls: handed in at start-up by the composition root
    (``app/main.py``), because ``realtime`` does not import ``services`` (DESIGN.md)."""

    fire_deadline: DeadlineFirer
    end_due_sessions: SessionSweeper
    deal_first: FirstDealer | None = None
    due_first_deals: FirstDealSweeper | None = None


@dataclass(frozen=True, slots=True)
class HubLoad:
    """What :meth:`Hub.load` counts: live tables, open sockets (and how many of them are
    seated players), the messages waiting in their send queues and the longest queue."""

    tables: int
    sockets: int
    players: int
    queued: int
    deepest: int


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


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL as a libpq connection string for a raw psycopg connection."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


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


class Hub:
    """Every live table this process serves."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        database_url: str,
        clock: Clock,
        *,
        timers: TableTimers | None = None,
        poll_interval: float = 2.0,
        presence_interval: float = 5.0,
        heartbeat_interval: float = 15.0,
        timer_interval: float = 1.0,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.database_url = database_url
        self.clock = clock
        self.timers = timers
        """Move deadlines and the session end; None: this hub runs no timers."""
        self.channels: dict[int, TableChannel] = {}
        self.process_id = f"{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.cache = StateCache(owner=self.process_id)
        self.poll_interval = poll_interval
        self.presence_interval = presence_interval
        self.heartbeat_interval = heartbeat_interval
        self.timer_interval = timer_interval
        self.listening = asyncio.Event()
        self._remote: dict[int, dict[str, tuple[list[int], int, float]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._pending: set[asyncio.Task[Any]] = set()
        self._stopping = False
        self.workers = WorkerPool(max_workers=SOLVER_WORKERS, max_pending=SOLVER_PENDING)
        """The claim solver's process pool (started by the first claim, stopped with the hub)."""
        self.committer = GroupCommit(
            sessionmaker,
            harmless=(game.CommandRejected,),
            direct=write_moves,
            direct_setup=WRITER_SETUP,
        )
        """Commands of different tables that arrive together share one transaction; moves
        decided in advance share one statement (:func:`~app.realtime.store.write_moves`)."""
        self.command_stats = CommandStats()
        """Commands this process's sockets answered, and their latency (``/metrics``)."""

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        tune_gc()
        self._tasks = [
            asyncio.create_task(self._listen(), name="hub-listen"),
            asyncio.create_task(self._poll(), name="hub-poll"),
            asyncio.create_task(self._presence_loop(), name="hub-presence"),
            asyncio.create_task(self._heartbeat(), name="hub-heartbeat"),
            asyncio.create_task(self._timers(), name="hub-timers"),
        ]

    async def stop(self) -> None:
        self._stopping = True
        for task in [*self._tasks, *self._pending]:
            task.cancel()
        for task in [*self._tasks, *self._pending]:
            with contextlib.suppress(BaseException):
                await task
        for channel in self.channels.values():
            for conn in list(channel.conns):
                conn.drop(1001, "server shutting down")
        await self.workers.aclose()
        await self.committer.close()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._pending.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("hub task failed", exc_info=task.exception())

    # -- what /metrics reads ------------------------------------------------------------------

    def load(self) -> HubLoad:
        """Tables with a socket open here, those sockets, and their send queues, now."""
        tables = sockets = players = queued = deepest = 0
        for channel in self.channels.values():
            here = 0
            for conn in channel.conns:
                if conn.closed.is_set():
                    continue
                here += 1
                if conn.seat is not None:
                    players += 1
                depth = conn.queued
                queued += depth
                if depth > deepest:
                    deepest = depth
            if here:
                tables += 1
                sockets += here
        return HubLoad(tables, sockets, players, queued, deepest)

    # -- subscribers -------------------------------------------------------------------------

    async def join(self, conn: Connection, last_seq: int | None) -> str:
        """Subscribe ``conn``; send it what it missed since ``last_seq`` or a snapshot.

        Returns how it was brought up to date: ``current``, ``replay`` or ``snapshot``.
        """
        while True:
            channel = self.channels.setdefault(conn.table_id, TableChannel(conn.table_id))
            async with channel.lock:
                if self.channels.get(conn.table_id) is not channel:
                    continue  # the channel was dropped while we waited: use the new one
                mode = await self._join_locked(channel, conn, last_seq)
            self._presence_changed(channel, skip=conn)
            conn.send(self._presence_message(channel))
            if channel.state is not None and game.waits_for_first_deal(channel.state):
                self._spawn(self.deal_first(conn.table_id))
            return mode

    async def _join_locked(
        self, channel: TableChannel, conn: Connection, last_seq: int | None
    ) -> str:
        await self._catch_up_locked(channel)
        state = channel.state
        if state is None:
            raise LookupError(f"table {conn.table_id} has no events")
        mode = "snapshot"
        if last_seq is not None and 0 <= last_seq <= channel.seq:
            missed = [r for r in channel.recent if r.seq > last_seq]
            if last_seq == channel.seq:
                mode = "current"
            elif (
                missed
                and missed[0].seq == last_seq + 1
                and len(missed) <= MAX_REPLAY
                and replay_safe(missed)
            ):
                mode = "replay"
        conn.send(
            {
                "type": "welcome",
                "table_id": conn.table_id,
                "seat": conn.seat,
                "member_id": conn.member_id,
                "seq": channel.seq,
                "resume": mode,
            }
        )
        if mode == "replay":
            conn.last_seq = last_seq or 0
            for item in missed:
                conn.send_event(
                    item.seq,
                    dumps(event_message(item.state, item.seq, item.kind, item.payload, conn.seat)),
                )
        elif mode == "current":
            conn.last_seq = channel.seq
        else:
            conn.send(snapshot_message(state, conn.seat))
            conn.last_seq = channel.seq
        channel.conns.add(conn)
        return mode

    def leave(self, conn: Connection) -> None:
        channel = self.channels.get(conn.table_id)
        if channel is None:
            return
        channel.conns.discard(conn)
        self._presence_changed(channel)
        if not channel.conns:
            self.channels.pop(conn.table_id, None)

    def session_ended(self, *, session_id: int | None = None, member_id: int | None = None) -> int:
        """Close (4401) every local socket opened with ``session_id`` or by ``member_id``: its
        login ended (logout, deactivation). Returns how many were closed."""
        closed = 0
        for channel in list(self.channels.values()):
            for conn in list(channel.conns):
                if (session_id is not None and conn.session_id == session_id) or (
                    member_id is not None and conn.member_id == member_id
                ):
                    conn.drop(CLOSE_SESSION_ENDED, "login session ended")
                    closed += 1
        return closed

    def state_of(self, table_id: int) -> TableState | None:
        channel = self.channels.get(table_id)
        return channel.state if channel is not None else None

    # -- fan-out -----------------------------------------------------------------------------

    async def catch_up(self, table_id: int) -> None:
        """Fan out every committed event of ``table_id`` this process has not sent yet."""
        channel = self.channels.get(table_id)
        if channel is None:
            return
        async with channel.lock:
            await self._catch_up_locked(channel)

    async def _catch_up_locked(self, channel: TableChannel) -> None:
        async with self.sessionmaker() as db:
            if channel.state is None:
                state = await rebuild(db, channel.table_id)
                if state is None:
                    return
                channel.state = state
                channel.seq = state.seq
                return
            events = await events_after(db, channel.table_id, channel.seq)
        for event in events:
            if event.seq != channel.seq + 1:  # pragma: no cover - seqs are dense
                log.error("event gap", extra={"table": channel.table_id, "seq": event.seq})
                break
            state = game.fold(channel.state, channel.table_id, event.seq, event.kind, event.payload)
            channel.state = state
            channel.seq = event.seq
            channel.recent.append(Recent(event.seq, event.kind, event.payload, state))
            self._fan_out(channel, state, event.seq, event.kind, event.payload)
        if channel.state is not None:
            self.cache.put(channel.state)

    async def publish(self, table_id: int, items: Iterable[Appended]) -> None:
        """Fan out events this process just committed (their states are known already); falls
        back to reading the database when anything before them has not been sent yet."""
        channel = self.channels.get(table_id)
        if channel is None:
            return
        async with channel.lock:
            fresh = [i for i in items if i.seq > channel.seq]
            if channel.state is None or (fresh and fresh[0].seq != channel.seq + 1):
                await self._catch_up_locked(channel)
                return
            for item in fresh:
                channel.state = item.state
                channel.seq = item.seq
                channel.recent.append(Recent(item.seq, item.kind, item.payload, item.state))
                self._fan_out(channel, item.state, item.seq, item.kind, item.payload)

    def _fan_out(
        self, channel: TableChannel, state: TableState, seq: int, kind: str, payload: dict[str, Any]
    ) -> None:
        seating = kind in game.SEATING_KINDS
        conns = []
        for conn in list(channel.conns):
            if conn.closed.is_set():
                channel.conns.discard(conn)
                continue
            if seating:
                # A player joined or was replaced: every member's seat is looked up again (seats
                # may be renumbered; a replaced player watches from now on as a spectator).
                conn.seat = state.seat_of(conn.member_id)
            conns.append(conn)
        shared = event_shared(state, kind, payload, channel.sheet_json(state))
        views = game.seat_views(state, (conn.seat for conn in conns))
        texts: dict[int | None, str] = {}
        for conn in conns:
            text_ = texts.get(conn.seat)
            if text_ is None:
                message = event_message(
                    state, seq, kind, payload, conn.seat, shared, views[conn.seat]
                )
                if seating:
                    message["seat"] = conn.seat
                text_ = texts[conn.seat] = dumps(message)
            conn.send_event(seq, text_)
        if seating:
            self._presence_changed(channel)

    def on_notify(self, table_id: int, seq: int) -> None:
        channel = self.channels.get(table_id)
        if channel is not None and seq > channel.seq:
            self._spawn(self.catch_up(table_id))

    def on_note(self, note: Note) -> None:
        """A table's ``NOTIFY``. Our own commands' notes are ignored: the command's caller
        publishes its events itself (:meth:`publish`; the periodic poll is the safety net).
        Another process's events that came along are folded without reading them back."""
        if note.origin is not None and note.origin == self.process_id:
            return
        channel = self.channels.get(note.table_id)
        if channel is None or note.seq <= channel.seq:
            return
        if note.events:
            self._spawn(self._apply_note(channel, note.events))
        else:
            self._spawn(self.catch_up(note.table_id))

    async def _apply_note(self, channel: TableChannel, events: tuple[dict[str, Any], ...]) -> None:
        """Fold and fan out events that arrived in a note; read the log instead when they do
        not follow on from what this channel sent last."""
        async with channel.lock:
            if self.channels.get(channel.table_id) is not channel:
                return
            fresh = [e for e in events if e["seq"] > channel.seq]
            if not fresh:
                return
            if channel.state is None or fresh[0]["seq"] != channel.seq + 1:
                await self._catch_up_locked(channel)
                return
            for event in fresh:
                seq, kind, payload = event["seq"], event["kind"], event["payload"]
                state = game.fold(channel.state, channel.table_id, seq, kind, payload)
                channel.state = state
                channel.seq = seq
                channel.recent.append(Recent(seq, kind, payload, state))
                self._fan_out(channel, state, seq, kind, payload)
            self.cache.put(channel.state)

    # -- background loops ----------------------------------------------------------------------

    async def _listen(self) -> None:
        """LISTEN for other processes' events; after any reconnect, resync every table."""
        while not self._stopping:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    libpq_url(self.database_url), autocommit=True
                )
                async with conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    await conn.execute(f"LISTEN {PRESENCE_CHANNEL}")
                    await conn.execute(f"LISTEN {SESSIONS_CHANNEL}")
                    self.listening.set()
                    for table_id in list(self.channels):
                        self._spawn(self.catch_up(table_id))
                    async for note in conn.notifies():
                        self._on_note(note.channel, note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("table listener lost; reconnecting", exc_info=True)
            self.listening.clear()
            await asyncio.sleep(0.5)

    def _on_note(self, channel: str, payload: str) -> None:
        try:
            if channel == NOTIFY_CHANNEL:
                if note_origin(payload) != self.process_id:  # our own: published already
                    self.on_note(parse_note(payload))
            elif channel == SESSIONS_CHANNEL:
                scope, _, ident = payload.partition(":")
                if scope == "s":
                    self.session_ended(session_id=int(ident))
                elif scope == "m":
                    self.session_ended(member_id=int(ident))
            elif channel == PRESENCE_CHANNEL:
                data = json.loads(payload)
                if data["p"] != self.process_id:
                    self._remote_presence(
                        int(data["t"]), data["p"], list(data["s"]), int(data["n"])
                    )
        except (ValueError, KeyError, TypeError):
            log.warning("bad notification", extra={"payload": payload})

    async def _poll(self) -> None:
        """Safety net for lost notifications: compare versions of the tables we serve."""
        while True:
            await asyncio.sleep(self.poll_interval)
            ids = list(self.channels)
            if not ids:
                continue
            try:
                async with self.sessionmaker() as db:
                    # One array parameter: the statement's text stays the same whatever the
                    # number of tables (an IN list of 1,000 was rendered and parsed anew
                    # every poll, a stall of the event loop).
                    rows = (await db.execute(_VERSIONS, {"ids": ids})).all()
            except Exception:
                log.warning("table poll failed", exc_info=True)
                continue
            for table_id, version in rows:
                self.on_notify(table_id, version)

    async def _timers(self) -> None:
        """Fire move deadlines that ran out (any process may; the row lock makes it once)."""
        timers = self.timers
        if timers is None:
            return
        ticks = 0
        while True:
            await asyncio.sleep(self.timer_interval)
            ticks += 1
            if ticks % 5 == 0:
                await self._end_due_sessions(timers)
            if ticks % FIRST_DEAL_TICKS == 1:
                await self._deal_due_first_deals(timers)
            try:
                now = self.clock.now()
                async with self.sessionmaker() as db:
                    due = (
                        await db.scalars(
                            select(Table.id)
                            .where(
                                Table.deadline_at.is_not(None),
                                Table.deadline_at <= now,
                                Table.status == "playing",
                            )
                            .limit(50)
                        )
                    ).all()
                for table_id in due:
                    if await timers.fire_deadline(self.sessionmaker, self.cache, table_id, now):
                        await self.catch_up(table_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("move timer check failed", exc_info=True)

    async def deal_first(self, table_id: int) -> bool:
        """Deal ``table_id``'s first deal if it is due (a player joined, the sweep found it);
        fan it out here. True if this process dealt it."""
        timers = self.timers
        if timers is None or timers.deal_first is None:
            return False
        try:
            dealt = await timers.deal_first(
                self.sessionmaker, self.cache, table_id, self.clock.now()
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("first deal failed", exc_info=True)
            return False
        if dealt:
            await self.catch_up(table_id)
        return dealt

    async def _deal_due_first_deals(self, timers: TableTimers) -> None:
        """Club tables whose session has opened deal their first deal (issue 11)."""
        if timers.due_first_deals is None:
            return
        try:
            async with self.sessionmaker() as db:
                due = await timers.due_first_deals(db, self.clock.now())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("first deal sweep failed", exc_info=True)
            return
        for table_id in due:
            await self.deal_first(table_id)

    async def _end_due_sessions(self, timers: TableTimers) -> None:
        """R-S3: close the pulkas of sessions past their end (the schedule service decides)."""
        try:
            async with session_scope(self.sessionmaker) as db:
                await timers.end_due_sessions(db, self.clock.now())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("ending due sessions failed", exc_info=True)

    async def _heartbeat(self) -> None:
        """Tell every client the table's ``seq`` now and then: a client behind it resyncs.

        The tables take turns: each tick (about a second) serves the tables whose id falls in
        that tick's slot, so every table hears once per interval and the process never sends
        thousands of heartbeats at once."""
        slots = max(1, int(self.heartbeat_interval))
        tick = 0
        while True:
            await asyncio.sleep(self.heartbeat_interval / slots)
            slot = tick % slots
            tick += 1
            queued = 0
            for channel in list(self.channels.values()):
                if channel.table_id % slots != slot:
                    continue
                message = dumps(
                    {"type": "heartbeat", "seq": channel.seq, "time": self.clock.now().isoformat()}
                )
                for conn in list(channel.conns):
                    conn.send(message)
                queued += len(channel.conns)
                if queued >= SENDS_PER_TURN:
                    queued = 0
                    await asyncio.sleep(0)

    # -- presence --------------------------------------------------------------------------

    def _local_presence(self, channel: TableChannel) -> tuple[list[int], int]:
        seats = sorted(
            {c.seat for c in channel.conns if c.seat is not None and not c.closed.is_set()}
        )
        watchers = sum(1 for c in channel.conns if c.seat is None and not c.closed.is_set())
        return seats, watchers

    def presence(self, table_id: int) -> tuple[list[int], int]:
        """Seats connected in any process, and the number of spectators."""
        channel = self.channels.get(table_id)
        seats: set[int] = set()
        watchers = 0
        if channel is not None:
            local, watchers = self._local_presence(channel)
            seats.update(local)
        now = time.monotonic()
        for remote_seats, remote_watchers, expires in self._remote.get(table_id, {}).values():
            if expires > now:
                seats.update(remote_seats)
                watchers += remote_watchers
        return sorted(seats), watchers

    def _presence_changed(self, channel: TableChannel, skip: Connection | None = None) -> None:
        self._send_presence(channel, skip)
        seats, watchers = self._local_presence(channel)
        self._spawn(self._announce([(channel.table_id, seats, watchers)]))

    def _presence_message(self, channel: TableChannel) -> dict[str, Any]:
        """The ``presence`` message: seats connected, spectators, and ``since`` — for each
        seat that is not connected, when this process first saw it away (docs/protocol.md)."""
        connected, watchers = channel.presence
        self._note_away(channel, connected)
        return {
            "type": "presence",
            "connected": connected,
            "spectators": watchers,
            "since": {str(seat): at for seat, at in sorted(channel.away.items())},
        }

    def _note_away(self, channel: TableChannel, connected: list[int]) -> None:
        players = channel.state.players if channel.state is not None else 0
        now: str | None = None
        for seat in range(players):
            if seat in connected:
                channel.away.pop(seat, None)
            elif seat not in channel.away:
                now = now or self.clock.now().astimezone(UTC).isoformat()
                channel.away[seat] = now
        for seat in [s for s in channel.away if s >= players]:
            del channel.away[seat]

    def _send_presence(self, channel: TableChannel, skip: Connection | None = None) -> None:
        current = self.presence(channel.table_id)
        if current == channel.presence:
            return
        channel.presence = current
        message = dumps(self._presence_message(channel))
        for conn in list(channel.conns):
            if conn is not skip:
                conn.send(message)

    def _remote_presence(
        self, table_id: int, process: str, seats: list[int], watchers: int
    ) -> None:
        expires = time.monotonic() + 3 * self.presence_interval
        self._remote.setdefault(table_id, {})[process] = (seats, watchers, expires)
        channel = self.channels.get(table_id)
        if channel is not None:
            self._send_presence(channel)

    async def _announce(self, items: list[tuple[int, list[int], int]]) -> None:
        if not items or self._stopping:
            return
        notes = [
            json.dumps({"p": self.process_id, "t": table_id, "s": seats, "n": watchers})
            for table_id, seats, watchers in items
        ]
        try:
            async with self.sessionmaker() as db:
                # One statement for every table: a round trip per table made the periodic
                # announcement of 1,000 tables cost 200 round trips a second.
                await db.execute(_ANNOUNCE, {"c": PRESENCE_CHANNEL, "notes": notes})
                await db.commit()
        except Exception:
            log.warning("presence announcement failed", exc_info=True)

    async def _presence_loop(self) -> None:
        while True:
            await asyncio.sleep(self.presence_interval)
            items = []
            for index, channel in enumerate(list(self.channels.values()), 1):
                seats, watchers = self._local_presence(channel)
                items.append((channel.table_id, seats, watchers))
                self._send_presence(channel)  # remote entries may have expired
                if index % SENDS_PER_TURN == 0:
                    await asyncio.sleep(0)
            await self._announce(items)
