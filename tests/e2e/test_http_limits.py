"""HTTP limits of ``prefclub serve`` (issue 24), probed with raw sockets like the outside tester:
request headers must arrive within ``HEADER_TIMEOUT`` seconds; at most
``INCOMPLETE_PER_ADDRESS`` connections per client address may be sending theirs (the next is
closed at once); a request body over 64 KiB is answered 413 ``too_large`` before it is read."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.commands.http_protocol import STALL_GRACE
from tests.support.live_servers import server
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e

HEADER_TIMEOUT = 1.5
PER_ADDRESS = 4
PARTIAL = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


@pytest.fixture(scope="module")
def srv(live_db: str, data_dir: Path) -> Iterator[ServerProcess]:
    """A server with a short header deadline (the test's time) and a small per-address cap."""
    process = server(live_db, data_dir)
    process.env.update(
        {"HEADER_TIMEOUT": str(HEADER_TIMEOUT), "INCOMPLETE_PER_ADDRESS": str(PER_ADDRESS)}
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


async def _open(
    srv: ServerProcess, source: str = "127.0.0.1"
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", srv.port, local_addr=(source, 0))


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    """Whether the server closes the connection within ``seconds`` (True) or not (False)."""
    try:
        data = await asyncio.wait_for(reader.read(65536), seconds)
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return data == b"" or await _closed_within(reader, seconds)


async def test_headers_sent_too_slowly_are_cut_off(srv: ServerProcess) -> None:
    reader, writer = await _open(srv, "127.0.0.3")
    started = time.monotonic()
    writer.write(PARTIAL)
    await writer.drain()
    # Still trickling a byte now and then: the deadline is for the headers, not per byte.
    for _ in range(3):
        await asyncio.sleep(HEADER_TIMEOUT / 4)
        writer.write(b"x")
        await writer.drain()
    assert await _closed_within(reader, HEADER_TIMEOUT * 4)
    assert time.monotonic() - started >= HEADER_TIMEOUT * 0.9
    writer.close()
    # A connection sending nothing at all is closed too.
    idle_reader, idle_writer = await _open(srv, "127.0.0.3")
    assert await _closed_within(idle_reader, HEADER_TIMEOUT * 4)
    idle_writer.close()


async def test_a_kept_alive_connection_gets_the_deadline_for_each_request(
    srv: ServerProcess,
) -> None:
    reader, writer = await _open(srv, "127.0.0.5")
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 200")
    length = int(
        next(
            line.split(b":")[1]
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
    )
    await reader.readexactly(length)
    writer.write(PARTIAL)  # a second request that never completes its headers
    await writer.drain()
    assert await _closed_within(reader, HEADER_TIMEOUT * 4)
    writer.close()


async def test_connections_opened_together_are_not_stalled(srv: ServerProcess) -> None:
    """Twice the cap at once from one address (a page's parallel loads, a NAT): all served."""
    opened = [await _open(srv, "127.0.0.6") for _ in range(PER_ADDRESS * 2)]
    for _, writer in opened:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    for reader, writer in opened:
        answer = await asyncio.wait_for(reader.read(), 10)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        writer.close()


async def test_incomplete_connections_per_address_are_capped(srv: ServerProcess) -> None:
    held = []
    for _ in range(PER_ADDRESS):
        reader, writer = await _open(srv, "127.0.0.2")
        writer.write(PARTIAL)
        await writer.drain()
        held.append((reader, writer))
    await asyncio.sleep(STALL_GRACE + 0.2)  # they are stalled now
    extra = []
    for _ in range(3):
        reader, writer = await _open(srv, "127.0.0.2")
        writer.write(PARTIAL)
        extra.append((reader, writer))
    # Each connection over the cap is closed at once, long before the header deadline ...
    for reader, _ in extra:
        assert await _closed_within(reader, HEADER_TIMEOUT / 2)
    # ... while the first ones are still open (they wait for their deadline) ...
    for reader, _ in held:
        assert not await _closed_within(reader, 0.05)
    # ... and another address is served as usual meanwhile.
    async with httpx.AsyncClient(base_url=srv.base_url) as client:
        assert (await client.get("/healthz")).status_code == 200
    for reader, _ in held:
        assert await _closed_within(reader, HEADER_TIMEOUT * 4)
    for _, writer in held + extra:
        writer.close()
    # Once they are gone the address may connect again.
    reader, writer = await _open(srv, "127.0.0.2")
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    assert answer.startswith(b"HTTP/1.1 200"), answer
    writer.close()


async def test_a_declared_body_over_the_cap_is_refused_before_it_is_sent(
    srv: ServerProcess,
) -> None:
    reader, writer = await _open(srv, "127.0.0.4")
    writer.write(
        b"POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 10485760\r\n\r\n"
    )
    await writer.drain()
    # Not a byte of the 10 MB body is sent: the answer comes anyway.
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 413"), head
    rest = await asyncio.wait_for(reader.read(), 10)  # then the server closes the connection
    body = json.loads(rest.split(b"\r\n")[-1] if b"\r\n" in rest else rest)
    assert body["code"] == "too_large"
    assert body["params"] == {"limit": 65536}
    writer.close()


async def test_a_chunked_body_is_cut_off_at_the_cap(srv: ServerProcess) -> None:
    reader, writer = await _open(srv, "127.0.0.4")
    writer.write(
        b"POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b'{"login": "' + b"a" * 16_000
    writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    for _ in range(4):
        piece = b"a" * 16_000
        writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
    await writer.drain()
    # 80 KB sent, no final chunk: the answer is 413 all the same (the body is never parsed).
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 413"), head
    writer.close()


async def test_a_body_under_the_cap_is_read_as_usual(srv: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=srv.base_url) as client:
        answer = await client.post(
            "/api/auth/login", json={"login": "nobody", "password": "x" * 60_000}
        )
    assert answer.status_code != 413, answer.text
    assert answer.json()["code"] != "too_large"
