"""The club officer's pages in a real browser (issue 11): nothing an admin does needs curl.

The admin adds an extra session and sees its own times, ends nothing early, closes a pulka, asks
for a replacement and sees whose consent it waits for; resets a member (the one-time link with a
copy button) and deactivates him. Errors from the server read in Russian, by their code. The
lobby disables a check-in the server would refuse and says why, lists no finished table, and
shows no rule IDs or hashes. Screenshots at 1366×768 and 390×844 go to ``test-results/``.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.browser import test_ui as ui
from tests.browser.conftest import first_admin_password, screenshot
from tests.support.api_login import admin_client, logged_in_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

ADMIN_PASSWORD = "a long admin password"
MEMBER_PASSWORD = "a long member password"
CLUB_TZ = ZoneInfo("Europe/Moscow")
RULE_ID = re.compile(r"R-[A-Z]+\d")
HEX_HASH = re.compile(r"\b[0-9a-f]{32,}\b")
SIZES = {"wide": (1366, 768), "phone": (390, 844)}
STATE: dict[str, Any] = {}
"""What the first test set up for the next (the module runs in file order)."""


def sized_page(browser: Any, size: str = "wide") -> Any:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU")
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    return page


def logged_in(browser: Any, base: str, login: str, password: str, size: str = "wide") -> Any:
    page = sized_page(browser, size)
    ui.login(page, base, login, password)
    page.wait_for_selector("#session-title")
    return page


def notice(page: Any) -> str:
    """The text of the notice at the top of the page, once it is shown."""
    page.wait_for_selector("#notice:not([hidden])")
    return str(page.locator("#notice span").inner_text()).strip()


WIDE_ELEMENTS = """() => {
  const scrolls = (p) => ['auto', 'hidden', 'scroll'].includes(getComputedStyle(p).overflowX);
  const clipped = (e) => {
    for (let p = e.parentElement; p; p = p.parentElement) if (scrolls(p)) return true;
    return false;
  };
  const width = document.documentElement.clientWidth;
  return [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > width + 1 && !clipped(e))
    .slice(0, 8)
    .map((e) => `${e.tagName}.${e.className}#${e.id}: ${e.getBoundingClientRect().right}`);
}"""
"""The elements (outside any scroller) that stick out past the right edge of the window."""


def shoot_both_sizes(page: Any, name: str) -> None:
    """Screenshots at 1366×768 and 390×844; on a phone the page must not scroll sideways."""
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        screenshot(page, f"{name}-{size}")
        overflow = page.evaluate("() => document.documentElement.scrollWidth") - width
        assert overflow <= 1, page.evaluate(WIDE_ELEMENTS)


def a_free_weekday(days_ahead: int) -> date:
    """A club-local date at least ``days_ahead`` away that is not a Monday (no club night)."""
    day = datetime.now(CLUB_TZ).date() + timedelta(days=days_ahead)
    while day.weekday() == 0:
        day += timedelta(days=1)
    return day


def test_setup_the_club(server: ServerProcess) -> None:
    """The first admin chooses his password; a member is created with his own password."""
    base = server.base_url
    once = first_admin_password(server)
    logged_in_client(base, "admin", once, new_password=ADMIN_PASSWORD).close()
    api = admin_client(base, ADMIN_PASSWORD)
    created = api.post("/api/members", json={"login": "petrov", "display_name": "Пётр Петров"})
    created.raise_for_status()
    STATE["petrov"] = created.json()["member"]["id"]
    otp = created.json()["one_time_password"]
    logged_in_client(base, "petrov", otp, new_password=MEMBER_PASSWORD).close()
    STATE["ready"] = True


def _needs_setup() -> None:
    if not STATE.get("ready"):
        pytest.skip("needs the club the first test sets up")


def test_admin_adds_an_extra_session_and_sees_its_own_times(
    server: ServerProcess, browser: Any
) -> None:
    _needs_setup()
    page = logged_in(browser, server.base_url, "admin", ADMIN_PASSWORD)
    page.click("nav >> text=Сессии")
    page.wait_for_selector("#extra-session")
    day = a_free_weekday(3)
    page.fill("#x-date", day.isoformat())
    page.fill("#x-start", "18:30")
    page.fill("#x-end", "21:45")
    page.click("#extra-session button[type=submit]")
    assert "18:30–21:45" in notice(page)
    row = page.locator("[data-testid=sessions] tr", has_text="дополнительная")
    row.first.wait_for()
    assert "18:30–21:45" in row.first.inner_text()
    assert "19:00" not in row.first.inner_text()
    shoot_both_sizes(page, "admin")
    assert page.js_errors == []
    page.context.close()


def test_a_refused_request_reads_in_russian_by_its_code(
    server: ServerProcess, browser: Any
) -> None:
    """The server's English detail never reaches a Russian page (issue 11)."""
    _needs_setup()
    page = logged_in(browser, server.base_url, "admin", ADMIN_PASSWORD)
    page.goto(server.base_url + "/#/admin")
    page.wait_for_selector("#extra-session")
    # a session in the past: 422 session_in_past, said with its date (issue 28)
    page.fill("#x-date", "2020-01-06")
    page.click("#extra-session button[type=submit]")
    text = notice(page)
    assert text.startswith("Дополнительную сессию можно назначить только на будущее: 2020-01-06"), (
        text
    )
    assert not re.search(r"[A-Za-z]{3,}", text)
    # the same extra session twice: 409 session_overlaps, naming the other session
    day = a_free_weekday(10)
    statuses = []
    for _ in range(2):
        page.fill("#x-date", day.isoformat())
        with page.expect_response("**/api/sessions/extra") as answer:
            page.click("#extra-session button[type=submit]")
        statuses.append(answer.value.status)
    assert statuses == [201, 409]
    page.wait_for_function(
        "() => document.querySelector('#notice span')?.textContent.startsWith('Это время')"
    )
    text = notice(page)
    assert "пересекается с сессией " + day.isoformat() in text, text
    assert "overlaps" not in text
    # the success message's timer does not hide the error that came after it
    page.wait_for_timeout(4500)
    assert page.locator("#notice").is_visible()
    # in English the same refusal in the page's English words for its code
    page.click("#lang")
    page.wait_for_selector("h1:has-text('Running the sessions')")
    page.fill("#x-date", "2020-01-06")
    page.click("#extra-session button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#notice span')?.textContent.includes('in the future')"
    )
    page.click("#lang")
    assert page.js_errors == []
    page.context.close()


