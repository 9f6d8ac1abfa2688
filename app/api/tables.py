"""``/api/tables``: create, list and look at live tables over HTTP (the play itself is on the
socket, docs/protocol.md)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, status
from pydantic import BaseModel, Field
from sqlalchemy import select

from app.api.app_state import app_state
from app.api.deps import AddressDep, ClockDep, CurrentMember, RngDep, SessionDep
from app.api.error_answers import CodedHTTPException, service_errors
from app.api.schemas import ERRORS, Id, IdPath, Line
from app.bots.levels import LEVELS
from app.bots.runner import start_house_bots
from app.db.models.member import Member, Role
from app.db.models.table import Table
from app.realtime import game
from app.realtime.store import lock_table, notify, rebuild
from app.rules import Pulka, export_document
from app.services import audit
from app.services.forming import open_practice_table
from app.services.live_table import sync_rows
from app.services.pulkas import close_pulka, pulka_of_table, pulka_summary
from app.services.tables import TableSetupError, create_table, list_tables, seat_of_member, seats_of

router = APIRouter(prefix="/api/tables", tags=["tables"], responses=ERRORS)


class TableIn(BaseModel):
    seats: list[Id | None] = Field(min_length=3, max_length=4)
    preset: Line = Field(default="club", max_length=40)
    practice: bool = True
    target: int = Field(default=20, ge=1, le=1000)
    first_dealer: int = Field(default=0, ge=0, le=3)
    stake: Decimal = Field(default=Decimal("0.50"), ge=0, max_digits=12, decimal_places=2)
    move_timer_seconds: int | None = Field(default=None, ge=1, le=3600)
    conventions: dict[str, Any] = Field(default_factory=dict)
    mode: Literal["live", "recorded"] = "live"
    """``recorded``: real cards, a scorer enters each deal (RULES.md §10, docs/club.md)."""
    scorer_member_id: int | None = None
    bot_level: str = Field(default="beginner", max_length=40)
    """The house bots' strength at a practice table: ``beginner``, ``club`` or ``strong``."""


class PracticeIn(BaseModel):
    players: int = Field(default=3, ge=3, le=4)
    preset: Line = Field(default="club", max_length=40)
    target: int = Field(default=20, ge=1, le=1000)
    move_timer_seconds: int | None = Field(default=None, ge=1, le=3600)
    bot_level: str = Field(default="beginner", max_length=40)
    """The house bots' strength: ``beginner``, ``club`` or ``strong`` (docs/bots.md)."""


def checked_bot_level(value: str) -> str:
    """``value`` if it names a bot level, else a 422 ``invalid_bot_level`` (nothing changed)."""
    if value not in LEVELS:
        raise CodedHTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            f"bot_level is one of {', '.join(LEVELS)}",
            "invalid_bot_level",
        )
    return value


class TimerIn(BaseModel):
    move_timer_seconds: int | None = Field(default=None, ge=1, le=3600)


class CloseIn(BaseModel):
    reason: Line = Field(default="agreement", max_length=40)


def _table_json(table: Table) -> dict[str, Any]:
    return {
        "id": table.id,
        "club_session_id": table.club_session_id,
        "practice": table.practice,
        "preset": table.preset,
        "players": table.players,
        "target": table.target,
        "stake": str(table.stake),
        "status": table.status,
        "seq": table.version,
        "move_timer_seconds": table.move_timer_seconds,
        "mode": table.mode,
        "bot_level": table.bot_level,
        "deadline_at": table.deadline_at.isoformat() if table.deadline_at else None,
        "created_at": table.created_at.isoformat() if table.created_at else None,
    }


@router.post("", status_code=status.HTTP_201_CREATED)
async def create(
    body: TableIn, member: CurrentMember, db: SessionDep, clock: ClockDep
) -> dict[str, Any]:
    """Create a table. Members may create practice tables they sit at, with house bots (or
    empty seats) beside them: a member is never seated without his consent. Admins any
    table."""
    bot_level = checked_bot_level(body.bot_level)
    if member.role != Role.admin:
        if not body.practice or member.id not in body.seats:
            raise CodedHTTPException(
                status.HTTP_403_FORBIDDEN,
                "members may only create practice tables they sit at",
                "forbidden",
            )
        others = {m for m in body.seats if m is not None and m != member.id}
        bots = set(
            (
                await db.scalars(
                    select(Member.id).where(Member.id.in_(others), Member.is_bot.is_(True))
                )
            ).all()
        )
        if others - bots:
            raise CodedHTTPException(
                status.HTTP_403_FORBIDDEN,
                "a member seats only himself and bots: another member takes a seat with his "
                "own consent (POST /api/tables/{id}/join or /replace)",
                "seat_needs_consent",
            )
    try:
        table = await create_table(
            db,
            seat_member_ids=body.seats,
            preset=body.preset,
            practice=body.practice,
            club_session_id=None,
            target=body.target,
            first_dealer=body.first_dealer,
            stake=body.stake,
            overrides=body.conventions,
            move_timer_seconds=body.move_timer_seconds,
            now=clock.now(),
            mode=body.mode,
            scorer_member_id=body.scorer_member_id,
        )
    except TableSetupError as exc:
        raise CodedHTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc), exc.code
        ) from None
    table.bot_level = bot_level
    await db.flush()
    return _table_json(table)


