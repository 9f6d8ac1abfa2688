"""Claims (R-W11) are solved in a bounded process pool (app/workers.py): a full pool refuses
with ``busy`` and changes nothing; a stopped pool takes no more work."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import make_bot_table
from app.db.engine import session_scope
from app.db.models.table import Table
from app.realtime.engine import claim_action, claim_needs_search, legal_json
from app.realtime.game import CommandRejected, TableState
from app.services.table_commands import execute
from app.workers import PoolBusy, WorkerPool
from tests.support.archive_play import play_deal

NOW = datetime(2026, 11, 30, 16, 0, tzinfo=UTC)


async def test_a_full_pool_refuses_the_next_job_at_once() -> None:
    pool = WorkerPool(max_workers=1, max_pending=1)
    try:
        busy = asyncio.create_task(pool.run(time.sleep, 1.5))
        await asyncio.sleep(0.05)
        assert pool.pending == 1
        with pytest.raises(PoolBusy):
            await pool.run(time.sleep, 0)
        await busy
        assert pool.pending == 0
        assert await pool.run(sum, [1, 2, 3]) == 6
    finally:
        await pool.aclose()
    with pytest.raises(PoolBusy):
        await pool.run(sum, [1])
    assert not pool.started


async def _to_a_claim_needing_search(
    sessions: async_sessionmaker[AsyncSession], table_id: int, member_ids: list[int]
) -> tuple[int, dict[str, object]]:
    """Play the table's first deal until its seat to move may claim, and return that seat and
    a claim the engine can settle only by searching (R-W11): the claim the pool would solve."""
    found: list[tuple[int, dict[str, object]]] = []

    async def claimable(state: TableState) -> bool:
        deal = state.deal
        assert deal is not None
        seat = deal.to_move
        if not any(o["type"] == "claim" for o in legal_json(deal, seat)):
            return False
        for tricks in range(1, 11):
            body: dict[str, object] = {"type": "claim", "tricks": tricks}
            action = claim_action(body, seat)
            if action is not None and claim_needs_search(deal, action):
                found.append((seat, body))
                return True
        return False

    async with session_scope(sessions) as db:
        await play_deal(db, table_id, member_ids, NOW, stop=claimable, prefix="cs")
    assert found, "no claim needing a search came up in the deal"
    return found[0]


async def test_a_claim_when_the_pool_is_full_is_refused_with_busy_and_changes_nothing(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    async with session_scope(sessions) as db:
        table_id, seats = await make_bot_table(db, f"cs-{uuid.uuid4().hex[:8]}", 3, NOW)
    member_ids = [s.member_id for s in seats]
    seat, claim = await _to_a_claim_needing_search(sessions, table_id, member_ids)
    async with sessions() as db:
        before = (await db.get(Table, table_id)).version  # type: ignore[union-attr]
    pool = WorkerPool(max_workers=1, max_pending=1)
    try:
        hog = asyncio.create_task(pool.run(time.sleep, 1.0))
        await asyncio.sleep(0.05)
        with pytest.raises(CommandRejected) as refused:
            await execute(
                sessions,
                None,
                table_id=table_id,
                member_id=member_ids[seat],
                seat=seat,
                name=f"seat {seat}",
                command={"id": "c1", **claim},
                now=NOW,
                solver=pool,
            )
        assert refused.value.code == "busy"
        await hog
    finally:
        await pool.aclose()
    async with sessions() as db:
        assert (await db.get(Table, table_id)).version == before  # type: ignore[union-attr]
