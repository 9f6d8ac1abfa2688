"""Luck apart from skill over the archive (issue 27, docs/luck.md): a finished club deal is
weighed from its analysis in the worker pool, stored once per seat, and read per member."""

from __future__ import annotations

from decimal import Decimal

from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.app_state import app_state
from app.clock import FrozenClock
from app.db.models import DealLuck, TableEvent
from app.rules import Pulka, deal_from_json, weigh_deal
from app.services import analysis_cache, archive, deal_luck
from app.services.tables import create_table
from tests.api.conftest import LoggedIn
from tests.support.archive_play import play_deal


async def _club_deal(
    logged_in: LoggedIn, db: AsyncSession, clock: FrozenClock, practice: bool = False
):  # type: ignore[no-untyped-def]
    client, anna = await logged_in(name="Анна")
    _, boris = await logged_in(name="Борис")
    _, vera = await logged_in(name="Вера")
    ids = [anna.id, boris.id, vera.id]
    table = await create_table(
        db, seat_member_ids=ids, practice=practice, target=20, first_dealer=0, now=clock.now()
    )
    assert await play_deal(db, table.id, ids, clock.now()) == 1
    return client, ids, table.id


async def _rows(db: AsyncSession, table_id: int) -> list[DealLuck]:
    found = await db.scalars(
        select(DealLuck).where(DealLuck.table_id == table_id).order_by(DealLuck.seat)
    )
    return list(found)


async def test_a_finished_club_deal_is_weighed_once_per_seat(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    client, ids, table_id = await _club_deal(logged_in, db_session, clock)
    waiting = await deal_luck.pending(db_session)
    assert [(d.table_id, d.deal_no) for d in waiting] == [(table_id, 1)]
    assert await deal_luck.progress(db_session) == {"deals": 1, "weighed": 0}
    pool = app_state(app).analysis_pool
    assert await deal_luck.weigh(db_session, pool, waiting[0]) == 3
    assert await deal_luck.pending(db_session) == []
    assert await deal_luck.progress(db_session) == {"deals": 1, "weighed": 1}
    assert await deal_luck.weigh(db_session, pool, waiting[0]) == 0  # at most once

    rows = await _rows(db_session, table_id)
    assert [(r.seat, r.member_id) for r in rows] == [(0, ids[0]), (1, ids[1]), (2, ids[2])]
    # the stored figures are the pure weighing of the stored deal, to the hundredth
    replay = await archive.deal_replay(db_session, waiting[0].pulka_id, 1)
    analysis = await analysis_cache.cached(db_session, table_id, 1)
    assert analysis is not None
    start = await db_session.scalar(
        select(TableEvent.payload).where(
            TableEvent.table_id == table_id, TableEvent.kind == "deal_started"
        )
    )
    expected = weigh_deal(
        Pulka.from_json(start["pulka"]), deal_from_json(replay["outcome"], 0), analysis
    )
    for r in rows:
        luck = expected[r.seat]
        assert abs(r.worth - Decimal(luck.worth.numerator) / luck.worth.denominator) <= Decimal(
            "0.005"
        )
        assert abs(r.play - Decimal(luck.play.numerator) / luck.play.denominator) <= Decimal(
            "0.005"
        )
        assert r.version == 1 and r.bidding >= 0 and r.defence >= 0 and r.play >= 0
    assert replay["declarer"] == 1  # forehand declared 6♠ (tests.support.archive_play.choose)

    answer = await client.get(f"/api/members/{ids[1]}/luck")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    mine = rows[1]
    assert body["totals"]["deals"] == 1
    assert body["totals"]["worth"] == f"{mine.worth:.2f}"
    assert body["totals"]["lost"] == f"{mine.bidding + mine.defence + mine.play:.2f}"
    assert [p["pulka_id"] for p in body["pulkas"]] == [waiting[0].pulka_id]
    assert len(body["nights"]) == 1 and body["nights"][0]["deals"] == 1
    assert set(body["progress"]) == {"deals", "weighed"}  # read within the last 10 s
    assert body["season"] is None


async def test_twenty_weighings_of_one_deal_write_each_seat_once(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    """The primary key (table, deal, seat) and ``ON CONFLICT DO NOTHING``: 20 weighings of one
    deal (two servers' passes meeting) write three rows in all."""
    _, _, table_id = await _club_deal(logged_in, db_session, clock)
    pool = app_state(app).analysis_pool
    deal = (await deal_luck.pending(db_session))[0]
    await analysis_cache.deal_analysis(
        db_session, pool, table_id, 1, await archive.deal_replay(db_session, deal.pulka_id, 1)
    )
    written = 0
    for _ in range(20):
        written += await deal_luck.weigh(db_session, pool, deal)
    assert written == 3
    assert (
        await db_session.scalar(
            select(func.count()).select_from(DealLuck).where(DealLuck.table_id == table_id)
        )
        == 3
    )


async def test_practice_deals_are_not_weighed(
    logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    await _club_deal(logged_in, db_session, clock, practice=True)
    assert await deal_luck.pending(db_session) == []
    assert await deal_luck.progress(db_session) == {"deals": 0, "weighed": 0}


async def test_bad_requests_are_refused(logged_in: LoggedIn) -> None:
    client, anna = await logged_in(name="Анна")
    assert (await client.get("/api/members/999999/luck")).json()["code"] == "not_found"
    answer = await client.get(f"/api/members/{anna.id}/luck?season=spring")
    assert answer.status_code == 422 and answer.json()["code"] == "bad_season"
    answer = await client.get(f"/api/members/{anna.id}/luck?season=77")
    assert answer.status_code == 404 and answer.json()["code"] == "season_unknown"
    empty = (await client.get(f"/api/members/{anna.id}/luck")).json()
    assert empty["totals"]["deals"] == 0 and empty["totals"]["lost"] == "0.00"
    assert (await client.get("/api/luck/progress")).json() == {"deals": 0, "weighed": 0}


async def test_not_logged_in_is_401(app: FastAPI) -> None:
    import httpx

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000"
    ) as anonymous:
        assert (await anonymous.get("/api/luck/progress")).status_code == 401
