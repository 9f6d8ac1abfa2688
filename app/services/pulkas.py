"""Pulkas of live tables: closing them early and reading their archive.

:func:`close_pulka` ends a table's pulka by ``agreement`` or at ``session_end`` (R-S3, R-P8):
it appends ``pulka_ended`` to the table's log (so every seat sees it), settles the pulka and
stores its ``pulka/1`` record, inside the caller's transaction, and audits it as
``pulka.closed_early`` (who asked, or the server at the session end; the reason, the deals
played and the settlement).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.table import Pulka as PulkaRow
from app.realtime import game
from app.realtime.store import append, load_state, lock_table, notify
from app.services import audit
from app.services.audit import SYSTEM, Actor
from app.services.live_table import sync_rows

CLOSE_REASONS = ("agreement", "session_end", "target")


async def close_pulka(
    db: AsyncSession, table_id: int, reason: str, now: datetime | None = None, actor: Actor = SYSTEM
) -> PulkaRow | None:
    """Close the table's pulka now (a deal in progress is abandoned); None if no such table.

    Closing a finished pulka changes nothing.
    """
    if reason not in CLOSE_REASONS:
        raise ValueError(f"reason must be one of {', '.join(CLOSE_REASONS)}")
    table = await lock_table(db, table_id)
    if table is None:
        return None
    state = await load_state(db, table, None)
    if state.status != "finished":
        state = append(db, table, state, *game.pulka_ended(state, reason))
        if now is None:
            now = await db.scalar(select(func.now()))
        assert now is not None
        await sync_rows(db, table, state, now)
        await db.flush()
        await notify(db, table_id, table.version)
        row = await pulka_of_table(db, table_id)
        await audit.record(
            db,
            actor=actor,
            action="pulka.closed_early",
            target=f"table:{table_id}",
            before={"status": "playing"},
            after={
                "status": "finished",
                "reason": reason,
                "pulka_id": row.id if row else None,
                "deals": row.deals if row else None,
                "settlement": row.settlement if row else None,
            },
        )
        return row
    return await pulka_of_table(db, table_id)


async def pulka_of_table(db: AsyncSession, table_id: int) -> PulkaRow | None:
    row: PulkaRow | None = await db.scalar(select(PulkaRow).where(PulkaRow.table_id == table_id))
    return row


def pulka_summary(row: PulkaRow) -> dict[str, Any]:
    """The public summary of a pulka (sheet, status, settlement)."""
    return {
        "id": row.id,
        "table_id": row.table_id,
        "status": row.status,
        "ended": row.ended,
        "deals": row.deals,
        "sheet": row.sheet,
        "settlement": row.settlement,
    }
