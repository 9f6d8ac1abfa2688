"""The luck rows are written at most once (issue 27, docs/luck.md): twenty weighings of one
finished deal at once, each in its own session and transaction — two servers' passes meeting,
many times over — write its three rows once; the primary key ``(table, deal, seat)`` and
``ON CONFLICT DO NOTHING`` decide, not the order they commit in."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import DealLuck, Member, Role
from app.services import deal_luck
from app.services.tables import create_table
from app.workers import WorkerPool
from tests.support.archive_play import play_deal
from tests.support.databases import migrated_database

RACERS = 20


@pytest.fixture
def race_db(database_url: str) -> Iterator[str]:
    """A migrated database of its own: the racers commit."""
    with migrated_database(database_url) as url:
        yield url


async def test_twenty_weighings_at_once_write_three_rows(race_db: str) -> None:
    engine = make_engine(race_db)
    sessions = make_sessionmaker(engine)
    pool = WorkerPool(max_workers=2, max_pending=RACERS + 2)
    try:
        async with session_scope(sessions) as db:
            members = [
                Member(login=f"race{i}", display_name=f"Race {i}", role=Role.member)
                for i in range(3)
            ]
            db.add_all(members)
            await db.flush()
            ids = [m.id for m in members]
            now = await db.scalar(select(func.now()))
            assert now is not None
            table = await create_table(
                db, seat_member_ids=ids, practice=False, target=20, first_dealer=0, now=now
            )
            assert await play_deal(db, table.id, ids, now) == 1
        async with sessions() as db:
            deal = (await deal_luck.pending(db))[0]

        async def weigh() -> int:
            async with sessions() as db:
                return await deal_luck.weigh(db, pool, deal)

        written = await asyncio.gather(*(weigh() for _ in range(RACERS)))
        assert sum(written) == 3 and sorted(written)[-1] == 3
        async with sessions() as db:
            rows = await db.scalar(select(func.count()).select_from(DealLuck))
            heads = await db.scalar(select(func.count()).select_from(DealLuck).where(DealLuck.head))
            assert rows == 3 and heads == 1
            assert await deal_luck.progress(db) == {"deals": 1, "weighed": 1}
    finally:
        await pool.aclose()
        await engine.dispose()
