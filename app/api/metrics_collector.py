"""The app's Prometheus metrics, read from the live objects when ``/metrics`` is scraped.

Nothing here counts anything as it happens: gauges come from the hub (tables, sockets, send
queues), the worker pools, the database engine's pool, the group-commit writer and the
event-loop probe as they are at scrape time; the command counter and latency histogram come
from the hub's :class:`~app.realtime.metrics.CommandStats`, which the table socket updates.
docs/metrics.md lists every metric and what it means. Metrics are per process: with several
server processes, scrape each.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from app.api.hints import HINT_PENDING
from app.realtime.hub import SOLVER_PENDING, Hub
from app.realtime.loop_lag import LoopLagProbe
from app.realtime.metrics import CommandStats
from app.security import passwords
from app.services.analysis_cache import ANALYSIS_PENDING
from app.workers import WorkerPool


class AppCollector(Collector):
    """Every ``prefclub_*`` metric of one app (its ``app.state``), made at each scrape.

    ``backup_age`` is set by the endpoint just before a scrape (it is read off the event loop,
    :mod:`app.api.metrics`); None: no backup known, reported as NaN.
    """

    def __init__(self, state: Any) -> None:
        self.state = state
        self.backup_age: float | None = None

    def collect(self) -> Iterator[Metric]:
        hub: Hub | None = getattr(self.state, "hub", None)
        yield from _hub_metrics(hub)
        yield from _pool_metrics(self.state, hub)
        yield from _database_metrics(self.state, hub)
        probe: LoopLagProbe | None = getattr(self.state, "loop_lag", None)
        yield _gauge(
            "prefclub_event_loop_lag_seconds",
            "How late the event loop woke from the latest probe's sleep",
            probe.latest if probe is not None else math.nan,
        )
        yield _gauge(
            "prefclub_event_loop_lag_max_seconds",
            "The worst event-loop lag of the last minute of probes",
            probe.worst if probe is not None else math.nan,
        )
        yield _gauge(
            "prefclub_last_backup_age_seconds",
            "Seconds since the newest backup was made (NaN: none known)",
            self.backup_age if self.backup_age is not None else math.nan,
        )


def _gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, doc, value=value)


def _hub_metrics(hub: Hub | None) -> Iterator[Metric]:
    load = hub.load() if hub is not None else None
    yield _gauge(
        "prefclub_live_tables",
        "Tables with at least one socket open in this process",
        load.tables if load else 0,
    )
    sockets = GaugeMetricFamily(
        "prefclub_sockets", "Table sockets open in this process", labels=["role"]
    )
    sockets.add_metric(["player"], load.players if load else 0)
    sockets.add_metric(["spectator"], load.sockets - load.players if load else 0)
    yield sockets
    yield _gauge(
        "prefclub_fanout_queue_depth",
        "Messages waiting in every socket's send queue, summed",
        load.queued if load else 0,
    )
    yield _gauge(
        "prefclub_fanout_queue_depth_max",
        "Messages waiting in the longest socket send queue",
        load.deepest if load else 0,
    )
    stats = hub.command_stats if hub is not None else CommandStats()
    commands = CounterMetricFamily(
        "prefclub_commands", "Table commands answered, by outcome", labels=["outcome"]
    )
    commands.add_metric(["ack"], stats.acked)
    commands.add_metric(["error"], stats.rejected)
    yield commands
    yield HistogramMetricFamily(
        "prefclub_command_seconds",
        "Table command latency: frame received to its ack or error queued to the socket",
        buckets=stats.cumulative(),
        sum_value=stats.seconds,
    )


def _pool_metrics(state: Any, hub: Hub | None) -> Iterator[Metric]:
    queue = GaugeMetricFamily(
        "prefclub_worker_pool_queue",
        "Jobs queued or running in a bounded worker pool",
        labels=["pool"],
    )
    capacity = GaugeMetricFamily(
        "prefclub_worker_pool_capacity",
        "Jobs a worker pool admits at once (one more is refused busy)",
        labels=["pool"],
    )
    busy = CounterMetricFamily(
        "prefclub_worker_pool_busy",
        "Jobs refused with a 503/`busy` answer because the pool was full",
        labels=["pool"],
    )
    pools: dict[str, tuple[WorkerPool | None, int]] = {
        "solver": (hub.workers if hub is not None else None, SOLVER_PENDING),
        "hints": (getattr(state, "hint_pool", None), HINT_PENDING),
        "analysis": (getattr(state, "analysis_pool", None), ANALYSIS_PENDING),
    }
    for name, (pool, pending) in pools.items():
        # Before the lifespan has made a pool (or after it stopped the hub) its size is shown.
        queue.add_metric([name], pool.pending if pool is not None else 0)
        capacity.add_metric([name], pool.max_pending if pool is not None else pending)
        busy.add_metric([name], pool.refused if pool is not None else 0)
    hashing = passwords.POOL
    queue.add_metric(["passwords"], hashing.admitted)
    capacity.add_metric(["passwords"], hashing.limit)
    busy.add_metric(["passwords"], hashing.refused)
    yield queue
    yield capacity
    yield busy


def _database_metrics(state: Any, hub: Hub | None) -> Iterator[Metric]:
    engine = getattr(state, "engine", None)
    pool = engine.pool if engine is not None else None
    size = getattr(pool, "size", None)
    checked_out = getattr(pool, "checkedout", None)
    yield _gauge(
        "prefclub_db_pool_size",
        "Connections the database pool keeps (beyond them it opens overflow connections)",
        size() if callable(size) else math.nan,
    )
    yield _gauge(
        "prefclub_db_pool_in_use",
        "Database connections checked out of the pool now",
        checked_out() if callable(checked_out) else math.nan,
    )
    committer = hub.committer if hub is not None else None
    yield _gauge(
        "prefclub_db_writer_connections",
        "Pool connections the group-commit writer holds (part of the in-use count)",
        committer.connections if committer is not None else 0,
    )
    yield _gauge(
        "prefclub_db_writer_queue",
        "Table writes waiting for the group-commit writer",
        committer.queued if committer is not None else 0,
    )
