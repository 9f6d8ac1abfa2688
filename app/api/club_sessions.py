"""Club sessions: the Monday calendar (R-S1), check-in and late notices (R-S4), the table draw
(R-T1), the session end (R-S3) and the attendance report."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from app.api.deps import (
    AddressDep,
    AdminMember,
    ClockDep,
    CurrentMember,
    RngDep,
    SessionDep,
    SettingsDep,
    TreasurerMember,
)
from app.api.error_answers import CodedHTTPException, service_errors
from app.api.schemas import ERRORS, IdPath, MemberOut, Text
from app.db.models import ClubSession, DrawnTable, DrawRecord, Role
from app.services import forming, schedule
from app.services.audit import Actor
from app.services.service_errors import ForbiddenError

router = APIRouter(prefix="/api", tags=["sessions"], responses=ERRORS)


class SessionOut(BaseModel):
    """A club session."""

    model_config = ConfigDict(
        from_attributes=True,
        json_schema_extra={
            "examples": [
                {
                    "id": 3,
                    "starts_at": "2026-11-30T16:00:00Z",
                    "ends_at": "2026-11-30T19:15:00Z",
                    "extra": False,
                    "ended_at": None,
                }
            ]
        },
    )

    id: int
    starts_at: datetime
    ends_at: datetime
    extra: bool
    ended_at: datetime | None


class GenerateIn(BaseModel):
    """How many weeks ahead to create the Monday sessions."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"weeks": 8}]})

    weeks: int = Field(default=schedule.DEFAULT_WEEKS, ge=1, le=52)


class ExtraIn(BaseModel):
    """An extra session (club local date and times)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"date": "2026-12-03", "start": "19:00", "end": "22:15"}]}
    )

    date: date
    start: time = schedule.SESSION_START
    end: time = schedule.SESSION_END


class AttendanceOut(BaseModel):
    """A member's check-in."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "member_id": 7,
                    "display_name": "Иван",
                    "checked_in_at": "2026-11-30T15:55:00Z",
                    "late": False,
                }
            ]
        }
    )

    member_id: int
    display_name: str
    checked_in_at: datetime
    late: bool


class LateNoticeIn(BaseModel):
    """Notice of being late, before 19:00 (R-S4)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"note": "буду к 20:00"}]})

    note: Text | None = Field(default=None, max_length=200)


class LateNoticeOut(BaseModel):
    """A notice of being late."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "member_id": 7,
                    "display_name": "Иван",
                    "given_at": "2026-11-30T12:00:00Z",
                    "note": "буду к 20:00",
                }
            ]
        }
    )

    member_id: int
    display_name: str
    given_at: datetime
    note: str | None


class DrawOut(BaseModel):
    """A draw the server made, with its full record."""

    model_config = ConfigDict(
        from_attributes=True,
        json_schema_extra={
            "examples": [
                {
                    "id": 1,
                    "kind": "tables",
                    "club_session_id": 3,
                    "table_id": None,
                    "record": {
                        "rule": "R-T1",
                        "table_sizes": [3, 3],
                        "suits": ["S", "C"],
                        "prepared": ["AS", "KS", "QS", "AC", "KC", "QC"],
                        "draws": [{"member": "7", "card": "KC"}],
                        "tables": [["7"], []],
                    },
                }
            ]
        },
    )

    id: int
    kind: str
    club_session_id: int | None
    table_id: int | None
    record: dict[str, Any]


class DrawnTableOut(BaseModel):
    """A table formed by the table draw; ``table_id`` once seated."""

    model_config = ConfigDict(
        from_attributes=True,
        json_schema_extra={
            "examples": [{"id": 4, "suit": 0, "member_ids": [7, 9, 12], "table_id": None}]
        },
    )

    id: int
    suit: int
    member_ids: list[int]
    table_id: int | None


class DrawTablesIn(BaseModel):
    """Optional table sizes; by default as few tables of 3 or 4 as possible (R-T1)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"table_sizes": None}, {"table_sizes": [4, 3]}]}
    )

    table_sizes: list[int] | None = Field(default=None, min_length=1, max_length=4)


class TablesDrawnOut(BaseModel):
    """The table draw and the tables it formed."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "draw": DrawOut.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
                    "tables": [{"id": 4, "suit": 0, "member_ids": [7, 9, 12], "table_id": None}],
                }
            ]
        }
    )

    draw: DrawOut
    tables: list[DrawnTableOut]


