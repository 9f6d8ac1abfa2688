"""The move timer in the pages (issue 11), in real Chromium against a real server: the admin
sets the club tables' timer on the admin page (off by default); a member chooses a practice
table's timer in the lobby form, and the table page shows the countdown with what happens when
it runs out."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, Role
from app.security.passwords import hash_password
from tests.browser.test_ui import login, wait_for
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a move timer password"


def _run(coro: Any) -> Any:
    """Run a coroutine in another thread (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _members(url: str) -> None:
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            db.add_all(
                [
                    Member(
                        login=login,
                        display_name=name,
                        role=role,
                        password_hash=hash_password(PASSWORD),
                        must_change_password=False,
                        active=True,
                        is_bot=False,
                    )
                    for login, name, role in [
                        ("mt-admin", "Админ Таймер", Role.admin),
                        ("mt-player", "Игрок Таймер", Role.member),
                    ]
                ]
            )
    finally:
        await engine.dispose()


def _json(page: Any, path: str) -> Any:
    return page.evaluate(f"() => fetch('{path}').then(r => r.json())")


def test_club_timer_on_the_admin_page_and_a_practice_timer_in_the_lobby(
    server: ServerProcess, browser: Any
) -> None:
    _run(_members(server.env["DATABASE_URL"]))
    base = server.base_url
    admin = browser.new_context(locale="ru-RU").new_page()
    login(admin, base, "mt-admin", PASSWORD)
    admin.wait_for_selector("#session-title")
    assert _json(admin, "/api/club/settings") == {"move_timer_seconds": None, "min_pulkas": 5}
    admin.goto(f"{base}/#/admin")
    admin.wait_for_selector("#club-timer")
    assert admin.locator("#club-timer").input_value() == "0"  # off by default
    assert "без таймера" in admin.locator("#club-timer option:checked").inner_text()
    admin.select_option("#club-timer", "60")
    admin.click("#club-timer-form button[type=submit]")
    wait_for(
        lambda: _json(admin, "/api/club/settings") == {"move_timer_seconds": 60, "min_pulkas": 5},
        what="the club timer saved",
    )
    admin.wait_for_selector("#notice:has-text('60 с на ход')")
    admin.select_option("#club-timer", "0")
    admin.click("#club-timer-form button[type=submit]")
    wait_for(
        lambda: _json(admin, "/api/club/settings") == {"move_timer_seconds": None, "min_pulkas": 5},
        what="the club timer off again",
    )
    admin.context.close()

    player = browser.new_context(locale="ru-RU").new_page()
    login(player, base, "mt-player", PASSWORD)
    player.wait_for_selector("#p-timer")
    options = player.locator("#p-timer option").all_inner_texts()
    assert options[0] == "без таймера" and "60 с на ход" in options
    player.select_option("#p-timer", "60")
    player.click("#practice-form button[type=submit]")
    player.wait_for_url("**/#/table/*")
    table_id = int(player.url.rsplit("/", 1)[1])
    assert _json(player, f"/api/tables/{table_id}")["move_timer_seconds"] == 60
    timer = player.wait_for_selector("[data-testid=move-timer]")
    assert "сервер сходит сам" in timer.inner_text()
    player.context.close()
