"""The timers of live tables: move deadlines that ran out, sessions past their end (R-S3) and
club tables whose first deal is due. The callbacks come from the composition root
(``app/main.py``), as ``realtime`` does not import ``services`` (DESIGN.md); :class:`TimerLoop`
is the hub's loop that calls them, in any process (each callback's row lock makes it once)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeAlias

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import Clock
from app.db.engine import session_scope
from app.db.models.table import Table
from app.realtime.store import StateCache

log = logging.getLogger(__name__)

FIRST_DEAL_TICKS = 2
"""The timer loop looks for club tables whose first deal is due every this many ticks
(and at once when it starts: a restarted process deals what came due while it was down)."""


class TableCall(Protocol):
    """Does one timed thing at one table, row-locked so any number of callers do it once;
    True if this call did it. Two callbacks have this shape: :data:`DeadlineFirer` and
    :data:`FirstDealer`."""

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


DeadlineFirer: TypeAlias = TableCall
"""Plays the default move at a table whose move deadline passed; True if it moved (the
services' command executor, ``TableCommands.fire_deadline``)."""
FirstDealer: TypeAlias = TableCall
"""Deals a club table's first deal if it is due; True if this call dealt it (the first-deal
service's ``deal_first``)."""


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


class TimerLoop:
    """Fires move deadlines, ends due sessions and deals due first deals, each tick; a table
    that moved is caught up (fanned out) by ``catch_up``."""

    def __init__(
        self,
        timers: TableTimers | None,
        sessionmaker: async_sessionmaker[AsyncSession],
        cache: StateCache,
        clock: Clock,
        catch_up: Callable[[int], Awaitable[None]],
        interval: float = 1.0,
    ) -> None:
        self.timers = timers
        """None: this process runs no timers."""
        self.sessionmaker = sessionmaker
        self.cache = cache
        self.clock = clock
        self.catch_up = catch_up
        self.interval = interval

    async def run(self) -> None:
        """Fire move deadlines that ran out (any process may; the row lock makes it once)."""
        timers = self.timers
        if timers is None:
            return
        ticks = 0
        while True:
            await asyncio.sleep(self.interval)
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
