"""Keeping the embedded PostgreSQL up while the app runs (issue 24).

A crashed embedded server (``kill -9`` of its postmaster) used to leave the club answering 503
until someone restarted ``prefclub serve``. :func:`supervise_embedded` looks every
:data:`CHECK_INTERVAL` seconds, in a thread (it reads a file and asks the OS about a pid), and
when the postmaster is gone without stopping restarts it in the same folder
(:func:`app.db.embedded.restart_crashed`: the WAL replays, nothing acknowledged is lost), then
drops the engine's pooled connections to the dead server. Everything else reconnects by itself:
the pool pre-pings, the group committer and the direct writer drop a failed connection, and the
hub's listener re-``LISTEN``s and re-syncs every table from the database.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from app.db import embedded

log = logging.getLogger(__name__)

CHECK_INTERVAL = 1.0
RETRY_AFTER_FAILURE = 5.0


async def supervise_embedded(
    data_dir: Path, engine: AsyncEngine, interval: float = CHECK_INTERVAL
) -> None:
    """Run until cancelled: restart the embedded server of ``data_dir`` whenever it crashed."""
    pgdata = embedded.pgdata_of(data_dir)
    while True:
        await asyncio.sleep(interval)
        if not await asyncio.to_thread(embedded.crashed, pgdata):
            continue
        log.warning("embedded postgresql is down; restarting it", extra={"pgdata": str(pgdata)})
        try:
            await asyncio.to_thread(embedded.restart_crashed, pgdata)
        except (subprocess.SubprocessError, OSError):
            log.exception("embedded postgresql did not restart", extra={"pgdata": str(pgdata)})
            await asyncio.sleep(RETRY_AFTER_FAILURE)
            continue
        await engine.dispose()  # connections to the dead server are of no use
