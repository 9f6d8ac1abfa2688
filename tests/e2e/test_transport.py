"""The websocket transport of ``prefclub serve`` (app/commands/ws_protocol.py) on a real server:
``permessage-deflate`` is negotiated, the server compresses only its large messages, and a
client reads both kinds on one connection."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
import websockets
from websockets.extensions import Extension
from websockets.extensions.permessage_deflate import (
    ClientPerMessageDeflateFactory,
    PerMessageDeflate,
)
from websockets.frames import Frame, Opcode
from websockets.typing import ExtensionParameter

from app.commands.ws_protocol import COMPRESS_FROM
from tests.support.live_servers import setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e


class RecordingDeflate(PerMessageDeflate):
    """The client's deflate, noting for every text message whether it came compressed."""

    seen: list[tuple[bool, int]]

    def decode(self, frame: Frame, *, max_size: int | None = None) -> Frame:
        compressed = frame.rsv1
        out = super().decode(frame, max_size=max_size)
        if frame.opcode is Opcode.TEXT:
            self.seen.append((compressed, len(out.data)))
        return out


class RecordingFactory(ClientPerMessageDeflateFactory):
    def __init__(self, seen: list[tuple[bool, int]]) -> None:
        super().__init__()
        self.seen = seen

    def process_response_params(
        self,
        params: Sequence[ExtensionParameter],
        accepted_extensions: Sequence[Extension],
    ) -> PerMessageDeflate:
        made = super().process_response_params(params, accepted_extensions)
        recording = RecordingDeflate(
            made.remote_no_context_takeover,
            made.local_no_context_takeover,
            made.remote_max_window_bits,
            made.local_max_window_bits,
            made.compress_settings,
        )
        recording.seen = self.seen
        return recording


async def _connect(
    srv: ServerProcess, table_id: int, cookie: str, seen: list[tuple[bool, int]]
) -> Any:
    return await websockets.connect(
        f"ws://127.0.0.1:{srv.port}/ws/tables/{table_id}",
        origin=srv.base_url,  # type: ignore[arg-type]
        additional_headers={"Cookie": cookie},
        compression=None,
        extensions=[RecordingFactory(seen)],
        max_size=2**22,
    )


async def _until(ws: Any, predicate: Any) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 15))
        if predicate(message):
            return message  # type: ignore[no-any-return]


async def test_small_messages_come_uncompressed_and_large_ones_compressed(
    srv: ServerProcess, live_db: str
) -> None:
    """Chat lines fill the table's snapshot past COMPRESS_FROM bytes: a client that joins gets
    that snapshot compressed and every small message (welcome, presence, acks, events)
    uncompressed, and decodes them all on one connection — its own commands still go
    compressed (the extension is negotiated both ways)."""
    table_id, seats, _ = await setup_table(live_db, 3)
    talker_seen: list[tuple[bool, int]] = []
    talker = await _connect(srv, table_id, seats[0].cookie, talker_seen)
    await talker.send(json.dumps({"type": "hello", "last_seq": None}))
    snapshot = await _until(talker, lambda m: m.get("type") == "snapshot")
    seq = snapshot["seq"]
    for n in range(5):  # the chat is open before the cut (R-W12); five lines per 10 s
        await talker.send(
            json.dumps(
                {
                    "id": f"chat-{n}",
                    "type": "chat",
                    "seq": seq,
                    "text": f"{n} " + "длинная строка " * 32,
                }
            )
        )
        ack = await _until(talker, lambda m, n=n: m.get("id") == f"chat-{n}")
        assert ack["type"] == "ack", ack
        seq = ack["seq"]
    assert talker.protocol.extensions, "permessage-deflate was not negotiated"

    seen: list[tuple[bool, int]] = []
    joiner = await _connect(srv, table_id, seats[1].cookie, seen)
    await joiner.send(json.dumps({"type": "hello", "last_seq": None}))
    full = await _until(joiner, lambda m: m.get("type") == "snapshot")
    assert len(full["table"]["chat"]) == 5
    await _until(joiner, lambda m: m.get("type") == "presence")
    await joiner.send(json.dumps({"id": "p", "type": "ping"}))
    await _until(joiner, lambda m: m.get("type") == "pong")
    await joiner.close()
    await talker.close()

    large = [size for compressed, size in seen if size >= COMPRESS_FROM]
    assert large, seen  # the snapshot
    assert all(compressed for compressed, size in seen if size >= COMPRESS_FROM), seen
    assert all(not compressed for compressed, size in seen if size < COMPRESS_FROM), seen
    assert len(seen) >= 4  # welcome, snapshot, presence, pong
    assert all(not compressed for compressed, size in talker_seen if size < COMPRESS_FROM)
