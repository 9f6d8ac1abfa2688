"""A click's effect at once (issue 28, static/js/table/pending.js), in real Chromium: in the
same task as the click — before any answer of the server can arrive — a played card has left
the hand for the cloth and the hand is quiet, a pressed call is marked and its box disabled;
the server's answer then redraws the table from its own state (the card in the trick, not in
the hand)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.db.models import Role
from tests.browser.test_ui import login, new_page
from tests.support.browser_members import add_members
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a quick hand's password"

# Click and look in one task: nothing from the socket can be handled in between.
CLICK_CARD = """() => {
  const card = document.querySelector("[data-testid=my-hand] button.card-face:not(:disabled)");
  if (!card) return null;
  const code = card.dataset.card;
  card.click();
  const hand = [...document.querySelectorAll("[data-testid=my-hand] button.card-face")];
  return {code, gone: card.classList.contains("gone"), quiet: hand.every((b) => b.disabled),
    onCloth: document.querySelector("[data-testid=sent-card] [data-card]")?.dataset.card ?? null};
}"""
CLICK_CALL = """() => {
  const call = document.querySelector("#bid-pass:not(:disabled)")
    || document.querySelector("[data-testid=actions] button[data-call=whist]:not(:disabled)");
  if (!call) return null;
  call.click();
  const box = call.closest(".bidbox, .actions, .panel");
  return {marked: call.classList.contains("sent"),
    quiet: [...box.querySelectorAll("button")].every((b) => b.disabled)};
}"""
"""Pass in the auction, whist against a contract: the member plays cards in every deal (one he
whists, or a pass-out), not only in pass-outs or when the other defender chose closed play,
which a loaded run once waited 90 s for in vain."""
CLOSED_PLAY = "[data-testid=actions] button[data-mode=closed]"
"""The whister's choice when the other defender passed: closed, so each plays his own cards."""


def _run(coro: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def test_a_card_and_a_call_show_at_once_and_the_server_then_confirms(
    server: ServerProcess, browser: Any
) -> None:
    _run(
        add_members(server.env["DATABASE_URL"], [("quick", "Быстрая Рука", Role.member)], PASSWORD)
    )
    page = new_page(browser)
    login(page, server.base_url, "quick", PASSWORD)
    page.wait_for_selector("#practice-form")
    page.fill("#p-target", "1")
    page.click("#practice-form button[type=submit]")
    page.wait_for_selector("[data-testid=my-hand], [data-testid=actions]")
    calls = cards = 0
    deadline = time.monotonic() + 90
    while cards < 3 and time.monotonic() < deadline:
        if page.query_selector("#cut-auto"):
            page.click("#cut-auto")
        called = page.evaluate(CLICK_CALL)
        if called:
            assert called == {"marked": True, "quiet": True}
            calls += 1
        if page.query_selector(CLOSED_PLAY):
            page.click(CLOSED_PLAY)
        played = page.evaluate(CLICK_CARD)
        if played:
            assert played["gone"] and played["quiet"], played
            assert played["onCloth"] == played["code"], played
            # the server's event redraws: the card is in the trick (or a finished one), not the hand
            page.wait_for_function(
                "code => !document.querySelector(`[data-testid=my-hand] [data-card='${code}']`)",
                arg=played["code"],
            )
            cards += 1
        time.sleep(0.05)
    assert calls >= 1 and cards >= 3, (calls, cards)
