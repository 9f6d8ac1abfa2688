"""Group commit: units of work that arrive together share one transaction and one fsync.

A live table's command is a short unit of work (lock the table row, check, write, ``NOTIFY``)
whose cost on this machine is dominated by what surrounds it: taking a pooled connection (and
its pre-ping), ``BEGIN``, ``COMMIT`` and the commit's WAL flush. :class:`GroupCommit` runs the
units queued in the same turn of the event loop — and those that queue up while the previous
batch commits — one after another on one connection, in one transaction, and resolves each
unit's caller only after that transaction's ``COMMIT`` returned: "acknowledged means
committed" holds exactly as with a transaction per unit.

Units are ordered by their key (the table id) within a batch, so two batches in flight (two
lanes, or two processes) take their row locks in the same order and cannot deadlock on them.

Isolation between the units of a batch: a unit that raises one of the ``harmless`` exceptions
(a refused command) *before it wrote anything* leaves the batch alone — it only read and locked.
Any other failure (a database error, a refusal after a write) rolls the whole batch back and
every unit of it is run again alone, in a transaction of its own, as if there were no group
commit; so one table's failing command never fails or loses another's. If the ``COMMIT``
itself fails, every unit is likewise run again alone (the units are idempotent by design: a
command's id is answered as a duplicate if it was committed after all).

Writes decided in advance (:meth:`GroupCommit.write`: a move whose whole effect is known before
the table is locked) skip the shared transaction: every such write of a batch goes to the
``direct`` writer at once, which writes them all in one statement on a connection in autocommit
mode — one round trip and one WAL flush for the lot, instead of a statement each inside
``BEGIN`` ... ``COMMIT``. A write that statement did not make (its table moved on, say), or a
statement that failed, answers False: its caller then takes the ordinary path, which explains
a refusal and finds a twin that did commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import psycopg
from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[AsyncSession], Awaitable[Any]]
DirectWriter = Callable[["psycopg.AsyncConnection[Any]", Sequence[Any]], Awaitable[set[int]]]
"""Writes items decided in advance (at most one per key) in one statement on an autocommit
connection; returns the keys of the items it wrote."""

MAX_BATCH = 64
"""Units per transaction at most (a longer queue is split over consecutive batches)."""
LANES = 1
"""Batches in flight at once per process (each on its own connection)."""
_WRITES = "group_commit_writes"
"""Key in a connection's ``info``: statements other than ``SELECT`` since the unit began."""


@dataclasses.dataclass(slots=True)
class _Unit:
    key: int
    work: Work | None
    future: asyncio.Future[Any]
    item: Any = None
    """For :meth:`GroupCommit.write`: the item handed to the direct writer (``work`` None)."""


def count_write(info: dict[Any, Any]) -> None:
    """Count a write made on a grouped unit's connection outside SQLAlchemy (a statement sent
    straight to the driver, which the engine hook below does not see)."""
    if _WRITES in info:
        info[_WRITES] += 1


