"""The async engine and sessions.

Services own transactions: :func:`session_scope` yields a session that commits when the block
ends normally and rolls back on an exception. Repositories never commit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def make_engine(url: str) -> AsyncEngine:
    """An async engine for ``url`` (psycopg 3), with connection health checks; statement
    parameters (password hashes, token hashes) never appear in error messages or logs."""
    return create_async_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=20, hide_parameters=True
    )


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def session_scope(
    factory: async_sessionmaker[AsyncSession],
) -> AsyncIterator[AsyncSession]:
    """One unit of work: commit on success, roll back on any exception."""
    async with factory() as session:
        try:
            yield session
            await session.commit()
        except BaseException:
            await session.rollback()
            raise
