"""The hot-path counters behind ``/metrics``: the command histogram's buckets and the
event-loop lag probe."""

from __future__ import annotations

import asyncio
import time

from app.realtime.loop_lag import LoopLagProbe
from app.realtime.metrics import COMMAND_BUCKETS, CommandStats


def test_commands_fall_in_the_first_bucket_that_holds_them() -> None:
    stats = CommandStats()
    for seconds, ok in ((0.0001, True), (0.0005, True), (0.003, False), (7.0, True)):
        stats.observe(seconds, ok)
    assert (stats.acked, stats.rejected, stats.count) == (3, 1, 4)
    assert abs(stats.seconds - 7.0036) < 1e-9
    cumulative = dict(stats.cumulative())
    assert list(cumulative) == [*(repr(b) for b in COMMAND_BUCKETS), "+Inf"]
    assert cumulative["0.0005"] == 2  # a bound is inclusive (Prometheus' "le")
    assert cumulative["0.002"] == 2 and cumulative["0.005"] == 3
    assert cumulative["5.0"] == 3 and cumulative["+Inf"] == 4
    counts = [n for _, n in stats.cumulative()]
    assert counts == sorted(counts)


async def test_a_blocked_loop_shows_as_lag() -> None:
    probe = LoopLagProbe(interval=0.01)
    probe.start()
    try:
        while not probe.samples:
            await asyncio.sleep(0.01)
        time.sleep(0.3)  # block the loop, as a synchronous call on it would
        seen = len(probe.samples)
        while len(probe.samples) == seen:
            await asyncio.sleep(0.01)
        assert probe.worst >= 0.25
        assert probe.latest >= 0.0
    finally:
        await probe.stop()
