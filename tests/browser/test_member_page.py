"""The member's page (issue 27) in real Chromium against a real server: a name in the
standings opens his page with his pulka (linked to its sheet), his rating plotted from its
history, his figures against the members he played (linked to their pages) and his luck
apart from his skill (docs/luck.md), in Russian and in English. Axe checks the page in
tests/browser/test_axe.py, and here once its luck section is drawn."""

from __future__ import annotations

from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker
from app.services import analysis_cache
from app.services.deal_luck import LuckPass
from tests.browser.conftest import RESULTS
from tests.browser.test_axe import PASSWORD, _describe, _seed, _serious
from tests.browser.test_timer_settings import _json, _run
from tests.browser.test_ui import login
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser


async def _weigh(url: str) -> int:
    """Weigh every finished club deal as the server's background pass does (docs/luck.md)."""
    engine = make_engine(url)
    pool = analysis_cache.make_pool()
    try:
        return await LuckPass(make_sessionmaker(engine), pool).run_once(limit=20)
    finally:
        await pool.aclose()
        await engine.dispose()


def test_a_name_in_the_standings_opens_the_members_page(
    server: ServerProcess, browser: Any
) -> None:
    seeded = _run(_seed(server.env["DATABASE_URL"]))
    assert _run(_weigh(server.env["DATABASE_URL"])) == 2
    base = server.base_url
    page = browser.new_context(locale="ru-RU").new_page()
    login(page, base, "axe0", PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{base}/#/standings")
    page.click(f"[data-testid=standings] a[href='#/member/{seeded['member']}']")
    page.wait_for_url(f"**/#/member/{seeded['member']}")
    page.wait_for_selector("h1:has-text('Борис')")
    profile = _json(page, f"/api/members/{seeded['member']}/profile")
    mine = profile["pulkas"][0]
    row = page.locator("[data-testid=member-pulkas] tbody tr")
    assert row.count() == 1
    assert row.locator(f"a[href='#/sheet/{seeded['pulka']}']").count() == 1
    money = mine["money"].replace("-", "\u2212").replace(".", ",") + "\u00a0₽"  # «−12,50 ₽»
    whists = mine["whists"].replace("-", "\u2212").replace(".", ",")  # «−25», as the sheet
    assert whists in row.inner_text() and money in row.inner_text()
    chart = page.locator("[data-testid=rating-chart]")
    assert chart.locator("circle").count() == len(profile["rating_history"]) == 1
    assert "Рейтинг после каждой из 1 пульки" in (chart.get_attribute("aria-label") or "")
    page.wait_for_selector("h2:has-text('Против соперников')")
    h2h = page.locator("[data-testid=member-h2h] tbody tr")
    assert sorted(h2h.locator("a").all_inner_texts()) == ["Анна", "Вера"]
    assert page.locator("h2:has-text('Самые дорогие сдачи')").count() == 1
    replays = page.locator("[data-testid=member-costliest] a")
    assert replays.count() == len(profile["costliest_deals"])
    luck = _json(page, f"/api/members/{seeded['member']}/luck")
    assert luck["totals"]["deals"] == 2 and luck["progress"] == {"deals": 2, "weighed": 2}
    page.wait_for_selector("h2:has-text('Карты и игра')")
    totals = page.locator("[data-testid=luck-totals]").inner_text()
    assert totals.startswith("2 сдачи: карты стоили ")
    assert luck["totals"]["lost"].replace(".", ",") in totals
    assert page.locator("[data-testid=luck-progress]").count() == 0
    assert page.locator("[data-testid=luck-chart] circle").count() == 2  # one night, two lines
    rows = page.locator("[data-testid=luck-pulkas] tbody tr")
    assert rows.count() == 1 and rows.locator(f"a[href='#/sheet/{seeded['pulka']}']").count() == 1
    found = _serious(page)  # the luck section drawn: its table, its chart, its season choice
    assert not found, _describe(found)
    RESULTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.locator("[data-testid=member-luck]").screenshot(path=str(RESULTS / "member-luck-1366.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("[data-testid=member-luck]").screenshot(path=str(RESULTS / "member-luck-390.png"))
    page.set_viewport_size({"width": 1366, "height": 768})
    page.click("[data-testid=member-h2h] a:has-text('Анна')")
    page.wait_for_selector("h1:has-text('Анна')")
    page.click("#lang")
    page.wait_for_selector("h2:has-text('Head to head')")
    page.wait_for_selector("th:has-text('Pulkas together')")
    page.wait_for_selector("h2:has-text('Cards and play')")
    page.wait_for_selector("[data-testid=luck-totals]:has-text('the cards were worth')")
    page.context.close()
