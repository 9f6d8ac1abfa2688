"""Reading a ``/metrics`` answer in tests: the Prometheus text parsed into samples."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]

NAMED = (
    "prefclub_live_tables",
    "prefclub_sockets",
    "prefclub_commands_total",
    "prefclub_command_seconds_bucket",
    "prefclub_command_seconds_count",
    "prefclub_command_seconds_sum",
    "prefclub_fanout_queue_depth",
    "prefclub_fanout_queue_depth_max",
    "prefclub_worker_pool_queue",
    "prefclub_worker_pool_capacity",
    "prefclub_worker_pool_busy_total",
    "prefclub_db_pool_in_use",
    "prefclub_db_pool_size",
    "prefclub_db_writer_connections",
    "prefclub_db_writer_queue",
    "prefclub_event_loop_lag_seconds",
    "prefclub_event_loop_lag_max_seconds",
    "prefclub_last_backup_age_seconds",
)
"""Every sample name docs/metrics.md promises (the process_ and python_gc ones come along)."""


def parse(text: str) -> Samples:
    """Each sample of an exposition, by (name, labels)."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value (KeyError if it is not there)."""
    return samples[(name, frozenset(labels.items()))]


def total(samples: Samples, name: str) -> float:
    """The sum of every sample called ``name`` (whatever its labels)."""
    return sum(v for (n, _), v in samples.items() if n == name)


def names(samples: Samples) -> set[str]:
    return {n for n, _ in samples}
