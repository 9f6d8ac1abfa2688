"""Forming tables: the table draw (R-T1), seats by choice or by the seat draw (R-T2), the
first-dealer lot (R-T3), and practice tables.

Every draw is made by the server with the rules engine's draw functions and a supplied
``random.Random`` (``SystemRandom`` in production, a seeded one in tests); its full record is
stored in ``draws`` and returned so the players see every step.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Attendance, ClubSession, DrawnTable, DrawRecord, Member, Role
from app.db.models.table import Table, TableSeat
from app.rules import (
    PRESET_NAMES,
    SUIT_LETTERS,
    InvalidDrawError,
    draw_first_dealer,
    draw_seats,
    draw_tables,
    rule_set_of,
)
from app.services.club_settings import club_settings
from app.services.house_bots import bot_cookie, bot_members
from app.services.schedule import CHECK_IN_OPENS
from app.services.service_errors import ConflictError, ForbiddenError, NotFoundError, ServiceError
from app.services.tables import TableSetupError, create_table

MAX_TABLES = 4
DEFAULT_TARGET = 20


def table_sizes(n: int) -> list[int]:
    """R-T1: as few tables as possible, each of 3 or 4 players, sizes as even as possible;
    one table of 5 only when exactly five are present."""
    if n < 3:
        raise ConflictError(f"{n} member(s) present: a table needs at least three")
    if n == 5:
        return [5]
    k = math.ceil(n / 4)
    if k > MAX_TABLES:
        raise ConflictError(f"{n} members present: at most {4 * MAX_TABLES} (four suits)")
    base, extra = divmod(n, k)
    return [base + 1] * extra + [base] * (k - extra)


async def _lock_session(db: AsyncSession, session_id: int) -> ClubSession:
    """The session row, locked until the transaction ends (and re-read under the lock)."""
    row = await db.scalar(
        select(ClubSession)
        .where(ClubSession.id == session_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if row is None:
        raise NotFoundError(f"no session {session_id}")
    return row


async def _names(db: AsyncSession, ids: list[int]) -> dict[int, str]:
    rows = await db.scalars(select(Member).where(Member.id.in_(ids)))
    return {m.id: m.display_name for m in rows}


async def _seated_in_session(db: AsyncSession, session_id: int) -> set[int]:
    """Members already at a drawn table or a live table of the session."""
    drawn = (
        await db.scalars(
            select(DrawnTable.member_ids).where(DrawnTable.club_session_id == session_id)
        )
    ).all()
    ids = {m for group in drawn for m in group}
    live = (
        await db.scalars(
            select(TableSeat.member_id)
            .join(Table, Table.id == TableSeat.table_id)
            .where(Table.club_session_id == session_id, TableSeat.member_id.is_not(None))
        )
    ).all()
    return ids | {m for m in live if m is not None}


async def waiting_members(db: AsyncSession, session_id: int) -> list[int]:
    """Checked-in members not yet at a table, in order of arrival."""
    present = (
        await db.scalars(
            select(Attendance.member_id)
            .where(Attendance.club_session_id == session_id)
            .order_by(Attendance.checked_in_at, Attendance.id)
        )
    ).all()
    seated = await _seated_in_session(db, session_id)
    return [m for m in present if m not in seated]


@dataclass(frozen=True)
class TablesDrawn:
    """The table draw's record and the tables it formed."""

    draw: DrawRecord
    tables: list[DrawnTable]


async def draw_session_tables(
    db: AsyncSession,
    session: ClubSession,
    by: Member,
    now: datetime,
    rng: random.Random,
    sizes: list[int] | None = None,
) -> TablesDrawn:
    """R-T1: the members present draw suit cards; each suit is a table.

    A session draws its tables once: the session row is locked (``SELECT ... FOR UPDATE``) and
    an earlier ``tables`` draw is looked for under the lock, so of concurrent requests one
    draws and the others get a 409 ``tables_already_drawn``; the partial unique index
    ``uq_draws_session_tables`` backs this up. Latecomers join a three-player table as its
    fourth (R-S4, R-T4) rather than drawing again.
    """
    session = await _lock_session(db, session.id)
    if session.ended_at is not None or now >= session.ends_at:
        raise ConflictError("this session is over")
    if now < session.starts_at - CHECK_IN_OPENS:
        raise ConflictError("tables are drawn on the day of the session")
    if await db.scalar(
        select(DrawRecord.id)
        .where(DrawRecord.club_session_id == session.id, DrawRecord.kind == "tables")
        .limit(1)
    ):
        raise ConflictError(
            "the tables of this session are already drawn; a latecomer joins "
            "a three-player table as its fourth (R-S4, R-T4)",
            code="tables_already_drawn",
        )
    members = await waiting_members(db, session.id)
    if sizes is None:
        sizes = table_sizes(len(members))
    names = await _names(db, members)
    drawn = draw_tables([str(m) for m in members], sizes, rng)
    record: dict[str, Any] = {
        "rule": "R-T1",
        "members": [{"id": m, "name": names[m]} for m in members],
        "table_sizes": list(sizes),
        "suits": [SUIT_LETTERS[i] for i in range(len(sizes))],
        **drawn.to_json(),
    }
    row = DrawRecord(kind="tables", club_session_id=session.id, made_by_id=by.id, record=record)
    db.add(row)
    await db.flush()
    tables = []
    for suit, group in enumerate(drawn.tables):
        t = DrawnTable(
            club_session_id=session.id,
            draw_id=row.id,
            suit=suit,
            member_ids=[int(m) for m in group],
        )
        db.add(t)
        tables.append(t)
    await db.flush()
    return TablesDrawn(row, tables)


