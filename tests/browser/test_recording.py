"""A whole pulka recorded at a real-cards table in the browser (RULES.md §10, issue 12).

Anna (seat 0) scores a club-conventions pulka to 8 with Boris (1) and Vera (2): six deals carrying
one of each catalogue penalty (R-X1 … R-X11), a correction within the window and one after it
(refused). The sheet and the settlement are checked against numbers worked out by hand below.
"""

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
from tests.browser.conftest import screenshot
from tests.browser.test_ui import login, new_page, wait_for
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a recording password"
NAMES = ["Анна Записная", "Борис", "Вера"]


async def _seed(url: str) -> int:
    """A recorded club table of three members, target 8, Anna's seat 0 dealing first."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            members = [
                Member(
                    login=f"recorder{i}",
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
            table = await create_table(
                db,
                seat_member_ids=[m.id for m in members],
                practice=False,
                target=8,
                first_dealer=0,
                mode="recorded",
                now=datetime.now(UTC),
            )
            return table.id
    finally:
        await engine.dispose()


def _fill(page: Any, deal: dict[str, Any]) -> None:
    """Fill the entry form the way a scorer does: dealer, type, contract, calls, tricks, fines."""
    form = page.locator("[data-testid=rec-form]")
    form.locator("select[data-field=dealer]").select_option(str(deal["dealer"]))
    if deal.get("out_of_turn"):
        form.locator("input[data-field=out_of_turn]").check()
    form.locator("select[data-field=type]").select_option("game")
    form.locator("select[data-field=declarer]").select_option(str(deal["declarer"]))
    form.locator("select[data-field=level]").select_option(deal["contract"][0])
    form.locator("select[data-field=strain]").select_option(deal["contract"][1:])
    for seat, call in deal["defence"].items():
        form.locator(f"select[data-call='{seat}']").select_option(call)
    for seat, n in deal.get("tricks", {}).items():
        form.locator(f"input[data-tricks='{seat}']").fill(str(n))
    for i, (rule, seat) in enumerate(deal.get("penalties", [])):
        form.locator("[data-testid=rec-add-penalty]").click()
        row = form.locator(".rec-penalty-row").nth(i)
        row.locator("[data-pen=rule]").select_option(rule)
        row.locator("[data-pen=seat]").select_option(str(seat))


def _enter(page: Any, deal: dict[str, Any], count: int, *, correct: bool = False) -> None:
    """Fill and send the form; wait until the page shows the table's new state."""
    before = _sheet(page)["seq"]
    _fill(page, deal)
    page.click("[data-testid=rec-correct]" if correct else "[data-testid=rec-enter]")
    wait_for(lambda: _sheet(page)["seq"] > before, what="the entry to be written")
    now = _sheet(page)["seq"]
    page.wait_for_selector(f"#app[data-seq='{now}']")
    assert page.locator("[data-testid=rec-deals] li").count() == count


def _game(dealer: int, declarer: int, contract: str, **extra: Any) -> dict[str, Any]:
    passes = {s: "pass" for s in range(3) if s != declarer}
    return {
        "dealer": dealer,
        "declarer": declarer,
        "contract": contract,
        "defence": passes,
        **extra,
    }


def _sheet(page: Any) -> dict[str, Any]:
    return page.evaluate(
        "fetch(location.hash.replace('#/recording/', '/api/tables/') + "
        "'/recording').then((r) => r.json())"
    )


