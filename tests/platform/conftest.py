"""Fixtures of the platform tests: fresh data folders for ``prefclub serve`` with its own
embedded PostgreSQL."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.platform.pg_processes import postgres_processes
from tests.support.databases import TEST_DATA_DIR

E2E_ROOT = TEST_DATA_DIR.parent / "e2e"


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """A fresh data folder inside the project's ``var/`` (not under pytest's ``/tmp`` base:
    every pytest run resets that to mode 0700, and the ``pgserver`` user PostgreSQL runs as
    under root then loses its way into the folder). Any postgres left behind is killed."""
    E2E_ROOT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="serve-", dir=E2E_ROOT)) / "data"
    yield folder
    for proc in postgres_processes((folder / "pgdata").resolve()):
        proc.kill()
    shutil.rmtree(folder.parent, ignore_errors=True)
