"""``/api/seasons``: the club's seasons (issue 27) — every member reads them, an admin
creates, changes and deletes them (the admin page has the form) — and the standings,
``GET /api/standings?season=<id>|all``. Refusals: 404 ``season_unknown``, 409
``season_overlap`` / ``season_name_taken``, 422 ``season_days_order``; they change nothing."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import AddressDep, AdminMember, CurrentMember, SessionDep
from app.api.error_answers import CodedHTTPException, service_errors
from app.api.schemas import ERRORS, INT4_MAX, IdPath, Line
from app.db.models.season import Season
from app.services import seasons as season_service
from app.services import standings as standings_service
from app.services.audit import Actor

router = APIRouter(prefix="/api", tags=["seasons"], responses=ERRORS)

SEASON_EXAMPLE: dict[str, Any] = {
    "id": 1,
    "name": "2026/27",
    "first_day": "2026-09-01",
    "last_day": "2027-05-31",
}


class SeasonIn(BaseModel):
    """A season: its name and its first and last day (club dates, both included)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"name": "2026/27", "first_day": "2026-09-01", "last_day": "2027-05-31"}]
        }
    )

    name: Line = Field(min_length=1, max_length=100)
    first_day: date
    last_day: date

    def spec(self) -> season_service.SeasonSpec:
        """The service's value."""
        return season_service.SeasonSpec(self.name, self.first_day, self.last_day)


class SeasonOut(BaseModel):
    """A season as stored."""

    model_config = ConfigDict(json_schema_extra={"examples": [SEASON_EXAMPLE]})

    id: int
    name: str
    first_day: date
    last_day: date

    @classmethod
    def of(cls, season: Season) -> SeasonOut:
        """The answer for a stored season."""
        return cls(
            id=season.id, name=season.name, first_day=season.first_day, last_day=season.last_day
        )


class StandingsOut(BaseModel):
    """The standings of one season (``season`` ``null``: all-time), ranked by ``order``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "season": SEASON_EXAMPLE,
                    "min_pulkas": 5,
                    "order": "whists",
                    "lines": [
                        {
                            "member_id": 12,
                            "name": "Анна",
                            "rank": 1,
                            "qualified": True,
                            "pulkas": 9,
                            "nights": 8,
                            "deals": 212,
                            "whists": "340",
                            "money": "170.00",
                            "whists_per_pulka": "37.8",
                            "money_per_pulka": "18.89",
                            "rating": {"ordinal": 21.4, "mu": 29.1, "sigma": 2.57, "matches": 9},
                        }
                    ],
                }
            ]
        }
    )

    season: SeasonOut | None
    min_pulkas: int
    order: str
    lines: list[standings_service.Standing]
    """One line per member (``rank`` ``null`` below the minimum); sums and per-pulka figures
    are exact decimal strings (per pulka: money to the kopeck, whists to a tenth, rounded
    half-even; ``null`` with no pulka finished); ``rating`` is his OpenSkill Plackett-Luce
    rating (docs/rating.md): ``ordinal`` = ``mu - 3 sigma``, ``matches`` the pulkas rated."""


@router.get("/seasons", response_model=list[SeasonOut])
async def list_seasons(member: CurrentMember, db: SessionDep) -> list[SeasonOut]:
    """Every season, the earliest first (any member)."""
    return [SeasonOut.of(s) for s in await season_service.list_seasons(db)]


@router.post("/seasons", response_model=SeasonOut, status_code=201)
async def create_season(
    body: SeasonIn, admin: AdminMember, db: SessionDep, address: AddressDep
) -> SeasonOut:
    """A new season (admins; audited ``season.create``)."""
    with service_errors():
        season = await season_service.create_season(db, body.spec(), Actor.of(admin, address))
    return SeasonOut.of(season)


@router.put("/seasons/{season_id}", response_model=SeasonOut)
async def update_season(
    season_id: IdPath, body: SeasonIn, admin: AdminMember, db: SessionDep, address: AddressDep
) -> SeasonOut:
    """Rename or move a season (admins; audited ``season.update``)."""
    with service_errors():
        season = await season_service.update_season(
            db, season_id, body.spec(), Actor.of(admin, address)
        )
    return SeasonOut.of(season)


@router.delete("/seasons/{season_id}", status_code=204)
async def delete_season(
    season_id: IdPath, admin: AdminMember, db: SessionDep, address: AddressDep
) -> Response:
    """Delete a season (admins; audited ``season.delete``). Its nights stay all-time."""
    with service_errors():
        await season_service.delete_season(db, season_id, Actor.of(admin, address))
    return Response(status_code=204)


def parse_season(value: str) -> int | None:
    """``all`` (``None``) or a season id; anything else is 422 ``bad_season``."""
    if value == "all":
        return None
    if value.isdigit() and 1 <= int(value) <= INT4_MAX:
        return int(value)
    raise CodedHTTPException(422, "season is a season id or 'all'", "bad_season")


@router.get("/standings", response_model=StandingsOut)
async def read_standings(
    member: CurrentMember,
    db: SessionDep,
    season: Annotated[str, Query(max_length=12, description="a season id, or `all`")] = "all",
    order: Annotated[
        str, Query(max_length=12, description="whists | money | pulkas | nights | rating")
    ] = "whists",
) -> StandingsOut:
    """The standings of a season or all-time (any member): members ranked by whists or money
    per pulka, pulkas, nights present or rating, among those with the club's minimum of
    pulkas; the others follow, unranked."""
    if order not in standings_service.ORDERS:
        raise CodedHTTPException(
            422, f"order is one of {', '.join(standings_service.ORDERS)}", "bad_order"
        )
    season_id = parse_season(season)
    with service_errors():
        chosen = None if season_id is None else await season_service.get_season(db, season_id)
    board = await standings_service.standings(db, chosen, order)
    return StandingsOut(
        season=None if board.season is None else SeasonOut.of(board.season),
        min_pulkas=board.min_pulkas,
        order=board.order,
        lines=board.lines,
    )
