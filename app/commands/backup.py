"""``prefclub backup [FILE]``, ``prefclub restore FILE [--force]`` and ``prefclub verify``.

All three find the database as ``prefclub serve`` does (``DATABASE_URL``, else the embedded one
in ``PREFCLUB_DATA_DIR``). Exit status: 0 done, 1 ``verify`` found problems or a backup failed,
2 bad input (a file that is not a prefclub backup, a non-empty target without ``--force``, an
unwritable folder or an existing file). docs/backup.md has the details.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import TextIO

from app.config import Settings
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from app.services import backups, restore
from app.services.digest import club_digest
from app.services.service_errors import ServiceError
from app.services.verify import run_checks

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INVALID = 2


def _exit_for(error: ServiceError) -> int:
    return (
        EXIT_FAILED
        if error.status >= 500 and error.code != "backup_dir_not_writable"
        else EXIT_INVALID
    )


def run_backup(
    url: str, settings: Settings, file: str | None, now: datetime, out: TextIO, err: TextIO
) -> int:
    """Write a backup to ``file``, or into the backup folder as a ``manual`` one."""
    try:
        if file is None:
            made = asyncio.run(backups.make_backup(url, settings, "manual", now))
            out.write(f"backup written: {made.path} ({made.size} bytes)\n")
        else:
            target = Path(file).absolute()
            size = asyncio.run(backups.dump_to(url, target))
            out.write(f"backup written: {target} ({size} bytes)\n")
    except ServiceError as exc:
        err.write(f"error: {exc}\n")
        return _exit_for(exc)
    return EXIT_OK


def run_restore(url: str, file: str, force: bool, out: TextIO, err: TextIO) -> int:
    """Restore ``file``; then migrate the schema to head if the backup's is older."""
    try:
        info = asyncio.run(restore.restore(url, Path(file), force=force))
    except ServiceError as exc:
        err.write(f"error: {exc}; nothing was changed\n")
        return _exit_for(exc)
    out.write(f"restored {file} (schema revision {info.revision})\n")
    if info.outdated:
        upgrade(url)
        out.write("the schema was older than this prefclub's; migrated to the newest revision\n")
    return EXIT_OK


async def _verify(url: str) -> tuple[list[str], list[str]]:
    engine = make_engine(url)
    try:
        async with make_sessionmaker(engine)() as db:
            await db.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            digest = await club_digest(db)
            problems = await run_checks(db)
            await db.rollback()
    finally:
        await engine.dispose()
    return digest.lines(), problems


def run_verify(url: str, out: TextIO) -> int:
    """Print the counts, any problems, and the digest as the last line; 1 if problems."""
    lines, problems = asyncio.run(_verify(url))
    *summary, digest_line = lines
    for line in summary:
        out.write(line + "\n")
    for problem in problems:
        out.write(f"problem: {problem}\n")
    out.write(("ok" if not problems else f"{len(problems)} problems") + "\n")
    out.write(digest_line + "\n")
    return EXIT_FAILED if problems else EXIT_OK
