"""``prefclub backup``, ``restore`` and ``verify`` as subprocesses against real databases:
round trips keep the digest, bad files and unwritable folders change nothing."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from app.db.migrate import head_revision, upgrade
from app.db.pgtools import libpq_url, tool_path
from tests.support.backup_cli import digest, prefclub, url_env
from tests.support.databases import drop_database, scratch_database

Scratch = Callable[[], str]


@pytest.fixture
def scratch(database_url: str) -> Iterator[Callable[[], str]]:
    """Make empty scratch databases on demand (``new()``); all dropped afterwards."""
    names: list[str] = []

    def new() -> str:
        url, name = scratch_database(database_url)
        names.append(name)
        return url

    yield new
    for name in names:
        drop_database(database_url, name)


def _club(url: str) -> None:
    """A migrated club with members, a fund entry and two roles."""
    upgrade(url)
    with psycopg.connect(libpq_url(url)) as conn:
        conn.execute(
            "INSERT INTO members (login, display_name, role, must_change_password, "
            "active, is_bot, created_at) VALUES "
            "('olga', 'Ольга', 'admin', false, true, false, now()), "
            "('ivan', 'Иван', 'treasurer', false, true, false, now())"
        )
        conn.execute(
            "INSERT INTO fund_entries (kind, member_id, amount, recorded_at, reason) "
            "SELECT 'payment', id, 123.45, now(), 'взнос' FROM members "
            "WHERE login = 'ivan'"
        )


def _members(url: str) -> list[str]:
    with psycopg.connect(libpq_url(url)) as conn:
        return [r[0] for r in conn.execute("SELECT login FROM members ORDER BY login")]


def test_backup_restore_verify_round_trip(scratch: Scratch, tmp_path: Path) -> None:
    source, target = scratch(), scratch()
    _club(source)
    before = digest(url_env(source, tmp_path))
    made = prefclub(url_env(source, tmp_path), "backup", str(tmp_path / "club.dump"))
    assert made.returncode == 0, made.stderr
    restored = prefclub(url_env(target, tmp_path), "restore", str(tmp_path / "club.dump"))
    assert restored.returncode == 0, restored.stderr
    assert digest(url_env(target, tmp_path)) == before
    verify = prefclub(url_env(target, tmp_path), "verify").stdout.splitlines()
    assert verify[:4] == ["members 2", "pulkas 0", "ledger entries 1", "fund balance 123.45"]


def test_restore_refuses_a_database_with_data_unless_forced(
    scratch: Scratch, tmp_path: Path
) -> None:
    source, target = scratch(), scratch()
    _club(source)
    assert prefclub(url_env(source, tmp_path), "backup", str(tmp_path / "a.dump")).returncode == 0
    upgrade(target)
    with psycopg.connect(libpq_url(target)) as conn:
        conn.execute(
            "INSERT INTO members (login, display_name, role, must_change_password, "
            "active, is_bot, created_at) VALUES "
            "('petr', 'Пётр', 'member', false, true, false, now())"
        )
    refused = prefclub(url_env(target, tmp_path), "restore", str(tmp_path / "a.dump"))
    assert refused.returncode == 2
    assert "--force" in refused.stderr and "nothing was changed" in refused.stderr
    assert _members(target) == ["petr"]
    forced = prefclub(url_env(target, tmp_path), "restore", "--force", str(tmp_path / "a.dump"))
    assert forced.returncode == 0, forced.stderr
    assert _members(target) == ["ivan", "olga"]
    assert digest(url_env(target, tmp_path)) == digest(url_env(source, tmp_path))


def _foreign_dump(scratch: Scratch, tmp_path: Path) -> Path:
    other = scratch()
    with psycopg.connect(libpq_url(other)) as conn:
        conn.execute("CREATE TABLE notes (id int PRIMARY KEY, body text)")
        conn.execute("INSERT INTO notes VALUES (1, 'not a club')")
    path = tmp_path / "foreign.dump"
    subprocess.run(
        [
            str(tool_path("pg_dump")),
            "--format=custom",
            f"--file={path}",
            f"--dbname={libpq_url(other)}",
        ],
        check=True,
    )
    return path


def test_bad_files_are_refused_before_anything_changes(scratch: Scratch, tmp_path: Path) -> None:
    source, target = scratch(), scratch()
    _club(source)
    good = tmp_path / "good.dump"
    assert prefclub(url_env(source, tmp_path), "backup", str(good)).returncode == 0
    data = good.read_bytes()
    truncated = tmp_path / "truncated.dump"
    truncated.write_bytes(data[: len(data) * 2 // 3])
    garbage = tmp_path / "garbage.dump"
    garbage.write_text("this is not a backup\n")
    upgrade(target)
    with psycopg.connect(libpq_url(target)) as conn:
        conn.execute(
            "INSERT INTO members (login, display_name, role, must_change_password, "
            "active, is_bot, created_at) VALUES "
            "('petr', 'Пётр', 'member', false, true, false, now())"
        )
    kept = digest(url_env(target, tmp_path))
    cases = {
        truncated: "truncated",
        garbage: "not a pg_dump archive",
        _foreign_dump(scratch, tmp_path): "not a backup of a prefclub database",
        tmp_path / "missing.dump": "is not a file",
    }
    for path, message in cases.items():
        result = prefclub(url_env(target, tmp_path), "restore", "--force", str(path))
        assert result.returncode == 2, (path, result.stdout, result.stderr)
        assert message in result.stderr and "nothing was changed" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert digest(url_env(target, tmp_path)) == kept
    assert _members(target) == ["petr"]


def test_an_unwritable_backup_folder_is_a_clear_error(scratch: Scratch, tmp_path: Path) -> None:
    source = scratch()
    _club(source)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    env = {**url_env(source, tmp_path), "PREFCLUB_BACKUP_DIR": str(blocker / "backups")}
    result = prefclub(env, "backup")
    assert result.returncode == 2
    assert "not writable" in result.stderr and "Traceback" not in result.stderr
    named = prefclub(url_env(source, tmp_path), "backup", str(blocker / "x.dump"))
    assert named.returncode == 2 and "not writable" in named.stderr
    assert blocker.read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_backup_never_overwrites_a_file(scratch: Scratch, tmp_path: Path) -> None:
    source = scratch()
    _club(source)
    existing = tmp_path / "kept.dump"
    existing.write_text("precious")
    result = prefclub(url_env(source, tmp_path), "backup", str(existing))
    assert result.returncode == 2 and "already exists" in result.stderr
    assert existing.read_text() == "precious"


def test_backup_into_the_folder_is_a_manual_one(scratch: Scratch, tmp_path: Path) -> None:
    source = scratch()
    _club(source)
    folder = tmp_path / "club-backups"
    result = prefclub({**url_env(source, tmp_path), "PREFCLUB_BACKUP_DIR": str(folder)}, "backup")
    assert result.returncode == 0, result.stderr
    names = [p.name for p in folder.iterdir()]
    assert len(names) == 1 and names[0].startswith("prefclub-")
    assert names[0].endswith("-manual.dump")


def test_an_older_schema_is_migrated_after_the_restore(scratch: Scratch, tmp_path: Path) -> None:
    source, target = scratch(), scratch()
    upgrade(source, "0014")
    assert prefclub(url_env(source, tmp_path), "backup", str(tmp_path / "old.dump")).returncode == 0
    result = prefclub(url_env(target, tmp_path), "restore", str(tmp_path / "old.dump"))
    assert result.returncode == 0, result.stderr
    assert "schema revision 0014" in result.stdout and "migrated" in result.stdout
    with psycopg.connect(libpq_url(target)) as conn:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    assert row is not None and row[0] == head_revision()
