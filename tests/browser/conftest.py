"""Browser tests: a real ``prefclub serve`` on a scratch database and Debian's headless Chromium.

Skipped cleanly when no Debian Chromium is installed (tests/support/chromium.py says which binary
is driven). Screenshots go to ``test-results/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.chromium import launch, require_chromium
from tests.support.databases import PROJECT_ROOT, drop_database, scratch_database
from tests.support.server import ServerProcess

RESULTS = PROJECT_ROOT / "test-results"


@contextmanager
def scratch_server(
    database_url: str, tmp_path_factory: pytest.TempPathFactory, **env: str
) -> Iterator[ServerProcess]:
    """``prefclub serve`` on a free port with a fresh database of its own and ``env`` added
    to its environment; skipped without Debian's chromium."""
    require_chromium()
    url, name = scratch_database(database_url, migrated=True)
    data_dir = tmp_path_factory.mktemp("serve")
    proc = ServerProcess(
        {
            "DATABASE_URL": url,
            "PREFCLUB_DATA_DIR": str(data_dir),
            "LOG_LEVEL": "WARNING",
            "PREFCLUB_LUCK": "0",  # no analyses in the background of the pages under test
            **env,
        }
    )
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        drop_database(database_url, name)


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """``prefclub serve`` on a free port with a fresh database of its own."""
    with scratch_server(database_url, tmp_path_factory) as proc:
        yield proc


@pytest.fixture(scope="package")
def playwright_driver() -> Iterator[Any]:
    """The Playwright driver (a Node.js process, some 0.35 CPU s to start) that the browser
    modules a worker runs in a row share; each module launches a Chromium of its own. Package
    scope: pytest stops it when the worker's next test is outside tests/browser, after the
    modules' fixtures (their pages and browsers) and before the session's. Between its calls
    the sync API marks its event loop as running in this thread, where neither an async test
    nor pytest-asyncio's runner could run, so tests/browser holds no async test (its helpers
    run coroutines in a thread of their own)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(server: ServerProcess, playwright_driver: Any) -> Iterator[Any]:
    """One headless Debian Chromium for the module (never a downloaded browser)."""
    chromium = launch(playwright_driver)
    try:
        yield chromium
    finally:
        chromium.close()


def first_admin_password(server: ServerProcess) -> str:
    """The one-time password ``prefclub serve`` printed for the first admin."""
    found = re.search(r"one-time password (\S+)", server.output())
    assert found, server.output()
    return found.group(1)


def screenshot(page: Any, name: str) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
