"""A member opens a practice table over HTTP; house bots fill the other seats and play, and
play on after the server restarts."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import psycopg
import pytest

from app.bots.runner import BotRunner
from app.bots.strategy import Strategy
from tests.support.live_servers import Client, server
from tests.support.practice import add_member, open_practice, play_first_deal
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


async def test_practice_table_with_house_bots(
    live_db: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFCLUB_BOT_THINK", "0")
    login = await add_member(live_db, "human", "Человек")
    srv = server(live_db, data_dir, log_name="practice.log").start()
    try:
        table_id, cookie = await open_practice(srv, login)
        me = Client(srv, table_id, cookie)
        welcome = await me.connect()
        assert welcome["seat"] == 0
        await me.wait_for(lambda m: m.get("type") == "presence" and m["connected"] == [0, 1, 2])
        ended = await play_first_deal(me, Strategy(random.Random(1)))
        assert ended["data"]["deal_no"] == 1
        await me.close()
    finally:
        srv.stop()


async def _my_turn(me: Client, strategy: Strategy) -> dict[str, Any]:
    """Wait until seat 0 has a move to make; returns it (a command body)."""
    while True:
        latest = me.latest
        assert latest is not None
        body = strategy.choose(latest, latest["legal"], 0) if latest["legal"] else None
        if body is not None:
            return body
        seq = latest["seq"]
        await me.wait_for(lambda m, s=seq: "deal" in m and m["seq"] > s, timeout=20)


async def _act(me: Client, strategy: Strategy) -> dict[str, Any]:
    """Wait until seat 0 has a move to make, then make it; returns the ack."""
    while True:
        answer = await me.command(await _my_turn(me, strategy))
        if answer["type"] == "ack":
            return answer
        assert answer["code"] == "stale_seq", answer


@pytest.mark.parametrize("how", ["kill", "stop"])
async def test_house_bots_play_on_after_a_restart(
    live_db: str, data_dir: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFCLUB_BOT_THINK", "0")
    monkeypatch.setenv("PREFCLUB_BOT_ADOPT", "0.5")
    login = await add_member(live_db, "human", "Человек")
    first = server(live_db, data_dir, log_name=f"practice-{how}-1.log").start()
    second: ServerProcess | None = None
    try:
        table_id, cookie = await open_practice(first, login)
        me = Client(first, table_id, cookie)
        await me.connect()
        await me.wait_for(lambda m: m.get("type") == "presence" and m["connected"] == [0, 1, 2])
        strategy = Strategy(random.Random(3))
        await _act(me, strategy)  # the bots answer: the deal is under way
        await _my_turn(me, strategy)
        before = me.last_seq
        assert before is not None
        await me.close()
        first.kill() if how == "kill" else first.stop()

        second = server(live_db, data_dir, log_name=f"practice-{how}-2.log").start()
        me = Client(second, table_id, cookie)
        welcome = await me.connect()
        assert welcome["seq"] == before  # nothing moved while no server ran
        # The restarted server adopted the table: its house bots are back at it.
        await me.wait_for(
            lambda m: m.get("type") == "presence" and m["connected"] == [0, 1, 2], timeout=20
        )
        ack = await _act(me, strategy)

        def bots_moved() -> bool:
            return any(
                m.get("type") == "action" and m["seq"] > ack["seq"] and m["data"]["seat"] != 0
                for m in me.messages
            )

        def deal_ended() -> bool:
            return any(m.get("type") == "deal_ended" for m in me.messages)

        # The human's act may itself end the deal (his pass after the other defender's, say);
        # then the bots' next moves are those of the next deal.
        for _ in range(400):
            if deal_ended() and bots_moved():
                break
            await _act(me, strategy)
        # After the human acted, the bots moved too, and the deal was played out.
        assert bots_moved()
        assert deal_ended()
        await me.close()
    finally:
        first.stop()
        if second is not None:
            second.stop()


async def test_one_process_holds_a_practice_tables_bots(live_db: str) -> None:
    # The house-bot lease is a per-table advisory lock: a second runner cannot take it while the
    # first holds it, and can once the first has stopped (its connection is gone).
    # It is also taken once within a process: PostgreSQL's advisory locks are re-entrant on one
    # connection, so a second claim (the adopter racing ``spawn`` for a table just opened here)
    # must not "win" again and start a second set of bots.
    a, b = BotRunner(0, live_db), BotRunner(0, live_db)
    try:
        assert await a.claim(987654)
        assert not await a.claim(987654)
        assert not await b.claim(987654)
        # A graceful stop lets its leases go before it hangs up (closing the connection alone
        # frees them only once the server's backend has exited: later, under load).
        await a.stop()
        assert await b.claim(987654)
        # A runner whose lease connection is cut loses its locks (and drops its bots).
        c = BotRunner(0, live_db)
        try:
            assert await c.claim(987655)
            assert c._lease is not None and b._lease is not None
            # With a timeout, pg_terminate_backend waits until the backend has exited, and so
            # has released its locks; without one it only sends the signal.
            cur = await b._lease.execute(
                "SELECT pg_terminate_backend(%s, 10000)", (c._lease.info.backend_pid,)
            )
            assert (await cur.fetchone()) == (True,)
            with pytest.raises(psycopg.Error):
                await c._lease_query("SELECT true", None)
            assert await b.claim(987655)
            assert not await c.claim(987655)  # reconnected, but the table is b's now
        finally:
            await c.stop()
    finally:
        await a.stop()
        await b.stop()
