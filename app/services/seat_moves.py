"""Seat changes applied to a live table: a fourth player joins (R-T4) or a member replaces a
player (R-T5).

Both work like every other change of a live table (``app/services/live_table.py``): the
table row is locked, the state is read from the log, one event (``player_joined`` or
``player_replaced``) carrying the new seating and the pulka is appended, ``table_seats`` and the
derived rows follow in the same transaction and ``NOTIFY`` is queued. The caller commits (the
API session commits when the request ends); every process's hub then fans the event out and
looks every connection's seat up again.

Both are allowed only between deals: while a deal's cards are out (bidding or play) they raise
:class:`SeatMoveError` with code ``deal_in_progress``. A deal that was started but not cut yet
is not in progress: a join voids it (nobody has seen a card) and the newcomer deals the next
deal to four players; a replacement simply plays it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import DealStart
from app.db.models.member import Member
from app.db.models.table import Table, TableSeat
from app.realtime.game import TableState
from app.realtime.store import append, load_state, lock_table, notify
from app.rules import InvalidRecordError
from app.services.live_table import advance, sync_rows
from app.services.table_seats import TableSetupError, check_free_in_session, write_seats


class SeatMoveError(ValueError):
    """A seat change the live table refuses now; ``code`` says why (message readable)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


async def _locked_state(db: AsyncSession, table_id: int) -> tuple[Table, TableState]:
    table = await lock_table(db, table_id)
    if table is None:
        raise SeatMoveError("no_table", f"there is no table {table_id}")
    state = await load_state(db, table, None)
    if table.status == "finished" or state.status == "finished" or state.pulka.is_over:
        raise SeatMoveError("finished", "the pulka at this table has ended")
    if state.deal_in_progress:
        raise SeatMoveError(
            "deal_in_progress",
            f"deal {state.deal_no} is being played: seats change only between deals; "
            "try again when it has ended",
        )
    return table, state


async def _newcomer(db: AsyncSession, state: TableState, member_id: int) -> Member:
    member = await db.get(Member, member_id)
    if member is None or not member.active:
        raise SeatMoveError("bad_member", f"there is no active member {member_id}")
    if member_id in state.member_ids:
        raise SeatMoveError("bad_member", f"{member.display_name} already plays at this table")
    return member


async def _free_in_session(db: AsyncSession, table: Table, member_id: int) -> None:
    """A member plays at one club table per session: refuse a newcomer who holds a seat at
    another table of this table's session (before anything is written)."""
    try:
        await check_free_in_session(db, table.club_session_id, [member_id], except_table=table.id)
    except TableSetupError as exc:
        raise SeatMoveError(exc.code, str(exc)) from None


async def _write_seats(db: AsyncSession, table: Table, member_ids: tuple[int | None, ...]) -> None:
    """Rewrite the table's seat rows (a replaced member's row goes, so he holds no seat of the
    session any more). A newcomer who holds a seat at another club table of the session is
    refused (``seated_elsewhere``, checked first by :func:`_free_in_session`; a concurrent clash
    is caught by the unique index ``uq_table_seats_session_member``)."""
    await db.execute(delete(TableSeat).where(TableSeat.table_id == table.id))
    await db.flush()
    try:
        await write_seats(db, table, member_ids)
    except TableSetupError as exc:
        raise SeatMoveError(exc.code, str(exc)) from None
    table.players = len(member_ids)
    await db.flush()


async def _forget_void_deal_start(db: AsyncSession, table: Table) -> None:
    """The voided three-player deal never happened: drop its R-S2 deal-start count."""
    if table.practice or table.club_session_id is None:
        return
    last = await db.scalar(select(func.max(DealStart.id)).where(DealStart.table_id == table.id))
    if last is not None:
        await db.execute(delete(DealStart).where(DealStart.id == last))


