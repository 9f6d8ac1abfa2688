"""``/api/club/settings``: the club's settings — read by every member, changed by an admin
(the admin page has the form): the move timer of club tables (issue 11) and the minimum of
pulkas to qualify in the standings (issue 27, ``PUT /api/club/settings/min-pulkas``)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import AddressDep, AdminMember, ClockDep, CurrentMember, SessionDep
from app.api.error_answers import service_errors
from app.api.schemas import ERRORS
from app.db.models.club import ClubSettings
from app.services import club_settings as settings_service
from app.services.audit import Actor

router = APIRouter(prefix="/api/club", tags=["club"], responses=ERRORS)


class ClubSettingsOut(BaseModel):
    """The club's settings. ``move_timer_seconds``: seconds per move at club tables opened
    from now on, or ``null`` — no move timer (the default). When a player's time runs out the
    server makes the default move for him (``app/rules/deal/timeout.py``, docs/protocol.md)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"move_timer_seconds": None, "min_pulkas": 5},
                {"move_timer_seconds": 60, "min_pulkas": 10},
            ]
        }
    )

    move_timer_seconds: int | None
    min_pulkas: int
    """Finished club pulkas a member needs to be ranked in the standings (issue 27)."""

    @classmethod
    def of(cls, row: ClubSettings) -> ClubSettingsOut:
        """The answer for the stored (or default) settings."""
        return cls(move_timer_seconds=row.move_timer_seconds, min_pulkas=row.min_pulkas)


class ClubSettingsIn(BaseModel):
    """New settings (an admin): ``move_timer_seconds`` 1…3600, or ``null`` to turn it off."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"move_timer_seconds": 60}]})

    move_timer_seconds: int | None = Field(default=None, ge=1, le=settings_service.MAX_MOVE_TIMER)


@router.get("/settings", response_model=ClubSettingsOut)
async def read_settings(member: CurrentMember, db: SessionDep) -> ClubSettingsOut:
    """The club's settings (any member)."""
    row = await settings_service.club_settings(db)
    return ClubSettingsOut.of(row)


@router.put("/settings", response_model=ClubSettingsOut)
async def write_settings(
    body: ClubSettingsIn, admin: AdminMember, db: SessionDep, clock: ClockDep, address: AddressDep
) -> ClubSettingsOut:
    """Change the club's settings (admins). The move timer applies to club tables opened
    from then on."""
    with service_errors():
        row = await settings_service.set_move_timer(
            db, body.move_timer_seconds, clock.now(), Actor.of(admin, address)
        )
    return ClubSettingsOut.of(row)


class MinPulkasIn(BaseModel):
    """The minimum of finished club pulkas to be ranked in the standings (0…1000)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"min_pulkas": 10}]})

    min_pulkas: int = Field(ge=0, le=settings_service.MAX_MIN_PULKAS)


@router.put("/settings/min-pulkas", response_model=ClubSettingsOut)
async def write_min_pulkas(
    body: MinPulkasIn, admin: AdminMember, db: SessionDep, clock: ClockDep, address: AddressDep
) -> ClubSettingsOut:
    """Change the minimum of pulkas to qualify in the standings (admins; audited
    ``club.setting``)."""
    with service_errors():
        row = await settings_service.set_min_pulkas(
            db, body.min_pulkas, clock.now(), Actor.of(admin, address)
        )
    return ClubSettingsOut.of(row)
