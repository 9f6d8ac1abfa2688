"""Every finished pulka re-read by this code must give what was stored when it finished.

A finished pulka stores its ``pulka/1`` record, its ``prefclub-pulka/1`` state, its sheet and
its settlement. :func:`pulka_problem` re-scores the record and replays the state with the
current rules and names the pulka when either disagrees with the stored sheet or settlement
(or is in a format this code does not read): an upgrade never re-reads an old pulka
differently without saying so. ``prefclub migrate`` runs :func:`finished_pulka_problems` after
the migrations (docs/formats.md); the scoring runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.table import Pulka as PulkaRow
from app.rules import Pulka, RulesError, score_document


def pulka_problem(
    pulka_id: int,
    record: Mapping[str, Any] | None,
    state: Mapping[str, Any] | None,
    sheet: Any,
    settlement: Any,
) -> str | None:
    """What is wrong with re-reading finished pulka ``pulka_id``, or None when it re-reads the
    same (its record re-scores, and its state replays, to the stored sheet and settlement)."""
    try:
        scored = score_document(record)
        replayed = Pulka.from_json(state or {})
    except RulesError as exc:
        return f"pulka {pulka_id}: {getattr(exc, 'message', str(exc))}"
    if scored["sheet"] != sheet:
        return f"pulka {pulka_id}: its record re-scores to another sheet than the stored one"
    if scored["settlement"] != settlement:
        return f"pulka {pulka_id}: its record settles otherwise than the stored settlement"
    if replayed.sheet.to_json() != sheet:
        return f"pulka {pulka_id}: its stored state replays to another sheet than the stored one"
    return None


async def finished_pulka_problems(db: AsyncSession) -> list[str]:
    """:func:`pulka_problem` of every finished pulka, oldest first (only the problems)."""
    rows = (
        await db.execute(
            select(
                PulkaRow.id, PulkaRow.record, PulkaRow.state, PulkaRow.sheet, PulkaRow.settlement
            )
            .where(PulkaRow.status == "finished")
            .order_by(PulkaRow.id)
        )
    ).all()

    def check() -> list[str]:
        found = (pulka_problem(r.id, r.record, r.state, r.sheet, r.settlement) for r in rows)
        return [p for p in found if p is not None]

    return await asyncio.to_thread(check)
