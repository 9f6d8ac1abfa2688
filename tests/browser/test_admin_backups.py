"""The backups section of the admin page, in real Chromium against a real server: the warning
when there is no backup, "make a backup now", the row in Russian words, the download."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.db.models import Role
from tests.browser.test_ui import login
from tests.support.browser_members import add_members
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a backups password"


def _run(coro: Any) -> Any:
    """Run a coroutine in another thread (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def test_the_admin_makes_and_downloads_a_backup(server: ServerProcess, browser: Any) -> None:
    _run(
        add_members(server.env["DATABASE_URL"], [("bk-admin", "Админ Копий", Role.admin)], PASSWORD)
    )
    page = browser.new_context(locale="ru-RU", accept_downloads=True).new_page()
    login(page, server.base_url, "bk-admin", PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{server.base_url}/#/admin")
    page.wait_for_selector("#backup-now")
    before = page.locator("[data-testid=backups] tbody tr").count()
    if before == 0:
        assert "нет" in page.locator("[data-testid=backups-stale]").inner_text()
    page.click("#backup-now")
    page.locator("[data-testid=backups] tbody tr").nth(before).wait_for()
    assert page.locator("[data-testid=backups-stale]").count() == 0
    row = page.locator("[data-testid=backups] tbody tr").first
    assert "вручную" in row.inner_text()
    assert "Резервные копии" in page.locator("#adm-backups").inner_text()
    with page.expect_download() as info:
        row.locator("a").click()
    download = info.value
    assert download.suggested_filename.endswith("-manual.dump")
    with open(download.path(), "rb") as f:
        assert f.read(5) == b"PGDMP"
