"""The ceilings our live-table figures are compared with.

* a bare websocket echo on uvicorn (:mod:`bench.echo_app`, served like the club) and on the
  ``websockets`` library's own server: round trips per second and latency;
* PostgreSQL's single-row durable commit rate: autocommit ``INSERT`` s into a scratch table with
  ``synchronous_commit = on``, from one client and from ``n`` clients at once. Every accepted
  command of ours is at least one such commit, so this bounds our commands per second.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from typing import Any

import psycopg
import websockets

from app.bots.harness import PROJECT_ROOT, percentiles
from app.commands.selfplay import free_port


async def _drive_echo(url: str, clients: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    count = 0
    stop = time.perf_counter() + seconds

    async def client() -> None:
        nonlocal count
        async with websockets.connect(url, max_size=2**20) as ws:
            while time.perf_counter() < stop:
                start = time.perf_counter()
                await ws.send('{"type":"ping","id":"x"}')
                await ws.recv()
                latencies.append((time.perf_counter() - start) * 1000)
                count += 1

    began = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    elapsed = time.perf_counter() - began
    return {
        "clients": clients,
        "round_trips_per_second": round(count / elapsed, 1),
        "latency_ms": percentiles(latencies),
    }


async def uvicorn_echo(clients: int, seconds: float) -> dict[str, Any]:
    """Round trips per second against :mod:`bench.echo_app` in its own uvicorn process."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.echo_app", str(port)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"ws://127.0.0.1:{port}/"
        deadline = time.monotonic() + 30
        while True:
            try:
                async with websockets.connect(url):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                await asyncio.sleep(0.1)
        return await _drive_echo(url, clients, seconds)
    finally:
        proc.terminate()
        proc.wait(10)


async def websockets_echo(clients: int, seconds: float) -> dict[str, Any]:
    """Round trips per second against the ``websockets`` library's server, in this process."""

    async def echo(ws: Any) -> None:
        async for message in ws:
            await ws.send(message)

    port = free_port()
    async with websockets.serve(echo, "127.0.0.1", port):
        return await _drive_echo(f"ws://127.0.0.1:{port}", clients, seconds)


async def commit_rate(url: str, clients: int, seconds: float) -> float:
    """Durable single-row commits per second from ``clients`` connections at once."""
    libpq = url.replace("postgresql+psycopg://", "postgresql://")
    async with await psycopg.AsyncConnection.connect(libpq, autocommit=True) as admin:
        await admin.execute(
            "CREATE TABLE IF NOT EXISTS bench_commits "
            "(id bigserial PRIMARY KEY, client int NOT NULL, at timestamptz "
            "NOT NULL DEFAULT now())"
        )
    count = 0
    stop = time.perf_counter() + seconds

    async def client(n: int) -> None:
        nonlocal count
        async with await psycopg.AsyncConnection.connect(libpq, autocommit=True) as conn:
            await conn.execute("SET synchronous_commit = on")
            while time.perf_counter() < stop:
                await conn.execute("INSERT INTO bench_commits (client) VALUES (%s)", (n,))
                count += 1

    began = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    elapsed = time.perf_counter() - began
    async with await psycopg.AsyncConnection.connect(libpq, autocommit=True) as admin:
        await admin.execute("DROP TABLE bench_commits")
    return round(count / elapsed, 1)


async def measure(
    url: str, echo_clients: int, commit_clients: int, seconds: float
) -> dict[str, Any]:
    """All the baselines, one after another (each for ``seconds``)."""
    one = await commit_rate(url, 1, seconds)
    many = await commit_rate(url, commit_clients, seconds)
    uv = await uvicorn_echo(echo_clients, seconds)
    lib = await websockets_echo(echo_clients, seconds)
    return {
        "commits_per_second_1": one,
        "commits_per_second_n": many,
        "commit_clients_n": commit_clients,
        "echo_per_second": uv["round_trips_per_second"],
        "echo_uvicorn": uv,
        "echo_websockets": lib,
    }
