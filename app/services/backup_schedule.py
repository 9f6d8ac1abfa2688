"""The server's own backups: daily at ``PREFCLUB_BACKUP_TIME`` (club time) and after each
session ends.

:class:`BackupScheduler` runs as one background task of the app (started by the lifespan in
``app/main.py``). Every few seconds it asks the clock whether the daily time has passed and the
database whether a session ended (``club_sessions.ended_at``) since it last looked; either way
it makes a backup (:func:`app.services.backups.make_backup`, ``pg_dump`` as an asyncio
subprocess) and rotates the folder. Any path that ends a session triggers it (the R-S3 timer,
an admin's "end the session"), and always after that transaction committed.

Several processes over one database: the backup is made under a PostgreSQL advisory lock, and
whoever gets it second finds the backup already in the folder and skips it.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import Clock
from app.config import Settings
from app.db.engine import session_scope
from app.db.models import ClubSession
from app.services import backups
from app.services.backups import Reason
from app.services.service_errors import ServiceError

log = logging.getLogger(__name__)

LOCK_KEY = 0x70726566_6263  # "pref" "bc": the advisory lock of backups
POLL_SECONDS = 5.0


def next_daily(after: datetime, at: time, zone: ZoneInfo) -> datetime:
    """The first instant strictly after ``after`` when the club's clock shows ``at``."""
    local = after.astimezone(zone)
    day = local.date()
    while True:
        candidate = datetime.combine(day, at, tzinfo=zone)
        if candidate > local:
            return candidate.astimezone(ZoneInfo("UTC"))
        day += timedelta(days=1)


async def last_session_end(db: AsyncSession) -> datetime | None:
    """When the latest ended session ended."""
    return await db.scalar(select(func.max(ClubSession.ended_at)))


class BackupScheduler:
    """Makes the automatic backups of one server process (see the module docstring)."""

    def __init__(
        self,
        url: str,
        settings: Settings,
        clock: Clock,
        sessionmaker: async_sessionmaker[AsyncSession],
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.url = url
        self.settings = settings
        self.clock = clock
        self.sessionmaker = sessionmaker
        self.poll_seconds = poll_seconds
        self.due = next_daily(clock.now(), settings.backup_time, settings.zone)
        self.seen_end: datetime | None = None
        self._started = False

    async def start(self) -> None:
        """Remember the sessions ended so far: only later ends trigger a backup."""
        async with self.sessionmaker() as db:
            self.seen_end = await last_session_end(db)
        self._started = True

    async def run(self) -> None:
        """Tick forever (cancel the task to stop it); a failed backup is logged, not fatal.

        The sessions ended so far are read first, here rather than at start-up, so a server
        whose database is down or not migrated yet still starts (``/healthz``, ``/readyz``);
        until that read succeeds it is retried every tick."""
        while True:
            try:
                if not self._started:
                    await self.start()
                else:
                    await self.tick()
            except asyncio.CancelledError:
                raise
            except ServiceError as exc:
                log.error("automatic backup failed", extra={"code": exc.code, "detail": str(exc)})
            except Exception as exc:
                if self._started:
                    log.exception("automatic backup failed")
                else:
                    log.warning(
                        "automatic backups wait for the database",
                        extra={"error": type(exc).__name__},
                    )
            await asyncio.sleep(self.poll_seconds)

    async def tick(self) -> backups.BackupInfo | None:
        """Make the backup that is due now, if any; return it."""
        now = self.clock.now()
        if now >= self.due:
            due, self.due = self.due, next_daily(now, self.settings.backup_time, self.settings.zone)
            return await self._backup("daily", now, since=due)
        async with self.sessionmaker() as db:
            ended = await last_session_end(db)
        if ended is not None and (self.seen_end is None or ended > self.seen_end):
            self.seen_end = ended
            return await self._backup("session", now, since=ended.replace(microsecond=0))
        return None

    async def _backup(
        self, reason: Reason, now: datetime, since: datetime
    ) -> backups.BackupInfo | None:
        """Back up unless another process holds the lock or already made this one."""
        async with session_scope(self.sessionmaker) as db:
            if not await db.scalar(
                text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": LOCK_KEY}
            ):
                return None
            folder = self.settings.backup_dir
            made = await asyncio.to_thread(backups.list_backups, folder)
            if any(b.reason == reason and b.made_at >= since for b in made):
                return None
            backup = await backups.make_backup(self.url, self.settings, reason, now)
        log.info("automatic backup made", extra={"backup": backup.name, "size": backup.size})
        return backup
