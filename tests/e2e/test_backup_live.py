"""Backups of a live club: ``prefclub backup`` while bots play real tables, restored into fresh
data folders (embedded PostgreSQL) and compared with ``prefclub verify``; and the server's own
daily backup restored after the server was killed with ``kill -9``."""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from app.bots.client import BotClient
from app.bots.strategy import Strategy
from app.config import Settings
from app.db.embedded import start_embedded
from app.db.pgtools import libpq_url
from tests.platform.pg_processes import postgres_processes
from tests.support.backup_cli import digest, prefclub, url_env
from tests.support.databases import TEST_DATA_DIR
from tests.support.live_servers import server, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e

TABLES = 3


@pytest.fixture
def fresh_folder() -> Iterator[Callable[[], Path]]:
    """Fresh data folders inside ``var/`` (see tests/platform/conftest.py); any postgres left
    behind in them is killed afterwards."""
    made: list[Path] = []
    root = TEST_DATA_DIR.parent / "e2e"
    root.mkdir(parents=True, exist_ok=True)

    def new() -> Path:
        folder = Path(tempfile.mkdtemp(prefix="restore-", dir=root)) / "data"
        made.append(folder)
        return folder

    yield new
    for folder in made:
        for proc in postgres_processes((folder / "pgdata").resolve()):
            proc.kill()
        shutil.rmtree(folder.parent, ignore_errors=True)


def _embedded(folder: Path) -> dict[str, str]:
    return {"PREFCLUB_DATA_DIR": str(folder), "DATABASE_URL": ""}


class Play:
    """Bots playing every seat of some tables of a server; counts the acks they receive."""

    def __init__(self, srv: ServerProcess, made: list[tuple[int, list[Any], list[Any]]]) -> None:
        self.acks = 0
        self.bots = [
            BotClient(
                f"ws://127.0.0.1:{srv.port}",
                table_id,
                seat.cookie,
                srv.base_url,
                strategy=Strategy(random.Random(t * 7 + i)),
                observer=self._observe,
                name=f"bk{t}s{i}",
            )
            for t, (table_id, seats, _) in enumerate(made)
            for i, seat in enumerate(seats)
        ]
        self.runs = [asyncio.create_task(b.run()) for b in self.bots]

    def _observe(self, bot: BotClient, message: dict[str, Any]) -> None:
        if message.get("type") == "ack" and not message.get("duplicate"):
            self.acks += 1

    async def until(self, acks: int, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while self.acks < acks:
            assert time.monotonic() < deadline, f"only {self.acks} acks"
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        for b in self.bots:
            b.stop()
        await asyncio.gather(*self.runs, return_exceptions=True)


def _events(env_url: str) -> set[tuple[int, int, str, str]]:
    with psycopg.connect(libpq_url(env_url)) as conn:
        return {
            (int(t), int(s), str(k), str(p))
            for t, s, k, p in conn.execute(
                "SELECT table_id, seq, kind, payload::text FROM table_events"
            )
        }


async def test_backup_while_tables_play_restores_to_the_same_digest(
    live_db: str, data_dir: Path, fresh_folder: Callable[[], Path]
) -> None:
    made = [await setup_table(live_db, 3) for _ in range(TABLES)]
    srv = server(live_db, data_dir, log_name="backup-live.log").start()
    live = url_env(live_db, data_dir)
    during = data_dir / "during-play.dump"
    try:
        play = Play(srv, made)
        try:
            await play.until(60)
            before = play.acks
            result = await asyncio.to_thread(prefclub, live, "backup", str(during))
            assert result.returncode == 0, result.stderr
            await play.until(before + 30)  # the tables kept playing around the backup
        finally:
            await play.stop()
        first = fresh_folder()
        restored = await asyncio.to_thread(prefclub, _embedded(first), "restore", str(during))
        assert restored.returncode == 0, restored.stderr
        check = await asyncio.to_thread(prefclub, _embedded(first), "verify")
        assert check.returncode == 0, check.stdout + check.stderr  # versions match the events
        copied = _events(await asyncio.to_thread(start_embedded, first))
        assert copied and copied <= _events(live_db)  # a consistent prefix of the live log
        assert {t for t, _, _, _ in copied} >= {m[0] for m in made}

        quiet = await asyncio.to_thread(digest, live)
        after = data_dir / "quiet.dump"
        assert (await asyncio.to_thread(prefclub, live, "backup", str(after))).returncode == 0
        second = fresh_folder()
        restored = await asyncio.to_thread(prefclub, _embedded(second), "restore", str(after))
        assert restored.returncode == 0, restored.stderr
        assert await asyncio.to_thread(digest, _embedded(second)) == quiet
    finally:
        srv.stop()


async def test_the_last_automatic_backup_restores_after_kill_9(
    live_db: str, data_dir: Path, fresh_folder: Callable[[], Path]
) -> None:
    made = [await setup_table(live_db, 3) for _ in range(2)]
    clock_file = data_dir / "clock-offset"
    clock_file.write_text("0")
    backup_dir = data_dir / "auto-backups"
    zone = Settings().zone
    at = (datetime.now(UTC) + timedelta(minutes=30)).astimezone(zone)
    srv = server(live_db, data_dir, log_name="backup-kill.log")
    srv.env.update(
        {
            "PREFCLUB_TEST_CLOCK": str(clock_file),
            "PREFCLUB_BACKUP_DIR": str(backup_dir),
            "PREFCLUB_BACKUP_TIME": at.strftime("%H:%M"),
        }
    )
    srv.start()
    try:
        play = Play(srv, made)
        try:
            await play.until(40)
        finally:
            await play.stop()
        expected = await asyncio.to_thread(digest, url_env(live_db, data_dir))
        clock_file.write_text(str(31 * 60))  # the server's clock passes the backup time
        deadline = time.monotonic() + 120
        while not list(backup_dir.glob("prefclub-*-daily.dump")):
            assert time.monotonic() < deadline, srv.output()
            await asyncio.sleep(0.2)
    finally:
        srv.kill()
    dailies = sorted(backup_dir.glob("prefclub-*-daily.dump"))
    assert len(dailies) == 1 and not list(backup_dir.glob(".*partial"))
    folder = fresh_folder()
    restored = await asyncio.to_thread(prefclub, _embedded(folder), "restore", str(dailies[-1]))
    assert restored.returncode == 0, restored.stderr
    assert await asyncio.to_thread(digest, _embedded(folder)) == expected
