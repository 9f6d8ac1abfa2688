"""A table socket's frame budget: a token bucket of ``rate`` frames a second, ``burst`` deep.

Every frame a client sends costs a token; tokens come back at ``rate`` a second up to
``burst``. A client that sends a frame with no token left is over the budget: the socket is
closed with :data:`CLOSE_OVER_BUDGET` (docs/protocol.md). Below it every frame is answered, in
order. A page sends a frame per click, a ping now and then: 20 a second sustained with bursts
of 40 (the defaults, ``WS_FRAME_RATE``/``WS_FRAME_BURST``) is far above any person, and far
below what hurts the table (issue 24: a chat flood of 67 frames a second slowed the flooder's
tablemates' moves to 632 ms).
"""

from __future__ import annotations

import time
from collections.abc import Callable

CLOSE_OVER_BUDGET = 4429
"""The close code of a socket that sent frames over its budget."""


class FrameBudget:
    """A token bucket (module docstring); ``clock`` is a monotonic clock in seconds."""

    __slots__ = ("_at", "_clock", "_tokens", "burst", "rate")

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a frame budget needs a positive rate and a burst of at least 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._at = clock()

    def wait(self) -> float:
        """Seconds until a token is there (0.0: now) — how a client paces itself."""
        now = self._clock()
        tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate + 1e-6  # rounding

    def take(self) -> bool:
        """Spend a token for one frame: False when none is left (the client is over budget)."""
        now = self._clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True
