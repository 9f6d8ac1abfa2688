"""The browser UI end to end: first admin login and password change, members admin, reset link,
lobby, and a three-player table played through the bidding by three logged-in browsers, with the
paper pulka drawn in SVG. Screenshots are written to ``test-results/``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.conftest import first_admin_password, screenshot
from tests.support.api_login import logged_in_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

ADMIN_PASSWORD = "a long admin password"
MEMBER_PASSWORD = "a long member password"
CLUB: dict[str, Any] = {}
"""What the first test set up for the next (the suite runs in file order)."""


def new_page(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ru-RU")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    return page


def login(page: Any, base: str, name: str, password: str) -> None:
    page.goto(base + "/")
    page.fill("#login", name)
    page.fill("#password", password)
    page.click("form button[type=submit]")


def change_password(page: Any, current: str, new: str) -> None:
    page.wait_for_selector("#pw-title")
    page.fill("#current_password", current)
    page.fill("#new_password", new)
    page.fill("#repeat_password", new)
    page.click("form button[type=submit]")


def wait_for(condition: Callable[[], Any], timeout: float = 10.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def enabled(page: Any, selector: str) -> bool:
    """Is ``selector`` on the page and enabled, right now (one atomic look)?"""
    return bool(
        page.evaluate(
            "sel => { const e = document.querySelector(sel); return !!e && !e.disabled; }", selector
        )
    )


def text_of(page: Any, selector: str) -> str | None:
    """The text of ``selector`` now, or None when it is not there."""
    value = page.evaluate("sel => document.querySelector(sel)?.textContent ?? null", selector)
    return None if value is None else str(value).strip()


def who_can(pages: list[Any], selector: str) -> tuple[int, Any]:
    """The one page where ``selector`` is present and enabled (the seat to act)."""

    def find() -> tuple[int, Any] | None:
        for i, page in enumerate(pages):
            if enabled(page, selector):
                return i, page
        return None

    found: tuple[int, Any] = wait_for(find, what=selector)
    return found


def act(page: Any, selector: str) -> None:
    """Click ``selector`` and wait until the table has moved on (it is no longer enabled)."""
    page.click(selector)
    wait_for(lambda: not enabled(page, selector), what=f"after {selector}")


def test_first_login_members_reset_link_and_lobby(server: ServerProcess, browser: Any) -> None:
    base = server.base_url
    page = new_page(browser)
    login(page, base, "admin", first_admin_password(server))
    # the one-time password must be changed before anything else
    change_password(page, first_admin_password(server), ADMIN_PASSWORD)
    page.wait_for_selector("#session-title")
    assert page.locator("h1").inner_text() == "Лобби"

    # lobby: create the Monday sessions, check in when today's session is open
    page.wait_for_selector(".session-time, button:has-text('Создать сессии на 8 недель')")
    if page.locator(".session-time").count() == 0:
        page.click("text=Создать сессии на 8 недель")
    page.wait_for_selector(".session-time")
    if page.locator("button:has-text('Отметиться'):enabled").count():
        page.click("button:has-text('Отметиться'):enabled")
        page.wait_for_selector("text=Вы отмечены")
    screenshot(page, "lobby")
    # English is one click away
    page.click("#lang")
    page.wait_for_selector("h1:has-text('Lobby')")
    page.click("#lang")
    page.wait_for_selector("h1:has-text('Лобби')")

    # members: create a member, read his one-time password, make a reset link
    page.click("nav >> text=Члены клуба")
    page.wait_for_selector("#create-member")
    page.fill("#m-login", "petrov")
    page.fill("#m-name", "Пётр Петров")
    page.click("#create-member button[type=submit]")
    otp = page.locator("code.otp").inner_text().strip()
    assert len(otp) >= 8
    row = page.locator("tr[data-login=petrov]")
    row.locator("button", has_text="Ссылка сброса пароля").click()
    link = row.locator("input.copy").input_value()
    assert "/reset-password?token=" in link
    screenshot(page, "members")
    # the admin makes him treasurer
    row.locator("select").select_option("treasurer")
    with page.expect_response("**/api/members/*"):
        row.locator("button", has_text="Сохранить").click()
    page.reload()
    page.wait_for_selector("tr[data-login=petrov]")
    assert page.locator("tr[data-login=petrov] select").input_value() == "treasurer"

    # the member sets his password through the link and logs in with it
    other = new_page(browser)
    other.goto(link)
    other.wait_for_selector("#reset-title")
    other.fill("#new_password", MEMBER_PASSWORD)
    other.fill("#repeat_password", MEMBER_PASSWORD)
    other.click("form button[type=submit]")
    other.wait_for_selector("#login-title")
    login(other, base, "petrov", MEMBER_PASSWORD)
    other.wait_for_selector("#session-title")
    assert other.locator("#whoami .me").inner_text() == "Пётр Петров"
    # a member has no members page in the menu, and sees only the list there
    assert other.locator("nav >> text=Члены клуба").count() == 0
    other.goto(f"{base}/#/members")
    other.wait_for_selector("li:has-text('Пётр Петров')")
    assert other.locator("#create-member").count() == 0
    other.goto(f"{base}/#/lobby")
    other.wait_for_selector("#session-title")
    # session times are the club's (Moscow) time: Monday sessions start at 19:00
    assert "19:00" in other.locator(".session-time").inner_text()
    # before 19:00 of the session a member may give notice of being late (R-S4)
    if other.locator("#late-note").count():
        other.fill("#late-note", "буду к 20:00")
        other.click("button:has-text('Предупредить об опоздании')")
        other.wait_for_selector("[data-testid=late] >> text=буду к 20:00")
        screenshot(other, "lobby-late")

    # deactivating a member ends his sessions
    page.on("dialog", lambda dialog: dialog.accept())
    row.locator("button", has_text="Отключить").click()
    page.wait_for_selector("tr[data-login=petrov].inactive")
    row = page.locator("tr[data-login=petrov]")
    row.locator("button", has_text="Включить").click()
    page.wait_for_selector("tr[data-login=petrov]:not(.inactive)")
    assert not page.js_errors and not other.js_errors
    CLUB["petrov_password"] = MEMBER_PASSWORD
    page.context.close()
    other.context.close()


def _api(base: str) -> httpx.Client:
    return logged_in_client(base, "admin", ADMIN_PASSWORD)


def test_table_through_the_bidding_with_the_paper_sheet(
    server: ServerProcess, browser: Any
) -> None:
    if "petrov_password" not in CLUB:
        pytest.skip("needs the first test's club")
    base = server.base_url
    api = _api(base)
    created = api.post("/api/members", json={"login": "sidorov", "display_name": "Сидоров"})
    created.raise_for_status()
    members = {m["login"]: m["id"] for m in api.get("/api/members").json()}

    pages = [new_page(browser) for _ in range(3)]
    login(pages[0], base, "admin", ADMIN_PASSWORD)
    login(pages[1], base, "petrov", CLUB["petrov_password"])
    login(pages[2], base, "sidorov", created.json()["one_time_password"])
    change_password(pages[2], created.json()["one_time_password"], MEMBER_PASSWORD)
    CLUB["sidorov_password"] = MEMBER_PASSWORD
    for page in pages:
        page.wait_for_selector("#session-title")

    table = api.post(
        "/api/tables",
        json={"seats": [members["admin"], members["petrov"], members["sidorov"]], "target": 10},
    )
    table.raise_for_status()
    table_id = table.json()["id"]
    for page in pages:
        page.goto(f"{base}/#/table/{table_id}")
    for page in pages:
        page.wait_for_selector(".conn:has-text('На связи')")
        page.wait_for_selector("[data-testid=sheet] svg.pulka")
    wait_for(lambda: pages[0].locator(".seat-box .dot.on").count() == 3, what="presence")

    # the cutter cuts; every seat then sees its own ten cards sorted by suit
    _, cutter = who_can(pages, "#cut-pos")
    act(cutter, "[data-testid=actions] button.primary")
    for page in pages:
        wait_for(
            lambda page=page: page.locator("[data-testid=my-hand] .card-face").count() == 10,
            what="ten cards",
        )

    # forehand opens 6♣; the next bidder may not bid 6♣ again, but may raise
    bid = "[data-testid=bidbox] button[data-call='{}']"
    first, declarer = who_can(pages, bid.format("6C"))
    act(declarer, bid.format("6C"))
    second, page = who_can(pages, bid.format("pass"))
    assert second != first
    assert page.locator(bid.format("6C")).is_disabled()
    assert page.locator(bid.format("6S")).is_disabled()
    assert page.locator(bid.format("6D")).is_enabled()
    screenshot(page, "table-bidding")
    act(page, bid.format("pass"))
    third, page = who_can(pages, bid.format("pass"))
    assert third not in (first, second)
    act(page, bid.format("pass"))

    # the declarer sees the talon, discards two cards and names the contract
    declarer.wait_for_selector("[data-testid=talon] .card-face")
    hand = declarer.locator("[data-testid=my-hand] button.card-face")
    wait_for(lambda: hand.count() == 12, what="talon in hand")
    screenshot(declarer, "table-talon")
    hand.nth(0).click()
    hand.nth(11).click()
    declarer.click("button:has-text('Снести')")
    declarer.wait_for_selector("[data-testid=actions] button[data-call='6C']:enabled")
    assert declarer.locator("[data-testid=actions] button[data-call='6S']").is_disabled()
    declarer.click("[data-testid=actions] button[data-call='6C']")

    # both defenders pass: the game is written without play (2 into the declarer's pool)
    defend = "[data-testid=actions] button[data-call='pass']"
    for _ in range(2):
        _, page = who_can(pages, defend)
        act(page, defend)
    declarer_seat = first  # pages are seated in order: seat i is pages[i]
    for page in pages:
        pool = f"[data-testid=pool-{declarer_seat}] tspan.last"
        wait_for(
            lambda page=page, pool=pool: text_of(page, pool) == "2", what="pool 2 on the sheet"
        )
        page.wait_for_selector("[data-testid=last-deal]")

    # chat is open between deals
    pages[0].fill("#chat-text", "ещё одну?")
    pages[0].click("button:has-text('Отправить')")
    pages[1].wait_for_selector(".chat-log >> text=ещё одну?")

    # deal 2: cut, everyone passes, the pass-out starts with the talon card led
    _, cutter = who_can(pages, "#cut-pos")
    act(cutter, "[data-testid=actions] button.primary")
    for _ in range(3):
        _, page = who_can(pages, bid.format("pass"))
        act(page, bid.format("pass"))
    mover_index, mover = who_can(pages, "[data-testid=my-hand] button.card-face.playable")
    assert pages[0].locator("#chat-text").is_disabled()  # table talk is closed during play
    card = mover.locator("[data-testid=my-hand] button.card-face.playable").first
    played = card.get_attribute("data-card")
    card.click()
    for page in pages:
        page.wait_for_selector(f".trick .card-face[data-card='{played}']")

    # the rest of the first trick; then the last trick on request (talon card + three cards)
    for _ in range(2):
        _, page = who_can(pages, "[data-testid=my-hand] button.card-face.playable")
        act(page, "[data-testid=my-hand] button.card-face.playable")
    wait_for(lambda: pages[0].locator(".trick .card-face").count() == 1, what="second trick led")
    pages[0].click("button:has-text('Показать последнюю взятку')")
    wait_for(
        lambda: pages[0].locator("#last-title ~ div .card-face").count() == 4, what="the last trick"
    )

    # a reload resumes from the last seq and shows the same hand
    other = pages[(mover_index + 1) % 3]
    wait_for(
        lambda: other.locator("[data-testid=my-hand] .card-face").count() == 9,
        what="nine cards left",
    )
    before = other.locator("[data-testid=my-hand] .card-face").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    other.reload()
    other.wait_for_selector(".conn:has-text('На связи')")
    after = other.locator("[data-testid=my-hand] .card-face").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    assert before == after and len(after) == 9
    # the last deal's result is there after the reload too: 2 into the declarer's pool
    other.wait_for_selector("[data-testid=last-deal] li:has-text('+2')")

    for i, page in enumerate(pages):
        screenshot(page, f"table-seat{i}")
        assert not page.js_errors, page.js_errors

    # the admin ends the pulka by agreement: every seat sees the settlement; history lists it
    api.post(f"/api/tables/{table_id}/close", json={"reason": "agreement"}).raise_for_status()
    for page in pages:
        page.wait_for_selector("text=Пулька окончена")
        page.wait_for_selector("table.settlement")
    pages[0].click("nav >> text=История")
    card = pages[0].locator("section", has=pages[0].locator(f"h2:has-text('Стол {table_id}')"))
    card.locator("button:has-text('Показать лист')").click()
    pages[0].wait_for_selector(".history-detail svg.pulka")
    pool = f".history-detail [data-testid=pool-{declarer_seat}] tspan.last"
    assert text_of(pages[0], pool) == "2"
    screenshot(pages[0], "history")
    for page in pages:
        assert not page.js_errors, page.js_errors
        page.context.close()


def test_a_whole_deal_played_open_by_one_whister(server: ServerProcess, browser: Any) -> None:
    if "sidorov_password" not in CLUB:
        pytest.skip("needs the earlier tests' club")
    base = server.base_url
    api = _api(base)
    members = {m["login"]: m["id"] for m in api.get("/api/members").json()}
    pages = [new_page(browser) for _ in range(3)]
    for page, (name, password) in zip(
        pages,
        [
            ("admin", ADMIN_PASSWORD),
            ("petrov", CLUB["petrov_password"]),
            ("sidorov", CLUB["sidorov_password"]),
        ],
        strict=True,
    ):
        login(page, base, name, password)
        page.wait_for_selector("#session-title")
    table = api.post(
        "/api/tables",
        json={"seats": [members["admin"], members["petrov"], members["sidorov"]], "target": 10},
    )
    table.raise_for_status()
    for page in pages:
        page.goto(f"{base}/#/table/{table.json()['id']}")
    _, cutter = who_can(pages, "#cut-pos")
    act(cutter, "[data-testid=actions] button.primary")
    _, declarer = who_can(pages, "#bid-6S")
    act(declarer, "#bid-6S")
    for _ in range(2):
        _, page = who_can(pages, "#bid-pass")
        act(page, "#bid-pass")
    hand = declarer.locator("[data-testid=my-hand] button.card-face")
    wait_for(lambda: hand.count() == 12, what="talon in hand")
    hand.nth(0).click()
    hand.nth(1).click()
    declarer.click("button:has-text('Снести')")
    act(declarer, "#contract-7S")
    # the first defender whists, the second passes; the whister plays open (R-W3)
    _, whister = who_can(pages, "[data-testid=actions] button[data-call='whist']")
    act(whister, "[data-testid=actions] button[data-call='whist']")
    _, passer = who_can(pages, "[data-testid=actions] button[data-call='pass']")
    act(passer, "[data-testid=actions] button[data-call='pass']")
    act(whister, "[data-mode=open]")
    # play every card: the seat to act clicks its first playable card (the whister plays both
    # defending hands)
    for played in range(30):
        _, page = who_can(pages, "button.card-face.playable")
        if played == 4:  # the defending hands lie open by now, whoever led
            assert whister.locator("[data-testid^=open-hand-] .card-face").count() > 0
            screenshot(whister, "table-open-play")
        card = page.locator("button.card-face.playable").first.get_attribute("data-card")
        page.click(f"button.card-face.playable[data-card='{card}']")
        wait_for(
            lambda page=page, card=card: not enabled(page, f"button.card-face[data-card='{card}']"),
            what=f"{card} played",
        )
    for page in pages:
        page.wait_for_selector("[data-testid=last-deal] p:has-text('7♠')")
        assert page.locator("[data-testid=last-deal] li").count() >= 1
        page.wait_for_selector(".status-line:has-text('Сдача 2')")
    screenshot(pages[0], "table-after-deal")
    for page in pages:
        assert not page.js_errors, page.js_errors
        page.context.close()


def test_four_player_table_draws_the_square_sheet(server: ServerProcess, browser: Any) -> None:
    if "sidorov_password" not in CLUB:
        pytest.skip("needs the earlier tests' club")
    base = server.base_url
    api = _api(base)
    api.post("/api/members", json={"login": "kozlov", "display_name": "Козлов"}).raise_for_status()
    members = {m["login"]: m["id"] for m in api.get("/api/members").json()}
    table = api.post(
        "/api/tables",
        json={
            "seats": [members["admin"], members["petrov"], members["sidorov"], members["kozlov"]]
        },
    )
    table.raise_for_status()
    page = new_page(browser)
    login(page, base, "admin", ADMIN_PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{base}/#/table/{table.json()['id']}")
    page.wait_for_selector(".conn:has-text('На связи')")
    wait_for(lambda: page.locator("[data-testid=sheet] .pname").count() == 4, what="four fields")
    names = page.locator("[data-testid=sheet] .pname").evaluate_all(
        "els => els.map(e => e.textContent)"
    )
    assert sorted(names) == sorted(["Администратор", "Пётр Петров", "Сидоров", "Козлов"])
    # every player writes whists on each of his three opponents
    assert page.locator("[data-testid=sheet] text[data-testid^=whists-]").count() == 12
    assert page.locator(".opponents .seat-box").count() == 3
    screenshot(page, "table-four-players")
    assert not page.js_errors, page.js_errors
    page.context.close()
