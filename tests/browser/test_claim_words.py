"""A claim in words (R-W11, issue 28): the table offers «Остальные взятки — мои (N)» rather than a
bare number select, and the replay of a deal ended by a claim says so; a remiz's whists name the
whists for tricks and the consolation apart (R-P1)."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.realtime.engine import legal_json
from app.realtime.store import rebuild
from app.rules import action_from_json, apply
from app.services.pulkas import close_pulka
from app.services.table_commands import execute
from app.services.tables import create_table
from tests.browser.conftest import screenshot
from tests.browser.test_ui import login, new_page
from tests.support.archive_play import SameSession, choose, play_deal
from tests.support.browser_members import table_members
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a claiming password"
NAMES = ["Анна Заявкина", "Борис", "Вера"]


def _holding_claim(state: Any) -> dict[str, Any] | None:
    """The claim the seat to move may make that the claim solver upholds, if any."""
    deal = state.deal
    if deal is None or deal.finished or deal.phase != "play":
        return None
    seat = deal.to_move
    for option in legal_json(deal, seat):
        if option["type"] == "claim":
            _, events = apply(deal, action_from_json({**option, "seat": seat}))
            if any(e.type == "claim_accepted" for e in events):
                return option
    return None


async def _seed(url: str) -> tuple[int, int]:
    """Members at two tables: a finished pulka whose one deal (6♠ by Anna, seat 0) ended on an
    upheld claim, and a table stopped at the first lead of a 6♠ Anna declared."""
    now = datetime.now(UTC)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        async with session_scope(sessions) as db:
            ids = await table_members(db, "claim", NAMES, PASSWORD)
            # dealer 2: Anna (seat 0) is forehand, bids 6♠ and leads
            claimed = await create_table(
                db, seat_member_ids=ids, practice=False, target=20, first_dealer=2, now=now
            )
            waiting = await create_table(
                db, seat_member_ids=ids, practice=False, target=20, first_dealer=2, now=now
            )
        chooser = partial(choose, contract="6S")
        async with session_scope(sessions) as db:

            async def claim_when_it_holds(state: Any) -> bool:
                return _holding_claim(state) is not None

            await play_deal(db, claimed.id, ids, now, chooser, stop=claim_when_it_holds)
            state = await rebuild(db, claimed.id)
            assert state is not None
            option = _holding_claim(state)
            assert option is not None, "at the last trick at the latest its winner's claim holds"
            seat = state.deal.to_move
            await execute(
                SameSession(db),
                None,
                table_id=claimed.id,
                member_id=ids[seat],
                seat=seat,
                name=NAMES[seat],
                command={"id": "claim-1", **option},
                now=now,
            )
            row = await close_pulka(db, claimed.id, "agreement", now)
            assert row is not None

            async def anna_leads(state: Any) -> bool:
                return state.deal.phase == "play"

            await play_deal(db, waiting.id, ids, now, chooser, stop=anna_leads, prefix="w")
            return row.id, waiting.id
    finally:
        await engine.dispose()


def test_claims_in_words_at_the_table_and_in_replay(server: ServerProcess, browser: Any) -> None:
    with ThreadPoolExecutor(1) as pool:
        pulka_id, table_id = pool.submit(asyncio.run, _seed(server.env["DATABASE_URL"])).result()
    base = server.base_url
    page = new_page(browser)
    login(page, base, "claim0", PASSWORD)
    page.wait_for_selector("#session-title")

    # R-W11: the declarer at the first lead claims all ten in words, no number select
    page.goto(f"{base}/#/table/{table_id}")
    claim = page.locator("[data-testid=actions] button[data-claim]")
    claim.wait_for()
    assert claim.inner_text() == "Остальные взятки — мои (10)"
    assert page.locator("[data-testid=actions] select").count() == 0
    screenshot(page, "table-claim-words")

    page.goto(f"{base}/#/replay/{pulka_id}/1")
    page.wait_for_selector("[data-testid=deal-end]")
    ended = page.locator("[data-testid=deal-end]").inner_text()
    assert re.fullmatch(
        r"Сдача окончена заявкой\. (Анна Заявкина|Борис|Вера): "
        r"«Остальные взятки — (мои|наши) \(\d+\)»",
        ended,
    ), ended
    entries = page.locator("[data-testid=entries]").inner_text()
    assert "R-" not in entries and " на " not in entries
    # the declarer's own line: his game in the pool or his remiz on the hill, in words
    own_line = r"^Анна Заявкина: (пуля \+\d+ — игра|гора \+\d+ — ремиз)$"
    assert re.search(own_line, entries, re.M), entries
    screenshot(page, "replay-claim-words")
    assert page.js_errors == []
