"""The seat rows of live tables: one club table per member per session (R-S4).

Shared by the use cases that seat members (:mod:`app.services.tables` when a table is created,
:mod:`app.services.seat_moves` when a seat changes, :mod:`app.services.seat_changes` before it
asks for consent), so none of them has to import another to reach it.
:mod:`app.services.tables` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.member import Member
from app.db.models.table import Table, TableSeat


class TableSetupError(ValueError):
    """Settings a table cannot be created with (message readable by the admin); ``code`` is a
    stable machine code."""

    def __init__(self, message: str, code: str = "bad_table_setup") -> None:
        super().__init__(message)
        self.code = code


SEATED_ELSEWHERE = "seated_elsewhere"
"""The code of "this member already holds a seat at another club table of the session"."""


async def check_free_in_session(
    db: AsyncSession,
    club_session_id: int | None,
    member_ids: Sequence[int | None],
    except_table: int | None = None,
) -> None:
    """Raise :class:`TableSetupError` (``seated_elsewhere``) if one of ``member_ids`` holds a
    seat at another club table of the session: a member plays at one club table per session.
    The unique index ``uq_table_seats_session_member`` enforces it; this gives the clear
    message first."""
    ids = [m for m in member_ids if m is not None]
    if club_session_id is None or not ids:
        return
    query = (
        select(TableSeat.table_id, Member.display_name)
        .join(Member, Member.id == TableSeat.member_id)
        .where(TableSeat.club_session_id == club_session_id, TableSeat.member_id.in_(ids))
    )
    if except_table is not None:
        query = query.where(TableSeat.table_id != except_table)
    clash = (await db.execute(query.limit(1))).first()
    if clash is not None:
        raise TableSetupError(
            f"{clash.display_name} already has a seat at table {clash.table_id} of this session",
            SEATED_ELSEWHERE,
        )


async def write_seats(db: AsyncSession, table: Table, member_ids: Sequence[int | None]) -> None:
    """Insert the table's seat rows (with its session, for the one-seat-per-session index) in a
    savepoint, so a concurrent clash surfaces as ``seated_elsewhere`` and not as a broken
    transaction."""
    try:
        async with db.begin_nested():
            for seat, mid in enumerate(member_ids):
                db.add(
                    TableSeat(
                        table_id=table.id,
                        seat=seat,
                        member_id=mid,
                        club_session_id=table.club_session_id,
                    )
                )
            await db.flush()
    except IntegrityError as exc:
        if "uq_table_seats_session_member" not in str(exc):
            raise
        raise TableSetupError(
            "a member of this table already has a seat at another table of this session",
            SEATED_ELSEWHERE,
        ) from None
