"""Alembic owns the schema: upgrade from empty, downgrade to base, and no drift."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from app.db import models  # noqa: F401
from app.db.base import Base
from app.db.migrate import downgrade, upgrade
from tests.support.databases import drop_database, scratch_database


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
