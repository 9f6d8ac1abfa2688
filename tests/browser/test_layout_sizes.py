"""The layout items of issue 28 at the two sizes the club uses, 1366×768 and 390×844: the
officer's «Отменить» / «Завершить сессию» buttons are not clipped, the whist/pass buttons are in
view without scrolling on a laptop, the lobby does not scroll sideways on a phone after a draw,
the phone's «Пулька» tab and a named call («6♥ (преферанс)») fit the screen and their buttons.
Screenshots go to ``test-results/`` (and ``/tmp/shots-layout/`` when it exists, to look at)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Attendance, ClubSession, Member, Role
from app.security.passwords import hash_password
from app.services.tables import create_table
from tests.browser.conftest import screenshot
from tests.browser.test_ui import act, login, wait_for, who_can
from tests.support.club_calendar import without_the_monday_sessions
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a layout password"
NAMES = ["Анна Александровна", "Борис Борисович", "Вера Владимировна", "Глеб Геннадьевич"]
LOOK = Path("/tmp/shots-layout")

NO_SIDEWAYS = "() => document.scrollingElement.scrollWidth <= window.innerWidth"
WIDE = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
  .slice(0, 8).map((e) => `${e.tagName}.${e.className}: ${e.getBoundingClientRect().right}`)"""
"""The elements sticking out past the window's right edge (what makes a page scroll sideways)."""
IN_VIEW = """(sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent).map((e) => {
  const r = e.getBoundingClientRect();
  let clip = { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight };
  for (let p = e.parentElement; p; p = p.parentElement) {
    const style = getComputedStyle(p);
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const b = p.getBoundingClientRect();
    clip = { left: Math.max(clip.left, b.left), top: Math.max(clip.top, b.top),
      right: Math.min(clip.right, b.right), bottom: Math.min(clip.bottom, b.bottom) };
  }
  const inside = r.left >= clip.left - 0.5 && r.right <= clip.right + 0.5
    && r.top >= clip.top - 0.5 && r.bottom <= clip.bottom + 0.5;
  return { text: e.textContent.trim(), inside, box: [r.left, r.top, r.right, r.bottom],
    clip: [clip.left, clip.top, clip.right, clip.bottom] };
})"""
"""Every shown element of ``sel``: whether it lies wholly inside the window (scrolled to the top)
and every scroller around it, i.e. whether a person sees it without scrolling anything."""
FITS = "(sel) => [...document.querySelectorAll(sel)].every((b) => b.scrollWidth <= b.clientWidth)"
ONE_LINE = """(word) => {
  const b = document.querySelector('#bid-6H');
  const text = [...b.childNodes]
    .find((n) => n.nodeType === Node.TEXT_NODE && n.data.includes(word));
  const range = document.createRange();
  range.setStart(text, text.data.indexOf(word));
  range.setEnd(text, text.data.indexOf(word) + word.length);
  const box = b.getBoundingClientRect();
  return [...range.getClientRects()].map((r) => r.left >= box.left && r.right <= box.right);
}"""
"""Where «(преферанс)» of the 6♥ button lies: one rect per line it takes, each inside the button."""


def shoot(page: Any, name: str) -> None:
    path = screenshot(page, name)
    if LOOK.is_dir():
        shutil.copy(path, LOOK / path.name)


def no_sideways(page: Any, where: str) -> None:
    page.wait_for_timeout(150)
    assert page.evaluate(NO_SIDEWAYS), (where, page.evaluate(WIDE))


