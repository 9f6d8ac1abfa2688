"""Opening tables and what needs the players' consent: seating a drawn table (R-T2, R-T3),
practice tables, the extension past 22:15 (R-S2), a fourth player (R-T4), a replacement (R-T5).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Query, Request, status
from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.api.club_sessions import DrawOut
from app.api.deps import AddressDep, AdminMember, ClockDep, CurrentMember, RngDep, SessionDep
from app.api.error_answers import service_errors
from app.api.schemas import ERRORS, Id, IdPath, Line
from app.api.tables import checked_bot_level
from app.bots.runner import start_house_bots
from app.db.models import SeatChange
from app.db.models.table import Table
from app.services import accounts, forming, schedule, seat_changes
from app.services.audit import Actor
from app.services.forming import Seated

router = APIRouter(prefix="/api", tags=["tables"], responses=ERRORS)


class SeatIn(BaseModel):
    """Seats by the players' choice (``seats``: member ids clockwise from seat 0) or by the
    seat draw (R-T2)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"mode": "draw", "target": 20},
                {"mode": "choice", "seats": [9, 7, 12], "target": 20},
                {"mode": "draw", "target": 20, "cards": "real"},
            ]
        }
    )

    mode: Literal["draw", "choice"] = "draw"
    seats: list[Id] | None = Field(default=None, min_length=3, max_length=5)
    target: int = Field(default=forming.DEFAULT_TARGET, ge=1, le=200)
    preset: Line = Field(default="club", max_length=40)
    """The conventions preset the table plays: ``club``, ``sochi``, ``leningrad``, ``rostov``,
    ``arabic`` (docs/rules-arabic.md) or ``classic`` (docs/rules-classic.md)."""
    cards: Literal["dealt", "real"] = "dealt"
    """``dealt``: the server deals; ``real``: the players play real cards and a seated player
    enters each deal (a recorded table, RULES.md §10, docs/club.md), with no move timer."""

    @model_validator(mode="after")
    def _seats_with_choice(self) -> SeatIn:
        if (self.mode == "choice") != (self.seats is not None):
            raise ValueError("give seats exactly when mode is 'choice'")
        return self


class SeatedOut(BaseModel):
    """The opened table: its seats, the seat draw (if drawn) and the first-dealer lot (R-T3)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "table_id": 11,
                    "seats": [9, 7, 12],
                    "seat_draw": {
                        "id": 2,
                        "kind": "seats",
                        "club_session_id": 3,
                        "table_id": 11,
                        "record": {
                            "rule": "R-T2",
                            "draws": [{"player": "7", "card": "9H"}],
                            "seats": ["9", "7", "12"],
                        },
                    },
                    "first_dealer": {
                        "id": 3,
                        "kind": "first_dealer",
                        "club_session_id": 3,
                        "table_id": 11,
                        "record": {
                            "rule": "R-T3",
                            "steps": [{"seat": 0, "card": "AS"}],
                            "dealer": 0,
                        },
                    },
                }
            ]
        }
    )

    table_id: int
    seats: list[int | None]
    seat_draw: DrawOut | None
    first_dealer: DrawOut


class PracticeIn(BaseModel):
    """A practice table: seats (3 or 4; house bots take every seat but the caller's) and the
    pulka's target."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"players": 3, "target": 10},
                {"players": 3, "target": 10, "move_timer_seconds": 60},
            ]
        }
    )

    players: Literal[3, 4] = 3
    target: int = Field(default=10, ge=1, le=200)
    bot_level: str = Field(default="beginner", max_length=40)
    """The house bots' strength: ``beginner``, ``club`` or ``strong`` (docs/bots.md)."""
    move_timer_seconds: int | None = Field(default=None, ge=1, le=3600)
    """Seconds per move, or ``null``: no move timer (the default). When time runs out the
    server makes the default move (``app/rules/deal/timeout.py``)."""
    preset: Line = Field(default="club", max_length=40)
    """The conventions preset: ``club``, …, ``arabic`` (docs/rules-arabic.md), ``classic``
    (docs/rules-classic.md)."""


