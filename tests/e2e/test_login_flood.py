"""A login flood from many loopback addresses neither slows another table nor locks a member
out (issue 24): hashing never takes every core and queues in bounded lanes, unknown names wait
without queuing, and a member who logged in from his address lately has a lane of his own."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, Role
from app.security.passwords import hasher_for
from tests.conftest import MachineShare
from tests.e2e.latency import loaded_bound, p99, play_and_ping
from tests.support.live_servers import clients, server, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e

PASSWORD = "the right password, long enough"
WORKERS = 64
ADDRESSES_PER_WORKER = 4
TARGETS = 40
"""Real members the flood guesses at (each has a free budget of 10 failures: real hashes)."""
FLOOD_SECONDS = 15.0
MEMBER_ADDRESS = "127.0.0.2"
FLOOD_NICENESS = 19
PRODUCTION_MEMORY_KIB = Settings.model_fields["argon2_memory_kib"].default
PRODUCTION_TIME_COST = Settings.model_fields["argon2_time_cost"].default
PRODUCTION_ARGON2 = {
    "PREFCLUB_ARGON2_MEMORY_KIB": str(PRODUCTION_MEMORY_KIB),
    "PREFCLUB_ARGON2_TIME_COST": str(PRODUCTION_TIME_COST),
}
"""The server's default cost, not the suite's cheaper one (tests/conftest.py): the flood hashes
as a club's server does."""
PRODUCTION_HASHER = hasher_for(PRODUCTION_MEMORY_KIB, PRODUCTION_TIME_COST)
"""The members' stored hashes at that cost (a check costs what the stored hash says)."""
QUIET_SECONDS = 3.0
"""Seconds the table is measured before the flood: the run's own yardstick."""


async def _members(url: str, logins: list[str]) -> None:
    hashed = await asyncio.to_thread(PRODUCTION_HASHER.hash, PASSWORD)
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            db.add_all(
                Member(
                    login=login,
                    display_name=login,
                    role=Role.member,
                    password_hash=hashed,
                    must_change_password=False,
                )
                for login in logins
            )
    finally:
        await engine.dispose()


async def _post_login(port: int, address: str, body: bytes) -> int:
    """One login over a fresh connection from ``address``; the answer's status (0: failed).
    Raw HTTP/1.1: a client library's CPU would be the flood's limit, not the server."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    except OSError:
        return 0
    try:
        writer.write(
            b"POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nConnection: close\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        status_line = await asyncio.wait_for(reader.readline(), 30)
        await reader.read()
        return int(status_line.split()[1]) if status_line else 0
    except (OSError, TimeoutError, ValueError, IndexError):
        return 0
    finally:
        writer.close()


async def _flood(port: int, targets: list[str], seconds: float) -> Counter[int]:
    deadline = time.monotonic() + seconds
    codes: Counter[int] = Counter()

    async def worker(w: int) -> None:
        addresses = [f"127.0.{10 + w}.{i + 1}" for i in range(ADDRESSES_PER_WORKER)]
        n = 0
        while time.monotonic() < deadline:
            n += 1
            login = (
                targets[(w * 7 + n) % len(targets)] if n % 2 else f"nobody-{w}-{n}"
            )  # half real names, half unknown ones
            body = f'{{"login": "{login}", "password": "guess {w} {n}"}}'.encode()
            codes[await _post_login(port, addresses[n % len(addresses)], body)] += 1

    await asyncio.gather(*(worker(w) for w in range(WORKERS)))
    return codes


def flood_process(
    port: int, targets: list[str], seconds: float, out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    """The flood, in a process of its own (module level: spawned processes import it), at the
    lowest CPU priority: on a club's server the flood's own CPU is the attacker's machine, not
    the server's; here it shares two cores with the server, and at the same priority the
    flood's client work (not the server's answer to it) would set the tables' latency."""
    os.nice(FLOOD_NICENESS)
    out.put(dict(asyncio.run(_flood(port, targets, seconds))))


@pytest.fixture(scope="module")
def flood_srv(live_db: str, data_dir: Path) -> Iterator[ServerProcess]:
    process = server(live_db, data_dir)
    process.env.update(PRODUCTION_ARGON2)
    process.start()
    try:
        yield process
    finally:
        process.stop()


async def _log_in(base_url: str, login: str) -> tuple[int, float]:
    transport = httpx.AsyncHTTPTransport(local_address=MEMBER_ADDRESS)
    async with httpx.AsyncClient(base_url=base_url, transport=transport, timeout=30) as client:
        started = time.perf_counter()
        response = await client.post("/api/auth/login", json={"login": login, "password": PASSWORD})
        return response.status_code, time.perf_counter() - started


@pytest.mark.alone  # latencies against the quiet table's: no other test beside it
async def test_a_login_flood_slows_no_table_and_locks_no_member_out(
    live_db: str, flood_srv: ServerProcess, machine_share: MachineShare
) -> None:
    prefix = f"flood-{uuid.uuid4().hex[:6]}"
    targets = [f"{prefix}-t{i}" for i in range(TARGETS)]
    member = f"{prefix}-member"
    await _members(live_db, [*targets, member])
    # The member logged in from his address before: that pair is trusted from now on.
    assert (await _log_in(flood_srv.base_url, member))[0] == 200
    table_id, seats, _ = await setup_table(live_db, 3)

    context = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
    flood = context.Process(
        target=flood_process, args=(flood_srv.port, targets, FLOOD_SECONDS, results)
    )
    machine_share.alone()  # before any socket is open: it blocks this loop until it may
    async with clients(flood_srv, table_id, seats) as players:
        quiet = await play_and_ping(players, QUIET_SECONDS)
        flood.start()
        try:
            await asyncio.sleep(3)  # the flood is in full swing
            measuring = asyncio.create_task(play_and_ping(players, FLOOD_SECONDS - 5))
            await asyncio.sleep(4)
            status, took = await _log_in(flood_srv.base_url, member)
            trips = await measuring
            machine_share.share()  # the flood's last seconds may run beside other tests
        finally:
            flood.join(FLOOD_SECONDS + 30)
            if flood.is_alive():
                flood.kill()
    codes = Counter(results.get(timeout=5))
    print(
        f"flood answers {dict(codes)}; table p99 {p99(trips) * 1000:.0f} ms, "
        f"max {max(trips) * 1000:.0f} ms over {len(trips)}; member login {took:.2f} s; "
        f"quiet p99 {p99(quiet) * 1000:.0f} ms over {len(quiet)}"
    )
    # A real flood: more logins than workers, some checked, the rest refused as busy.
    assert sum(codes.values()) > 2 * WORKERS and codes[401] > 0 and codes[503] > 0, codes
    assert status == 200 and took < 2.0, (status, took)
    assert len(trips) > 50 and len(quiet) > 20
    assert p99(trips) < loaded_bound(quiet), (p99(trips), max(trips), p99(quiet))
