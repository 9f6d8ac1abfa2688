"""Upgrades on real data: databases written by older commits, upgraded by ``prefclub migrate``.

Each dump of ``tests/data/upgrade`` (rebuilt by ``python -m tests.data.upgrade.build_dumps``,
docs/formats.md) is loaded into a scratch database and upgraded by the ``prefclub migrate``
command; then the current code must agree with what the old code said in the dump's manifest:
every finished pulka re-scores to the same sheet and settlement (and every live deal replays to
its stored result), the fund's balance and every member's account are equal, every member
logs in over HTTP, and the live table rebuilds to the same state. Two more tests break a
stored pulka on purpose: a record that no longer matches, an unknown stored format.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db.engine import make_engine, make_sessionmaker
from app.db.models.archive import PulkaMemberStats
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table
from app.main import create_app
from app.realtime import engine
from app.realtime.formats import STORED_FORMAT_UNKNOWN, StoredFormatError
from app.realtime.store import load_state
from app.rules import COSTLY_VERSION
from app.rules.scoring.record import score_document
from app.services import archive, fund, member_profile
from app.services.archive import REPLAY_MISMATCH, ArchiveError
from app.services.member_profile import costliest
from app.services.restore import fit_script
from tests.support.databases import (
    PROJECT_ROOT,
    drop_database,
    libpq_url,
    pg_program,
    scratch_database,
    server_version_num,
)

DUMPS = PROJECT_ROOT / "tests" / "data" / "upgrade"
STEMS = sorted(p.name.removesuffix(".sql.gz") for p in DUMPS.glob("*.sql.gz"))


def test_there_are_dumps_of_at_least_two_older_revisions() -> None:
    assert len({stem.split("-")[0] for stem in STEMS}) >= 2


def _migrate(url: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "PREFCLUB_ENV": "test",
        "PREFCLUB_DATA_DIR": str(tmp),
        "SECRET_KEY": "upgrade-test-secret-key-long-enough",
    }
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _load(url: str, stem: str, tmp: Path) -> None:
    """Load a dump as the club's restore would: the settings an older server (a
    ``TEST_DATABASE_URL`` of PostgreSQL 15) does not know are left out first."""
    script = tmp / f"{stem}.sql"
    script.write_bytes(gzip.decompress((DUMPS / f"{stem}.sql.gz").read_bytes()))
    fit_script(script, server_version_num(url))
    subprocess.run(
        [pg_program(url, "psql"), "-q", "-v", "ON_ERROR_STOP=1", "--dbname", libpq_url(url)],
        stdin=script.open("rb"),
        check=True,
        capture_output=True,
        timeout=120,
    )


class Upgraded:
    """One dump loaded and upgraded, with its manifest."""

    def __init__(self, url: str, stem: str, migrated: subprocess.CompletedProcess[str]) -> None:
        self.url = url
        self.stem = stem
        self.migrated = migrated
        self.manifest: dict[str, Any] = json.loads((DUMPS / f"{stem}.json").read_text("utf-8"))


@pytest.fixture(params=STEMS)
def upgraded(
    request: pytest.FixtureRequest, database_url: str, tmp_path: Path
) -> Iterator[Upgraded]:
    url, name = scratch_database(database_url)
    try:
        _load(url, request.param, tmp_path)
        yield Upgraded(url, request.param, _migrate(url, tmp_path))
    finally:
        drop_database(database_url, name)


@pytest.fixture
async def db(upgraded: Upgraded) -> AsyncIterator[AsyncSession]:
    engine = make_engine(upgraded.url)
    try:
        async with make_sessionmaker(engine)() as session:
            yield session
    finally:
        await engine.dispose()


async def test_an_older_database_upgrades_and_reads_the_same(
    upgraded: Upgraded, db: AsyncSession, tmp_path: Path
) -> None:
    assert upgraded.migrated.returncode == 0, upgraded.migrated.stderr
    manifest = upgraded.manifest
    assert manifest["pulkas"], "the dump has finished pulkas"
    presets = {p["preset"] for p in manifest["pulkas"]}
    assert presets == set(manifest["presets"]), "a pulka of every preset of that commit"
    for expected in manifest["pulkas"]:
        row = await db.get(PulkaRow, expected["id"])
        assert row is not None and row.status == "finished"
        assert (row.sheet, row.settlement) == (expected["sheet"], expected["settlement"])
        rescored = score_document(row.record)
        assert rescored["sheet"] == expected["sheet"], f"pulka {row.id} sheet"
        assert rescored["settlement"] == expected["settlement"], f"pulka {row.id} settlement"
        detail = await archive.pulka_detail(db, row.id)
        assert detail["sheet"] == expected["sheet"] and len(detail["lines"]) >= 1
        if expected["mode"] == "live":
            for deal in detail["deal_list"]:
                replayed = await archive.deal_replay(db, row.id, deal["deal_no"])
                assert replayed["outcome"] == deal["outcome"] and replayed["verified"]
    await _same_fund(db, manifest["fund"])
    await _same_live_table(db, manifest["live"])
    await _stored_costly_deals_as_the_logs_say(db)
    await _everyone_logs_in(upgraded.url, manifest["members"], tmp_path)


async def _stored_costly_deals_as_the_logs_say(db: AsyncSession) -> None:
    """Migration 0022 tallied every member's costly deals of every pulka: the member's page
    finds from them what weighing every deal again from the logs finds."""
    rows = (await db.execute(select(PulkaMemberStats.member_id, PulkaMemberStats.costly))).all()
    assert rows and all(costly["version"] == COSTLY_VERSION for _, costly in rows)
    members = sorted({member_id for member_id, _ in rows})
    stored = [costliest(await member_profile._deals(db, m)) for m in members]
    await db.execute(update(PulkaMemberStats).values(costly=None))
    weighed = [costliest(await member_profile._deals(db, m)) for m in members]
    await db.rollback()
    assert any(stored) and stored == weighed


async def _same_fund(db: AsyncSession, expected: dict[str, Any]) -> None:
    assert await fund.balance(db) == Decimal(expected["balance"])
    accounts = {
        str(d.member_id): {"owed": Decimal(d.owed), "paid": Decimal(d.paid)}
        for d in await fund.debts(db)
    }
    assert accounts == {
        k: {"owed": Decimal(v["owed"]), "paid": Decimal(v["paid"])}
        for k, v in expected["accounts"].items()
    }


async def _same_live_table(db: AsyncSession, expected: dict[str, Any]) -> None:
    table = await db.get(Table, expected["table_id"])
    assert table is not None and table.version == expected["seq"]
    state = await load_state(db, table, None)
    assert (state.deal_no, state.status, list(state.names)) == (
        expected["deal_no"],
        expected["status"],
        expected["names"],
    )
    assert state.pulka.sheet.to_json() == expected["sheet"]
    assert state.deal is not None and engine.to_move(state.deal) == expected["to_move"]


async def _everyone_logs_in(url: str, members: list[dict[str, Any]], tmp: Path) -> None:
    settings = Settings(
        DATABASE_URL=url,
        PREFCLUB_DATA_DIR=tmp,
        PREFCLUB_ENV="test",
        SECRET_KEY="upgrade-test-secret-key-that-is-long-enough",
    )
    app = create_app(settings)
    engine = make_engine(url)
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    app.state.database_url = url
    try:
        for member in members:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://127.0.0.1:8000"
            ) as client:
                answer = await client.post(
                    "/api/auth/login",
                    json={"login": member["login"], "password": member["password"]},
                )
                assert answer.status_code == 200, (member["login"], answer.text)
                me = (await client.get("/api/auth/me")).json()
                assert me["id"] == member["id"] and me["role"] == member["role"]
    finally:
        await engine.dispose()


def _execute(url: str, statement: str, *args: Any) -> None:
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        conn.execute(statement, args)


@pytest.mark.parametrize("upgraded", STEMS[-1:], indirect=True)
async def test_a_record_that_no_longer_matches_is_an_error_naming_the_pulka(
    upgraded: Upgraded, tmp_path: Path
) -> None:
    pulka_id = upgraded.manifest["pulkas"][0]["id"]
    # The stake written in the record doubled: it re-scores to another settlement.
    _execute(
        upgraded.url,
        "UPDATE pulkas SET record = jsonb_set(record, '{stake}', '\"1.00\"') WHERE id = %s",
        pulka_id,
    )
    again = _migrate(upgraded.url, tmp_path)
    assert again.returncode == 3
    assert f"pulka {pulka_id}:" in again.stderr and "settle" in again.stderr


@pytest.mark.parametrize("upgraded", STEMS[-1:], indirect=True)
async def test_a_deal_replay_that_does_not_match_is_an_error_naming_the_pulka(
    upgraded: Upgraded, db: AsyncSession
) -> None:
    pulka = next(p for p in upgraded.manifest["pulkas"] if p["mode"] == "live")
    _execute(
        upgraded.url,
        "UPDATE table_events SET payload = jsonb_set(payload, '{outcome,dealer}', "
        "to_jsonb(((payload #>> '{outcome,dealer}')::int + 1) %% 3)) "
        "WHERE table_id = %s AND kind = 'deal_ended' AND payload ->> 'deal_no' = '1'",
        pulka["table_id"],
    )
    with pytest.raises(ArchiveError) as refused:
        await archive.deal_replay(db, pulka["id"], 1)
    assert refused.value.code == REPLAY_MISMATCH
    assert f"pulka {pulka['id']}, deal 1" in refused.value.message


@pytest.mark.parametrize("upgraded", STEMS[-1:], indirect=True)
async def test_an_unknown_stored_format_is_refused(
    upgraded: Upgraded, db: AsyncSession, tmp_path: Path
) -> None:
    live = upgraded.manifest["live"]["table_id"]
    pulka = upgraded.manifest["pulkas"][0]
    _execute(
        upgraded.url,
        "UPDATE table_events SET payload = payload || "
        "'{\"format\": \"deal/9\"}' WHERE kind = 'deal_started' AND table_id IN (%s, %s)",
        live,
        pulka["table_id"],
    )
    table = await db.get(Table, live)
    assert table is not None
    with pytest.raises(StoredFormatError) as refused:
        await load_state(db, table, None)
    assert f"table {live}" in refused.value.message and "deal/9" in refused.value.message
    with pytest.raises(ArchiveError) as archived:
        await archive.deal_replay(db, pulka["id"], 1)
    assert archived.value.code == STORED_FORMAT_UNKNOWN
    assert f"pulka {pulka['id']}" in archived.value.message
    _execute(
        upgraded.url,
        'UPDATE pulkas SET state = state || \'{"format": "prefclub-pulka/7"}\' WHERE id = %s',
        pulka["id"],
    )
    again = _migrate(upgraded.url, tmp_path)
    assert again.returncode == 3 and f"pulka {pulka['id']}: " in again.stderr
    assert "prefclub-pulka/7" in again.stderr
