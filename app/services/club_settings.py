"""The club's settings (one row, :class:`app.db.models.ClubSettings`): read by every member,
changed by an admin. Today one setting: the move timer of club tables (issue 11), off by
default — RULES.md has no move timer, so a club night plays without one unless the club
chooses it. A change applies to club tables opened from then on (a running table keeps the
timer it was opened with; an admin changes that one with ``PATCH /api/tables/{id}/timer``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.club import ClubSettings
from app.services.errors import ServiceError

MAX_MOVE_TIMER = 3600


async def club_settings(db: AsyncSession) -> ClubSettings:
    """The club's settings (a default row, not added to the session, when none was saved)."""
    row = await db.scalar(select(ClubSettings).where(ClubSettings.id == 1))
    return row if row is not None else ClubSettings(id=1, move_timer_seconds=None)


async def set_move_timer(db: AsyncSession, seconds: int | None, now: datetime) -> ClubSettings:
    """Set (seconds per move) or turn off (None) the club tables' move timer."""
    if seconds is not None and not 1 <= seconds <= MAX_MOVE_TIMER:
        raise ServiceError(f"the move timer is 1 to {MAX_MOVE_TIMER} seconds, or off",
                           status=422, code="bad_move_timer")
    await db.execute(insert(ClubSettings).values(id=1, move_timer_seconds=seconds,
                                                 updated_at=now)
                     .on_conflict_do_update(index_elements=[ClubSettings.id],
                                            set_={"move_timer_seconds": seconds,
                                                  "updated_at": now}))
    row = await db.scalar(select(ClubSettings).where(ClubSettings.id == 1)
                          .execution_options(populate_existing=True))
    assert row is not None
    return row
