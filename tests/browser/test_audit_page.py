"""The audit log in a real browser (issue 23): the admin's «Журнал изменений» on #/admin lists
the changes in Russian words (who, what, before → after) and filters them; the treasurer sees
the fund's part on #/fund. No rule IDs, hashes or server English on screen."""

from __future__ import annotations

import pytest

from tests.browser import test_ui as ui
from tests.browser.conftest import first_admin_password, screenshot
from tests.browser.test_officer_pages import HEX_HASH, RULE_ID, logged_in
from tests.support.api_login import admin_client, logged_in_client
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

ADMIN_PASSWORD = "a long admin password"
KEEPER_PASSWORD = "a long keeper password"


def test_admin_reads_the_audit_log_and_the_treasurer_the_funds(
    server: ServerProcess, browser: object
) -> None:
    base = server.base_url
    logged_in_client(
        base, "admin", first_admin_password(server), new_password=ADMIN_PASSWORD
    ).close()
    api = admin_client(base, ADMIN_PASSWORD)
    made = api.post("/api/members", json={"login": "ivanova", "display_name": "Анна Иванова"})
    made.raise_for_status()
    keeper = made.json()["member"]["id"]
    api.patch(f"/api/members/{keeper}", json={"role": "treasurer"}).raise_for_status()
    api.put("/api/club/settings", json={"move_timer_seconds": 60}).raise_for_status()
    api.post(
        "/api/fund/payments",
        headers={"Idempotency-Key": "audit-browser-1"},
        json={"member_id": keeper, "amount": "40"},
    ).raise_for_status()
    once = made.json()["one_time_password"]
    logged_in_client(base, "ivanova", once, new_password=KEEPER_PASSWORD).close()

    page = logged_in(browser, base, "admin", ADMIN_PASSWORD)
    page.goto(base + "/#/admin")
    page.wait_for_selector("#admin-audit [data-testid=audit] tbody tr")
    section = page.locator("#admin-audit")
    text = section.inner_text()
    for words in (
        "Журнал изменений",
        "член клуба добавлен",
        "роль изменена",
        "член клуба → казначей",
        "настройка клуба изменена",
        "запись в кубышке",
        "Взнос члена клуба",
        "40,00\u00a0₽",
        "Анна Иванова",
    ):
        assert words in text, words
    assert not RULE_ID.search(text) and not HEX_HASH.search(text)
    assert "paid in by member" not in text
    first = page.locator("#admin-audit tbody tr").first
    assert first.get_attribute("data-action") == "member.password_change"  # newest first

    page.select_option("#audit-action", "club")
    page.click("#audit-filter button[type=submit]")
    ui.wait_for(
        lambda: (
            {r.get_attribute("data-action") for r in page.locator("#admin-audit tbody tr").all()}
            == {"club.setting"}
        ),
        what="the filtered log",
    )
    assert "таймер хода: — → 60 с" in section.inner_text()
    assert not page.locator("#admin-audit .audit-more").is_visible()  # one page only
    screenshot(page, "audit-admin")
    assert page.js_errors == []  # type: ignore[attr-defined]

    treasurer = logged_in(browser, base, "ivanova", KEEPER_PASSWORD)
    treasurer.goto(base + "/#/fund")
    treasurer.wait_for_selector("#fund-audit [data-testid=audit] tbody tr")
    fund_text = treasurer.locator("#fund-audit").inner_text()
    assert "Журнал кубышки" in fund_text and "запись в кубышке" in fund_text
    assert "роль изменена" not in fund_text and not HEX_HASH.search(fund_text)
    assert {
        r.get_attribute("data-action") for r in treasurer.locator("#fund-audit tbody tr").all()
    } == {"fund.entry"}
    screenshot(treasurer, "audit-fund")
    assert treasurer.js_errors == []  # type: ignore[attr-defined]
