"""The backup folder: making a backup, listing and rotating the folder, the newest one's age.

A backup is a ``pg_dump`` custom-format archive (its header carries the archive format's
version; the ``alembic_version`` table inside carries the schema's revision). ``pg_dump`` reads
one snapshot, so a backup taken while tables are played is consistent. It runs as an asyncio
subprocess: the event loop never waits for it.

Files in the folder are named ``prefclub-YYYYmmddTHHMMSSZ-<reason>.dump`` (UTC, ``reason`` one of
``daily``, ``session``, ``manual``). A backup is written under a hidden temporary name and renamed
when complete, so a half-written file is never listed. Rotation keeps the newest
``PREFCLUB_BACKUP_KEEP`` automatic backups (``daily`` and ``session``); ``manual`` ones are never
removed. docs/backup.md describes it all.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, cast

from app.config import Settings
from app.db.pgtools import libpq_url, run_tool
from app.services.service_errors import ConflictError, NotFoundError, ServiceError

Reason = Literal["daily", "session", "manual"]
AUTOMATIC: frozenset[str] = frozenset({"daily", "session"})
STAMP = "%Y%m%dT%H%M%SZ"
NAME = re.compile(r"^prefclub-(\d{8}T\d{6}Z)-(daily|session|manual)\.dump$")
"""The only names the folder lists, serves or rotates."""


class BackupError(ServiceError):
    """A backup could not be made (the folder is not writable, ``pg_dump`` failed)."""

    status = 500
    code = "backup_failed"


@dataclass(frozen=True)
class BackupInfo:
    """One complete backup of the folder."""

    name: str
    reason: Reason
    made_at: datetime
    size: int
    path: Path

    def age_seconds(self, now: datetime) -> float:
        """Seconds since it was made (never negative)."""
        return max(0.0, (now - self.made_at).total_seconds())


def backup_name(now: datetime, reason: Reason) -> str:
    """The folder's name of a backup made at ``now`` for ``reason``."""
    return f"prefclub-{now.astimezone(UTC).strftime(STAMP)}-{reason}.dump"


def parse_name(name: str) -> tuple[datetime, Reason] | None:
    """When and why the backup ``name`` was made; None for any other name."""
    match = NAME.match(name)
    if match is None:
        return None
    try:
        made = datetime.strptime(match.group(1), STAMP).replace(tzinfo=UTC)
    except ValueError:
        return None
    return made, cast(Reason, match.group(2))


def list_backups(folder: Path) -> list[BackupInfo]:
    """The complete backups in ``folder``, newest first (none when it does not exist)."""
    result = []
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    for entry in entries:
        parsed = parse_name(entry.name)
        if parsed is None or not entry.is_file(follow_symlinks=False):
            continue
        result.append(
            BackupInfo(entry.name, parsed[1], parsed[0], entry.stat().st_size, Path(entry.path))
        )
    result.sort(key=lambda b: (b.made_at, b.name), reverse=True)
    return result


def backup_path(folder: Path, name: str) -> BackupInfo:
    """The backup called ``name`` in ``folder``; NotFoundError for a name that is not a backup
    name (no paths, no other files) or not there."""
    if parse_name(name) is None:
        raise NotFoundError("no such backup", code="backup_not_found")
    for backup in list_backups(folder):
        if backup.name == name:
            return backup
    raise NotFoundError("no such backup", code="backup_not_found")


def newest_backup_age_seconds(settings: Settings, now: datetime | None = None) -> float | None:
    """Seconds since the newest backup of the folder was made; None when there is none."""
    backups = list_backups(settings.backup_dir)
    if not backups:
        return None
    return backups[0].age_seconds(now or datetime.now(UTC))


def ensure_writable(folder: Path) -> None:
    """Create ``folder`` if needed and prove a file can be written in it (as root too, where
    permission bits do not stop anyone); BackupError with code ``backup_dir_not_writable``
    otherwise."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError as exc:
        raise BackupError(
            f"the backup folder {folder} is not writable ({exc.strerror})",
            code="backup_dir_not_writable",
        ) from None


async def dump_to(url: str, target: Path) -> int:
    """Write a backup of the database at ``url`` to ``target``; return its size in bytes.

    ``pg_dump`` writes a hidden temporary file next to ``target``, which is linked to its name
    only when complete; an existing ``target`` is never overwritten (ConflictError).
    """
    folder = target.parent
    await asyncio.to_thread(ensure_writable, folder)
    if target.exists():
        raise ConflictError(f"{target} already exists", code="backup_exists")
    partial = folder / f".{target.name}.{os.getpid()}.partial"
    try:
        result = await run_tool(
            "pg_dump",
            "--format=custom",
            "--no-owner",
            "--no-acl",
            f"--file={partial}",
            f"--dbname={libpq_url(url)}",
        )
        if not result.ok:
            raise BackupError(f"pg_dump failed: {result.stderr}")
        try:
            await asyncio.to_thread(_publish, partial, target)
        except FileExistsError:
            raise ConflictError(f"{target} already exists", code="backup_exists") from None
        return target.stat().st_size
    finally:
        partial.unlink(missing_ok=True)


def _publish(partial: Path, target: Path) -> None:
    """Flush the finished archive to disk and give it its name (never over another file)."""
    fd = os.open(partial, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.link(partial, target)


async def make_backup(url: str, settings: Settings, reason: Reason, now: datetime) -> BackupInfo:
    """Make a backup in the settings' folder, then rotate its automatic backups."""
    folder = settings.backup_dir
    name = backup_name(now, reason)
    size = await dump_to(url, folder / name)
    made = BackupInfo(name, reason, now.astimezone(UTC).replace(microsecond=0), size, folder / name)
    await asyncio.to_thread(rotate, folder, settings.backup_keep)
    return made


def rotate(folder: Path, keep: int) -> list[str]:
    """Remove all but the newest ``keep`` automatic backups of ``folder`` (``keep`` 0 means
    automatic backups are off: none is removed); return the names removed. Manual backups are
    never removed."""
    if keep <= 0:
        return []
    automatic = [b for b in list_backups(folder) if b.reason in AUTOMATIC]
    removed = []
    for backup in automatic[keep:]:
        backup.path.unlink(missing_ok=True)
        removed.append(backup.name)
    return removed
