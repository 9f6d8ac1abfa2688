"""Logout, deactivation, password change and reset end sessions in the database, and
``is_session_live`` (the per-command check of the websocket side) sees it at once."""

from __future__ import annotations

from datetime import timedelta

import httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import AuthSession, Role
from app.security.login_sessions import SESSION_COOKIE, is_session_live, open_session
from tests.api.conftest import PASSWORD, LoggedIn


async def _sessions(db: AsyncSession, member_id: int) -> list[AuthSession]:
    rows = await db.scalars(
        select(AuthSession)
        .where(AuthSession.member_id == member_id)
        .order_by(AuthSession.id)
        .execution_options(populate_existing=True)
    )
    return list(rows.all())


async def test_logout_revokes_the_session_row(
    logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    client, member = await logged_in()
    token = client.cookies[SESSION_COOKIE]
    (row,) = await _sessions(db_session, member.id)
    assert await is_session_live(db_session, row.id, clock.now())
    assert await is_session_live(db_session, token, clock.now())
    assert (await client.post("/api/auth/logout")).status_code == 200
    (row,) = await _sessions(db_session, member.id)
    assert row.revoked_at is not None
    assert not await is_session_live(db_session, row.id, clock.now())
    assert not await is_session_live(db_session, token, clock.now())


async def test_deactivation_revokes_every_session(
    logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    admin, _ = await logged_in(Role.admin)
    _, member = await logged_in()
    rows = await _sessions(db_session, member.id)
    assert (await admin.post(f"/api/members/{member.id}/deactivate")).status_code == 200
    rows = await _sessions(db_session, member.id)
    assert rows and all(r.revoked_at is not None for r in rows)
    assert not any([await is_session_live(db_session, r.id, clock.now()) for r in rows])


async def test_password_reset_revokes_every_session(
    logged_in: LoggedIn, client: httpx.AsyncClient, db_session: AsyncSession, clock: FrozenClock
) -> None:
    admin, _ = await logged_in(Role.admin)
    _, member = await logged_in()
    token = (await admin.post(f"/api/members/{member.id}/password-reset")).json()["token"]
    used = await client.post(
        "/api/auth/password-reset", json={"token": token, "new_password": "reset secret 1"}
    )
    assert used.status_code == 200
    rows = await _sessions(db_session, member.id)
    assert rows and all(r.revoked_at is not None for r in rows)
    assert not await is_session_live(db_session, rows[0].id, clock.now())


async def test_password_change_keeps_only_the_current_session(
    logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    client, member = await logged_in()
    await open_session(db_session, member, clock.now(), 24)  # another browser
    changed = await client.post(
        "/api/auth/password",
        json={"current_password": PASSWORD, "new_password": "a brand new secret"},
    )
    assert changed.status_code == 200
    current, other = await _sessions(db_session, member.id)
    assert await is_session_live(db_session, current.id, clock.now())
    assert not await is_session_live(db_session, other.id, clock.now())


async def test_an_expired_session_is_not_live(
    logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    _, member = await logged_in()
    (row,) = await _sessions(db_session, member.id)
    assert not await is_session_live(db_session, row.id, clock.now() + timedelta(days=2))
    assert not await is_session_live(db_session, "not-a-token", clock.now())
