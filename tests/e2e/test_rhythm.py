"""The table's rhythm over the real socket (issue 11): a club table deals its first deal by
itself, exactly once, when its session opens; events and snapshots carry the move deadline;
the cutter may leave the cut to the server; presence says since when a seat is away."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.bots.harness import Seat, make_member
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models.club import ClubSession
from app.db.models.table import Table, TableEvent
from app.services.first_deal import deal_first
from app.services.tables import create_table
from tests.support.club_calendar import without_the_monday_sessions
from tests.support.live_servers import Client, clients, server, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


async def early_club_table(url: str) -> tuple[int, list[Seat]]:
    """A club table seated before its session started; the session started a minute ago."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            now = await db.scalar(select(func.now()))
            assert now is not None
            starts = now - timedelta(minutes=1)
            await without_the_monday_sessions(db)
            session = ClubSession(starts_at=starts, ends_at=now + timedelta(hours=3), extra=True)
            db.add(session)
            await db.flush()
            prefix = f"rh-{uuid.uuid4().hex[:8]}"
            seats = [
                await make_member(db, f"{prefix}-{i}", f"Игрок {i + 1}", now, bot=False)
                for i in range(3)
            ]
            table = await create_table(
                db,
                seat_member_ids=[s.member_id for s in seats],
                club_session_id=session.id,
                practice=False,
                now=starts - timedelta(minutes=10),
            )
            return table.id, seats
    finally:
        await engine.dispose()


async def test_r_s1_club_table_deals_its_first_deal_once_under_many_triggers(
    live_db: str, data_dir: Path, srv: ServerProcess
) -> None:
    """Seated before the start (R-S1 refused the deal); the session is open now: 20 direct
    triggers, six sockets joining (each a trigger), the running server's sweep and a second
    server process starting (its sweep runs at start) — one ``deal_started``."""
    table_id, seats = await early_club_table(live_db)
    engine = make_engine(live_db)
    sessions = make_sessionmaker(engine)
    second = server(live_db, data_dir, log_name="rhythm-second.log")
    sockets = [Client(srv if i % 2 else second, table_id, seats[i % 3].cookie) for i in range(6)]
    try:
        starting = asyncio.create_task(asyncio.to_thread(second.start))

        async def fire() -> bool:
            return await deal_first(sessions, None, table_id, datetime.now(UTC))

        async def join(client: Client) -> None:
            if client.url.endswith(f":{second.port}/ws/tables/{table_id}"):
                await starting
            await client.connect()

        results = await asyncio.gather(*(fire() for _ in range(20)), *(join(c) for c in sockets))
        await starting
        for client in sockets:
            await client.wait_for(
                lambda m: m.get("deal") is not None and m["deal"].get("phase") == "cut"
            )
        async with sessions() as db:
            kinds = (
                await db.scalars(
                    select(TableEvent.kind)
                    .where(TableEvent.table_id == table_id)
                    .order_by(TableEvent.seq)
                )
            ).all()
        assert kinds == ["pulka_started", "deal_refused", "deal_started"]
        assert sum(bool(r) for r in results[:20]) <= 1
        for client in sockets:
            assert client.latest is not None and client.latest["table"]["deal_no"] == 1
            assert client.latest["table"]["status"] == "playing"
    finally:
        for client in sockets:
            await client.close()
        second.stop()
        await engine.dispose()


