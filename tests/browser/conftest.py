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


class PlaywrightDriver:
    """The worker's Playwright driver (a Node.js process, some 0.35 CPU s to start), kept
    while consecutive modules use a browser: they share it, each with a Chromium of its own.
    It is stopped before any other test runs and before the session's fixtures end: between
    its calls the sync API marks its event loop as running in this thread, where an async
    test (or pytest-asyncio's runner closing) could not run."""

    def __init__(self) -> None:
        self._manager: Any = None
        self._playwright: Any = None
        self._open: list[Any] = []

    def launch(self) -> Any:
        """A new Chromium from the running driver (started now if there is none)."""
        if self._playwright is None:
            sync_api = pytest.importorskip("playwright.sync_api")
            manager = sync_api.sync_playwright()
            self._playwright = manager.__enter__()
            self._manager = manager
        chromium = launch(self._playwright)
        self._open.append(chromium)
        return chromium

    def close(self, chromium: Any) -> None:
        """Close ``chromium`` unless :meth:`stop` has closed it already."""
        if chromium in self._open:
            self._open.remove(chromium)
            chromium.close()

    def stop(self) -> None:
        """Close the browsers still open and stop the driver (if it runs)."""
        for chromium in list(self._open):
            self.close(chromium)
        manager, self._manager, self._playwright = self._manager, None, None
        if manager is not None:
            manager.__exit__(None, None, None)


DRIVER = PlaywrightDriver()


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    """One headless Debian Chromium for the module (never a downloaded browser)."""
    chromium = DRIVER.launch()
    try:
        yield chromium
    finally:
        DRIVER.close(chromium)


def _path(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Before the fixtures end: stop the driver when this worker's next test is in another
    file and uses no browser, or when there is none (the session's fixtures end next)."""
    if nextitem is None or (
        _path(nextitem) != _path(item) and "browser" not in nextitem.fixturenames
    ):
        DRIVER.stop()


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
