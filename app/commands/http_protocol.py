"""The HTTP transport of ``prefclub serve``: uvicorn's httptools protocol with a header deadline.

uvicorn has no limit on the time a client takes to send a request's headers: 50 half-sent
requests ("slowloris") were all still open after 60 s (issue 24), each holding a connection
and its buffers. Here:

* **Headers within** ``HEADER_TIMEOUT`` **seconds** (default 10): from the moment a connection
  opens, and from the first byte of each further request on a kept-alive connection, until its
  headers are complete. A connection that is late is closed. (The body has its own cap,
  :mod:`app.api.body_limit`; idle kept-alive connections uvicorn's ``timeout_keep_alive``.)
* **At most** ``INCOMPLETE_PER_ADDRESS`` **stalled connections per client address**
  (default 8; 0 = no limit): while that many of an address's connections have been waiting
  for their headers longer than :data:`STALL_GRACE` (half a second: far longer than any
  client that is not stalling takes), a new connection from it is closed at once, before it is
  read. Connections opened together (a page's parallel loads, two members behind one NAT
  arriving at once, a test's bots) are not stalled and are served. The count is this
  process's; behind a reverse proxy every client has the proxy's address, so there the proxy
  should apply its own limits and this one be set to 0.

A websocket handshake is an HTTP request like any other: the deadline ends with its headers,
and the socket then belongs to :mod:`app.commands.ws_protocol`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger(__name__)

HEADER_TIMEOUT = 10.0
INCOMPLETE_PER_ADDRESS = 8
STALL_GRACE = 0.5
"""Seconds a connection may wait for its headers before it counts against its address's cap."""


class ClubHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the header deadline and the per-address cap on
    incomplete connections (module docstring). :meth:`configured` makes the class with other
    limits."""

    header_timeout: ClassVar[float] = HEADER_TIMEOUT
    incomplete_per_address: ClassVar[int] = INCOMPLETE_PER_ADDRESS
    _incomplete: ClassVar[defaultdict[str, dict[ClubHttpProtocol, float]]] = defaultdict(dict)
    """Connections whose current request has not sent all its headers yet, by client address
    (one registry per configured class: every connection of a server shares it)."""

    @classmethod
    def configured(
        cls, header_timeout: float, incomplete_per_address: int
    ) -> type[ClubHttpProtocol]:
        """This protocol with its own limits and registry (what ``prefclub serve`` hands
        uvicorn, from the settings)."""
        return type(
            "ClubHttpProtocol",
            (cls,),
            {
                "header_timeout": header_timeout,
                "incomplete_per_address": incomplete_per_address,
                "_incomplete": defaultdict(dict),
            },
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_deadline: asyncio.TimerHandle | None = None
        self._address: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._address = self.client[0] if self.client else None
        waiting = self._incomplete[self._address] if self._address is not None else None
        if (
            waiting is not None
            and self.incomplete_per_address > 0
            and len(waiting) >= self.incomplete_per_address
            and self._stalled(waiting) >= self.incomplete_per_address
        ):
            log.info(
                "closing a connection: too many incomplete requests from its address",
                extra={"limit": self.incomplete_per_address},
            )
            self._address = None
            transport.close()
            return
        self._await_headers()

    def _stalled(self, waiting: dict[ClubHttpProtocol, float]) -> int:
        """How many of ``waiting`` have waited for their headers past :data:`STALL_GRACE`."""
        since = self.loop.time() - STALL_GRACE
        return sum(1 for started in waiting.values() if started <= since)

    def _await_headers(self) -> None:
        """Start the header deadline and count the connection as incomplete."""
        if self._header_deadline is None:
            self._header_deadline = self.loop.call_later(
                self.header_timeout, self._headers_too_late
            )
        if self._address is not None:
            self._incomplete[self._address].setdefault(self, self.loop.time())

    def _headers_done(self) -> None:
        """Stop the deadline; the connection no longer counts as incomplete."""
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None
        if self._address is not None:
            waiting = self._incomplete.get(self._address)
            if waiting is not None:
                waiting.pop(self, None)
                if not waiting:
                    del self._incomplete[self._address]

    def _headers_too_late(self) -> None:
        self._header_deadline = None
        self._headers_done()
        log.info("closing a connection: its request headers took over %s s", self.header_timeout)
        if not self.transport.is_closing():
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._await_headers()  # a further request on a kept-alive connection

    def on_headers_complete(self) -> None:
        self._headers_done()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._headers_done()
        super().connection_lost(exc)