async def join_fourth(
    db: AsyncSession, table_id: int, member_id: int, *, now: datetime
) -> dict[str, Any]:
    """Seat ``member_id`` as the fourth player of a three-player pulka (R-T4; every player has
    consented). He sits left of the player who has just dealt, so seats from his on move one
    up, writes the mean pool (rounded down) and hill (rounded up), and deals the next deal.

    Returns what was applied (seat, entries, seating); raises :class:`SeatMoveError`.
    """
    table, state = await _locked_state(db, table_id)
    if state.players != 3:
        raise SeatMoveError("not_three", "only a three-player pulka takes a fourth player (R-T4)")
    member = await _newcomer(db, state, member_id)
    await _free_in_session(db, table, member_id)
    just_dealt = (state.pulka.next_dealer - 1) % 3
    try:
        pulka, entries = state.pulka.join_fourth(just_dealt, member.display_name)
    except InvalidRecordError as exc:
        raise SeatMoveError("refused", str(exc)) from None
    seat = just_dealt + 1
    names = (*state.names[:seat], member.display_name, *state.names[seat:])
    member_ids = (*state.member_ids[:seat], member_id, *state.member_ids[seat:])
    voided = state.deal is not None and not state.scored
    payload = {
        "seat": seat,
        "member_id": member_id,
        "name": member.display_name,
        "after_dealer_seat": just_dealt,
        "players": 4,
        "names": list(names),
        "member_ids": list(member_ids),
        "entries": [e.to_json() for e in entries],
        "sheet": pulka.sheet.to_json(),
        "deal_no": pulka.deal_index,
        "voided_deal": voided,
        "pulka": pulka.to_json(),
    }
    before = state
    state = append(db, table, state, "player_joined", payload)
    if voided:
        await _forget_void_deal_start(db, table)
    await _write_seats(db, table, member_ids)
    state = await advance(db, table, state, now)
    await sync_rows(db, table, state, now, before)
    await notify(db, table.id, table.version)
    await db.flush()
    return {
        "event": "player_joined",
        "seat": seat,
        "after_dealer_seat": just_dealt,
        "dealer": seat,
        "entries": payload["entries"],
        "member_ids": list(member_ids),
        "names": list(names),
        "seq": table.version,
    }


async def replace_player(
    db: AsyncSession, table_id: int, seat: int, member_id: int, *, now: datetime
) -> dict[str, Any]:
    """``member_id`` takes over ``seat`` and inherits its sheet (R-T5; the others consented).

    The leaving member holds no seat afterwards (his open sockets watch as a spectator).
    Returns what was applied; raises :class:`SeatMoveError`.
    """
    table, state = await _locked_state(db, table_id)
    if not 0 <= seat < state.players:
        raise SeatMoveError("bad_seat", f"seat {seat} is not at this table")
    member = await _newcomer(db, state, member_id)
    await _free_in_session(db, table, member_id)
    try:
        pulka = state.pulka.replace_player(seat, member.display_name)
    except InvalidRecordError as exc:
        raise SeatMoveError("refused", str(exc)) from None
    leaving_id = state.member_ids[seat]
    names = (*state.names[:seat], member.display_name, *state.names[seat + 1 :])
    member_ids = (*state.member_ids[:seat], member_id, *state.member_ids[seat + 1 :])
    payload = {
        "seat": seat,
        "member_id": member_id,
        "name": member.display_name,
        "leaving_member_id": leaving_id,
        "leaving_name": state.names[seat],
        "names": list(names),
        "member_ids": list(member_ids),
        "pulka": pulka.to_json(),
    }
    before = state
    state = append(db, table, state, "player_replaced", payload)
    await _write_seats(db, table, member_ids)
    await sync_rows(db, table, state, now, before)
    await notify(db, table.id, table.version)
    await db.flush()
    return {
        "event": "player_replaced",
        "seat": seat,
        "leaving_member_id": leaving_id,
        "member_ids": list(member_ids),
        "names": list(names),
        "seq": table.version,
    }
