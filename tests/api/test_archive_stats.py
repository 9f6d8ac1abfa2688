"""The statistics read the rows tallied when each pulka ends, and give the numbers the logs give.

Real pulkas are played through the command service at real tables (real PostgreSQL) and
finished; then :func:`app.services.archive.club_stats` (which adds up ``pulka_member_stats``)
is compared with the former computation from the logs (tests/support/archive_reference.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member, PulkaMemberStats, PulkaStats, Table
from app.db.models import Pulka as PulkaRow
from app.rules import Pulka
from app.services import pulka_stats
from app.services.archive import MemberStats, club_stats, list_pulkas
from tests.api.conftest import LoggedIn
from tests.support.archive_play import finished_pulka
from tests.support.archive_reference import club_stats_from_logs


def _json(rows: list[MemberStats], series: bool = False) -> list[dict[str, Any]]:
    return [r.to_json(with_series=series) for r in rows]


async def test_stats_from_rows_equal_stats_from_logs_over_real_pulkas(
    db_session: AsyncSession, clock: FrozenClock, make_member: Callable[..., Awaitable[Member]]
) -> None:
    """Games declared/made/failed, misères (R-B2), pass-outs, whists and money per member:
    rows tallied at the pulka's end equal the logs' replay, for everyone and for each one."""
    anna, boris, vera, gleb = [await make_member(name=n) for n in ("Анна", "Борис", "Вера", "Глеб")]
    await finished_pulka(db_session, [anna, boris, vera], clock, ["6S", "misere", "none"])
    await finished_pulka(
        db_session, [anna, boris, vera, gleb], clock, ["6S", "7NT", "misere", "6S"]
    )
    await finished_pulka(db_session, [gleb, vera, boris], clock, ["misere", "6S"])
    await finished_pulka(db_session, [boris, gleb, anna], clock, ["7S"], practice=True)

    tallied = await db_session.scalar(
        select(func.count())
        .select_from(PulkaMemberStats)
        .where(PulkaMemberStats.practice.is_(False))
    )
    assert tallied == 10, "one row per member per club pulka"
    now, before = await club_stats(db_session), await club_stats_from_logs(db_session)
    assert _json(now) == _json(before)
    mine = {r.member_id: r for r in now}
    assert sum(r.declared + r.miseres for r in now) > 0
    assert mine[anna.id].pulkas == 2 and mine[gleb.id].pulkas == 2
    assert sum(r.money for r in now) == 0, "the club's money is zero-sum (R-F*)"
    for person in (anna, boris, vera, gleb):
        one = await club_stats(db_session, person.id)
        assert _json(one, True) == _json(await club_stats_from_logs(db_session, person.id), True)
        assert len(one[0].series) == one[0].pulkas
        assert [s["pulka_id"] for s in one[0].series] == sorted(
            s["pulka_id"] for s in one[0].series
        )


async def test_the_list_pages_by_keyset(
    db_session: AsyncSession, clock: FrozenClock, make_member: Callable[..., Awaitable[Member]]
) -> None:
    """``before`` continues the list after the given pulka, newest first, with no overlap."""
    seated = [await make_member(name=n) for n in ("Анна", "Борис", "Вера")]
    for _ in range(5):
        clock.advance(timedelta(minutes=1))
        await finished_pulka(db_session, seated, clock, ["6S"])
    everything = [p["id"] for p in await list_pulkas(db_session, limit=500)]
    pages: list[int] = []
    before = None
    while True:
        page = [p["id"] for p in await list_pulkas(db_session, limit=2, before=before)]
        if not page:
            break
        pages += page
        before = page[-1]
    assert pages == everything and len(set(pages)) == len(pages) >= 5
    stored = (
        await db_session.scalars(
            select(PulkaStats.pulka_id).order_by(
                PulkaStats.finished_at.desc(), PulkaStats.pulka_id.desc()
            )
        )
    ).all()
    assert pages == [p for p in stored if p in set(pages)]


async def test_the_list_refuses_a_page_after_an_unknown_pulka(logged_in: LoggedIn) -> None:
    """``before`` must name a finished pulka (404), ``limit`` lies in 1..500 (422)."""
    client, _ = await logged_in(name="Анна")
    assert (await client.get("/api/pulkas", params={"before": 999999})).status_code == 404
    assert (await client.get("/api/pulkas", params={"limit": 0})).status_code == 422
    assert (await client.get("/api/pulkas", params={"limit": 501})).status_code == 422
    assert len((await client.get("/api/pulkas", params={"limit": 500})).json()) <= 500


async def test_writing_a_pulka_s_rows_again_does_not_count_it_twice(
    db_session: AsyncSession, clock: FrozenClock, make_member: Callable[..., Awaitable[Member]]
) -> None:
    """``member_stats`` takes a pulka's earlier rows off before adding its new ones."""
    seated = [await make_member(name=n) for n in ("Анна", "Борис", "Вера")]
    table_id = await finished_pulka(db_session, seated, clock, ["6S", "misere"])
    before = _json(await club_stats(db_session))
    row = await db_session.scalar(select(PulkaRow).where(PulkaRow.table_id == table_id))
    table = await db_session.get(Table, table_id)
    assert row is not None and table is not None and row.finished_at is not None
    await pulka_stats.record(
        db_session,
        pulka_id=row.id,
        table_id=table_id,
        practice=False,
        finished_at=row.finished_at,
        started_at=table.created_at,
        settlement=row.settlement,
        pulka=Pulka.from_json(row.state),
    )
    assert _json(await club_stats(db_session)) == before
    assert before == _json(await club_stats_from_logs(db_session))
