"""The websocket transport of ``prefclub serve``: uvicorn's sans-I/O protocol, with three changes.

* **Large messages only are compressed.** ``permessage-deflate`` is still negotiated, so a
  client may compress what it sends (and a compressed frame that inflates past the transport's
  cap still closes the socket cleanly with 1009), but the server compresses only messages of
  at least :data:`COMPRESS_FROM` bytes (snapshots, deal ends with long sheets). RFC 7692 lets
  either side send any message uncompressed (the RSV1 bit says which); every browser and the
  ``websockets`` client read both. Compressing each 1.5 KB event (a zlib flush per message)
  was a tenth of the server's CPU at full load (docs/performance.md).
* **A text message that is not UTF-8** closes the socket with 1007, logged at info level
  (uvicorn logs it as an error, with a traceback).
* **Sends that need no wait skip the ASGI stack.** The connection's scope carries the ASGI
  extension :data:`~app.realtime.connection.SEND_NOWAIT`: a callable that writes text frames
  at once, in one write, if the socket accepts writes (the transport is not paused by flow
  control, the handshake is done, no close was sent) and answers False otherwise. The hub's
  fan-out uses it for every message it can (:class:`~app.realtime.connection.Connection`: what
  a socket is given in one turn of the event loop goes out together); the rest takes the
  ordinary ASGI send, awaited by a writer task. Four messages per command each went through a
  new task, a timeout, Starlette's socket and three middleware wrappers before, and a write
  (a system call) of their own. The same extension's ``abort`` closes the TCP connection at
  once: a socket the server dropped is aborted a little after its close frame was sent, or it
  would stay open for as long as a peer that never reads wants (issue 24).
* **A socket's kernel send buffer is bounded** (:data:`SEND_BUFFER`). Left to the kernel's
  autotuning it grows to megabytes (``net.ipv4.tcp_wmem``), so a client that stops reading
  pinned that much memory and took some 40 s of play to fall behind before it was dropped;
  bounded, it falls behind within seconds, and a table's messages (1–2 KB, snapshots tens of
  KB) still flow at over a megabyte a second on a 100 ms round trip.

Both rest on attributes of uvicorn's ``WebSocketsSansIOProtocol`` (``conn``, ``transport``,
``writable`` — its write flow control, since 0.52.1 — ``close_sent``, ``handshake_complete``,
``disconnected``), so ``pyproject.toml`` bounds the uvicorn version;
``tests/e2e/test_transport.py`` and ``tests/platform/test_ws_protocol.py`` check both.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Sequence
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions import Extension
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.typing import ExtensionParameter

from app.realtime.connection import SEND_NOWAIT

log = logging.getLogger(__name__)

COMPRESS_FROM = 4096
"""Messages (encoded, in bytes) shorter than this are sent uncompressed."""
WINDOW_BITS = 12
COMPRESS_SETTINGS = {"memLevel": 5}
"""uvicorn's own deflate settings, kept."""
SEND_BUFFER = 64 * 1024
"""``SO_SNDBUF`` of a websocket's TCP socket, in bytes (Linux doubles it for its bookkeeping)."""


class LargeMessageDeflate(PerMessageDeflate):
    """``permessage-deflate`` that leaves single-frame messages under :data:`COMPRESS_FROM`
    uncompressed (RSV1 unset). The server never fragments a message, so a continuation frame
    always follows a first frame that was compressed."""

    def encode(self, frame: Frame) -> Frame:
        if (
            frame.fin
            and frame.opcode in (Opcode.TEXT, Opcode.BINARY)
            and len(frame.data) < COMPRESS_FROM
        ):
            return frame
        return super().encode(frame)


class LargeMessageDeflateFactory(ServerPerMessageDeflateFactory):
    """Negotiates ``permessage-deflate`` as uvicorn does, with :class:`LargeMessageDeflate`."""

    def process_request_params(
        self,
        params: Sequence[ExtensionParameter],
        accepted_extensions: Sequence[Extension],
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, made = super().process_request_params(params, accepted_extensions)
        return response, LargeMessageDeflate(
            made.remote_no_context_takeover,
            made.local_no_context_takeover,
            made.remote_max_window_bits,
            made.local_max_window_bits,
            made.compress_settings,
        )


class ClubWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol with large-only compression and the
    :data:`SEND_NOWAIT` extension (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn = ServerProtocol(
                extensions=[
                    LargeMessageDeflateFactory(
                        server_max_window_bits=WINDOW_BITS,
                        client_max_window_bits=WINDOW_BITS,
                        compress_settings=COMPRESS_SETTINGS,
                    )
                ],
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )

    def send_receive_event_to_app(self) -> None:
        """uvicorn's, but a text message that is not UTF-8 closes the socket with 1007
        (RFC 6455 §8.1) logged at info level: a client's fault, not a server error with a
        traceback. The frames are decoded once, here."""
        if self.curr_msg_data_type != "text" or self.close_sent:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        try:
            text = data.decode()
        except UnicodeDecodeError:
            log.info("closing a websocket with 1007: a text frame is not UTF-8")
            self.conn.send_close(1007, "text frames must be UTF-8")
            self.handle_parser_exception()
            return
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """uvicorn's, with the socket's kernel send buffer bounded (:data:`SEND_BUFFER`)."""
        bound_send_buffer(transport)
        super().connection_made(transport)

    async def run_asgi(self) -> None:
        self.scope["extensions"][SEND_NOWAIT] = {
            "send": self.send_texts_nowait,
            "abort": self.abort_transport,
        }
        await super().run_asgi()

    def abort_transport(self) -> None:
        """Close the TCP connection now, whatever is still buffered for it: a peer that never
        reads would otherwise keep a closed socket (its buffer, its file descriptor) forever,
        as a transport closes only once its buffer is written."""
        if not self.disconnected:
            self.transport.abort()

    def send_texts_nowait(self, texts: Sequence[str]) -> bool:
        """Write each of ``texts`` as a text frame now, all in one write, if the socket takes
        writes without waiting; False (nothing written) if it does not: the caller then sends
        them the ASGI way."""
        if (
            not self.writable.is_set()
            or self.disconnected
            or self.close_sent
            or not self.handshake_complete
            or self.transport.is_closing()
            or self.conn.state is not State.OPEN
        ):
            return False
        out = self.conn.data_to_send()  # whatever the protocol had queued goes first
        compressing = bool(self.conn.extensions)
        for text in texts:
            data = text.encode()
            if compressing and len(data) >= COMPRESS_FROM:
                self.conn.send_text(data)  # compressed by the extension
                out += self.conn.data_to_send()
            else:
                out.append(text_frame(data))
        self.transport.write(b"".join(out))
        return True


def bound_send_buffer(transport: asyncio.BaseTransport) -> None:
    """Set the transport's TCP socket's kernel send buffer to :data:`SEND_BUFFER` (a transport
    without a socket, as in a test's in-memory pipe, is left as it is)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)


def text_frame(data: bytes) -> bytes:
    """One unfragmented, unmasked, uncompressed text frame (RFC 6455 §5.2) — what the
    ``websockets`` protocol frames for a server, without its per-frame machinery (the server
    never fragments, so its protocol state does not change)."""
    size = len(data)
    if size < 126:
        return bytes((0x81, size)) + data
    if size < 1 << 16:
        return bytes((0x81, 126)) + size.to_bytes(2, "big") + data
    return bytes((0x81, 127)) + size.to_bytes(8, "big") + data
