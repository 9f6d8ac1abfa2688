"""Several server processes over one database, and a crash (kill -9) in the middle of a deal."""

from __future__ import annotations

import asyncio
import io
import json
import random
from pathlib import Path

import pytest
from sqlalchemy import select

from app.bots.client import BotClient
from app.bots.strategy import Strategy
from app.commands.score import run_score
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models.table import TableEvent
from app.realtime.store import rebuild
from app.services.pulkas import close_pulka
from tests.support.live_servers import Client, Driver, server, setup_table

pytestmark = pytest.mark.e2e


def _sequenced(client: Client) -> dict[int, str]:
    return {
        m["seq"]: json.dumps(m, sort_keys=True)
        for m in client.messages
        if "deal" in m and isinstance(m.get("seq"), int)
    }


async def test_two_processes_serve_one_table_consistently(live_db: str, data_dir: Path) -> None:
    a = server(live_db, data_dir, log_name="a.log").start()
    b = server(live_db, data_dir, log_name="b.log").start()
    try:
        table_id, seats, watchers = await setup_table(live_db, 3, spectators=2)
        p0 = Client(a, table_id, seats[0].cookie)
        p1 = Client(b, table_id, seats[1].cookie)
        p2 = Client(b, table_id, seats[2].cookie)
        wa = Client(a, table_id, watchers[0].cookie)
        wb = Client(b, table_id, watchers[1].cookie)
        for c in (p0, p1, p2, wa, wb):
            await c.connect()
        # Presence crosses processes: seat 0 (on A) learns that seats 1 and 2 (on B) are here.
        await p0.wait_for(lambda m: m.get("type") == "presence" and m["connected"] == [0, 1, 2])
        driver = Driver([p0, p1, p2], [wa, wb], seed=9)
        await driver.play_deal()
        for c in (p0, p1, p2, wa, wb):
            seqs = sorted(_sequenced(c))
            assert seqs == list(range(seqs[0], seqs[-1] + 1))
        # Both processes sent the spectators exactly the same messages, seq by seq.
        sa, sb = _sequenced(wa), _sequenced(wb)
        common = sorted(set(sa) & set(sb))
        assert len(common) >= driver.commands
        assert all(sa[s] == sb[s] for s in common)
        # A command id applied through one process is a duplicate through the other.
        mover = driver.mover()
        assert mover is not None and mover.latest is not None
        body = driver.strategy.choose(mover.latest, mover.latest["legal"], mover.seat or 0)
        assert body is not None
        first = await mover.command(body, cid="cross-1")
        assert first["type"] == "ack"
        twin = Client(a if mover in (p1, p2) else b, table_id, seats[mover.seat or 0].cookie)
        await twin.connect()
        again = await twin.command(body, cid="cross-1", seq=None)
        assert again["type"] == "ack" and again["duplicate"] and again["seq"] == first["seq"]
        # Lose every listener connection (as a network cut would): the processes reconnect,
        # resync, and a command through one still reaches the clients of the other.
        terminated = _terminate_listeners(live_db)
        assert terminated >= 2
        mover = driver.mover()
        assert mover is not None
        answer = await driver.step()
        for c in (p0, p1, p2, wa, wb):
            await c.wait_seq(answer["seq"], timeout=10)
        for c in (p0, p1, p2, wa, wb, twin):
            await c.close()
    finally:
        a.stop()
        b.stop()


def _terminate_listeners(url: str) -> int:
    """Kill the servers' LISTEN connections from the database side; return how many."""
    import psycopg

    from app.realtime.cross_process import libpq_url

    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND query ILIKE 'LISTEN prefclub%%'"
            " AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


async def _events(url: str, table_id: int) -> dict[int, str]:
    engine = make_engine(url)
    try:
        async with make_sessionmaker(engine)() as db:
            rows = (
                await db.scalars(select(TableEvent).where(TableEvent.table_id == table_id))
            ).all()
            return {r.seq: r.kind for r in rows}
    finally:
        await engine.dispose()


async def test_kill_9_mid_deal_then_restart_bots_finish_with_the_replayed_sheet(
    live_db: str, data_dir: Path
) -> None:
    deals = 4
    table_id, seats, _ = await setup_table(live_db, 3)
    first = server(live_db, data_dir, log_name="crash-1.log").start()
    port = first.port
    crashed = asyncio.Event()
    seen: list[tuple[int, str]] = []

    def observe(bot: BotClient, message: dict) -> None:  # type: ignore[type-arg]
        if "deal" in message and isinstance(message.get("seq"), int):
            if message["type"] != "snapshot":
                seen.append((message["seq"], message["type"]))
            deal = message["deal"] or {}
            deal_no = message["table"].get("deal_no", 0)
            mid_play = deal.get("phase") == "play" and deal.get("tricks_played", 0) >= 3
            # Mid-deal: deal 2 in its fourth trick, or (if deal 2 was not played out) deal 3
            # in the middle of its bidding.
            if not crashed.is_set() and (
                (deal_no == 2 and mid_play)
                or (deal_no >= 3 and deal.get("phase") == "auction" and deal.get("auction"))
            ):
                crashed.set()

    bots = [
        BotClient(
            f"ws://127.0.0.1:{port}",
            table_id,
            s.cookie,
            first.base_url,
            strategy=Strategy(random.Random(i)),
            max_deals=deals,
            observer=observe,
            name=f"crash{i}",
        )
        for i, s in enumerate(seats)
    ]
    runs = [asyncio.create_task(b.run()) for b in bots]
    second = None
    try:
        try:
            await asyncio.wait_for(crashed.wait(), 60)
        except TimeoutError:
            pytest.fail("the table never reached the middle of deal 2 or 3")
        first.kill()  # kill -9: no shutdown, no goodbye to the sockets
        await asyncio.sleep(0.5)
        second = server(live_db, data_dir, port=port, log_name="crash-2.log").start()
        try:
            await asyncio.wait_for(asyncio.gather(*(b.finished.wait() for b in bots)), 90)
        except TimeoutError:
            state = [
                (
                    b.seat,
                    b.last_seq,
                    b.pending,
                    b.legal[:2],
                    b.table.get("deal_no"),
                    b.stats.reconnects,
                    b.stats.error_codes,
                    b._ws is not None,
                )
                for b in bots
            ]
            pytest.fail(f"the bots did not finish after the restart: {state}")
    finally:
        for b in bots:
            b.stop()
        await asyncio.gather(*runs, return_exceptions=True)
        if second is not None:
            second.stop()
        first.stop()
    assert all(b.stats.reconnects >= 1 for b in bots)
    # Nothing a bot was told happened is missing from the log, and it happened as told.
    committed = await _events(live_db, table_id)
    for seq, kind in seen:
        assert committed.get(seq) == kind
    engine = make_engine(live_db)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            row = await close_pulka(db, table_id, "agreement")
        assert row is not None and row.deals == deals
        async with make_sessionmaker(engine)() as db:
            replayed = await rebuild(db, table_id)
    finally:
        await engine.dispose()
    assert replayed is not None and replayed.pulka.sheet.to_json() == row.sheet
    path = data_dir / f"crash-{table_id}.json"
    path.write_text(json.dumps(row.record))
    out = io.StringIO()
    assert run_score(str(path), out, io.StringIO()) == 0
    scored = json.loads(out.getvalue())
    assert scored["sheet"] == row.sheet and scored["settlement"] == row.settlement
