"""«Разбор сдачи» on the live table page (issue 15): while a deal is played the page offers no
analysis (R-W8); once the deal has ended at a live practice table — the next deal already
running — a player opens its analysis from the table page and reads the makeable table the
double-dummy solver gives for that deal, in real Chromium against a real server.

The server deals at random (no fixed deck): the test reads the deal it played from the event log
once it has ended, as the archive page's test does, and solves it itself."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, Role
from app.rules.core.cards import parse_card
from app.rules.search.deal_analysis import makeable_table, misere_table
from app.security.passwords import hash_password
from app.services import archive
from app.services.pulkas import pulka_of_table
from app.services.tables import create_table
from tests.browser.conftest import screenshot
from tests.browser.test_ui import login, new_page, text_of, wait_for
from tests.support.archive_play import play_deal
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a live analysis password"
NAMES = ["Анна Живая", "Борис", "Вера"]
LOAD = "#deal-analysis-load"


def _run(coro: Any) -> Any:
    """Run a coroutine in another thread (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _practice_table(url: str) -> tuple[int, list[int]]:
    """Three members at a live practice table, deal 1 dealt: (table id, member ids)."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            members = [
                Member(
                    login=f"liveanalysis{i}",
                    display_name=name,
                    role=Role.member,
                    password_hash=hash_password(PASSWORD) if i == 0 else None,
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate(NAMES)
            ]
            db.add_all(members)
            await db.flush()
            ids = [m.id for m in members]
            table = await create_table(
                db,
                seat_member_ids=list(ids),
                practice=True,
                target=10,
                first_dealer=0,
                now=datetime.now(UTC),
            )
            return table.id, ids
    finally:
        await engine.dispose()


async def _play_first_deal(url: str, table_id: int, ids: list[int]) -> dict[str, Any]:
    """Play deal 1 to its end through the command service (the server hears of every event);
    return its replay."""
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        async with session_scope(sessions) as db:
            assert await play_deal(db, table_id, ids, datetime.now(UTC)) == 1
        async with session_scope(sessions) as db:
            pulka = await pulka_of_table(db, table_id)
            assert pulka is not None and pulka.status != "finished"  # the pulka goes on
            return await archive.deal_replay(db, pulka.id, 1)
    finally:
        await engine.dispose()


def test_the_table_page_shows_the_finished_deals_makeable_table(
    server: ServerProcess, browser: Any
) -> None:
    url = server.env["DATABASE_URL"]
    table_id, ids = _run(_practice_table(url))
    base = server.base_url
    page = new_page(browser)
    login(page, base, "liveanalysis0", PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{base}/#/table/{table_id}")
    page.wait_for_selector(".conn:has-text('На связи')")
    page.wait_for_selector("[data-testid=contract-bar], .status-line:has-text('Сдача 1')")
    # R-W8: deal 1 is being played: nothing to analyse on the page
    assert page.locator(LOAD).count() == 0 and page.locator("[data-testid=makeable]").count() == 0

    replay = _run(_play_first_deal(url, table_id, ids))
    wait_for(
        lambda: (text_of(page, ".status-line") or "").startswith("Сдача 2"),
        timeout=30,
        what="deal 2 on the page",
    )
    page.wait_for_selector(LOAD)
    assert page.locator(LOAD).inner_text() == "Разбор сдачи"
    page.click(LOAD)
    page.wait_for_selector("[data-testid=deal-analysis] [data-testid=makeable]", timeout=120_000)

    hands = [sum(1 << parse_card(c) for c in replay["dealt"][str(s)]) for s in replay["active"]]
    dealt = (hands[0], hands[1], hands[2])
    expected = makeable_table(dealt)
    caught = misere_table(dealt)
    box = page.locator("[data-testid=deal-analysis]")
    assert box.locator(":scope > summary").inner_text().startswith("Разбор сдачи 1")
    for position, seat in enumerate(replay["active"]):
        row = box.locator(f"[data-testid=makeable] tr[data-seat='{seat}']")
        assert row.locator("th").inner_text() == NAMES[seat]
        for strain, tricks in expected[position].items():
            assert row.locator(f"td[data-strain='{strain}']").inner_text() == str(tricks)
        misere = row.locator("td[data-strain=misere]").inner_text()
        assert misere == (f"ловится: {caught[position]}" if caught[position] else "чистый")
    declarer = replay["declarer"]
    taken = replay["tricks_taken"][str(declarer)]
    assert f"(взято {taken})" in box.locator("[data-testid=dd-contract]").inner_text()
    assert box.locator("[data-testid=best-discard]").count() == 1
    assert box.locator("[data-testid=marks]").count() == 1
    # every card of the ten tricks, trick by trick (the budget may cut the marks short)
    assert 1 <= box.locator("[data-testid=played-tricks] li").count() <= 10
    screenshot(page, "analysis-live-table")
    # In English (the page is drawn again: the analysis now comes from the cache)
    page.click("#lang")
    wait_for(lambda: text_of(page, LOAD) == "Deal analysis", timeout=30, what="the English page")
    page.click(LOAD)
    page.wait_for_selector("[data-testid=deal-analysis] [data-testid=makeable]", timeout=60_000)
    assert box.locator(":scope > summary").inner_text() == "Analysis of deal 1 (open cards)"
    for position, seat in enumerate(replay["active"]):
        row = box.locator(f"[data-testid=makeable] tr[data-seat='{seat}']")
        assert row.locator("td[data-strain=NT]").inner_text() == str(expected[position]["NT"])
        misere = row.locator("td[data-strain=misere]").inner_text()
        assert misere == (f"caught: {caught[position]}" if caught[position] else "clean")
    assert f"(taken {taken})" in box.locator("[data-testid=dd-contract]").inner_text()
    assert page.js_errors == []
