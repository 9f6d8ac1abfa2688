"""Helpers of the live-table end-to-end tests: scratch databases, real servers, raw socket
clients and a deterministic driver that plays a deal through the public protocol only."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import websockets
from sqlalchemy import func, select

from app.bots.harness import Seat, make_bot_table, make_member
from app.bots.strategy import Strategy
from app.db.engine import make_engine, make_sessionmaker, session_scope
from tests.support.server import ServerProcess

SECRET = "e2e-secret-key-that-is-long-enough-for-signing"


def server(
    url: str,
    data_dir: Path,
    port: int | None = None,
    log_name: str | None = None,
    module: str = "app.cli",
) -> ServerProcess:
    """A ``python -m MODULE serve`` process (not started) over ``url`` for the e2e tests."""
    env = {
        "DATABASE_URL": url,
        "PREFCLUB_DATA_DIR": str(data_dir),
        "SECRET_KEY": SECRET,
        "LOG_LEVEL": "WARNING",
        "PREFCLUB_ENV": "test",
        "PREFCLUB_LUCK": "0",  # no analyses in the background of latency and browser tests
    }
    log_path = data_dir / (log_name or f"serve-{uuid.uuid4().hex[:6]}.log")
    return ServerProcess(env, port=port, log_path=log_path, module=module)


async def setup_table(
    url: str,
    players: int = 3,
    *,
    target: int = 200,
    first_dealer: int = 0,
    move_timer_seconds: int | None = None,
    spectators: int = 0,
    preset: str = "club",
    practice: bool = True,
) -> tuple[int, list[Seat], list[Seat]]:
    """A bot table with fresh members (a practice table unless ``practice=False``); returns
    its id, its seats and spectator accounts."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            now = await db.scalar(select(func.now()))
            assert now is not None
            prefix = f"e2e-{uuid.uuid4().hex[:8]}"
            table_id, seats = await make_bot_table(
                db,
                prefix,
                players,
                now,
                target=target,
                first_dealer=first_dealer,
                move_timer_seconds=move_timer_seconds,
                preset=preset,
                practice=practice,
            )
            watchers = [
                await make_member(db, f"{prefix}-w{i}", f"Watcher {i}", now, bot=False)
                for i in range(spectators)
            ]
        return table_id, seats, watchers
    finally:
        await engine.dispose()


