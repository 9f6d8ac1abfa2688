"""The club's calendar in tests that put sessions of their own around the present moment."""

from __future__ import annotations

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ClubSession


async def without_the_monday_sessions(db: AsyncSession) -> None:
    """Take the Monday sessions out of the club's calendar, which ``prefclub serve`` fills at
    its start (R-S1), so that a test's own session is the lobby's at any hour. On a Monday
    evening the club's own session is open too, and the lobby shows the one that started
    first: from 19:00 club time that is the Monday session, not a test's session opened a
    minute ago (a fault of these tests on Monday evenings only)."""
    await db.execute(delete(ClubSession).where(ClubSession.extra.is_(False)))
