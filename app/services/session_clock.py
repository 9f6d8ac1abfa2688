"""The R-S2 deal gate of club tables: the 22:15 stop and its one-round extension.

Split from :mod:`app.services.schedule` so the live-table steps (:mod:`app.services.live_table`)
can ask "may a new deal start now?" through a plain downward import: this module needs only the
database models, never another use case. The gate is not an optional hook on purpose: every
caller that starts a deal (a command, a new table, a seat change) gets it, wired or not.
:mod:`app.services.schedule` re-exports these names.

* :func:`deal_start_refusal` — call before each new deal of a table; ``None`` means it may start.
* :func:`record_deal_started` — call when a club table's deal has started (counts the extension
  round, which is counted from the first deal after 22:15).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ClubSession, DealStart, ExtensionConsent, Member
from app.db.models.table import Table, TableSeat
from app.services import audit
from app.services.audit import SYSTEM, Actor
from app.services.service_errors import ConflictError, ForbiddenError, NotFoundError


@dataclass(frozen=True)
class TableClock:
    """What the schedule knows about one live table."""

    table_id: int
    practice: bool
    players: int
    session: ClubSession | None
    finished: bool
    seated: tuple[int, ...]
    """Human members seated (bots excluded): those whose consent an extension needs."""
    extension_refused: bool = False
    """An admin refused the extension (R-S2): the table ends without one."""


async def table_clock(db: AsyncSession, table_id: int) -> TableClock | None:
    """Read a live table's schedule-relevant facts (None if there is no such table)."""
    table = await db.get(Table, table_id)
    if table is None:
        return None
    seated = (
        await db.scalars(
            select(TableSeat.member_id)
            .join(Member, Member.id == TableSeat.member_id)
            .where(TableSeat.table_id == table_id, Member.is_bot.is_(False))
            .order_by(TableSeat.seat)
        )
    ).all()
    session = (
        await db.get(ClubSession, table.club_session_id)
        if table.club_session_id is not None
        else None
    )
    return TableClock(
        table_id,
        table.practice,
        table.players,
        session,
        table.status == "finished",
        tuple(m for m in seated if m is not None),
        table.extension_refused_at is not None,
    )


async def _consents(db: AsyncSession, table_id: int) -> set[int]:
    return set(
        (
            await db.scalars(
                select(ExtensionConsent.member_id).where(ExtensionConsent.table_id == table_id)
            )
        ).all()
    )


async def deals_started_since(db: AsyncSession, table_id: int, since: datetime) -> int:
    """Deals started at the table at or after ``since``."""
    return int(
        await db.scalar(
            select(func.count())
            .select_from(DealStart)
            .where(DealStart.table_id == table_id, DealStart.at >= since)
        )
        or 0
    )


def refusal(
    tc: TableClock, now: datetime, *, extension_agreed: bool, deals_after_end: int
) -> str | None:
    """The pure rule: None if a new deal may start at ``now``, else why not (R-S1, R-S2)."""
    if tc.finished:
        return "the pulka at this table has ended"
    if tc.practice:
        return None
    session = tc.session
    if session is None:
        return "a club table deals only during a club session (R-S1)"
    if session.ended_at is not None:
        return "the session has ended (R-S3)"
    if now < session.starts_at:
        return "the session has not started yet: club tables deal from 19:00 (R-S1)"
    if now < session.ends_at:
        return None
    if tc.extension_refused:
        return "the club refused this table's extension: no new deal starts after 22:15 (R-S2)"
    if not extension_agreed:
        return (
            "it is past 22:15: no new deal starts unless every player at the table agreed "
            "to extend by one round (R-S2)"
        )
    if deals_after_end >= tc.players:
        return "the extension round is over: every player has dealt once more (R-S2)"
    return None


async def refusal_at(db: AsyncSession, table_id: int, now: datetime) -> tuple[str | None, bool]:
    """The refusal and whether ``now`` is past the session's end (side-effect free; the session
    end of :mod:`app.services.schedule` asks this too)."""
    tc = await table_clock(db, table_id)
    if tc is None:
        return "there is no such table", False
    agreed = False
    after = 0
    late = tc.session is not None and not tc.practice and now >= tc.session.ends_at
    if tc.session is not None and now >= tc.session.ends_at:
        agreed = (
            bool(tc.seated)
            and not tc.extension_refused
            and set(tc.seated) <= await _consents(db, table_id)
        )
        after = await deals_started_since(db, table_id, tc.session.ends_at)
    return refusal(tc, now, extension_agreed=agreed, deals_after_end=after), late


async def deal_start_refusal(db: AsyncSession, table_id: int, now: datetime) -> str | None:
    """None when a new deal may start at the table now; otherwise a player-readable reason.

    Practice tables always may. Club tables deal from the session's start to its end (22:15);
    after that only with every seated player's consent, for one round: as many deals as there
    are players, counted from the first deal started after the end (R-S2).

    The caller starts the deal in the same transaction when the answer is None. After 22:15
    such an answer is itself counted as a deal start of the extension round (once per table and
    instant, so a later :func:`record_deal_started` for the same deal does not count twice).
    """
    reason, late = await refusal_at(db, table_id, now)
    if reason is None and late:
        await _count_start(db, table_id, None, now)
    return reason


async def _count_start(
    db: AsyncSession, table_id: int, dealer_seat: int | None, at: datetime
) -> None:
    row = await db.scalar(
        select(DealStart).where(DealStart.table_id == table_id, DealStart.at == at)
    )
    if row is None:
        db.add(
            DealStart(
                table_id=table_id, dealer_seat=-1 if dealer_seat is None else dealer_seat, at=at
            )
        )
    elif dealer_seat is not None:
        row.dealer_seat = dealer_seat
    await db.flush()


