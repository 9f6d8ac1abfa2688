"""A real ``prefclub serve`` whose embedded PostgreSQL is killed (``kill -9`` of the postmaster)
brings it back by itself (issue 24): ``/readyz`` answers 200 again within seconds, the tables
go on over the same sockets, and every command acknowledged before the kill is in the log."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.db.engine import make_engine
from app.db.models import TableEvent
from tests.support.live_servers import SECRET, Driver, clients, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e

BACK_WITHIN = 30.0
"""Seconds the server may take to notice, restart the postmaster and answer again."""


def _pid_file(pgdata: Path) -> list[str]:
    return (pgdata / "postmaster.pid").read_text().splitlines()


def _url(pgdata: Path) -> str:
    """The embedded server's URL, from its ``postmaster.pid`` (line 5: the socket folder)."""
    return f"postgresql+psycopg://postgres:@/prefclub?host={_pid_file(pgdata)[4].strip()}"


async def _logged_seqs(url: str, table_id: int) -> list[int]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return list(
                (
                    await conn.scalars(
                        select(TableEvent.seq)
                        .where(TableEvent.table_id == table_id)
                        .order_by(TableEvent.seq)
                    )
                ).all()
            )
    finally:
        await engine.dispose()


def _wait_healthy(client: httpx.Client, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            if client.get("/readyz").status_code == 200:
                return time.monotonic() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("the server did not come back")


async def test_a_killed_embedded_postmaster_is_restarted_and_tables_go_on(
    data_dir: Path, tmp_path: Path
) -> None:
    env = {
        "PREFCLUB_DATA_DIR": str(data_dir),
        "DATABASE_URL": "",
        "SECRET_KEY": SECRET,
        "PREFCLUB_ENV": "test",
    }
    pgdata = (data_dir / "pgdata").resolve()
    with (
        ServerProcess(env, log_path=tmp_path / "serve.log", fresh=True) as server,
        httpx.Client(base_url=server.base_url, timeout=5) as http,
    ):
        url = _url(pgdata)
        table_id, seats, _ = await setup_table(url, 3)
        async with clients(server, table_id, seats) as players:
            driver = Driver(players)
            acked = [(await driver.step())["seq"] for _ in range(8)]

            old_pid = int(_pid_file(pgdata)[0])
            os.kill(old_pid, signal.SIGKILL)
            await asyncio.sleep(0.3)
            assert (await asyncio.to_thread(http.get, "/readyz")).status_code == 503
            took = await asyncio.to_thread(_wait_healthy, http, BACK_WITHIN)
            assert int(_pid_file(pgdata)[0]) != old_pid

            # The same sockets play on: the pools, the writer and the listener reconnected.
            after = [(await driver.step())["seq"] for _ in range(8)]
        logged = await _logged_seqs(url, table_id)
    assert set(acked) <= set(logged), (acked, logged)
    assert set(after) <= set(logged)
    assert logged == list(range(1, logged[-1] + 1))  # dense: nothing lost in between
    output = server.output()
    assert "embedded postgresql restarted after a crash" in output
    print(f"back after {took:.1f} s")
