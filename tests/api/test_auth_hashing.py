"""Argon2 runs off the event loop in a bounded pool: logins do not stall the server, and a full
pool answers 503 ``busy`` at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy.ext.asyncio import AsyncEngine

from app.clock import FrozenClock
from app.config import Settings
from app.db.models import Role
from app.security import passwords
from tests.api.conftest import PASSWORD, LoggedIn, log_in
from tests.support.live_app import LiveApp, live_app

LOGINS = 6


@pytest.fixture(scope="module")
def slow_hash() -> str:
    """A costlier hash than the default (~0.8 s on an idle machine), so a blocked loop cannot
    go unnoticed even when the machine is loaded."""
    return Argon2Hasher(time_cost=6).hash(PASSWORD)


@pytest.fixture
async def live(
    test_settings: Settings, engine: AsyncEngine, slow_hash: str
) -> AsyncIterator[LiveApp]:
    async for app in live_app(test_settings, engine, LOGINS, [slow_hash] * LOGINS):
        yield app


async def test_logins_do_not_block_the_event_loop(live: LiveApp, slow_hash: str) -> None:
    started = time.perf_counter()
    passwords.verify_password(PASSWORD, slow_hash)
    one_hash = time.perf_counter() - started
    gaps: list[float] = []
    done = asyncio.Event()

    async def ping() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    health: list[int] = []

    async def healthz(client: httpx.AsyncClient) -> None:
        while not done.is_set():
            health.append((await client.get("/healthz")).status_code)
            await asyncio.sleep(0.02)

    async with live.client("10.8.0.1") as client:
        pinger = asyncio.create_task(ping())
        checker = asyncio.create_task(healthz(client))
        responses = await asyncio.gather(
            *(
                client.post("/api/auth/login", json={"login": login, "password": PASSWORD})
                for login in live.logins
            )
        )
        done.set()
        await asyncio.gather(pinger, checker)
    assert [r.status_code for r in responses] == [200] * LOGINS
    assert health and set(health) == {200}
    # Six slow hashes ran, yet the loop never stalled for anything near one of them (on the
    # loop, each would stall it for a whole hash). Relative bound: the machine may be loaded.
    assert one_hash > 0.1  # slow enough that a stall on the loop would show
    assert max(gaps) < one_hash / 2, (max(gaps), one_hash)


async def test_a_full_hashing_pool_answers_busy(
    client: httpx.AsyncClient, make_member, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    member = await make_member()
    monkeypatch.setattr(passwords.POOL, "limit", 0)
    busy = await log_in(client, member.login)
    assert busy.status_code == 503
    assert busy.json()["code"] == "busy" and busy.headers["Retry-After"] == "1"
    # An unknown login is refused alike: the answer never tells whether a name exists.
    unknown = await log_in(client, "nobody-at-all", "whatever")
    assert unknown.status_code == 503
    # The refused attempts did not count as failures: the next one is not delayed.
    monkeypatch.setattr(passwords.POOL, "limit", 10)
    assert (await log_in(client, member.login)).status_code == 200


async def test_a_full_pool_refuses_member_creation_with_busy(
    logged_in: LoggedIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin, _ = await logged_in(Role.admin)
    monkeypatch.setattr(passwords.POOL, "limit", 0)
    response = await admin.post("/api/members", json={"login": "newbie", "display_name": "N"})
    assert response.status_code == 503 and response.json()["code"] == "busy"
