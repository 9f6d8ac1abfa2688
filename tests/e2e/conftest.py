"""Fixtures of the live-table end-to-end tests: a scratch database of their own (migrated), and
real ``prefclub serve`` processes over it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.databases import migrated_database
from tests.support.live_servers import server
from tests.support.server import ServerProcess


@pytest.fixture(scope="module")
def live_db(database_url: str) -> Iterator[str]:
    """A migrated database only this test module's servers use."""
    with migrated_database(database_url) as url:
        yield url


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("live")


@pytest.fixture(scope="module")
def srv(live_db: str, data_dir: Path) -> Iterator[ServerProcess]:
    """One real server for the module."""
    process = server(live_db, data_dir).start()
    try:
        yield process
    finally:
        process.stop()
