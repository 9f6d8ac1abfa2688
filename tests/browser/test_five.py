"""Five at a table in real Chromium (R-T1, R-T6): five members present draw one table of five,
its seats are drawn (R-T2) and the first dealer is drawn (R-T3); five browsers play two deals.

In each deal only the dealer's two left neighbours and his right neighbour hold cards; the
dealer and the seat opposite him see no hand and are marked as sitting out. Both deals are
passed out: the dealer's talon cards lead the first two tricks (R-R3). The sheet is drawn for
five (a pentagon, one field per seat).
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Attendance, ClubSession, Member, Role
from app.rules.core.seats import idle_seats, playing_seats
from app.security.passwords import hash_password
from app.services.forming import draw_session_tables, seat_drawn_table
from tests.browser.conftest import screenshot
from tests.browser.test_table_page import open_page, play_one
from tests.browser.test_ui import enabled, login, wait_for, who_can
from tests.support.club_calendar import without_the_monday_sessions
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a five table password"
NAMES = ["Дарья", "Егор", "Жанна", "Захар", "Ирина"]


def _run(coro: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _drawn_table(url: str) -> tuple[int, list[int], int, list[str]]:
    """Five members checked in to a session open now; the draw (R-T1) and its seating."""
    engine = make_engine(url)
    now = datetime.now(UTC)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            members = [
                Member(
                    login=f"five{i}",
                    display_name=name,
                    role=Role.member,
                    password_hash=hash_password(PASSWORD),
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate(NAMES)
            ]
            db.add_all(members)
            await db.flush()
            await without_the_monday_sessions(db)
            session = ClubSession(
                starts_at=now - timedelta(minutes=1), ends_at=now + timedelta(hours=3), extra=True
            )
            db.add(session)
            await db.flush()
            db.add_all(
                [
                    Attendance(club_session_id=session.id, member_id=m.id, checked_in_at=now)
                    for m in members
                ]
            )
            await db.flush()
            drawn = await draw_session_tables(db, session, members[0], now, random.Random(5))
            assert [len(t.member_ids) for t in drawn.tables] == [5]
            seated = await seat_drawn_table(
                db, drawn.tables[0], by=members[0], now=now, rng=random.Random(6), order=None
            )
            logins = {m.id: m.login for m in members}
            seats = [int(s) for s in seated.seats if s is not None]
            dealer = int(seated.dealer_record.record["dealer"])
            return seated.table_id, seats, dealer, [logins[s] for s in seats]
    finally:
        await engine.dispose()


def _hand_count(page: Any) -> int:
    return int(page.locator("[data-testid=my-hand] .card-face").count())


def _play_a_passed_out_deal(pages: list[Any], dealer: int) -> None:
    """Cut, three passes, thirty cards; only the three playing seats ever hold cards."""
    _, cutter = who_can(pages, "#cut-random")
    assert pages.index(cutter) == (dealer - 1) % 5  # R-D2: the dealer's right neighbour
    cutter.click("#cut-random")
    playing = playing_seats(5, dealer)
    for seat in playing:
        wait_for(lambda seat=seat: _hand_count(pages[seat]) == 10, what=f"seat {seat}'s cards")
    opposite = (dealer + 3) % 5
    assert idle_seats(5, dealer) == tuple(sorted((dealer, opposite)))
    for seat in (dealer, opposite):
        assert _hand_count(pages[seat]) == 0  # R-T6: no cards for the two who sit out
    watcher = pages[playing[0]]
    roles = watcher.locator(f".seat-box[data-seat='{opposite}'] .role").all_inner_texts()
    assert roles == ["не играет"], roles
    # the two who sit out read why, in words, instead of a box of disabled bids
    for seat, words in ((dealer, "Вы сдаёте и в этой сдаче не играете"), (opposite, "не играете")):
        pages[seat].wait_for_selector(f"[data-testid=sits-out]:has-text('{words}')")
        assert pages[seat].locator("[data-testid=bidbox]").count() == 0
    for _ in range(3):
        index, page = who_can(pages, "#bid-pass")
        assert index in playing
        page.click("#bid-pass")
        wait_for(lambda page=page: not enabled(page, "#bid-pass"), what="a pass")
    for _ in range(30):
        index, _card = play_one(pages)
        assert index in playing
    for page in pages:
        page.wait_for_selector("[data-testid=last-deal] li")
        assert "распасы" in page.locator("[data-testid=last-deal]").inner_text()


def test_five_members_drawn_to_one_table_play_two_deals(
    server: ServerProcess, browser: Any
) -> None:
    base = server.base_url
    table_id, _seats, dealer, logins = _run(_drawn_table(server.env["DATABASE_URL"]))
    pages = []
    for name in logins:
        page = open_page(browser)
        login(page, base, name, PASSWORD)
        page.wait_for_selector("#session-title")
        page.goto(f"{base}/#/table/{table_id}")
        page.wait_for_selector(".conn:has-text('На связи')")
        pages.append(page)
    wait_for(lambda: pages[0].locator(".seat-box .dot.on").count() == 5, what="presence")
    _play_a_passed_out_deal(pages, dealer)
    screenshot(pages[dealer], "five-after-deal-1")
    _play_a_passed_out_deal(pages, (dealer + 1) % 5)  # R-D1: the deal passes clockwise
    page = pages[0]
    # the sheet for five: one field per seat, each writing whists on his four opponents
    wait_for(lambda: page.locator("[data-testid=sheet] .pname").count() == 5, what="five fields")
    names = page.locator("[data-testid=sheet] .pname").evaluate_all(
        "els => els.map(e => e.textContent)"
    )
    assert sorted(names) == sorted(NAMES)
    assert page.locator("[data-testid=sheet] text[data-testid^=whists-]").count() == 20
    # two pass-outs wrote into the hills of those who played them and nowhere else (R-R4)
    assert page.locator("[data-testid=sheet] text[data-testid^=pool-] tspan").count() == 0
    screenshot(page, "five-after-deal-2")
    for page in pages:
        assert not page.js_errors, page.js_errors
        page.context.close()
