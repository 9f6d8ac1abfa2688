"""Preset ``arabic`` in real Chromium (A-1, docs/rules-arabic.md): the lobby's practice form
offers it in Russian and an arabic table's sheet names its rules."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, Role, TableSeat
from app.security.passwords import hash_password
from app.services.tables import create_table
from tests.browser.conftest import screenshot
from tests.browser.test_ui import login
from tests.support.archive_play import play_deal
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "an arabic preset password"


def run_async(coro: Any) -> Any:
    """Run a coroutine in another thread (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def arabic_table(
    url: str,
    *,
    prefix: str = "ar",
    names: tuple[str, ...] = ("Аня", "Рома", "Юля"),
    password: str = PASSWORD,
    overrides: dict[str, Any] | None = None,
) -> int:
    """Three members (logins ``prefix0..2``) at a practice table with preset ``arabic``."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            rows = [
                Member(
                    login=f"{prefix}{i}",
                    display_name=name,
                    role=Role.member,
                    password_hash=hash_password(password),
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate(names)
            ]
            db.add_all(rows)
            await db.flush()
            table = await create_table(
                db,
                seat_member_ids=[m.id for m in rows],
                practice=True,
                target=10,
                first_dealer=0,
                now=datetime.now(UTC),
                preset="arabic",
                overrides=overrides,
            )
            return table.id
    finally:
        await engine.dispose()


def test_a1_the_lobby_offers_arabic_and_the_sheet_names_it(
    server: ServerProcess, browser: Any
) -> None:
    table_id = run_async(arabic_table(server.env["DATABASE_URL"]))
    page = browser.new_context(locale="ru-RU").new_page()
    login(page, server.base_url, "ar0", PASSWORD)
    page.wait_for_selector("#session-title")
    options = page.locator("#p-preset option").all_inner_texts()
    assert "арабский преферанс" in options and options[0] == "клубные"
    page.goto(f"{server.base_url}/#/table/{table_id}")
    page.wait_for_selector("[data-testid=sheet-preset]")
    assert page.locator("[data-testid=sheet-preset]").inner_text() == "Правила: арабский преферанс"
    assert page.locator("[data-testid=preset]").inner_text() == "арабский преферанс"  # the head

    # A-3, R-A1: the deck cut, the opening round's auction says why only «Пас» is live, and
    # the sheet shows each player's three bombs
    run_async(_cut(server.env["DATABASE_URL"], table_id))
    page.reload()
    page.wait_for_selector("[data-testid=bomb-round]")
    assert page.locator("[data-testid=bomb-round]").inner_text() == (
        "Бомба: распасы ×2. Торговли нет — все пасуют, сдача играется распасами."
    )
    assert "3 — следующая игра ×2" in page.locator("[data-testid=bombs]").inner_text()
    # R-P4 under 004 (closing "help", A-22): never the club's rule under an arabic sheet
    hint = page.locator("[data-testid=balance-hint]").inner_text()
    assert hint.startswith("Перебор пули закрывает недобор других")
    screenshot(page, "arabic-bomb-round")


async def _cut(url: str, table_id: int) -> None:
    """Play the first deal up to its auction (the cut) through the command service."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            ids = list(
                await db.scalars(
                    select(TableSeat.member_id)
                    .where(TableSeat.table_id == table_id)
                    .order_by(TableSeat.seat)
                )
            )

            async def auction(state: Any) -> bool:
                return state.deal.phase == "auction"

            await play_deal(db, table_id, ids, datetime.now(UTC), stop=auction, prefix="cut")
    finally:
        await engine.dispose()
