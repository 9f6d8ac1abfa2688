"""The fund page in a real browser: the admin records a payment (a refusal first, shown from its
code), proposes a spending, three members approve it by vote (R-F2; one of them on the page) and
the admin pays it out; balance, ledger, debts and proposals update, in Russian and English."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.conftest import first_admin_password, screenshot
from tests.browser.test_ui import change_password, login, new_page, text_of, wait_for
from tests.support.api_login import logged_in_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser


def _voter(base: str, admin: httpx.Client, login_name: str) -> httpx.Client:
    """A new member, logged in over HTTP with his own password (first-login change done)."""
    created = admin.post("/api/members", json={"login": login_name, "display_name": login_name})
    created.raise_for_status()
    once = created.json()["one_time_password"]
    return logged_in_client(base, login_name, once, new_password="a long voter password")


def test_fund_page_payment_proposal_vote_and_pay(server: ServerProcess, browser: Any) -> None:
    base = server.base_url
    page = new_page(browser)
    login(page, base, "admin", first_admin_password(server))
    change_password(page, first_admin_password(server), "a long admin password")
    page.wait_for_selector("#session-title")
    admin = logged_in_client(base, "admin", "a long admin password")
    voters = [_voter(base, admin, f"voter{i}") for i in range(3)]

    page.click("nav >> text=Кубышка")
    page.wait_for_selector("#fund-payment")
    assert text_of(page, ".balance") == "0,00\u00a0₽"
    # A refusal is shown from its code, in Russian, and records nothing.
    page.fill("#fp-amount", "5")
    page.click("#fund-payment button[type=submit]")
    page.wait_for_selector("text=Укажите, кто внёс деньги.")
    assert page.locator("tr[data-kind=payment]").count() == 0
    page.select_option("#fp-member", index=1)
    page.fill("#fp-amount", "40,50")
    page.fill("#fp-reason", "взнос после сессии")
    page.click("#fund-payment button[type=submit]")
    wait_for(lambda: text_of(page, ".balance") == "40,50\u00a0₽", what="the balance")
    assert page.locator("tr[data-kind=payment]").count() == 1

    page.fill("#fprop-title-in", "Две колоды карт")
    page.fill("#fprop-amount", "30.25")
    page.click("#fund-proposal button[type=submit]")
    page.wait_for_selector("tr[data-status=open]")
    assert page.locator("#fund-proposal").count() == 0  # R-F3: once a year
    row = page.locator("tr[data-status=open]")
    assert row.locator("button", has_text="За").count() == 0  # R-F2: not on his own
    assert row.locator("button", has_text="Одобрить").count() == 0  # no admin approval
    assert row.locator("button", has_text="Выплатить").count() == 0
    pid = admin.get("/api/fund/proposals").json()["proposals"][0]["id"]
    for client in voters[:2]:
        client.post(f"/api/fund/proposals/{pid}/vote", json={"yes": True}).raise_for_status()
    voter_page = new_page(browser)
    login(voter_page, base, "voter2", "a long voter password")
    voter_page.wait_for_selector("#session-title")
    voter_page.click("nav >> text=Кубышка")
    voter_page.click("tr[data-status=open] >> button:has-text('За')")
    voter_page.wait_for_selector("tr[data-status=approved]")  # 3 yes: the quorum (R-F2)

    page.reload()
    page.once("dialog", lambda dialog: dialog.accept())  # paying out asks first
    page.click("tr[data-status=approved] >> text=Выплатить")
    page.wait_for_selector("tr[data-status=paid]")
    wait_for(lambda: text_of(page, ".balance") == "10,25\u00a0₽", what="the balance after paying")
    assert "\u221230,25\u00a0₽" in (text_of(page, "tr[data-kind=spending]") or "")
    screenshot(page, "fund")
    page.click("#lang")
    page.wait_for_selector("h1:has-text('The club fund')")
    page.click("#lang")
    assert page.js_errors == [] and voter_page.js_errors == []
    for client in (admin, *voters):
        client.close()