class ExtensionIn(BaseModel):
    """Agree (or no longer agree) to play one more round after 22:15."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"agree": True}]})

    agree: bool = True


class ExtensionOut(BaseModel):
    """A table's extension (R-S2)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "table_id": 11,
                    "required": [7, 9, 12],
                    "agreed": [7, 9],
                    "extension_agreed": False,
                    "deals_after_end": 0,
                    "deals_remaining": None,
                    "may_start_deal": False,
                    "reason": "it is past 22:15: no new deal starts unless every player at the "
                    "table agreed to extend by one round (R-S2)",
                    "refused": False,
                    "ends_at": "2026-03-02T22:15:00+03:00",
                    "past_end": True,
                }
            ]
        }
    )

    table_id: int
    required: list[int]
    agreed: list[int]
    extension_agreed: bool
    deals_after_end: int
    deals_remaining: int | None
    may_start_deal: bool
    reason: str | None
    refused: bool = False
    """An admin refused the extension: the table ends at the session's end."""
    ends_at: datetime | None = None
    """The session's end, after which the extension is needed (an extra session's own)."""
    past_end: bool = False
    """The session's end has passed and the session is not closed: only then do the pages ask
    the players to extend (a table seated before the start waits without asking)."""


class JoinIn(BaseModel):
    """Join as the fourth player (an admin may name another member)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{}, {"member_id": 15}]})

    member_id: Id | None = None


class ReplaceIn(BaseModel):
    """A member takes over a seat and its sheet."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"seat": 1, "member_id": 15}]})

    seat: int = Field(ge=0, le=4)
    member_id: Id


