"""Issue 27 in real Chromium: the night's page appears within 5 s of the session's end and goes
provisional → final by itself (the server runs with a 4 s correction window); its print view
and PDF; the room's screen at /room rotating between the two tables in play. Russian, then
English; axe finds no serious violation on either page. Screenshots go to ``test-results/``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import ClubSession, Member, Role
from app.security.passwords import hash_password
from app.services.tables import create_table
from tests.browser.conftest import scratch_server, screenshot
from tests.browser.test_axe import _describe, _serious
from tests.browser.test_ui import login, new_page
from tests.support.archive_play import play_deal
from tests.support.club_calendar import without_the_monday_sessions
from tests.support.server import ServerProcess
from tests.support.server_messages import english_in

pytestmark = pytest.mark.browser

PASSWORD = "a night's long password"
WINDOW_S = 4
NAMES = ["Анна", "Борис", "Вера"]


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """``prefclub serve`` on its own database with a 4-second correction window."""
    with scratch_server(
        database_url, tmp_path_factory, NIGHT_CORRECTION_SECONDS=str(WINDOW_S)
    ) as proc:
        yield proc


async def _seed(url: str) -> dict[str, Any]:
    """An admin; a session that ran from three hours ago until a minute ago, one table of it
    with a deal played (at the session's own time); two club tables still in play."""
    now = datetime.now(UTC)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        async with session_scope(sessions) as db:
            people = [
                Member(
                    login=f"night{i}",
                    display_name=name,
                    role=Role.admin if i == 0 else Role.member,
                    password_hash=hash_password(PASSWORD) if i == 0 else None,
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate([*NAMES, "Глеб", "Дина", "Ефим"])
            ]
            db.add_all(people)
            await without_the_monday_sessions(db)
            session = ClubSession(
                starts_at=now - timedelta(hours=3), ends_at=now - timedelta(minutes=1), extra=True
            )
            db.add(session)
            await db.flush()
            ids = [m.id for m in people]
            during = now - timedelta(hours=2)
            night = await create_table(
                db, seat_member_ids=ids[:3], club_session_id=session.id, target=20, now=during
            )
            room = [
                (await create_table(db, seat_member_ids=seats, target=20, now=now)).id
                for seats in (ids[:3], ids[3:])
            ]
            session_id = session.id
        async with session_scope(sessions) as db:
            await play_deal(db, night.id, ids[:3], during)
        return {"session": session_id, "table": night.id, "room": room}
    finally:
        await engine.dispose()


@pytest.fixture(scope="module")
def club(server: ServerProcess) -> dict[str, Any]:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _seed(server.env["DATABASE_URL"])).result()


def status_of(page: Any) -> str | None:
    return page.evaluate(
        "() => document.querySelector('[data-testid=night-status]')?.dataset.status ?? null"
    )


def test_the_nights_page_goes_provisional_then_final_and_the_room_rotates(
    server: ServerProcess, browser: Any, club: dict[str, Any]
) -> None:
    base = server.base_url
    page = new_page(browser)
    login(page, base, "night0", PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{base}/#/night/{club['session']}")
    page.wait_for_selector("[data-testid=night-status][data-status=open]")

    ended = page.evaluate(
        """async (id) => {
      const api = await import('/static/js/api.js');
      return (await api.post(`/api/sessions/${id}/end`)).closed_tables;
    }""",
        club["session"],
    )
    assert ended == [club["table"]]
    start = time.monotonic()
    page.wait_for_selector("[data-testid=night-status][data-status=provisional]", timeout=5000)
    assert time.monotonic() - start < 5
    screenshot(page, "night-provisional")
    assert page.locator("[data-testid=night-players] tbody tr").count() == 3
    assert "6♠" in page.locator("[data-testid=deal-of-night]").inner_text()
    assert "₽" in page.locator("[data-testid=night-fund]").inner_text()
    assert page.locator(".night-table .sheet-card svg").count() == 1
    text = page.locator("main").inner_text()
    assert english_in(text) == [] and "null" not in text, english_in(text)
    found = _serious(page)
    assert not found, _describe(found)

    page.wait_for_selector(
        "[data-testid=night-status][data-status=final]", timeout=(WINDOW_S + 6) * 1000
    )
    assert "Окончательные итоги" in page.locator("[data-testid=night-status]").inner_text()
    screenshot(page, "night-final")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: no sideways scrolling
    page.wait_for_timeout(200)
    screenshot(page, "night-final-phone")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
    page.set_viewport_size({"width": 1280, "height": 900})

    # The print view: the bar and the top bar are not on paper; the PDF is an A4 document.
    page.emulate_media(media="print")
    assert not page.locator(".print-bar").is_visible()
    assert not page.locator("header.topbar").is_visible()
    page.emulate_media(media="screen")
    pdf = page.request.get(f"{base}/api/nights/{club['session']}/pdf")
    assert pdf.ok and pdf.body().startswith(b"%PDF-")
    page.click(".night-table a[href^='#/sheet/']")
    page.wait_for_selector(".print-sheet .sheet-card svg")
    sheet_pdf = page.request.get(base + str(page.locator(".print-bar a").get_attribute("href")))
    assert sheet_pdf.ok and sheet_pdf.headers["content-type"] == "application/pdf"

    # The lobby links the night; English too.
    page.goto(f"{base}/#/lobby")
    page.wait_for_selector(f"[data-testid=nights] a[data-night='{club['session']}']")
    page.click("#lang")
    page.goto(f"{base}/#/night/{club['session']}")
    page.wait_for_selector("[data-testid=night-status][data-status=final]")
    assert "Final results" in page.locator("[data-testid=night-status]").inner_text()
    page.click("#lang")

    # The room's screen: no top bar, the tables in play in turn (2 s each here).
    page.goto(f"{base}/room")
    page.wait_for_selector("[data-testid=room-table]")
    assert not page.locator("header.topbar").is_visible()
    page.goto(f"{base}/room#/room/2")
    page.wait_for_selector("[data-testid=room-table]")
    seen: set[str] = set()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(seen) < 3:
        seen.add(
            page.evaluate("""() => document.querySelector('[data-testid=room-table]')
          ?.dataset.table ?? (document.querySelector('[data-testid=room-standings]')
          ? 'standings' : 'none')""")
        )
        page.wait_for_timeout(250)
    assert seen - {"none"} == {*map(str, club["room"]), "standings"}
    page.wait_for_selector("[data-testid=room-table]")
    assert "Стол" in page.locator("[data-testid=room-table] h1").inner_text()
    screenshot(page, "room-screen")
    found = _serious(page)
    assert not found, _describe(found)
    # The standings slide after the tables: the night's three players, all-time (no season).
    page.wait_for_selector("[data-testid=room-standings]")
    assert (
        "Турнирная таблица за всё время"
        in page.locator("[data-testid=room-standings] h1").inner_text()
    )
    assert page.locator("[data-testid=room-standings] tbody tr").count() == 3
    screenshot(page, "room-standings")
    found = _serious(page)
    assert not found, _describe(found)
    assert not page.js_errors
    page.context.close()
