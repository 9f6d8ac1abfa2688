"""The fund page's words and safeguards in a real browser (issue 11): a member who paid more
than he owes shows a credit («переплата»), not a red negative debt (R-F1); a payout asks for
confirmation and a dismissed dialog sends nothing; the member's own vote is marked (R-F2);
amounts take the local decimal comma and a bad amount gets a Russian message without a request;
no rule IDs on the page in Russian."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.browser.conftest import first_admin_password
from tests.browser.test_fund_ui import _voter
from tests.browser.test_ui import change_password, login, new_page, text_of, wait_for
from tests.support.api_login import logged_in_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser


def test_fund_page_credit_confirm_my_vote_and_amounts(server: ServerProcess, browser: Any) -> None:
    base = server.base_url
    page = new_page(browser)
    login(page, base, "admin", first_admin_password(server))
    change_password(page, first_admin_password(server), "a long admin password")
    page.wait_for_selector("#session-title")
    admin = logged_in_client(base, "admin", "a long admin password")
    voters = [_voter(base, admin, f"wvoter{i}") for i in range(3)]
    ids = {m["display_name"]: m["id"] for m in admin.get("/api/members").json()}
    # wvoter0 pays 40.50 and owes nothing (R-F1): a credit of 40.50.
    admin.post(
        "/api/fund/payments",
        json={"member_id": ids["wvoter0"], "amount": "40.50"},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    ).raise_for_status()

    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.click("nav >> text=Кубышка")
    page.wait_for_selector("#fund-payment")
    row = page.locator("section[aria-labelledby=fund-debts-title] tbody tr", has_text="wvoter0")
    assert "переплата" in row.inner_text().lower()
    assert row.locator(".money.neg").count() == 0
    assert "-40.50" not in row.inner_text()

    # Bad amounts: a Russian message, nothing sent (the decimal comma is fine).
    page.select_option("#fp-member", label="wvoter1")
    for bad in ("12.345", "abc"):
        page.fill("#fp-amount", bad)
        posts.clear()
        page.click("#fund-payment button[type=submit]")
        page.wait_for_selector("#fp-amount-error:has-text('Сумма')")
        assert page.get_attribute("#fp-amount", "aria-invalid") == "true"
        page.wait_for_timeout(300)
        assert [u for u in posts if "/api/fund/payments" in u] == []
    page.fill("#fp-amount", "12,5")
    page.click("#fund-payment button[type=submit]")
    wait_for(lambda: text_of(page, ".balance") == "53,00\u00a0₽", what="the balance after 12,5")
    assert text_of(page, "#fp-amount-error") in (None, "")

    # A proposal; wvoter2 votes on the page and sees his own vote marked (R-F2).
    page.fill("#fprop-title-in", "Новое сукно")
    page.fill("#fprop-amount", "20,25")
    page.click("#fund-proposal button[type=submit]")
    page.wait_for_selector("tr[data-status=open]")
    voter_page = new_page(browser)
    login(voter_page, base, "wvoter2", "a long voter password")
    voter_page.wait_for_selector("#session-title")
    voter_page.click("nav >> text=Кубышка")
    voter_page.wait_for_selector("tr[data-status=open]")
    assert "ваш голос" not in voter_page.locator("tr[data-status=open]").inner_text()
    voter_page.click("tr[data-status=open] >> button:has-text('За')")
    voter_page.wait_for_selector("tr[data-status=open] >> text=ваш голос: за")

    pid = admin.get("/api/fund/proposals").json()["proposals"][0]["id"]
    for client in voters[:2]:
        client.post(
            f"/api/fund/proposals/{pid}/vote",
            json={"yes": True},
            headers={"Idempotency-Key": str(uuid.uuid4())},
        ).raise_for_status()
    page.reload()
    page.wait_for_selector("tr[data-status=approved]")

    # Paying out asks first; dismissing sends nothing.
    dialogs: list[str] = []

    def dismiss(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    posts.clear()
    page.click("tr[data-status=approved] >> text=Выплатить")
    wait_for(lambda: dialogs, what="the confirmation dialog")
    assert "Новое сукно" in dialogs[0] and "20,25\u00a0₽" in dialogs[0]
    page.wait_for_timeout(300)
    assert [u for u in posts if u.endswith("/pay")] == []
    assert admin.get("/api/fund/proposals").json()["proposals"][0]["status"] == "approved"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("tr[data-status=approved] >> text=Выплатить")
    page.wait_for_selector("tr[data-status=paid]")
    wait_for(lambda: text_of(page, ".balance") == "32,75\u00a0₽", what="the balance after paying")

    body = page.inner_text("body")
    assert not re.search(r"R-[A-Z]+\d", body), body
    assert page.js_errors == [] and voter_page.js_errors == []
    for client in (admin, *voters):
        client.close()