async def get_drawn_table(db: AsyncSession, drawn_id: int) -> DrawnTable:
    """A drawn table or a 404."""
    row = await db.get(DrawnTable, drawn_id)
    if row is None:
        raise NotFoundError(f"no drawn table {drawn_id}")
    return row


@dataclass(frozen=True)
class Seated:
    """A table seated and opened: the seat draw (or choice), the first-dealer lot, the table."""

    seats: list[int | None]
    seat_record: DrawRecord | None
    dealer_record: DrawRecord
    table_id: int


async def _open_table(
    db: AsyncSession,
    *,
    seats: list[int | None],
    practice: bool,
    session_id: int | None,
    target: int,
    by: Member,
    rng: random.Random,
    now: datetime,
    seat_record: DrawRecord | None,
    preset: str = "club",
    move_timer_seconds: int | None = None,
    drawn_dealer: tuple[int, dict[str, Any]] | None = None,
    mode: str = "live",
) -> Seated:
    """The first dealer — R-T3's lot, or ``drawn_dealer`` (the seat and its record) when the
    rule set's own seating named him (A-26) — then the live table."""
    if drawn_dealer is None:
        lot = draw_first_dealer(len(seats), rng)
        first, lot_record = lot.dealer, {"rule": "R-T3", **lot.to_json()}
    else:
        first, lot_record = drawn_dealer
    names = await _names(db, [m for m in seats if m is not None])
    dealer = DrawRecord(
        kind="first_dealer",
        club_session_id=session_id,
        made_by_id=by.id,
        record={
            "seats": [
                {"seat": i, "member_id": m, "name": names.get(m) if m else None}
                for i, m in enumerate(seats)
            ],
            **lot_record,
        },
    )
    db.add(dealer)
    try:
        table = await create_table(
            db,
            seat_member_ids=seats,
            preset=preset,
            practice=practice,
            club_session_id=session_id,
            target=target,
            first_dealer=first,
            now=now,
            move_timer_seconds=move_timer_seconds,
            mode=mode,
        )
    except TableSetupError as exc:
        if practice:  # the member's own settings (preset, timer): unprocessable
            raise ServiceError(str(exc), status=422, code=exc.code) from None
        raise ConflictError(str(exc), code=exc.code) from None
    dealer.table_id = table.id
    if seat_record is not None:
        seat_record.table_id = table.id
    await db.flush()
    return Seated(seats, seat_record, dealer, table.id)


