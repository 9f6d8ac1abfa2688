"""``/api/club/settings``: the club's settings — read by every member, changed by an admin
(the admin page has the form). Today: the move timer of club tables (issue 11)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import AdminMember, ClockDep, CurrentMember, SessionDep
from app.api.errors import service_errors
from app.api.schemas import ERRORS
from app.services import club_settings as settings_service

router = APIRouter(prefix="/api/club", tags=["club"], responses=ERRORS)


class ClubSettingsOut(BaseModel):
    """The club's settings. ``move_timer_seconds``: seconds per move at club tables opened
    from now on, or ``null`` — no move timer (the default). When a player's time runs out the
    server makes the default move for him (``app/rules/timeout.py``, docs/protocol.md)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"move_timer_seconds": None},
                                                              {"move_timer_seconds": 60}]})

    move_timer_seconds: int | None


class ClubSettingsIn(BaseModel):
    """New settings (an admin): ``move_timer_seconds`` 1…3600, or ``null`` to turn it off."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"move_timer_seconds": 60}]})

    move_timer_seconds: int | None = Field(default=None, ge=1,
                                           le=settings_service.MAX_MOVE_TIMER)


@router.get("/settings", response_model=ClubSettingsOut)
async def read_settings(member: CurrentMember, db: SessionDep) -> ClubSettingsOut:
    """The club's settings (any member)."""
    row = await settings_service.club_settings(db)
    return ClubSettingsOut(move_timer_seconds=row.move_timer_seconds)


@router.put("/settings", response_model=ClubSettingsOut)
async def write_settings(body: ClubSettingsIn, admin: AdminMember, db: SessionDep,
                         clock: ClockDep) -> ClubSettingsOut:
    """Change the club's settings (admins). The move timer applies to club tables opened
    from then on."""
    with service_errors():
        row = await settings_service.set_move_timer(db, body.move_timer_seconds, clock.now())
    return ClubSettingsOut(move_timer_seconds=row.move_timer_seconds)
