"""The backup folder (names, rotation) and the automatic backups of
:class:`app.services.backup_schedule.BackupScheduler`, against a real database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.clock import FrozenClock
from app.config import Settings
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import ClubSession
from app.services import backups
from app.services.backup_schedule import BackupScheduler, next_daily
from tests.support.databases import drop_database, scratch_database

# 03:59 on Monday 30 November 2026 in Moscow (UTC+3).
BEFORE_FOUR = datetime(2026, 11, 30, 0, 59, tzinfo=UTC)


def _file(folder: Path, at: datetime, reason: backups.Reason) -> str:
    name = backups.backup_name(at, reason)
    (folder / name).write_bytes(b"x")
    return name


def test_rotation_keeps_the_newest_automatic_backups_and_every_manual_one(tmp_path: Path) -> None:
    start = datetime(2026, 11, 1, tzinfo=UTC)
    autos = [
        _file(tmp_path, start + timedelta(days=i), "daily" if i % 2 else "session")
        for i in range(6)
    ]
    manual = _file(tmp_path, start - timedelta(days=30), "manual")
    removed = backups.rotate(tmp_path, 3)
    assert sorted(removed) == sorted(autos[:3])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*autos[3:], manual])
    assert backups.rotate(tmp_path, 0) == []


def test_names_and_the_newest_age(tmp_path: Path) -> None:
    name = backups.backup_name(datetime(2026, 11, 30, 19, 15, 7, 999, tzinfo=UTC), "session")
    assert name == "prefclub-20261130T191507Z-session.dump"
    assert backups.parse_name("prefclub-20261130T191507Z-weekly.dump") is None
    settings = Settings(PREFCLUB_DATA_DIR=tmp_path)
    assert backups.newest_backup_age_seconds(settings) is None
    (tmp_path / "backups").mkdir()
    _file(tmp_path / "backups", datetime(2026, 11, 30, 10, tzinfo=UTC), "daily")
    _file(tmp_path / "backups", datetime(2026, 11, 30, 11, tzinfo=UTC), "manual")
    now = datetime(2026, 11, 30, 12, 30, tzinfo=UTC)
    assert backups.newest_backup_age_seconds(settings, now) == 5400.0


def test_next_daily_is_in_club_time() -> None:
    zone = Settings().zone
    assert next_daily(BEFORE_FOUR, time(4, 0), zone) == datetime(2026, 11, 30, 1, tzinfo=UTC)
    assert next_daily(datetime(2026, 11, 30, 1, tzinfo=UTC), time(4, 0), zone) == datetime(
        2026, 12, 1, 1, tzinfo=UTC
    )


@pytest.fixture
async def club_db(database_url: str) -> AsyncIterator[tuple[str, async_sessionmaker[AsyncSession]]]:
    url, name = scratch_database(database_url, migrated=True)
    engine = make_engine(url)
    try:
        yield url, make_sessionmaker(engine)
    finally:
        await engine.dispose()
        drop_database(database_url, name)


async def test_daily_and_session_backups(
    club_db: tuple[str, async_sessionmaker[AsyncSession]], tmp_path: Path
) -> None:
    url, factory = club_db
    settings = Settings(PREFCLUB_DATA_DIR=tmp_path, PREFCLUB_BACKUP_KEEP=2)
    clock = FrozenClock(BEFORE_FOUR)
    scheduler = BackupScheduler(url, settings, clock, factory)
    await scheduler.start()
    assert await scheduler.tick() is None
    clock.set(BEFORE_FOUR + timedelta(minutes=1, seconds=1))
    daily = await scheduler.tick()
    assert daily is not None and daily.reason == "daily"
    assert daily.name == "prefclub-20261130T010001Z-daily.dump"
    assert (settings.backup_dir / daily.name).read_bytes()[:5] == b"PGDMP"
    assert await scheduler.tick() is None
    clock.set(BEFORE_FOUR + timedelta(hours=18))
    async with session_scope(factory) as db:
        db.add(
            ClubSession(
                starts_at=BEFORE_FOUR + timedelta(hours=15),
                ends_at=BEFORE_FOUR + timedelta(hours=18),
                ended_at=clock.now(),
            )
        )
    clock.set(clock.now() + timedelta(seconds=5))
    session = await scheduler.tick()
    assert session is not None and session.reason == "session"
    assert await scheduler.tick() is None
    # A second process over the same database and folder finds the session's backup made.
    other = BackupScheduler(url, settings, clock, factory)
    other.seen_end = None
    assert await other.tick() is None
    clock.set(clock.now() + timedelta(days=1))
    third = await scheduler.tick()
    assert third is not None and third.reason == "daily"
    names = sorted(p.name for p in settings.backup_dir.iterdir())
    assert names == sorted([session.name, third.name])  # PREFCLUB_BACKUP_KEEP=2 rotated
