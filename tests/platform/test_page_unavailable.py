"""The page while the database is down (issue 9): a real ``prefclub serve`` whose embedded
PostgreSQL is stopped under a logged-in page in real headless Chromium. The page shows "server
unavailable, retrying", keeps retrying its reads, and carries on by itself once the database is
back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.platform.test_database_down import _pg_ctl, _socket_dir
from tests.support.chromium import launch, require_chromium
from tests.support.server import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


def test_page_shows_unavailable_and_recovers(data_dir: Path, tmp_path: Path) -> None:
    require_chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    env = {"PREFCLUB_DATA_DIR": str(data_dir), "DATABASE_URL": "", "SECRET_KEY": ""}
    pgdata = (data_dir / "pgdata").resolve()
    with (
        ServerProcess(env, log_path=tmp_path / "serve.log") as server,
        sync_api.sync_playwright() as p,
    ):
        hint = re.search(r"one-time password (\S+)", server.output())
        assert hint, server.output()
        browser = launch(p)
        try:
            page: Any = browser.new_context(locale="ru-RU").new_page()
            page.goto(server.base_url + "/")
            page.fill("#login", "admin")
            page.fill("#password", hint.group(1))
            page.click("form button[type=submit]")
            page.wait_for_selector("#app[data-page=password]")

            socket_dir = _socket_dir(pgdata)
            _pg_ctl(pgdata, "stop", "-m", "fast")
            try:
                page.reload()
                banner = page.locator("#unavailable")
                banner.wait_for(state="visible", timeout=15000)
                assert "Сервер недоступен" in banner.inner_text()
                page.wait_for_timeout(1500)
                assert banner.is_visible(), "still retrying while the database is down"
            finally:
                _pg_ctl(pgdata, "start", "-l", str(pgdata / "log"), "-o", f'-h "" -k {socket_dir}')
            page.wait_for_selector("#app[data-page=password]", timeout=30000)
            banner.wait_for(state="hidden", timeout=15000)
        finally:
            browser.close()
