"""Measuring a live table's round trips while something else loads the server (issue 24).

:func:`play_and_ping` plays a table move by move through the public protocol and pings it
between moves, recording each command's and each ping's round trip; :func:`p99` reads them.
Run the load in another process: a load in this process would slow the measuring loop itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import time
from types import SimpleNamespace

from app.bots.harness import Seat
from tests.support.live_servers import Client, Driver, clients

PING_EVERY = 0.1
"""Seconds between two pings of the measuring seat."""
MOVE_EVERY = 0.05
"""Seconds at least between two moves of the measured table: with the pings, the measuring
seat stays under the frame budget of a table socket (20 frames a second, docs/protocol.md), as
a member's page does; a faster client would be closed with 4429."""


LOADED_FLOOR = 0.100
"""Seconds a loaded table's p99 round trip may always take (issue 24's bound, met on a quiet
box of the fast class)."""
LOADED_RATIO = 8.0
"""How many times its own quiet p99 a loaded table's p99 may take: on a slow or busy box the
quiet p99 itself is tens of milliseconds, and the bound scales with what the same run measured
rather than with a figure taken on another machine. What the load tests guard against (a
hash, a claim or a stuck socket on the server's loop) costs whole seconds, far above either."""


def p99(values: list[float]) -> float:
    """The 99th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


def loaded_bound(quiet: list[float]) -> float:
    """The p99 round trip a table may take under a load, given its round trips measured just
    before on the same server without the load: :data:`LOADED_RATIO` times their p99, never
    under :data:`LOADED_FLOOR`."""
    return max(LOADED_FLOOR, LOADED_RATIO * p99(quiet))


async def ping_into(
    client: Client, trips: list[float], stop: asyncio.Event, every: float = PING_EVERY
) -> None:
    """Ping ``client``'s table every ``every`` seconds until ``stop`` is set, appending each
    round trip (seconds) to ``trips`` as it comes (a caller may wait for enough of them)."""
    while not stop.is_set():
        started = time.perf_counter()
        answer = await client.command({"type": "ping"}, seq=None)
        assert answer["type"] == "pong", answer
        trips.append(time.perf_counter() - started)
        await asyncio.sleep(every)


async def play_and_ping(players: list[Client], seconds: float) -> list[float]:
    """Round trips (seconds) of the table's commands and pings over ``seconds``, the table
    played at most one move per :data:`MOVE_EVERY`."""
    driver = Driver(players)
    trips: list[float] = []
    deadline = time.monotonic() + seconds

    async def play() -> None:
        while time.monotonic() < deadline:
            if driver.mover() is None:  # between deals
                await asyncio.sleep(PING_EVERY)
                continue
            started = time.perf_counter()
            await driver.step()
            trip = time.perf_counter() - started
            trips.append(trip)
            await asyncio.sleep(max(0.0, MOVE_EVERY - trip))

    async def until_deadline() -> None:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        over.set()

    over = asyncio.Event()
    tasks = [
        asyncio.create_task(play()),
        asyncio.create_task(ping_into(players[0], trips, over)),
        asyncio.create_task(until_deadline()),
    ]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
    return trips


async def _measure(port: int, table_id: int, seats: list[Seat], seconds: float) -> list[float]:
    srv = SimpleNamespace(port=port, base_url=f"http://127.0.0.1:{port}")
    async with clients(srv, table_id, seats) as players:  # type: ignore[arg-type]
        return await play_and_ping(players, seconds)


def _measure_process(
    port: int, table_id: int, seats: list[Seat], seconds: float, out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    out.put(asyncio.run(_measure(port, table_id, seats, seconds)))


async def measure_elsewhere(
    port: int, table_id: int, seats: list[Seat], seconds: float
) -> list[float]:
    """:func:`play_and_ping` of a table in a process of its own (spawned): what loads this
    process then never shows in the round trips."""
    context = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
    process = context.Process(target=_measure_process, args=(port, table_id, seats, seconds, out))
    process.start()
    try:
        trips: list[float] = await asyncio.to_thread(out.get, True, seconds + 60)
        return trips
    finally:
        await asyncio.to_thread(process.join, 10)
        if process.is_alive():
            process.kill()
