"""A real-cards table one click away (issue 28, RULES.md §10): a session's drawn table is seated
from the lobby with «живые карты», and the table opens as the scorer's page, where a seated
player enters the first deal and the sheet takes it."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Attendance, ClubSession, Member, Role
from app.security.passwords import hash_password
from app.services.forming import draw_session_tables
from tests.browser.conftest import screenshot
from tests.browser.test_ui import login
from tests.support.club_calendar import without_the_monday_sessions
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a real cards password"
NAMES = ["Кира Живая", "Лев", "Мила"]


async def _drawn(url: str) -> None:
    """Three members checked in to a session open now, and the table draw (R-T1)."""
    engine = make_engine(url)
    now = datetime.now(UTC)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            members = [
                Member(
                    login=f"real{i}",
                    display_name=name,
                    role=Role.member,
                    password_hash=hash_password(PASSWORD),
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate(NAMES)
            ]
            db.add_all(members)
            await without_the_monday_sessions(db)
            session = ClubSession(
                starts_at=now - timedelta(minutes=1), ends_at=now + timedelta(hours=3), extra=True
            )
            db.add(session)
            await db.flush()
            db.add_all(
                [
                    Attendance(club_session_id=session.id, member_id=m.id, checked_in_at=now)
                    for m in members
                ]
            )
            await db.flush()
            await draw_session_tables(db, session, members[0], now, random.Random(3))
    finally:
        await engine.dispose()


def test_the_lobby_seats_a_drawn_table_with_real_cards(server: ServerProcess, browser: Any) -> None:
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _drawn(server.env["DATABASE_URL"])).result()
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="ru-RU")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    login(page, server.base_url, "real0", PASSWORD)
    page.wait_for_selector("[data-testid=cards]")
    options = page.locator("[data-testid=cards] option").all_inner_texts()
    assert options == ["сдаёт сервер", "живые карты — сдачи вносит игрок"]
    page.select_option("[data-testid=cards]", "real")
    page.click("button:has-text('Тираж мест')")

    # the recorded table's page: the scorer's form, no dealt hand
    page.wait_for_selector("[data-testid=rec-form]")
    assert "игра живыми картами" in page.locator("h1").inner_text()
    assert page.locator("[data-testid=my-hand]").count() == 0
    # the scorer's form beside the sheet, its button above the fold at 1366×768
    sheet = page.locator("[data-testid=rec-sheet]").bounding_box()
    form = page.locator("[data-testid=rec-form]").bounding_box()
    enter = page.locator("[data-testid=rec-enter]").bounding_box()
    assert sheet and form and enter
    assert form["x"] >= sheet["x"] + sheet["width"], (sheet, form)
    assert enter["y"] + enter["height"] <= 768, enter
    screenshot(page, "real-cards-table-1366")
    page.set_viewport_size({"width": 390, "height": 844})
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the phone page scrolls sideways: {width}px"
    screenshot(page, "real-cards-table-390")
    assert errors == []
