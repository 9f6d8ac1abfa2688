"""``/api/admin/backups``: the server's backups for the admin page — the list (age, size, a
warning when the newest is older than a day), downloading one, and making one now. Admins only.
"""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Request, status
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict

from app.api.deps import AddressDep, AdminMember, ClockDep, SessionDep, SettingsDep
from app.api.error_answers import service_errors
from app.api.schemas import ERRORS
from app.services import audit, backups

router = APIRouter(prefix="/api/admin/backups", tags=["admin"], responses=ERRORS)

STALE_SECONDS = 24 * 3600
"""A newest backup older than this (or none at all) is shown to the admin as a warning."""


class BackupOut(BaseModel):
    """One backup of the folder: ``reason`` is ``daily``, ``session`` or ``manual``."""

    name: str
    reason: str
    made_at: datetime
    age_seconds: int
    size: int


class BackupsOut(BaseModel):
    """The folder's backups, newest first; ``stale`` when the newest is older than a day or
    there is none."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "backups": [
                        {
                            "name": "prefclub-20261130T191500Z-session.dump",
                            "reason": "session",
                            "made_at": "2026-11-30T19:15:00Z",
                            "age_seconds": 3600,
                            "size": 812345,
                        }
                    ],
                    "newest_age_seconds": 3600,
                    "stale": False,
                    "keep": 14,
                }
            ]
        }
    )

    backups: list[BackupOut]
    newest_age_seconds: int | None
    stale: bool
    keep: int


def _out(backup: backups.BackupInfo, now: datetime) -> BackupOut:
    return BackupOut(
        name=backup.name,
        reason=backup.reason,
        made_at=backup.made_at,
        age_seconds=int(backup.age_seconds(now)),
        size=backup.size,
    )


@router.get("", response_model=BackupsOut)
async def list_backups(admin: AdminMember, settings: SettingsDep, clock: ClockDep) -> BackupsOut:
    """The backups of the server's backup folder (admins)."""
    now = clock.now()
    found = backups.list_backups(settings.backup_dir)
    newest = int(found[0].age_seconds(now)) if found else None
    return BackupsOut(
        backups=[_out(b, now) for b in found],
        newest_age_seconds=newest,
        stale=newest is None or newest > STALE_SECONDS,
        keep=settings.backup_keep,
    )


@router.post("", response_model=BackupOut, status_code=status.HTTP_201_CREATED)
async def make_backup(
    request: Request, admin: AdminMember, settings: SettingsDep, clock: ClockDep
) -> BackupOut:
    """Make a ``manual`` backup now (admins); manual backups are never rotated away."""
    now = clock.now()
    with service_errors():
        made = await backups.make_backup(request.app.state.database_url, settings, "manual", now)
    return _out(made, now)


@router.get(
    "/{name}",
    response_class=FileResponse,
    responses={200: {"content": {"application/octet-stream": {}}}},
)
async def download_backup(
    name: str, admin: AdminMember, settings: SettingsDep, db: SessionDep, address: AddressDep
) -> FileResponse:
    """Download one backup (admins; audited: who, when, from where, which file). Only names
    the folder lists are served; the audit row is committed before a byte is sent."""
    with service_errors():
        backup = backups.backup_path(settings.backup_dir, name)
    size = backup.path.stat().st_size
    await audit.record(
        db,
        actor=audit.Actor.of(admin, address),
        action="backup.download",
        target=f"backup:{backup.name}",
        before=None,
        after={"file": backup.name, "size": size},
    )
    await db.commit()
    return FileResponse(backup.path, media_type="application/octet-stream", filename=backup.name)
