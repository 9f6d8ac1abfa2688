"""A pytest plugin: where a parallel run's workers wait with the machine's cores idle.

    .venv/bin/python -m pytest -p tests.support.wait_profile      # writes test-results/wait-gw*.tsv

Every worker samples, every half second, the CPU its own process tree used (the worker, its
servers, browsers and commands: every live descendant's own and reaped children's time, so a
child's time stays counted when it exits) and the whole machine's busy CPU, and writes one line
per sample with the test it was running. ``python -m tests.support.wait_profile`` then sums, per
test, the worker's unused share of a core in the samples where the machine had a core to spare:
the tests whose waits a parallel run does not fill.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest

from tests.support.cpu_profile import busy_cpu_seconds

OUT_DIR = Path(__file__).parents[2] / "test-results"
PERIOD = 0.5
TICK = os.sysconf("SC_CLK_TCK")
_current = {"test": "-"}


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its live descendants, reaped children's time included."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat:
                text = stat.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        pid = int(name)
        parents[pid] = int(fields[1])
        times[pid] = sum(int(v) for v in fields[11:15]) / TICK
    children: dict[int, list[int]] = defaultdict(list)
    for pid, parent in parents.items():
        children[parent].append(pid)
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0.0)
        stack.extend(children.get(pid, ()))
    return total


def _sample(out: Path) -> None:
    me = os.getpid()
    last_t, last_tree, last_busy = time.monotonic(), tree_cpu(me), busy_cpu_seconds()
    with out.open("w", encoding="utf-8") as sink:
        while True:
            time.sleep(PERIOD)
            now, tree, busy = time.monotonic(), tree_cpu(me), busy_cpu_seconds()
            sink.write(
                f"{time.time():.2f}\t{now - last_t:.3f}\t{tree - last_tree:.2f}\t"
                f"{busy - last_busy:.2f}\t{_current['test']}\n"
            )
            sink.flush()
            last_t, last_tree, last_busy = now, tree, busy


def pytest_sessionstart(session: pytest.Session) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw-serial")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    threading.Thread(target=_sample, args=(OUT_DIR / f"wait-{worker}.tsv",), daemon=True).start()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    _current["test"] = nodeid


def report(cores: int = 2) -> None:
    """Per test: the worker's unused core-seconds while the machine had a core to spare."""
    files = sorted(OUT_DIR.glob("wait-gw*.tsv"))
    idle_of: dict[str, float] = defaultdict(float)
    wall_of: dict[str, float] = defaultdict(float)
    cpu_of: dict[str, float] = defaultdict(float)
    machine_idle = 0.0
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            _, seconds, tree, busy, test = line.split("\t")
            dt = float(seconds)
            rate = min(max(float(tree) / dt, 0.0), cores)  # a child reaped outside the tree
            spare = max(0.0, cores - float(busy) / dt)
            machine_idle += spare * dt / len(files)
            wall_of[test] += dt
            cpu_of[test] += rate * dt
            if spare > 0.3:
                idle_of[test] += max(0.0, 1.0 - rate) * dt
    by_file: dict[str, float] = defaultdict(float)
    for test, idle in idle_of.items():
        by_file[test.split("::")[0]] += idle
    print(f"machine idle core-seconds (approx.): {machine_idle:.0f}")
    print("files by idle worker-seconds while a core was spare:")
    for name, idle in sorted(by_file.items(), key=lambda kv: -kv[1])[:25]:
        print(f"  {idle:7.1f}  {name}")
    print("tests:")
    for test, idle in sorted(idle_of.items(), key=lambda kv: -kv[1])[:40]:
        print(f"  {idle:6.1f} idle {wall_of[test]:6.1f} wall {cpu_of[test]:6.1f} cpu  {test}")


if __name__ == "__main__":
    report(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
