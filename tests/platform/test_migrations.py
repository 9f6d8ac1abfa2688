"""Alembic owns the schema: upgrade from empty, downgrade to base, and no drift; a database at
the shipped head is left alone without loading Alembic."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from app.db import models  # noqa: F401
from app.db.base import Base
from app.db.migrate import (
    SHIPPED_HEAD,
    downgrade,
    migrations_head,
    recorded_revisions,
    upgrade,
)
from tests.support.databases import drop_database, scratch_database
from tests.support.server import PROJECT_ROOT


@pytest.fixture
def empty_database(database_url: str) -> Iterator[str]:
    url, name = scratch_database(database_url)
    try:
        yield url
    finally:
        drop_database(database_url, name)


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_from_empty_then_downgrade_to_base(empty_database: str) -> None:
    upgrade(empty_database)
    assert {"members", "alembic_version"} <= _tables(empty_database)
    downgrade(empty_database, "base")
    assert _tables(empty_database) <= {"alembic_version"}
    upgrade(empty_database)
    assert "members" in _tables(empty_database)


def test_models_and_migrations_do_not_drift(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()
    assert diff == [], f"models differ from migrations: {diff}"


def test_the_shipped_head_is_the_head_of_the_migrations() -> None:
    """A new migration moves ``SHIPPED_HEAD`` with it, or a database at the old head would be
    taken for up to date."""
    assert migrations_head() == SHIPPED_HEAD, "set SHIPPED_HEAD (app/db/migrate.py) to the new head"


UPGRADE_AND_SAY_IF_ALEMBIC_LOADED = (
    "import sys; from app.db.migrate import upgrade; upgrade(sys.argv[1]); "
    "print('alembic' in sys.modules)"
)


def _upgrade_in_a_process(url: str) -> bool:
    """``upgrade(url)`` in a fresh interpreter; whether it loaded Alembic."""
    done = subprocess.run(
        [sys.executable, "-c", UPGRADE_AND_SAY_IF_ALEMBIC_LOADED, url],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return {"True": True, "False": False}[done.stdout.strip()]


def test_only_a_database_behind_the_head_loads_alembic(empty_database: str) -> None:
    assert recorded_revisions(empty_database) is None
    assert _upgrade_in_a_process(empty_database) is True
    assert recorded_revisions(empty_database) == {SHIPPED_HEAD}
    assert _upgrade_in_a_process(empty_database) is False
    assert recorded_revisions(empty_database) == {SHIPPED_HEAD}


def test_a_database_one_revision_behind_is_upgraded(empty_database: str) -> None:
    upgrade(empty_database)
    downgrade(empty_database, "-1")
    behind = recorded_revisions(empty_database)
    assert behind is not None and behind != {SHIPPED_HEAD}
    upgrade(empty_database)
    assert recorded_revisions(empty_database) == {SHIPPED_HEAD}