def _run(coro: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _seed(url: str) -> dict[str, Any]:
    """Four members (the first an admin); a session that ran until three hours ago and is not
    ended, a deal still out at its table (its «Завершить сессию»), one tomorrow (its
    «Отменить»), one running now with the first three checked in (its draw); a table of the
    three, and a classic one."""
    now = datetime.now(UTC)
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            people = [
                Member(
                    login=f"lay{i}",
                    display_name=name,
                    role=Role.admin if i == 0 else Role.member,
                    password_hash=hash_password(PASSWORD),
                    must_change_password=False,
                    active=True,
                    is_bot=False,
                )
                for i, name in enumerate(NAMES)
            ]
            db.add_all(people)
            await without_the_monday_sessions(db)
            overdue = ClubSession(  # made running; over once its table has a deal out (below)
                starts_at=now - timedelta(hours=6), ends_at=now + timedelta(hours=1), extra=True
            )
            tomorrow = ClubSession(
                starts_at=now + timedelta(days=1), ends_at=now + timedelta(days=1, hours=3)
            )
            running = ClubSession(
                starts_at=now - timedelta(minutes=30), ends_at=now + timedelta(hours=2), extra=True
            )
            db.add_all([overdue, tomorrow, running])
            await db.flush()
            ids = [m.id for m in people]
            db.add_all(
                Attendance(club_session_id=running.id, member_id=i, checked_in_at=now)
                for i in ids[:3]
            )
            table = await create_table(
                db, seat_member_ids=ids[:3], target=10, first_dealer=0, practice=True, now=now
            )
            classic = await create_table(
                db,
                seat_member_ids=ids[1:],
                target=10,
                first_dealer=0,
                practice=True,
                preset="classic",
                now=now,
            )
            # The overdue session keeps a club table with a deal out: the server's timer ends a
            # session past its end only once its tables are idle (R-S3), so its «Завершить
            # сессию» stays on the admin page instead of racing the timer.
            await create_table(
                db,
                seat_member_ids=ids[1:],
                target=10,
                first_dealer=0,
                club_session_id=overdue.id,
                now=now,
            )
            overdue.ends_at = now - timedelta(hours=3)
            return {"table": table.id, "classic": classic.id}
    finally:
        await engine.dispose()


@pytest.fixture(scope="module")
def club(server: ServerProcess) -> dict[str, Any]:
    seeded: dict[str, Any] = _run(_seed(server.env["DATABASE_URL"]))
    return seeded


def page_of(browser: Any, base: str, who: int, size: tuple[int, int]) -> Any:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="ru-RU")
    page = context.new_page()
    login(page, base, f"lay{who}", PASSWORD)
    page.wait_for_selector("#session-title")
    return page


@pytest.fixture(scope="module")
def seated(server: ServerProcess, browser: Any, club: dict[str, Any]) -> Iterator[list[Any]]:
    """The three players of the plain table at 1366×768, the table open."""
    pages = []
    for who in range(3):
        page = page_of(browser, server.base_url, who, (1366, 768))
        page.goto(f"{server.base_url}/#/table/{club['table']}")
        page.wait_for_selector(".conn:has-text('На связи')")
        pages.append(page)
    yield pages
    for page in pages:
        page.context.close()


def test_the_officers_session_buttons_are_not_clipped(
    server: ServerProcess, browser: Any, club: dict[str, Any]
) -> None:
    page = page_of(browser, server.base_url, 0, (1366, 768))
    page.goto(server.base_url + "/#/admin")
    page.wait_for_selector("[data-testid=sessions] button:has-text('Завершить сессию')")
    page.wait_for_selector("[data-testid=sessions] button:has-text('Отменить')")
    texts = page.locator("[data-testid=sessions] button").all_inner_texts()
    assert "Завершить сессию" in texts and "Отменить" in texts, texts
    page.locator("[data-testid=sessions]").scroll_into_view_if_needed()
    shoot(page, "layout-admin-1366")
    buttons = page.evaluate(IN_VIEW, "[data-testid=sessions] button")
    assert len(buttons) == 2, buttons
    for button in buttons:  # neither cut off by the list's scroller nor by the window's edge
        box, clip = button["box"], button["clip"]
        assert clip[0] - 0.5 <= box[0] and box[2] <= clip[2] + 0.5, button
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways(page, "admin 390")
    shoot(page, "layout-admin-390")
    page.context.close()


