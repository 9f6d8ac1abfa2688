"""CPU time and memory of processes, read from ``/proc`` (Linux), for the benchmarks' reports."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable
from dataclasses import dataclass, field

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (its threads included); 0 if it is gone."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # After the ")" closing the command name: state is field 3, utime 14 and stime 15.
    return (int(fields[11]) + int(fields[12])) / TICKS


def wait_seconds(pid: int) -> float:
    """Seconds ``pid``'s threads spent runnable but waiting for a CPU (``/proc/<pid>/task/*/
    schedstat``): how much a busy machine, not our code, slowed it."""
    total = 0
    for path in pathlib.Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(path.read_text().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9


def memory_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in KiB: its resident set now and at its peak."""
    rss = hwm = 0
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    except OSError:
        pass
    return rss, hwm


def machine() -> dict[str, object]:
    """Cores and memory of this machine, from /proc."""
    cores = sum(
        1
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
        if line.startswith("processor")
    )
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "unknown",
    )
    mem_kib = next(
        int(line.split()[1])
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemTotal:")
    )
    return {
        "cores": cores,
        "cpu": model,
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "load_average": [float(x) for x in pathlib.Path("/proc/loadavg").read_text().split()[:3]],
    }


@dataclass
class CpuMeter:
    """CPU % of a set of processes over a wall-clock interval (100 % = one core busy).

    ``pids`` may be a callable that lists them (a database's backends come and go): a process
    that appeared during the interval counts with all its CPU time, one that ended with what it
    had used by the start (nothing more is known of it)."""

    pids: list[int] | Callable[[], list[int]]
    start_cpu: dict[int, float] = field(default_factory=dict)
    start_wall: float = 0.0
    start_wait: float = 0.0

    def _pids(self) -> list[int]:
        return self.pids() if callable(self.pids) else self.pids

    def start(self, wall: float) -> None:
        pids = self._pids()
        self.start_cpu = {p: cpu_seconds(p) for p in pids}
        self.start_wait = sum(wait_seconds(p) for p in pids)
        self.start_wall = wall

    def percent(self, wall: float) -> float:
        used = 0.0
        for pid in self._pids():
            used += max(cpu_seconds(pid) - self.start_cpu.get(pid, 0.0), 0.0)
        return round(100.0 * used / max(wall - self.start_wall, 1e-9), 1)

    def wait_percent(self, wall: float) -> float:
        """Time runnable but not running, per wall second (100 % = one thread always waiting)."""
        waited = sum(wait_seconds(p) for p in self._pids()) - self.start_wait
        return round(100.0 * waited / max(wall - self.start_wall, 1e-9), 1)
