"""The audit log is append-only and hash-chained, by PostgreSQL itself (issue 23).

These tests run on a database of their own (migrated once for the module) because they commit
from many connections and, as the superuser, tamper with rows behind the triggers' back — each
tampering inside a transaction that is rolled back afterwards.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.migrate import upgrade
from app.db.models.audit import CHAIN_FUNCTION, REFUSE_FUNCTION, AuditEntry
from app.services import audit
from tests.support.databases import drop_database, scratch_database


@pytest.fixture(scope="module")
def audit_url(database_url: str) -> Iterator[str]:
    url, name = scratch_database(database_url)
    try:
        upgrade(url)
        yield url
    finally:
        drop_database(database_url, name)


@pytest.fixture
async def audit_engine(audit_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(audit_url)
    yield engine
    await engine.dispose()


async def _append(engine: AsyncEngine, n: int, action: str = "club.setting") -> None:
    async with session_scope(make_sessionmaker(engine)) as db:
        for i in range(n):
            await audit.record(
                db,
                actor=None,
                action=action,
                target="club_settings:1",
                before={"move_timer_seconds": None},
                after={"move_timer_seconds": 10 + i, "note": 'ё "q"\n\t'},
                address="192.0.2.1",
            )


async def _count(engine: AsyncEngine) -> int:
    async with make_sessionmaker(engine)() as db:
        return int(await db.scalar(select(func.count()).select_from(AuditEntry)) or 0)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_log SET after = '{}'::jsonb",
        "UPDATE audit_log SET hash = repeat('f', 64) WHERE id = (SELECT min(id) FROM audit_log)",
        "DELETE FROM audit_log",
        "DELETE FROM audit_log WHERE id = (SELECT max(id) FROM audit_log)",
        "TRUNCATE audit_log",
        "TRUNCATE audit_log CASCADE",
    ],
)
async def test_the_database_refuses_to_change_or_remove_a_row(
    audit_engine: AsyncEngine, statement: str
) -> None:
    await _append(audit_engine, 2)
    before = await _count(audit_engine)
    async with audit_engine.connect() as conn:
        with pytest.raises(DBAPIError, match="audit_log is append-only"):
            await conn.execute(text(statement))
    assert await _count(audit_engine) == before
    async with make_sessionmaker(audit_engine)() as db:
        assert await audit.check_audit_chain(db) == []


async def test_rows_chain_from_the_genesis_and_check_whole(audit_engine: AsyncEngine) -> None:
    await _append(audit_engine, 3)
    async with make_sessionmaker(audit_engine)() as db:
        rows = list((await db.scalars(select(AuditEntry).order_by(AuditEntry.id))).all())
        assert rows[0].prev_hash == "0" * 64
        for earlier, later in itertools.pairwise(rows):
            assert later.prev_hash == earlier.hash
        assert all(re.fullmatch("[0-9a-f]{64}", r.hash) for r in rows)
        assert all(audit.row_hash(r.prev_hash, r) == r.hash for r in rows)
        assert await audit.check_audit_chain(db) == []


async def test_the_client_cannot_choose_the_hashes(audit_engine: AsyncEngine) -> None:
    async with session_scope(make_sessionmaker(audit_engine)) as db:
        await db.execute(
            text(
                "INSERT INTO audit_log (id, action, target, prev_hash, hash, format) "
                "VALUES (1, 'member.role', 'member:1', 'x', 'y', 1)"
            )
        )
    async with make_sessionmaker(audit_engine)() as db:
        last = await db.scalar(select(AuditEntry).order_by(AuditEntry.id.desc()).limit(1))
        assert last is not None and last.hash != "y" and last.prev_hash != "x"
        assert await audit.check_audit_chain(db) == []


async def _tampered(engine: AsyncEngine, statement: str) -> list[str]:
    """The chain check's findings after ``statement`` runs behind the disabled triggers, in a
    transaction rolled back afterwards (the superuser may do this; the app's role never)."""
    async with engine.connect() as conn:
        await conn.begin()
        await conn.execute(text("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change"))
        await conn.execute(text(statement))
        db = AsyncSession(bind=conn)
        try:
            return await audit.check_audit_chain(db)
        finally:
            await db.close()
            await conn.rollback()


async def test_the_check_finds_an_edited_row(audit_engine: AsyncEngine) -> None:
    await _append(audit_engine, 3)
    async with make_sessionmaker(audit_engine)() as db:
        middle = int(await db.scalar(select(func.max(AuditEntry.id))) or 0) - 1
    problems = await _tampered(
        audit_engine,
        f"UPDATE audit_log SET after = '{{\"move_timer_seconds\": 3600}}'::jsonb "
        f"WHERE id = {middle}",
    )
    assert problems == [
        f"audit row {middle}: its hash does not match its contents (the row was edited)"
    ]
    assert (
        await _tampered(
            audit_engine, f"UPDATE audit_log SET address = '10.0.0.1' WHERE id = {middle}"
        )
        != []
    )
    assert (
        await _tampered(
            audit_engine, f"UPDATE audit_log SET at = at - interval '1 day' WHERE id = {middle}"
        )
        != []
    )


async def test_the_check_finds_a_removed_row(audit_engine: AsyncEngine) -> None:
    await _append(audit_engine, 3)
    async with make_sessionmaker(audit_engine)() as db:
        middle = int(await db.scalar(select(func.max(AuditEntry.id))) or 0) - 1
    problems = await _tampered(audit_engine, f"DELETE FROM audit_log WHERE id = {middle}")
    assert len(problems) == 1
    assert problems[0].startswith(f"audit row {middle + 1}: prev_hash")
    assert "removed" in problems[0]


async def test_a_rolled_back_change_leaves_no_row(audit_engine: AsyncEngine) -> None:
    before = await _count(audit_engine)
    with pytest.raises(RuntimeError):
        async with session_scope(make_sessionmaker(audit_engine)) as db:
            await audit.record(
                db,
                actor=None,
                action="club.setting",
                target="club_settings:1",
                before=None,
                after={"move_timer_seconds": 5},
            )
            raise RuntimeError("the change failed")
    assert await _count(audit_engine) == before
    await _append(audit_engine, 1)
    async with make_sessionmaker(audit_engine)() as db:
        assert await audit.check_audit_chain(db) == []


async def test_concurrent_audited_changes_keep_one_unbroken_chain(
    audit_engine: AsyncEngine,
) -> None:
    before = await _count(audit_engine)
    await asyncio.gather(
        *(_append(audit_engine, 2, action=f"fund.vote_{chr(97 + i)}") for i in range(24))
    )
    assert await _count(audit_engine) == before + 48
    async with make_sessionmaker(audit_engine)() as db:
        rows = list((await db.scalars(select(AuditEntry).order_by(AuditEntry.id))).all())
        assert len({r.prev_hash for r in rows}) == len(rows)  # no two rows share a predecessor
        assert await audit.check_audit_chain(db) == []


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1, "a": 2, "aa": [], "": {}, "é": "x", "z": None, "y": True, "x": False},
        {"text": 'quote " backslash \\ newline \n tab \t bell \x07 del \x7f ё 😀 </script>'},
        {"nested": {"list": [1, -2, "3.50", {"k": [None]}], "big": 12345678901234567890}},
        {"Б": 1, "B": 2, "b": 3, "ab": 4, "é": 5},
    ],
)
async def test_jsonb_text_is_what_postgresql_prints(
    audit_engine: AsyncEngine, value: dict[str, object]
) -> None:
    async with make_sessionmaker(audit_engine)() as db:
        printed = await db.scalar(text("SELECT CAST(:v AS jsonb)::text"), {"v": json.dumps(value)})
    assert printed == audit.jsonb_text(value)


def _body(source: str) -> str:
    return source.split("$$", 2)[1]


async def test_the_installed_triggers_are_the_models(audit_engine: AsyncEngine) -> None:
    async with audit_engine.connect() as conn:
        installed = dict(
            (
                await conn.execute(
                    text(
                        "SELECT proname, prosrc FROM pg_proc "
                        "WHERE proname IN ('audit_log_chain', 'audit_log_refuse')"
                    )
                )
            ).all()
        )
        triggers = set(
            (
                await conn.execute(
                    text(
                        "SELECT tgname FROM pg_trigger WHERE tgrelid = 'audit_log'::regclass "
                        "AND NOT tgisinternal AND tgenabled = 'O'"
                    )
                )
            ).scalars()
        )
    assert installed == {
        "audit_log_chain": _body(CHAIN_FUNCTION),
        "audit_log_refuse": _body(REFUSE_FUNCTION),
    }
    assert triggers == {"audit_log_chain", "audit_log_no_change", "audit_log_no_truncate"}
