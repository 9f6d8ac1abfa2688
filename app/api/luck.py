"""Luck apart from skill over HTTP (issue 27, docs/luck.md).

``GET /api/members/{id}/luck?season=<id>|all``  a member's card worth and losses to
                                                 double-dummy: totals, per pulka, per night
``GET /api/luck/progress``                      how many of the club's finished deals are weighed

Any logged-in member (401 otherwise); they only read. Refusals: 404 ``not_found`` (no such
member), 404 ``season_unknown``, 422 ``bad_season``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from app.api.deps import CurrentMember, SessionDep
from app.api.error_answers import service_errors
from app.api.schemas import ERRORS, IdPath
from app.api.seasons import parse_season
from app.db.models.member import Member
from app.services import deal_luck
from app.services import seasons as season_service
from app.services.service_errors import NotFoundError

router = APIRouter(prefix="/api", tags=["luck"], responses=ERRORS)


@router.get("/members/{member_id}/luck")
async def member_luck(
    member_id: IdPath,
    member: CurrentMember,
    db: SessionDep,
    season: Annotated[str, Query(max_length=12, description="a season id, or `all`")] = "all",
) -> dict[str, Any]:
    """A member's luck and skill figures in whists (docs/luck.md) over a season or all-time:
    ``totals``, ``pulkas`` (newest first) and ``nights`` (for the plot), with ``progress``
    (how many of the club's finished deals are weighed yet)."""
    season_id = parse_season(season)
    with service_errors():
        if await db.get(Member, member_id) is None:
            raise NotFoundError(f"there is no member {member_id}")
        chosen = None if season_id is None else await season_service.get_season(db, season_id)
    first = None if chosen is None else chosen.first_day
    last = None if chosen is None else chosen.last_day
    figures = await deal_luck.member_luck(db, member_id, first, last)
    return {
        "member_id": member_id,
        "season": None if chosen is None else season_service.snapshot(chosen),
        **figures,
        "progress": await deal_luck.progress(db),
    }


@router.get("/luck/progress")
async def luck_progress(member: CurrentMember, db: SessionDep) -> dict[str, int]:
    """How far the weighing of the club's finished deals is (``deals``, ``weighed``)."""
    return await deal_luck.progress(db)
