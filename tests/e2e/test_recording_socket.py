"""A recorded (real-cards) table on a real server: every player's socket receives each entry,
correction and dispute at once (RULES.md §10, docs/protocol.md §2.2a)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, select

from app.bots.harness import make_member
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.services import recording
from app.services.tables import create_table
from tests.support.live_servers import Client
from tests.support.server import ServerProcess

PASSED = {"type": "game", "declarer": 1, "contract": "7H", "defence": {"2": "pass", "0": "pass"}}


async def test_players_see_each_entry_on_their_socket(srv: ServerProcess, live_db: str) -> None:
    engine = make_engine(live_db)
    sessions = make_sessionmaker(engine)
    try:
        async with session_scope(sessions) as db:
            now = await db.scalar(select(func.now()))
            assert now is not None
            tag = uuid.uuid4().hex[:8]
            seats = [
                await make_member(db, f"rec-{tag}-{i}", f"Игрок {i}", now, bot=False)
                for i in range(3)
            ]
            table = await create_table(
                db,
                seat_member_ids=[s.member_id for s in seats],
                practice=True,
                target=30,
                mode="recorded",
                now=now,
            )
            table_id = table.id
        others = [Client(srv, table_id, s.cookie) for s in seats[1:]]
        for c in others:
            welcome = await c.connect()
            assert welcome["seat"] in (1, 2)
            assert c.latest is not None and c.latest["deal"] is None  # nothing is dealt

        async def scorer(call: Any) -> Any:
            async with session_scope(sessions) as db:
                return await call(db)

        entered = await scorer(
            lambda db: recording.enter_deal(db, table_id, seats[0].member_id, 0, PASSED, now)
        )
        for c in others:
            got = await c.wait_for(lambda m: m.get("type") == "recorded_deal")
            assert got["seq"] == entered.seq
            assert got["data"]["sheet"]["pool"] == [0, 4, 0]
            assert got["table"]["sheet"]["pool"] == [0, 4, 0]
        await scorer(
            lambda db: recording.correct_deal(
                db, table_id, seats[0].member_id, 0, {**PASSED, "contract": "6H"}, now
            )
        )
        await scorer(
            lambda db: recording.dispute_deal(db, table_id, seats[1].member_id, 0, "было 7♥")
        )
        for c in others:
            fixed = await c.wait_for(lambda m: m.get("type") == "recorded_correction")
            assert fixed["data"]["size"] == 2 and fixed["data"]["sheet"]["pool"] == [0, 2, 0]
            disputed = await c.wait_for(lambda m: m.get("type") == "recorded_dispute")
            assert disputed["data"]["text"] == "было 7♥" and disputed["data"]["seat"] == 1
        for c in others:
            await c.close()
    finally:
        await engine.dispose()
