"""One client socket: a bounded outbound queue, drained by a writer task while messages wait.

Fan-out never awaits a client: :meth:`Connection.send` only takes a ready JSON text. When the
server offers a way to write without waiting (the :data:`SEND_NOWAIT` ASGI extension of
``prefclub serve``), the texts a socket is given in one turn of the event loop (an event and the
command's ack, say) are written together at the end of that turn, in one write, if the socket
takes them; otherwise they go to the queue. A client that falls
``queue_limit`` messages behind, or whose socket accepts nothing for ``send_timeout`` seconds,
is disconnected (close code 4008); it reconnects and resyncs from the last ``seq`` it saw, and
its table never waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import orjson

log = logging.getLogger(__name__)

SEND_NOWAIT = "prefclub.send_nowait"
"""An ASGI scope extension (``app.commands.ws_protocol``): ``{"send": callable, "abort":
callable}``, where ``send(texts)`` writes each text as a text frame, all in one write, and
returns True — or returns False (nothing written) when the socket would make the writer wait;
``abort()`` closes the TCP connection at once, whatever is still buffered."""
CLOSE_GRACE = 5.0
"""Seconds a dropped client has to answer the close frame before its connection is aborted:
a client that never reads would otherwise hold it open (buffer and file descriptor) for good."""

CLOSE_TOO_SLOW = 4008
CLOSE_SESSION_ENDED = 4401
"""The member's login session ended (logout, deactivation, expiry): log in again."""


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


def dumps(message: Any) -> str:
    """A message (or any JSON value) as compact JSON text, non-ASCII as is: the text
    ``json.dumps(message, separators=(",", ":"), ensure_ascii=False)`` gives, made by orjson
    (about seven times faster: encoding the seats' views was a tenth of the server's CPU at
    full load; the event rows' JSON is made the same way). What orjson
    refuses (an integer beyond 64 bits, say) goes to ``json``, which then decides. Keys that
    are not strings are written as ``json`` writes them, by a second try (the option that
    allows them halves orjson's speed, and no message has them)."""
    try:
        return orjson.dumps(message).decode()
    except TypeError:
        pass
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