def test_a_failed_login_reads_in_russian(server: ServerProcess, browser: Any) -> None:
    """A 401 from the login is a wrong password (not an expired session), said in Russian."""
    page = sized_page(browser)
    ui.login(page, server.base_url, "admin", "not the password")
    assert notice(page) == "Неверный логин или пароль."
    page.wait_for_timeout(500)  # no re-route hides it
    assert page.locator("#notice").is_visible()
    assert page.locator("#login-title").count() == 1
    page.context.close()


def test_admin_resets_a_member_copies_the_link_and_deactivates_him(
    server: ServerProcess, browser: Any
) -> None:
    _needs_setup()
    page = logged_in(browser, server.base_url, "admin", ADMIN_PASSWORD)
    page.click("nav >> text=Члены клуба")
    row = page.locator("tr[data-login=petrov]")
    row.wait_for()
    row.locator("button", has_text="Ссылка сброса пароля").click()
    link = row.locator("input.copy").input_value()
    assert "/reset-password?token=" in link
    row.locator("button.copy-button").click()
    assert notice(page) == "Ссылка скопирована."
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    shoot_both_sizes(page, "members")
    body = page.locator("main").inner_text()
    assert not RULE_ID.search(body) and not HEX_HASH.search(body)
    page.on("dialog", lambda dialog: dialog.accept())
    row.locator("button", has_text="Отключить").click()
    page.wait_for_selector("tr[data-login=petrov].inactive")
    with httpx.Client(base_url=server.base_url) as client:
        refused = client.post(
            "/api/auth/login", json={"login": "petrov", "password": MEMBER_PASSWORD}
        )
        assert refused.status_code in (401, 403)
    page.locator("tr[data-login=petrov]").locator("button", has_text="Включить").click()
    page.wait_for_selector("tr[data-login=petrov]:not(.inactive)")
    assert page.js_errors == []
    page.context.close()


def test_lobby_check_in_says_why_it_is_closed(server: ServerProcess, browser: Any) -> None:
    _needs_setup()
    api = admin_client(server.base_url, ADMIN_PASSWORD)
    page = logged_in(browser, server.base_url, "petrov", MEMBER_PASSWORD)
    page.wait_for_selector(".session-time")
    shown = api.get("/api/sessions/current")
    if shown.status_code == 404:
        now = datetime.now(CLUB_TZ)
        ahead = [
            s
            for s in api.get("/api/sessions").json()
            if not s["ended_at"] and datetime.fromisoformat(s["ends_at"]) > now
        ]
        session = ahead[0]
    else:
        session = shown.json()["session"]
    starts = datetime.fromisoformat(session["starts_at"])
    now = datetime.now(CLUB_TZ)
    button = page.locator("#check-in")
    if now < starts - timedelta(hours=6):
        assert button.is_disabled()
        why = page.locator("#check-in-why").inner_text()
        opens = (starts - timedelta(hours=6)).astimezone(CLUB_TZ).strftime("%H:%M")
        assert why.startswith("Отметиться можно с") and opens in why, why
        assert button.get_attribute("aria-describedby") == "check-in-why"
    elif now >= starts:
        assert button.is_disabled()
        assert "предупредил об опоздании" in page.locator("#check-in-why").inner_text()
    else:
        assert button.is_enabled()
    body = page.locator("main").inner_text()
    assert not RULE_ID.search(body) and not HEX_HASH.search(body)
    shoot_both_sizes(page, "lobby-member")
    assert page.js_errors == []
    page.context.close()


