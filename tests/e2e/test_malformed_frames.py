"""Two malformed frames the fuzz missed (issue 24): a claim of a negative number of tricks gets
its error answer like every other malformed command, and a text frame that is not UTF-8 closes
the socket with 1007, logged at info level without a traceback."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.frames import Frame, Opcode

from tests.e2e.test_claim_pool import _to_first_lead
from tests.support.live_servers import clients, server, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def srv(live_db: str, data_dir: Path) -> Iterator[ServerProcess]:
    """The module's server, logging at info level (to see how the bad frame is logged)."""
    process = server(live_db, data_dir)
    process.env["LOG_LEVEL"] = "INFO"
    process.start()
    try:
        yield process
    finally:
        process.stop()


@pytest.mark.parametrize("tricks", [-1, -100, 11, 2**40])
async def test_a_claim_of_impossible_tricks_is_answered_with_an_error(
    srv: ServerProcess, live_db: str, tricks: int
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats) as players:
        declarer = await _to_first_lead(players)
        seq = declarer.last_seq
        answer = await asyncio.wait_for(declarer.command({"type": "claim", "tricks": tricks}), 10)
        assert answer["type"] == "error", answer
        assert answer["code"] == "illegal", answer
        assert answer["seq"] == seq
        pong = await declarer.command({"type": "ping"}, seq=None)
        assert pong["type"] == "pong"
    # Refused by the engine outright: it never waited for the claim pool (whose first job starts
    # its worker processes, seconds on a busy machine: the tester's "no answer").
    assert _pool_workers(srv) == [], _pool_workers(srv)


def _pool_workers(srv: ServerProcess) -> list[str]:
    """Command lines of the server's worker-pool processes (spawned multiprocessing children)."""
    assert srv.process is not None
    pid = srv.process.pid
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        with contextlib.suppress(OSError):
            line = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            if "multiprocessing" in line:
                found.append(line)
    return found


async def test_a_text_frame_that_is_not_utf8_closes_with_1007_logged_at_info(
    srv: ServerProcess, live_db: str
) -> None:
    table_id, seats, _ = await setup_table(live_db, 3)
    async with clients(srv, table_id, seats[:1]) as (player,):
        before = srv.output()
        # A raw text frame (opcode 1) whose payload is not UTF-8: the client library would refuse
        # to build it, so it is written on the transport directly.
        protocol = player.ws.protocol
        protocol.send_frame(Frame(Opcode.TEXT, b'{"type": "ping", "id": "\xff\xfe"}'))
        player.ws.send_data()
        assert player._reader is not None
        await asyncio.wait_for(player._reader, 10)  # the server closed the socket
        received = player.ws.protocol.close_rcvd
        assert received is not None and received.code == 1007, received
    await asyncio.sleep(0.3)
    logged = srv.output()[len(before) :]
    assert "Traceback" not in logged, logged
    assert '"level": "error"' not in logged, logged
    assert "a text frame is not UTF-8" in logged, logged
    line = next(x for x in logged.splitlines() if "a text frame is not UTF-8" in x)
    assert '"level": "info"' in line, line
