"""Fixtures of the live-table service tests: a scratch database they may commit to."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.migrate import upgrade
from app.db.session import make_engine, make_sessionmaker
from tests.db_support import drop_database, scratch_database


@pytest.fixture(scope="module")
def live_db(database_url: str) -> Iterator[str]:
    url, name = scratch_database(database_url)
    upgrade(url)
    try:
        yield url
    finally:
        drop_database(database_url, name)


@pytest.fixture(scope="module")
async def sessions(live_db: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = make_engine(live_db)
    try:
        yield make_sessionmaker(engine)
    finally:
        await engine.dispose()
