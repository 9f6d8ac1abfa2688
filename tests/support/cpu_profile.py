"""A pytest plugin: every test's wall time and the machine's busy CPU seconds meanwhile.

    .venv/bin/python -m pytest -n 0 -p tests.support.cpu_profile   # writes test-results/cpu.tsv

One line per test (setup, call and teardown together): node id, wall seconds, CPU seconds of
the whole machine (``/proc/stat``), so a test's servers, browsers, commands and PostgreSQL
count with it. Only a serial run on an otherwise idle machine attributes the CPU rightly;
docs/testing.md says what the suite's time goes to.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

OUT = Path(os.environ.get("CPU_PROFILE", Path(__file__).parents[2] / "test-results" / "cpu.tsv"))


def busy_cpu_seconds() -> float:
    """CPU seconds all cores of the machine spent busy since boot (Linux ``/proc/stat``)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def pytest_sessionstart(session: pytest.Session) -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("test\twall_s\tcpu_s\n", encoding="utf-8")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    wall, cpu = time.monotonic(), busy_cpu_seconds()
    try:
        return (yield)
    finally:
        line = f"{item.nodeid}\t{time.monotonic() - wall:.2f}\t{busy_cpu_seconds() - cpu:.2f}\n"
        with OUT.open("a", encoding="utf-8") as out:
            out.write(line)
