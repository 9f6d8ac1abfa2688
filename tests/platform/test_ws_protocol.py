"""The server's ``permessage-deflate`` (app/commands/ws_protocol.py) against the ``websockets``
client's: small messages leave uncompressed, large ones compressed, and a client keeps
decoding both kinds in any order on one connection (the compression context carries over the
uncompressed messages between, RFC 7692 §7.2.3)."""

from __future__ import annotations

import asyncio
import json
import socket

from websockets.extensions.permessage_deflate import (
    ClientPerMessageDeflateFactory,
    PerMessageDeflate,
)
from websockets.frames import Frame, Opcode

from app.commands.uvicorn_options import UVICORN_OPTIONS
from app.commands.ws_protocol import (
    COMPRESS_FROM,
    SEND_BUFFER,
    ClubWebSocketProtocol,
    LargeMessageDeflate,
    LargeMessageDeflateFactory,
    bound_send_buffer,
    text_frame,
)


def _pair() -> tuple[PerMessageDeflate, PerMessageDeflate]:
    """(server extension, client extension) as the handshake of ``prefclub serve`` makes them."""
    client_factory = ClientPerMessageDeflateFactory(client_max_window_bits=True)
    offer = client_factory.get_request_params()
    server_factory = LargeMessageDeflateFactory(
        server_max_window_bits=12, client_max_window_bits=12
    )
    answer, server = server_factory.process_request_params(offer, [])
    client = client_factory.process_response_params(answer, [])
    return server, client


def _text(size: int) -> bytes:
    """``size`` bytes of event-like JSON text."""
    line = json.dumps(
        {
            "type": "action",
            "events": [{"card": "10H", "seat": 1}],
            "names": ["Вася", "Петя", "Коля"],
        },
        ensure_ascii=False,
    ).encode()
    return (line * (size // len(line) + 1))[:size]


def test_the_server_compresses_only_large_messages_and_the_client_reads_them_all() -> None:
    server, client = _pair()
    assert isinstance(server, LargeMessageDeflate)
    sizes = [200, 1500, COMPRESS_FROM - 1, COMPRESS_FROM, 9000, 300, 20000, 1500, 5000, 80]
    for size in sizes:
        data = _text(size)
        frame = server.encode(Frame(Opcode.TEXT, data))
        assert frame.rsv1 == (len(data) >= COMPRESS_FROM), size
        if frame.rsv1:
            assert len(frame.data) < len(data)
        else:
            assert frame.data == data
        assert client.decode(frame).data == data


def test_control_frames_and_binary_messages_follow_the_same_rule() -> None:
    server, client = _pair()
    ping = server.encode(Frame(Opcode.PING, b"x"))
    assert not ping.rsv1 and ping.data == b"x"
    big = bytes(range(256)) * 40
    frame = server.encode(Frame(Opcode.BINARY, big))
    assert frame.rsv1 and client.decode(frame).data == big
    small = server.encode(Frame(Opcode.BINARY, b"abc"))
    assert not small.rsv1 and client.decode(small).data == b"abc"


def test_prefclub_serve_uses_the_club_protocol() -> None:
    assert UVICORN_OPTIONS["ws"] is ClubWebSocketProtocol
    assert UVICORN_OPTIONS.get("ws_per_message_deflate", True)


def test_a_text_frame_is_framed_as_the_websockets_protocol_frames_it() -> None:
    """The send-now path frames small messages itself: byte for byte what ``websockets``
    serialises for a server (unmasked, final, uncompressed), at every length boundary."""
    for size in (0, 1, 125, 126, 127, 1500, 65535, 65536, 70000):
        data = _text(size)
        assert text_frame(data) == Frame(Opcode.TEXT, data).serialize(mask=False), size


async def test_a_websockets_kernel_send_buffer_is_bounded() -> None:
    """A real loopback TCP connection's server side: its send buffer, autotuned up to
    megabytes before, is what :data:`SEND_BUFFER` asks (Linux reports it doubled), so a client
    that never reads falls behind within seconds (tests/e2e/test_slow_reader.py)."""
    made: asyncio.Future[asyncio.BaseTransport] = asyncio.get_running_loop().create_future()

    class Accepting(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) != 2 * SEND_BUFFER
            bound_send_buffer(transport)
            made.set_result(transport)

    loop = asyncio.get_running_loop()
    listener = await loop.create_server(Accepting, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    transport = await asyncio.wait_for(made, 5)
    sock = transport.get_extra_info("socket")
    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) == 2 * SEND_BUFFER
    transport.close()
    writer.close()
    listener.close()
    await listener.wait_closed()
