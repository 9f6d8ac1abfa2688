"""Notices and buttons that answer like paper (issue 28): a button that changes something is
disabled until its answer comes, so a double click sends one request; a red notice goes away
when an action then succeeds and when the member moves to another page. Real Chromium."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.browser.conftest import first_admin_password
from tests.browser.test_csp import PASSWORD
from tests.support.api_login import admin_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser


def _admin_page(server: ServerProcess, browser: Any) -> Any:
    first = first_admin_password(server)
    api = admin_client(server.base_url, first)
    api.post("/api/auth/password", json={"current_password": first, "new_password": PASSWORD})
    page = browser.new_context(viewport={"width": 1366, "height": 768}, locale="ru-RU").new_page()
    page.goto(server.base_url + "/")
    page.fill("#login", "admin")
    page.fill("#password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_selector("#session-title")
    return page


def test_a_button_waits_for_its_answer_and_a_success_clears_the_error(
    server: ServerProcess, browser: Any
) -> None:
    page = _admin_page(server, browser)
    posts: list[float] = []

    def slow(route: Any) -> None:
        if route.request.method == "POST":
            posts.append(time.monotonic())
            time.sleep(0.6)
        route.continue_()

    page.route("**/api/members", slow)
    page.goto(server.base_url + "/#/members")
    submit = page.locator("#create-member button[type=submit]")
    page.fill("#m-login", "ivan")
    page.fill("#m-name", "Иван")
    submit.dblclick()
    page.wait_for_selector(".secret code.otp")
    assert len(posts) == 1, "the double click sent one request"
    assert submit.is_enabled()

    # the same login again: a red notice in words
    page.fill("#m-login", "ivan")
    page.fill("#m-name", "Иван второй")
    submit.click()
    notice = page.locator("#notice.notice-error")
    notice.wait_for(state="visible")
    assert "занят" in notice.inner_text(), notice.inner_text()  # the login is taken, in words
    # a new login succeeds: the old error goes away
    page.fill("#m-login", "petr")
    page.fill("#m-name", "Пётр")
    submit.click()
    page.wait_for_selector(".secret code.otp >> text=/./")
    page.wait_for_function("() => document.getElementById('notice').hidden")

    # an error, then another page: the notice goes too
    page.fill("#m-login", "petr")
    page.fill("#m-name", "Пётр снова")
    submit.click()
    notice.wait_for(state="visible")
    page.goto(server.base_url + "/#/lobby")
    page.wait_for_function("() => document.getElementById('notice').hidden")
    # hidden means not shown: no class of the notice's may display it anyway
    assert not page.locator("#notice").is_visible()
    page.context.close()
