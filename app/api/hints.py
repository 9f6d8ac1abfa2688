"""``POST /api/tables/{id}/hint``: the strong bot's suggestion for a human at a practice table.

The suggestion is computed from exactly the message the socket sends that seat
(:func:`app.realtime.hub.snapshot_message`), so it can never use a hidden card. The search is
CPU-bound (up to :data:`HINT_BUDGET` seconds), so it runs in a small process pool of its own,
off the event loop; a full pool answers 503 ``busy`` at once and nothing is started.
The call lives in the API layer: services never import the bots (import-linter contract).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from fastapi import APIRouter, Request, status

from app.api.app_state import app_state
from app.api.deps import CurrentMember, SessionDep
from app.api.error_answers import CodedHTTPException
from app.api.schemas import ERRORS, ErrorOut, IdPath
from app.bots.levels import hint
from app.db.models.table import Table
from app.realtime.store import rebuild
from app.realtime.table_messages import snapshot_message
from app.services.tables import seat_of_member
from app.workers import PoolBusy, WorkerPool

HINT_WORKERS = 1
"""Worker processes computing hints (the machine's CPU belongs to the tables first)."""
HINT_PENDING = 2
"""At most this many hints queued or running; one more is refused with 503 ``busy``."""
HINT_BUDGET = 0.5
"""Seconds the strong bot's search may think about one hint."""
BUSY_RETRY_AFTER = 2
"""Seconds a 503 ``busy`` hint answer asks the client to wait."""


def make_pool() -> WorkerPool:
    """The pool hints are searched in (made with the app; its worker starts with the first
    hint)."""
    return WorkerPool(max_workers=HINT_WORKERS, max_pending=HINT_PENDING)


router = APIRouter(prefix="/api/tables", tags=["tables"], responses=ERRORS)


def _hint_pool(request: Request) -> WorkerPool:
    """The app's hint pool (made with the app)."""
    return app_state(request.app).hint_pool


@router.post(
    "/{table_id}/hint",
    responses={
        503: {"model": ErrorOut, "description": "busy computing other hints; see Retry-After"}
    },
)
async def table_hint(
    table_id: IdPath, member: CurrentMember, db: SessionDep, request: Request
) -> dict[str, Any]:
    """The strong bot's suggested action for the caller's seat: ``{"action": {...}}``, one of
    the legal actions the socket offers him. Only at a practice table (409 ``not_practice``),
    for a seated player (403 ``not_seated``) whose move it is (409 ``not_your_turn``)."""
    table = await db.get(Table, table_id)
    if table is None:
        raise CodedHTTPException(
            status.HTTP_404_NOT_FOUND, f"there is no table {table_id}", "not_found"
        )
    if not table.practice:
        raise CodedHTTPException(
            status.HTTP_409_CONFLICT, "hints are given at practice tables only", "not_practice"
        )
    seat = await seat_of_member(db, table_id, member.id)
    if seat is None:
        raise CodedHTTPException(
            status.HTTP_403_FORBIDDEN, "only a player seated at the table gets hints", "not_seated"
        )
    current = await rebuild(db, table_id)
    message = snapshot_message(current, seat) if current is not None else None
    await db.rollback()  # end the read transaction before the computation
    if message is None or not message.get("legal"):
        raise CodedHTTPException(status.HTTP_409_CONFLICT, "it is not your move", "not_your_turn")
    try:
        # A partial of the bots' function: the worker imports app.bots.levels only.
        action = await _hint_pool(request).run(partial(hint, budget=HINT_BUDGET), message)
    except PoolBusy:
        raise CodedHTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            "the server is busy with other hints; nothing was started — try again in a moment",
            "busy",
            {"Retry-After": str(BUSY_RETRY_AFTER)},
        ) from None
    if action is None:
        raise CodedHTTPException(status.HTTP_409_CONFLICT, "it is not your move", "not_your_turn")
    return {"action": action}
