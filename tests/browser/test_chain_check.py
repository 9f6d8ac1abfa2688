"""The archive page re-checks the club's chain of deals in the browser (issue 23): whole after
real play; broken — at the right position, in Russian — once a stored deal is edited or dropped
directly in the database."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from app.db.engine import make_engine, make_sessionmaker
from app.security.passwords import hash_password
from tests.browser.conftest import screenshot
from tests.browser.test_ui import login, new_page
from tests.support.chain_play import new_members, new_table, play_deals
from tests.support.server import ServerProcess

pytestmark = pytest.mark.browser

PASSWORD = "a chain password"


async def _seed(url: str) -> int:
    """A table with two deals played out (and the third dealt); returns its id."""
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        ids = await new_members(sessions, "chain", password_hash=hash_password(PASSWORD))
        table_id = await new_table(sessions, ids)
        await play_deals(sessions, table_id, ids, 2)
        return table_id
    finally:
        await engine.dispose()


def _deals(n: int) -> str:
    """«сдача», «сдачи» or «сдач» after the number ``n`` (Russian plural rules)."""
    if n % 10 == 1 and n % 100 != 11:
        return "сдача"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "сдачи"
    return "сдач"


def _sql(url: str, statement: str) -> list[tuple[Any, ...]]:
    libpq = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as conn:
        cursor = conn.execute(statement)
        return cursor.fetchall() if cursor.description else []


def _check(page: Any) -> str:
    """Press the check and wait for its verdict (the result's ``data-state`` is ``busy`` from
    the click until the whole file is checked)."""
    page.click("[data-testid=chain-check]")
    done = page.wait_for_selector("[data-testid=chain-result][data-state=done]")
    return str(done.inner_text())


def test_the_archive_checks_the_chain_and_sees_tampering(
    server: ServerProcess, browser: Any
) -> None:
    url = server.env["DATABASE_URL"]
    with ThreadPoolExecutor(1) as pool:
        table_id = pool.submit(asyncio.run, _seed(url)).result()
    ((position, seq),) = _sql(
        url,
        f"SELECT position, seq FROM deal_chain WHERE table_id = "
        f"{table_id} ORDER BY position LIMIT 1",
    )
    total = _sql(url, "SELECT count(*) FROM deal_chain")[0][0]
    page = new_page(browser)
    login(page, server.base_url, "chain0", PASSWORD)
    page.wait_for_selector("#session-title")
    page.goto(f"{server.base_url}/#/history")
    page.wait_for_selector("[data-testid=chain-check]")
    assert page.locator("[data-testid=chain-check]").inner_text() == "Проверить цепочку сдач"

    assert _check(page) == f"Цепочка цела: {total} {_deals(total)}"
    screenshot(page, "chain-whole")

    # Re-deal the first (ended) deal behind everyone's back: swap two cards of its deck.
    where = f"WHERE table_id = {table_id} AND seq = {seq}"
    original = _sql(url, f"SELECT payload -> 'deck' FROM table_events {where}")[0][0]
    _sql(
        url,
        f"""UPDATE table_events SET payload = jsonb_set(jsonb_set(payload, '{{deck,0}}',
        payload -> 'deck' -> 1), '{{deck,1}}', payload -> 'deck' -> 0) {where}""",
    )
    edited = _check(page)
    assert edited.startswith(
        f"Цепочка нарушена на позиции {position} (стол {table_id}, запись {seq})"
    )
    assert "раскрытая колода не совпадает" in edited
    screenshot(page, "chain-edited")

    _sql(
        url,
        f"UPDATE table_events SET payload = jsonb_set(payload, '{{deck}}', "
        f"'{json.dumps(original)}'::jsonb) {where}",
    )
    assert _check(page) == f"Цепочка цела: {total} {_deals(total)}"

    # Drop the deal from the log: its chain entry stays and gives it away.
    _sql(url, f"DELETE FROM table_events {where}")
    dropped = _check(page)
    assert dropped.startswith(f"Цепочка нарушена на позиции {position} ")
    assert "сдача удалена из архива" in dropped
    assert page.js_errors == []