class SessionDetail(BaseModel):
    """A session with who is present, who will be late, the tables drawn and who waits."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "session": SessionOut.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
                    "attendance": [],
                    "late_notices": [],
                    "drawn_tables": [],
                    "waiting": [7, 9],
                }
            ]
        }
    )

    session: SessionOut
    attendance: list[AttendanceOut]
    late_notices: list[LateNoticeOut]
    drawn_tables: list[DrawnTableOut]
    waiting: list[int]


class EndOut(BaseModel):
    """The session end: the tables whose pulkas were closed and settled (R-S3)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "session": SessionOut.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
                    "closed_tables": [11, 12],
                }
            ]
        }
    )

    session: SessionOut
    closed_tables: list[int]


class AttendanceCount(BaseModel):
    """Sessions attended by a member in a period."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "member": MemberOut.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
                    "sessions": 6,
                }
            ]
        }
    )

    member: MemberOut
    sessions: int


async def _detail(db: SessionDep, row: ClubSession) -> SessionDetail:
    attendance = await schedule.attendance_of(db, row.id)
    notices = await schedule.late_notices_of(db, row.id)
    drawn = (
        await db.scalars(
            select(DrawnTable).where(DrawnTable.club_session_id == row.id).order_by(DrawnTable.id)
        )
    ).all()
    return SessionDetail(
        session=SessionOut.model_validate(row),
        attendance=[
            AttendanceOut(
                member_id=m.id,
                display_name=m.display_name,
                checked_in_at=a.checked_in_at,
                late=a.late,
            )
            for a, m in attendance
        ],
        late_notices=[
            LateNoticeOut(
                member_id=m.id, display_name=m.display_name, given_at=n.given_at, note=n.note
            )
            for n, m in notices
        ],
        drawn_tables=[DrawnTableOut.model_validate(t) for t in drawn],
        waiting=await forming.waiting_members(db, row.id),
    )


@router.get("/sessions", response_model=list[SessionOut])
async def list_sessions(member: CurrentMember, db: SessionDep, clock: ClockDep) -> list[Any]:
    """Sessions of the last four weeks and the coming year."""
    now = clock.now()
    return await schedule.list_sessions(db, now - timedelta(weeks=4), now + timedelta(days=366))


@router.post("/sessions/generate", response_model=list[SessionOut])
async def generate(
    body: GenerateIn,
    admin: AdminMember,
    db: SessionDep,
    clock: ClockDep,
    settings: SettingsDep,
    address: AddressDep,
) -> list[Any]:
    """Admin: create the Monday sessions (19:00-22:15 club time) of the coming weeks; running it
    again creates nothing twice (R-S1)."""
    with service_errors():
        return await schedule.generate_sessions(
            db, clock.now(), settings.zone, body.weeks, Actor.of(admin, address)
        )


@router.post("/sessions/extra", response_model=SessionOut, status_code=status.HTTP_201_CREATED)
async def add_extra(
    body: ExtraIn,
    admin: AdminMember,
    db: SessionDep,
    clock: ClockDep,
    settings: SettingsDep,
    address: AddressDep,
) -> Any:
    """Admin: an extra session, recorded as extra (R-S1)."""
    with service_errors():
        return await schedule.add_extra_session(
            db,
            day=body.date,
            start=body.start,
            end=body.end,
            zone=settings.zone,
            by=admin,
            now=clock.now(),
            actor=Actor.of(admin, address),
        )


@router.post("/sessions/{session_id}/cancel", status_code=status.HTTP_204_NO_CONTENT)
async def cancel(
    session_id: IdPath, admin: AdminMember, db: SessionDep, clock: ClockDep, address: AddressDep
) -> None:
    """Admin: cancel an extra session that has no table draw and no tables yet; it disappears
    from the lists with its check-ins and late notices (R-S1). 409 ``not_an_extra_session``
    for a Monday session, ``session_has_tables`` once the tables are drawn, ``session_over``
    after its end."""
    with service_errors():
        await schedule.cancel_extra_session(db, session_id, clock.now(), Actor.of(admin, address))


@router.get("/sessions/current", response_model=SessionDetail)
async def current(member: CurrentMember, db: SessionDep, clock: ClockDep) -> SessionDetail:
    """Today's session (running, or open for check-in), with its lobby."""
    row = await schedule.current_session(db, clock.now())
    if row is None:
        raise CodedHTTPException(404, "no session today", "no_session_today")
    return await _detail(db, row)


@router.get("/sessions/{session_id}", response_model=SessionDetail)
async def detail(session_id: IdPath, member: CurrentMember, db: SessionDep) -> SessionDetail:
    """A session's lobby: attendance, late notices, drawn tables, who waits for a table."""
    with service_errors():
        row = await schedule.get_session(db, session_id)
    return await _detail(db, row)


