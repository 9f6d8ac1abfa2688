"""Shared fixtures: a real PostgreSQL migrated once per run, a rolled-back session per test,
and an HTTP client bound to the app with that session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.api.app_state import app_state
from app.api.deps import get_session
from app.config import Settings
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from app.main import close_pools, create_app, make_bot_runner, make_pools
from tests.support.databases import TEST_DATA_DIR, server_url


@pytest.fixture(scope="session")
def database_url() -> str:
    """The migrated test database (migrations run once per test session)."""
    url = server_url()
    upgrade(url)
    return url


@pytest.fixture(scope="session")
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """One async engine for the whole run."""
    eng = make_engine(database_url)
    yield eng
    await eng.dispose()


@pytest.fixture
async def db_session(engine: AsyncEngine) -> AsyncIterator[AsyncSession]:
    """A session inside an outer transaction that is rolled back after the test.

    Commits inside the code under test only release savepoints, so nothing outlives the test.
    """
    async with engine.connect() as conn:
        outer = await conn.begin()
        session = AsyncSession(
            bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False
        )
        try:
            yield session
        finally:
            await session.close()
            await outer.rollback()


@pytest.fixture
def test_settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings of a test app: the test database, a throwaway data folder."""
    return Settings(
        DATABASE_URL=database_url,
        PREFCLUB_DATA_DIR=tmp_path,
        SECRET_KEY="test-secret-key-that-is-long-enough-for-signing",
        PREFCLUB_ENV="test",
    )


@pytest.fixture
async def app(test_settings: Settings, engine: AsyncEngine, db_session: AsyncSession):  # type: ignore[no-untyped-def]
    """The app with its lifespan state set up and every request using ``db_session``; the
    worker processes a test started are stopped after it."""
    application = create_app(test_settings)
    state = app_state(application)
    state.engine = engine
    state.sessionmaker = make_sessionmaker(engine)
    state.database_url = test_settings.database_url
    make_pools(state)  # what the lifespan would make (it is not run)
    state.bot_runner = make_bot_runner(state)

    async def _session() -> AsyncIterator[AsyncSession]:
        yield db_session
        await db_session.commit()

    application.dependency_overrides[get_session] = _session
    yield application
    await close_pools(state)


@pytest.fixture
async def client(app) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    """An HTTP client talking to the app in-process."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as c:
        yield c


__all__ = ["TEST_DATA_DIR"]
