"""A club table deals its first deal by itself (issue 11): when its session is open and every
seat is filled, nobody has to press «next deal».

A club table seated before its session starts gets ``deal_refused`` (R-S1) and waits. From the
session's start on, any of several triggers may deal its first deal: the hub's timer loop
(every few seconds, :func:`due_first_deals` then :func:`deal_first`), a player's socket joining
the table, a server process starting and serving it. They may all fire at once, in several
processes; the table row lock and the state read under it make the deal happen exactly once
(the second caller finds the table dealing and does nothing).

Practice tables (and admin-made tables without a session) deal at creation, as before: the
deal gate never refuses them, so they never wait for a first deal.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from sqlalchemy import exists, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import session_scope
from app.db.models.club import ClubSession
from app.db.models.table import Table, TableEvent
from app.realtime import game
from app.realtime.game import waits_for_first_deal
from app.realtime.store import StateCache, append, load_state, lock_table, notify
from app.services.live_table import deal_refusal, record_deal_start, sync_rows

SWEEP_LIMIT = 50
"""Tables looked at per sweep (the next sweep takes the rest)."""


async def due_first_deals(db: AsyncSession, now: datetime) -> list[int]:
    """Club tables of a session open at ``now`` that have not dealt yet (one indexed query)."""
    dealt = exists().where(TableEvent.table_id == Table.id, TableEvent.kind == "deal_started")
    rows = await db.scalars(
        select(Table.id)
        .join(ClubSession, ClubSession.id == Table.club_session_id)
        .where(
            Table.status == "playing",
            Table.mode == "live",
            Table.practice.is_(False),
            ClubSession.ended_at.is_(None),
            ClubSession.starts_at <= now,
            ClubSession.ends_at > now,
            ~dealt,
        )
        .order_by(Table.id)
        .limit(SWEEP_LIMIT)
    )
    return list(rows.all())


async def deal_first(
    sessionmaker: async_sessionmaker[AsyncSession],
    cache: StateCache | None,
    table_id: int,
    now: datetime,
) -> bool:
    """Deal the table's first deal if it is due (session open, seats filled, not dealt yet);
    True if this call dealt it. Safe to call any number of times, from any process."""
    async with session_scope(sessionmaker) as db:
        table = await lock_table(db, table_id)
        if (
            table is None
            or table.status != "playing"
            or table.mode != "live"
            or table.club_session_id is None
        ):
            return False
        state = before = await load_state(db, table, cache)
        if not waits_for_first_deal(state) or await deal_refusal(db, table, now) is not None:
            return False
        state = dataclasses.replace(state, status="playing", notice=None)
        kind, payload = game.deal_started(state)
        await record_deal_start(db, table, payload["dealer"], now)
        state = append(db, table, state, kind, payload)
        state = await sync_rows(db, table, state, now, before)
        await notify(db, table_id, table.version)
    if cache is not None:
        cache.put(state)
    return True
