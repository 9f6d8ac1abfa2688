"""``/api/admin/backups``: admins only; the list with ages, sizes and the stale warning;
downloads of listed backups only; a backup made now."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI

from app.clock import FrozenClock
from app.config import Settings
from app.db.models import Role
from app.services.backups import backup_name
from tests.api.conftest import MONDAY_NOON, LoggedIn


def _folder(app: FastAPI) -> Path:
    settings: Settings = app.state.settings
    folder = settings.backup_dir
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _put(folder: Path, hours_ago: float, reason: str, size: int) -> str:
    name = backup_name(MONDAY_NOON - timedelta(hours=hours_ago), reason)  # type: ignore[arg-type]
    (folder / name).write_bytes(b"P" * size)
    return name


async def test_only_admins_see_or_download_backups(
    app: FastAPI, logged_in: LoggedIn, clock: FrozenClock
) -> None:
    name = _put(_folder(app), 1, "daily", 10)
    for role in (Role.member, Role.treasurer):
        client, _ = await logged_in(role)
        for method, path in (
            ("GET", "/api/admin/backups"),
            ("GET", f"/api/admin/backups/{name}"),
            ("POST", "/api/admin/backups"),
        ):
            response = await client.request(method, path)
            assert response.status_code == 403, (role, method, path)
            assert response.json()["code"] == "forbidden"
    assert sorted(p.name for p in _folder(app).iterdir()) == [name]
    admin, _ = await logged_in(Role.admin)
    admin.cookies.clear()
    assert (await admin.get("/api/admin/backups")).status_code == 401


async def test_the_list_gives_age_size_and_reason_newest_first(
    app: FastAPI, logged_in: LoggedIn, clock: FrozenClock
) -> None:
    folder = _folder(app)
    daily = _put(folder, 8, "daily", 1000)
    session = _put(folder, 2, "session", 2500)
    manual = _put(folder, 30, "manual", 7)
    (folder / f".{backup_name(MONDAY_NOON, 'daily')}.123.partial").write_bytes(b"half")
    (folder / "notes.txt").write_text("not a backup")
    admin, _ = await logged_in(Role.admin)
    body = (await admin.get("/api/admin/backups")).json()
    assert [(b["name"], b["reason"], b["age_seconds"], b["size"]) for b in body["backups"]] == [
        (session, "session", 2 * 3600, 2500),
        (daily, "daily", 8 * 3600, 1000),
        (manual, "manual", 30 * 3600, 7),
    ]
    assert body["newest_age_seconds"] == 2 * 3600
    assert body["stale"] is False
    assert body["keep"] == 14


async def test_a_newest_backup_older_than_a_day_or_none_is_stale(
    app: FastAPI, logged_in: LoggedIn, clock: FrozenClock
) -> None:
    admin, _ = await logged_in(Role.admin)
    body = (await admin.get("/api/admin/backups")).json()
    assert body == {"backups": [], "newest_age_seconds": None, "stale": True, "keep": 14}
    _put(_folder(app), 25, "daily", 5)
    body = (await admin.get("/api/admin/backups")).json()
    assert body["stale"] is True and body["newest_age_seconds"] == 25 * 3600


async def test_download_serves_the_file(
    app: FastAPI, logged_in: LoggedIn, clock: FrozenClock
) -> None:
    folder = _folder(app)
    name = _put(folder, 1, "session", 0)
    (folder / name).write_bytes(b"PGDMP" + bytes(range(256)) * 40)
    admin, _ = await logged_in(Role.admin)
    response = await admin.get(f"/api/admin/backups/{name}")
    assert response.status_code == 200
    assert response.content == (folder / name).read_bytes()
    assert response.headers["content-type"] == "application/octet-stream"
    assert name in response.headers["content-disposition"]
    # Audited: who, which file, its size (issue 23).
    log = (await admin.get("/api/admin/audit", params={"action": "backup.download"})).json()
    entry = log["entries"][0]
    assert entry["target"] == f"backup:{name}"
    assert entry["after"] == {"file": name, "size": (folder / name).stat().st_size}
    assert entry["actor_id"] == (await admin.get("/api/auth/me")).json()["id"]


@pytest.mark.parametrize(
    "name",
    [
        "..%2Fsecret_key",
        "%2e%2e%2fsecret_key",
        "secret_key",
        "notes.txt",
        "prefclub-20261130T090000Z-daily.dump.partial",
        "prefclub-20261130T090000Z-other.dump",
        "prefclub-20261399T090000Z-daily.dump",
        "prefclub-20261130T080000Z-daily.dump",
        ".prefclub-20261130T090000Z-daily.dump",
    ],
)
async def test_download_serves_nothing_but_listed_backups(
    app: FastAPI, logged_in: LoggedIn, clock: FrozenClock, name: str
) -> None:
    folder = _folder(app)
    _put(folder, 0, "daily", 3)  # prefclub-20261130T090000Z-daily.dump
    (folder / "notes.txt").write_text("x")
    (folder.parent / "secret_key").write_text("TOP-SECRET-VALUE")
    (folder / "secret_key").write_text("TOP-SECRET-VALUE")
    admin, _ = await logged_in(Role.admin)
    response = await admin.get(f"/api/admin/backups/{name}")
    assert response.status_code == 404, response.text
    assert b"TOP-SECRET-VALUE" not in response.content
    assert response.headers["content-type"].startswith("application/json")


async def test_make_a_backup_now(app: FastAPI, logged_in: LoggedIn, clock: FrozenClock) -> None:
    admin, _ = await logged_in(Role.admin)
    response = await admin.post("/api/admin/backups")
    assert response.status_code == 201, response.text
    made = response.json()
    assert made["name"] == backup_name(MONDAY_NOON, "manual") and made["reason"] == "manual"
    path = _folder(app) / made["name"]
    assert path.read_bytes()[:5] == b"PGDMP" and made["size"] == path.stat().st_size
    again = await admin.post("/api/admin/backups")
    assert again.status_code == 409 and again.json()["code"] == "backup_exists"
    listed = (await admin.get("/api/admin/backups")).json()["backups"]
    assert [b["name"] for b in listed] == [made["name"]]


async def test_an_unwritable_folder_is_a_clear_error(
    app: FastAPI, logged_in: LoggedIn, clock: FrozenClock, tmp_path: Path
) -> None:
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    settings: Settings = app.state.settings
    app.state.settings = settings.model_copy(update={"backup_dir_setting": blocker / "b"})
    admin, _ = await logged_in(Role.admin)
    response = await admin.post("/api/admin/backups")
    assert response.status_code == 500
    assert response.json()["code"] == "backup_dir_not_writable"
    assert blocker.read_text() == "x"
