"""Dark calls and "преферанс" on the table page in real Chromium (A-10, A-11, A-16): a seat whose
cards lie face down is offered "Поднять карты" and the dark calls in Russian; after "6♠ в тёмную"
the next seat may not bid an open six but may bid 7♠ or a higher dark six."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_arabic_preset import arabic_table, run_async
from tests.browser.test_ui import login
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a dark calls password"


def test_a10_a11_a16_the_table_page_offers_dark_calls_and_preferans(
    server: ServerProcess, browser: Any
) -> None:
    # three members at an arabic table without the opening bombs (bidding at once)
    table_id = run_async(
        arabic_table(
            server.env["DATABASE_URL"],
            prefix="dk",
            names=("Даша", "Коля", "Лиза"),
            password=PASSWORD,
            overrides={"opening_bombs": 0},
        )
    )
    pages = []
    for i in range(3):
        page = browser.new_context(locale="ru-RU").new_page()
        login(page, server.base_url, f"dk{i}", PASSWORD)
        page.wait_for_selector("#session-title")
        page.goto(f"{server.base_url}/#/table/{table_id}")
        pages.append(page)
    pages[0].wait_for_selector("#cut-auto, [data-testid=sheet]")
    cutter = None
    while cutter is None:  # the page of the seat that cuts (R-D2) shows the cut controls
        cutter = next((p for p in pages if p.locator("#cut-auto").count()), None)
        pages[0].wait_for_timeout(200)
    cutter.click("#cut-auto")
    forehand, second = pages[1], pages[2]  # dealer 0: seat 1 speaks first, then seat 2
    forehand.wait_for_selector("#pick-up")
    assert forehand.locator("#pick-up").inner_text() == "Поднять карты"
    dark = forehand.locator("[data-testid=dark-calls]")
    assert dark.locator("#bid-dark_pass").inner_text() == "Пас в тёмную"
    assert dark.locator("#bid-dark_6S").inner_text() == "6♠ в тёмную"
    preferans = forehand.locator("#bid-preferans")
    assert preferans.inner_text() == "Преферанс (все десять)"
    assert preferans.is_disabled()  # "не объявляется в тёмную"
    assert second.locator("#pick-up").count() == 1  # face down too, not yet his call
    forehand.click("#bid-dark_6S")
    second.wait_for_selector("#bid-dark_6C")
    assert second.locator("#bid-6C").is_disabled() and second.locator("#bid-6NT").is_disabled()
    assert second.locator("#bid-7S").is_enabled()
    second.click("#pick-up")
    second.wait_for_selector("[data-testid=dark-calls]", state="detached")
    assert second.locator("#bid-7S").is_enabled() and second.locator("#pick-up").count() == 0
    assert second.locator("#bid-preferans").is_enabled()  # his first call, having looked
