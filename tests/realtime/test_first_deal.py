"""A club table deals its first deal by itself once its session is open and its seats are
filled (issue 11; R-S1: club tables deal from the session's start), exactly once however many
triggers fire at the same moment (the table row lock, ``app.services.first_deal``)."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import make_member
from app.db.engine import session_scope
from app.db.models.club import ClubSession
from app.db.models.table import Table, TableEvent
from app.realtime.store import StateCache, rebuild
from app.services.first_deal import deal_first, due_first_deals
from app.services.tables import create_table

BASE = datetime(2027, 3, 1, 16, 0, tzinfo=UTC)
_starts = itertools.count()


async def club_table(
    sessions: async_sessionmaker[AsyncSession], players: int = 3
) -> tuple[int, datetime]:
    """A club table seated ten minutes before its session starts (R-S1 refuses its deal)."""
    starts = BASE + timedelta(days=next(_starts))
    prefix = f"fd-{uuid.uuid4().hex[:8]}"
    async with session_scope(sessions) as db:
        session = ClubSession(
            starts_at=starts, ends_at=starts + timedelta(hours=3, minutes=15), extra=True
        )
        db.add(session)
        await db.flush()
        seats = [
            await make_member(
                db, f"{prefix}-{i}", f"Player {prefix} {i}", starts - timedelta(hours=1), bot=False
            )
            for i in range(players)
        ]
        table = await create_table(
            db,
            seat_member_ids=[s.member_id for s in seats],
            club_session_id=session.id,
            practice=False,
            now=starts - timedelta(minutes=10),
        )
        return table.id, starts


async def deals_started(sessions: async_sessionmaker[AsyncSession], table_id: int) -> int:
    async with sessions() as db:
        return int(
            await db.scalar(
                select(func.count())
                .select_from(TableEvent)
                .where(TableEvent.table_id == table_id, TableEvent.kind == "deal_started")
            )
            or 0
        )


async def test_r_s1_a_club_table_seated_early_waits_then_deals_once_at_the_start(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    table_id, starts = await club_table(sessions)
    async with sessions() as db:
        state = await rebuild(db, table_id)
        assert state is not None and state.status == "waiting" and state.deal_no == 0
        assert table_id not in await due_first_deals(db, starts - timedelta(seconds=1))
        assert table_id in await due_first_deals(db, starts)
    # Before the start nothing deals, however often asked.
    assert not await deal_first(sessions, None, table_id, starts - timedelta(seconds=1))
    assert await deals_started(sessions, table_id) == 0
    # 24 triggers at once (each its own transaction and connection; some with a process
    # cache, as a hub would call it): one deal.
    caches = [StateCache(owner=f"p{i}") for i in range(3)]
    results = await asyncio.gather(
        *(
            deal_first(
                sessions,
                caches[i % 3] if i % 2 else None,
                table_id,
                starts + timedelta(seconds=i % 4),
            )
            for i in range(24)
        )
    )
    assert sum(results) == 1
    assert await deals_started(sessions, table_id) == 1
    async with sessions() as db:
        state = await rebuild(db, table_id)
        assert table_id not in await due_first_deals(db, starts + timedelta(minutes=1))
    assert state is not None and state.status == "playing" and state.deal_no == 1
    assert state.deal is not None and state.deal.phase == "cut"
    # Asked again later: still the one deal.
    assert not await deal_first(sessions, None, table_id, starts + timedelta(minutes=5))
    assert await deals_started(sessions, table_id) == 1


async def test_a_finished_or_ended_session_table_is_not_dealt(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """R-S3: after the session's end (or once the table is closed) no first deal starts."""
    table_id, starts = await club_table(sessions)
    late = starts + timedelta(hours=3, minutes=16)
    async with sessions() as db:
        assert table_id not in await due_first_deals(db, late)
    assert not await deal_first(sessions, None, table_id, late)
    async with session_scope(sessions) as db:
        table = await db.get(Table, table_id)
        assert table is not None
        table.status = "finished"
    assert not await deal_first(sessions, None, table_id, starts + timedelta(minutes=1))
    assert await deals_started(sessions, table_id) == 0
