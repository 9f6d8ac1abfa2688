"""What the test suite pays again and again: a Python process loading ``app.cli``, a server
loading the web app, and a migrated scratch database, each beside the cheaper way, measured in
one run.

    python -m bench.test_costs --json [--repeats 5]

Prints and writes ``bench/results/test-costs.json``: the CPU seconds of a process importing
``app.cli`` alone (what a ``prefclub`` command or a pool worker now loads first) and with the
web app (``app.main``, what every such process loaded before); the web app as ``serve`` loads it
(the serving GC thresholds from its first line, fpdf2 left to the print worker) beside Python's
default thresholds and beside fpdf2 loaded with it, as before; the wall seconds of running the
migrations on an empty scratch database and of copying the migrated template; the CPU seconds of
a process bringing an up-to-date database to the head (``upgrade``, which asks the database its
revision) beside Alembic doing it (every migration file loaded to find nothing to do); a test
server's start forked from the fork server (tests/support/serve_fork.py; started beforehand,
once, as each pytest worker starts it) beside a new interpreter: the server's CPU seconds up to
its first 200 on ``/readyz`` and the wall seconds to it; the ratios, and
``bench.engine``'s deals per second of the same run (docs/testing.md).
Needs the test run's embedded PostgreSQL (``var/test``) or ``TEST_DATABASE_URL``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from bench.engine import run as engine_run

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
SERVE_LOADS = (
    "from app.realtime.gc_tuning import serving_thresholds\n"
    "serving_thresholds()\n"
    "import app.cli, app.main"
)
"""What ``prefclub serve`` loads before it starts, in its order (``app.cli._serve``)."""


UPGRADE_AT_HEAD = "import sys\nfrom app.db.migrate import upgrade\nupgrade(sys.argv[1])"
"""A ``prefclub`` command's or a server's start over an up-to-date club: ``upgrade`` at the head."""
ALEMBIC_AT_HEAD = (
    "import sys\nfrom alembic import command\nfrom app.db.migrate import alembic_config\n"
    "command.upgrade(alembic_config(sys.argv[1]), 'head')"
)
"""The same done by Alembic, as ``upgrade`` did it before it asked the database first."""


def _child_cpu_seconds(code: str, *args: str) -> float:
    """User and system CPU seconds of a fresh interpreter running ``code`` with ``args``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code, *args], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _wall_seconds(make: Callable[[], None]) -> float:
    start = time.monotonic()
    make()
    return time.monotonic() - start


def _server_start(database_url: str, *, fresh: bool) -> tuple[float, float]:
    """A test server's own CPU seconds up to its first 200 on ``/readyz``, and the wall seconds."""
    import psutil

    from tests.support.server import ServerProcess

    data_dir = tempfile.mkdtemp(prefix="test-costs-")
    env = {"DATABASE_URL": database_url, "PREFCLUB_DATA_DIR": data_dir, "LOG_LEVEL": "WARNING"}
    server = ServerProcess(env, fresh=fresh)
    try:
        wall = _wall_seconds(server.start)
        assert server.process is not None
        cpu = psutil.Process(server.process.pid).cpu_times()
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    return cpu.user + cpu.system, wall


def measure(repeats: int) -> dict[str, object]:
    """Alternate the two ways of each pair ``repeats`` times; medians and their ratios."""
    from app.db.embedded import normalise_url
    from app.db.migrate import upgrade
    from tests.support.databases import (
        drop_database,
        migrated_template,
        scratch_database,
        start_test_server,
    )
    from tests.support.serve_fork import FORK_SERVER

    configured = os.environ.get("TEST_DATABASE_URL")
    base = normalise_url(configured) if configured else start_test_server()
    migrated_template(base)
    FORK_SERVER.start()
    light, whole, migrate, copy = [], [], [], []
    served, with_fpdf = [], []
    at_head, by_alembic = [], []
    fresh_starts: list[tuple[float, float]] = []
    forked_starts: list[tuple[float, float]] = []
    made: list[str] = []
    current, current_name = scratch_database(base, migrated=True)
    made.append(current_name)

    def migrated_by_upgrade() -> None:
        url, name = scratch_database(base)
        upgrade(url)
        made.append(name)

    def migrated_by_copy() -> None:
        made.append(scratch_database(base, migrated=True)[1])

    for _ in range(repeats):
        light.append(_child_cpu_seconds("import app.cli"))
        whole.append(_child_cpu_seconds("import app.cli, app.main"))
        served.append(_child_cpu_seconds(SERVE_LOADS))
        with_fpdf.append(_child_cpu_seconds(SERVE_LOADS + ", fpdf"))
        migrate.append(_wall_seconds(migrated_by_upgrade))
        copy.append(_wall_seconds(migrated_by_copy))
        at_head.append(_child_cpu_seconds(UPGRADE_AT_HEAD, current))
        by_alembic.append(_child_cpu_seconds(ALEMBIC_AT_HEAD, current))
        fresh_starts.append(_server_start(current, fresh=True))
        forked_starts.append(_server_start(current, fresh=False))
    for name in made:
        drop_database(base, name)
    figures = {
        "import_cli_cpu_s": statistics.median(light),
        "import_cli_and_web_app_cpu_s": statistics.median(whole),
        "import_web_app_as_served_cpu_s": statistics.median(served),
        "import_web_app_as_served_and_fpdf_cpu_s": statistics.median(with_fpdf),
        "scratch_by_migrations_s": statistics.median(migrate),
        "scratch_by_template_copy_s": statistics.median(copy),
        "upgrade_at_head_cpu_s": statistics.median(at_head),
        "alembic_at_head_cpu_s": statistics.median(by_alembic),
        "server_start_fresh_cpu_s": statistics.median(cpu for cpu, _ in fresh_starts),
        "server_start_forked_cpu_s": statistics.median(cpu for cpu, _ in forked_starts),
        "server_start_fresh_wall_s": statistics.median(wall for _, wall in fresh_starts),
        "server_start_forked_wall_s": statistics.median(wall for _, wall in forked_starts),
    }
    return {
        "benchmark": "test_costs",
        "repeats": repeats,
        **{k: round(v, 3) for k, v in figures.items()},
        "web_app_over_cli_import": round(
            figures["import_cli_and_web_app_cpu_s"] / figures["import_cli_cpu_s"], 2
        ),
        "default_gc_over_serving_gc": round(
            figures["import_cli_and_web_app_cpu_s"] / figures["import_web_app_as_served_cpu_s"], 2
        ),
        "with_fpdf_over_without": round(
            figures["import_web_app_as_served_and_fpdf_cpu_s"]
            / figures["import_web_app_as_served_cpu_s"],
            2,
        ),
        "migrations_over_copy": round(
            figures["scratch_by_migrations_s"] / figures["scratch_by_template_copy_s"], 2
        ),
        "alembic_over_upgrade_at_head": round(
            figures["alembic_at_head_cpu_s"] / figures["upgrade_at_head_cpu_s"], 2
        ),
        "fresh_over_forked_server_start": round(
            figures["server_start_fresh_cpu_s"] / figures["server_start_forked_cpu_s"], 2
        ),
        "engine_deals_per_second": engine_run(2.0)["deals_per_second"],
        "python_dont_write_bytecode": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse the options, measure, print and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS / "test-costs.json")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    result = measure(args.repeats)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result) if args.json else result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
