"""Finding the postgres processes of a data folder (tests of the embedded server's lifecycle)."""

from __future__ import annotations

import time
from pathlib import Path

import psutil


def postgres_processes(pgdata: Path) -> list[psutil.Process]:
    """Running (not zombie) postgres processes serving ``pgdata``."""
    found = []
    for proc in psutil.process_iter(attrs=("name", "cmdline")):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] != "postgres" or str(pgdata) not in cmdline:
            continue
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.NoSuchProcess:
            pass
    return found


def wait_until_gone(pgdata: Path, timeout: float = 20.0) -> list[psutil.Process]:
    """Wait for every postgres of ``pgdata`` to exit; return those still running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not postgres_processes(pgdata):
            return []
        time.sleep(0.2)
    return postgres_processes(pgdata)
