"""The club's calendar and clock rules: Monday sessions (R-S1), check-in and late notices (R-S4),
the 22:15 stop with its one-round extension (R-S2) and the session end (R-S3).

Every function takes ``now`` (from the injectable clock) instead of reading the time itself.
A session's times are audited when it is created or cancelled (``session.created``,
``session.cancelled``) and when it ends (``session.ended``), with who asked (``actor``; the
server's timer when omitted).

The R-S2 deal gate (:func:`deal_start_refusal`, :func:`record_deal_started`, the extension
consents) lives in :mod:`app.services.session_clock`, which the live tables use directly; its
names are re-exported here. For the live tables:

* :func:`finish_table_if_session_over` — call when a deal has ended; closes the pulka as
  ``session_end`` once no further deal may start at that table.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import (
    Attendance,
    ClubSession,
    DrawRecord,
    LateNotice,
    Member,
)
from app.db.models.table import Table, TableEvent
from app.services import audit
from app.services.audit import SYSTEM, Actor
from app.services.pulkas import close_pulka
from app.services.service_errors import ConflictError, ForbiddenError, NotFoundError, ServiceError
from app.services.session_clock import (
    ExtensionState,
    TableClock,
    deal_start_refusal,
    deals_started_since,
    extension_state,
    record_deal_started,
    refusal,
    refusal_at,
    refuse_extension,
    set_extension_consent,
    table_clock,
)

__all__ = [  # the R-S2 gate's names, re-exported for the callers of the schedule
    "ExtensionState",
    "TableClock",
    "deal_start_refusal",
    "deals_started_since",
    "extension_state",
    "record_deal_started",
    "refusal",
    "refuse_extension",
    "set_extension_consent",
    "table_clock",
]

SESSION_START = time(19, 0)
SESSION_END = time(22, 15)
MONDAY = 0
DEFAULT_WEEKS = 8
CHECK_IN_OPENS = timedelta(hours=6)
"""Members may check in from 13:00 club time on the session's day."""


def local_span(
    day: date, zone: ZoneInfo, start: time = SESSION_START, end: time = SESSION_END
) -> tuple[datetime, datetime]:
    """The UTC instants of ``start`` and ``end`` on ``day`` in the club's zone."""
    starts = datetime.combine(day, start, tzinfo=zone)
    ends = datetime.combine(day, end, tzinfo=zone)
    if ends <= starts:
        ends += timedelta(days=1)
    return starts.astimezone(ZoneInfo("UTC")), ends.astimezone(ZoneInfo("UTC"))


def upcoming_mondays(now: datetime, zone: ZoneInfo, weeks: int) -> list[date]:
    """The next ``weeks`` Mondays from today in club time (today counts if it is a Monday whose
    session has not ended)."""
    local = now.astimezone(zone)
    today = local.date()
    first = today + timedelta(days=(MONDAY - today.weekday()) % 7)
    if first == today and local.time() >= SESSION_END:
        first += timedelta(days=7)
    return [first + timedelta(weeks=i) for i in range(weeks)]


def _times(row: ClubSession) -> dict[str, Any]:
    return {"starts_at": row.starts_at, "ends_at": row.ends_at, "extra": row.extra}


async def generate_sessions(
    db: AsyncSession,
    now: datetime,
    zone: ZoneInfo,
    weeks: int = DEFAULT_WEEKS,
    actor: Actor = SYSTEM,
) -> list[ClubSession]:
    """Create the Monday sessions of the next ``weeks`` weeks that do not exist yet (R-S1).

    Idempotent: running it twice creates nothing the second time. Returns those sessions.
    """
    if not 1 <= weeks <= 52:
        raise ServiceError("weeks must be between 1 and 52", status=422)
    result = []
    for day in upcoming_mondays(now, zone, weeks):
        starts, ends = local_span(day, zone)
        row = await db.scalar(select(ClubSession).where(ClubSession.starts_at == starts))
        if row is None:
            row = ClubSession(starts_at=starts, ends_at=ends, extra=False)
            db.add(row)
            await db.flush()
            await audit.record(
                db,
                actor=actor,
                action="session.created",
                target=f"session:{row.id}",
                before=None,
                after=_times(row),
            )
        result.append(row)
    return result


