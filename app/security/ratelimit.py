"""Login rate limiting, stored in the database so it holds across server processes.

Failed logins are counted per login name and per client address over a sliding window; once a
key reaches its limit, further attempts are refused (HTTP 429 with ``Retry-After``) until the
oldest counted failure leaves the window. A successful login clears its login name's failures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from app.db.models import LoginAttempt

WINDOW = timedelta(minutes=15)
PER_LOGIN = 5
PER_IP = 20


@dataclass(frozen=True)
class Limited:
    """A refused attempt: how long to wait and why."""

    retry_after: int
    reason: str


async def _blocked_until(
    db: AsyncSession, column: InstrumentedAttribute[str], value: str, limit: int, now: datetime
) -> datetime | None:
    rows = (
        await db.scalars(
            select(LoginAttempt.at)
            .where(column == value, LoginAttempt.success.is_(False),
                   LoginAttempt.at > now - WINDOW)
            .order_by(LoginAttempt.at.desc())
            .limit(limit)
        )
    ).all()
    if len(rows) < limit:
        return None
    return rows[-1] + WINDOW


async def check(db: AsyncSession, login: str, ip: str, now: datetime) -> Limited | None:
    """None when a login attempt may proceed; otherwise how long the caller must wait."""
    for column, value, limit, what in (
        (LoginAttempt.login, login, PER_LOGIN, "this login"),
        (LoginAttempt.ip, ip, PER_IP, "your address"),
    ):
        until = await _blocked_until(db, column, value, limit, now)
        if until is not None and until > now:
            wait = max(1, math.ceil((until - now).total_seconds()))
            return Limited(wait, f"too many failed logins for {what}; try again in {wait} s")
    return None


async def record_failure(db: AsyncSession, login: str, ip: str, now: datetime) -> None:
    """Count a failed attempt against both keys."""
    db.add(LoginAttempt(login=login[:64], ip=ip[:64], at=now, success=False))
    await db.flush()


async def record_success(db: AsyncSession, login: str, now: datetime) -> None:
    """Forget the login name's failures (and old rows of everyone)."""
    await db.execute(delete(LoginAttempt).where(LoginAttempt.login == login))
    await db.execute(delete(LoginAttempt).where(LoginAttempt.at < now - 2 * WINDOW))
