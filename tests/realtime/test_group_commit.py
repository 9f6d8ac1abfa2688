"""Group commit: commands of different tables that arrive together share one transaction.

Real PostgreSQL, the real command executor; the COMMITs are counted on the wire (libpq's
protocol trace, as in test_hot_path).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import make_bot_table
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.group_commit import GroupCommit
from app.db.models.table import Table, TableCommand, TableEvent
from app.realtime import engine as rules
from app.realtime.game import CommandRejected
from app.realtime.store import StateCache, rebuild
from app.services.table_commands import CommandResult, execute
from tests.realtime.test_hot_path import NOW
from tests.support.wire import Wire

Sessions = async_sessionmaker[AsyncSession]


@pytest.fixture
async def kept() -> AsyncIterator[list[GroupCommit]]:
    """Committers made by a test: their kept connections go back to the pool at its end."""
    made: list[GroupCommit] = []
    yield made
    for committer in made:
        await committer.close()


def _committer(kept: list[GroupCommit], sessions: Sessions) -> GroupCommit:
    committer = GroupCommit(sessions, harmless=(CommandRejected,))
    kept.append(committer)
    return committer


async def _table(sessions: Sessions) -> tuple[int, list[int]]:
    async with session_scope(sessions) as db:
        table_id, seats = await make_bot_table(db, f"gc-{uuid.uuid4().hex[:8]}", 3, NOW)
    return table_id, [s.member_id for s in seats]


async def _next_move(sessions: Sessions, table_id: int) -> tuple[int, dict[str, Any]]:
    async with sessions() as db:
        state = await rebuild(db, table_id)
    assert state is not None and state.deal is not None
    seat = rules.to_move(state.deal)
    assert seat is not None
    return seat, rules.legal_json(state.deal, seat)[0]


async def _mover(
    sessions: Sessions,
    committer: GroupCommit | None,
    table_id: int,
    members: list[int],
    cid: str,
    wrong_seat: bool = False,
) -> Any:
    """The table's next move (read now) as an ``execute`` call to await later."""
    seat, move = await _next_move(sessions, table_id)
    if wrong_seat:
        seat = (seat + 1) % 3
    return execute(
        sessions,
        None,
        table_id=table_id,
        member_id=members[seat],
        seat=seat,
        name="p",
        command={**move, "id": cid, "seq": 2},
        now=NOW,
        committer=committer,
    )


async def _stored(sessions: Sessions, table_id: int) -> tuple[int, int]:
    """(events, command rows) of a table."""
    async with sessions() as db:
        events = await db.scalar(
            select(func.count()).select_from(TableEvent).where(TableEvent.table_id == table_id)
        )
        commands = await db.scalar(
            select(func.count()).select_from(TableCommand).where(TableCommand.table_id == table_id)
        )
    return int(events or 0), int(commands or 0)


def _commits(wire: Wire) -> int:
    with wire.path.open(errors="replace") as handle:
        handle.seek(wire.mark)
        return sum(
            1
            for line in handle
            if line.startswith("F") and "\tQuery\t" in line and "COMMIT" in line
        )


async def test_moves_of_tables_that_arrive_together_share_one_commit(
    traced: tuple[Sessions, Wire], kept: list[GroupCommit]
) -> None:
    """Four tables' moves sent in the same loop turn: one transaction, one COMMIT on the
    wire, every move applied and stored (with its command id) when its call returns."""
    sessions, wire = traced
    tables = [await _table(sessions) for _ in range(4)]
    moves = [await _next_move(sessions, t) for t, _ in tables]
    committer = _committer(kept, sessions)
    cache = StateCache()
    wire.start()
    results = await asyncio.gather(
        *(
            execute(
                sessions,
                cache,
                table_id=t,
                member_id=members[seat],
                seat=seat,
                name="p",
                command={**move, "id": f"g{i}", "seq": 2},
                now=NOW,
                committer=committer,
            )
            for i, ((t, members), (seat, move)) in enumerate(zip(tables, moves, strict=True))
        )
    )
    assert [r.seq for r in results] == [3, 3, 3, 3]
    assert not any(r.duplicate for r in results)
    assert (committer.batches, committer.units, committer.fallbacks) == (1, 4, 0)
    assert _commits(wire) == 1
    for t, _ in tables:
        assert await _stored(sessions, t) == (3, 1)
        assert cache.get(t, 3) is not None  # the cache learns a state only once committed


