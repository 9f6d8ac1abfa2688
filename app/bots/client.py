"""A bot that sits at a table through the public socket protocol (docs/protocol.md) only.

It connects with its session cookie and an allowed ``Origin``, says ``hello`` with the last
``seq`` it saw, keeps the latest view and legal actions from each message, and when it may act
it sends one command at a time (with the ``seq`` it is based on) and waits for its ``ack``. If the
socket drops it reconnects and resumes from its last ``seq``. Every message it receives can be
handed to an observer (the leak test checks them all). Messages are parsed and commands
encoded by orjson (a load generator of thousands of seats spends much of its time there).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from app.bots.strategy import Strategy
from app.realtime.budget import FrameBudget
from app.realtime.socket_caps import CLOSE_REPLACED

log = logging.getLogger(__name__)

PACE_RATE, PACE_BURST = 15.0, 20
"""A bot's own frame budget: safely under the server's (20 a second, 40 at once; over it the
socket is closed with 4429, docs/protocol.md)."""

Observer = Callable[["BotClient", dict[str, Any]], None]


@dataclass
class BotStats:
    commands: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    ack_ms: list[float] = field(default_factory=list)
    sent: list[tuple[float, int]] = field(default_factory=list)
    """(send time, acked seq) of every acknowledged command."""
    seen_at: dict[int, float] = field(default_factory=dict)
    """When this bot first received each ``seq`` (event or snapshot)."""
    reconnects: int = 0


class BotClient:
    """One seat (or a spectator, ``play=False``) at one table."""

    def __init__(
        self,
        base_ws: str,
        table_id: int,
        cookie: str,
        origin: str,
        *,
        strategy: Strategy | None = None,
        play: bool = True,
        max_deals: int | None = None,
        observer: Observer | None = None,
        name: str = "bot",
        think: float = 0.0,
    ) -> None:
        self.url = f"{base_ws}/ws/tables/{table_id}"
        self.table_id = table_id
        self.cookie = cookie
        self.origin = origin
        self.strategy = strategy or Strategy()
        self.play = play
        self.max_deals = max_deals
        self.observer = observer
        self.name = name
        self.think = think
        self.seat: int | None = None
        self.last_seq: int | None = None
        self.view: dict[str, Any] | None = None
        self.legal: list[dict[str, Any]] = []
        self.table: dict[str, Any] = {}
        self.presence: list[int] = []
        self.stats = BotStats()
        self.pending: tuple[str, float] | None = None
        self.pending_command: str | None = None
        self._rejoined = False
        self._pace = FrameBudget(PACE_RATE, PACE_BURST)
        self.failures = 0
        self.finished = asyncio.Event()
        self._ws: Any = None
        self._counter = 0
        self._stop = False

    # -- running -------------------------------------------------------------------------------

    async def run(self) -> None:
        """Play until the table is finished (or ``max_deals`` deals are over) or stop() is called;
        reconnect whenever the socket drops."""
        delay = 0.2
        while not self._stop and not self.finished.is_set():
            try:
                async with websockets.connect(
                    self.url,
                    additional_headers={"Cookie": self.cookie},
                    origin=self.origin,  # type: ignore[arg-type]
                    max_size=2**22,
                    open_timeout=10,
                    ping_interval=20,
                    ping_timeout=20,
                ) as ws:
                    self._ws = ws
                    self._rejoined = True
                    await self._send(ws, json.dumps({"type": "hello", "last_seq": self.last_seq}))
                    delay = 0.2
                    async for raw in ws:
                        await self._on_message(orjson.loads(raw))
                        if self._stop or self.finished.is_set():
                            break
            except InvalidStatus as exc:
                # 5xx (the server's database is down, a proxy without its backend): try again
                # with backoff; a 4xx (not logged in, no such table) will not get better.
                if exc.response.status_code < 500:
                    raise
            except ConnectionClosed as exc:
                if exc.rcvd is not None and exc.rcvd.code == CLOSE_REPLACED:
                    return  # a newer socket of this member took over: it plays, not this one
            except (OSError, TimeoutError):
                pass
            finally:
                self._ws = None
            if self._stop or self.finished.is_set():
                return
            self.stats.reconnects += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)

    async def _send(self, ws: Any, text: str) -> None:
        """Send a frame within the bot's own budget (:data:`PACE_RATE`)."""
        delay = self._pace.wait()
        if delay > 0:
            await asyncio.sleep(delay)
        self._pace.take()
        await ws.send(text)

    def stop(self) -> None:
        self._stop = True
        if self._ws is not None:
            task = asyncio.get_running_loop().create_task(self._ws.close())
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    async def drop_connection(self) -> None:
        """Close the socket abruptly (tests: a reload / a network drop); run() reconnects."""
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()

    # -- messages ------------------------------------------------------------------------------

    async def _on_message(self, message: dict[str, Any]) -> None:
        if self.observer is not None:
            self.observer(self, message)
        kind = message.get("type")
        now = time.perf_counter()
        if kind == "welcome":
            self.seat = message.get("seat")
            return
        if kind == "presence":
            # Presence follows the catch-up after (re)joining: the view is current now.
            self.presence = list(message.get("connected", []))
            if self._rejoined and self.pending is not None and self.pending_command:
                # A command sent before the drop may or may not have been applied: resend it
                # with the same id (the server applies it at most once).
                self._rejoined = False
                with contextlib.suppress(ConnectionClosed):
                    await self._send(self._ws, self.pending_command)
                return
            self._rejoined = False
            await self._maybe_act()
            return
        if kind == "ack":
            if self.pending is not None and message.get("id") == self.pending[0]:
                sent_at = self.pending[1]
                self.stats.ack_ms.append((now - sent_at) * 1000)
                self.stats.sent.append((sent_at, int(message["seq"])))
                self.pending = None
                self.failures = 0
            await self._maybe_act()
            return
        if kind == "error":
            code = str(message.get("code"))
            self.stats.errors += 1
            self.stats.error_codes[code] = self.stats.error_codes.get(code, 0) + 1
            if self.pending is not None and message.get("id") == self.pending[0]:
                self.pending = None
                if code != "stale_seq":
                    self.failures += 1
            await self._maybe_act()
            return
        if kind == "heartbeat":
            seq = message.get("seq")
            if isinstance(seq, int) and self.last_seq is not None and seq > self.last_seq + 50:
                await self.drop_connection()  # far behind: resync
            return
        if kind in ("pong", "last_trick"):
            return
        seq = message.get("seq")
        if not isinstance(seq, int):
            return
        self.stats.seen_at.setdefault(seq, now)
        self.last_seq = seq
        if kind in ("player_joined", "player_replaced") and "seat" in message:
            self.seat = message["seat"]  # seats moved (R-T4) or this member left (R-T5)
        if kind == "snapshot" and "seat" in message:
            self.seat = message["seat"]
        if "deal" in message:
            self.view = message
            self.legal = list(message.get("legal") or [])
        if "table" in message:
            self.table = message["table"]
        if self.table.get("status") == "finished" or self._deals_done():
            self.finished.set()
            return
        if (
            self.max_deals is not None
            and kind == "deal_ended"
            and message.get("data", {}).get("deal_no", 0) >= self.max_deals
        ):
            self.finished.set()
            return
        await self._maybe_act()

    def _deals_done(self) -> bool:
        return self.max_deals is not None and int(self.table.get("deal_no", 0)) > self.max_deals

    async def _maybe_act(self) -> None:
        if (
            not self.play
            or self.pending is not None
            or not self.legal
            or self.view is None
            or self._ws is None
            or self.seat is None
            or self._deals_done()
        ):
            return
        if self.failures >= 3:
            choice: dict[str, Any] | None = dict(random.choice(self.legal))
        else:
            choice = self.strategy.choose(self.view, self.legal, self.seat)
        if choice is None:
            return
        if self.think:
            await asyncio.sleep(self.think)
        self._counter += 1
        cid = f"{self.name}-{self._counter}-{random.getrandbits(24):06x}"
        command = {"id": cid, "seq": self.last_seq, **choice}
        self.pending = (cid, time.perf_counter())
        self.pending_command = orjson.dumps(command).decode()
        self.stats.commands += 1
        with contextlib.suppress(ConnectionClosed):
            await self._send(self._ws, self.pending_command)
