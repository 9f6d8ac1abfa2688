"""The fund page in a real browser: the admin records a payment, proposes a spending, approves
and pays it out; balance, ledger, debts and proposals update, in Russian and English."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import first_admin_password, screenshot
from tests.browser.test_ui import change_password, login, new_page, text_of, wait_for
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser


def test_fund_page_payment_proposal_approve_and_pay(server: ServerProcess,
                                                    browser: Any) -> None:
    base = server.base_url
    page = new_page(browser)
    login(page, base, "admin", first_admin_password(server))
    change_password(page, first_admin_password(server), "a long admin password")
    page.wait_for_selector("#session-title")
    page.click("nav >> text=Кубышка")
    page.wait_for_selector("#fund-payment")
    assert text_of(page, ".balance") == "0.00 ₽"
    page.select_option("#fp-member", index=1)
    page.fill("#fp-amount", "40,50")
    page.fill("#fp-reason", "взнос после сессии")
    page.click("#fund-payment button[type=submit]")
    wait_for(lambda: text_of(page, ".balance") == "40.50 ₽", what="the balance")
    assert page.locator("tr[data-kind=payment]").count() == 1

    page.fill("#fprop-title-in", "Две колоды карт")
    page.fill("#fprop-amount", "30.25")
    page.click("#fund-proposal button[type=submit]")
    page.wait_for_selector("tr[data-status=open]")
    assert page.locator("#fund-proposal").count() == 0  # R-F3: once a year
    page.click("tr[data-status=open] >> text=Одобрить")
    page.wait_for_selector("tr[data-status=approved]")
    page.click("tr[data-status=approved] >> text=Выплатить")
    page.wait_for_selector("tr[data-status=paid]")
    wait_for(lambda: text_of(page, ".balance") == "10.25 ₽", what="the balance after paying")
    assert "-30.25" in (text_of(page, "tr[data-kind=spending]") or "")
    screenshot(page, "fund")
    page.click("#lang")
    page.wait_for_selector("h1:has-text('The club fund')")
    page.click("#lang")
    assert page.js_errors == []