async def test_a_refused_command_in_the_group_leaves_the_others_alone(
    sessions: Sessions, kept: list[GroupCommit]
) -> None:
    """A move out of turn at one table (refused before anything was written) does not roll
    back the two other tables' moves committed with it: one batch, no fallback."""
    (a, ma), (b, mb), (c, mc) = [await _table(sessions) for _ in range(3)]
    committer = _committer(kept, sessions)
    calls = [
        await _mover(sessions, committer, a, ma, "bad", wrong_seat=True),
        await _mover(sessions, committer, b, mb, "ok-b"),
        await _mover(sessions, committer, c, mc, "ok-c"),
    ]
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    refused, ok_b, ok_c = outcomes
    assert isinstance(refused, CommandRejected), refused
    assert isinstance(ok_b, CommandResult) and ok_b.seq == 3
    assert isinstance(ok_c, CommandResult) and ok_c.seq == 3
    assert (committer.batches, committer.units, committer.fallbacks) == (1, 3, 0)
    assert await _stored(sessions, a) == (2, 0)
    assert await _stored(sessions, b) == (3, 1)
    assert await _stored(sessions, c) == (3, 1)


async def test_a_failing_unit_rolls_back_alone_and_the_others_commit(
    sessions: Sessions, kept: list[GroupCommit]
) -> None:
    """A unit that hits a database error, and one refused *after* it wrote, roll the shared
    transaction back; every unit then runs alone: the two moves are committed, the failing
    units' writes are not, and each failing caller gets its own error."""
    (a, _), (b, mb), (c, mc) = [await _table(sessions) for _ in range(3)]
    committer = _committer(kept, sessions)

    async def division(db: AsyncSession) -> None:
        await db.execute(text("SELECT 1 / 0"))

    async def write_then_refuse(db: AsyncSession) -> None:
        await db.execute(text("UPDATE tables SET deadline_seq = -1 WHERE id = :id"), {"id": a})
        raise CommandRejected("not_now", "refused after a write")

    moves = [
        await _mover(sessions, committer, b, mb, "ok-b"),
        await _mover(sessions, committer, c, mc, "ok-c"),
    ]
    outcomes = await asyncio.gather(
        committer.run(a, division),
        committer.run(a, write_then_refuse),
        *moves,
        return_exceptions=True,
    )
    assert isinstance(outcomes[0], DBAPIError), outcomes[0]
    assert isinstance(outcomes[1], CommandRejected), outcomes[1]
    assert [o.seq for o in outcomes[2:] if isinstance(o, CommandResult)] == [3, 3]
    assert committer.fallbacks == 1 and committer.batches == 0
    assert await _stored(sessions, b) == (3, 1)
    assert await _stored(sessions, c) == (3, 1)
    async with sessions() as db:
        assert (await db.get(Table, a)).deadline_seq != -1  # type: ignore[union-attr]


async def test_twins_in_one_batch_apply_once(sessions: Sessions, kept: list[GroupCommit]) -> None:
    """Twenty copies of one command in one group: the first is applied, the others see its
    command row in the shared transaction and are answered as duplicates with its seq."""
    table_id, members = await _table(sessions)
    seat, move = await _next_move(sessions, table_id)
    committer = _committer(kept, sessions)
    results = await asyncio.gather(
        *(
            execute(
                sessions,
                None,
                table_id=table_id,
                member_id=members[seat],
                seat=seat,
                name="p",
                command={**move, "id": "twin", "seq": 2},
                now=NOW,
                committer=committer,
            )
            for _ in range(20)
        )
    )
    assert [r.seq for r in results] == [3] * 20
    assert sum(not r.duplicate for r in results) == 1
    assert committer.batches == 1
    assert await _stored(sessions, table_id) == (3, 1)


