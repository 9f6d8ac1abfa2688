"""The Content-Security-Policy does not break the pages: real Chromium walks the pages and a live
table (websocket, SVG score sheet) and reports no CSP violation."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import first_admin_password
from tests.support.api_login import admin_client
from tests.support.server import ServerProcess

PASSWORD = "a long admin secret"


def admin_table(server: ServerProcess, logins: tuple[str, str]) -> int:
    """The first admin gets ``PASSWORD``, two new members ``logins``, and a table of the three
    (target 10); its id."""
    base = server.base_url
    api = admin_client(base, first_admin_password(server))
    api.post(
        "/api/auth/password",
        json={"current_password": first_admin_password(server), "new_password": PASSWORD},
    ).raise_for_status()
    api = admin_client(base, PASSWORD)
    ids = [api.get("/api/auth/me").json()["id"]]
    for login in logins:
        created = api.post("/api/members", json={"login": login, "display_name": login})
        created.raise_for_status()
        ids.append(created.json()["member"]["id"])
    table = api.post("/api/tables", json={"seats": ids, "target": 10})
    table.raise_for_status()
    return int(table.json()["id"])


def test_pages_and_a_live_table_run_under_the_policy(server: ServerProcess, browser: Any) -> None:
    base = server.base_url
    table_id = admin_table(server, ("csp1", "csp2"))

    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ru-RU")
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda msg: (
            violations.append(msg.text)
            if "Content Security Policy" in msg.text or "Refused to" in msg.text
            else None
        ),
    )
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base + "/")
    page.fill("#login", "admin")
    page.fill("#password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_selector("#session-title")
    for route in ("#/members", "#/fund", "#/history", "#/lobby"):
        page.goto(f"{base}/{route}")
        page.wait_for_load_state("networkidle")
    page.goto(f"{base}/#/table/{table_id}")
    page.wait_for_selector(".conn:has-text('На связи')")  # the websocket connected
    page.wait_for_selector("[data-testid=sheet] svg.pulka")
    assert not violations, violations
    assert not errors, errors
    context.close()
