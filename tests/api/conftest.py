"""Fixtures of the API tests: a frozen club clock, members of each role and logged-in clients."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member, Role
from app.security.login_sessions import CSRF_COOKIE, SESSION_COOKIE, open_session
from app.security.passwords import hash_password

PASSWORD = "correct horse battery"
_hash_cache: dict[str, str] = {}
_serial = itertools.count(1)

# Monday 30 November 2026, 12:00 Moscow time.
MONDAY_NOON = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

LoggedIn = Callable[..., Awaitable[tuple[httpx.AsyncClient, Member]]]


def password_hash() -> str:
    """One Argon2 hash per run keeps the tests fast."""
    if PASSWORD not in _hash_cache:
        _hash_cache[PASSWORD] = hash_password(PASSWORD)
    return _hash_cache[PASSWORD]


@pytest.fixture
def clock(app: FastAPI) -> FrozenClock:
    """The app's clock, frozen on a Monday at noon club time."""
    frozen = FrozenClock(MONDAY_NOON)
    app.state.clock = frozen
    return frozen


@pytest.fixture
def make_member(db_session: AsyncSession) -> Callable[..., Awaitable[Member]]:
    """Create a member (password ``PASSWORD``) directly in the database."""

    async def make(
        role: Role = Role.member,
        *,
        login: str | None = None,
        must_change_password: bool = False,
        name: str | None = None,
    ) -> Member:
        n = next(_serial)
        member = Member(
            login=login or f"user{n}",
            display_name=name or f"Player {n}",
            role=role,
            password_hash=password_hash(),
            must_change_password=must_change_password,
            active=True,
            is_bot=False,
        )
        db_session.add(member)
        await db_session.flush()
        return member

    return make


async def log_in(client: httpx.AsyncClient, login: str, password: str = PASSWORD) -> httpx.Response:
    """Log in and, on success, send the CSRF token with every later request of ``client``."""
    response = await client.post("/api/auth/login", json={"login": login, "password": password})
    if response.status_code == 200:
        client.headers["X-CSRF-Token"] = client.cookies[CSRF_COOKIE]
    return response


@pytest.fixture
async def logged_in(
    app: FastAPI,
    make_member: Callable[..., Awaitable[Member]],
    clock: FrozenClock,
    db_session: AsyncSession,
) -> AsyncIterator[LoggedIn]:
    """A factory of (client, member): a new member of ``role`` logged in on his own client."""
    clients: list[httpx.AsyncClient] = []

    async def make(role: Role = Role.member, **kwargs: object) -> tuple[httpx.AsyncClient, Member]:
        member = await make_member(role, **kwargs)
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000"
        )
        clients.append(client)
        # A session opened directly: the login itself (Argon2) is tested in test_auth.py.
        token, csrf = await open_session(db_session, member, clock.now(), 24)
        client.cookies.set(SESSION_COOKIE, token, domain="127.0.0.1")
        client.cookies.set(CSRF_COOKIE, csrf, domain="127.0.0.1")
        client.headers["X-CSRF-Token"] = csrf
        return client, member

    yield make
    for c in clients:
        await c.aclose()


# Monday 30 November 2026 in Moscow (UTC+3): 19:00 is 16:00 UTC, 22:15 is 19:15 UTC.
AT_1900 = datetime(2026, 11, 30, 16, 0, tzinfo=UTC)
AT_2215 = datetime(2026, 11, 30, 19, 15, tzinfo=UTC)


@pytest.fixture
def seeded(app: FastAPI) -> random.Random:
    """A seeded RNG for the server's draws (production uses SystemRandom)."""
    rng = random.Random(20261130)
    app.state.rng = rng
    return rng


@dataclass
class Evening:
    """Tonight's session with members present, their clients and the admin's client."""

    session_id: int
    admin: httpx.AsyncClient
    players: list[tuple[httpx.AsyncClient, Member]]


@pytest.fixture
def evening(
    logged_in: LoggedIn, clock: FrozenClock, seeded: random.Random
) -> Callable[[int], Awaitable[Evening]]:
    """Generate tonight's session and check ``n`` members in at 18:50."""

    async def make(n: int) -> Evening:
        admin, _ = await logged_in(Role.admin)
        sessions = (await admin.post("/api/sessions/generate", json={"weeks": 1})).json()
        clock.set(AT_1900 - timedelta(minutes=10))
        players = [await logged_in() for _ in range(n)]
        for c, _m in players:
            r = await c.post(f"/api/sessions/{sessions[0]['id']}/check-in")
            assert r.status_code == 200, r.text
        return Evening(sessions[0]["id"], admin, players)

    return make
