"""Seat changes at a running pulka, each needing the players' consent: a fourth player joins a
three-player pulka (R-T4) or a member replaces a player (R-T5).

A request lists whose consent it needs; when the last of them agrees it is applied through the
live table (``app.services.seat_moves.join_fourth`` / ``replace_player``), so the table's event log
stays the truth, and the request becomes ``applied``. If a deal is being played at that moment
the request stays ``agreed``: the table applies it itself when that deal ends (``apply_waiting``,
in the transaction that writes ``deal_ended``), and ``apply_agreed`` applies it on request once
no deal is being played. One refusal ends it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Attendance, Member, Role, SeatChange
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableSeat
from app.rules import Pulka
from app.services.seat_moves import SeatMoveError, join_fourth, replace_player
from app.services.service_errors import ConflictError, ForbiddenError, NotFoundError, ServiceError
from app.services.table_seats import TableSetupError, check_free_in_session


def join_preview(pulka: Pulka, name: str | None = None) -> dict[str, Any]:
    """What the newcomer would write (R-T4): the mean of the players' pools rounded down and of
    their hills rounded up, and the seat he takes (left of the player who has just dealt)."""
    after = (pulka.next_dealer - 1) % pulka.players
    joined, entries = pulka.join_fourth(
        after_dealer_seat=after, name=name or ("new" if pulka.names else None)
    )
    values = {e.column: e.amount for e in entries}
    return {
        "rule": "R-T4",
        "pools": [str(p) for p in pulka.sheet.pool],
        "hills": [str(h) for h in pulka.sheet.hill],
        "pool": str(values["pool"]),
        "hill": str(values["hill"]),
        "seat": after + 1,
        "after_dealer_seat": after,
        "deals_next": joined.next_dealer == after + 1,
    }


async def _table(db: AsyncSession, table_id: int) -> Table:
    table = await db.get(Table, table_id)
    if table is None:
        raise NotFoundError(f"no table {table_id}")
    if table.status == "finished":
        raise ConflictError("the pulka at this table has ended")
    return table


async def _seated(db: AsyncSession, table_id: int) -> dict[int, int | None]:
    """Seat -> human member (None for an empty or bot seat)."""
    rows = await db.execute(
        select(TableSeat.seat, TableSeat.member_id, Member.is_bot)
        .outerjoin(Member, Member.id == TableSeat.member_id)
        .where(TableSeat.table_id == table_id)
        .order_by(TableSeat.seat)
    )
    return {seat: (mid if mid is not None and not bot else None) for seat, mid, bot in rows}


async def _pulka(db: AsyncSession, table_id: int) -> Pulka:
    row = await db.scalar(select(PulkaRow).where(PulkaRow.table_id == table_id))
    if row is None:
        raise NotFoundError(f"table {table_id} has no pulka")
    return Pulka.from_json(row.state)


async def _pending(db: AsyncSession, table_id: int) -> SeatChange | None:
    row: SeatChange | None = await db.scalar(
        select(SeatChange).where(
            SeatChange.table_id == table_id, SeatChange.status.in_(("pending", "agreed"))
        )
    )
    return row


async def _check_newcomer(
    db: AsyncSession, table: Table, newcomer: Member, seated: dict[int, int | None]
) -> None:
    if not newcomer.active or newcomer.is_bot:
        raise ConflictError("only an active member can take a seat")
    if newcomer.id in seated.values():
        raise ConflictError("he already plays at this table")
    if table.club_session_id is not None and not table.practice:
        present = await db.scalar(
            select(Attendance.id).where(
                Attendance.club_session_id == table.club_session_id,
                Attendance.member_id == newcomer.id,
            )
        )
        if present is None:
            raise ConflictError("he has not checked in to this session")
        try:  # one club table per member per session
            await check_free_in_session(
                db, table.club_session_id, [newcomer.id], except_table=table.id
            )
        except TableSetupError as exc:
            raise ConflictError(str(exc), code=exc.code) from None


def _consenting(humans: set[int], by: Member) -> list[int]:
    """Whose consent a seat change still needs: every human it concerns (the players at the
    table, the one who leaves, the one who comes in) but the one who asked, since asking is
    consenting. House bots are never in ``humans``: a bot does not consent for a human."""
    return sorted(humans - {by.id})


async def request_join(
    db: AsyncSession, table_id: int, newcomer: Member, by: Member, now: datetime
) -> SeatChange:
    """A member asks to join a three-player pulka as the fourth (R-T4, R-S4). Every player
    must agree, and so must the newcomer when an admin asked for him."""
    table = await _table(db, table_id)
    if by.id != newcomer.id and by.role != Role.admin:
        raise ForbiddenError("a member asks to join for himself (or an admin for him)")
    if table.players != 3:
        raise ConflictError("only a three-player pulka takes a fourth player (R-T4)")
    seated = await _seated(db, table_id)
    await _check_newcomer(db, table, newcomer, seated)
    if await _pending(db, table_id) is not None:
        raise ConflictError("another seat change at this table awaits consent")
    preview = join_preview(await _pulka(db, table_id), newcomer.display_name)
    required = _consenting({m for m in seated.values() if m is not None} | {newcomer.id}, by)
    row = SeatChange(
        table_id=table_id,
        kind="join",
        member_id=newcomer.id,
        seat=None,
        requested_by_id=by.id,
        required=required,
        consents=[],
        status="pending",
        record=preview,
    )
    db.add(row)
    await db.flush()
    return await _apply_if_agreed(db, row, now)


async def request_replace(
    db: AsyncSession, table_id: int, seat: int, newcomer: Member, by: Member, now: datetime
) -> SeatChange:
    """A member takes over ``seat`` and its sheet (R-T5): the other players, the human who
    leaves and the newcomer must all agree (the one who asked already has). So nobody takes
    over another member's (practice) table and nobody is seated without being asked."""
    table = await _table(db, table_id)
    seated = await _seated(db, table_id)
    if seat not in seated:
        raise ServiceError(f"seat {seat} is not at this table", status=422)
    leaving = seated[seat]
    if by.role != Role.admin and by.id not in (leaving, newcomer.id):
        raise ForbiddenError("the leaving player, the newcomer or an admin asks for this")
    await _check_newcomer(db, table, newcomer, seated)
    if await _pending(db, table_id) is not None:
        raise ConflictError("another seat change at this table awaits consent")
    # The players who stay, the one who leaves (a human) and the one who comes in.
    required = _consenting({m for m in seated.values() if m is not None} | {newcomer.id}, by)
    row = SeatChange(
        table_id=table_id,
        kind="replace",
        member_id=newcomer.id,
        seat=seat,
        requested_by_id=by.id,
        required=required,
        consents=[],
        status="pending",
        record={
            "rule": "R-T5",
            "seat": seat,
            "leaving_member_id": leaving,
            "member_id": newcomer.id,
        },
    )
    db.add(row)
    await db.flush()
    return await _apply_if_agreed(db, row, now)


