"""An app on the real sessionmaker (one database session per request, committed data) for tests
that fire concurrent requests; the shared ``client`` fixture serialises them on one session."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import httpx
from fastapi import FastAPI
from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.db.engine import make_sessionmaker, session_scope
from app.db.models import AuthSession, LoginAttempt, Member, Role
from app.main import create_app
from tests.api.conftest import password_hash


@dataclass
class LiveApp:
    """The app and the members it was given (committed; removed again by :func:`live_app`)."""

    app: FastAPI
    logins: list[str]
    secret: str

    def client(self, address: str = "127.0.0.1") -> httpx.AsyncClient:
        """A client whose requests come from ``address``."""
        transport = httpx.ASGITransport(app=self.app, client=(address, 40000))
        return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000")


async def live_app(
    settings: Settings, engine: AsyncEngine, members: int = 1, hashes: Sequence[str] | None = None
) -> AsyncIterator[LiveApp]:
    """Yield an app with ``members`` committed members (password ``PASSWORD`` unless ``hashes``
    gives their hashes), then delete them and their login attempts."""
    app = create_app(settings)
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    app.state.database_url = settings.database_url
    tag = uuid.uuid4().hex[:8]
    logins = [f"live-{tag}-{i}" for i in range(members)]
    async with session_scope(app.state.sessionmaker) as db:
        for i, login in enumerate(logins):
            db.add(
                Member(
                    login=login,
                    display_name=login,
                    role=Role.member,
                    password_hash=hashes[i] if hashes else password_hash(),
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
            )
    secret = app.state.secret_key
    async with session_scope(app.state.sessionmaker) as db:
        first_attempt = int(
            await db.scalar(select(func.coalesce(func.max(LoginAttempt.id), 0))) or 0
        )
    try:
        yield LiveApp(app, logins, secret)
    finally:
        async with session_scope(app.state.sessionmaker) as db:
            ids = select(Member.id).where(Member.login.in_(logins)).scalar_subquery()
            await db.execute(delete(AuthSession).where(AuthSession.member_id.in_(ids)))
            await db.execute(delete(Member).where(Member.login.in_(logins)))
            await db.execute(delete(LoginAttempt).where(LoginAttempt.id > first_attempt))
