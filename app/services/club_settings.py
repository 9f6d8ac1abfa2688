"""The club's settings (one row, :class:`app.db.models.ClubSettings`): read by every member,
changed by an admin. Today one setting: the move timer of club tables (issue 11), off by
default — RULES.md has no move timer, so a club night plays without one unless the club
chooses it. A change applies to club tables opened from then on (a running table keeps the
timer it was opened with; an admin changes that one with ``PATCH /api/tables/{id}/timer``).
Second, the finished club pulkas a member needs to be ranked in the standings (issue 27,
``min_pulkas``, 5 by default). Every change is audited as ``club.setting``."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.club import ClubSettings
from app.services import audit
from app.services.audit import SYSTEM, Actor
from app.services.service_errors import ServiceError

MAX_MOVE_TIMER = 3600
MAX_MIN_PULKAS = 1000
DEFAULT_MIN_PULKAS = 5


async def club_settings(db: AsyncSession) -> ClubSettings:
    """The club's settings (a default row, not added to the session, when none was saved)."""
    row = await db.scalar(select(ClubSettings).where(ClubSettings.id == 1))
    return (
        row
        if row is not None
        else ClubSettings(id=1, move_timer_seconds=None, min_pulkas=DEFAULT_MIN_PULKAS)
    )


async def set_move_timer(
    db: AsyncSession, seconds: int | None, now: datetime, actor: Actor = SYSTEM
) -> ClubSettings:
    """Set (seconds per move) or turn off (None) the club tables' move timer."""
    if seconds is not None and not 1 <= seconds <= MAX_MOVE_TIMER:
        raise ServiceError(
            f"the move timer is 1 to {MAX_MOVE_TIMER} seconds, or off",
            status=422,
            code="bad_move_timer",
        )
    return await _set(db, "move_timer_seconds", seconds, None, now, actor)


async def set_min_pulkas(
    db: AsyncSession, pulkas: int, now: datetime, actor: Actor = SYSTEM
) -> ClubSettings:
    """Set the finished club pulkas a member needs to be ranked in the standings (0…1000)."""
    if not 0 <= pulkas <= MAX_MIN_PULKAS:
        raise ServiceError(
            f"the minimum to qualify is 0 to {MAX_MIN_PULKAS} pulkas",
            status=422,
            code="bad_min_pulkas",
        )
    return await _set(db, "min_pulkas", pulkas, DEFAULT_MIN_PULKAS, now, actor)


async def _set(
    db: AsyncSession, name: str, value: int | None, default: int | None, now: datetime, actor: Actor
) -> ClubSettings:
    """Write one setting (audited ``club.setting`` with its old and new value)."""
    column = getattr(ClubSettings, name)
    old = await db.scalar(select(column).where(ClubSettings.id == 1).with_for_update())
    await audit.record(
        db,
        actor=actor,
        action="club.setting",
        target="club_settings:1",
        before={name: default if old is None else old},
        after={name: value},
    )
    await db.execute(
        insert(ClubSettings)
        .values(id=1, updated_at=now, **{name: value})
        .on_conflict_do_update(
            index_elements=[ClubSettings.id], set_={name: value, "updated_at": now}
        )
    )
    row = await db.scalar(
        select(ClubSettings).where(ClubSettings.id == 1).execution_options(populate_existing=True)
    )
    assert row is not None
    return row
