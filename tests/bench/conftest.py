"""Fixtures of the benchmark tests: a scratch database, migrated, dropped afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.engine import make_engine
from tests.support.databases import drop_database, scratch_database


@pytest.fixture
async def scratch(database_url: str) -> AsyncIterator[AsyncEngine]:
    """A freshly migrated scratch database of its own (the benchmarks' generators commit)."""
    url, name = scratch_database(database_url, migrated=True)
    eng = make_engine(url)
    try:
        yield eng
    finally:
        await eng.dispose()
        drop_database(database_url, name)
