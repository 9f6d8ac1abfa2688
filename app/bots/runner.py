"""House bots that fill the other seats of practice tables, run inside the server process.

They are ordinary :class:`~app.bots.client.BotClient` s: they connect to this very server over
its public socket, with their own sessions, exactly as any other client would. A bot seat whose
runner is gone (the process stopped) waits, like a disconnected player, until a server process
adopts the table again.

One process runs the bots of a table: the one that holds the table's advisory lock
``pg_try_advisory_lock(BOT_LOCK_CLASS, table_id)``, taken on the runner's own database
connection (the "lease" connection) and held while its bots run. Every process's runner looks,
at startup and every :func:`adopt_seconds`, for unfinished practice tables with house bots
(``bot-1`` …) in their seats that it does not run, and adopts those whose lock it can take. A
process that dies loses its connection, so PostgreSQL releases its locks and another (or the
restarted) process adopts its tables; a runner that loses its lease connection stops all its
bots first (they may be adopted elsewhere by then) and adopts again once it has reconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import psycopg
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.client import BotClient
from app.bots.levels import bot_level_of, make_strategy
from app.db.engine import session_scope
from app.db.models.member import Member
from app.db.models.table import Table, TableSeat
from app.realtime.cross_process import libpq_url
from app.services.house_bots import bot_cookie, bot_members

log = logging.getLogger(__name__)

__all__ = ["BotRunner", "bot_cookie", "bot_members", "house_bot_runner", "start_house_bots"]

BOT_POOL = 3


def think_seconds() -> float:
    """How long a house bot pauses before each move (so people can follow the table):
    ``PREFCLUB_BOT_THINK``, read when a table's bots start (never frozen at import)."""
    return float(os.environ.get("PREFCLUB_BOT_THINK", "0.4"))


HOUSE_BOT_LOGINS = tuple(f"bot-{i}" for i in range(1, BOT_POOL + 1))
BOT_LOCK_CLASS = 0x48424F54  # "HBOT": the advisory-lock namespace of house-bot leases


def adopt_seconds() -> float:
    """How often a runner looks for practice tables whose house bots nobody runs:
    ``PREFCLUB_BOT_ADOPT``, read each round."""
    return float(os.environ.get("PREFCLUB_BOT_ADOPT", "5"))


RETRY_SECONDS = 60.0
"""A table whose bots gave up (kept being refused) is not adopted again for this long."""