async def test_events_and_snapshots_carry_the_move_deadline_and_the_cut_may_be_left_to_the_server(
    srv: ServerProcess, live_db: str
) -> None:
    """With a 30 s move timer every event and snapshot names the mover's deadline (the table
    row's, ISO UTC); ``cut`` with ``auto`` cuts at the default position 16 (R-D2) and is marked
    as the server's move."""
    table_id, seats, _ = await setup_table(live_db, 3, move_timer_seconds=30)
    engine = make_engine(live_db)
    try:
        async with clients(srv, table_id, seats) as players:
            snapshot = next(m for m in players[0].messages if m.get("type") == "snapshot")
            async with make_sessionmaker(engine)() as db:
                row = await db.get(Table, table_id)
                assert row is not None and row.deadline_at is not None
                first = row.deadline_at
            assert snapshot["table"]["deadline_at"] is not None
            assert datetime.fromisoformat(snapshot["table"]["deadline_at"]) == first
            assert snapshot["table"]["deadline_at"].endswith("+00:00")
            cutter = snapshot["deal"]["cutter"]
            mover = next(c for c in players if c.seat == cutter)
            bad = await mover.command({"type": "cut", "auto": True, "position": 5})
            assert bad["type"] == "error" and bad["code"] == "bad_command"
            answer = await mover.command({"type": "cut", "auto": True})
            assert answer["type"] == "ack", answer
            await players[0].wait_seq(answer["seq"])
            event = next(
                m
                for m in players[0].messages
                if m.get("type") == "action" and m["seq"] == answer["seq"]
            )
            assert event["data"]["auto"] is True and event["data"]["seat"] == cutter
            cut = next(e for e in event["data"]["events"] if e["type"] == "deck_cut")
            assert cut["position"] == 16
            async with make_sessionmaker(engine)() as db:
                row = await db.get(Table, table_id)
                assert row is not None and row.deadline_at is not None
                assert row.deadline_at > first
            assert datetime.fromisoformat(event["table"]["deadline_at"]) == row.deadline_at
            assert event["deal"]["phase"] == "auction"
            # A reconnecting client's snapshot names the same deadline.
            late = Client(srv, table_id, seats[0].cookie)
            await late.connect()
            again = next(m for m in late.messages if m.get("type") == "snapshot")
            assert again["table"]["deadline_at"] == event["table"]["deadline_at"]
            await late.close()
    finally:
        await engine.dispose()


async def test_a_table_without_timer_sends_no_deadline(srv: ServerProcess, live_db: str) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        snapshot = next(m for m in players[0].messages if m.get("type") == "snapshot")
        assert "deadline_at" in snapshot["table"] and snapshot["table"]["deadline_at"] is None
        cutter = next(c for c in players if c.seat == snapshot["deal"]["cutter"])
        answer = await cutter.command({"type": "cut", "position": 9})
        assert answer["type"] == "ack"
        await players[0].wait_seq(answer["seq"])
        event = next(
            m
            for m in players[0].messages
            if m.get("seq") == answer["seq"] and m.get("type") == "action"
        )
        assert event["table"]["deadline_at"] is None and event["data"]["auto"] is False


async def test_presence_says_since_when_a_seat_is_away(srv: ServerProcess, live_db: str) -> None:
    """The banner's data: ``since`` per disconnected seat; a seat that returns leaves it."""
    table_id, seats, _ = await setup_table(live_db, 3)
    first = Client(srv, table_id, seats[0].cookie)
    second = Client(srv, table_id, seats[1].cookie)
    try:
        await first.connect()
        await second.connect()
        hello = await first.wait_for(
            lambda m: m.get("type") == "presence" and m["connected"] == [0, 1]
        )
        assert set(hello["since"]) == {"2"}  # seat 2 never came
        never = datetime.fromisoformat(hello["since"]["2"])
        mark = len(first.messages)
        await second.close()
        gone = await first.wait_for(
            lambda m: m.get("type") == "presence" and m["connected"] == [0], start=mark
        )
        assert set(gone["since"]) == {"1", "2"}
        assert gone["since"]["2"] == hello["since"]["2"]  # still the first time it was seen away
        assert datetime.fromisoformat(gone["since"]["1"]) >= never
        mark = len(first.messages)
        back = Client(srv, table_id, seats[1].cookie)
        await back.connect()
        returned = await first.wait_for(
            lambda m: m.get("type") == "presence" and m["connected"] == [0, 1], start=mark
        )
        assert set(returned["since"]) == {"2"}
        await back.close()
    finally:
        await first.close()
        await second.close()