async def test_a_stale_move_tried_in_one_statement_leaves_the_group_alone(
    sessions: Sessions, kept: list[GroupCommit]
) -> None:
    """Our cache says table A is at seq 3, another process moved it to 4: A's one-statement
    write writes nothing, the ordinary path refuses it (``stale_seq``) — and B's move in the
    same group commits without a fallback (the conditional write counted as no write)."""
    (a, ma), (b, mb) = [await _table(sessions) for _ in range(2)]
    ours, theirs = StateCache(), StateCache()
    for table_id, members in ((a, ma), (b, mb)):
        seat, move = await _next_move(sessions, table_id)
        await execute(
            sessions,
            ours,
            table_id=table_id,
            member_id=members[seat],
            seat=seat,
            name="p",
            command={**move, "id": "warm", "seq": 2},
            now=NOW,
        )
    seat_a, move_a = await _next_move(sessions, a)
    await execute(
        sessions,
        theirs,
        table_id=a,
        member_id=ma[seat_a],
        seat=seat_a,
        name="p",
        command={**move_a, "id": "theirs", "seq": 3},
        now=NOW,
    )
    seat_b, move_b = await _next_move(sessions, b)
    committer = _committer(kept, sessions)
    stale, moved = await asyncio.gather(
        execute(
            sessions,
            ours,
            table_id=a,
            member_id=ma[seat_a],
            seat=seat_a,
            name="p",
            command={**move_a, "id": "ours", "seq": 3},
            now=NOW,
            committer=committer,
        ),
        execute(
            sessions,
            ours,
            table_id=b,
            member_id=mb[seat_b],
            seat=seat_b,
            name="p",
            command={**move_b, "id": "b", "seq": 3},
            now=NOW,
            committer=committer,
        ),
        return_exceptions=True,
    )
    assert isinstance(stale, CommandRejected) and stale.code == "stale_seq", stale
    assert isinstance(moved, CommandResult) and moved.seq == 4
    assert (committer.batches, committer.units, committer.fallbacks) == (1, 2, 0)
    assert await _stored(sessions, a) == (4, 2)
    assert await _stored(sessions, b) == (4, 2)


async def test_the_connections_it_reports_are_the_ones_it_took_from_the_pool(
    live_db: str,
) -> None:
    """``/metrics`` shows the writer's connections as part of the pool's in-use count: a lane
    queued but not yet started holds none, a lane in its batch holds one, a lane done keeps it
    for the next batch, and ``close`` gives it back. (Counting a running lane as a connection
    once showed more writer connections than the pool had out.)"""
    engine = make_engine(live_db)
    committer = GroupCommit(make_sessionmaker(engine))
    pool: Any = engine.pool
    seen: list[tuple[int, int]] = []
    release = asyncio.Event()

    async def held(db: AsyncSession) -> None:
        await db.execute(text("SELECT 1"))
        seen.append((committer.connections, pool.checkedout()))
        await release.wait()

    try:
        batch = asyncio.create_task(committer.run(1, held))
        await asyncio.sleep(0)  # queued, its lane started on this turn: no connection yet
        queued = (committer.connections, pool.checkedout())
        while not seen:
            await asyncio.sleep(0.01)
        release.set()
        await batch
        kept_for_next = (committer.connections, pool.checkedout())
        await committer.close()
        closed = (committer.connections, pool.checkedout())
    finally:
        await engine.dispose()
    assert queued == (0, 0)
    assert seen == [(1, 1)]
    assert kept_for_next == (1, 1)
    assert closed == (0, 0)
