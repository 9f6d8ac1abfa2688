"""The «Подсказка» button (issue 15, docs/bots.md) and the lobby's bot-level select, in real
Chromium against a real server: the hint is offered only at a practice table, only to the seat
to move, and shows the suggested call or card in Russian."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, Role
from app.security.passwords import hash_password
from app.services.tables import create_table
from tests.browser.test_ui import login, wait_for
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a hint button password"
HINT = "[data-testid=hint] button"


def _run(coro: Any) -> Any:
    """Run a coroutine in another thread (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _tables(url: str) -> tuple[int, int]:
    """Three members at a practice table and at a club table: (practice id, club id)."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            rows = [
                Member(
                    login=f"hb{i}",
                    display_name=name,
                    role=Role.member,
                    password_hash=hash_password(PASSWORD),
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate(["Ада", "Бор", "Ева"])
            ]
            db.add_all(rows)
            await db.flush()
            ids: list[int | None] = [m.id for m in rows]
            practice = await create_table(
                db,
                seat_member_ids=ids,
                practice=True,
                target=10,
                first_dealer=0,
                now=datetime.now(UTC),
            )
            club = await create_table(
                db,
                seat_member_ids=ids,
                practice=False,
                target=10,
                first_dealer=0,
                now=datetime.now(UTC),
            )
            return practice.id, club.id
    finally:
        await engine.dispose()


def test_hint_only_at_practice_tables_for_the_seat_to_move(
    server: ServerProcess, browser: Any
) -> None:
    practice, club = _run(_tables(server.env["DATABASE_URL"]))
    base = server.base_url
    pages = []
    for i in range(3):
        page = browser.new_context(locale="ru-RU").new_page()
        login(page, base, f"hb{i}", PASSWORD)
        page.wait_for_selector("#session-title")
        pages.append(page)
    # The lobby's practice form offers the three levels in Russian.
    options = pages[0].locator("#p-level option").all_inner_texts()
    assert options == ["Новичок", "Клубный", "Сильный"]
    for page in pages:
        page.goto(f"{base}/#/table/{practice}")
        page.wait_for_selector(".conn:has-text('На связи')")
    wait_for(lambda: sum(p.locator(HINT).count() for p in pages) == 1, what="one hint button")
    mover = next(p for p in pages if p.locator(HINT).count() == 1)
    assert mover.locator(HINT).inner_text() == "Подсказка"
    mover.click(HINT)
    shown = wait_for(
        lambda: (
            "Подсказка:" in mover.locator("[data-testid=hint]").inner_text()
            and mover.locator("[data-testid=hint]").inner_text()
        ),
        timeout=60,
        what="the suggestion",
    )
    assert "Думаю" not in shown and shown.split("Подсказка:")[1].strip()
    # A club table: no hint for anyone, even the seat to move.
    for page in pages:
        page.goto(f"{base}/#/table/{club}")
        page.wait_for_selector(".conn:has-text('На связи')")
    wait_for(
        lambda: any(p.locator("[data-testid=actions] button").count() for p in pages),
        what="someone to move at the club table",
    )
    assert all(p.locator(HINT).count() == 0 for p in pages)
