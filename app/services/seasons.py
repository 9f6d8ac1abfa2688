"""The club's seasons (issue 27): named spans of club days, say September to May, which the
standings are cut by. An admin creates, renames or moves and deletes them; seasons never
overlap and a season ends on or after the day it starts. Refusals carry a stable code and
change nothing (``season_overlap``, ``season_days_order``, ``season_name_taken``,
``season_unknown``). Every change is audited as ``season.create``, ``season.update`` and
``season.delete``.

Standings are summed per night (:mod:`app.services.standings`), so a season defined or moved
after its nights were played shows them at once: nothing is recomputed here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.season import Season
from app.services import audit
from app.services.audit import SYSTEM, Actor
from app.services.service_errors import ConflictError, NotFoundError, ServiceError

LOCK = text("LOCK TABLE seasons IN SHARE ROW EXCLUSIVE MODE")
"""Two admins saving overlapping seasons at once: the second waits and then sees the first
(the exclusion constraint would refuse it anyway; this keeps the answer a clear 409)."""


@dataclass(frozen=True, slots=True)
class SeasonSpec:
    """What an admin gives for a season."""

    name: str
    first_day: date
    last_day: date


def snapshot(season: Season) -> dict[str, Any]:
    """The season as the audit log and the API show it."""
    return {
        "id": season.id,
        "name": season.name,
        "first_day": season.first_day,
        "last_day": season.last_day,
    }


async def list_seasons(db: AsyncSession) -> list[Season]:
    """Every season, the earliest first."""
    return list((await db.scalars(select(Season).order_by(Season.first_day))).all())


async def get_season(db: AsyncSession, season_id: int) -> Season:
    """One season, or ``season_unknown`` (404)."""
    season = await db.get(Season, season_id)
    if season is None:
        raise NotFoundError(
            f"there is no season {season_id}", code="season_unknown", params={"id": season_id}
        )
    return season


async def _check(db: AsyncSession, spec: SeasonSpec, own_id: int | None) -> None:
    """Refuse a season that ends before it starts, takes another's name or overlaps one."""
    name = spec.name.strip()
    if not name:
        raise ServiceError("a season needs a name", status=422, code="season_name_empty")
    if spec.last_day < spec.first_day:
        raise ServiceError(
            "a season ends on or after the day it starts",
            status=422,
            code="season_days_order",
            params={"first_day": spec.first_day.isoformat(), "last_day": spec.last_day.isoformat()},
        )
    await db.execute(LOCK)
    others = [s for s in await list_seasons(db) if s.id != own_id]
    for other in others:
        if other.name == name:
            raise ConflictError(
                f"there is a season named {name!r} already",
                code="season_name_taken",
                params={"name": name},
            )
        if other.first_day <= spec.last_day and spec.first_day <= other.last_day:
            raise ConflictError(
                f"the season would overlap {other.name!r} "
                f"({other.first_day.isoformat()} to {other.last_day.isoformat()})",
                code="season_overlap",
                params={
                    "name": other.name,
                    "first_day": other.first_day.isoformat(),
                    "last_day": other.last_day.isoformat(),
                },
            )


async def create_season(db: AsyncSession, spec: SeasonSpec, actor: Actor = SYSTEM) -> Season:
    """A new season (audited ``season.create``)."""
    await _check(db, spec, None)
    season = Season(name=spec.name.strip(), first_day=spec.first_day, last_day=spec.last_day)
    db.add(season)
    await db.flush()
    await audit.record(
        db,
        actor=actor,
        action="season.create",
        target=f"season:{season.id}",
        before=None,
        after=snapshot(season),
    )
    return season


async def update_season(
    db: AsyncSession, season_id: int, spec: SeasonSpec, actor: Actor = SYSTEM
) -> Season:
    """Rename or move a season (audited ``season.update``)."""
    season = await get_season(db, season_id)
    await _check(db, spec, season.id)
    before = snapshot(season)
    season.name, season.first_day, season.last_day = (
        spec.name.strip(),
        spec.first_day,
        spec.last_day,
    )
    await db.flush()
    await audit.record(
        db,
        actor=actor,
        action="season.update",
        target=f"season:{season.id}",
        before=before,
        after=snapshot(season),
    )
    return season


async def delete_season(db: AsyncSession, season_id: int, actor: Actor = SYSTEM) -> None:
    """Delete a season (audited ``season.delete``); its nights stay in the all-time standings."""
    season = await get_season(db, season_id)
    before = snapshot(season)
    await db.execute(delete(Season).where(Season.id == season_id))
    await audit.record(
        db,
        actor=actor,
        action="season.delete",
        target=f"season:{season_id}",
        before=before,
        after=None,
    )
