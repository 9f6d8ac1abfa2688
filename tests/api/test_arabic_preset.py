"""Preset ``arabic`` chosen per table (A-1, docs/rules-arabic.md): practice tables from both
endpoints store it, ``GET /api/tables/{id}`` returns it, and an unknown preset is refused."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from tests.api.conftest import LoggedIn


class _Runner:
    """Stands in for the house-bot runner (as in test_bot_level.py): no bots are started."""

    def spawn(self, table_id: int, cookies: list[str], level: str | None = None) -> None:
        return None


@pytest.mark.parametrize("path", ["/api/tables/practice", "/api/practice-tables"])
@pytest.mark.parametrize("players", [3, 4])
async def test_a1_a_practice_table_is_opened_with_preset_arabic(
    app: FastAPI, logged_in: LoggedIn, path: str, players: int
) -> None:
    app.state.bot_runner = _Runner()
    client, _ = await logged_in()
    made = await client.post(path, json={"players": players, "preset": "arabic"})
    assert made.status_code == 201, made.text
    table_id = made.json().get("table_id", made.json().get("id"))
    detail = await client.get(f"/api/tables/{table_id}")
    assert detail.status_code == 200 and detail.json()["preset"] == "arabic"


async def test_a1_an_unknown_preset_is_refused(app: FastAPI, logged_in: LoggedIn) -> None:
    app.state.bot_runner = _Runner()
    client, _ = await logged_in()
    made = await client.post("/api/practice-tables", json={"players": 3, "preset": "arabik"})
    assert made.status_code == 422, made.text
