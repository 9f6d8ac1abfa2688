"""The 22:15 stop, the one-round extension (R-S2) and the session end (R-S3), on a frozen
clock around Monday 30 November 2026 (Moscow: 19:00 = 16:00 UTC, 22:15 = 19:15 UTC)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ClubSession, DealStart, Member
from app.services import schedule
from app.services.service_errors import ConflictError, ServiceError
from app.services.tables import create_table

ZONE = schedule.ZoneInfo("Europe/Moscow")
NOON = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def club(h: int, m: int) -> datetime:
    """That Monday at h:m Moscow time."""
    return datetime(2026, 11, 30, h, m, tzinfo=ZONE).astimezone(UTC)


async def _members(db: AsyncSession, n: int) -> list[Member]:
    start = await db.scalar(select(func.count()).select_from(Member)) or 0
    ms = [
        Member(
            login=f"sched{start}_{i}",
            display_name=f"P{i}",
            password_hash=None,
            must_change_password=False,
            active=True,
            is_bot=False,
        )
        for i in range(n)
    ]
    db.add_all(ms)
    await db.flush()
    return ms


async def _session(db: AsyncSession) -> ClubSession:
    return (await schedule.generate_sessions(db, NOON, ZONE, 1))[0]


async def _table(
    db: AsyncSession,
    session: ClubSession | None,
    players: int,
    at: datetime,
    *,
    practice: bool = False,
) -> tuple[int, list[Member]]:
    ms = await _members(db, players)
    table = await create_table(
        db,
        seat_member_ids=[m.id for m in ms],
        practice=practice,
        club_session_id=session.id if session else None,
        now=at,
    )
    return table.id, ms


async def _deal(db: AsyncSession, table_id: int, at: datetime) -> str | None:
    """What the live table does before each deal: ask, and if allowed, start it."""
    reason = await schedule.deal_start_refusal(db, table_id, at)
    if reason is None:
        await schedule.record_deal_started(db, table_id, 0, at)
    return reason


async def test_deals_until_2215(db_session: AsyncSession) -> None:
    # R-S1, R-S2: a club table deals at 21:50 and 22:14, not at 22:15 without an extension.
    session = await _session(db_session)
    table_id, _ = await _table(db_session, session, 3, club(21, 50))
    started = await db_session.scalar(
        select(func.count()).select_from(DealStart).where(DealStart.table_id == table_id)
    )
    assert started == 1  # the first deal started at 21:50
    assert await _deal(db_session, table_id, club(22, 14)) is None
    refused = await _deal(db_session, table_id, club(22, 15))
    assert refused is not None and "22:15" in refused and "R-S2" in refused


async def test_no_deal_before_the_session(db_session: AsyncSession) -> None:
    session = await _session(db_session)
    table_id, _ = await _table(db_session, session, 3, club(18, 59))
    reason = await schedule.deal_start_refusal(db_session, table_id, club(18, 59))
    assert reason is not None and "19:00" in reason
    assert await schedule.deal_start_refusal(db_session, table_id, club(19, 0)) is None


@pytest.mark.parametrize("players", [3, 4])
async def test_extension_is_exactly_one_round(db_session: AsyncSession, players: int) -> None:
    # R-S2: with everyone's consent, each player deals once more, counted from the first deal
    # after 22:15; the deal in progress at 22:15 is played out and does not count.
    session = await _session(db_session)
    table_id, ms = await _table(db_session, session, players, club(21, 0))
    assert await _deal(db_session, table_id, club(22, 14)) is None
    for m in ms[:-1]:
        await schedule.set_extension_consent(db_session, table_id, m, True, club(22, 10))
    partial = await schedule.extension_state(db_session, table_id, club(22, 16))
    assert not partial.extension_agreed and not partial.may_start_deal
    assert await _deal(db_session, table_id, club(22, 16)) is not None
    state = await schedule.set_extension_consent(db_session, table_id, ms[-1], True, club(22, 16))
    assert state.extension_agreed and state.deals_remaining == players
    for i in range(players):
        assert await _deal(db_session, table_id, club(22, 17 + 10 * i)) is None
    state = await schedule.extension_state(db_session, table_id, club(23, 0))
    assert state.deals_after_end == players and state.deals_remaining == 0
    over = await _deal(db_session, table_id, club(23, 0))
    assert over is not None and "extension round is over" in over
    # The round has started: consent can no longer be withdrawn.
    with pytest.raises(ConflictError):
        await schedule.set_extension_consent(db_session, table_id, ms[0], False, club(23, 0))


async def test_only_players_may_agree_to_extend(db_session: AsyncSession) -> None:
    session = await _session(db_session)
    table_id, _ = await _table(db_session, session, 3, club(21, 0))
    (outsider,) = await _members(db_session, 1)
    with pytest.raises(ServiceError) as err:
        await schedule.set_extension_consent(db_session, table_id, outsider, True, club(22, 0))
    assert err.value.status == 403


async def test_session_end_closes_and_settles_pulkas(db_session: AsyncSession) -> None:
    # R-S3, R-P9: every unfinished pulka is closed as ended at the session end and settled;
    # practice tables are not the club's and stay open.
    session = await _session(db_session)
    first, _ = await _table(db_session, session, 3, club(19, 5))
    second, _ = await _table(db_session, session, 4, club(19, 5))
    practice, _ = await _table(db_session, None, 3, club(19, 5), practice=True)
    with pytest.raises(ConflictError):
        await schedule.end_session(db_session, session, club(22, 14))
    closed = await schedule.end_session(db_session, session, club(22, 20))
    assert closed == [first, second]
    from app.db.models.table import Pulka, Table

    for table_id in closed:
        pulka = await db_session.scalar(select(Pulka).where(Pulka.table_id == table_id))
        assert pulka.status == "finished" and pulka.ended == "session_end"
        assert pulka.settlement is not None
        assert (await db_session.get(Table, table_id)).status == "finished"
        reason = await schedule.deal_start_refusal(db_session, table_id, club(22, 30))
        assert reason is not None
    assert (await db_session.get(Table, practice)).status == "playing"
    assert session.ended_at == club(22, 20)
    with pytest.raises(ConflictError):
        await schedule.end_session(db_session, session, club(22, 30))


async def test_table_finishes_itself_when_no_deal_may_start(db_session: AsyncSession) -> None:
    # R-S3 at one table: past 22:15 without an extension, the pulka closes as session_end.
    session = await _session(db_session)
    table_id, _ = await _table(db_session, session, 3, club(20, 0))
    assert not await schedule.finish_table_if_session_over(db_session, table_id, club(22, 0))
    assert await schedule.finish_table_if_session_over(db_session, table_id, club(22, 30))
    from app.db.models.table import Pulka

    pulka = await db_session.scalar(select(Pulka).where(Pulka.table_id == table_id))
    assert pulka.ended == "session_end" and pulka.settlement is not None


async def test_generate_is_idempotent_and_in_club_time(db_session: AsyncSession) -> None:
    # R-S1
    first = await schedule.generate_sessions(db_session, NOON, ZONE, 8)
    second = await schedule.generate_sessions(db_session, NOON, ZONE, 8)
    assert [s.id for s in first] == [s.id for s in second]
    assert first[0].starts_at == club(19, 0) and first[0].ends_at == club(22, 15)
    assert all(s.starts_at.astimezone(ZONE).weekday() == 0 for s in first)
    assert all(s.starts_at.astimezone(ZONE).hour == 19 for s in first)  # across the year
    assert first[-1].starts_at - first[0].starts_at == timedelta(weeks=7)


async def test_allowed_check_after_2215_counts_once(db_session: AsyncSession) -> None:
    # R-S2: a deal the live table starts after 22:15 counts toward the extension round even if
    # only the check was made, and a check followed by record_deal_started counts once.
    session = await _session(db_session)
    table_id, ms = await _table(db_session, session, 3, club(21, 0))
    for m in ms:
        await schedule.set_extension_consent(db_session, table_id, m, True, club(22, 0))
    assert await schedule.deal_start_refusal(db_session, table_id, club(22, 20)) is None
    await schedule.record_deal_started(db_session, table_id, 1, club(22, 20))
    assert await schedule.deal_start_refusal(db_session, table_id, club(22, 30)) is None
    assert await schedule.deal_start_refusal(db_session, table_id, club(22, 40)) is None
    assert await schedule.deals_started_since(db_session, table_id, club(22, 15)) == 3
    assert await schedule.deal_start_refusal(db_session, table_id, club(22, 50)) is not None


async def test_due_sessions_end_when_their_tables_are_idle(db_session: AsyncSession) -> None:
    # R-S3 from a timer: a session past 22:15 ends once no table has a deal in progress.
    session = await _session(db_session)
    table_id, _ = await _table(db_session, session, 3, club(22, 0))  # a deal in progress
    assert await schedule.end_due_sessions(db_session, club(22, 10)) == []
    assert await schedule.end_due_sessions(db_session, club(22, 30)) == []  # still dealing
    from app.db.models.table import Pulka, Table, TableEvent

    # The deal ends after 22:15 and the next one is refused: the table is idle.
    table = await db_session.get(Table, table_id)
    table.version += 1
    db_session.add(
        TableEvent(
            table_id=table_id,
            seq=table.version,
            kind="deal_refused",
            payload={"reason": "past 22:15"},
        )
    )
    await db_session.flush()
    assert await schedule.end_due_sessions(db_session, club(22, 40)) == [session.id]
    pulka = await db_session.scalar(select(Pulka).where(Pulka.table_id == table_id))
    assert pulka.ended == "session_end" and pulka.settlement is not None
    assert await schedule.end_due_sessions(db_session, club(22, 50)) == []
