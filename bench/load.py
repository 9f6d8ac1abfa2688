"""The load generator of ``bench.server``: many bot sockets on one asyncio loop per process.

Each seat is an ordinary :class:`~app.bots.client.BotClient` (the public protocol only) whose
moves are held back until the measurement starts and then paced: at *human* pace the seat to
act waits a uniform 1.5–2.5 s before sending (so a table sees a command every ~2 s), at *max*
pace it sends as soon as it may. The wait runs in its own task, so a thinking seat keeps reading
its socket and the "every seat has it" times stay honest.

:func:`worker` is the body of one client process: it connects its tables' seats, reports ready,
waits for the go, plays for ``duration`` seconds and sends back its measurements.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from dataclasses import dataclass, field
from typing import Any

import uvloop

from app.bots.client import BotClient
from app.bots.strategy import Strategy

HUMAN_THINK = (1.5, 2.5)
CONNECTING = 20
"""Sockets a client process opens at once (each waits for its snapshot before the next)."""


class PacedClient(BotClient):
    """A bot seat that acts only once ``gate`` is open, after a think time drawn per move."""

    def __init__(
        self,
        *args: Any,
        gate: asyncio.Event,
        think_range: tuple[float, float] | None,
        rng: random.Random,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.gate = gate
        self.think_range = think_range
        self.rng = rng
        self._thinking: asyncio.Task[None] | None = None
        self._started = False

    def _ready(self) -> bool:
        return (
            self.gate.is_set()
            and self.play
            and self.pending is None
            and bool(self.legal)
            and self.view is not None
            and self._ws is not None
            and self.seat is not None
        )

    async def _maybe_act(self) -> None:
        if not self._ready():
            return
        if self.think_range is None:
            await super()._maybe_act()
            return
        if self._thinking is None or self._thinking.done():
            self._thinking = asyncio.get_running_loop().create_task(self._think_then_act())

    async def _think_then_act(self) -> None:
        assert self.think_range is not None
        low, high = self.think_range
        if not self._started:
            # Tables do not start in step: the first think of each seat is drawn over the
            # whole interval, so a thousand tables do not all send in the same second.
            self._started = True
            low = 0.0
        await asyncio.sleep(self.rng.uniform(low, high))
        if self._ready():
            with contextlib.suppress(Exception):
                await super()._maybe_act()


@dataclass
class WorkerSpec:
    """What one client process runs: its tables (each a list of ``(ws base, origin, cookie)``
    per seat), the pace and the measurement window."""

    tables: list[tuple[int, list[tuple[str, str, str]]]]
    pace: str
    duration: float
    seed: int = 1
    connect_timeout: float = 600.0
    extra: dict[str, Any] = field(default_factory=dict)


def _window_latencies(
    groups: list[list[PacedClient]], t0: float, t1: float
) -> tuple[list[float], list[float], int]:
    """Ack and all-seats latencies (ms) of commands sent inside [t0, t1]; their count."""
    acks: list[float] = []
    every: list[float] = []
    for group in groups:
        for bot in group:
            for (sent_at, seq), ack in zip(bot.stats.sent, bot.stats.ack_ms, strict=False):
                if not t0 <= sent_at <= t1:
                    continue
                acks.append(ack)
                arrivals = [b.stats.seen_at.get(seq) for b in group]
                if all(a is not None for a in arrivals):
                    every.append((max(a for a in arrivals if a is not None) - sent_at) * 1000)
    return acks, every, len(acks)


async def run_worker(spec: WorkerSpec, ready: Any = None, go: Any = None) -> dict[str, Any]:
    """Connect, (signal ``ready`` and wait for ``go``: multiprocessing events), play, measure."""
    gate = asyncio.Event()
    rng = random.Random(spec.seed)
    think = HUMAN_THINK if spec.pace == "human" else None
    groups: list[list[PacedClient]] = []
    for table_id, seats in spec.tables:
        groups.append(
            [
                PacedClient(
                    base,
                    table_id,
                    cookie,
                    origin,
                    gate=gate,
                    think_range=think,
                    rng=random.Random(rng.random()),
                    strategy=Strategy(random.Random(rng.random())),
                    name=f"t{table_id}s{index}",
                )
                for index, (base, origin, cookie) in enumerate(seats)
            ]
        )
    bots = [b for g in groups for b in g]
    runs = []
    connect_started = time.perf_counter()
    deadline = time.monotonic() + spec.connect_timeout
    opening: list[PacedClient] = []
    for bot in bots:
        # At most CONNECTING handshakes in flight: a burst of thousands makes a busy server
        # miss the clients' open timeouts, and their retries keep it saturated.
        while len(opening) >= CONNECTING and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
            opening = [b for b in opening if b.last_seq is None]
        runs.append(asyncio.create_task(bot.run()))
        opening.append(bot)
    while time.monotonic() < deadline and any(b.last_seq is None for b in bots):
        await asyncio.sleep(0.1)
    connected = sum(b.last_seq is not None for b in bots)
    connect_seconds = time.perf_counter() - connect_started
    loop = asyncio.get_running_loop()
    if ready is not None:
        ready.set()
    if go is not None:
        await loop.run_in_executor(None, go.wait)
    # The load generator is the measuring instrument: its own garbage collections (hundreds of
    # ms with thousands of sockets' stats) would show up as server latency. Nothing of what it
    # holds now is freed during the window, and it keeps little garbage with cycles.
    gc.collect()
    gc.freeze()
    gc.disable()
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    gate.set()
    for bot in bots:
        await bot._maybe_act()
    await asyncio.sleep(spec.duration)
    t1 = time.perf_counter()
    cpu = time.process_time() - cpu0
    gc.enable()
    gc.unfreeze()
    for bot in bots:
        bot.stop()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*runs, return_exceptions=True), 20)
    acks, every, commands = _window_latencies(groups, t0, t1)
    codes: dict[str, int] = {}
    for bot in bots:
        for code, n in bot.stats.error_codes.items():
            codes[code] = codes.get(code, 0) + n
    return {
        "sockets": len(bots),
        "connected": connected,
        "connect_seconds": round(connect_seconds, 2),
        "seconds": t1 - t0,
        "commands": commands,
        "ack_ms": acks,
        "all_seats_ms": every,
        "errors": sum(b.stats.errors for b in bots),
        "error_codes": codes,
        "reconnects": sum(b.stats.reconnects for b in bots),
        "cpu_seconds": cpu,
    }


def worker(spec: WorkerSpec, ready: Any, go: Any, out: Any) -> None:
    """A client process's entry point: run :func:`run_worker` on uvloop (the event loop the
    server runs on: the load generator shares the machine's two cores with it, so the less
    CPU it spends per message the more the server gets), put its result on ``out``."""
    try:
        out.put(uvloop.run(run_worker(spec, ready, go)))
    except BaseException as exc:  # report, so the parent does not wait for ever
        ready.set()
        out.put({"failed": repr(exc)})
        raise