def test_a_whole_pulka_recorded_with_every_penalty(server: ServerProcess, browser: Any) -> None:
    with ThreadPoolExecutor(1) as pool:
        table_id = pool.submit(asyncio.run, _seed(server.env["DATABASE_URL"])).result()
    base = server.base_url
    page = new_page(browser)
    login(page, base, "recorder0", PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{base}/#/table/{table_id}")  # the table's link leads to its recording page
    page.wait_for_selector("[data-testid=rec-form]")
    assert page.url.endswith(f"#/recording/{table_id}")
    page.click("[data-testid=rec-add-penalty]")  # the catalogue in words, no rule IDs shown
    options = page.locator(".rec-penalty-row option").all_inner_texts()
    assert "Подсмотрел прикуп" in options and not [o for o in options if "R-X" in o]
    page.reload()
    page.wait_for_selector("[data-testid=rec-form]")

    # Deal 1 (dealer Anna): 7♥ by Boris, both pass: pool 4 (R-P1). Misdeal before it (R-X1,
    # free), Anna's first dealing fault (R-X2: no penalty, 000), Vera saw the talon (R-X4: 5
    # into her hill), Boris showed a card (R-X8). Entered first as 8♥ (pool 6), then corrected
    # within the window: the first correction of the pulka, free (R-X11).
    first = _game(
        0,
        1,
        "7H",
        penalties=[("misdeal", 0), ("dealing_procedure", 0), ("talon_seen", 2), ("card_shown", 1)],
    )
    _enter(page, {**first, "contract": "8H"}, 1)
    assert _sheet(page)["sheet"]["pool"] == [0, 6, 0]
    _enter(page, first, 1, correct=True)
    # Deal 2 (dealer Boris): 7♣ by Vera, both pass: pool 4. Anna took the talon (R-X5) and held
    # the wrong number of cards (R-X6: down three on 7♣ = 3 × 4 × 2 = 24 into her hill); Boris
    # led out of turn (R-X7), Vera claimed without a plan (R-X10).
    _enter(
        page,
        _game(
            1,
            2,
            "7C",
            penalties=[
                ("talon_taken", 0),
                ("wrong_card_count", 0),
                ("lead_out_of_turn", 1),
                ("claim_without_plan", 2),
            ],
        ),
        2,
    )
    # Deal 3: Vera was due, Anna dealt out of turn and it stands (R-X3): 7♠ by Boris: pool 4.
    _enter(page, _game(0, 1, "7S", out_of_turn=True, penalties=[("dealt_out_of_turn", 0)]), 3)
    # Deal 4 (dealer Boris, Anna's left): 7♥ by Anna, Boris whists, Vera passes; tricks 6-3-1,
    # but Boris revoked (R-X9): one of his tricks is Anna's, 7-2-1: the game is made (pool 4) and
    # Boris whists for the defence's 3 tricks: 3 × 4 × 2 = 24 on Anna.
    fourth = {"dealer": 1, "declarer": 0, "contract": "7H", "defence": {1: "whist", 2: "pass"}}
    # First entered with tricks adding up to 11: it could not have happened; the page says so
    # in words, naming the figure, and nothing is written
    before = _sheet(page)["seq"]
    _fill(page, {**fourth, "tricks": {0: 6, 1: 3, 2: 2}})
    page.click("[data-testid=rec-enter]")
    page.wait_for_selector("#notice.notice-error:not([hidden])")
    notice = page.locator("#notice").inner_text()
    assert notice.startswith("Такой сдачи быть не могло: взятки в сумме 11, а их всегда 10.")
    assert _sheet(page)["seq"] == before
    page.reload()
    page.wait_for_selector("[data-testid=rec-form]")
    _enter(page, {**fourth, "tricks": {0: 6, 1: 3, 2: 1}, "penalties": [("late_revoke", 1)]}, 4)
    # Deal 5 (dealer Vera): 7♦ by Anna, both pass: pool 4. Entered as 8♦ (pool 6) and corrected:
    # the second correction of the pulka, its over-entry of 2 fined into Anna's hill (R-X11).
    fifth = _game(2, 0, "7D")
    _enter(page, {**fifth, "contract": "8D"}, 5)
    _enter(page, fifth, 5, correct=True)
    # Deal 6 (dealer Anna): her second dealing fault costs nothing and she deals it herself
    # (R-X2 as 000 reads it: «Наказания за неправильную сдачу не применяется»), and she saw the
    # talon (R-X4: 5 into her hill). 7♣ by Vera, both pass: pool 4. Every pool has reached 8:
    # the pulka ends (R-P8).
    _enter(page, _game(0, 2, "7C", penalties=[("dealing_procedure", 0), ("talon_seen", 0)]), 6)
    page.wait_for_selector("text=Пуля окончена.")

    # A correction after the window (deal 5, now that deal 6 is entered) is refused.
    refused = page.evaluate(
        """async (id) => {
             const csrf = document.cookie.split('; ').find((c) => c.includes('csrf')).split('=')[1];
             const r = await fetch(`/api/tables/${id}/recording/deals/4`, {method: 'PUT',
               headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
               body: JSON.stringify({deal: {dealer: 2, type: 'game', declarer: 0,
                 contract: '9D', defence: {'1': 'pass', '2': 'pass'}}})});
             return r.status;
           }""",
        table_id,
    )
    assert refused == 409

    view = _sheet(page)
    # Worked out by hand: pools 4+4 each; hills Anna 24 (R-X6) + 2 (R-X11) + 5 (R-X4, deal 6) =
    # 31, Boris 0, Vera 5 (R-X4, deal 1).
    assert view["sheet"] == {
        "pool": [8, 8, 8],
        "hill": [31, 0, 5],
        "whists": [[0, 0, 0], [24, 0, 0], [0, 0, 0]],
    }
    # Settlement (R-P4): mean hill 12; Anna 10·(12−31) − 24 = −214, Boris 10·12 + 24 = 144,
    # Vera 10·(12−5) = 70; at 0.50 a whist: −107.00, 72.00, 35.00.
    assert view["settlement"]["rounded"] == [-214, 144, 70]
    assert view["settlement"]["money"] == ["-107.00", "72.00", "35.00"]
    assert {e["rule"] for e in view["entries"]} >= {"R-X4", "R-X6", "R-X11"}
    assert "R-X2" not in {e["rule"] for e in view["entries"]}  # 000: no penalty, nothing written
    shown = page.locator("[data-testid=rec-deals]").inner_text()
    for words in (
        "Подсмотрел прикуп",
        "Неверное число карт",
        "Фальшренонс",
        "Ошибка записи",
        "Сдача не в очередь",
        "Ошибка при сдаче",
        "Нарушение порядка сдачи",
        "штраф: неверное число карт — Анна Записная: 24",
        "штраф за ошибку записи — Анна Записная: 2",
    ):
        assert words in shown
    assert "\u2212107,00\u00a0₽" in page.locator("[data-testid=rec-settlement]").inner_text()
    screenshot(page, "recording-pulka")
    assert page.js_errors == []