async def record_deal_started(
    db: AsyncSession, table_id: int, dealer_seat: int, at: datetime
) -> None:
    """Note that a deal started at a table (the live table calls this for every deal)."""
    await _count_start(db, table_id, dealer_seat, at)


@dataclass(frozen=True)
class ExtensionState:
    """A table's extension: who must agree, who did, and the round's progress."""

    table_id: int
    required: list[int]
    agreed: list[int]
    extension_agreed: bool
    deals_after_end: int
    deals_remaining: int | None
    may_start_deal: bool
    reason: str | None
    refused: bool = False
    """An admin refused the extension (R-S2): the table ends at the session's end."""
    ends_at: datetime | None = None
    """The session's end (22:15 on a Monday; an extra session's own end), which pages name."""
    past_end: bool = False
    """Whether the extension question stands in time: the session's end has passed and the
    session is not closed yet. Before the end a table that may not deal is simply waiting
    (e.g. seated before 19:00), and nobody is asked to extend it."""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


async def extension_state(db: AsyncSession, table_id: int, now: datetime) -> ExtensionState:
    """The extension consents and round of a table."""
    tc = await table_clock(db, table_id)
    if tc is None:
        raise NotFoundError(f"no table {table_id}")
    consents = await _consents(db, table_id)
    agreed = bool(tc.seated) and not tc.extension_refused and set(tc.seated) <= consents
    after = 0
    remaining: int | None = None
    if tc.session is not None:
        after = await deals_started_since(db, table_id, tc.session.ends_at)
        if agreed:
            remaining = max(0, tc.players - after)
    reason = refusal(tc, now, extension_agreed=agreed, deals_after_end=after)
    past_end = (
        tc.session is not None
        and not tc.practice
        and not tc.finished
        and tc.session.ended_at is None
        and now >= tc.session.ends_at
    )
    return ExtensionState(
        table_id,
        list(tc.seated),
        sorted(consents & set(tc.seated)),
        agreed,
        after,
        remaining,
        reason is None,
        reason,
        tc.extension_refused,
        tc.session.ends_at if tc.session is not None else None,
        past_end,
    )


async def set_extension_consent(
    db: AsyncSession, table_id: int, member: Member, agree: bool, now: datetime
) -> ExtensionState:
    """A seated player agrees (or no longer agrees) to extend his table by one round (R-S2)."""
    tc = await table_clock(db, table_id)
    if tc is None:
        raise NotFoundError(f"no table {table_id}")
    if tc.practice or tc.session is None:
        raise ConflictError("only club tables of a session stop at 22:15; nothing to extend")
    if member.id not in tc.seated:
        raise ForbiddenError("only the players at this table may agree to extend it")
    if tc.finished or tc.session.ended_at is not None:
        raise ConflictError("the pulka at this table has ended")
    if agree and tc.extension_refused:
        raise ConflictError(
            "an admin refused this table's extension: it ends at the session's end (R-S2)",
            code="extension_refused",
        )
    existing = await db.get(ExtensionConsent, (table_id, member.id))
    if agree and existing is None:
        db.add(ExtensionConsent(table_id=table_id, member_id=member.id, at=now))
    elif not agree and existing is not None:
        if await deals_started_since(db, table_id, tc.session.ends_at):
            raise ConflictError("the extension round has started; it is played out")
        await db.delete(existing)
    await db.flush()
    return await extension_state(db, table_id, now)


async def refuse_extension(
    db: AsyncSession, table_id: int, now: datetime, actor: Actor = SYSTEM
) -> ExtensionState:
    """An admin refuses a club table's extension past 22:15 (R-S2): its players' consents are
    dropped and no new one counts, so the table ends as a table without extension (no deal
    starts after the session's end; the session end closes it, R-S3).

    The table row is locked (``SELECT ... FOR UPDATE``), as the live table locks it to start a
    deal, so the refusal and the first deal of the extension round never both happen: once
    that deal has started the round is played out (409 ``extension_round_started``). A table
    is refused once (409 ``extension_already_refused``).
    """
    table = await db.scalar(
        select(Table)
        .where(Table.id == table_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if table is None:
        raise NotFoundError(f"no table {table_id}")
    session = (
        await db.get(ClubSession, table.club_session_id)
        if table.club_session_id is not None
        else None
    )
    if table.practice or session is None:
        raise ConflictError(
            "only club tables of a session stop at 22:15; nothing to refuse",
            code="not_a_club_table",
        )
    if table.status == "finished" or session.ended_at is not None:
        raise ConflictError("the pulka at this table has ended")
    if table.extension_refused_at is not None:
        raise ConflictError(
            "this table's extension is already refused", code="extension_already_refused"
        )
    if await deals_started_since(db, table_id, session.ends_at):
        raise ConflictError(
            "the extension round has started; it is played out", code="extension_round_started"
        )
    consents = list(
        (
            await db.scalars(
                select(ExtensionConsent.member_id)
                .where(ExtensionConsent.table_id == table_id)
                .order_by(ExtensionConsent.member_id)
            )
        ).all()
    )
    await audit.record(
        db,
        actor=actor,
        action="session.extension_refused",
        target=f"table:{table_id}",
        before={"extension_refused_at": None, "consents": consents},
        after={"extension_refused_at": now, "session_id": session.id},
    )
    table.extension_refused_at = now
    await db.execute(delete(ExtensionConsent).where(ExtensionConsent.table_id == table_id))
    await db.flush()
    return await extension_state(db, table_id, now)
