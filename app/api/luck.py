"""Luck apart from skill over HTTP (issue 27, docs/luck.md).

``GET /api/members/{id}/luck?season=<id>|all``  a member's card worth and losses to
                                                 double-dummy: totals, per pulka, per night
``GET /api/luck/progress``                      how many of the club's finished deals are weighed

Any logged-in member (401 otherwise); they only read. Refusals: 404 ``not_found`` (no such
member), 404 ``season_unknown``, 422 ``bad_season``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from app.api.deps import CurrentMember, SessionDep
from app.api.error_answers import service_errors
from app.api.schemas import ERRORS, IdPath
from app.api.seasons import parse_season
from app.db.models.member import Member
from app.services import deal_luck
from app.services import seasons as season_service
from app.services.service_errors import NotFoundError

router = APIRouter(prefix="/api", tags=["luck"], responses=ERRORS)


@router.get("/members/{member_id}/luck", response_class=JSONResponse)
async def member_luck(
    member_id: IdPath,
    member: CurrentMember,
    db: SessionDep,
    season: Annotated[str, Query(max_length=12, description="a season id, or `all`")] = "all",
) -> JSONResponse:
    """A member's luck and skill figures in whists (docs/luck.md) over a season or all-time:
    ``totals``, ``pulkas`` (newest first) and ``nights`` (for the plot), with ``progress``
    (how many of the club's finished deals are weighed yet, as read in the last 10 s)."""
    season_id = parse_season(season)
    with service_errors():
        if await db.get(Member, member_id) is None:
            raise NotFoundError(f"there is no member {member_id}")
        chosen = None if season_id is None else await season_service.get_season(db, season_id)
    first = None if chosen is None else chosen.first_day
    last = None if chosen is None else chosen.last_day
    figures = await deal_luck.member_luck(db, member_id, first, last)
    season_json = (
        None
        if chosen is None
        else {
            "id": chosen.id,
            "name": chosen.name,
            "first_day": chosen.first_day.isoformat(),
            "last_day": chosen.last_day.isoformat(),
        }
    )
    return JSONResponse(
        {
            "member_id": member_id,
            "season": season_json,
            **figures,
            "progress": await deal_luck.recent_progress(db),
        }
    )


@router.get("/luck/progress")
async def luck_progress(member: CurrentMember, db: SessionDep) -> dict[str, int]:
    """How far the weighing of the club's finished deals is (``deals``, ``weighed``)."""
    return await deal_luck.progress(db)
