"""One client socket: a bounded outbound queue drained by its own writer task.

Fan-out never awaits a client: :meth:`Connection.send` only puts a ready JSON text on the queue.
A client that falls ``queue_limit`` messages behind, or whose socket accepts nothing for
``send_timeout`` seconds, is disconnected (close code 4008); it reconnects and resyncs from the
last ``seq`` it saw, and its table never waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any, Protocol

log = logging.getLogger(__name__)

CLOSE_TOO_SLOW = 4008
CLOSE_SESSION_ENDED = 4401
"""The member's login session ended (logout, deactivation, expiry): log in again."""


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


class Connection:
    """A member's (or spectator's) socket at one table."""

    def __init__(self, socket: Socket, *, table_id: int, member_id: int, seat: int | None,
                 name: str, queue_limit: int = 256, send_timeout: float = 10.0) -> None:
        self.socket = socket
        self.table_id = table_id
        self.member_id = member_id
        self.seat = seat
        self.name = name
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=queue_limit)
        self.send_timeout = send_timeout
        self.closed = asyncio.Event()
        self.close_code: int | None = None
        self.last_seq = 0
        """The last sequenced event queued to this client."""
        self.session_id: int | None = None
        """The login session the socket was opened with (closed when it is revoked)."""
        self._writer: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._writer = asyncio.create_task(self._write(), name=f"ws-writer-{self.table_id}")

    def send(self, message: dict[str, Any] | str) -> bool:
        """Queue a message; drop the client (never block) if its queue is full."""
        if self.closed.is_set():
            return False
        text = message if isinstance(message, str) else dumps(message)
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("dropping a slow client", extra={"table": self.table_id,
                                                         "member": self.member_id})
            self.drop(CLOSE_TOO_SLOW, "too slow: reconnect and resync")
            return False
        return True

    def send_event(self, seq: int, text: str) -> bool:
        """Queue sequenced event ``seq`` (events reach a client in order, without gaps)."""
        if seq <= self.last_seq:
            return True
        if self.send(text):
            self.last_seq = seq
            return True
        return False

    def drop(self, code: int, reason: str) -> None:
        """Disconnect now: stop writing and close the socket in the background."""
        if self.closed.is_set():
            return
        self.closed.set()
        self.close_code = code
        if self._writer is not None:
            self._writer.cancel()
        task = asyncio.get_running_loop().create_task(self._close(code, reason))
        task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(code=code, reason=reason), 5)

    async def _write(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    return
                await asyncio.wait_for(self.socket.send_text(text), self.send_timeout)
        except asyncio.CancelledError:
            raise
        except Exception:  # a dead or stuck socket
            if not self.closed.is_set():
                self.drop(CLOSE_TOO_SLOW, "send failed")

    async def flush(self, timeout: float = 2.0) -> None:
        """Let the writer send what is queued (e.g. a last error before a close), then stop it."""
        if self.closed.is_set() or self._writer is None:
            return
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(self._writer), timeout)

    async def aclose(self) -> None:
        """Stop the writer (the socket is already gone or being closed)."""
        self.closed.set()
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(BaseException):
                await self._writer