def _count_write(
    conn: Connection, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    """Engine hook: count the statements of a grouped unit that may have written — any but a
    ``SELECT``. (``store.MovesWriter.write_one`` goes to the driver and counts itself, with
    :func:`count_write`, only when it wrote.)"""
    info = conn.info
    if _WRITES not in info or statement.lstrip()[:6].upper() == "SELECT":
        return
    info[_WRITES] += 1


class GroupCommit:
    """A per-process committer over ``sessionmaker``'s engine (see the module docstring)."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        *,
        harmless: tuple[type[BaseException], ...] = (),
        max_batch: int = MAX_BATCH,
        lanes: int = LANES,
        direct: DirectWriter | None = None,
        direct_setup: str | None = None,
    ) -> None:
        bind = sessionmaker.kw.get("bind")
        if not isinstance(bind, AsyncEngine):
            raise TypeError("group commit needs a sessionmaker bound to an AsyncEngine")
        self.sessionmaker = sessionmaker
        self.engine = bind
        self.harmless = harmless
        self.max_batch = max_batch
        self.lanes = lanes
        self._queue: list[_Unit] = []
        self._running = 0
        self._pooled = 0
        """Pool connections the lanes checked out and have not given back: held by a running
        lane or kept idle for the next batch (a lane that has not yet checked one out holds
        none)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._idle: list[AsyncConnection] = []
        self.batches = 0
        """Transactions committed (for tests and benchmarks: units / batches = group size)."""
        self.units = 0
        self.fallbacks = 0
        """Batches rolled back and re-run unit by unit."""
        self.direct = direct
        self.direct_setup = direct_setup
        """A statement run once on the direct writer's connection when it is opened."""
        self.direct_statements = 0
        """Statements of the direct writer that committed (writes / statements = group size)."""
        self.direct_writes = 0
        self._direct_conn: AsyncConnection | None = None
        if not event.contains(self.engine.sync_engine, "after_cursor_execute", _count_write):
            event.listen(self.engine.sync_engine, "after_cursor_execute", _count_write)

    @property
    def queued(self) -> int:
        """Units waiting for a batch (``/metrics``)."""
        return len(self._queue)

    @property
    def connections(self) -> int:
        """Pool connections the committer holds now: the lanes' (in a batch or kept for the
        next) and the direct writer's (``/metrics``: part of the pool's in-use count)."""
        return self._pooled + (self._direct_conn is not None)

    async def run(self, key: int, work: Work) -> Any:
        """Run ``work(db)`` in a shared transaction; its result (or exception) once the
        transaction committed. ``db`` must not be committed or rolled back by ``work``."""
        return await self._enqueue(_Unit(key, work, self._future()))

    async def write(self, key: int, item: Any) -> bool:
        """Have the ``direct`` writer write ``item`` (decided in advance, e.g. a move) with the
        other such items of the batch, in one autocommit statement: True once it is written
        and committed, False if it was not written (the caller takes the ordinary path)."""
        if self.direct is None:
            return False
        written: bool = await self._enqueue(_Unit(key, None, self._future(), item))
        return written

    @staticmethod
    def _future() -> asyncio.Future[Any]:
        return asyncio.get_running_loop().create_future()

    async def _enqueue(self, unit: _Unit) -> Any:
        future = unit.future
        self._queue.append(unit)
        if self._running < self.lanes:
            self._running += 1
            task = asyncio.get_running_loop().create_task(self._lane())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await future

    async def _lane(self) -> None:
        """Commit batches while units are queued (a new task starts on the next loop turn, so
        every unit queued in this turn joins the first batch). A lane keeps its connection
        between batches, and hands it on to the next lane when the queue is empty: no pool
        checkout (and pre-ping) per batch."""
        conn = self._idle.pop() if self._idle else None
        try:
            while self._queue:
                batch = self._queue[: self.max_batch]
                del self._queue[: self.max_batch]
                batch.sort(key=lambda u: u.key)
                writes = [u for u in batch if u.work is None]
                if writes:
                    await self._write(writes)
                units = [u for u in batch if u.work is not None]
                if units:
                    conn = await self._commit(units, conn)
        finally:
            self._running -= 1
            if conn is not None:
                self._idle.append(conn)

    async def _write(self, writes: list[_Unit]) -> None:
        """One statement of the direct writer for the batch's writes decided in advance (one
        per key: a second write for the same key answers False at once, and its caller takes
        the ordinary path, after this statement committed)."""
        assert self.direct is not None
        first: dict[int, _Unit] = {}
        for unit in writes:
            if unit.key in first:
                _resolve(unit, False)
            else:
                first[unit.key] = unit
        try:
            driver = await self._direct_driver()
            written = await self.direct(driver, [u.item for u in first.values()])
        except Exception as exc:
            if not isinstance(exc, psycopg.IntegrityError):  # a twin: the statement wrote nothing
                log.warning("direct write failed; its writes take the ordinary path", exc_info=True)
                await self._drop_direct()
            written = set()
        else:
            self.direct_statements += 1
            self.direct_writes += len(written)
        for key, unit in first.items():
            _resolve(unit, key in written)

    async def _direct_driver(self) -> psycopg.AsyncConnection[Any]:
        """The driver connection of the direct writer, opened (autocommit, ``direct_setup``
        run once) on first use and kept until it fails or the committer closes."""
        conn = self._direct_conn
        fresh = conn is None
        if conn is None:
            conn = self._direct_conn = await self.engine.connect()
            await conn.execution_options(isolation_level="AUTOCOMMIT")
        driver = (await conn.get_raw_connection()).driver_connection
        assert isinstance(driver, psycopg.AsyncConnection)
        if fresh and self.direct_setup is not None:
            await driver.execute(self.direct_setup)
        return driver

    async def _drop_direct(self) -> None:
        conn, self._direct_conn = self._direct_conn, None
        if conn is None:
            return
        with contextlib.suppress(Exception):
            await conn.invalidate()
        with contextlib.suppress(Exception):
            await conn.close()

    async def close(self) -> None:
        """Give the kept connections back to the pool (the hub calls this when it stops)."""
        await self._drop_direct()  # never back to the pool: it carries ``direct_setup``
        idle, self._idle = self._idle, []
        self._pooled -= len(idle)
        for conn in idle:
            with contextlib.suppress(Exception):
                await conn.close()

    async def _commit(
        self, batch: list[_Unit], conn: AsyncConnection | None
    ) -> AsyncConnection | None:
        """One batch in one transaction on ``conn`` (None: a fresh one); every unit's future
        is resolved when this returns. Returns the connection to keep (None: discarded)."""
        outcomes: list[tuple[bool, Any]] = []
        try:
            if conn is None:
                conn = await self.engine.connect()
                self._pooled += 1
            await conn.begin()
            info = conn.info
            try:
                for unit in batch:
                    info[_WRITES] = 0
                    ok, value = await self._run_shared(conn, unit)
                    if not ok and (info[_WRITES] or not isinstance(value, self.harmless)):
                        raise _Abort from value
                    outcomes.append((ok, value))
            finally:
                info.pop(_WRITES, None)
            await conn.commit()
        except Exception as exc:
            self.fallbacks += 1
            if not isinstance(exc, _Abort):
                log.warning("group commit failed; running its units alone", exc_info=True)
            kept = await self._reset(conn, clean=isinstance(exc, _Abort))
            if conn is not None and kept is None:
                self._pooled -= 1
            await self._alone(batch)
            return kept
        self.batches += 1
        self.units += len(batch)
        for unit, (ok, value) in zip(batch, outcomes, strict=True):
            if unit.future.done():  # pragma: no cover - a cancelled caller
                continue
            if ok:
                unit.future.set_result(value)
            else:
                unit.future.set_exception(value)
        return conn

    @staticmethod
    async def _reset(conn: AsyncConnection | None, clean: bool) -> AsyncConnection | None:
        """After a failed batch: roll back and keep the connection if the failure was a
        unit's (``clean``), else (or if the rollback fails) discard it."""
        if conn is None:
            return None
        if clean:
            try:
                await conn.rollback()
                return conn
            except Exception:
                log.warning("rollback after a failed group failed", exc_info=True)
        with contextlib.suppress(Exception):
            await conn.invalidate()
        with contextlib.suppress(Exception):
            await conn.close()
        return None

    async def _run_shared(self, conn: Any, unit: _Unit) -> tuple[bool, Any]:
        """One unit inside the batch's transaction: (True, result) or (False, exception)."""
        assert unit.work is not None
        db = AsyncSession(bind=conn, join_transaction_mode="rollback_only", expire_on_commit=False)
        try:
            value = await unit.work(db)
            if _used(db):
                await db.flush()
            return True, value
        except Exception as exc:
            return False, exc
        finally:
            if _used(db):
                with contextlib.suppress(Exception):
                    await db.close()

    async def _alone(self, batch: list[_Unit]) -> None:
        """Run each unit in a transaction of its own (after a batch failed)."""

        async def one(unit: _Unit) -> None:
            assert unit.work is not None
            try:
                async with self.sessionmaker() as db:
                    try:
                        value = await unit.work(db)
                        await db.commit()
                    except BaseException:
                        await db.rollback()
                        raise
            except Exception as exc:
                if not unit.future.done():
                    unit.future.set_exception(exc)
                return
            if not unit.future.done():
                unit.future.set_result(value)

        await asyncio.gather(*(one(u) for u in batch))


def _resolve(unit: _Unit, value: Any) -> None:
    if not unit.future.done():  # a cancelled caller
        unit.future.set_result(value)


def _used(db: AsyncSession) -> bool:
    """Did the unit work through the session? A unit that sent its one statement straight to
    the driver (``store.MovesWriter.write_one``) left nothing to flush or close: skipping both saves
    two trips through SQLAlchemy's greenlet bridge, about 40 µs per move."""
    return bool(db.in_transaction() or db.new or db.identity_map)


class _Abort(Exception):
    """A unit failed in a way that needs the batch rolled back."""
