"""The processes over one database wake each other: ``LISTEN`` on a dedicated psycopg
connection for other processes' table events (``NOTIFY`` from the store), login sessions ended
(database triggers, migration 0008) and presence; after any reconnect every table is resynced,
and a periodic poll of the tables' versions catches a notification that was lost. What each
wake-up does is the hub's (its callbacks): this module only receives and routes them."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

import psycopg
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.realtime.presence import PRESENCE_CHANNEL
from app.realtime.store import NOTIFY_CHANNEL, Note, note_origin, parse_note

log = logging.getLogger(__name__)

SESSIONS_CHANNEL = "prefclub_sessions"
"""Sent by database triggers (migration 0008) when a login session ends: ``s:<session id>``, or
``m:<member id>`` when a member is deactivated. Every process closes the matching sockets."""
_VERSIONS = text("SELECT id, version FROM tables WHERE id = ANY(CAST(:ids AS integer[]))")
"""The poll's statement: the versions of every table this process serves."""


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL as a libpq connection string for a raw psycopg connection."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class CrossProcess:
    """One process's end of the wake-ups between processes (see the module docstring)."""

    def __init__(
        self,
        database_url: str,
        sessionmaker: async_sessionmaker[AsyncSession],
        channels: Mapping[int, Any],
        *,
        process_id: str,
        on_note: Callable[[Note], None],
        on_notify: Callable[[int, int], None],
        on_session_ended: Callable[..., int],
        on_presence: Callable[[int, str, list[int], int], None],
        catch_up: Callable[[int], None],
        poll_interval: float = 2.0,
    ) -> None:
        self.database_url = database_url
        self.sessionmaker = sessionmaker
        self.channels = channels
        """The tables this process serves (the hub's channels)."""
        self.process_id = process_id
        self.on_note = on_note
        self.on_notify = on_notify
        self.on_session_ended = on_session_ended
        self.on_presence = on_presence
        self.catch_up = catch_up
        """Resync one table (after a reconnect, when a notification may have been missed)."""
        self.poll_interval = poll_interval
        self.listening = asyncio.Event()
        """Set while the LISTEN connection is up."""
        self.stopping = False

    async def listen(self) -> None:
        """LISTEN for other processes' events; after any reconnect, resync every table."""
        while not self.stopping:
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
                        self.catch_up(table_id)
                    async for note in conn.notifies():
                        self.dispatch(note.channel, note.payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("table listener lost; reconnecting", exc_info=True)
            self.listening.clear()
            await asyncio.sleep(0.5)

    def dispatch(self, channel: str, payload: str) -> None:
        """Route one notification: another process's events, a login session ended, presence."""
        try:
            if channel == NOTIFY_CHANNEL:
                if note_origin(payload) != self.process_id:  # our own: published already
                    self.on_note(parse_note(payload))
            elif channel == SESSIONS_CHANNEL:
                scope, _, ident = payload.partition(":")
                if scope == "s":
                    self.on_session_ended(session_id=int(ident))
                elif scope == "m":
                    self.on_session_ended(member_id=int(ident))
            elif channel == PRESENCE_CHANNEL:
                data = json.loads(payload)
                if data["p"] != self.process_id:
                    self.on_presence(int(data["t"]), data["p"], list(data["s"]), int(data["n"]))
        except (ValueError, KeyError, TypeError):
            log.warning("bad notification", extra={"payload": payload})

    async def poll(self) -> None:
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
