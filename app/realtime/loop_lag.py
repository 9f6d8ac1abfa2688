"""How late the event loop wakes: every table's sockets share it, so its lag is their lag.

:class:`LoopLagProbe` sleeps ``interval`` seconds again and again and records how much later
than asked each sleep woke. A loop blocked by CPU work (a long fold, a collection pause, a
forgotten synchronous call) shows as lag at once. The probe costs one timer wake-up per
``interval``; ``/metrics`` reports the latest lag and the worst of the last :data:`WINDOW`
samples (docs/metrics.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque

INTERVAL = 0.5
"""Seconds between two probes."""
WINDOW = 120
"""Samples the worst lag is taken over (a minute at :data:`INTERVAL`)."""


class LoopLagProbe:
    """A background task measuring the running loop's wake-up lag (start it on that loop)."""

    def __init__(self, interval: float = INTERVAL, window: int = WINDOW) -> None:
        self.interval = interval
        self.samples: deque[float] = deque(maxlen=window)
        self._task: asyncio.Task[None] | None = None

    @property
    def latest(self) -> float:
        """The last sample's lag in seconds (0.0 before the first)."""
        return self.samples[-1] if self.samples else 0.0

    @property
    def worst(self) -> float:
        """The largest lag of the window (0.0 before the first sample)."""
        return max(self.samples, default=0.0)

    def start(self) -> None:
        """Start probing on the running loop (once; a second call does nothing)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="loop-lag-probe")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time() + self.interval
            await asyncio.sleep(self.interval)
            self.samples.append(max(0.0, loop.time() - asked))
