"""`prefclub migrate` and `prefclub create-admin` against a real database."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.support.databases import drop_database, scratch_database

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scratch_url(database_url: str) -> Iterator[str]:
    url, name = scratch_database(database_url)
    try:
        yield url
    finally:
        drop_database(database_url, name)


def _prefclub(url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url, "PREFCLUB_DATA_DIR": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _roles(url: str) -> list[tuple[str, str, bool]]:
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT login, role::text, must_change_password FROM members ORDER BY id"
        ).fetchall()
    return [(str(a), str(b), bool(c)) for a, b, c in rows]


def test_migrate_then_create_admin_then_refuse_duplicate(scratch_url: str, tmp_path: Path) -> None:
    migrated = _prefclub(scratch_url, tmp_path, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    created = _prefclub(scratch_url, tmp_path, "create-admin", "Olga", "--display-name", "Ольга")
    assert created.returncode == 0, created.stderr
    assert "one-time password:" in created.stdout
    assert _roles(scratch_url) == [("olga", "admin", True)]
    again = _prefclub(scratch_url, tmp_path, "create-admin", "olga")
    assert again.returncode == 2
    assert "already taken" in again.stderr
    assert _roles(scratch_url) == [("olga", "admin", True)]
