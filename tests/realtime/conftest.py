"""Fixtures of the live-table service tests: a scratch database they may commit to, and
sessions whose connections trace their protocol messages (to count round trips)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import make_engine, make_sessionmaker
from tests.support.databases import migrated_database
from tests.support.wire import Wire


@pytest.fixture(scope="module")
def live_db(database_url: str) -> Iterator[str]:
    with migrated_database(database_url) as url:
        yield url


@pytest.fixture(scope="module")
async def sessions(live_db: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = make_engine(live_db)
    try:
        yield make_sessionmaker(engine)
    finally:
        await engine.dispose()


@pytest.fixture
async def traced(
    live_db: str, tmp_path: Path
) -> AsyncIterator[tuple[async_sessionmaker[AsyncSession], Wire]]:
    """Sessions on a fresh engine (the production pool settings) whose connections are traced."""
    wire = Wire(tmp_path / "wire.trace")
    engine = make_engine(live_db)
    event.listen(engine.sync_engine, "connect", wire.attach)
    try:
        yield make_sessionmaker(engine), wire
    finally:
        await engine.dispose()
        wire.close()
