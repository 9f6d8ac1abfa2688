"""Restoring a backup into the database ``prefclub serve`` would use.

Before anything changes, the file is proven to be a complete ``pg_dump`` custom archive of a
prefclub database: ``pg_restore --list`` reads its table of contents (a foreign or damaged file
fails here), the archive must hold the ``alembic_version`` table with a revision this prefclub
knows, and ``pg_restore`` must read every data block to the end (a truncated file fails here).

The restore itself is one transaction: ``pg_restore`` turns the archive into SQL, and ``psql
--single-transaction`` runs it after dropping and recreating the ``public`` schema. A failure
anywhere rolls everything back, so the old data stays as it was. A database that already holds
tables is replaced only when the caller says so (``--force``).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psycopg

from app.db.migrate import head_revision, known_revisions
from app.db.pgtools import libpq_url, run_tool
from app.services.service_errors import ConflictError, ServiceError

RESET_SCHEMA = b"DROP SCHEMA IF EXISTS public CASCADE;\nCREATE SCHEMA public;\n"
NEWER_SETTINGS = {b"SET transaction_timeout = 0;\n": 170000}
"""Session settings the client tools (the wheel's newest) write at the head of a script, with
the server version that first knows each: an older server (``postgres:16`` of
docker-compose.yml, or a ``DATABASE_URL`` of PostgreSQL 15) refuses the unknown name, so the
line is left out for it."""
_HEAD_LINES = (b"SET ", b"SELECT pg_catalog.set_config(", b"--", b"\\", b"\n")
"""How the lines of a script's head start (settings, comments, psql's meta-commands)."""
_ALEMBIC_TOC = re.compile(rb"^\d+; \d+ \d+ TABLE DATA public alembic_version ", re.MULTILINE)
_REVISION = re.compile(r"^[0-9A-Za-z_]{1,32}$")


class BadBackupError(ServiceError):
    """The file is not a complete backup of a prefclub database."""

    code = "backup_invalid"


class NotEmptyError(ConflictError):
    """The target database already holds tables and ``force`` was not given."""

    code = "restore_target_not_empty"


@dataclass(frozen=True)
class ArchiveInfo:
    """What a checked backup holds: its schema revision and whether it is older than head."""

    revision: str
    outdated: bool


async def inspect_archive(file: Path) -> ArchiveInfo:
    """Check that ``file`` is a complete prefclub backup (see the module docstring)."""
    if not file.is_file():
        raise BadBackupError(f"{file} is not a file")
    listing = await run_tool("pg_restore", "--list", str(file))
    if not listing.ok:
        raise BadBackupError(f"{file} is not a pg_dump archive ({listing.stderr})")
    if not _ALEMBIC_TOC.search(listing.stdout):
        raise BadBackupError(
            f"{file} is not a backup of a prefclub database (it has no alembic_version table)"
        )
    data = await run_tool(
        "pg_restore", "--data-only", "--table=alembic_version", "--file=-", str(file)
    )
    revision = _revision(data.stdout.decode(errors="replace")) if data.ok else None
    if revision is None:
        raise BadBackupError(f"{file}: the schema revision cannot be read ({data.stderr})")
    if revision not in known_revisions():
        raise BadBackupError(
            f"{file} was made by another prefclub version (schema revision "
            f"{revision} is unknown here)"
        )
    whole = await run_tool("pg_restore", "--file=/dev/null", str(file))
    if not whole.ok:
        raise BadBackupError(f"{file} is damaged or truncated ({whole.stderr})")
    return ArchiveInfo(revision, revision != head_revision())


def _revision(copy_sql: str) -> str | None:
    """The one revision of an ``alembic_version`` COPY block."""
    lines = copy_sql.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("COPY public.alembic_version"):
            rows = lines[i + 1 : lines.index("\\.", i + 1)] if "\\." in lines[i + 1 :] else []
            if len(rows) == 1 and _REVISION.match(rows[0]):
                return rows[0]
    return None


async def public_tables(url: str) -> int:
    """How many tables the ``public`` schema of the database at ``url`` holds."""
    async with await psycopg.AsyncConnection.connect(libpq_url(url)) as conn:
        row = await (
            await conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        ).fetchone()
    return int(row[0]) if row else 0


async def server_version(url: str) -> int:
    """The server's ``server_version_num`` (160004 for 16.4)."""
    async with await psycopg.AsyncConnection.connect(libpq_url(url)) as conn:
        row = await (await conn.execute("SHOW server_version_num")).fetchone()
    return int(row[0]) if row else 0


def fit_script(script: Path, version: int) -> None:
    """Leave out of the script's head — the session settings before its first statement of
    data or schema — the settings the server at ``version`` does not know
    (:data:`NEWER_SETTINGS`); everything from the first other line on is copied as it is."""
    unknown = {line for line, since in NEWER_SETTINGS.items() if version < since}
    if not unknown:
        return
    fitted = script.with_suffix(".fitted.sql")
    with script.open("rb") as source, fitted.open("wb") as target:
        while line := source.readline():
            if line not in unknown:
                target.write(line)
            if not line.startswith(_HEAD_LINES):
                break
        while chunk := source.read(1 << 20):
            target.write(chunk)
    fitted.replace(script)


async def restore(url: str, file: Path, *, force: bool) -> ArchiveInfo:
    """Restore the backup ``file`` into the database at ``url`` in one transaction.

    Refuses (NotEmptyError, nothing changed) when the database holds tables and ``force`` is
    false; BadBackupError (nothing changed) for a file that is not a complete prefclub backup.
    The caller migrates the schema to head afterwards when the result says it is outdated.
    """
    info = await inspect_archive(file)
    tables = await public_tables(url)
    if tables and not force:
        raise NotEmptyError(
            f"the database already holds {tables} tables; restore into an "
            "empty data folder or database, or pass --force to replace it"
        )
    with tempfile.TemporaryDirectory(prefix="prefclub-restore-") as tmp:
        script = Path(tmp) / "restore.sql"
        reset = Path(tmp) / "reset.sql"
        reset.write_bytes(RESET_SCHEMA)
        made = await run_tool("pg_restore", "--no-owner", "--no-acl", f"--file={script}", str(file))
        if not made.ok:
            raise BadBackupError(f"{file} cannot be read ({made.stderr})")
        fit_script(script, await server_version(url))
        applied = await run_tool(
            "psql",
            "--no-psqlrc",
            "--quiet",
            "--single-transaction",
            "--set=ON_ERROR_STOP=1",
            f"--file={reset}",
            f"--file={script}",
            f"--dbname={libpq_url(url)}",
        )
        if not applied.ok:
            raise ServiceError(
                f"the restore failed and was rolled back: {applied.stderr}",
                code="restore_failed",
                status=500,
            )
    # A restored database has no planner statistics until autovacuum gets to it: without
    # them a night's page read every event of the club (1.4 s instead of 17 ms over 9 million
    # events, bench.pages). A failed ANALYZE only leaves that to autovacuum.
    await run_tool(
        "psql", "--no-psqlrc", "--quiet", "--command=ANALYZE", f"--dbname={libpq_url(url)}"
    )
    return info
