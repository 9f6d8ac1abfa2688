"""The steps every change of a live table shares, inside its caller's transaction.

A use case that changes a live table (a player's command or an expired move timer in
:mod:`app.services.table_commands`, a new table in :mod:`app.services.tables`, a seat change in
:mod:`app.services.seat_moves`, an early end in :mod:`app.services.pulkas`) owns the transaction:
it locks the table row, reads the state from the log and appends its event(s). Then it calls
:func:`advance` (score a finished deal, end the pulka or start the next deal) and
:func:`sync_rows` (the derived pulka row, the table status, the move deadline) from here.

This module imports no other use case except the ones below it: the R-S2 deal gate
(:mod:`app.services.session_clock`) and the fund's R-F1 debts (:mod:`app.services.fund`). What
must happen *above* it when a deal ends (an agreed seat change, R-T4/R-T5) is handed in by the
caller as an :class:`AfterDeal` hook, which the composition root (``app/main.py``) wires.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table
from app.realtime import engine, game
from app.realtime.game import TableState
from app.realtime.store import append, load_state, stamp_deadline
from app.rules import export_document
from app.services import fund, pulka_stats, rating
from app.services.move_guard import Next, gates_deals, what_follows
from app.services.session_clock import deal_start_refusal, record_deal_started


class AfterDeal(Protocol):
    """Called with the table row locked right after a deal's ``deal_ended`` was appended (and
    before the next deal starts); True if it appended events of its own (the caller then reads
    the state again from the log). The seat-change service's ``apply_waiting`` is one."""

    async def __call__(self, db: AsyncSession, table_id: int, now: datetime) -> bool: ...


async def deal_refusal(db: AsyncSession, table: Table, now: datetime) -> str | None:
    """R-S2: may a new deal start at this table now? (practice tables always may)."""
    if not gates_deals(table):
        return None
    return await deal_start_refusal(db, table.id, now)


async def record_deal_start(db: AsyncSession, table: Table, dealer: int, now: datetime) -> None:
    """Count a club table's new deal for the R-S2 extension round (practice tables: nothing)."""
    if not gates_deals(table):
        return
    await record_deal_started(db, table.id, dealer, now)


async def advance(
    db: AsyncSession,
    table: Table,
    state: TableState,
    now: datetime,
    allow_new_deal: bool = True,
    *,
    after_deal: AfterDeal | None = None,
) -> TableState:
    """After an action: score a finished deal, then end the pulka or start the next deal.

    ``after_deal`` runs right after a deal's ``deal_ended``, before the next deal starts: the
    command executor passes the seat-change hook, so a change everyone agreed to while the deal
    was played (R-T4/R-T5, ``agreed``) is applied then (a join starts that deal itself: the
    newcomer deals it)."""
    ended = game.deal_ended(state)
    if ended is not None:
        state = append(db, table, state, *ended)
        if (
            after_deal is not None
            and allow_new_deal
            and what_follows(state) is Next.NEW_DEAL
            and await after_deal(db, table.id, now)
        ):
            state = await load_state(db, table, None)
    follows = what_follows(state)
    if follows in (Next.STOPPED, Next.PLAY_ON) or not allow_new_deal:
        return state
    if follows is Next.PULKA_ENDS:
        return append(db, table, state, *game.pulka_ended(state, "target"))
    reason = await deal_refusal(db, table, now)
    if reason is not None:
        return append(db, table, state, "deal_refused", {"reason": reason})
    kind, payload = game.deal_started(state)
    await record_deal_start(db, table, payload["dealer"], now)
    return append(db, table, state, kind, payload)


async def sync_rows(
    db: AsyncSession,
    table: Table,
    state: TableState,
    now: datetime,
    before: TableState | None = None,
) -> TableState:
    """Keep the derived rows (pulka sheet, table status, move deadline) in step with the log;
    the state to carry on with (the same, or with the move deadline it was given).

    The pulka row is rewritten only when the pulka changed since ``before``. A deadline set
    here is also written into the last event this unit of work appended (``deadline_at``,
    :func:`app.realtime.store.stamp_deadline`), so every process, snapshot and replay shows
    the same countdown (docs/protocol.md).
    When the pulka finishes, its archive rows are tallied in the same transaction
    (:func:`app.services.pulka_stats.record`, which also adds them to the standings) and the
    pulka is rated (:func:`app.services.rating.rate_pulka`).
    """
    state = _sync_deadline(db, table, state, now)
    if before is not None and before.pulka is state.pulka and before.status == state.status:
        return state
    values: dict[str, Any] = {
        "state": state.pulka.to_json(),
        "sheet": state.pulka.sheet.to_json(),
        "deals": state.pulka.deal_index,
    }
    if state.status == "finished":
        table.status = "finished"
        table.finished_at = table.finished_at or now
        values.update(
            status="finished",
            ended=state.pulka.ended,
            settlement=state.pulka.settle().to_json(),
            finished_at=now,
            record=export_document(state.pulka),
        )
    pulka_id = await db.scalar(
        update(PulkaRow)
        .where(PulkaRow.table_id == table.id)
        .values(**values)
        .returning(PulkaRow.id)
    )
    if state.status == "finished" and pulka_id is not None:
        await pulka_stats.record(
            db,
            pulka_id=pulka_id,
            table_id=table.id,
            practice=table.practice,
            finished_at=now,
            started_at=table.created_at,
            settlement=values["settlement"],
            pulka=state.pulka,
        )
        await rating.rate_pulka(db, pulka_id)
    if state.status == "finished":  # R-F1: a settled club pulka's losers owe the fund
        await fund.record_table_debts(db, table.id, now)
    return state


def _sync_deadline(db: AsyncSession, table: Table, state: TableState, now: datetime) -> TableState:
    mover = engine.to_move(state.deal) if state.deal is not None else None
    if table.move_timer_seconds and state.status == "playing" and mover is not None:
        table.deadline_at = now + timedelta(seconds=table.move_timer_seconds)
        table.deadline_seq = table.version
    else:
        table.deadline_at = None
        table.deadline_seq = None
    stamp = iso_utc(table.deadline_at)
    if stamp == state.deadline_at:
        return state
    return stamp_deadline(db, state, stamp)


def iso_utc(moment: datetime | None) -> str | None:
    """``moment`` as an ISO 8601 text in UTC (None stays None)."""
    return moment.astimezone(UTC).isoformat() if moment is not None else None