async def get_change(db: AsyncSession, change_id: int) -> SeatChange:
    """A seat change or a 404."""
    row = await db.get(SeatChange, change_id)
    if row is None:
        raise NotFoundError(f"no seat change {change_id}")
    return row


async def awaiting(db: AsyncSession, member: Member) -> list[SeatChange]:
    """The seat changes still ``pending`` that ask ``member``'s consent and that he has not
    given yet (R-T4, R-T5), oldest first: what his lobby shows him to agree to or refuse."""
    rows = await db.scalars(
        select(SeatChange)
        .where(
            SeatChange.status == "pending",
            SeatChange.required.contains([member.id]),
            ~SeatChange.consents.contains([member.id]),
        )
        .order_by(SeatChange.id)
    )
    return list(rows)


async def answer(
    db: AsyncSession, change: SeatChange, member: Member, agree: bool, now: datetime
) -> SeatChange:
    """A player agrees or refuses; the change applies once everyone needed agreed."""
    if change.status != "pending":
        raise ConflictError(f"this request is already {change.status}")
    if member.id not in change.required:
        raise ForbiddenError("your consent is not asked for this change")
    if not agree:
        change.status = "refused"
        await db.flush()
        return change
    if member.id not in change.consents:
        change.consents = [*change.consents, member.id]
    await db.flush()
    return await _apply_if_agreed(db, change, now)


async def apply_agreed(
    db: AsyncSession, change: SeatChange, member: Member, now: datetime
) -> SeatChange:
    """Apply an ``agreed`` request now (it waited for the deal that was being played to end):
    one of the players asked, the newcomer, the requester or an admin."""
    if change.status != "agreed":
        raise ConflictError(f"this request is {change.status}, not agreed")
    allowed = {*change.required, change.member_id, change.requested_by_id}
    if member.id not in allowed and member.role != Role.admin:
        raise ForbiddenError("only the players, the newcomer or an admin apply a seat change")
    change = await _apply_if_agreed(db, change, now)
    if change.status != "applied":
        raise ConflictError(
            (change.record or {}).get("waiting") or "the seat change could not be applied"
        )
    return change


async def apply_waiting(db: AsyncSession, table_id: int, now: datetime) -> bool:
    """Apply the table's ``agreed`` seat change, if it has one, now that a deal has ended.

    The live table calls this with the table row locked, right after ``deal_ended``: it is the
    ``AfterDeal`` hook of :mod:`app.services.live_table`, handed to the command executor by the
    composition root (``app/main.py``). True if one was applied. If the table refuses it (say
    the newcomer was deactivated meanwhile) nothing is written: the request stays ``agreed``
    with the reason in ``record["waiting"]``."""
    change = await db.scalar(
        select(SeatChange)
        .where(SeatChange.table_id == table_id, SeatChange.status == "agreed")
        .order_by(SeatChange.id)
        .limit(1)
    )
    if change is None:
        return False
    try:
        async with db.begin_nested():  # a refusal leaves nothing half-written in the deal's
            change = await _apply_if_agreed(db, change, now)  # transaction
    except ConflictError as exc:
        change.record = {**(change.record or {}), "waiting": str(exc)}
        await db.flush()
        return False
    return change.status == "applied"


async def _apply_if_agreed(db: AsyncSession, change: SeatChange, now: datetime) -> SeatChange:
    """Once everyone needed agreed, change the live table (``app.services.seat_moves``).

    During a deal the table refuses (seats change only between deals): the request is kept as
    ``agreed`` with the reason in ``record["waiting"]`` and is applied when the deal ends
    (:func:`apply_waiting`) or by ``POST /api/seat-changes/{id}/apply`` between deals.
    Anything else the table refuses is a 409 and leaves nothing.
    """
    if set(change.required) - set(change.consents):
        return change
    try:
        if change.kind == "join":
            result = await join_fourth(db, change.table_id, change.member_id, now=now)
        else:
            assert change.seat is not None
            result = await replace_player(
                db, change.table_id, change.seat, change.member_id, now=now
            )
    except SeatMoveError as exc:
        if exc.code != "deal_in_progress":
            raise ConflictError(str(exc), code=exc.code) from None
        change.status = "agreed"
        change.record = {**(change.record or {}), "waiting": str(exc)}
        await db.flush()
        return change
    change.status = "applied"
    change.applied_at = now
    record = {k: v for k, v in (change.record or {}).items() if k != "waiting"}
    change.record = {**record, "applied": result}
    await db.flush()
    return change
