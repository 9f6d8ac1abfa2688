"""Who is connected to each table: this process's sockets, and the other processes' as they
announce them with ``NOTIFY`` every few seconds (expired when a process stops announcing). The
hub owns one :class:`Presence` and tells it when a socket joins or leaves."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Coroutine
from datetime import UTC
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import Clock
from app.realtime.connection import Connection, dumps
from app.realtime.table_messages import TableChannel

log = logging.getLogger(__name__)

PRESENCE_CHANNEL = "prefclub_presence"
SENDS_PER_TURN = 200
"""Periodic messages (heartbeats, presence) queued in one turn of the event loop before it
lets commands through: a thousand tables' worth at once stalled every table for ~0.1 s."""
_ANNOUNCE = text("SELECT pg_notify(:c, note) FROM unnest(CAST(:notes AS text[])) AS note")
"""Presence notes of many tables in one round trip."""


class Presence:
    """The seats and spectators connected to each table, here and in the other processes."""

    def __init__(
        self,
        channels: dict[int, TableChannel],
        process_id: str,
        sessionmaker: async_sessionmaker[AsyncSession],
        clock: Clock,
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        interval: float = 5.0,
    ) -> None:
        self.channels = channels
        """The hub's channels (the same dict: tables come and go there)."""
        self.process_id = process_id
        self.sessionmaker = sessionmaker
        self.clock = clock
        self.spawn = spawn
        self.interval = interval
        self.stopping = False
        self._remote: dict[int, dict[str, tuple[list[int], int, float]]] = {}

    def local(self, channel: TableChannel) -> tuple[list[int], int]:
        seats = sorted(
            {c.seat for c in channel.conns if c.seat is not None and not c.closed.is_set()}
        )
        watchers = sum(1 for c in channel.conns if c.seat is None and not c.closed.is_set())
        return seats, watchers

    def of(self, table_id: int) -> tuple[list[int], int]:
        """Seats connected in any process, and the number of spectators."""
        channel = self.channels.get(table_id)
        seats: set[int] = set()
        watchers = 0
        if channel is not None:
            local, watchers = self.local(channel)
            seats.update(local)
        now = time.monotonic()
        for remote_seats, remote_watchers, expires in self._remote.get(table_id, {}).values():
            if expires > now:
                seats.update(remote_seats)
                watchers += remote_watchers
        return sorted(seats), watchers

    def changed(self, channel: TableChannel, skip: Connection | None = None) -> None:
        self.send(channel, skip)
        seats, watchers = self.local(channel)
        self.spawn(self.announce([(channel.table_id, seats, watchers)]))

    def message(self, channel: TableChannel) -> dict[str, Any]:
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

    def send(self, channel: TableChannel, skip: Connection | None = None) -> None:
        current = self.of(channel.table_id)
        if current == channel.presence:
            return
        channel.presence = current
        message = dumps(self.message(channel))
        for conn in list(channel.conns):
            if conn is not skip:
                conn.send(message)

    def remote(self, table_id: int, process: str, seats: list[int], watchers: int) -> None:
        expires = time.monotonic() + 3 * self.interval
        self._remote.setdefault(table_id, {})[process] = (seats, watchers, expires)
        channel = self.channels.get(table_id)
        if channel is not None:
            self.send(channel)

    async def announce(self, items: list[tuple[int, list[int], int]]) -> None:
        if not items or self.stopping:
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

    async def loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            items = []
            for index, channel in enumerate(list(self.channels.values()), 1):
                seats, watchers = self.local(channel)
                items.append((channel.table_id, seats, watchers))
                self.send(channel)  # remote entries may have expired
                if index % SENDS_PER_TURN == 0:
                    await asyncio.sleep(0)
            await self.announce(items)
