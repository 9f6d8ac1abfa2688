"""The house bots' level per practice table (issue 15, docs/bots.md): chosen when the table is
opened, stored on ``tables.bot_level``, returned by ``GET /api/tables/{id}``, and the bots are
started at it."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.table import Table
from tests.api.conftest import LoggedIn


class _Runner:
    """Stands in for the house-bot runner: records the level each table's bots start at."""

    def __init__(self) -> None:
        self.spawned: list[tuple[int, str | None]] = []

    def spawn(self, table_id: int, cookies: list[str], level: str | None = None) -> None:
        self.spawned.append((table_id, level))


async def _tables(db: AsyncSession) -> int:
    return int(await db.scalar(select(func.count()).select_from(Table)) or 0)


@pytest.mark.parametrize("path", ["/api/tables/practice", "/api/practice-tables"])
@pytest.mark.parametrize("level", ["beginner", "club", "strong"])
async def test_the_level_is_stored_returned_and_the_bots_start_at_it(
    app: FastAPI, logged_in: LoggedIn, path: str, level: str
) -> None:
    runner = app.state.bot_runner = _Runner()
    client, _ = await logged_in()
    made = await client.post(path, json={"players": 3, "bot_level": level})
    assert made.status_code == 201, made.text
    table_id = made.json().get("table_id", made.json().get("id"))
    detail = await client.get(f"/api/tables/{table_id}")
    assert detail.status_code == 200 and detail.json()["bot_level"] == level
    assert runner.spawned == [(table_id, level)]


async def test_the_default_level_is_beginner(app: FastAPI, logged_in: LoggedIn) -> None:
    runner = app.state.bot_runner = _Runner()
    client, me = await logged_in()
    made = await client.post("/api/tables/practice", json={"players": 4})
    assert made.status_code == 201, made.text
    assert made.json()["bot_level"] == "beginner"
    assert runner.spawned == [(made.json()["id"], "beginner")]
    plain = await client.post(
        "/api/tables", json={"seats": [me.id, None, None], "bot_level": "strong"}
    )
    assert plain.status_code == 201, plain.text
    assert (await client.get(f"/api/tables/{plain.json()['id']}")).json()["bot_level"] == "strong"


@pytest.mark.parametrize("path", ["/api/tables/practice", "/api/practice-tables", "/api/tables"])
async def test_a_bad_level_is_refused_and_changes_nothing(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, path: str
) -> None:
    runner = app.state.bot_runner = _Runner()
    client, me = await logged_in()
    before = await _tables(db_session)
    body = (
        {"players": 3, "bot_level": "grandmaster"}
        if "practice" in path
        else {"seats": [me.id, None, None], "bot_level": "grandmaster"}
    )
    answer = await client.post(path, json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "invalid_bot_level"
    assert await _tables(db_session) == before and runner.spawned == []


async def test_the_database_refuses_an_unknown_level(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    # The CHECK constraint of migration 0012 (the drift test proves the model matches it).
    app.state.bot_runner = _Runner()
    client, _ = await logged_in()
    made = await client.post("/api/tables/practice", json={"players": 3})
    table_id = made.json()["id"]
    with pytest.raises(IntegrityError):
        async with db_session.begin_nested():
            await db_session.execute(
                update(Table).where(Table.id == table_id).values(bot_level="grandmaster")
            )
    assert (await client.get(f"/api/tables/{table_id}")).json()["bot_level"] == "beginner"
