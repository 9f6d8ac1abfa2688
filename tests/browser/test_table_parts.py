"""The table page redraws by part (issue 28, static/js/table/part.js), in real Chromium: a
presence change (someone starts watching) leaves the hand's very element and its card buttons in
place while the line of who is connected changes; a chat line between deals leaves the seats,
the sheet and the last deal's box in place while the chat shows it; and a played card does
redraw the hand. Elements are marked with a JS property: a page that rebuilt everything on each
message would lose the marks and fail."""

from __future__ import annotations

import asyncio
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.db.models import Role
from tests.browser.test_ui import login, new_page
from tests.support.browser_members import add_members
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a partial page's password"

PASS = """() => {
  const pass = document.querySelector("#bid-pass:not(:disabled)")
    || document.querySelector("[data-testid=actions] button[data-call=pass]:not(:disabled)");
  if (pass) pass.click();
  return Boolean(pass);
}"""
PLAYABLE = "[data-testid=my-hand] button.card-face:not(:disabled)"
# Mark the elements of `selectors` (the first match of each) with a property a redraw loses.
MARK = """(selectors) => selectors.map((s) => {
  const el = document.querySelector(s);
  if (el) el.__partMark = s;
  return Boolean(el);
})"""
STILL_MARKED = (
    """(selectors) => selectors.map((s) => document.querySelector(s)?.__partMark === s)"""
)


def _run(coro: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _until(page: Any, ready: str, timeout: float = 120) -> None:
    """Cut, pass every call and play any card until `ready` (a selector) is on the page."""
    deadline = time.monotonic() + timeout
    while not page.query_selector(ready):
        assert time.monotonic() < deadline, f"never reached {ready}"
        if page.query_selector("#cut-auto"):
            page.click("#cut-auto")
        page.evaluate(PASS)
        if ready != PLAYABLE and page.query_selector(PLAYABLE):
            page.click(PLAYABLE)
        time.sleep(0.1)


def test_presence_and_chat_redraw_their_own_part_and_a_card_redraws_the_hand(
    server: ServerProcess, browser: Any
) -> None:
    _run(
        add_members(
            server.env["DATABASE_URL"],
            [
                ("partial", "Частичный Игрок", Role.member),
                ("watcher", "Зритель Тихий", Role.member),
            ],
            PASSWORD,
        )
    )
    page = new_page(browser)
    login(page, server.base_url, "partial", PASSWORD)
    page.wait_for_selector("#practice-form")
    page.fill("#p-target", "1")
    page.click("#practice-form button[type=submit]")
    page.wait_for_selector("[data-testid=my-hand], [data-testid=actions]")
    found = re.search(r"#/table/(\d+)", page.url)
    assert found, page.url
    table_id = found.group(1)

    # the player's move in play: nothing moves at the table until he plays
    _until(page, PLAYABLE)
    hand_parts = ["[data-testid=my-hand]", PLAYABLE, "[data-testid=sheet] svg", ".opponents"]
    assert page.evaluate(MARK, hand_parts) == [True] * 4
    before = page.inner_text(".side-presence")
    assert "зрителей" not in before

    watcher = new_page(browser)
    login(watcher, server.base_url, "watcher", PASSWORD)
    watcher.goto(f"{server.base_url}/#/table/{table_id}")
    page.wait_for_function(
        "() => document.querySelector('.side-presence')?.textContent.includes('зрителей: 1')"
    )
    assert page.evaluate(STILL_MARKED, hand_parts) == [True] * 4

    # a played card: the server's answer redraws the hand without that card
    code = page.get_attribute(PLAYABLE, "data-card")
    page.click(PLAYABLE)
    page.wait_for_function(
        "code => !document.querySelector(`[data-testid=my-hand] [data-card='${code}']`)", arg=code
    )
    assert page.evaluate(STILL_MARKED, hand_parts[:1]) == [False]

    # between deals the chat is open: a line redraws the chat alone
    _until(page, "[data-testid=last-deal]")
    page.wait_for_selector("#chat-text:not(:disabled)")
    between = ["[data-testid=sheet] svg", ".opponents", "[data-testid=last-deal]", ".table-head"]
    assert page.evaluate(MARK, between) == [True] * 4
    page.fill("#chat-text", "Хорошо сыграли")
    page.press("#chat-text", "Enter")
    page.wait_for_selector(".chat-log p:has-text('Хорошо сыграли')")
    assert page.evaluate(STILL_MARKED, between) == [True] * 4
    assert watcher.wait_for_selector(".chat-log p:has-text('Хорошо сыграли')")
