"""Running Alembic from the application (``prefclub migrate``, ``make run``, tests).

Alembic itself is loaded only when there is something to migrate: a database already at
:data:`SHIPPED_HEAD` is told so by one query, so a server's start, its ``/readyz`` and every
``prefclub`` command over an up-to-date club skip loading Alembic and every migration file
(0.6–0.7 CPU s a process).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import create_engine, pool, text

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

PROJECT_ROOT = Path(__file__).resolve().parents[2]

SHIPPED_HEAD = "0022"
"""The head revision of ``migrations/`` (tests/platform/test_migrations.py keeps it equal to
Alembic's reading of the folder: a new migration moves it)."""


def alembic_config(url: str) -> Config:
    """An Alembic config for the project's migrations against ``url``."""
    from alembic.config import Config

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def recorded_revisions(url: str) -> frozenset[str] | None:
    """The revisions the database at ``url`` records in ``alembic_version``; None when it has
    no such table (a database never migrated)."""
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            if conn.scalar(text("SELECT to_regclass('alembic_version')")) is None:
                return None
            rows = conn.execute(text("SELECT version_num FROM alembic_version"))
            return frozenset(str(row[0]) for row in rows)
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the schema at ``url`` up to ``revision`` (nothing to do, and no Alembic loaded,
    when it is at the shipped head already)."""
    if revision == "head" and recorded_revisions(url) == frozenset({SHIPPED_HEAD}):
        return
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    """Take the schema at ``url`` down to ``revision``."""
    from alembic import command

    command.downgrade(alembic_config(url), revision)


def head_revision() -> str:
    """The head revision of the migrations shipped with this code (``/readyz`` compares the
    database's ``alembic_version`` with it)."""
    return SHIPPED_HEAD


def _scripts() -> ScriptDirectory:
    """Alembic's view of ``migrations/`` (loads every migration file)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(PROJECT_ROOT / "migrations"))


def migrations_head() -> str:
    """The head revision as Alembic reads it from ``migrations/``."""
    head = _scripts().get_current_head()
    if head is None:  # pragma: no cover - the project always ships migrations
        raise RuntimeError("no migrations are shipped")
    return head


def known_revisions() -> frozenset[str]:
    """Every revision id of the project's migrations."""
    return frozenset(rev.revision for rev in _scripts().walk_revisions())