class Connection:
    """A member's (or spectator's) socket at one table.

    Outbound messages wait in a deque; a writer task runs only while there is something to
    send and ends when the deque is empty. An idle socket therefore holds no waiting coroutine,
    future or task: with thousands of sockets those were re-created on every message and made
    up most of what each garbage collection walked (docs/performance.md "Loop stalls").
    """

    def __init__(
        self,
        socket: Socket,
        *,
        table_id: int,
        member_id: int,
        seat: int | None,
        name: str,
        queue_limit: int = 256,
        send_timeout: float = 10.0,
        send_nowait: Callable[[list[str]], bool] | None = None,
        abort: Callable[[], None] | None = None,
    ) -> None:
        self.socket = socket
        self.abort = abort
        """Closes the TCP connection at once (:data:`SEND_NOWAIT`); used after a drop."""
        self.send_nowait = send_nowait
        """Writes text frames without waiting, if it can (:data:`SEND_NOWAIT`)."""
        self.table_id = table_id
        self.member_id = member_id
        self.seat = seat
        self.name = name
        self.queue_limit = queue_limit
        self.send_timeout = send_timeout
        self.closed = asyncio.Event()
        self.close_code: int | None = None
        self.last_seq = 0
        """The last sequenced event queued to this client."""
        self.session_id: int | None = None
        """The login session the socket was opened with (closed when it is revoked)."""
        self.reader: asyncio.Task[Any] | None = None
        """The task reading this socket while it waits for a frame (cancelled by :meth:`drop`)."""
        self._outbox: deque[str] = deque()
        self._turn: list[str] = []
        """Texts given in this turn of the loop, written at its end (with :attr:`send_nowait`)."""
        self._writer: asyncio.Task[None] | None = None
        self._flushing = False
        self.closing: asyncio.Task[None] | None = None
        """The close :meth:`drop` started (the socket's handler waits for it before it ends)."""

    @property
    def queued(self) -> int:
        """Messages waiting to be written."""
        return len(self._outbox) + len(self._turn)

    @property
    def writing(self) -> bool:
        """Whether a writer task is running (only while messages wait)."""
        return self._writer is not None

    def send(self, message: dict[str, Any] | str) -> bool:
        """Queue a message; drop the client (never block) if its queue is full."""
        if self.closed.is_set() or self._flushing:
            return False
        if self.queued >= self.queue_limit:
            log.warning(
                "dropping a slow client", extra={"table": self.table_id, "member": self.member_id}
            )
            self.drop(CLOSE_TOO_SLOW, "too slow: reconnect and resync")
            return False
        text = message if isinstance(message, str) else dumps(message)
        if self._writer is None and self.send_nowait is not None:
            if not self._turn:
                asyncio.get_running_loop().call_soon(self._write_turn)
            self._turn.append(text)
            return True
        self._outbox.append(text)
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())
        return True

    def _write_turn(self) -> None:
        """At the end of a loop turn: write what this turn gave, at once if the socket takes it,
        else through the queue (ahead of anything given later)."""
        texts, self._turn = self._turn, []
        if not texts or self.closed.is_set():
            return
        assert self.send_nowait is not None
        try:
            if self.send_nowait(texts):
                return
        except Exception:  # a dead socket: the writer's send finds out and drops it
            pass
        self._outbox.extend(texts)
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    def send_event(self, seq: int, text: str) -> bool:
        """Queue sequenced event ``seq`` (events reach a client in order, without gaps)."""
        if seq <= self.last_seq:
            return True
        if self.send(text):
            self.last_seq = seq
            return True
        return False

    def drop(self, code: int, reason: str) -> None:
        """Disconnect now: stop writing and reading, and close the socket in the background."""
        if self.closed.is_set():
            return
        self.closed.set()
        self.close_code = code
        self._outbox.clear()
        self._turn.clear()
        if self._writer is not None:
            self._writer.cancel()
        if self.reader is not None:
            self.reader.cancel()
        task = asyncio.get_running_loop().create_task(self._close(code, reason))
        task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)
        self.closing = task

    async def _close(self, code: int, reason: str) -> None:
        """Send the close frame (if the socket takes it within the grace), then abort the
        connection once the grace is over, unless the client closed it by then (nothing waits
        for that: the socket's handler ends at once)."""
        if self.abort is not None:
            asyncio.get_running_loop().call_later(CLOSE_GRACE, self._abort)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(code=code, reason=reason), CLOSE_GRACE)

    def _abort(self) -> None:
        if self.abort is not None:
            with contextlib.suppress(Exception):
                self.abort()

    async def _write(self) -> None:
        # ``asyncio.timeout`` rather than ``wait_for``: on Python 3.11 ``wait_for`` wraps every
        # send in a new Task.
        outbox = self._outbox
        try:
            while outbox:
                text = outbox.popleft()
                async with asyncio.timeout(self.send_timeout):
                    await self.socket.send_text(text)
        except asyncio.CancelledError:
            raise
        except Exception:  # a dead or stuck socket
            if not self.closed.is_set():
                self.drop(CLOSE_TOO_SLOW, "send failed")
        finally:
            self._writer = None

    async def flush(self, timeout: float = 2.0) -> None:
        """Let the writer send what is queued (e.g. a last error before a close); nothing queued
        after this call is sent."""
        self._write_turn()
        self._flushing = True
        writer = self._writer
        if self.closed.is_set() or writer is None:
            return
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(writer), timeout)

    async def aclose(self) -> None:
        """Stop the writer (the socket is already gone or being closed)."""
        self.closed.set()
        self._outbox.clear()
        self._turn.clear()
        writer = self._writer
        if writer is not None:
            writer.cancel()
            with contextlib.suppress(BaseException):
                await writer
