"""libpq's protocol trace of an engine's connections, for tests that count round trips."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import psycopg.pq

TRACE_FLAGS = psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE
"""Stable trace lines: no timestamps, object OIDs redacted (libpq's regress mode)."""


class Wire:
    """Every pooled connection of an engine traces its protocol messages into one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        self.mark = 0

    def attach(self, dbapi_connection: Any, _record: Any) -> None:
        pgconn = dbapi_connection.driver_connection.pgconn
        pgconn.trace(self.fd)
        pgconn.set_trace_flags(TRACE_FLAGS)

    def start(self) -> None:
        self.mark = self.path.stat().st_size

    def round_trips(self) -> list[str]:
        """The client messages since :meth:`start` that wait for an answer."""
        with self.path.open(errors="replace") as handle:
            handle.seek(self.mark)
            lines = handle.read().splitlines()
        return [
            line
            for line in lines
            if line.startswith("F") and ("\tQuery\t" in line or line.endswith("\tSync"))
        ]

    def close(self) -> None:
        os.close(self.fd)
