"""Tampering with stored deals is seen (issue 23's acceptance): in a copy of a club's database,
edit one deal's deck, drop one deal, drop a chain entry, deal one around the chain — and
:func:`check_deal_chain` names the table and the deal each time, while the untouched original
stays whole."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from app.services.deal_chain import check_database
from tests.support.backup_cli import prefclub, url_env
from tests.support.chain_play import new_members, new_table, play_deals
from tests.support.databases import drop_database, scratch_database


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _seed(url: str) -> None:
    """Two practice tables: two deals played at the first, one at the second."""
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        for prefix, deals in (("tamper-a", 2), ("tamper-b", 1)):
            ids = await new_members(sessions, prefix)
            await play_deals(sessions, await new_table(sessions, ids), ids, deals)
    finally:
        await engine.dispose()


@pytest.fixture(scope="module")
def club(database_url: str) -> Iterator[str]:
    """A club database with deals played, never changed by a test (each tampers a copy)."""
    url, name = scratch_database(database_url)
    upgrade(url)
    asyncio.run(_seed(url))
    try:
        yield url
    finally:
        drop_database(database_url, name)


@pytest.fixture
def copy(club: str, database_url: str) -> Iterator[str]:
    """A copy of the club's database (``CREATE DATABASE ... TEMPLATE``)."""
    url, name = scratch_database(database_url)
    drop_database(database_url, name)
    admin = make_url(club).set(database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(_libpq(admin), autocommit=True) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(make_url(club).database or "")
            )
        )
    try:
        yield url
    finally:
        drop_database(database_url, name)


def _run(url: str, *statements: str) -> list[tuple[int, int]]:
    """Run ``statements`` as the database's owner; return the ended deals (table, seq)."""
    with psycopg.connect(_libpq(url), autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)
        return [
            tuple(r)
            for r in conn.execute(  # type: ignore[misc]
                "SELECT table_id, seq FROM table_events WHERE kind = 'deal_started' "
                "ORDER BY table_id, seq"
            ).fetchall()
        ]


def _one_deal(url: str) -> tuple[int, int]:
    deals = _run(url)
    assert len(deals) == 5
    return deals[1]  # the second deal of the first table: played out


def test_the_untouched_club_is_whole(club: str) -> None:
    assert asyncio.run(check_database(club)) == []


def _verify_fails(url: str, tmp_path: Path, naming: str) -> None:
    """``prefclub verify`` over ``url`` exits 1, names the deal, and still ends on its digest."""
    result = prefclub(url_env(url, tmp_path), "verify")
    assert result.returncode == 1, result.stdout + result.stderr
    assert naming in result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1].startswith("digest sha256:")


def test_verify_passes_on_the_untouched_club(club: str, tmp_path: Path) -> None:
    result = prefclub(url_env(club, tmp_path), "verify")
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_edited_deck_is_found(copy: str, tmp_path: Path) -> None:
    table, seq = _one_deal(copy)
    # Swap the first two cards of the stored deck: a re-deal after the commitment was shown.
    _run(
        copy,
        f"""UPDATE table_events SET payload = jsonb_set(jsonb_set(payload, '{{deck,0}}',
        payload -> 'deck' -> 1), '{{deck,1}}', payload -> 'deck' -> 0)
        WHERE table_id = {table} AND seq = {seq}""",
    )
    problems = asyncio.run(check_database(copy))
    assert len(problems) == 1
    assert f"deal table {table} seq {seq}" in problems[0] and "edited" in problems[0]
    _verify_fails(copy, tmp_path, f"deal table {table} seq {seq}")


def test_an_edited_salt_is_found(copy: str) -> None:
    table, seq = _one_deal(copy)
    _run(
        copy,
        f"""UPDATE table_events SET payload = jsonb_set(payload, '{{salt}}',
        to_jsonb(repeat('0', 32))) WHERE table_id = {table} AND seq = {seq}""",
    )
    problems = asyncio.run(check_database(copy))
    assert len(problems) == 1 and f"deal table {table} seq {seq}" in problems[0]


def test_a_dropped_deal_is_found(copy: str, tmp_path: Path) -> None:
    table, seq = _one_deal(copy)
    _run(copy, f"DELETE FROM table_events WHERE table_id = {table} AND seq >= {seq}")
    problems = asyncio.run(check_database(copy))
    assert any(f"deal table {table} seq {seq}" in p and "dropped" in p for p in problems)
    _verify_fails(copy, tmp_path, f"deal table {table} seq {seq}")


def test_a_chain_entry_dropped_behind_the_triggers_back_is_found(copy: str) -> None:
    table, seq = _one_deal(copy)
    # Only a superuser can switch the triggers off; the links still give it away.
    _run(
        copy,
        "SET session_replication_role = replica",
        f"DELETE FROM deal_chain WHERE table_id = {table} AND seq = {seq}",
    )
    problems = asyncio.run(check_database(copy))
    assert any(f"deal table {table} seq {seq}" in p and "not in the chain" in p for p in problems)
    assert any("missing from the chain" in p for p in problems)
    assert any("prev_hash" in p for p in problems)


def test_a_deal_dealt_around_the_chain_is_found(copy: str) -> None:
    table, seq = _one_deal(copy)
    _run(
        copy,
        "SET session_replication_role = replica",
        f"""INSERT INTO table_events (table_id, seq, kind, payload)
             SELECT table_id, 1000, kind, payload FROM table_events
             WHERE table_id = {table} AND seq = {seq}""",
    )
    problems = asyncio.run(check_database(copy))
    assert problems == [f"deal table {table} seq 1000 is not in the chain of deals"]
