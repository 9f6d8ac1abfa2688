"""The archive in the browser: a finished club pulka's sheet and deal list, a deal replayed trick
by trick with its R-D4 badge, and the statistics chart. Screenshots go to ``test-results/``."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.services.pulkas import close_pulka
from app.services.tables import create_table
from tests.browser.conftest import screenshot
from tests.browser.test_ui import login, new_page
from tests.support.archive_play import play_deal
from tests.support.browser_members import table_members
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "an archive password"
NAMES = ["Анна Архивная", "Борис", "Вера"]


async def _seed(url: str) -> int:
    """A club pulka of three members: two deals played out, then closed by agreement."""
    now = datetime.now(UTC)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        async with session_scope(sessions) as db:
            ids = await table_members(db, "archive", NAMES, PASSWORD)
            table = await create_table(
                db, seat_member_ids=list(ids), practice=False, target=20, first_dealer=0, now=now
            )
        for _ in range(2):
            async with session_scope(sessions) as db:
                await play_deal(db, table.id, ids, now)
        async with session_scope(sessions) as db:
            row = await close_pulka(db, table.id, "agreement", now)
            assert row is not None
            return row.id
    finally:
        await engine.dispose()


def test_history_replay_and_stats(server: ServerProcess, browser: Any) -> None:
    # Playwright's sync API holds this thread's event loop: seed from another thread.
    with ThreadPoolExecutor(1) as pool:
        pulka_id = pool.submit(asyncio.run, _seed(server.env["DATABASE_URL"])).result()
    base = server.base_url
    page = new_page(browser)
    login(page, base, "archive0", PASSWORD)
    page.wait_for_selector("#session-title")

    page.goto(f"{base}/#/history")
    page.click(f"button[data-pulka='{pulka_id}']")
    page.wait_for_selector(f"a[href='#/replay/{pulka_id}/2']")
    assert page.locator(".sheet-card svg").count() == 1
    page.click(f"a[href='#/replay/{pulka_id}/1']")

    page.wait_for_selector("[data-testid=verify]")
    assert "проверена" in page.locator("h1 [data-testid=verify]").inner_text()
    assert page.locator(".replay-seat").count() == 3
    assert page.locator(".replay-seat .card-face").count() == 30  # the hands as dealt
    assert "6♠" in page.locator("[data-testid=auction]").inner_text()
    for _ in range(3):
        page.click("#replay-next")
    assert page.locator("[data-testid=step]").inner_text().startswith("Взятка 3 / 10")
    assert page.locator(".replay-trick .trick-card").count() == 3
    assert page.locator("[data-testid=winner]").inner_text().startswith("Взял")
    assert page.locator(".replay-seat .card-face").count() == 21  # 30 - 9 cards played
    screenshot(page, "archive-replay")

    page.click("nav >> text=Статистика")
    page.wait_for_selector("[data-testid=chart]")
    rows = page.locator("[data-testid=stats] tbody tr")
    assert rows.count() == 3
    assert page.locator(".chart rect").count() == 1
    screenshot(page, "archive-stats")
    assert page.js_errors == []
