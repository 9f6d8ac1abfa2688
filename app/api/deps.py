"""Dependency aliases the routers share.

``SessionDep`` and ``SettingsDep`` give the database session and settings; ``ClockDep`` the
injectable clock; ``AddressDep`` the client's address (what the audit log records).
``CurrentMember`` is the logged-in member (401 otherwise); on a state-changing request it also
enforces the CSRF double submit (403). ``require_role(...)`` narrows to roles.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.app_state import app_state
from app.clock import Clock
from app.config import Settings
from app.db.engine import session_scope
from app.db.models import AuthSession, Member, Role
from app.security.addresses import client_address
from app.security.login_sessions import (
    CSRF_COOKIE,
    CSRF_HEADER,
    SESSION_COOKIE,
    csrf_matches,
    session_for_token,
)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """A session per request that commits when the handler returns and rolls back on error."""
    async with session_scope(request.app.state.sessionmaker) as session:
        yield session


# Every dependency is a coroutine: FastAPI runs a plain function in its thread pool, a thread
# hop (and a GIL hand-over) per request for what is an attribute read.


async def get_app_settings(request: Request) -> Settings:
    """The settings the app was created with."""
    settings: Settings = request.app.state.settings
    return settings


async def get_clock(request: Request) -> Clock:
    """The app's clock (frozen in tests)."""
    clock: Clock = request.app.state.clock
    return clock


async def get_address(request: Request) -> str:
    """The client's address (:func:`request_address`)."""
    return request_address(request)


def request_address(request: Request) -> str:
    """The client's address; forwarded headers count only from ``FORWARDED_ALLOW_IPS``
    (:mod:`app.security.addresses`)."""
    return client_address(
        request.client.host if request.client else None,
        request.headers,
        request.app.state.trusted_proxies,
    )


# "function" scope: commit before the response leaves, so a client that acts on the answer
# (e.g. right after login) always finds the committed rows.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
ClockDep = Annotated[Clock, Depends(get_clock)]
AddressDep = Annotated[str, Depends(get_address)]


@dataclass(frozen=True)
class Auth:
    """The logged-in member and his session row."""

    member: Member
    session: AuthSession


async def get_auth(request: Request, db: SessionDep, clock: ClockDep) -> Auth:
    """The request's session: 401 without a live one, 403 on a CSRF mismatch."""
    token = request.cookies.get(SESSION_COOKIE)
    row = await session_for_token(db, token or "", clock.now())
    if row is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "not logged in (or the session expired)")
    if request.method not in SAFE_METHODS and not csrf_matches(
        row, request.cookies.get(CSRF_COOKIE), request.headers.get(CSRF_HEADER)
    ):
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            f"CSRF check failed: send the {CSRF_COOKIE} cookie's value in the {CSRF_HEADER} header",
        )
    member = await db.get(Member, row.member_id)
    assert member is not None
    return Auth(member, row)


AuthDep = Annotated[Auth, Depends(get_auth)]


async def member_may_change_password(auth: AuthDep) -> Member:
    """The logged-in member, even one who still must change his one-time password."""
    return auth.member


async def current_member(auth: AuthDep) -> Member:
    """The logged-in member; one with ``must_change_password`` may only change the password."""
    if auth.member.must_change_password:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "you must change your one-time password first (POST /api/auth/password)",
        )
    return auth.member


AnyMember = Annotated[Member, Depends(member_may_change_password)]
CurrentMember = Annotated[Member, Depends(current_member)]


def require_role(*roles: Role) -> Callable[[Member], Awaitable[Member]]:
    """A dependency admitting only members with one of ``roles`` (403 otherwise)."""
    allowed = frozenset(roles)
    names = " or ".join(r.value for r in roles)

    async def dependency(member: CurrentMember) -> Member:
        if member.role not in allowed:
            raise HTTPException(status.HTTP_403_FORBIDDEN, f"this needs the {names} role")
        return member

    return dependency


AdminMember = Annotated[Member, Depends(require_role(Role.admin))]
TreasurerMember = Annotated[Member, Depends(require_role(Role.treasurer, Role.admin))]


async def get_rng(request: Request) -> random.Random:
    """The randomness of the server's draws: ``app.state.rng`` when a test set a seeded one,
    otherwise a cryptographic ``SystemRandom``."""
    rng = app_state(request.app).rng
    return rng if rng is not None else random.SystemRandom()


RngDep = Annotated[random.Random, Depends(get_rng)]