class Client:
    """A raw protocol client: it keeps every message it receives."""

    def __init__(
        self, srv: ServerProcess, table_id: int, cookie: str | None, origin: str | None = None
    ) -> None:
        self.url = f"ws://127.0.0.1:{srv.port}/ws/tables/{table_id}"
        self.cookie = cookie
        self.origin = origin if origin is not None else srv.base_url
        self.messages: list[dict[str, Any]] = []
        self.ws: Any = None
        self.last_seq: int | None = None
        self.seat: int | None = None
        self.latest: dict[str, Any] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._counter = 0

    async def connect(self, last_seq: int | None = None) -> dict[str, Any]:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        self.ws = await websockets.connect(
            self.url, additional_headers=headers, origin=self.origin, max_size=2**22
        )  # type: ignore[arg-type]
        await self.ws.send(json.dumps({"type": "hello", "last_seq": last_seq}))
        self._reader = asyncio.create_task(self._read())
        welcome = await self.wait_for(lambda m: m.get("type") == "welcome")
        self.seat = welcome["seat"]
        # The server sends presence right after bringing the client up to date.
        await self.wait_for(lambda m: m.get("type") == "presence")
        return welcome

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                message = json.loads(raw)
                self.messages.append(message)
                if isinstance(message.get("seq"), int) and "deal" in message:
                    self.last_seq = message["seq"]
                    self.latest = message
                    if message.get("type") in ("snapshot", "player_joined", "player_replaced"):
                        self.seat = message["seat"]  # seats move when a player joins (R-T4)
                self._changed.set()
        self._changed.set()

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15.0, start: int = 0
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        index = start
        while True:
            while index < len(self.messages):
                if predicate(self.messages[index]):
                    return self.messages[index]
                index += 1
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no matching message; last: {self.messages[-3:]}")
            self._changed.clear()
            if self._reader is not None and self._reader.done() and index >= len(self.messages):
                raise ConnectionError(f"socket closed: {self._closed_by()}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    def _closed_by(self) -> str:
        """Who closed the socket and why (its close frames, or the reader's own error): a
        failure names the cause — a slow reader's 4008, a keepalive timeout, a server error."""
        reader = self._reader
        if reader is not None and not reader.cancelled() and reader.exception() is not None:
            return f"the reader failed: {reader.exception()!r}"
        ws = self.ws
        received, sent = getattr(ws, "close_rcvd", None), getattr(ws, "close_sent", None)
        return f"received {received}, sent {sent}; last: {self.messages[-2:]}"

    async def wait_seq(self, seq: int, timeout: float = 15.0) -> None:
        await self.wait_for(
            lambda m: (
                isinstance(m.get("seq"), int)
                and m["seq"] >= seq
                and m.get("type") not in ("welcome", "heartbeat", "error", "ack", "last_trick")
            ),
            timeout,
        )

    def next_id(self) -> str:
        self._counter += 1
        return f"s{self.seat}-{self._counter}-{uuid.uuid4().hex[:6]}"

    async def command(
        self, body: dict[str, Any], cid: str | None = None, seq: int | str | None = "auto"
    ) -> dict[str, Any]:
        """Send a command and wait for its ack or error."""
        cid = cid or self.next_id()
        message = {"id": cid, **body}
        if seq == "auto":
            message["seq"] = self.last_seq
        elif seq is not None:
            message["seq"] = seq
        start = len(self.messages)
        await self.ws.send(json.dumps(message))
        return await self.wait_for(
            lambda m: (
                m.get("type") in ("ack", "error", "pong", "last_trick") and m.get("id") == cid
            ),
            start=start,
        )

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(BaseException):
                await self._reader


@contextlib.asynccontextmanager
async def clients(
    srv: ServerProcess, table_id: int, seats: list[Seat]
) -> AsyncIterator[list[Client]]:
    made = [Client(srv, table_id, s.cookie) for s in seats]
    try:
        for c in made:
            await c.connect()
        yield made
    finally:
        for c in made:
            await c.close()


class Driver:
    """Plays a table move by move: the seat to move decides with the bot strategy from its own
    view and legal list, sends, and waits until every client has the resulting seq."""

    def __init__(
        self, players: list[Client], watchers: list[Client] | None = None, seed: int = 1
    ) -> None:
        self.players = players
        self.watchers = watchers or []
        self.strategy = Strategy(random.Random(seed))
        self.commands = 0

    def view(self) -> dict[str, Any]:
        latest = max((c.latest for c in self.players if c.latest), key=lambda m: m["seq"])
        return latest

    def mover(self) -> Client | None:
        deal = self.view()["deal"]
        if deal is None or deal.get("to_move") is None:
            return None
        for c in self.players:
            if c.seat == deal["to_move"]:
                return c
        return None

    async def step(
        self, choose: Callable[[Client], dict[str, Any] | None] | None = None
    ) -> dict[str, Any]:
        mover = self.mover()
        assert mover is not None, self.view()
        assert mover.latest is not None
        body = (choose(mover) if choose else None) or self.strategy.choose(
            mover.latest, mover.latest["legal"], mover.seat or 0
        )
        assert body is not None, mover.latest
        answer = await mover.command(body)
        assert answer["type"] == "ack", answer
        self.commands += 1
        for c in [*self.players, *self.watchers]:
            await c.wait_seq(answer["seq"])
        return answer

    async def play_deal(
        self, choose: Callable[[Client], dict[str, Any] | None] | None = None, limit: int = 200
    ) -> dict[str, Any]:
        """Play until the current deal ends; return the ``deal_ended`` event (seat 0's copy)."""
        start = len(self.players[0].messages)
        for _ in range(limit):
            await self.step(choose)
            for m in self.players[0].messages[start:]:
                if m.get("type") == "deal_ended":
                    return m
        raise AssertionError("the deal did not end")


CARD = re.compile(r"^(7|8|9|10|J|Q|K|A)[SCDH]$")
NOT_CARDS = frozenset({"call", "contract", "bid"})


def card_tokens(value: Any, key: str | None = None) -> set[str]:
    """Every card text in a message (contract and call fields look like cards and are skipped)."""
    if key in NOT_CARDS:
        return set()
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        out: set[str] = set()
        for k, v in value.items():
            out |= card_tokens(v, k)
        return out
    if isinstance(value, list):
        out = set()
        for v in value:
            out |= card_tokens(v, key)
        return out
    return set()
