"""Luck apart from skill (issue 27, docs/luck.md): every finished club deal weighed once.

A deal is weighed from its double-dummy analysis (``analysis_cache``, computed and stored if
it was not yet) by :func:`app.rules.weigh_deal`, both in the analysis worker pool, never on
the event loop. :class:`LuckPass` is the server's background task: it weighs the newest
unweighed deals first, so a deal that has just ended is weighed within seconds, then works
back through the archive (the backfill of old deals); :func:`progress` says how far it is.
The rows (``deal_luck``) are written with ``ON CONFLICT DO NOTHING``: two servers weighing
the same deal write it once. Only live club tables are weighed (practice and real-cards
tables are not: the first do not count in the season, the second have no dealt cards).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models.deal_analyses import DealLuck
from app.db.models.table import TableEvent
from app.rules import LUCK_VERSION
from app.services import analysis_cache, archive, standings
from app.services.luck_weighing import weigh_stored
from app.workers import PoolBusy, WorkerPool

log = logging.getLogger(__name__)

PASS_SIZE = 8
"""Deals looked up per round of the background pass."""
IDLE_SECONDS = 5.0
"""The pause of the background pass when every deal is weighed (a new deal waits this long)."""
BUSY_SECONDS = 3.0
"""The pause when the analysis pool is full (members' own analyses come first)."""
SKIPPED_SEAT = -1
"""The seat of the one row that marks a deal that cannot be weighed."""
FIGURES = ("worth", "bidding", "defence", "play")

CLUB_PULKAS = """
    FROM pulkas p
    JOIN tables t ON t.id = p.table_id AND NOT t.practice AND t.mode = 'live'
"""
WAITING_TABLES = text(
    "SELECT p.table_id, p.id" + CLUB_PULKAS + "WHERE p.deals > (SELECT count(*) FROM deal_luck l "
    "WHERE l.table_id = p.table_id AND l.head) ORDER BY p.table_id DESC LIMIT :limit"
)
"""The newest club tables with a finished deal not weighed yet: a pulka's ``deals`` (its
scored deals, one per ``deal_ended``) against its weighed deals (one head row each), so an
archive whose deals are all weighed costs one probe of a small index per pulka."""
WAITING_DEALS = text(
    "SELECT e.seq, (e.payload->>'deal_no')::int AS deal_no, e.created_at FROM table_events e "
    "WHERE e.table_id = :table_id AND e.kind = 'deal_ended' AND NOT EXISTS (SELECT 1 "
    "FROM deal_luck l WHERE l.table_id = e.table_id AND l.deal_no = (e.payload->>'deal_no')::int"
    ") ORDER BY e.seq DESC"
)
TOTAL = text("SELECT coalesce(sum(p.deals), 0)" + CLUB_PULKAS)
PROGRESS_SECONDS = 10.0
"""How long the member's page may show a progress figure it read before (a club-wide count)."""


@dataclass(frozen=True, slots=True)
class EndedDeal:
    """A finished club deal waiting to be weighed."""

    table_id: int
    deal_no: int
    pulka_id: int
    seq: int
    ended_at: datetime


async def pending(db: AsyncSession, limit: int = PASS_SIZE) -> list[EndedDeal]:
    """Up to ``limit`` finished club deals not weighed yet, the newest tables' first and each
    table's newest deal first."""
    out: list[EndedDeal] = []
    for table_id, pulka_id in (await db.execute(WAITING_TABLES, {"limit": limit})).all():
        for seq, deal_no, ended_at in await db.execute(WAITING_DEALS, {"table_id": table_id}):
            out.append(EndedDeal(table_id, deal_no, pulka_id, seq, ended_at))
            if len(out) == limit:
                return out
    return out


async def progress(db: AsyncSession) -> dict[str, int]:
    """How far the weighing is: the club's finished deals (of live club tables) and how many
    are weighed."""
    total = int(await db.scalar(TOTAL) or 0)
    done = await db.scalar(select(func.count()).select_from(DealLuck).where(DealLuck.head))
    return {"deals": total, "weighed": min(total, int(done or 0))}


async def _deal_start(db: AsyncSession, deal: EndedDeal) -> Mapping[str, Any] | None:
    """The ``deal_started`` payload of ``deal`` (the last one before its end)."""
    return await db.scalar(
        select(TableEvent.payload)
        .where(
            TableEvent.table_id == deal.table_id,
            TableEvent.kind == "deal_started",
            TableEvent.seq < deal.seq,
        )
        .order_by(TableEvent.seq.desc())
        .limit(1)
    )


def _rows(
    deal: EndedDeal,
    figures: Mapping[int, tuple[str, str, str, str, bool]] | None,
    member_ids: Sequence[int | None],
) -> list[dict[str, Any]]:
    """The ``deal_luck`` rows of a weighed deal (one skipped row when it was refused)."""
    night = standings.night_of(deal.ended_at, deal.ended_at)
    base = {
        "table_id": deal.table_id,
        "deal_no": deal.deal_no,
        "pulka_id": deal.pulka_id,
        "ended_at": deal.ended_at,
        "night": night,
        "version": LUCK_VERSION,
    }
    if not figures:
        zero = dict.fromkeys(FIGURES, Decimal(0))
        skipped = {"seat": SKIPPED_SEAT, "member_id": None, "complete": False, "head": True}
        return [{**base, **zero, **skipped}]
    return [
        {
            **base,
            **dict(zip(FIGURES, (Decimal(v) for v in values[:4]), strict=True)),
            "seat": seat,
            "member_id": member_ids[seat] if seat < len(member_ids) else None,
            "complete": values[4],
            "head": n == 0,
        }
        for n, (seat, values) in enumerate(sorted(figures.items()))
    ]


async def weigh(db: AsyncSession, pool: WorkerPool, deal: EndedDeal) -> int:
    """Weigh one finished deal and store its rows; the number of rows written. Raises
    :class:`analysis_cache.AnalysisBusy` when the pool is full (nothing is written)."""
    figures: dict[int, tuple[str, str, str, str, bool]] | None = None
    member_ids: Sequence[int | None] = ()
    try:
        replay = await archive.deal_replay(db, deal.pulka_id, deal.deal_no)
    except archive.ArchiveError as exc:
        log.warning(
            "a deal cannot be weighed",
            extra={"table_id": deal.table_id, "deal_no": deal.deal_no, "reason": str(exc)},
        )
    else:
        analysis = await analysis_cache.deal_analysis(db, pool, deal.table_id, deal.deal_no, replay)
        start = await _deal_start(db, deal)
        if start is not None:
            member_ids = list(start.get("member_ids") or ())
            try:
                figures = await pool.run(weigh_stored, start["pulka"], replay["outcome"], analysis)
            except PoolBusy as exc:
                raise analysis_cache.AnalysisBusy(str(exc)) from None
    rows = _rows(deal, figures, member_ids)
    result = await db.execute(
        insert(DealLuck).values(rows).on_conflict_do_nothing().returning(DealLuck.seat)
    )
    written = len(result.all())
    await db.commit()
    return written


_last_progress: tuple[float, dict[str, int]] | None = None


async def recent_progress(db: AsyncSession) -> dict[str, int]:
    """:func:`progress` as read at most :data:`PROGRESS_SECONDS` ago in this process: the
    member's page shows it beside his own figures, which stay exact."""
    global _last_progress
    now = time.monotonic()
    if _last_progress is None or now - _last_progress[0] > PROGRESS_SECONDS:
        _last_progress = (now, await progress(db))
    return dict(_last_progress[1])


class LuckPass:
    """The background pass of one server: weighs finished club deals, newest first."""

    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], pool: WorkerPool) -> None:
        self.sessionmaker = sessionmaker
        self.pool = pool
        self._task: asyncio.Task[None] | None = None

    async def run_once(self, limit: int = PASS_SIZE) -> int:
        """Weigh up to ``limit`` of the newest unweighed deals; how many were weighed.
        Raises :class:`analysis_cache.AnalysisBusy` when the pool is full."""
        async with self.sessionmaker() as db:
            deals = await pending(db, limit)
        done = 0
        for deal in deals:
            async with self.sessionmaker() as db:
                await weigh(db, self.pool, deal)
            done += 1
        return done

    async def _loop(self) -> None:
        while True:
            try:
                done = await self.run_once()
            except analysis_cache.AnalysisBusy:
                await asyncio.sleep(BUSY_SECONDS)
                continue
            except Exception:  # a database hiccup must not end the pass
                log.exception("the luck pass failed; it goes on")
                done = 0
            if not done:
                await asyncio.sleep(IDLE_SECONDS)

    def start(self) -> None:
        """Start the background task (once)."""
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="luck-pass")

    async def stop(self) -> None:
        """Stop the background task and wait for it."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


PULKAS_SHOWN = 200
"""The newest pulkas listed with their figures."""


@dataclass(frozen=True, slots=True)
class _Totals:
    """A member's sums over the nights (added up exactly from the nights' sums)."""

    deals: int
    incomplete: int
    worth: Decimal
    bidding: Decimal
    defence: Decimal
    play: Decimal


def _sums() -> list[Any]:
    return [func.coalesce(func.sum(getattr(DealLuck, f)), 0).label(f) for f in FIGURES]


def _figures(row: Any) -> dict[str, str]:
    values = {f: Decimal(getattr(row, f)) for f in FIGURES}
    lost = values["bidding"] + values["defence"] + values["play"]
    return {**{f: f"{v:.2f}" for f, v in values.items()}, "lost": f"{lost:.2f}"}


async def member_luck(
    db: AsyncSession, member_id: int, first: date | None = None, last: date | None = None
) -> dict[str, Any]:
    """A member's figures over the nights ``first``..``last`` (both ``None``: all-time): the
    totals, one line per pulka (newest first) and one point per night for the plot."""
    where = [DealLuck.member_id == member_id]
    if first is not None:
        where.append(DealLuck.night >= first)
    if last is not None:
        where.append(DealLuck.night <= last)
    incomplete = func.count().filter(DealLuck.complete.is_(False)).label("incomplete")
    pulkas = (
        await db.execute(
            select(
                DealLuck.pulka_id,
                DealLuck.table_id,
                func.min(DealLuck.night).label("night"),
                func.count().label("deals"),
                *_sums(),
            )
            .where(*where)
            .group_by(DealLuck.pulka_id, DealLuck.table_id)
            .order_by(func.max(DealLuck.ended_at).desc())
            .limit(PULKAS_SHOWN)
        )
    ).all()
    nights = (
        await db.execute(
            select(DealLuck.night, func.count().label("deals"), incomplete, *_sums())
            .where(*where)
            .group_by(DealLuck.night)
            .order_by(DealLuck.night)
        )
    ).all()
    total = _Totals(
        deals=sum(n.deals for n in nights),
        incomplete=sum(n.incomplete for n in nights),
        **{f: sum((Decimal(getattr(n, f)) for n in nights), Decimal(0)) for f in FIGURES},
    )
    return {
        "totals": {"deals": total.deals, "incomplete": total.incomplete, **_figures(total)},
        "pulkas": [
            {
                "pulka_id": r.pulka_id,
                "table_id": r.table_id,
                "night": r.night.isoformat(),
                "deals": r.deals,
                **_figures(r),
            }
            for r in pulkas
        ],
        "nights": [{"night": r.night.isoformat(), "deals": r.deals, **_figures(r)} for r in nights],
    }


__all__ = [
    "EndedDeal",
    "LuckPass",
    "member_luck",
    "pending",
    "progress",
    "weigh",
    "weigh_stored",
]
