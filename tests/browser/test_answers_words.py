"""The page's words for the refusals of issue 28 ("wrong or silent answers"), in real Chromium:
each names the field and the limit from the error's params, in Russian and in English, and the
password rule is said before the "must differ" one."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import first_admin_password
from tests.browser.test_ui import (
    ADMIN_PASSWORD,
    change_password,
    login,
    new_page,
    text_of,
    wait_for,
)
from tests.support.api_login import admin_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

WORDS = """async (lang) => {
  const i18n = await import("/static/js/i18n.js");
  const api = await import("/static/js/api.js");
  i18n.setLang(lang);
  const say = (status, code, params) => api.errorText(status, code, params, "English detail");
  return {
    order: say(422, "session_ends_before_start", {start: "20:00", end: "19:00"}),
    past: say(422, "session_in_past", {date: "2026-11-29", end: "22:15", today: "2026-11-30"}),
    short: say(422, "password_too_short", {min: 8}),
    taken: say(409, "login_taken", {login: "иван"}),
    mixed: say(422, "login_mixed_scripts", null),
    name: say(422, "invalid_input", {field: "display_name", problem: "too_long", limit: 100}),
    title: say(422, "invalid_input", {field: "title", problem: "required"}),
    odd: say(422, "invalid_input", {field: "zzz", problem: "unheard_of"}),
  };
}"""


def _words_in_both(
    server: ServerProcess, browser: Any
) -> tuple[Any, dict[str, str], dict[str, str]]:
    """A page of the club, and :data:`WORDS` said in Russian and in English on it."""
    page = new_page(browser)
    page.goto(server.base_url + "/")
    return page, page.evaluate(WORDS, "ru"), page.evaluate(WORDS, "en")


def test_refusals_name_the_field_and_the_limit_in_both_languages(
    server: ServerProcess, browser: Any
) -> None:
    page, ru, en = _words_in_both(server, browser)
    assert "20:00" in ru["order"] and "19:00" in ru["order"] and "позже" in ru["order"]
    assert "2026-11-29" in ru["past"] and "будущее" in ru["past"]
    assert "8" in ru["short"] and "отличаться" not in ru["short"]
    assert "«иван»" in ru["taken"] and "занят" in ru["taken"] and "Обновите" not in ru["taken"]
    assert "латинских и русских" in ru["mixed"]
    assert ru["name"] == "«Имя»: не длиннее 100 символов."
    assert ru["title"] == "«Название»: заполните это поле."
    assert ru["odd"] == "«zzz»: недопустимое значение."
    assert en["name"] == "«Name»: at most 100 characters." and "8" in en["short"]
    assert "English detail" not in " ".join(en.values())
    assert not page.js_errors


def test_a_cyrillic_member_is_told_the_password_rule(server: ServerProcess, browser: Any) -> None:
    base = server.base_url
    first = first_admin_password(server)
    api = admin_client(base, first)
    api.post(
        "/api/auth/password", json={"current_password": first, "new_password": ADMIN_PASSWORD}
    ).raise_for_status()
    api = admin_client(base, ADMIN_PASSWORD)
    # the members form takes a Cyrillic login (no Latin-only pattern in the page any more)
    admin = new_page(browser)
    login(admin, base, "admin", ADMIN_PASSWORD)
    admin.wait_for_selector("#session-title")
    admin.goto(base + "/#/members")
    admin.wait_for_selector("#create-member")
    assert "русские" in admin.locator("#m-login-hint").inner_text()
    admin.fill("#m-login", "Иван")
    admin.fill("#m-name", "Иван Иванов")
    admin.click("#create-member button[type=submit]")
    otp = admin.locator("code.otp").inner_text().strip()
    admin.fill("#m-login", "ИВАН")
    admin.fill("#m-name", "Другой")
    admin.click("#create-member button[type=submit]")
    wait_for(lambda: "занят" in (text_of(admin, "#notice") or ""), what="login taken")
    assert "«иван»" in (text_of(admin, "#notice") or "")
    assert [m["login"] for m in api.get("/api/members").json()].count("иван") == 1

    page = new_page(browser)
    login(page, base, "ИВАН", otp)
    page.wait_for_selector("#pw-title")
    assert "8" in page.locator("#new_password-hint").inner_text()
    page.fill("#current_password", otp)
    page.fill("#new_password", "abc")
    page.fill("#repeat_password", "abc")
    page.click("form button[type=submit]")
    notice = wait_for(lambda: text_of(page, "#notice"), what="the notice")
    assert "не короче 8" in notice and "отличаться" not in notice
    change_password(page, otp, "иван пароль 1")
    page.wait_for_selector("#session-title")
    assert not page.js_errors and not admin.js_errors
