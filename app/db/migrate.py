"""Running Alembic from the application (``prefclub migrate``, ``make run``, tests)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def alembic_config(url: str) -> Config:
    """An Alembic config for the project's migrations against ``url``."""
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the schema at ``url`` up to ``revision``."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    """Take the schema at ``url`` down to ``revision``."""
    command.downgrade(alembic_config(url), revision)


@cache
def head_revision() -> str:
    """The head revision of the migrations shipped with this code (read from ``migrations/``
    once per process: ``/readyz`` compares the database's ``alembic_version`` with it)."""
    script = ScriptDirectory(str(PROJECT_ROOT / "migrations"))
    head = script.get_current_head()
    if head is None:  # pragma: no cover - the project always ships migrations
        raise RuntimeError("no migrations are shipped")
    return head


def known_revisions() -> frozenset[str]:
    """Every revision id of the project's migrations."""
    script = ScriptDirectory.from_config(alembic_config("postgresql://"))
    return frozenset(rev.revision for rev in script.walk_revisions())