def test_closed_pulka_leaves_the_lobby_and_a_replacement_waits_for_consent(
    server: ServerProcess, browser: Any
) -> None:
    _needs_setup()
    api = admin_client(server.base_url, ADMIN_PASSWORD)
    opened = api.post("/api/practice-tables", json={"players": 3, "target": 10})
    opened.raise_for_status()
    table_id = opened.json()["table_id"]
    page = logged_in(browser, server.base_url, "admin", ADMIN_PASSWORD)
    page.wait_for_selector(f"ul.tables a[href='#/table/{table_id}']")

    # the admin asks Petrov to take over a bot's seat: Petrov's consent is asked
    page.goto(server.base_url + "/#/admin")
    item = page.locator(f"li.admin-table[data-table='{table_id}']")
    item.wait_for()
    item.locator(f"#sc-{table_id}-kind").select_option("replace")
    item.locator(f"#sc-{table_id}-seat").select_option("1")
    item.locator(f"#sc-{table_id}-who").select_option(str(STATE["petrov"]))
    item.locator("button", has_text="Спросить согласия").click()
    request = page.locator(f"li.admin-table[data-table='{table_id}'] .seat-request")
    request.wait_for()
    assert "ждёт согласия" in request.inner_text()
    assert "Ждём: Пётр Петров" in request.inner_text()
    assert "#" not in item.locator("p.small").first.inner_text()  # bots by name
    shoot_both_sizes(page, "admin-seat-request")
    page.set_viewport_size({"width": 1366, "height": 768})

    # the admin closes the pulka; the table is gone from the lobby's open list
    page.on("dialog", lambda dialog: dialog.accept())
    item.locator("button", has_text="Закрыть пульку").click()
    page.wait_for_selector(f"li.admin-table[data-table='{table_id}']", state="detached")
    page.click("nav >> text=Лобби")
    page.wait_for_selector("#tables-title")
    page.wait_for_selector("[aria-labelledby=tables-title][data-loaded=true]")
    assert page.locator(f"ul.tables a[href='#/table/{table_id}']").count() == 0
    assert api.get(f"/api/tables/{table_id}").json()["status"] == "finished"
    assert page.js_errors == []
    page.context.close()


def test_a_member_answers_a_consent_request_in_the_lobby(
    server: ServerProcess, browser: Any
) -> None:
    """R-T5: the admin asks Petrov to take over a bot's seat; Petrov's lobby lists the request
    (``GET /api/seat-changes?awaiting=me``) and he agrees with one click."""
    _needs_setup()
    api = admin_client(server.base_url, ADMIN_PASSWORD)
    opened = api.post("/api/practice-tables", json={"players": 3, "target": 10})
    opened.raise_for_status()
    table_id = opened.json()["table_id"]
    asked = api.post(
        f"/api/tables/{table_id}/replace", json={"seat": 2, "member_id": STATE["petrov"]}
    )
    asked.raise_for_status()
    page = logged_in(browser, server.base_url, "petrov", MEMBER_PASSWORD)
    item = page.locator(f"[data-testid=consents] li[data-change='{asked.json()['id']}']")
    item.wait_for()
    item.locator("button", has_text="Согласен").click()
    item.wait_for(state="detached")
    assert page.js_errors == []
    page.context.close()


def test_admin_cancels_an_extra_session(server: ServerProcess, browser: Any) -> None:
    """R-S1: an extra session without a draw has a cancel button; once cancelled it leaves the
    list (``POST /api/sessions/{id}/cancel``)."""
    _needs_setup()
    api = admin_client(server.base_url, ADMIN_PASSWORD)
    day = a_free_weekday(17)
    made = api.post(
        "/api/sessions/extra", json={"date": day.isoformat(), "start": "17:05", "end": "20:35"}
    )
    made.raise_for_status()
    session_id = made.json()["id"]
    page = logged_in(browser, server.base_url, "admin", ADMIN_PASSWORD)
    page.goto(server.base_url + "/#/admin")
    row = page.locator(f"[data-testid=sessions] tr[data-session='{session_id}']")
    row.wait_for()
    page.on("dialog", lambda dialog: dialog.accept())
    row.locator("button", has_text="Отменить").click()
    assert notice(page) == "Сессия отменена."
    row.wait_for(state="detached")
    assert session_id not in [s["id"] for s in api.get("/api/sessions").json()]
    assert page.js_errors == []
    page.context.close()
