"""A classic preferans table (issue 13, docs/rules-classic.md) in real Chromium against a real
server: the preset is named in Russian, the bidding box offers the four suits and pass (K-3),
the talon is offered for sale after three passes (K-5), and three talon passes redeal (K-6)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, Role
from app.security.passwords import hash_password
from app.services.tables import create_table
from tests.browser.test_ui import enabled, login, wait_for, who_can
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a classic table password"
NAMES = ["Аким", "Белла", "Вадим"]
BUY = "[data-testid=actions] button:has-text('Купить прикуп')"


def _run(coro: Any) -> Any:
    """Run a coroutine in another thread (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _classic_table(url: str) -> int:
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            rows = [
                Member(
                    login=f"kc{i}",
                    display_name=name,
                    role=Role.member,
                    password_hash=hash_password(PASSWORD),
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate(NAMES)
            ]
            db.add_all(rows)
            await db.flush()
            table = await create_table(
                db,
                seat_member_ids=[m.id for m in rows],
                target=10,
                first_dealer=0,
                preset="classic",
                now=datetime.now(UTC),
            )
            return table.id
    finally:
        await engine.dispose()


def test_k3_k5_k6_a_classic_deal_bid_by_suit_the_talon_offered_then_redealt(
    server: ServerProcess, browser: Any
) -> None:
    base = server.base_url
    table_id = _run(_classic_table(server.env["DATABASE_URL"]))
    pages = []
    for i in range(3):
        page = browser.new_context(locale="ru-RU").new_page()
        login(page, base, f"kc{i}", PASSWORD)
        page.wait_for_selector("#session-title")
        page.goto(f"{base}/#/table/{table_id}")
        page.wait_for_selector(".conn:has-text('На связи')")
        pages.append(page)
    for page in pages:
        assert page.inner_text("[data-testid=preset]") == "классический преферанс (XIX век)"
    _, cutter = who_can(pages, "#cut-random")
    cutter.click("#cut-random")
    for page in pages:
        wait_for(
            lambda page=page: page.locator("[data-testid=my-hand] .card-face").count() == 10,
            what="ten cards",
        )
    # K-3: the four suits for six and pass, nothing else; hearts is "преферанс" (K-4)
    _, forehand = who_can(pages, "#bid-pass")
    buttons = forehand.locator("[data-testid=bidbox] button").all_inner_texts()
    assert len(buttons) == 5 and buttons[-1] == "Пас"
    assert "преферанс" in forehand.inner_text("#bid-6H")
    inside = forehand.evaluate(
        "() => { const b = document.querySelector('#bid-6H');"
        " return b.scrollWidth <= b.clientWidth; }"
    )
    assert inside, "«6♥ преферанс» spills out of its button"
    assert all(enabled(forehand, f"#bid-6{s}") for s in "SCDH")
    # three passes: the talon is offered to forehand (K-5)
    for _ in range(3):
        _, page = who_can(pages, "#bid-pass")
        page.click("#bid-pass")
        wait_for(lambda page=page: not enabled(page, "#bid-pass"), what="a pass")
    wait_for(lambda: forehand.locator(BUY).count() == 1, what="the talon for sale")
    assert sum(p.locator(BUY).count() for p in pages) == 1
    # everybody passes the talon on: the cards are dealt again (K-6)
    for _ in range(3):
        _, page = who_can(pages, "#bid-pass")
        page.click("#bid-pass")
        wait_for(lambda page=page: not enabled(page, "#bid-pass"), what="a talon pass")
    for page in pages:
        page.wait_for_selector("[data-testid=last-deal]:has-text('пересдача')")
