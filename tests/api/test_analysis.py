"""Deal analysis over HTTP (issue 15): computed in the worker pool, cached, never for a deal that
is still being played (R-W8), ``busy`` when the pool is full, one row per deal under a race."""

from __future__ import annotations

import asyncio
import time
from decimal import Decimal

import httpx
from fastapi import FastAPI
from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.clock import FrozenClock
from app.config import Settings
from app.db.engine import make_sessionmaker, session_scope
from app.db.models import DealAnalysis, Table
from app.main import create_app
from app.rules.core.cards import parse_card
from app.rules.search.claims import best_tricks
from app.rules.search.deal_analysis import analyse_deal
from app.services import analysis_cache, archive
from app.services.tables import create_table
from app.workers import WorkerPool
from tests.api.conftest import LoggedIn
from tests.support.archive_play import play_deal


async def _one_deal(
    logged_in: LoggedIn, db: AsyncSession, clock: FrozenClock
) -> tuple[httpx.AsyncClient, int, int]:
    """A table whose deal 1 has ended (6♠ played out) and deal 2 runs: (client, pulka, table)."""
    client, anna = await logged_in(name="Анна")
    _, boris = await logged_in(name="Борис")
    _, vera = await logged_in(name="Вера")
    ids = [anna.id, boris.id, vera.id]
    table = await create_table(
        db, seat_member_ids=ids, practice=False, target=20, first_dealer=0, now=clock.now()
    )
    assert await play_deal(db, table.id, ids, clock.now()) == 1
    pulka_id = int((await client.get(f"/api/tables/{table.id}")).json()["pulka"]["id"])
    return client, pulka_id, table.id


async def _rows(db: AsyncSession, table_id: int) -> int:
    return int(
        await db.scalar(
            select(func.count()).select_from(DealAnalysis).where(DealAnalysis.table_id == table_id)
        )
        or 0
    )


async def _close_pool(app: FastAPI) -> None:
    pool = getattr(app.state, "analysis_pool", None)
    if pool is not None:
        await pool.aclose()


