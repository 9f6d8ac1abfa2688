"""Deal analyses (issue 15): computed once per finished deal in a worker pool, then cached.

The caller (the archive API) has already replayed the finished deal (so a deal that is still
running was refused with 409, R-W8: nothing of a running deal is ever analysed or shown); this
module turns that replay into :class:`app.rules.search.deal_analysis.DealFacts`, looks for the
cached result in ``deal_analyses`` and otherwise runs
:func:`app.rules.search.deal_analysis.analyse_deal` in the :class:`~app.workers.WorkerPool`
(seconds of CPU, never on the event loop).

* Concurrent requests for the same deal in this process share one computation (an in-flight
  map), and the row is written with ``INSERT ... ON CONFLICT DO NOTHING``: the primary key
  ``(table_id, deal_no)`` keeps at most one analysis per deal even across processes.
* When the pool is full the request is refused at once with :class:`AnalysisBusy` (503
  ``busy``): nothing was started and nothing changed; the client tries again later.

Self-contained on purpose: it imports ``app.db``, ``app.rules`` and ``app.workers`` only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.deal_analyses import DealAnalysis
from app.rules import DealFacts, analyse_deal, cards_mask, parse_card
from app.workers import PoolBusy, WorkerPool

ANALYSIS_WORKERS = 1
"""One process: an analysis takes seconds of CPU and claims (another pool) come first."""
ANALYSIS_PENDING = 2
"""At most this many analyses queued or running; one more is refused with ``busy``."""


class AnalysisBusy(Exception):
    """The analysis pool is full: nothing was started; try again in a moment."""


_in_flight: dict[tuple[int, int], asyncio.Future[dict[str, Any]]] = {}


def make_pool() -> WorkerPool:
    """The pool analyses run in (started lazily on the first job)."""
    return WorkerPool(max_workers=ANALYSIS_WORKERS, max_pending=ANALYSIS_PENDING)


def facts_from_replay(replay: Mapping[str, Any]) -> DealFacts:
    """A finished deal's replay (``app.services.archive.deal_replay``) as :class:`DealFacts`."""
    active = tuple(replay["active"])
    dealt = {
        int(seat): cards_mask(parse_card(c) for c in cards)
        for seat, cards in replay["dealt"].items()
    }
    declarer = replay.get("declarer")
    return DealFacts(
        active=(active[0], active[1], active[2]),
        dealt=dealt,
        talon=tuple(parse_card(c) for c in replay.get("talon") or ()),
        kind=str(replay.get("kind") or ""),
        declarer=int(declarer) if declarer is not None else None,
        contract=replay.get("contract"),
        discard=cards_mask(parse_card(c) for c in replay.get("discard") or ()),
        tricks=tuple(
            tuple((int(c["seat"]), parse_card(c["card"])) for c in t["cards"])
            for t in replay.get("tricks") or ()
        ),
        winners=tuple(int(t["winner"]) for t in replay.get("tricks") or ()),
    )


async def cached(db: AsyncSession, table_id: int, deal_no: int) -> dict[str, Any] | None:
    """The stored analysis of a deal, if it was computed."""
    return await db.scalar(
        select(DealAnalysis.result).where(
            DealAnalysis.table_id == table_id, DealAnalysis.deal_no == deal_no
        )
    )


async def _compute(
    db: AsyncSession, pool: WorkerPool, table_id: int, deal_no: int, facts: DealFacts
) -> dict[str, Any]:
    try:
        result = await pool.run(analyse_deal, facts)
    except PoolBusy as exc:
        raise AnalysisBusy(str(exc)) from None
    await db.execute(
        insert(DealAnalysis)
        .values(table_id=table_id, deal_no=deal_no, result=result)
        .on_conflict_do_nothing(index_elements=["table_id", "deal_no"])
    )
    await db.commit()
    stored = await cached(db, table_id, deal_no)
    return stored if stored is not None else result


async def deal_analysis(
    db: AsyncSession, pool: WorkerPool, table_id: int, deal_no: int, replay: Mapping[str, Any]
) -> dict[str, Any]:
    """The analysis of finished deal ``deal_no`` of ``table_id`` (whose ``replay`` the caller
    read): from the cache, else computed in ``pool`` and stored. Raises :class:`AnalysisBusy`."""
    found = await cached(db, table_id, deal_no)
    if found is not None:
        return found
    key = (table_id, deal_no)
    running = _in_flight.get(key)
    if running is not None:
        return await asyncio.shield(running)
    future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    _in_flight[key] = future
    try:
        result = await _compute(db, pool, table_id, deal_no, facts_from_replay(replay))
    except BaseException as exc:
        if isinstance(exc, asyncio.CancelledError):
            future.cancel()
        else:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
        raise
    else:
        future.set_result(result)
        return result
    finally:
        _in_flight.pop(key, None)


__all__ = ["AnalysisBusy", "deal_analysis", "facts_from_replay", "make_pool"]