@router.post("/practice", status_code=status.HTTP_201_CREATED)
async def practice(
    body: PracticeIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    rng: RngDep,
    request: Request,
) -> dict[str, Any]:
    """A practice table for the caller (seat 0) with house bots in the other seats; the bots
    play through the public socket from this server process. The same service as
    ``POST /api/practice-tables`` (the first dealer is drawn, R-T3); it never counts toward
    attendance, club statistics or the fund."""
    bot_level = checked_bot_level(body.bot_level)
    with service_errors():
        opened = await open_practice_table(
            db,
            member,
            players=body.players,
            target=body.target,
            rng=rng,
            now=clock.now(),
            preset=body.preset,
            move_timer_seconds=body.move_timer_seconds,
        )
    table = await db.get(Table, opened.seated.table_id)
    assert table is not None
    table.bot_level = bot_level
    await db.flush()
    out = {**_table_json(table), "seats": opened.seated.seats, "first_dealer": table.first_dealer}
    await db.commit()  # the bots connect right away: the table must be visible to them
    start_house_bots(request.app, table.id, opened.bot_cookies, bot_level)
    return out


@router.get("")
async def index(
    member: CurrentMember,
    db: SessionDep,
    status_: Annotated[str | None, Query(alias="status")] = None,
) -> list[dict[str, Any]]:
    """Every table (optionally only ``playing`` or ``finished`` ones)."""
    return [_table_json(t) for t in await list_tables(db, status=status_)]


async def _table(db: SessionDep, table_id: int) -> Table:
    table = await db.get(Table, table_id)
    if table is None:
        raise CodedHTTPException(
            status.HTTP_404_NOT_FOUND, f"there is no table {table_id}", "not_found"
        )
    return table


@router.get("/{table_id}")
async def detail(
    table_id: IdPath, member: CurrentMember, db: SessionDep, request: Request
) -> dict[str, Any]:
    """The table, its seats, pulka summary and who is connected."""
    table = await _table(db, table_id)
    seats = await seats_of(db, table_id)
    hub = app_state(request.app).hub
    connected = hub.presence(table_id)[0] if hub is not None else []
    pulka = await pulka_of_table(db, table_id)
    return {
        **_table_json(table),
        "seats": [
            {"seat": s.seat, "member_id": s.member_id, "connected": s.seat in connected}
            for s in seats
        ],
        "pulka": pulka_summary(pulka) if pulka is not None else None,
    }


@router.get("/{table_id}/state")
async def state(table_id: IdPath, member: CurrentMember, db: SessionDep) -> dict[str, Any]:
    """The same snapshot the socket sends: the caller's seat's view (spectator if not seated)."""
    await _table(db, table_id)
    current = await rebuild(db, table_id)
    if current is None:
        raise CodedHTTPException(status.HTTP_404_NOT_FOUND, "the table has no events", "not_found")
    seat = await seat_of_member(db, table_id, member.id)
    return {
        "type": "snapshot",
        "seq": current.seq,
        "seat": seat,
        **game.seat_view(current, seat),
        "table": game.table_info(current),
    }


@router.get("/{table_id}/pulka")
async def pulka(table_id: IdPath, member: CurrentMember, db: SessionDep) -> dict[str, Any]:
    """The pulka: its sheet and, once finished, its settlement and ``pulka/1`` record."""
    await _table(db, table_id)
    row = await pulka_of_table(db, table_id)
    if row is None:
        raise CodedHTTPException(status.HTTP_404_NOT_FOUND, "the table has no pulka", "not_found")
    out = pulka_summary(row)
    out["record"] = row.record
    if row.record is None:
        out["record"] = export_document(Pulka.from_json(row.state))
    return out


@router.patch("/{table_id}/timer")
async def set_timer(
    table_id: IdPath,
    body: TimerIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    address: AddressDep,
) -> dict[str, Any]:
    """Turn the move timer on (seconds per move) or off (``null``): admins, or a seated player
    of a practice table. The next move's deadline follows the new setting."""
    table = await lock_table(db, table_id)
    if table is None:
        raise CodedHTTPException(
            status.HTTP_404_NOT_FOUND, f"there is no table {table_id}", "not_found"
        )
    seated = await seat_of_member(db, table_id, member.id) is not None
    if member.role != Role.admin and not (table.practice and seated):
        raise CodedHTTPException(
            status.HTTP_403_FORBIDDEN,
            "only admins (or players of a practice table) set the move timer",
            "forbidden",
        )
    if table.move_timer_seconds != body.move_timer_seconds:
        await audit.record(
            db,
            actor=audit.Actor.of(member, address),
            action="table.timer",
            target=f"table:{table_id}",
            before={"move_timer_seconds": table.move_timer_seconds},
            after={"move_timer_seconds": body.move_timer_seconds},
        )
    table.move_timer_seconds = body.move_timer_seconds
    current = await rebuild(db, table_id)
    if current is not None:
        await sync_rows(db, table, current, clock.now(), before=current)
    await notify(db, table_id, table.version)
    return _table_json(table)


@router.post("/{table_id}/close")
async def close(
    table_id: IdPath,
    body: CloseIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    address: AddressDep,
) -> dict[str, Any]:
    """End the pulka early (admins): ``agreement`` or ``session_end`` (R-P8, R-S3)."""
    if member.role != Role.admin:
        raise CodedHTTPException(
            status.HTTP_403_FORBIDDEN, "this needs the admin role", "forbidden"
        )
    await _table(db, table_id)
    try:
        row = await close_pulka(
            db, table_id, body.reason, clock.now(), audit.Actor.of(member, address)
        )
    except ValueError as exc:
        raise CodedHTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc), "bad_close"
        ) from None
    assert row is not None
    return pulka_summary(row)