async def test_a_finished_deal_is_analysed_once_and_cached(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    client, pulka_id, table_id = await _one_deal(logged_in, db_session, clock)
    try:
        answer = await client.get(f"/api/pulkas/{pulka_id}/deals/1/analysis")
        assert answer.status_code == 200, answer.text
        result = answer.json()
    finally:
        await _close_pool(app)
    replay = await archive.deal_replay(db_session, pulka_id, 1)
    # the worker's answer is the pure analysis of the replayed deal
    expected = analyse_deal(analysis_cache.facts_from_replay(replay))
    for key, value in expected.items():
        if key not in ("plays", "plays_complete"):  # the marks stop at a time budget
            assert result[key] == value, key
    shared = min(len(result["plays"]), len(expected["plays"]))
    assert shared > 0 and result["plays"][:shared] == expected["plays"][:shared]
    seats = [str(s) for s in replay["active"]]
    assert sorted(result["makeable"]) == sorted(seats)
    assert all(set(row) == {"S", "C", "D", "H", "NT"} for row in result["makeable"].values())
    # the played 6♠ from the first lead: the declarer's hand after his discard (R-C1)
    declarer = replay["declarer"]
    hands = []
    for seat in replay["active"]:
        cards = {parse_card(c) for c in replay["dealt"][str(seat)]}
        if seat == declarer:
            cards |= {parse_card(c) for c in replay["talon"]}
            cards -= {parse_card(c) for c in replay["discard"]}
        hands.append(sum(1 << c for c in cards))
    leader = replay["active"].index(replay["tricks"][0]["cards"][0]["seat"])
    assert result["contract"]["tricks"] == best_tricks(
        (hands[0], hands[1], hands[2]), leader, (), 0, replay["active"].index(declarer)
    )
    assert result["contract"]["taken"] == replay["tricks_taken"][str(declarer)]
    assert result["plays_complete"] is (len(result["plays"]) == 30)  # 10 tricks x 3 cards
    assert result["best_discard"]["tricks"] >= result["contract"]["tricks"]
    assert await _rows(db_session, table_id) == 1
    # cached: the same answer again without a worker (the pool was closed: it would refuse)
    again = await client.get(f"/api/pulkas/{pulka_id}/deals/1/analysis")
    assert again.status_code == 200 and again.json() == result
    assert await _rows(db_session, table_id) == 1


async def test_a_running_deal_is_never_analysed(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    """R-W8: deal 2 is being played: 409, nothing computed or stored; unknown: 404."""
    client, pulka_id, table_id = await _one_deal(logged_in, db_session, clock)
    running = await client.get(f"/api/pulkas/{pulka_id}/deals/2/analysis")
    assert running.status_code == 409 and "R-W8" in running.json()["detail"]
    assert (await client.get(f"/api/pulkas/{pulka_id}/deals/9/analysis")).status_code == 404
    assert (await client.get("/api/pulkas/999999/deals/1/analysis")).status_code == 404
    assert not app.state.analysis_pool.started  # no worker was even started
    assert await _rows(db_session, table_id) == 0
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as anonymous:
        assert (await anonymous.get(f"/api/pulkas/{pulka_id}/deals/1/analysis")).status_code == 401


async def test_a_full_pool_answers_busy_and_changes_nothing(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    client, pulka_id, table_id = await _one_deal(logged_in, db_session, clock)
    pool = WorkerPool(max_workers=1, max_pending=1)
    app.state.analysis_pool = pool
    try:
        blocker = asyncio.create_task(pool.run(time.sleep, 2))
        while pool.pending == 0:
            await asyncio.sleep(0.01)
        answer = await client.get(f"/api/pulkas/{pulka_id}/deals/1/analysis")
        assert answer.status_code == 503
        assert answer.json()["code"] == "busy" and answer.headers["Retry-After"]
        assert await _rows(db_session, table_id) == 0
        await blocker
        retried = await client.get(f"/api/pulkas/{pulka_id}/deals/1/analysis")
        assert retried.status_code == 200
        assert await _rows(db_session, table_id) == 1
    finally:
        await pool.aclose()


async def test_twenty_concurrent_requests_store_one_analysis(
    logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock, engine: AsyncEngine
) -> None:
    """At most one analysis per deal: the primary key (table_id, deal_no) and one shared
    computation, with 20 callers on their own committed sessions at once."""
    _, pulka_id, _ = await _one_deal(logged_in, db_session, clock)
    replay = await archive.deal_replay(db_session, pulka_id, 1)
    sessionmaker = make_sessionmaker(engine)
    async with session_scope(sessionmaker) as db:  # a committed table to hang the rows on
        table = Table(
            practice=True, conventions={}, target=20, stake=Decimal(1), players=3, status="finished"
        )
        db.add(table)
        await db.flush()
        table_id = table.id
    pool = analysis_cache.make_pool()

    async def ask() -> dict[str, object]:
        async with sessionmaker() as db:
            return await analysis_cache.deal_analysis(db, pool, table_id, 1, replay)

    try:
        results = await asyncio.gather(*(ask() for _ in range(20)))
        assert all(r == results[0] for r in results)
        async with sessionmaker() as db:
            assert (
                int(
                    await db.scalar(
                        select(func.count())
                        .select_from(DealAnalysis)
                        .where(DealAnalysis.table_id == table_id)
                    )
                    or 0
                )
                == 1
            )
    finally:
        await pool.aclose()
        async with session_scope(sessionmaker) as db:
            await db.execute(delete(DealAnalysis).where(DealAnalysis.table_id == table_id))
            await db.execute(delete(Table).where(Table.id == table_id))


async def test_the_analysis_workers_stop_with_the_app(test_settings: Settings) -> None:
    """The app's lifespan closes the analysis pool: no worker outlives the app."""
    app = create_app(test_settings)
    async with app.router.lifespan_context(app):
        pool = analysis_cache.make_pool()
        app.state.analysis_pool = pool
        assert await pool.run(abs, -3) == 3  # a real worker process answered
        assert pool.started
    assert not pool.started