class BotRunner:
    """The bot clients this process runs, per table, and the leases (advisory locks) on them."""

    def __init__(
        self,
        port: int,
        database_url: str | None = None,
        sessionmaker: async_sessionmaker[AsyncSession] | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.base_ws = f"ws://127.0.0.1:{port}"
        self.origin = f"http://127.0.0.1:{port}"
        self.database_url = database_url
        self.sessionmaker = sessionmaker
        self.now = now
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self._lease: psycopg.AsyncConnection[Any] | None = None
        self._lease_lock = asyncio.Lock()
        self._adopter: asyncio.Task[None] | None = None
        self._resting: dict[int, float] = {}
        self._held: set[int] = set()
        """Tables whose lease this runner holds. PostgreSQL's session-level advisory locks are
        re-entrant on one connection, so without this a second claim of ours (``spawn`` and
        the adopter racing for a table just opened here) would also "win" and run its bots
        twice."""

    # -- leases ------------------------------------------------------------------------------

    async def _lease_query(self, sql: str, table_id: int | None) -> bool:
        """Run a lock function on the lease connection; on a lost connection drop every bot
        (their locks are gone with it) and raise."""
        if self.database_url is None:
            return True  # no database to coordinate through (a bare runner): always ours
        async with self._lease_lock:
            try:
                if self._lease is None or self._lease.closed:
                    self._lease = await psycopg.AsyncConnection.connect(
                        libpq_url(self.database_url), autocommit=True
                    )
                params = () if table_id is None else (BOT_LOCK_CLASS, table_id)
                cur = await self._lease.execute(sql, params)
                row = await cur.fetchone()
                return bool(row and row[0])
            except psycopg.Error:
                lease, self._lease = self._lease, None
                if lease is not None:
                    with contextlib.suppress(Exception):
                        await lease.close()
                self._cancel_all()
                raise

    async def claim(self, table_id: int) -> bool:
        """Take the table's house-bot lease unless someone holds it: another process, or this
        runner already (one holder, one set of bots per table)."""
        if table_id in self._held:
            return False
        got = await self._lease_query("SELECT pg_try_advisory_lock(%s::int4, %s::int4)", table_id)
        if got:
            self._held.add(table_id)
        return got

    async def release(self, table_id: int) -> None:
        if table_id not in self._held:
            return
        self._held.discard(table_id)
        with contextlib.suppress(Exception):
            await self._lease_query("SELECT pg_advisory_unlock(%s::int4, %s::int4)", table_id)

    # -- bots ----------------------------------------------------------------------------------

    def spawn(self, table_id: int, cookies: list[str], level: str | None = None) -> None:
        """Run the bots of a table just opened by this process (once its lease is taken), at
        the table's ``level`` (``beginner`` when not given)."""
        if self.running(table_id):
            return
        self.tasks[table_id] = asyncio.create_task(
            self._table(table_id, cookies, False, bot_level_of(level)), name=f"bots-{table_id}"
        )

    def running(self, table_id: int) -> bool:
        task = self.tasks.get(table_id)
        return task is not None and not task.done()

    async def _table(
        self, table_id: int, cookies: list[str], claimed: bool, level: str = "beginner"
    ) -> None:
        try:
            if not claimed and not await self.claim(table_id):
                return  # another process runs them
        except psycopg.Error:
            log.warning("house-bot lease unavailable", extra={"table": table_id})
            return
        bots = [
            asyncio.create_task(
                self._run(
                    BotClient(
                        self.base_ws,
                        table_id,
                        cookie,
                        self.origin,
                        strategy=make_strategy(level, random.Random()),
                        name=f"house{table_id}-{index}",
                        think=think_seconds(),
                    )
                ),
                name=f"bot-{table_id}-{index}",
            )
            for index, cookie in enumerate(cookies)
        ]
        try:
            await asyncio.gather(*bots)
        finally:
            for bot in bots:
                bot.cancel()
            for bot in bots:
                with contextlib.suppress(BaseException):
                    await bot
            if not (current := asyncio.current_task()) or not current.cancelling():
                # The table is over, or its bots gave up: let the lock go, and adopt it again
                # (with fresh sessions) only after a while.
                self._resting[table_id] = time.monotonic() + RETRY_SECONDS
                await self.release(table_id)

    async def _run(self, bot: BotClient) -> None:
        for _ in range(5):
            try:
                await bot.run()
                return
            except asyncio.CancelledError:
                raise
            except Exception:  # refused (e.g. the table is not committed yet): try again
                log.warning("house bot could not join", extra={"table": bot.table_id})
                await asyncio.sleep(0.5)

    # -- adoption ------------------------------------------------------------------------------

    async def adopt(self) -> list[int]:
        """Start the house bots of every unfinished practice table nobody runs (whose lease
        this process can take); returns the tables adopted."""
        if self.sessionmaker is None:
            return []
        if self.tasks:
            # Is the lease connection (and so every lock of ours) still there? If not, this
            # drops our bots (another process may adopt their tables now) and raises.
            await self._lease_query("SELECT true", None)
        # The table's bot level, once the ``tables.bot_level`` column exists (see
        # docs/bots.md); until then every house bot plays at the default level.
        level_column: Any = getattr(Table, "bot_level", None)
        async with self.sessionmaker() as db:
            levels: dict[int, str | None] = {}
            if level_column is not None:
                levels = {
                    table_id: level
                    for table_id, level in (
                        await db.execute(
                            select(Table.id, level_column).where(
                                Table.practice.is_(True), Table.status == "playing"
                            )
                        )
                    ).all()
                }
            rows = (
                await db.execute(
                    select(TableSeat.table_id, Member.id)
                    .join(Table, Table.id == TableSeat.table_id)
                    .join(Member, Member.id == TableSeat.member_id)
                    .where(
                        Table.practice.is_(True),
                        Table.status == "playing",
                        Member.is_bot.is_(True),
                        Member.login.in_(HOUSE_BOT_LOGINS),
                    )
                    .order_by(TableSeat.table_id, TableSeat.seat)
                )
            ).all()
        wanted: dict[int, list[int]] = {}
        for table_id, member_id in rows:
            wanted.setdefault(table_id, []).append(member_id)
        adopted = []
        clock = time.monotonic()
        for table_id, member_ids in wanted.items():
            if self._resting.get(table_id, 0.0) > clock:
                continue
            if self.running(table_id) or not await self.claim(table_id):
                continue
            try:
                now = self.now() if self.now is not None else datetime.now().astimezone()
                async with session_scope(self.sessionmaker) as db:
                    cookies = []
                    for member_id in member_ids:
                        member = await db.get(Member, member_id)
                        assert member is not None
                        cookies.append(await bot_cookie(db, member, now))
            except Exception:
                await self.release(table_id)
                raise
            self.tasks[table_id] = asyncio.create_task(
                self._table(table_id, cookies, True, bot_level_of(levels.get(table_id))),
                name=f"bots-{table_id}",
            )
            adopted.append(table_id)
        if adopted:
            log.info("house bots adopted", extra={"tables": adopted})
        return adopted

    def start_adopting(self) -> None:
        if self._adopter is None:
            self._adopter = asyncio.create_task(self._adopt_loop(), name="bot-adopter")

    async def _adopt_loop(self) -> None:
        while True:
            try:
                await self.adopt()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("adopting house bots failed", exc_info=True)
            await asyncio.sleep(adopt_seconds())

    def _cancel_all(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        self.tasks.clear()
        self._held.clear()  # the lease connection is gone, and its locks with it

    async def stop(self) -> None:
        tasks = list(self.tasks.values())
        if self._adopter is not None:
            tasks.append(self._adopter)
            self._adopter = None
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self.tasks.clear()
        self._held.clear()
        if self._lease is not None:
            # Let the leases go before hanging up: closing only asks the server to end the
            # backend, whose locks go when it has exited (later, under load), so another
            # process could find a stopped runner's table still locked.
            with contextlib.suppress(Exception):
                await self._lease.execute("SELECT pg_advisory_unlock_all()")
            with contextlib.suppress(Exception):
                await self._lease.close()
            self._lease = None


def house_bot_runner(app: Any) -> Any:
    """The app's runner, made by its lifespan (``app/main.py``; a test may set
    ``app.state.bot_runner`` to anything with a ``spawn(table_id, cookies)`` method)."""
    return app.state.bot_runner


def start_house_bots(app: Any, table_id: int, cookies: list[str], level: str | None = None) -> None:
    """Connect the house bots of a committed practice table (see :func:`house_bot_runner`)
    at the table's bot ``level`` (``beginner`` when None)."""
    runner = house_bot_runner(app)
    if level is None:
        runner.spawn(table_id, cookies)
    else:
        runner.spawn(table_id, cookies, level)
