"""Seasons and standings in the pages (issue 27), in real Chromium against a real server: the
admin adds a season and the minimum to qualify on the admin page; an overlapping season is
refused in Russian and nothing is stored; the standings page is in the navigation and shows
the season chosen, in Russian and in English."""

from __future__ import annotations

from typing import Any

import pytest

from app.db.models import Role
from tests.browser.test_timer_settings import _json, _run
from tests.browser.test_ui import login, wait_for
from tests.support.browser_members import add_members
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a season password"


def _add(page: Any, name: str, first: str, last: str) -> None:
    form = page.locator("#admin-seasons form.season-form").last
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=first_day]").fill(first)
    form.locator("input[name=last_day]").fill(last)
    form.locator("button[type=submit]").click()


def test_an_admin_adds_seasons_and_the_standings_show_them(
    server: ServerProcess, browser: Any
) -> None:
    _run(
        add_members(
            server.env["DATABASE_URL"], [("season-admin", "Админ Сезон", Role.admin)], PASSWORD
        )
    )
    base = server.base_url
    page = browser.new_context(locale="ru-RU").new_page()
    login(page, base, "season-admin", PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{base}/#/admin")
    page.wait_for_selector("#admin-seasons h2:has-text('Сезоны')")
    _add(page, "2026/27", "2026-09-01", "2027-05-31")
    wait_for(lambda: len(_json(page, "/api/seasons")) == 1, what="the season saved")
    page.wait_for_selector("#admin-seasons input[value='2026/27']")
    _add(page, "Лето", "2027-05-01", "2027-08-31")
    page.wait_for_selector("#notice:has-text('пересекается с сезоном «2026/27»')")
    assert len(_json(page, "/api/seasons")) == 1, "the overlapping season is not stored"
    page.fill("#min-pulkas", "3")
    page.click("#min-pulkas-form button[type=submit]")
    wait_for(lambda: _json(page, "/api/club/settings")["min_pulkas"] == 3, what="the minimum saved")

    page.click("nav a[href='#/standings']")
    page.wait_for_selector("#standings-season")
    assert page.locator("#standings-season option:checked").inner_text() == "2026/27"
    page.wait_for_selector("text=В зачёт — от 3 пулек.")
    page.wait_for_selector("text=В этом сезоне клубных пулек ещё не было.")
    page.select_option("#standings-season", "all")
    page.wait_for_url("**/#/standings/all/whists")
    page.wait_for_selector("text=Все клубные вечера.")
    page.click("#lang")
    page.wait_for_selector("label[for=standings-order]:has-text('Ranked by')")
    page.context.close()
