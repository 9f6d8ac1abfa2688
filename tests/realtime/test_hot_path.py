"""The hot path of a live table: how many database round trips one command costs.

Round trips are counted on the wire: libpq's protocol trace of every pooled connection logs each
message the client sends; every simple ``Query`` and every extended-protocol ``Sync`` is one
round trip (the client waits for the server's answer before it goes on).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import make_bot_table
from app.db.models.table import TableCommand, TableEvent
from app.db.session import make_engine, make_sessionmaker, session_scope
from app.realtime import engine as rules
from app.realtime.game import CommandRejected
from app.realtime.store import StateCache, rebuild
from app.services.table_commands import execute

NOW = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
Sessions = async_sessionmaker[AsyncSession]


class Wire:
    """Every pooled connection of an engine traces its protocol messages into one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        self.mark = 0

    def attach(self, dbapi_connection: Any, _record: Any) -> None:
        pgconn = dbapi_connection.driver_connection.pgconn
        pgconn.trace(self.fd)
        pgconn.set_trace_flags(rules_trace_flags())

    def start(self) -> None:
        self.mark = self.path.stat().st_size

    def round_trips(self) -> list[str]:
        """The client messages since :meth:`start` that wait for an answer."""
        with self.path.open(errors="replace") as handle:
            handle.seek(self.mark)
            lines = handle.read().splitlines()
        return [line for line in lines
                if line.startswith("F") and ("\tQuery\t" in line or line.endswith("\tSync"))]

    def close(self) -> None:
        os.close(self.fd)


def rules_trace_flags() -> Any:
    import psycopg.pq

    return psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE


@pytest.fixture
def wire_path() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder) / "wire.trace"


@pytest.fixture
async def traced(live_db: str, wire_path: Path) -> AsyncIterator[tuple[Sessions, Wire]]:
    """Sessions on a fresh engine (the production pool settings) whose connections are traced."""
    wire = Wire(wire_path)
    engine = make_engine(live_db)
    event.listen(engine.sync_engine, "connect", wire.attach)
    try:
        yield make_sessionmaker(engine), wire
    finally:
        await engine.dispose()
        wire.close()


async def _table(sessions: Sessions) -> tuple[int, list[int]]:
    async with session_scope(sessions) as db:
        table_id, seats = await make_bot_table(db, f"hp-{uuid.uuid4().hex[:8]}", 3, NOW)
    return table_id, [s.member_id for s in seats]


async def _next_move(sessions: Sessions, table_id: int) -> tuple[int, dict[str, Any]]:
    async with sessions() as db:
        state = await rebuild(db, table_id)
    assert state is not None and state.deal is not None
    seat = rules.to_move(state.deal)
    assert seat is not None
    return seat, rules.legal_json(state.deal, seat)[0]


async def test_a_move_costs_at_most_five_round_trips(traced: tuple[Sessions, Wire]) -> None:
    """Checkout ping, BEGIN, lock + dedupe + session check, one write (events, table row,
    command id, NOTIFY), COMMIT — the table's state comes from the process cache."""
    sessions, wire = traced
    table_id, members = await _table(sessions)
    cache = StateCache()
    for n in range(3):  # warm up: the cache holds the state, the statements are prepared
        seat, move = await _next_move(sessions, table_id)
        wire.start()
        result = await execute(sessions, cache, table_id=table_id, member_id=members[seat],
                               seat=seat, name="p", command={**move, "id": f"m{n}"}, now=NOW)
        assert not result.duplicate and result.seq == 3 + n
    trips = wire.round_trips()
    assert len(trips) <= 5, wire.path.read_text(errors="replace")[wire.mark:][:6000]
    async with sessions() as db:
        assert await db.scalar(select(func.count()).select_from(TableEvent).where(
            TableEvent.table_id == table_id)) == 5
        stored = await db.get(TableCommand, (table_id, members[seat], "m2"))
        assert stored is not None and stored.seq == 5 and stored.response == {"seq": 5}


async def test_twins_racing_for_the_lock_apply_once(sessions: Sessions) -> None:
    """The lock statement's lookup uses the snapshot from before its wait: a twin that
    committed meanwhile is caught by the command row's key and answered as a duplicate, with
    the same seq — never applied twice, never refused (20 copies at once, stale seq or not)."""
    table_id, members = await _table(sessions)
    seat, move = await _next_move(sessions, table_id)

    async def send(with_seq: bool) -> tuple[str, int]:
        command = {**move, "id": "twin", **({"seq": 2} if with_seq else {})}
        try:
            result = await execute(sessions, None, table_id=table_id, member_id=members[seat],
                                   seat=seat, name="p", command=command, now=NOW)
        except CommandRejected as exc:
            return exc.code, -1
        return ("duplicate" if result.duplicate else "applied"), result.seq

    outcomes = await asyncio.gather(*(send(i % 2 == 0) for i in range(20)))
    assert sorted(outcomes).count(("applied", 3)) == 1, outcomes
    assert outcomes.count(("duplicate", 3)) == 19, outcomes
    async with sessions() as db:
        assert await db.scalar(select(func.count()).select_from(TableEvent).where(
            TableEvent.table_id == table_id)) == 3