@router.post("/sessions/{session_id}/check-in", response_model=AttendanceOut)
async def check_in(
    session_id: IdPath,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    settings: SettingsDep,
) -> AttendanceOut:
    """Check in to the session (attendance). After 19:00 only with a notice of being late given
    before 19:00 (R-S4)."""
    with service_errors():
        row = await schedule.get_session(db, session_id)
        a = await schedule.check_in(db, row, member, clock.now(), zone=settings.zone)
    return AttendanceOut(
        member_id=member.id,
        display_name=member.display_name,
        checked_in_at=a.checked_in_at,
        late=a.late,
    )


@router.post(
    "/sessions/{session_id}/late-notice",
    response_model=LateNoticeOut,
    status_code=status.HTTP_201_CREATED,
)
async def late_notice(
    session_id: IdPath,
    body: LateNoticeIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    settings: SettingsDep,
) -> LateNoticeOut:
    """Give notice of being late; only before 19:00 of that session (R-S4)."""
    with service_errors():
        row = await schedule.get_session(db, session_id)
        n = await schedule.give_late_notice(
            db, row, member, clock.now(), body.note, zone=settings.zone
        )
    return LateNoticeOut(
        member_id=member.id, display_name=member.display_name, given_at=n.given_at, note=n.note
    )


@router.delete("/sessions/{session_id}/late-notice", status_code=status.HTTP_204_NO_CONTENT)
async def withdraw_notice(
    session_id: IdPath, member: CurrentMember, db: SessionDep, clock: ClockDep
) -> None:
    """Withdraw one's notice of being late (before 19:00)."""
    with service_errors():
        row = await schedule.get_session(db, session_id)
        await schedule.withdraw_late_notice(db, row, member, clock.now())


@router.post(
    "/sessions/{session_id}/draw-tables",
    response_model=TablesDrawnOut,
    status_code=status.HTTP_201_CREATED,
)
async def draw_tables(
    session_id: IdPath,
    body: DrawTablesIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    rng: RngDep,
) -> TablesDrawnOut:
    """The table draw (R-T1) among the members present: the server prepares one suit per table
    with as many cards as it has seats, each member draws one; the suit is the table. An admin
    or a member present may start it. A session draws once: a later (or concurrent) request
    answers 409 ``tables_already_drawn``; latecomers join as a fourth player (R-S4, R-T4)."""
    with service_errors():
        row = await schedule.get_session(db, session_id)
        if member.role != Role.admin and not await schedule.is_present(db, row.id, member.id):
            raise ForbiddenError("only an admin or a member present may draw the tables")
        drawn = await forming.draw_session_tables(
            db, row, member, clock.now(), rng, body.table_sizes
        )
    return TablesDrawnOut(
        draw=DrawOut.model_validate(drawn.draw),
        tables=[DrawnTableOut.model_validate(t) for t in drawn.tables],
    )


@router.get("/sessions/{session_id}/draws", response_model=list[DrawOut])
async def session_draws(session_id: IdPath, member: CurrentMember, db: SessionDep) -> list[Any]:
    """Every draw of the session with its full record."""
    with service_errors():
        await schedule.get_session(db, session_id)
    return await forming.draws_of_session(db, session_id)


@router.post("/sessions/{session_id}/end", response_model=EndOut)
async def end(
    session_id: IdPath, admin: AdminMember, db: SessionDep, clock: ClockDep, address: AddressDep
) -> EndOut:
    """Admin, after 22:15: end the session; every unfinished pulka is closed and settled as
    ended by agreement (R-S3, R-P9)."""
    with service_errors():
        row = await schedule.get_session(db, session_id)
        closed = await schedule.end_session(db, row, clock.now(), Actor.of(admin, address))
    return EndOut(session=SessionOut.model_validate(row), closed_tables=closed)


@router.get("/attendance", response_model=list[AttendanceCount], tags=["sessions"])
async def attendance_report(
    treasurer: TreasurerMember,
    db: SessionDep,
    clock: ClockDep,
    since: date | None = None,
    until: date | None = None,
) -> list[AttendanceCount]:
    """Treasurer or admin: sessions attended per member (the fund favours regular members)."""
    now = clock.now()
    start = (
        datetime.combine(since, time(0), tzinfo=now.tzinfo) if since else now - timedelta(days=365)
    )
    stop = datetime.combine(until, time(0), tzinfo=now.tzinfo) if until else now + timedelta(days=1)
    rows = await schedule.attendance_counts(db, start, stop)
    return [AttendanceCount(member=MemberOut.model_validate(m), sessions=c) for m, c in rows]


__all__ = ["DrawOut", "DrawRecord", "router"]
