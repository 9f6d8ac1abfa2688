"""The table page redraws by part (issue 28, static/js/table/part.js), in real Chromium: a
presence change (someone starts watching) leaves the hand's very element and its card buttons in
place while the line of who is connected changes; a chat line before a club session's first deal
leaves the seats, the status and the sheet in place while the chat shows it; and a played card does
redraw the hand. Elements are marked with a JS property: a page that rebuilt everything on each
message would lose the marks and fail."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.db.models import Role
from tests.browser.conftest import scratch_server
from tests.browser.test_table_page import _early_club_table, members, seat_pages
from tests.browser.test_ui import login, new_page
from tests.support.browser_members import add_members
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser
__all__ = ["members"]  # the fixture of test_table_page.py: the members tp0… with their password

PASSWORD = "a partial page's password"

# The seat's move other than a card: the cut in the middle, a pass, or the first enabled button
# of the panel (never a concession, a claim or the hint: on the seat's turn in play, before its
# hand is redrawn, a claim the house bots accept would end the deal under the test's feet).
MOVE = """() => {
  if (!document.title.startsWith("▶")) return false;
  const button = document.querySelector("#cut-auto")
    || document.querySelector("#bid-pass:not(:disabled)")
    || document.querySelector("[data-testid=actions] button[data-call=pass]:not(:disabled)")
    || document.querySelector("[data-testid=actions] button:not(.danger):not(:disabled)"
      + ":not([data-claim]):not([data-testid=hint] button)");
  if (button) button.click();
  return Boolean(button);
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


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose house bots move at once (``PREFCLUB_BOT_THINK=0``): the practice deal
    reaches the member's first card within a second instead of waiting 0.4 s a bot move (some
    30 s when the random deal made him sit out a whole deal first); his own move in play still
    holds the table still."""
    with scratch_server(database_url, tmp_path_factory, PREFCLUB_BOT_THINK="0") as proc:
        yield proc


def _run(coro: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _mark_when_still(page: Any, selectors: list[str]) -> None:
    """Mark the elements once the page has stopped redrawing them (a second without a change)."""
    for _ in range(15):
        assert page.evaluate(MARK, selectors) == [True] * len(selectors)
        time.sleep(1.0)
        if page.evaluate(STILL_MARKED, selectors) == [True] * len(selectors):
            return
    raise AssertionError(f"the page kept redrawing {selectors}")


def _until(page: Any, ready: str, timeout: float = 120) -> None:
    """Cut, pass every call and play any card until `ready` (a selector) is on the page."""
    deadline = time.monotonic() + timeout
    while not page.query_selector(ready):
        assert time.monotonic() < deadline, f"never reached {ready}"
        if ready != PLAYABLE and page.query_selector(PLAYABLE):
            page.click(PLAYABLE)
        elif not page.query_selector(PLAYABLE):
            page.evaluate(MOVE)
        time.sleep(0.1)


def test_a_presence_change_leaves_the_hand_and_a_played_card_redraws_it(
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
    _mark_when_still(page, hand_parts)
    before = page.inner_text(".side-presence")
    assert "зрителей" not in before

    watcher = new_page(browser)
    login(watcher, server.base_url, "watcher", PASSWORD)
    watcher.wait_for_selector("#session-title")  # logged in: the lobby no longer comes after
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


def test_a_chat_line_redraws_the_chat_alone(
    server: ServerProcess, browser: Any, members: list[int]
) -> None:
    """Before a club session's first deal the chat is open (R-W12): one player's line reaches
    the other page, whose seats, status, sheet and head stay the very same elements."""
    table_id = _run(_early_club_table(server.env["DATABASE_URL"], members[:3]))
    writer, reader = seat_pages(browser, server.base_url, table_id, [0, 1])
    for page in (writer, reader):
        page.wait_for_selector("[data-testid=waiting-first]")
        page.wait_for_selector("#chat-text:not(:disabled)")
    still = ["[data-testid=sheet] svg", ".opponents", ".status-line", ".table-head", ".hand-area"]
    _mark_when_still(reader, still)
    writer.fill("#chat-text", "Добрый вечер")
    writer.press("#chat-text", "Enter")
    reader.wait_for_selector(".chat-log p:has-text('Добрый вечер')")
    assert reader.evaluate(STILL_MARKED, still) == [True] * len(still)
    for page in (writer, reader):
        assert not page.js_errors, page.js_errors
        page.context.close()
