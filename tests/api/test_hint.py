"""``POST /api/tables/{id}/hint`` (issue 15, docs/bots.md): the strong bot's suggestion for the
seated human to move at a practice table, from his own view only."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.services.tables import create_table
from app.workers import WorkerPool
from tests.api.conftest import LoggedIn


async def _close_pool(app: FastAPI) -> None:
    pool = getattr(app.state, "hint_pool", None)
    if pool is not None:
        await pool.aclose()


async def _table(
    logged_in: LoggedIn, db: AsyncSession, clock: FrozenClock, *, practice: bool
) -> tuple[int, list[httpx.AsyncClient]]:
    """A three-seat table of three members whose first deal runs: (table, their clients)."""
    seated = [await logged_in() for _ in range(3)]
    table = await create_table(
        db,
        seat_member_ids=[m.id for _, m in seated],
        practice=practice,
        target=10,
        first_dealer=0,
        now=clock.now(),
    )
    return table.id, [c for c, _ in seated]


async def _to_move(
    table_id: int, clients: list[httpx.AsyncClient]
) -> tuple[httpx.AsyncClient, list[dict[str, object]], httpx.AsyncClient]:
    """(the client to move, his legal actions, a client who is not to move)."""
    moving, waiting, legal = None, None, []
    for client in clients:
        view = (await client.get(f"/api/tables/{table_id}/state")).json()
        if view["legal"]:
            moving, legal = client, view["legal"]
        else:
            waiting = client
    assert moving is not None and waiting is not None
    return moving, legal, waiting


async def test_a_legal_action_for_the_seat_to_move(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    table_id, clients = await _table(logged_in, db_session, clock, practice=True)
    moving, legal, _ = await _to_move(table_id, clients)
    try:
        answer = await moving.post(f"/api/tables/{table_id}/hint")
    finally:
        await _close_pool(app)
    assert answer.status_code == 200, answer.text
    assert answer.json()["action"] in legal


async def test_not_your_turn(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    table_id, clients = await _table(logged_in, db_session, clock, practice=True)
    _, _, waiting = await _to_move(table_id, clients)
    answer = await waiting.post(f"/api/tables/{table_id}/hint")
    assert answer.status_code == 409 and answer.json()["code"] == "not_your_turn"
    assert not app.state.hint_pool.started  # nothing was started


async def test_no_hints_at_a_club_table(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    table_id, clients = await _table(logged_in, db_session, clock, practice=False)
    moving, _, _ = await _to_move(table_id, clients)
    answer = await moving.post(f"/api/tables/{table_id}/hint")
    assert answer.status_code == 409 and answer.json()["code"] == "not_practice"


async def test_a_spectator_gets_no_hint(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    table_id, _ = await _table(logged_in, db_session, clock, practice=True)
    outsider, _ = await logged_in()
    answer = await outsider.post(f"/api/tables/{table_id}/hint")
    assert answer.status_code == 403 and answer.json()["code"] == "not_seated"
    missing = await outsider.post("/api/tables/999999/hint")
    assert missing.status_code == 404


async def test_a_full_pool_answers_busy(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    table_id, clients = await _table(logged_in, db_session, clock, practice=True)
    moving, _, _ = await _to_move(table_id, clients)
    pool = app.state.hint_pool = WorkerPool(max_workers=1, max_pending=2)
    pool.pending = pool.max_pending  # every slot taken by other players' hints
    try:
        answer = await moving.post(f"/api/tables/{table_id}/hint")
    finally:
        pool.pending = 0
        await _close_pool(app)
    assert answer.status_code == 503 and answer.json()["code"] == "busy"
    assert "Retry-After" in answer.headers
    assert not pool.started  # nothing was started
