"""The deal analysis on the archive's replay page (issue 15): the makeable table of a known deal
as the page shows it equals the double-dummy solver's, and the costly cards are listed."""

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
from app.services.pulkas import close_pulka
from app.services.tables import create_table
from tests.browser.conftest import screenshot
from tests.browser.test_ui import login, new_page
from tests.support.archive_play import play_deal
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "an analysis password"
NAMES = ["Анна Разбор", "Борис", "Вера"]


async def _seed(url: str) -> tuple[int, dict[str, Any]]:
    """A closed club pulka with one deal (6♠ played out): its id and that deal's replay."""
    now = datetime.now(UTC)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        async with session_scope(sessions) as db:
            members = [
                Member(
                    login=f"analysis{i}",
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
                db, seat_member_ids=list(ids), practice=False, target=20, first_dealer=0, now=now
            )
        async with session_scope(sessions) as db:
            await play_deal(db, table.id, ids, now)
        async with session_scope(sessions) as db:
            row = await close_pulka(db, table.id, "agreement", now)
            assert row is not None
            pulka_id = row.id
        async with session_scope(sessions) as db:
            return pulka_id, await archive.deal_replay(db, pulka_id, 1)
    finally:
        await engine.dispose()


def test_replay_page_shows_the_makeable_table(server: ServerProcess, browser: Any) -> None:
    with ThreadPoolExecutor(1) as pool:
        pulka_id, replay = pool.submit(asyncio.run, _seed(server.env["DATABASE_URL"])).result()
    hands = [sum(1 << parse_card(c) for c in replay["dealt"][str(s)]) for s in replay["active"]]
    dealt = (hands[0], hands[1], hands[2])
    expected = makeable_table(dealt)
    caught = misere_table(dealt)
    base = server.base_url
    page = new_page(browser)
    login(page, base, "analysis0", PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{base}/#/replay/{pulka_id}/1")
    page.wait_for_selector("#analysis-load")
    page.click("#analysis-load")
    page.wait_for_selector("[data-testid=makeable]", timeout=120_000)
    for position, seat in enumerate(replay["active"]):
        row = page.locator(f"[data-testid=makeable] tr[data-seat='{seat}']")
        assert row.locator("th").inner_text() == NAMES[seat]
        for strain, tricks in expected[position].items():
            assert row.locator(f"td[data-strain='{strain}']").inner_text() == str(tricks)
        misere = row.locator("td[data-strain=misere]").inner_text()
        assert misere == (f"ловится: {caught[position]}" if caught[position] else "чистый")
    assert "взяток" in page.locator("[data-testid=dd-contract]").inner_text()
    assert page.locator("[data-testid=best-discard]").count() == 1
    assert page.locator("[data-testid=marks]").count() == 1
    screenshot(page, "analysis-replay")
    assert page.js_errors == []
