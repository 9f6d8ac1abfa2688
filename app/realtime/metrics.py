"""What the table sockets count as they answer commands, for ``/metrics`` (docs/metrics.md).

A command costs about a millisecond of server CPU, so counting it must cost next to nothing:
:class:`CommandStats` is plain integers and one list, touched only from the event loop (no lock),
and turned into the Prometheus text format only when ``/metrics`` is scraped
(:mod:`app.api.metrics`). Everything else ``/metrics`` shows (tables, sockets, queues, pools) is
read from the live objects at scrape time instead of being counted here.
"""

from __future__ import annotations

from bisect import bisect_left

COMMAND_BUCKETS: tuple[float, ...] = (
    0.0005,
    0.001,
    0.002,
    0.005,
    0.01,
    0.02,
    0.05,
    0.1,
    0.2,
    0.5,
    1.0,
    2.0,
    5.0,
)
"""Upper bounds (seconds) of the command latency histogram; ``+Inf`` is implied."""


class CommandStats:
    """Commands answered by this process's table sockets, and how long each took from its
    frame received to its answer (``ack`` or ``error``) queued to the socket.

    ``buckets[i]`` counts the commands that took at most ``COMMAND_BUCKETS[i]`` and more than
    the bound before it (the last entry: more than every bound); :meth:`cumulative` gives the
    running totals the Prometheus format wants.
    """

    __slots__ = ("acked", "buckets", "rejected", "seconds")

    def __init__(self) -> None:
        self.acked = 0
        """Commands answered with ``ack`` (applied, or a duplicate answered again)."""
        self.rejected = 0
        """Commands answered with ``error`` (refused; nothing changed)."""
        self.seconds = 0.0
        """The sum of every command's latency."""
        self.buckets = [0] * (len(COMMAND_BUCKETS) + 1)

    def observe(self, seconds: float, ok: bool) -> None:
        """Count one answered command that took ``seconds``."""
        if ok:
            self.acked += 1
        else:
            self.rejected += 1
        self.seconds += seconds
        self.buckets[bisect_left(COMMAND_BUCKETS, seconds)] += 1

    @property
    def count(self) -> int:
        """Every command answered."""
        return self.acked + self.rejected

    def cumulative(self) -> list[tuple[str, int]]:
        """``(upper bound, commands at most that long)`` per bucket, ``+Inf`` last."""
        out: list[tuple[str, int]] = []
        total = 0
        for bound, n in zip(
            (*(repr(b) for b in COMMAND_BUCKETS), "+Inf"), self.buckets, strict=True
        ):
            total += n
            out.append((bound, total))
        return out