async def add_extra_session(
    db: AsyncSession,
    *,
    day: date,
    start: time,
    end: time,
    zone: ZoneInfo,
    by: Member,
    now: datetime,
    actor: Actor | None = None,
) -> ClubSession:
    """An admin opens an extra session, recorded as such (R-S1).

    Refused, changing nothing: an end not after the start on that day (422
    ``session_ends_before_start``, ``params`` ``{"start", "end"}``), an end already past (422
    ``session_in_past``, ``{"date", "end", "today"}``), a clash with another session (409
    ``session_overlaps``, ``{"session_id", "date", "start", "end"}``: the other one's, in club
    time)."""
    if end <= start:
        raise ServiceError(
            f"the session must end after it starts: {end:%H:%M} is not after {start:%H:%M}",
            status=422,
            code="session_ends_before_start",
            params={"start": f"{start:%H:%M}", "end": f"{end:%H:%M}"},
        )
    starts, ends = local_span(day, zone, start, end)
    if ends <= now:
        today = now.astimezone(zone).date()
        raise ServiceError(
            f"an extra session cannot be in the past: {day.isoformat()} {end:%H:%M} is over "
            f"(today is {today.isoformat()})",
            status=422,
            code="session_in_past",
            params={"date": day.isoformat(), "end": f"{end:%H:%M}", "today": today.isoformat()},
        )
    other = await db.scalar(
        select(ClubSession)
        .where(ClubSession.starts_at < ends, ClubSession.ends_at > starts)
        .limit(1)
    )
    if other is not None:
        other_start = other.starts_at.astimezone(zone)
        raise ConflictError(
            f"it overlaps session {other.id} ({other_start:%Y-%m-%d %H:%M}-"
            f"{other.ends_at.astimezone(zone):%H:%M})",
            code="session_overlaps",
            params={
                "session_id": other.id,
                "date": other_start.date().isoformat(),
                "start": f"{other_start:%H:%M}",
                "end": f"{other.ends_at.astimezone(zone):%H:%M}",
            },
        )
    row = ClubSession(starts_at=starts, ends_at=ends, extra=True, created_by_id=by.id)
    db.add(row)
    await db.flush()
    await audit.record(
        db,
        actor=actor or Actor.of(by),
        action="session.created",
        target=f"session:{row.id}",
        before=None,
        after=_times(row),
    )
    return row


