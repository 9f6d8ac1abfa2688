"""Group commit and a crash: every command a client saw acknowledged is in the database.

Six tables play at full speed through one real server, so their commands share transactions;
the server is killed (kill -9) from inside the client's ack handler, the instant an ack arrives.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.bots.client import BotClient
from app.bots.strategy import Strategy
from app.db.engine import make_engine, make_sessionmaker
from app.db.models.table import TableCommand, TableEvent
from tests.support.live_servers import server, setup_table

pytestmark = pytest.mark.e2e

TABLES = 6
ACKS_BEFORE_KILL = 150


async def test_kill_9_right_after_acks_loses_no_acknowledged_command(
    live_db: str, data_dir: Path
) -> None:
    made = [await setup_table(live_db, 3) for _ in range(TABLES)]
    srv = server(live_db, data_dir, log_name="group-crash.log").start()
    acked: list[tuple[int, str, int]] = []
    killed = asyncio.Event()

    def observe(bot: BotClient, message: dict[str, Any]) -> None:
        if killed.is_set() or message.get("type") != "ack" or message.get("duplicate"):
            return
        acked.append((bot.table_id, str(message["id"]), int(message["seq"])))
        if len(acked) >= ACKS_BEFORE_KILL:
            srv.kill()  # kill -9 at once, from the handler of the ack just received
            killed.set()

    bots = [
        BotClient(
            f"ws://127.0.0.1:{srv.port}",
            table_id,
            seat.cookie,
            srv.base_url,
            strategy=Strategy(random.Random(t * 3 + i)),
            observer=observe,
            name=f"gc{t}s{i}",
        )
        for t, (table_id, seats, _) in enumerate(made)
        for i, seat in enumerate(seats)
    ]
    runs = [asyncio.create_task(b.run()) for b in bots]
    try:
        await asyncio.wait_for(killed.wait(), 120)
    finally:
        for b in bots:
            b.stop()
        await asyncio.gather(*runs, return_exceptions=True)
        srv.stop()
    assert len({t for t, _, _ in acked}) == TABLES  # every table was playing
    engine = make_engine(live_db)
    try:
        async with make_sessionmaker(engine)() as db:
            commands = {
                (r.table_id, r.command_id): r.seq
                for r in (
                    await db.scalars(
                        select(TableCommand).where(TableCommand.table_id.in_([m[0] for m in made]))
                    )
                )
            }
            rows = (
                await db.execute(
                    select(TableEvent.table_id, TableEvent.seq).where(
                        TableEvent.table_id.in_([m[0] for m in made])
                    )
                )
            ).all()
            events = {(table_id, seq) for table_id, seq in rows}
    finally:
        await engine.dispose()
    missing = [a for a in acked if commands.get((a[0], a[1])) != a[2] or (a[0], a[2]) not in events]
    assert not missing, missing
