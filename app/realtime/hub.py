"""The table hub of one server process: subscribers, ordered fan-out, cross-process wake-ups.

No in-memory state here is authoritative. For each table with local subscribers the hub keeps a
:class:`TableChannel`: the state after the last event it fanned out (``seq``), a short buffer of
recent events for replays, and the connections. :meth:`Hub.catch_up` reads every committed event
after ``seq`` from the database, folds it and sends each seat its own view, in ``seq`` order,
under the channel's lock. It runs after a local command commits, when another process's
``NOTIFY`` arrives (LISTEN on a dedicated psycopg connection), on a periodic safety poll, and for
every table after the listener reconnects — so a committed event reaches every subscriber even
if the process that committed it died a moment later.

The wake-ups between processes are :mod:`~app.realtime.cross_process`'s; presence (who is
connected, :mod:`~app.realtime.presence`) is announced between processes with ``NOTIFY`` too;
the timers (:mod:`~app.realtime.table_timers`) fire deadlines and first deals; what a
subscriber is sent is :mod:`~app.realtime.table_messages`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import Clock
from app.db.group_commit import GroupCommit
from app.realtime import game
from app.realtime.connection import CLOSE_SESSION_ENDED, Connection, dumps
from app.realtime.cross_process import CrossProcess
from app.realtime.game import TableState
from app.realtime.gc_tuning import tune_gc
from app.realtime.metrics import CommandStats
from app.realtime.presence import SENDS_PER_TURN, Presence
from app.realtime.store import (
    WRITER_SETUP,
    Appended,
    MovesWriter,
    Note,
    StateCache,
    events_after,
    rebuild,
)
from app.realtime.table_messages import (
    MAX_REPLAY,
    Recent,
    TableChannel,
    event_message,
    event_shared,
    replay_safe,
    snapshot_message,
)
from app.realtime.table_timers import TableTimers, TimerLoop
from app.workers import WorkerPool

log = logging.getLogger(__name__)

SOLVER_WORKERS = 2
SOLVER_PENDING = 4
"""Claims being solved or waiting, per process; one more is refused with ``busy``."""


@dataclass(frozen=True, slots=True)
class HubLoad:
    """What :meth:`Hub.load` counts: live tables, open sockets (and how many of them are
    seated players), the messages waiting in their send queues and the longest queue."""

    tables: int
    sockets: int
    players: int
    queued: int
    deepest: int


def make_solver_pool() -> WorkerPool:
    """The claim solver's process pool of one server process (its workers start with the
    first claim)."""
    return WorkerPool(max_workers=SOLVER_WORKERS, max_pending=SOLVER_PENDING)


def make_writer(
    sessionmaker: async_sessionmaker[AsyncSession], moves: MovesWriter | None = None
) -> GroupCommit:
    """The process's writer of table commands: commands of different tables that arrive
    together share one transaction, and moves decided in advance share one statement of
    ``moves`` (the use cases' guard, ``app.services.move_guard.FAST_WRITER``, handed in by the
    composition root; None: no move is written in advance)."""
    return GroupCommit(
        sessionmaker,
        harmless=(game.CommandRejected,),
        direct=moves,
        direct_setup=WRITER_SETUP,
    )


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
        workers: WorkerPool | None = None,
        committer: GroupCommit | None = None,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.database_url = database_url
        self.clock = clock
        self.timers = timers
        """Move deadlines and the session end; None: this hub runs no timers."""
        self.channels: dict[int, TableChannel] = {}
        self.process_id = f"{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.cache = StateCache(owner=self.process_id)
        self.presence_interval = presence_interval
        self.heartbeat_interval = heartbeat_interval
        self.timer_interval = timer_interval
        self._tasks: list[asyncio.Task[None]] = []
        self._pending: set[asyncio.Task[Any]] = set()
        self._stopping = False
        self.presence_tracker = Presence(
            self.channels, self.process_id, sessionmaker, clock, self._spawn, presence_interval
        )
        """Who is connected to each table, here and in the other processes."""
        self.timer_loop = TimerLoop(
            timers, sessionmaker, self.cache, clock, self.catch_up, timer_interval
        )
        """Move deadlines, due sessions and due first deals (:mod:`~app.realtime.table_timers`)."""
        self.wakeups = CrossProcess(
            database_url,
            sessionmaker,
            self.channels,
            process_id=self.process_id,
            on_note=self.on_note,
            on_notify=self.on_notify,
            on_session_ended=self.session_ended,
            on_presence=self.presence_tracker.remote,
            catch_up=lambda table_id: self._spawn(self.catch_up(table_id)),
            poll_interval=poll_interval,
        )
        """LISTEN/NOTIFY and the safety poll between the processes over one database."""
        self._owned = (workers is None, committer is None)
        self.workers = workers if workers is not None else make_solver_pool()
        """The claim solver's process pool (started by the first claim). Made and stopped by
        the app's lifespan; a hub made without one (a test's) makes its own and stops it."""
        self.committer = committer if committer is not None else make_writer(sessionmaker)
        """The writer (:func:`make_writer`): the lifespan's, or the hub's own as above (which
        writes no move in advance: the guard of such moves is the use cases', handed in)."""
        self.command_stats = CommandStats()
        """Commands this process's sockets answered, and their latency (``/metrics``)."""

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        tune_gc()
        self._tasks = [
            asyncio.create_task(self.wakeups.listen(), name="hub-listen"),
            asyncio.create_task(self.wakeups.poll(), name="hub-poll"),
            asyncio.create_task(self.presence_tracker.loop(), name="hub-presence"),
            asyncio.create_task(self._heartbeat(), name="hub-heartbeat"),
            asyncio.create_task(self.timer_loop.run(), name="hub-timers"),
        ]

    async def stop(self) -> None:
        self._stopping = True
        self.presence_tracker.stopping = True
        self.wakeups.stopping = True
        for task in [*self._tasks, *self._pending]:
            task.cancel()
        for task in [*self._tasks, *self._pending]:
            with contextlib.suppress(BaseException):
                await task
        for channel in self.channels.values():
            for conn in list(channel.conns):
                conn.drop(1001, "server shutting down")
        owns_workers, owns_committer = self._owned
        if owns_workers:
            await self.workers.aclose()
        if owns_committer:
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
            self.presence_tracker.changed(channel, skip=conn)
            conn.send(self.presence_tracker.message(channel))
            if channel.state is not None and game.waits_for_first_deal(channel.state):
                self._spawn(self.timer_loop.deal_first(conn.table_id))
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
        self.presence_tracker.changed(channel)
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
            self.presence_tracker.changed(channel)

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

    def presence(self, table_id: int) -> tuple[list[int], int]:
        """Seats connected in any process, and the number of spectators."""
        return self.presence_tracker.of(table_id)
