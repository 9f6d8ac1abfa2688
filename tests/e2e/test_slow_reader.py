"""A client that never reads its socket slows no other table (issue 24): its TCP window fills,
the server stops writing to it and, once it is far enough behind, drops it; meanwhile another
table's round trips stay small."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
import time

import psutil
import pytest

from tests.conftest import MachineShare
from tests.e2e.latency import MOVE_EVERY, loaded_bound, measure_elsewhere, p99
from tests.support.live_servers import Driver, clients, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e

SECONDS = 10.0
QUIET_SECONDS = 3.0
"""Seconds the quiet table is measured before the stuck sockets: the run's own yardstick."""
TINY_BUFFER = 4096
STUCK = 2
LET_GO_WITHIN = 90.0
"""Seconds within which the server must have dropped the stuck sockets (once their TCP
buffers are full they fall behind: the send buffer bounded by
``app.commands.ws_protocol.SEND_BUFFER``, then the transport's, then the send queue or its
timeout) and closed their connections. How soon that is depends on how fast the busy table
fills those buffers: some 20 s at 18 moves a second (40 s and 700 moves while the kernel grew
the send buffer to megabytes), which leaves a slow box room."""


def _held_after(srv: ServerProcess, ports: set[int], timeout: float) -> set[int]:
    """Which of the client ``ports`` the server still holds a connection from after
    ``timeout`` seconds (waiting less if it lets go of all of them sooner)."""
    assert srv.process is not None
    server = psutil.Process(srv.process.pid)
    deadline = time.monotonic() + timeout
    while True:
        held = {
            c.raddr.port for c in server.net_connections("tcp") if c.raddr and c.raddr.port in ports
        }
        if not held or time.monotonic() > deadline:
            return held
        time.sleep(0.2)


def _frame(text: str) -> bytes:
    """A masked client text frame (RFC 6455)."""
    data = text.encode()
    mask = os.urandom(4)
    head = (
        bytes((0x81, 0x80 | len(data)))
        if len(data) < 126
        else (bytes((0x81, 0x80 | 126)) + len(data).to_bytes(2, "big"))
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def _never_reading(srv: ServerProcess, table_id: int, cookie: str) -> socket.socket:
    """A table socket that says hello and then never reads (a tiny receive buffer: its TCP
    window is full after a few messages)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, TINY_BUFFER)
    sock.connect(("127.0.0.1", srv.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: {srv.base_url}\r\n"
            f"Cookie: {cookie}\r\n\r\n"
        ).encode()
    )
    answer = sock.recv(1024)  # the handshake's answer only; nothing is read after it
    assert answer.startswith(b"HTTP/1.1 101"), answer
    sock.sendall(_frame(json.dumps({"type": "hello", "last_seq": None})))
    return sock


@pytest.mark.alone  # latencies against the quiet table's: no other test beside it
async def test_a_socket_that_never_reads_slows_no_other_table(
    live_db: str, srv: ServerProcess, machine_share: MachineShare
) -> None:
    busy_id, busy_seats, watchers = await setup_table(live_db, 3, spectators=STUCK)
    quiet_id, quiet_seats, _ = await setup_table(live_db, 3)
    machine_share.alone()
    before = await measure_elsewhere(srv.port, quiet_id, quiet_seats, QUIET_SECONDS)
    async with clients(srv, busy_id, busy_seats) as busy:
        stuck = [_never_reading(srv, busy_id, w.cookie) for w in watchers]
        busy_driver = Driver(busy, seed=7)
        ports = {sock.getsockname()[1] for sock in stuck}
        done = asyncio.Event()

        async def play_busy() -> int:
            """Play (feeding the stuck sockets) until the server has let go of all of them."""
            moves = 0
            while not done.is_set():
                if busy_driver.mover() is None:
                    await asyncio.sleep(0.05)
                    continue
                await busy_driver.step()
                moves += 1
                await asyncio.sleep(MOVE_EVERY)  # under the sockets' frame budget
            return moves

        async def measure() -> list[float]:
            """The quiet table's round trips beside the stuck sockets; then the rest of the
            test (waiting for the let-go) may share the machine with other tests."""
            trips = await measure_elsewhere(srv.port, quiet_id, quiet_seats, SECONDS)
            machine_share.share()
            return trips

        async def watch() -> set[int]:
            held = await asyncio.to_thread(_held_after, srv, ports, LET_GO_WITHIN)
            done.set()
            return held

        try:
            moves, trips, held = await asyncio.gather(play_busy(), measure(), watch())
        finally:
            for sock in stuck:
                with contextlib.suppress(OSError):
                    sock.close()
    print(
        f"busy table {moves} moves; quiet table p99 {p99(trips) * 1000:.0f} ms, "
        f"max {max(trips) * 1000:.0f} ms over {len(trips)}; before the stuck sockets p99 "
        f"{p99(before) * 1000:.0f} ms over {len(before)}"
    )
    # The server let go of the sockets it dropped: none is held open waiting for its peer.
    assert held == set(), held
    assert moves > 20  # the never-reading sockets' table kept playing (it fed them)
    bound = loaded_bound(before)
    assert p99(trips) < bound, (p99(trips), max(trips), p99(before))
    assert max(trips) < 2.5 * bound, (p99(trips), max(trips), p99(before))
