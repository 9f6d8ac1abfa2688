"""Creating and looking up live tables.

:func:`create_table` seats members (or leaves seats empty), opens the pulka and deals the first
deal (R-S2 permitting), all inside the caller's transaction. The club session service calls it
when tables are drawn; practice tables and ``prefclub selfplay`` call it directly.
Seat changes of a running pulka (R-T4 :func:`join_fourth`, R-T5 :func:`replace_player`) live in
:mod:`app.services.seat_moves` and are importable from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.member import Member
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableSeat
from app.realtime import game
from app.realtime.store import append, notify
from app.rules import TABLE_SIZES, Conventions, Pulka
from app.services.live_table import advance, sync_rows
from app.services.seat_moves import SeatMoveError, join_fourth, replace_player
from app.services.table_seats import (
    SEATED_ELSEWHERE,
    TableSetupError,
    check_free_in_session,
    write_seats,
)

__all__ = [
    "SEATED_ELSEWHERE",
    "SeatMoveError",
    "TableSetupError",
    "check_free_in_session",
    "create_table",
    "get_table",
    "join_fourth",
    "list_tables",
    "replace_player",
    "seat_names",
    "seat_of_member",
    "seats_of",
    "write_seats",
]


async def seat_names(db: AsyncSession, member_ids: Sequence[int | None]) -> list[str]:
    """Display names of the seated members (``Seat N`` for an empty seat)."""
    ids = [m for m in member_ids if m is not None]
    rows = {m.id: m for m in (await db.scalars(select(Member).where(Member.id.in_(ids)))).all()}
    names = []
    for seat, mid in enumerate(member_ids):
        if mid is None:
            names.append(f"Seat {seat + 1}")
        elif mid not in rows:
            raise TableSetupError(f"there is no member {mid}")
        else:
            names.append(rows[mid].display_name)
    return names


async def create_table(
    db: AsyncSession,
    *,
    seat_member_ids: list[int | None],
    preset: str = "club",
    practice: bool = False,
    club_session_id: int | None = None,
    target: int = 20,
    first_dealer: int = 0,
    stake: Decimal | str = Decimal("0.50"),
    overrides: Mapping[str, Any] | None = None,
    move_timer_seconds: int | None = None,
    now: datetime | None = None,
    mode: str = "live",
    scorer_member_id: int | None = None,
) -> Table:
    """Create a table with its seats and pulka and start the first deal; return the table.

    ``seat_member_ids`` lists the member in each seat clockwise (3 or 4 seats; ``None`` leaves a
    seat empty). ``first_dealer`` is the seat R-T3's lot chose. ``move_timer_seconds`` is off
    (``None``) by default for club tables. ``mode="recorded"`` opens a real-cards table (§10): no
    deal is dealt; a scorer enters each deal (:mod:`app.services.recording`). Nothing is
    committed here.
    """
    if mode not in ("live", "recorded"):
        raise TableSetupError("mode is live or recorded", "bad_table_mode")
    if scorer_member_id is not None and (
        mode != "recorded" or await db.get(Member, scorer_member_id) is None
    ):
        raise TableSetupError("the scorer is a member, at a recorded table only", "bad_scorer")
    players = len(seat_member_ids)
    if players not in TABLE_SIZES:
        raise TableSetupError("a table has 3, 4 or 5 seats (five only when five are present)")
    taken = [m for m in seat_member_ids if m is not None]
    if len(taken) != len(set(taken)):
        raise TableSetupError("a member can take only one seat at a table")
    if move_timer_seconds is not None and move_timer_seconds <= 0:
        raise TableSetupError("the move timer must be a positive number of seconds")
    try:
        conventions = Conventions.from_mapping({"preset": preset, **(overrides or {})})
    except ValueError as exc:
        raise TableSetupError(str(exc)) from None
    names = await seat_names(db, seat_member_ids)
    await check_free_in_session(db, club_session_id, seat_member_ids)
    try:
        pulka = Pulka.new(
            players,
            names=names,
            conventions=conventions,
            target=target,
            stake=stake,
            first_dealer=first_dealer,
        )
    except ValueError as exc:
        raise TableSetupError(str(exc)) from None
    table = Table(
        club_session_id=club_session_id,
        practice=practice,
        preset=conventions.preset,
        conventions=conventions.to_mapping(),
        target=target,
        stake=pulka.stake,
        players=players,
        first_dealer=first_dealer,
        version=0,
        status="playing",
        move_timer_seconds=move_timer_seconds,
        mode=mode,
        scorer_member_id=scorer_member_id,
    )
    db.add(table)
    await db.flush()
    await write_seats(db, table, seat_member_ids)
    db.add(
        PulkaRow(
            table_id=table.id,
            status="playing",
            deals=0,
            state=pulka.to_json(),
            sheet=pulka.sheet.to_json(),
        )
    )
    await db.flush()
    when = now or await _db_now(db)
    state = append(db, table, None, *game.pulka_started(pulka, names, seat_member_ids))
    if mode == "live":
        state = await advance(db, table, state, when)
    await sync_rows(db, table, state, when)
    await db.flush()
    await notify(db, table.id, table.version)
    return table


async def _db_now(db: AsyncSession) -> datetime:
    value = await db.scalar(select(func.now()))
    assert isinstance(value, datetime)
    return value


async def get_table(db: AsyncSession, table_id: int) -> Table | None:
    return await db.get(Table, table_id)


async def seats_of(db: AsyncSession, table_id: int) -> list[TableSeat]:
    rows = await db.scalars(
        select(TableSeat).where(TableSeat.table_id == table_id).order_by(TableSeat.seat)
    )
    return list(rows.all())


async def seat_of_member(db: AsyncSession, table_id: int, member_id: int) -> int | None:
    """The seat ``member_id`` holds at the table, or None (a spectator)."""
    value = await db.scalar(
        select(TableSeat.seat).where(
            TableSeat.table_id == table_id, TableSeat.member_id == member_id
        )
    )
    return None if value is None else int(value)


async def list_tables(
    db: AsyncSession, *, status: str | None = None, club_session_id: int | None = None
) -> list[Table]:
    query = select(Table).order_by(Table.id)
    if status is not None:
        query = query.where(Table.status == status)
    if club_session_id is not None:
        query = query.where(Table.club_session_id == club_session_id)
    return list((await db.scalars(query)).all())
