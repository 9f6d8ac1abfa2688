"""The archive's reads issue a fixed number of queries, however many pulkas there are (no N+1).

The pulkas are made by the archive benchmark's generator (``bench.archive_data``: real engine
events, bulk-inserted) in a scratch database; statements are counted on the engine.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.db.migrate import downgrade, upgrade
from app.services import archive
from bench.archive_data import generate
from tests.support.archive_reference import club_stats_from_logs
from tests.support.databases import _libpq


async def _count(
    eng: AsyncEngine, read: Callable[[AsyncSession], Awaitable[Any]]
) -> tuple[int, Any]:
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(eng.sync_engine, "before_cursor_execute", seen)
    try:
        async with AsyncSession(eng) as db:
            result = await read(db)
    finally:
        event.remove(eng.sync_engine, "before_cursor_execute", seen)
    return len(statements), result


async def test_list_and_stats_do_not_query_per_pulka(scratch: AsyncEngine) -> None:
    libpq = _libpq(scratch.url.render_as_string(hide_password=False))
    generate(libpq, 3, templates=2, members=8, deals=(2, 3), practice_share=0.0)
    few_list, listed = await _count(scratch, lambda db: archive.list_pulkas(db))
    few_stats, _ = await _count(scratch, lambda db: archive.club_stats(db))
    generate(libpq, 12, templates=2, members=8, deals=(2, 3), practice_share=0.0, seed=8)
    many_list, listed_more = await _count(scratch, lambda db: archive.list_pulkas(db))
    many_stats, stats = await _count(scratch, lambda db: archive.club_stats(db))
    assert len(listed) == 3 and len(listed_more) == 15
    assert all(len(p["names"]) == p["players"] and all(p["member_ids"]) for p in listed_more)
    assert sum(s.pulkas for s in stats) == sum(p["players"] for p in listed_more)
    assert many_list == few_list == 1, "list_pulkas queries once per pulka"
    assert many_stats == few_stats == 1, "club_stats queries once per pulka"
    paged, page = await _count(
        scratch, lambda db: archive.list_pulkas(db, limit=4, before=listed_more[5]["id"])
    )
    assert paged == 2 and [p["id"] for p in page] == [p["id"] for p in listed_more[6:10]]


async def test_a_pulka_and_a_replay_take_two_queries_however_long(scratch: AsyncEngine) -> None:
    """No N+1: showing a pulka or replaying one deal issues two statements (the pulka with
    its table and archive row, then its summary events or the deal's events), for a pulka of
    two deals as for one of twelve, and one member's statistics one statement plus his name."""
    libpq = _libpq(scratch.url.render_as_string(hide_password=False))
    short = generate(libpq, 1, templates=1, members=4, deals=(2, 2), practice_share=0.0)
    long = generate(libpq, 1, templates=1, members=4, deals=(12, 12), practice_share=0.0, seed=9)
    counts = []
    for made, deal in ((short, 2), (long, 11)):
        pulka_id = made["pulka_ids"][0]
        shown_n, shown = await _count(scratch, partial(archive.pulka_detail, pulka_id=pulka_id))
        replay_n, replayed = await _count(
            scratch, partial(archive.deal_replay, pulka_id=pulka_id, deal_no=deal)
        )
        assert len(shown["deal_list"]) == made["deals"][pulka_id]
        assert replayed["deal_no"] == deal and replayed["verified"] is True
        counts.append((shown_n, replay_n))
    assert counts == [(2, 2), (2, 2)]
    member = long["member_ids"][0]
    member_n, rows = await _count(scratch, lambda db: archive.club_stats(db, member))
    assert member_n == 2 and rows[0].member_id == member


async def test_a_deal_replay_reads_only_its_deal(scratch: AsyncEngine) -> None:
    libpq = _libpq(scratch.url.render_as_string(hide_password=False))
    made = generate(libpq, 1, templates=1, members=4, deals=(4, 4), practice_share=0.0)
    pulka_id = made["pulka_ids"][0]
    rows: list[int] = []

    def fetched(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if cursor.rowcount and cursor.rowcount > 0:
            rows.append(cursor.rowcount)

    event.listen(scratch.sync_engine, "after_cursor_execute", fetched)
    try:
        async with AsyncSession(scratch) as db:
            replayed = await archive.deal_replay(db, pulka_id, 2)
            detail = await archive.pulka_detail(db, pulka_id)
    finally:
        event.remove(scratch.sync_engine, "after_cursor_execute", fetched)
    assert replayed["deal_no"] == 2 and replayed["verified"] is True
    assert [d["deal_no"] for d in detail["deal_list"]] == [1, 2, 3, 4]
    assert len(detail["names"]) == detail["players"]
    # The whole log of four deals is far more than one deal's events plus the summaries.
    events_total = made["events"]
    assert max(rows) < events_total / 2, f"a replay read {max(rows)} of {events_total} rows"


async def test_the_generator_and_the_backfill_tally_as_the_logs_say(scratch: AsyncEngine) -> None:
    """The generator writes the archive rows as a live table does when its pulka ends, and
    migration 0015 rebuilds the same rows from the logs: both give the former statistics."""
    url = scratch.url.render_as_string(hide_password=False)
    generate(_libpq(url), 6, templates=3, members=7, deals=(3, 5), practice_share=0.3, seed=11)
    async with AsyncSession(scratch) as db:
        reference = [r.to_json(True) for r in await club_stats_from_logs(db)]
        generated = [r.to_json(False) for r in await archive.club_stats(db)]
        listed = await archive.list_pulkas(db, practice=None)
        shown = [await archive.pulka_detail(db, p["id"]) for p in listed]
    await scratch.dispose()
    downgrade(url, "0013")
    upgrade(url)
    async with AsyncSession(scratch) as db:
        backfilled = [r.to_json(False) for r in await archive.club_stats(db)]
        relisted = await archive.list_pulkas(db, practice=None)
        one = (await archive.club_stats(db, reference[0]["member_id"]))[0].to_json(True)
        reshown = [await archive.pulka_detail(db, p["id"]) for p in listed]
    assert len(listed) == 6 and relisted == listed and reshown == shown
    assert all(p["lines"] and 1 <= p["lines"][-1]["deal"] <= p["deals"] for p in shown)
    assert (
        generated
        == backfilled
        == [{k: v for k, v in r.items() if k != "series"} for r in reference]
    )
    assert one == reference[0] and one["series"]