def test_the_lobby_after_a_draw_does_not_scroll_sideways_on_a_phone(
    server: ServerProcess, browser: Any, club: dict[str, Any]
) -> None:
    page = page_of(browser, server.base_url, 1, (390, 844))
    page.goto(server.base_url + "/#/lobby")
    page.wait_for_selector("[aria-labelledby=tables-title][data-loaded=true]")
    no_sideways(page, "lobby before the draw")
    page.click("button:has-text('Разыграть')")
    page.wait_for_selector("ul.drawn li")
    shoot(page, "layout-lobby-drawn-390")
    no_sideways(page, "lobby after the draw")
    page.context.close()


def test_whist_and_pass_are_in_view_on_a_laptop(seated: list[Any]) -> None:
    """After a 6♣ by the declarer, his defenders' «Вист» and «Пас» are on the screen at
    1366×768 without scrolling."""
    pages = seated
    _, cutter = who_can(pages, "#cut-random")
    cutter.click("#cut-random")
    bid = "[data-testid=bidbox] button[data-call='{}']"
    _, declarer = who_can(pages, bid.format("6C"))
    act(declarer, bid.format("6C"))
    for _ in range(2):
        _, page = who_can(pages, bid.format("pass"))
        act(page, bid.format("pass"))
    hand = declarer.locator("[data-testid=my-hand] button.card-face")
    wait_for(lambda: hand.count() == 12, what="the talon in hand")
    hand.nth(0).click()
    hand.nth(11).click()
    declarer.click("button:has-text('Снести')")
    declarer.wait_for_selector("[data-testid=actions] button[data-call='6C']:enabled")
    declarer.click("[data-testid=actions] button[data-call='6C']")
    _, defender = who_can(pages, "[data-testid=actions] button[data-call='whist']")
    defender.evaluate("() => window.scrollTo(0, 0)")
    shoot(defender, "layout-table-whist-1366")
    calls = "[data-testid=actions] button[data-call={}]"
    buttons = defender.evaluate(IN_VIEW, f"{calls.format('whist')}, {calls.format('pass')}")
    assert len(buttons) == 2 and all(b["inside"] for b in buttons), buttons


def test_the_phones_sheet_tab_and_a_named_call_fit(
    server: ServerProcess, browser: Any, club: dict[str, Any]
) -> None:
    """On a phone the «Пулька» tab is no wider than the screen, and on the classic preset's
    bidding box «6♥ (преферанс)» stays inside its button (at 390 and at 1366)."""
    base = server.base_url
    pages = []
    for who, size in ((1, (390, 844)), (2, (1366, 768)), (3, (390, 844))):
        page = page_of(browser, base, who, size)
        page.goto(f"{base}/#/table/{club['classic']}")
        page.wait_for_selector(".conn:has-text('На связи')")
        pages.append(page)
    _, cutter = who_can(pages, "#cut-random")
    cutter.click("#cut-random")
    for page in pages:
        page.wait_for_selector("#bid-6H")
    for page in pages:
        assert "преферанс" in page.inner_text("#bid-6H")
        assert page.evaluate(FITS, "[data-testid=bidbox] button"), "a call spills out"
        assert page.evaluate(ONE_LINE, "(преферанс)") == [True], "«преферанс» cut or spilling"
    shoot(pages[0], "layout-classic-bidding-390")
    shoot(pages[1], "layout-classic-bidding-1366")
    phone = pages[0]
    no_sideways(phone, "table 390")
    phone.click(".table-tabs button[data-tab=sheet]")
    phone.wait_for_selector("[data-testid=sheet] svg", state="visible")
    shoot(phone, "layout-sheet-tab-390")
    no_sideways(phone, "the «Пулька» tab")
    wide = phone.evaluate(
        """() => [...document.querySelectorAll('main *')].filter((e) => e.offsetParent)
          .filter((e) => e.getBoundingClientRect().width > window.innerWidth + 0.5)
          .map((e) => `${e.tagName}.${e.className}: ${e.getBoundingClientRect().width}`)"""
    )
    assert wide == [], wide
    for page in pages:
        page.context.close()
