"""The table page as a player meets it (issue 11), in real Chromium against a real server.

Three members play a pass-out deal (R-R1) through three browsers: the completed trick stays on
the cloth with its winner, every visible word is Russian (no rule IDs, no English server text,
no hashes outside «Проверить сдачу»), refused commands are shown by their code in Russian, the
browser itself re-checks the finished deal against the commitment (R-D4) and a tampered salt or
deck fails. A phone (390×844) sees its hand, the trick and the bidding box on the first screen,
the sheet and chat one tap away, the move countdown and who is disconnected. Screenshots at
1366×768 and 390×844 go to ``test-results/``.
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import ClubSession, Member, Role
from app.db.models.table import Table
from app.security.passwords import hash_password
from app.services.pulkas import close_pulka
from app.services.tables import create_table
from tests.browser.conftest import screenshot
from tests.browser.test_ui import enabled, login, wait_for, who_can
from tests.support.club_calendar import without_the_monday_sessions
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a table page password"
NAMES = ["Анна", "Борис", "Вера", "Глеб"]
RULE_ID = re.compile(r"R-[A-Z]+\d")
# Two Latin words in a row: an English sentence from the server (names here are Cyrillic; the
# page's only Latin is the "EN" language switch).
ENGLISH = re.compile(r"[A-Za-z]{2,}[\s,.:;'()-]+[A-Za-z]{2,}")
HEX_HASH = re.compile(r"\b[0-9a-f]{16,}\b")


def _run(coro: Any) -> Any:
    """Run a coroutine in another thread (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _members(url: str) -> list[int]:
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            rows = [
                Member(
                    login=f"tp{i}",
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
            return [m.id for m in rows]
    finally:
        await engine.dispose()


async def _table(url: str, seats: list[int], timer: int | None = None) -> int:
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            table = await create_table(
                db,
                seat_member_ids=list(seats),
                target=10,
                first_dealer=0,
                move_timer_seconds=timer,
                now=datetime.now(UTC),
            )
            return table.id
    finally:
        await engine.dispose()


async def _early_club_table(url: str, seats: list[int]) -> int:
    """A club table seated now for a session that starts in an hour (R-S1 refuses the deal
    until then)."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            now = datetime.now(UTC)
            await without_the_monday_sessions(db)
            session = ClubSession(
                starts_at=now + timedelta(hours=1), ends_at=now + timedelta(hours=4), extra=True
            )
            db.add(session)
            await db.flush()
            table = await create_table(
                db,
                seat_member_ids=list(seats),
                target=10,
                first_dealer=0,
                club_session_id=session.id,
                now=now,
            )
            return table.id
    finally:
        await engine.dispose()


async def _open_session_now(url: str, table_id: int) -> None:
    """The session of ``table_id`` starts now (as if the clock had reached 19:00)."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            table = await db.get(Table, table_id)
            assert table is not None and table.club_session_id is not None
            session = await db.get(ClubSession, table.club_session_id)
            assert session is not None
            session.starts_at = datetime.now(UTC) - timedelta(seconds=1)
    finally:
        await engine.dispose()


async def _close(url: str, table_id: int) -> None:
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            assert await close_pulka(db, table_id, "agreement", datetime.now(UTC)) is not None
    finally:
        await engine.dispose()


@pytest.fixture(scope="module")
def members(server: ServerProcess) -> list[int]:
    ids: list[int] = _run(_members(server.env["DATABASE_URL"]))
    return ids


def open_page(browser: Any, width: int = 1366, height: int = 768) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    return page


def seat_pages(
    browser: Any,
    base: str,
    table_id: int,
    logins: list[int],
    sizes: list[tuple[int, int]] | None = None,
) -> list[Any]:
    pages = []
    for i, index in enumerate(logins):
        page = open_page(browser, *(sizes[i] if sizes else (1366, 768)))
        login(page, base, f"tp{index}", PASSWORD)
        page.wait_for_selector("#session-title")
        page.goto(f"{base}/#/table/{table_id}")
        page.wait_for_selector(".conn:has-text('На связи')")
        pages.append(page)
    return pages


def visible_text(page: Any) -> str:
    return str(page.evaluate("() => document.body.innerText"))


def assert_russian(page: Any, where: str) -> None:
    """Nothing the player can read is a rule ID, an English sentence or a bare hash."""
    text = visible_text(page)
    assert not RULE_ID.search(text), (where, RULE_ID.findall(text))
    assert not ENGLISH.search(text), (where, ENGLISH.findall(text))
    assert not HEX_HASH.search(text), (where, HEX_HASH.findall(text))


def send_raw(page: Any, command: dict[str, Any]) -> None:
    """A command straight through the page's own socket (as a tampered or stale client would)."""
    page.evaluate("cmd => window.prefclubTable.send(cmd)", command)


def notice(page: Any) -> str:
    page.wait_for_selector("#notice:not([hidden])")
    return str(page.locator("#notice span").first.inner_text())


def play_one(pages: list[Any]) -> tuple[int, str]:
    """The seat to move plays its first playable card; wait until the card has left its hand."""
    index, page = who_can(pages, "[data-testid=my-hand] button.card-face.playable")
    card = str(
        page.locator("[data-testid=my-hand] button.card-face.playable").first.get_attribute(
            "data-card"
        )
    )
    page.click(f"[data-testid=my-hand] button.card-face[data-card='{card}']")
    mine = f"[data-testid=my-hand] .card-face[data-card='{card}']"
    wait_for(lambda: page.locator(mine).count() == 0, what=f"{card} played")
    return index, card


def play_by_keys(pages: list[Any]) -> str:
    """The seat to move picks its first playable card with → and plays it with Enter."""
    _, page = who_can(pages, "[data-testid=my-hand] button.card-face.playable")
    page.keyboard.press("ArrowRight")
    card = str(page.evaluate("() => document.activeElement.dataset.card"))
    playable = f"[data-testid=my-hand] button.card-face.playable[data-card='{card}']"
    assert page.locator(playable).count() == 1
    page.keyboard.press("Enter")
    mine = f"[data-testid=my-hand] .card-face[data-card='{card}']"
    wait_for(lambda: page.locator(mine).count() == 0, what=f"{card} played by the keyboard")
    return card


def test_a_pass_out_deal_in_russian_with_the_trick_held_and_the_deal_verified(
    server: ServerProcess, browser: Any, members: list[int]
) -> None:
    base = server.base_url
    table_id = _run(_table(server.env["DATABASE_URL"], members[:3]))
    pages = seat_pages(browser, base, table_id, [0, 1, 2])
    wait_for(lambda: pages[0].locator(".seat-box .dot.on").count() == 3, what="presence")
    # the commitment is behind «Проверить сдачу» before the cut, never in plain sight
    pages[0].wait_for_selector("[data-testid=verify-current] summary:has-text('Проверить сдачу')")
    for page in pages:
        assert_russian(page, "before the cut")

    # the default cut: one tap, the browser picks the position
    _, cutter = who_can(pages, "#cut-random")
    cutter.click("#cut-random")
    for page in pages:
        wait_for(
            lambda page=page: page.locator("[data-testid=my-hand] .card-face").count() == 10,
            what="ten cards",
        )

    # a refused command is shown by its code in Russian, never the server's English message
    idle = next(p for p in pages if not enabled(p, "#bid-pass"))
    send_raw(idle, {"type": "bid", "call": "6S"})
    assert notice(idle) == "Сейчас не ваш ход."
    _, mover = who_can(pages, "#bid-pass")
    send_raw(mover, {"type": "bid", "call": "11NT"})
    assert notice(mover) == "Сервер не понял команду."
    mover.click("#notice button")

    # the turn alert: the mover's tab title says so, the others' do not; the sound switch is
    # remembered across a reload
    assert mover.title().startswith("▶ Ваш ход")
    assert not idle.title().startswith("▶")
    idle.click(".sound-btn")
    assert idle.get_attribute(".sound-btn", "aria-pressed") == "true"
    idle.reload()
    idle.wait_for_selector(".conn:has-text('На связи')")
    assert idle.get_attribute(".sound-btn", "aria-pressed") == "true"
    # the keyboard help: "?" opens it, Esc closes it
    mover.keyboard.press("?")
    assert "P — пас" in mover.locator("#keys-help").inner_text()
    mover.keyboard.press("Escape")
    assert mover.locator("#keys-help").count() == 0

    # everybody passes (the first by the keyboard: P): a pass-out (R-R1)
    mover.keyboard.press("p")
    wait_for(lambda: not enabled(mover, "#bid-pass"), what="the keyboard pass")
    for _ in range(2):
        _, page = who_can(pages, "#bid-pass")
        page.click("#bid-pass")
        wait_for(lambda page=page: not enabled(page, "#bid-pass"), what="a pass")
    # an illegal card: not the seat's own (the rules refuse it) — shown in Russian
    index, page = who_can(pages, "[data-testid=my-hand] button.card-face.playable")
    foreign = str(
        pages[(index + 1) % 3]
        .locator("[data-testid=my-hand] .card-face")
        .first.get_attribute("data-card")
    )
    send_raw(page, {"type": "play_card", "card": foreign})
    assert notice(page) == "Так ходить нельзя по правилам."
    page.click("#notice button")

    # the first trick: three cards after the talon card; it stays on the cloth ≥ 1 s. The
    # watcher records in the page when the completed trick appears and when it leaves the DOM.
    played = [play_one(pages)[1], play_by_keys(pages)]
    watcher = pages[0]
    watcher.evaluate("""() => {
        const rec = window.heldTrick = {shown: null, gone: null, cards: []};
        new MutationObserver(() => {
          const el = document.querySelector('[data-testid=trick-done]');
          const now = performance.now();
          if (el && rec.shown === null) {
            rec.shown = now;
            rec.cards = [...el.querySelectorAll('.card-face')].map((c) => c.dataset.card);
            rec.winner = el.querySelectorAll('.trick-card.winner').length;
            rec.text = el.innerText;
          }
          if (!el && rec.shown !== null && rec.gone === null) rec.gone = now;
        }).observe(document.body, {childList: true, subtree: true});
    }""")
    played.append(play_one(pages)[1])
    done = "[data-testid=trick-done]"
    watcher.wait_for_selector(done)
    screenshot(watcher, "table-page-trick-held-1366")
    held = wait_for(
        lambda: (lambda r: r if r["gone"] is not None else None)(
            watcher.evaluate("() => window.heldTrick")
        ),
        timeout=8,
        what="the held trick to clear",
    )
    assert set(played) <= set(held["cards"]), held
    assert held["winner"] == 1 and "забирает" in held["text"], held
    assert held["gone"] - held["shown"] >= 1000, held
    assert watcher.locator("[data-testid=contract-bar]").inner_text().count("Взятки") == 1
    assert "Пас" in watcher.locator("[data-testid=auction]").inner_text()
    for page in pages:
        assert_russian(page, "during play")

    # the rest of the deal
    for _ in range(27):
        play_one(pages)
    for page in pages:
        page.wait_for_selector("[data-testid=last-deal] li")
        assert "распасы" in page.locator("[data-testid=last-deal]").inner_text()
        assert_russian(page, "after the deal")

    # «Проверить сдачу»: the browser re-checks the revealed deck and salt itself
    page = pages[1]
    page.click("[data-testid=verify-deal] summary")
    page.wait_for_selector("[data-testid=verdict]")
    assert page.locator("[data-testid=verdict]").inner_text().startswith("✓")
    checks = page.locator("[data-testid=verify-deal] .checks li")
    keys = checks.evaluate_all("els => els.map(e => e.dataset.check)")
    assert {"deck", "hash", "seen", "cut", "hands", "talon", "mine"} <= set(keys)
    assert page.locator("[data-testid=verify-deal] .checks li.bad").count() == 0
    screenshot(page, "table-page-verified-1366")
    good = page.evaluate("() => window.prefclubTable.verifyLast()")
    assert good["ok"] is True
    bad_salt = page.evaluate(
        "() => window.prefclubTable.verifyLast({salt: '00' + 'ab'.repeat(15)})"
    )
    assert bad_salt["ok"] is False
    assert {c["key"]: c["ok"] for c in bad_salt["checks"]}["hash"] is False
    bad_deck = page.evaluate("""() => {
        const deck = [...window.prefclubTable.lastReveal().deck];
        [deck[0], deck[31]] = [deck[31], deck[0]];
        return window.prefclubTable.verifyLast({deck});
    }""")
    checks_bad = {c["key"]: c["ok"] for c in bad_deck["checks"]}
    assert bad_deck["ok"] is False and checks_bad["hash"] is False
    page.click("[data-testid=verify-deal] summary")  # closed again: the hashes are out of sight

    # a fresh page (nothing remembered) fetches the reveal of the last deal from the archive
    fresh = seat_pages(browser, base, table_id, [2])[0]
    fresh.wait_for_selector("[data-testid=verify-deal]")
    fresh.click("[data-testid=verify-deal] summary")
    fresh.wait_for_selector("[data-testid=verdict]")
    assert fresh.locator("[data-testid=verdict]").inner_text().startswith("✓")
    fresh_keys = fresh.locator("[data-testid=verify-deal] .checks li").evaluate_all(
        "els => els.map(e => e.dataset.check)"
    )
    assert {"deck", "hash", "hands", "talon"} <= set(fresh_keys)
    fresh.context.close()

    # the pulka is closed by agreement: the reason and the settlement in words
    _run(_close(server.env["DATABASE_URL"], table_id))
    for page in pages:
        page.wait_for_selector("[data-testid=settlement] .ended:has-text('по соглашению')")
        assert page.locator("[data-testid=settlement] .settle-words li").count() == 3
        assert_russian(page, "the pulka over")
        assert not page.js_errors, page.js_errors
    screenshot(pages[0], "table-page-finished-1366")
    for page in pages:
        page.context.close()


def test_move_countdown_and_who_is_disconnected_on_the_phone(
    server: ServerProcess, browser: Any, members: list[int]
) -> None:
    base = server.base_url
    # Глеб's seat stays empty of a browser: the others see him as disconnected
    table_id = _run(
        _table(server.env["DATABASE_URL"], [members[0], members[1], members[3]], timer=600)
    )
    pages = seat_pages(browser, base, table_id, [0, 1], sizes=[(390, 844), (1366, 768)])
    phone = pages[0]
    phone.wait_for_selector("[data-testid=away]:has-text('Глеб')")
    assert "Нет связи" in phone.locator("[data-testid=away]").inner_text()
    # the cut is Глеб's (seat 2, right of the dealer, R-D2): the countdown says what happens
    phone.wait_for_selector("[data-testid=move-timer]:has-text('автоматически')")
    assert "сервер сходит сам" in phone.locator("[data-testid=move-timer]").inner_text()
    screenshot(phone, "table-page-phone-cut-390")
    for page in pages:
        assert_russian(page, "phone table")
    for page in pages:
        assert not page.js_errors, page.js_errors
        page.context.close()


def _box_in_view(page: Any, selector: str, width: int, height: int) -> dict[str, float]:
    box: dict[str, float] | None = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= width + 0.5, (selector, box)
    assert box["y"] + box["height"] <= height + 0.5, (selector, box)
    return box


def test_phone_layout_during_the_bidding(
    server: ServerProcess, browser: Any, members: list[int]
) -> None:
    base = server.base_url
    table_id = _run(_table(server.env["DATABASE_URL"], members[:3]))
    pages = seat_pages(
        browser, base, table_id, [0, 1, 2], sizes=[(390, 844), (1366, 768), (1366, 768)]
    )
    phone = pages[0]
    _, cutter = who_can(pages, "#cut-random")
    assert cutter.locator("#cut-auto").inner_text() == "Сдвинуть посередине"  # no timer here
    cutter.click("#cut-random")
    phone.wait_for_selector("[data-testid=bidbox]")
    wait_for(
        lambda: phone.locator("[data-testid=my-hand] .card-face").count() == 10, what="ten cards"
    )
    for selector in ("[data-testid=my-hand]", ".trick", "[data-testid=bidbox]"):
        _box_in_view(phone, selector, 390, 844)
    assert phone.evaluate("() => document.scrollingElement.scrollLeft") == 0
    wide = phone.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > 390.5)
        .map((e) => `${e.tagName}.${e.className} ${e.getBoundingClientRect().right}`)""")
    assert phone.evaluate("() => document.scrollingElement.scrollWidth") <= 390, wide
    screenshot(phone, "table-page-phone-bidding-390")
    screenshot(pages[1], "table-page-bidding-1366")
    # the sheet and the chat are one tap away
    assert not phone.locator("[data-testid=sheet]").is_visible()
    phone.click(".table-tabs button[data-tab=sheet]")
    phone.wait_for_selector("[data-testid=sheet] svg.pulka", state="visible")
    assert not phone.locator("[data-testid=my-hand]").is_visible()
    assert phone.evaluate("() => document.scrollingElement.scrollWidth") <= 390
    pulka = phone.locator("[data-testid=sheet] svg.pulka").bounding_box()
    assert pulka is not None and pulka["x"] >= 0 and pulka["x"] + pulka["width"] <= 390, pulka
    screenshot(phone, "table-page-phone-sheet-390")  # the whole sheet, no sideways scrolling
    phone.click(".table-tabs button[data-tab=chat]")
    phone.wait_for_selector("#chat-title", state="visible")
    phone.click(".table-tabs button[data-tab=table]")
    phone.wait_for_selector("[data-testid=my-hand]", state="visible")
    # a pass-out: during play the hand, the trick and the contract bar are on the first screen
    for _ in range(3):
        _, page = who_can(pages, "#bid-pass")
        page.click("#bid-pass")
        wait_for(lambda page=page: not enabled(page, "#bid-pass"), what="a pass")
    play_one(pages)
    phone.wait_for_selector(".trick .card-face")
    for selector in ("[data-testid=my-hand]", ".trick", "[data-testid=contract-bar]"):
        _box_in_view(phone, selector, 390, 844)
    screenshot(phone, "table-page-phone-play-390")
    for page in pages:
        assert_russian(page, "phone bidding")
        assert not page.js_errors, page.js_errors
        page.context.close()


def test_sheet_text_is_large_and_dark_enough(
    server: ServerProcess, browser: Any, members: list[int]
) -> None:
    """Every text of the drawn sheet renders at ≥ 12 px with contrast ≥ 4.5:1 on its paper."""
    base = server.base_url
    table_id = _run(_table(server.env["DATABASE_URL"], members[:3]))
    page = seat_pages(browser, base, table_id, [0])[0]
    page.wait_for_selector("[data-testid=sheet] svg.pulka text")
    # the sheet is measured once it is laid out (a sheet drawn before its box had a width, or
    # before its viewBox, reads 0/0: every size NaN)
    page.wait_for_function("""() => {
        const svg = document.querySelector("[data-testid=sheet] svg.pulka");
        return svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width > 0
          && svg.getBoundingClientRect().width > 0;
    }""")
    page.wait_for_selector("[data-testid=balance] li:nth-child(3)")
    sizes = page.locator("[data-testid=sheet] svg.pulka text").evaluate_all("""els => els
        .filter(e => e.textContent.trim())
        .map(e => {
          const svg = e.ownerSVGElement;
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          const style = getComputedStyle(e);
          return {px: parseFloat(style.fontSize) * scale, fill: style.fill};
        })""")
    assert sizes and min(s["px"] for s in sizes) >= 12, sorted(s["px"] for s in sizes)[:3]
    paper = (0xFB, 0xF8, 0xEF)
    for item in sizes:
        rgb = tuple(int(v) for v in re.findall(r"\d+", item["fill"])[:3])
        assert contrast(rgb, paper) >= 4.5, item
    assert page.locator("[data-testid=balance] li").count() == 3
    # R-P9: the club's closing, named in words (the server settles by the table's own rule)
    hint = page.locator("[data-testid=balance-hint]").inner_text()
    assert hint.startswith("Недобор до пули идёт в гору вдвойне")
    page.context.close()


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """WCAG contrast ratio of two sRGB colours."""

    def lum(c: tuple[int, ...]) -> float:
        def lin(v: int) -> float:
            x = v / 255
            return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

        r, g, bl = (lin(v) for v in c)
        return 0.2126 * r + 0.7152 * g + 0.0722 * bl

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_cutter_lets_the_timer_cut_and_the_banner_knows_since_when(
    server: ServerProcess, browser: Any, members: list[int]
) -> None:
    """R-D2: «Пусть сдвинет таймер» cuts at the default position (16) at once; the banner's
    time comes from the server's ``since`` (so it is not only "at least")."""
    base = server.base_url
    table_id = _run(
        _table(server.env["DATABASE_URL"], [members[0], members[1], members[3]], timer=600)
    )
    pages = seat_pages(browser, base, table_id, [0, 3])
    watcher, cutter = pages
    watcher.wait_for_selector("[data-testid=away]:has-text('Борис')")
    away = watcher.locator("[data-testid=away]").inner_text()
    assert "Нет связи" in away and "не меньше" not in away
    cutter.wait_for_selector("[data-testid=cut-auto]:has-text('Пусть сдвинет таймер')")
    assert "посередине" in visible_text(cutter)
    assert_russian(cutter, "cut panel")
    cutter.click("[data-testid=cut-auto]")
    watcher.wait_for_selector("[data-testid=move-timer]:has-text('На ход осталось')")
    state = watcher.evaluate(f"() => fetch('/api/tables/{table_id}/state').then(r => r.json())")
    assert state["deal"]["cut"] == 16 and state["deal"]["phase"] == "auction"
    assert state["table"]["deadline_at"] is not None
    for page in pages:
        assert_russian(page, "after the auto cut")
        assert not page.js_errors, page.js_errors
        page.context.close()


def test_r_s1_a_club_table_seated_early_deals_by_itself_when_the_session_opens(
    server: ServerProcess, browser: Any, members: list[int]
) -> None:
    """Nobody clicks: the page says the first deal starts by itself, then the cut appears."""
    table_id = _run(_early_club_table(server.env["DATABASE_URL"], members[:3]))
    pages = seat_pages(browser, server.base_url, table_id, [0, 2])
    first, cutter = pages  # dealer seat 0; the cutter is seat 2 (R-D2)
    for page in pages:
        page.wait_for_selector("[data-testid=waiting-first]:has-text('начнётся сама')")
        assert page.locator("[data-testid=actions] button").count() == 0  # nothing to press
    _run(_open_session_now(server.env["DATABASE_URL"], table_id))
    cutter.wait_for_selector("[data-testid=cut-auto]", timeout=30_000)
    first.wait_for_selector(".status-line:has-text('сдвиг')")
    for page in pages:
        assert_russian(page, "first deal")
        assert not page.js_errors, page.js_errors
        page.context.close()
