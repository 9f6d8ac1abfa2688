"""A real ``prefclub serve`` with ``PREFCLUB_METRICS_TOKEN`` set, scraped while bots play two
tables: every named metric is there, the counters and the latency histogram move, the live
tables and sockets show the play and fall back to nothing when it stops."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.bots.client import BotClient
from tests.support.live_servers import Client, server, setup_table
from tests.support.metrics import NAMED, Samples, names, parse, total, value
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e

TOKEN = "e2e-metrics-token-0123456789abcdef"
TABLES = 2


@pytest.fixture(scope="module")
def metered(live_db: str, data_dir: Path) -> Iterator[ServerProcess]:
    """A real server with metrics on."""
    process = server(live_db, data_dir)
    process.env["PREFCLUB_METRICS_TOKEN"] = TOKEN
    process.start()
    try:
        yield process
    finally:
        process.stop()


async def scrape(srv: ServerProcess) -> Samples:
    async with httpx.AsyncClient(base_url=srv.base_url, timeout=10) as client:
        response = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200, response.text
    return parse(response.text)


async def scrape_until(srv: ServerProcess, done: object, timeout: float = 60.0) -> Samples:
    """Scrape until ``done(samples)`` holds (waiting for the play, not timing it)."""
    deadline = time.monotonic() + timeout
    while True:
        samples = await scrape(srv)
        if done(samples) or time.monotonic() > deadline:  # type: ignore[operator]
            return samples
        await asyncio.sleep(0.2)


def commands(samples: Samples) -> float:
    return total(samples, "prefclub_commands_total")


async def test_metrics_move_while_tables_are_played(metered: ServerProcess, live_db: str) -> None:
    idle = await scrape(metered)
    assert set(NAMED) <= names(idle), set(NAMED) - names(idle)
    assert value(idle, "prefclub_live_tables") == 0
    assert total(idle, "prefclub_sockets") == 0

    bots: list[BotClient] = []
    watcher_cookie = ""
    table_ids = []
    for index in range(TABLES):
        table_id, seats, watchers = await setup_table(live_db, 3, spectators=1, first_dealer=index)
        table_ids.append(table_id)
        watcher_cookie = watchers[0].cookie
        bots += [
            BotClient(
                f"ws://127.0.0.1:{metered.port}",
                table_id,
                s.cookie,
                metered.base_url,
                max_deals=100,
                name=f"t{table_id}s{i}",
            )
            for i, s in enumerate(seats)
        ]
    runs = [asyncio.create_task(b.run()) for b in bots]
    watcher = Client(metered, table_ids[-1], watcher_cookie)
    try:
        await watcher.connect()
        refused = await watcher.command({"type": "chat", "text": "hello"})  # spectators may not
        assert refused["type"] == "error"

        first = await scrape_until(
            metered, lambda s: commands(s) > 0 and value(s, "prefclub_live_tables") == TABLES
        )
        await asyncio.sleep(1.0)  # the bots play on
        second = await scrape_until(metered, lambda s: commands(s) > commands(first))
        played = value(second, "prefclub_live_tables")
        players = value(second, "prefclub_sockets", role="player")
        spectators = value(second, "prefclub_sockets", role="spectator")
    finally:
        for b in bots:
            b.stop()
        await watcher.close()
        await asyncio.gather(*runs, return_exceptions=True)
    assert all(not r.done() or r.exception() is None for r in runs)

    assert played == TABLES
    assert players == 3 * TABLES and spectators == 1
    for samples in (first, second):
        assert set(NAMED) <= names(samples)
        count = value(samples, "prefclub_command_seconds_count")
        assert count == commands(samples)  # every answered command is in the histogram
        assert value(samples, "prefclub_command_seconds_bucket", le="+Inf") == count
        assert value(samples, "prefclub_db_pool_size") > 0
        assert value(samples, "prefclub_db_pool_in_use") >= value(
            samples, "prefclub_db_writer_connections"
        )
        lag = value(samples, "prefclub_event_loop_lag_seconds")
        assert math.isfinite(lag) and 0 <= lag <= value(
            samples, "prefclub_event_loop_lag_max_seconds"
        )
        assert (
            value(samples, "prefclub_fanout_queue_depth")
            >= value(samples, "prefclub_fanout_queue_depth_max")
            >= 0
        )
        assert math.isnan(value(samples, "prefclub_last_backup_age_seconds"))
    assert (
        value(second, "prefclub_commands_total", outcome="ack")
        > value(first, "prefclub_commands_total", outcome="ack")
        > 0
    )
    assert value(second, "prefclub_commands_total", outcome="error") >= 1  # the spectator's
    assert (
        value(second, "prefclub_command_seconds_sum")
        > value(first, "prefclub_command_seconds_sum")
        > 0
    )
    assert value(second, "prefclub_command_seconds_count") > value(
        first, "prefclub_command_seconds_count"
    )
    assert value(second, "prefclub_db_writer_connections") >= 1  # the writer kept one
    assert value(second, "prefclub_worker_pool_capacity", pool="solver") > 0

    after = await scrape_until(metered, lambda s: total(s, "prefclub_sockets") == 0)
    assert total(after, "prefclub_sockets") == 0
    assert value(after, "prefclub_live_tables") == 0
    acked_by_clients = sum(len(b.stats.ack_ms) for b in bots)
    assert value(after, "prefclub_commands_total", outcome="ack") >= acked_by_clients > 0


async def test_a_wrong_token_is_refused_by_the_served_app(metered: ServerProcess) -> None:
    before = await scrape(metered)
    async with httpx.AsyncClient(base_url=metered.base_url, timeout=10) as client:
        wrong = await client.get("/metrics", headers={"Authorization": "Bearer wrong-token"})
        ready = await client.get("/readyz")
        alive = await client.get("/healthz")
    assert wrong.status_code == 401 and wrong.json()["code"] == "metrics_token_invalid"
    assert "Bearer" in wrong.headers["WWW-Authenticate"]
    assert ready.status_code == 200 and alive.status_code == 200
    after = await scrape(metered)
    assert commands(after) == commands(before)
