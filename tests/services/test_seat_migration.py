"""Revision 0005 on a database that already went through the draw race: its upgrade keeps the
first table draw and the earliest seat of each member per session, and then enforces both."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy.engine import make_url

from app.db.migrate import upgrade
from tests.support.databases import drop_database, scratch_database


@pytest.fixture
def at_0004(database_url: str) -> Iterator[str]:
    url, name = scratch_database(database_url)
    try:
        upgrade(url, "0004")
        yield url
    finally:
        drop_database(database_url, name)


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def test_upgrade_resolves_duplicates_of_the_race(at_0004: str) -> None:
    with psycopg.connect(_libpq(at_0004), autocommit=True) as conn:
        member = conn.execute(
            "INSERT INTO members (login, display_name, role, "
            "must_change_password, active, is_bot) VALUES "
            "('m', 'M', 'member', false, true, false) RETURNING id"
        ).fetchone()[0]  # type: ignore[index]
        session = conn.execute(
            "INSERT INTO club_sessions (starts_at, ends_at, extra) VALUES "
            "('2026-11-30 16:00Z', '2026-11-30 19:15Z', false) RETURNING id"
        ).fetchone()[0]  # type: ignore[index]
        draws = [
            conn.execute(
                "INSERT INTO draws (kind, club_session_id, record) VALUES "
                "('tables', %s, '{}') RETURNING id",
                (session,),
            ).fetchone()[0]
            for _ in range(3)
        ]  # type: ignore[index]
        tables = [
            conn.execute(
                "INSERT INTO tables (club_session_id, practice, preset, conventions, target, "
                "stake, players, first_dealer, version, status) VALUES "
                "(%s, false, 'club', '{}', 10, 0.5, 3, 0, 0, 'playing') RETURNING id",
                (session,),
            ).fetchone()[0]
            for _ in range(2)
        ]  # type: ignore[index]
        for table in tables:
            conn.execute(
                "INSERT INTO table_seats (table_id, seat, member_id) VALUES (%s, 0, %s)",
                (table, member),
            )
    upgrade(at_0004)
    with psycopg.connect(_libpq(at_0004), autocommit=True) as conn:
        kinds = conn.execute("SELECT id, kind FROM draws ORDER BY id").fetchall()
        assert kinds == [(draws[0], "tables"), (draws[1], "tables_void"), (draws[2], "tables_void")]
        seats = conn.execute(
            "SELECT table_id, club_session_id FROM table_seats ORDER BY table_id"
        ).fetchall()
        assert seats == [(tables[0], session), (tables[1], None)]
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "UPDATE table_seats SET club_session_id = %s WHERE table_id = %s",
                (session, tables[1]),
            )
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "INSERT INTO draws (kind, club_session_id, record) VALUES ('tables', %s, '{}')",
                (session,),
            )