async def seat_drawn_table(
    db: AsyncSession,
    drawn: DrawnTable,
    *,
    by: Member,
    now: datetime,
    rng: random.Random,
    order: list[int] | None,
    target: int = DEFAULT_TARGET,
    preset: str = "club",
    mode: str = "live",
) -> Seated:
    """Seat a drawn table: by the players' choice (``order``: member ids clockwise from seat 0)
    or by the seat draw (R-T2, when ``order`` is None); then the first-dealer lot (R-T3); then
    open the live table under the conventions ``preset`` (the table's choice; club by default),
    with the club's move timer (``club_settings``; off by default). ``mode="recorded"``: real
    cards, each deal entered by a seated player (RULES.md §10), never a move timer.

    The drawn table's row is locked and re-read first, so concurrent requests seat it once
    (the others get a 409 ``already_seated``)."""
    locked = await db.scalar(
        select(DrawnTable)
        .where(DrawnTable.id == drawn.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    assert locked is not None
    drawn = locked
    if preset not in PRESET_NAMES:  # the players' own choice: unprocessable, nothing changed
        raise ServiceError(
            f"unknown preset {preset!r}; known presets: {', '.join(PRESET_NAMES)}",
            status=422,
            code="bad_table_setup",
        )
    if drawn.table_id is not None:
        raise ConflictError("this table is already seated", code="already_seated")
    session = await db.get(ClubSession, drawn.club_session_id)
    assert session is not None
    if session.ended_at is not None or now >= session.ends_at:
        raise ConflictError("this session is over")
    if by.id not in drawn.member_ids and by.role != Role.admin:
        raise ForbiddenError("only the table's players or an admin may seat it")
    drawn_dealer: tuple[int, dict[str, Any]] | None = None
    if order is None:
        names = await _names(db, drawn.member_ids)
        players = [str(m) for m in drawn.member_ids]
        try:
            own = rule_set_of(preset).draw_seating(players, rng)  # A-26: 004's seating by aces
        except InvalidDrawError as exc:  # a table this preset does not seat: nothing changed
            raise ServiceError(str(exc), status=422, code="bad_table_setup") from None
        if own is None:
            sd = draw_seats(players, rng)
            seats: list[int | None] = [int(p) for p in sd.seats]
            drew: dict[str, Any] = {"rule": "R-T2", **sd.to_json()}
        else:
            seats = [int(p) for p in own.seats]
            drew = dict(own.seat_record)
            drawn_dealer = (own.dealer, dict(own.dealer_record))
        record: dict[str, Any] = {
            "suit": SUIT_LETTERS[drawn.suit],
            "names": {str(k): v for k, v in names.items()},
            **drew,
        }
        kind = "seats"
    else:
        if sorted(order) != sorted(drawn.member_ids):
            raise ServiceError("the seat order must list exactly the table's players", status=422)
        seats = list(order)
        record = {
            "rule": "R-T2",
            "suit": SUIT_LETTERS[drawn.suit],
            "chosen": True,
            "seats": [str(m) for m in order],
        }
        kind = "seat_choice"
    seat_row = DrawRecord(kind=kind, club_session_id=session.id, made_by_id=by.id, record=record)
    db.add(seat_row)
    await db.flush()
    timer = (await club_settings(db)).move_timer_seconds  # the club's setting (issue 11)
    result = await _open_table(
        db,
        seats=seats,
        practice=False,
        session_id=session.id,
        target=target,
        by=by,
        rng=rng,
        now=now,
        seat_record=seat_row,
        move_timer_seconds=timer if mode == "live" else None,
        preset=preset,
        drawn_dealer=drawn_dealer,
        mode=mode,
    )
    drawn.table_id = result.table_id
    await db.flush()
    return result


@dataclass(frozen=True)
class PracticeTable:
    """A practice table opened for a member: the seating (house bots in every other seat), the
    first-dealer lot, and the session cookies the house bots connect with."""

    seated: Seated
    bot_cookies: list[str]


async def open_practice_table(
    db: AsyncSession,
    member: Member,
    *,
    players: int,
    target: int,
    rng: random.Random,
    now: datetime,
    preset: str = "club",
    move_timer_seconds: int | None = None,
) -> PracticeTable:
    """Any member, any time: a practice table with him in seat 0 and the club's house bots
    (``bot-1``, ``bot-2``, …) in the other seats; the first dealer is drawn (R-T3).

    The one practice-table service (``POST /api/practice-tables`` and ``POST
    /api/tables/practice`` both call it). The table belongs to no session, so it never counts
    toward attendance, club statistics or the fund, and it may always deal. The caller commits
    and then starts the bots (:func:`app.bots.runner.start_house_bots`).
    """
    if players not in (3, 4):
        raise ServiceError("a practice table has 3 or 4 seats", status=422)
    bots = await bot_members(db, players - 1)
    seats: list[int | None] = [member.id, *(b.id for b in bots)]
    seated = await _open_table(
        db,
        seats=seats,
        practice=True,
        session_id=None,
        target=target,
        by=member,
        rng=rng,
        now=now,
        seat_record=None,
        preset=preset,
        move_timer_seconds=move_timer_seconds,
    )
    cookies = [await bot_cookie(db, b, now) for b in bots]
    return PracticeTable(seated, cookies)


async def draws_of_session(db: AsyncSession, session_id: int) -> list[DrawRecord]:
    """Every draw made in a session, in order."""
    rows = await db.scalars(
        select(DrawRecord).where(DrawRecord.club_session_id == session_id).order_by(DrawRecord.id)
    )
    return list(rows)


async def draws_of_table(db: AsyncSession, table_id: int) -> list[DrawRecord]:
    """The seat draw and first-dealer lot of a table."""
    rows = await db.scalars(
        select(DrawRecord).where(DrawRecord.table_id == table_id).order_by(DrawRecord.id)
    )
    return list(rows)