class ConsentIn(BaseModel):
    """A player's answer to a seat change."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"agree": True}]})

    agree: bool


class SeatChangeOut(BaseModel):
    """A seat change and its consents. ``status``: pending, agreed (everyone agreed while a deal
    was being played: ``record.waiting`` says why; apply it after the deal), applied (the live
    table changed: ``record.applied``) or refused. A join's ``record`` holds the R-T4 pool and
    hill he writes."""

    model_config = ConfigDict(
        from_attributes=True,
        json_schema_extra={
            "examples": [
                {
                    "id": 5,
                    "table_id": 11,
                    "kind": "join",
                    "member_id": 15,
                    "seat": None,
                    "required": [7, 9, 12],
                    "consents": [7],
                    "status": "pending",
                    "record": {
                        "rule": "R-T4",
                        "pools": ["6", "8", "3"],
                        "hills": ["4", "0", "6"],
                        "pool": "5",
                        "hill": "4",
                        "seat": 2,
                        "after_dealer_seat": 1,
                    },
                    "applied_at": None,
                }
            ]
        },
    )

    id: int
    table_id: int
    kind: str
    member_id: int
    seat: int | None
    required: list[int]
    consents: list[int]
    status: str
    record: dict[str, Any] | None
    applied_at: datetime | None


def _seated(result: Seated) -> SeatedOut:
    return SeatedOut(
        table_id=result.table_id,
        seats=result.seats,
        seat_draw=DrawOut.model_validate(result.seat_record) if result.seat_record else None,
        first_dealer=DrawOut.model_validate(result.dealer_record),
    )


@router.post(
    "/drawn-tables/{drawn_id}/seat", response_model=SeatedOut, status_code=status.HTTP_201_CREATED
)
async def seat_drawn_table(
    drawn_id: IdPath,
    body: SeatIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    rng: RngDep,
) -> SeatedOut:
    """Seat a drawn table by choice or by the seat draw (R-T2); the server then draws the first
    dealer (R-T3) and opens the table. A player of that table or an admin may do it."""
    with service_errors():
        drawn = await forming.get_drawn_table(db, drawn_id)
        result = await forming.seat_drawn_table(
            db,
            drawn,
            by=member,
            now=clock.now(),
            rng=rng,
            order=body.seats,
            target=body.target,
            preset=body.preset,
            mode="recorded" if body.cards == "real" else "live",
        )
    return _seated(result)


@router.post("/practice-tables", response_model=SeatedOut, status_code=status.HTTP_201_CREATED)
async def practice_table(
    body: PracticeIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    rng: RngDep,
    request: Request,
) -> SeatedOut:
    """Any member, any time: a practice table with him in seat 0 and house bots in the other
    seats (the same service as ``POST /api/tables/practice``). It never counts toward
    attendance, club statistics or the fund."""
    bot_level = checked_bot_level(body.bot_level)
    with service_errors():
        opened = await forming.open_practice_table(
            db,
            member,
            players=body.players,
            target=body.target,
            rng=rng,
            now=clock.now(),
            move_timer_seconds=body.move_timer_seconds,
            preset=body.preset,
        )
    table = await db.get(Table, opened.seated.table_id)
    assert table is not None
    table.bot_level = bot_level
    await db.flush()
    out = _seated(opened.seated)
    await db.commit()  # the bots connect right away: the table must be visible to them
    start_house_bots(request.app, opened.seated.table_id, opened.bot_cookies, bot_level)
    return out


@router.get("/tables/{table_id}/draws", response_model=list[DrawOut])
async def table_draws(table_id: IdPath, member: CurrentMember, db: SessionDep) -> list[Any]:
    """The seat draw and the first-dealer lot of a table, step by step."""
    return await forming.draws_of_table(db, table_id)


@router.get("/tables/{table_id}/extension", response_model=ExtensionOut)
async def get_extension(
    table_id: IdPath, member: CurrentMember, db: SessionDep, clock: ClockDep
) -> Any:
    """Whether the table may start a deal now and where its extension stands (R-S2)."""
    with service_errors():
        return (await schedule.extension_state(db, table_id, clock.now())).to_json()


@router.post("/tables/{table_id}/extension", response_model=ExtensionOut)
async def set_extension(
    table_id: IdPath, body: ExtensionIn, member: CurrentMember, db: SessionDep, clock: ClockDep
) -> Any:
    """A player at the table agrees to play one more round after 22:15 (each player deals once
    more, counted from the first deal after 22:15); every player must agree (R-S2)."""
    with service_errors():
        return (
            await schedule.set_extension_consent(db, table_id, member, body.agree, clock.now())
        ).to_json()


@router.post("/tables/{table_id}/extension/refuse", response_model=ExtensionOut)
async def refuse_extension(
    table_id: IdPath, admin: AdminMember, db: SessionDep, clock: ClockDep, address: AddressDep
) -> Any:
    """Admin: refuse a club table's extension past 22:15; the players' consents are dropped and
    the table ends as a table without extension (R-S2). 409 ``not_a_club_table``,
    ``extension_already_refused``, ``extension_round_started`` (the round is played out)."""
    with service_errors():
        return (
            await schedule.refuse_extension(db, table_id, clock.now(), Actor.of(admin, address))
        ).to_json()


@router.post(
    "/tables/{table_id}/join", response_model=SeatChangeOut, status_code=status.HTTP_201_CREATED
)
async def join(
    table_id: IdPath, body: JoinIn, member: CurrentMember, db: SessionDep, clock: ClockDep
) -> SeatChange:
    """Ask to join a three-player pulka as the fourth player (R-T4, R-S4). Every player must
    agree; the newcomer writes the mean pool (rounded down) and hill (rounded up)."""
    with service_errors():
        newcomer = (
            member if body.member_id is None else await accounts.get_member(db, body.member_id)
        )
        return await seat_changes.request_join(db, table_id, newcomer, member, clock.now())


@router.post(
    "/tables/{table_id}/replace", response_model=SeatChangeOut, status_code=status.HTTP_201_CREATED
)
async def replace(
    table_id: IdPath, body: ReplaceIn, member: CurrentMember, db: SessionDep, clock: ClockDep
) -> SeatChange:
    """Ask for a member to take over a seat and its sheet; the other players must agree
    (R-T5)."""
    with service_errors():
        newcomer = await accounts.get_member(db, body.member_id)
        return await seat_changes.request_replace(
            db, table_id, body.seat, newcomer, member, clock.now()
        )


@router.get("/seat-changes", response_model=list[SeatChangeOut])
async def awaiting_me(
    member: CurrentMember,
    db: SessionDep,
    awaiting: Literal["me"] = Query(
        description="only ``me``: the requests awaiting the caller's consent"
    ),
) -> list[SeatChange]:
    """The seat changes (R-T4 joins, R-T5 replacements) still pending that wait for the
    caller's consent, oldest first; the lobby lists them with agree/refuse buttons
    (``POST /api/seat-changes/{id}/consent``)."""
    return await seat_changes.awaiting(db, member)


@router.post("/seat-changes/{change_id}/consent", response_model=SeatChangeOut)
async def consent(
    change_id: IdPath, body: ConsentIn, member: CurrentMember, db: SessionDep, clock: ClockDep
) -> SeatChange:
    """A player agrees to (or refuses) a seat change; it applies when everyone agreed."""
    with service_errors():
        change = await seat_changes.get_change(db, change_id)
        return await seat_changes.answer(db, change, member, body.agree, clock.now())


@router.post("/seat-changes/{change_id}/apply", response_model=SeatChangeOut)
async def apply_change(
    change_id: IdPath, member: CurrentMember, db: SessionDep, clock: ClockDep
) -> SeatChange:
    """Apply an ``agreed`` seat change that waited for the deal being played to end (seats
    change only between deals). A player, the newcomer, the requester or an admin may ask."""
    with service_errors():
        change = await seat_changes.get_change(db, change_id)
        return await seat_changes.apply_agreed(db, change, member, clock.now())