async def cancel_extra_session(
    db: AsyncSession, session_id: int, now: datetime, actor: Actor = SYSTEM
) -> None:
    """An admin cancels an extra session (R-S1) that has no table draw and no tables yet: it is
    deleted with its check-ins and late notices, so it leaves every list and frees its time.

    The session row is locked (``SELECT ... FOR UPDATE``) exactly as the table draw locks it,
    so a cancel and a concurrent draw never both succeed: the draw, once committed, makes the
    cancel a 409 ``session_has_tables``; the cancel, once committed, makes the draw a 404.
    Monday sessions are the club's calendar and are never cancelled (409
    ``not_an_extra_session``); nor is a session already over (409 ``session_over``).
    """
    session = await db.scalar(
        select(ClubSession)
        .where(ClubSession.id == session_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if session is None:
        raise NotFoundError(f"no session {session_id}")
    if not session.extra:
        raise ConflictError("only an extra session can be cancelled", code="not_an_extra_session")
    if session.ended_at is not None or now >= session.ends_at:
        raise ConflictError("this session is over", code="session_over")
    drawn = await db.scalar(
        select(DrawRecord.id).where(DrawRecord.club_session_id == session.id).limit(1)
    )
    tables = await db.scalar(select(Table.id).where(Table.club_session_id == session.id).limit(1))
    if drawn is not None or tables is not None:
        raise ConflictError(
            "this session already has its table draw or tables", code="session_has_tables"
        )
    await audit.record(
        db,
        actor=actor,
        action="session.cancelled",
        target=f"session:{session.id}",
        before=_times(session),
        after=None,
    )
    await db.delete(session)
    await db.flush()


async def get_session(db: AsyncSession, session_id: int) -> ClubSession:
    """The session or a 404."""
    row = await db.get(ClubSession, session_id)
    if row is None:
        raise NotFoundError(f"no session {session_id}")
    return row


async def list_sessions(db: AsyncSession, since: datetime, until: datetime) -> list[ClubSession]:
    """Sessions that end after ``since`` and start before ``until``, earliest first."""
    rows = await db.scalars(
        select(ClubSession)
        .where(ClubSession.ends_at > since, ClubSession.starts_at < until)
        .order_by(ClubSession.starts_at)
    )
    return list(rows)


async def current_session(db: AsyncSession, now: datetime) -> ClubSession | None:
    """Today's session: the one running now, else the next one opening for check-in today."""
    row: ClubSession | None = await db.scalar(
        select(ClubSession)
        .where(
            ClubSession.ends_at > now,
            ClubSession.starts_at - CHECK_IN_OPENS <= now,
            ClubSession.ended_at.is_(None),
        )
        .order_by(ClubSession.starts_at)
        .limit(1)
    )
    return row


def _require_open(session: ClubSession, now: datetime) -> None:
    if session.ended_at is not None or now >= session.ends_at:
        raise ConflictError("this session is over")


def _local_start(session: ClubSession, zone: ZoneInfo) -> dict[str, str]:
    """The session's own start as the refusals name it: ``start`` in club time ("10:02" for an
    extra session, "19:00" for a Monday one) and ``starts_at`` (ISO 8601 UTC)."""
    return {
        "start": session.starts_at.astimezone(zone).strftime("%H:%M"),
        "starts_at": session.starts_at.isoformat(),
    }


async def give_late_notice(
    db: AsyncSession,
    session: ClubSession,
    member: Member,
    now: datetime,
    note: str | None,
    *,
    zone: ZoneInfo,
) -> LateNotice:
    """Notice of being late; only before the session starts (R-S4). ``zone``: the club's,
    in which a refusal names the start."""
    _require_open(session, now)
    if now >= session.starts_at:
        start = _local_start(session, zone)
        raise ConflictError(
            f"notice of being late must be given before the session starts at "
            f"{start['start']} (R-S4)",
            code="late_notice_closed",
            params=start,
        )
    if await _attendance(db, session.id, member.id) is not None:
        raise ConflictError("you have already checked in")
    row = await _late_notice(db, session.id, member.id)
    if row is None:
        row = LateNotice(club_session_id=session.id, member_id=member.id, given_at=now, note=note)
        db.add(row)
    else:
        row.note = note
    await db.flush()
    return row


async def withdraw_late_notice(
    db: AsyncSession, session: ClubSession, member: Member, now: datetime
) -> None:
    """Withdraw a notice (before the session starts)."""
    if now >= session.starts_at:
        raise ConflictError("the session has started; the notice stays")
    await db.execute(
        delete(LateNotice).where(
            LateNotice.club_session_id == session.id, LateNotice.member_id == member.id
        )
    )


async def _late_notice(db: AsyncSession, session_id: int, member_id: int) -> LateNotice | None:
    row: LateNotice | None = await db.scalar(
        select(LateNotice).where(
            LateNotice.club_session_id == session_id, LateNotice.member_id == member_id
        )
    )
    return row


async def _attendance(db: AsyncSession, session_id: int, member_id: int) -> Attendance | None:
    row: Attendance | None = await db.scalar(
        select(Attendance).where(
            Attendance.club_session_id == session_id, Attendance.member_id == member_id
        )
    )
    return row


async def is_present(db: AsyncSession, session_id: int, member_id: int) -> bool:
    """Whether the member checked in to the session."""
    return await _attendance(db, session_id, member_id) is not None


async def check_in(
    db: AsyncSession, session: ClubSession, member: Member, now: datetime, *, zone: ZoneInfo
) -> Attendance:
    """Record a member's attendance; after the session's start (19:00 on a Monday) only with a
    notice given before (R-S4). A refusal names the session's own times in the club's ``zone``
    (message and ``params``).

    Checking in twice returns the first record.
    """
    _require_open(session, now)
    if member.is_bot:
        raise ForbiddenError("bots do not attend sessions")
    existing = await _attendance(db, session.id, member.id)
    if existing is not None:
        return existing
    start = _local_start(session, zone)
    if now < session.starts_at - CHECK_IN_OPENS:
        opens = (session.starts_at - CHECK_IN_OPENS).astimezone(zone).strftime("%H:%M")
        raise ConflictError(
            f"check-in opens at {opens} on the day of the session",
            code="check_in_not_open",
            params={**start, "opens": opens},
        )
    late = now >= session.starts_at
    if late and await _late_notice(db, session.id, member.id) is None:
        raise ConflictError(
            f"the session started at {start['start']} and you gave no notice of "
            "being late before it (R-S4); you cannot join this session",
            code="late_without_notice",
            params=start,
        )
    row = Attendance(club_session_id=session.id, member_id=member.id, checked_in_at=now, late=late)
    db.add(row)
    await db.flush()
    return row


async def attendance_of(db: AsyncSession, session_id: int) -> list[tuple[Attendance, Member]]:
    """Who checked in, in order of arrival."""
    rows = await db.execute(
        select(Attendance, Member)
        .join(Member, Member.id == Attendance.member_id)
        .where(Attendance.club_session_id == session_id)
        .order_by(Attendance.checked_in_at, Attendance.id)
    )
    return [(a, m) for a, m in rows.all()]


async def late_notices_of(db: AsyncSession, session_id: int) -> list[tuple[LateNotice, Member]]:
    """Members who gave notice of being late."""
    rows = await db.execute(
        select(LateNotice, Member)
        .join(Member, Member.id == LateNotice.member_id)
        .where(LateNotice.club_session_id == session_id)
        .order_by(LateNotice.given_at)
    )
    return [(n, m) for n, m in rows.all()]


async def attendance_counts(
    db: AsyncSession, since: datetime, until: datetime
) -> list[tuple[Member, int]]:
    """Sessions attended per member in a period (for the fund's priority, treasurer)."""
    rows = await db.execute(
        select(Member, func.count(Attendance.id))
        .join(Attendance, Attendance.member_id == Member.id)
        .join(ClubSession, ClubSession.id == Attendance.club_session_id)
        .where(ClubSession.starts_at >= since, ClubSession.starts_at < until)
        .group_by(Member.id)
        .order_by(func.count(Attendance.id).desc(), Member.id)
    )
    return [(m, int(c)) for m, c in rows.all()]


# -- the session end (R-S3) ----------------------------------------------------------------------


async def _close(db: AsyncSession, table_id: int, now: datetime, actor: Actor = SYSTEM) -> Any:
    return await close_pulka(db, table_id, "session_end", now, actor)


async def finish_table_if_session_over(db: AsyncSession, table_id: int, now: datetime) -> bool:
    """After a deal: if no further deal may start because the session is over (past 22:15
    without extension, or the extension round is done), close the pulka as ``session_end``
    (R-S3, R-P9) and return True."""
    tc = await table_clock(db, table_id)
    if tc is None or tc.practice or tc.finished or tc.session is None:
        return False
    if now < tc.session.ends_at:
        return False
    reason, _ = await refusal_at(db, table_id, now)
    if reason is None:
        return False
    await _close(db, table_id, now)
    return True


async def end_session(
    db: AsyncSession, session: ClubSession, now: datetime, actor: Actor = SYSTEM
) -> list[int]:
    """End the session: every unfinished pulka of its tables is closed and settled as ended by
    agreement at the session end (R-S3, R-P9). Returns the ids of the tables closed."""
    if session.ended_at is not None:
        raise ConflictError("this session has already ended")
    if now < session.ends_at:
        raise ConflictError("the session runs until 22:15; it cannot be ended earlier")
    # Every table row is locked (in id order) before the first audit row takes the audit
    # log's lock: a deal ending at one of them meanwhile holds its table lock and then waits
    # for the audit lock, so taking them the other way round could deadlock.
    ids = list(
        (
            await db.scalars(
                select(Table.id)
                .where(
                    Table.club_session_id == session.id,
                    Table.practice.is_(False),
                    Table.status != "finished",
                )
                .order_by(Table.id)
                .with_for_update()
            )
        ).all()
    )
    for table_id in ids:
        await _close(db, table_id, now, actor)
    await audit.record(
        db,
        actor=actor,
        action="session.ended",
        target=f"session:{session.id}",
        before={"ended_at": None},
        after={"ended_at": now, "closed_tables": ids},
    )
    session.ended_at = now
    await db.flush()
    return ids


async def end_due_sessions(db: AsyncSession, now: datetime) -> list[int]:
    """End every session past 22:15 whose club tables are all idle (R-S3): each unfinished
    table's last event is a refused deal, i.e. no deal is in progress and none may start.

    Safe to call from any process at any time (a timer): the session row is locked, so each
    session ends once. Returns the ids of the sessions ended.
    """
    due = (
        await db.scalars(
            select(ClubSession)
            .where(ClubSession.ends_at <= now, ClubSession.ended_at.is_(None))
            .order_by(ClubSession.id)
            .with_for_update(skip_locked=True)
        )
    ).all()
    ended = []
    for session in due:
        busy = False
        tables = (
            await db.scalars(
                select(Table).where(
                    Table.club_session_id == session.id,
                    Table.practice.is_(False),
                    Table.status != "finished",
                )
            )
        ).all()
        for table in tables:
            last = await db.scalar(
                select(TableEvent.kind)
                .where(TableEvent.table_id == table.id)
                .order_by(TableEvent.seq.desc())
                .limit(1)
            )
            if last != "deal_refused":
                busy = True
                break
        if not busy:
            await end_session(db, session, now)
            ended.append(session.id)
    return ended
