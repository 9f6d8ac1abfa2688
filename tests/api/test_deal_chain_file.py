"""``GET /api/archive/chain``: the club's chain of deals as one ``deal-chain/1`` file that a member
re-checks without the server — and that never shows the deck or salt of a deal not ended."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.bots.harness import make_member
from app.config import Settings
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models.chain import GENESIS
from app.main import create_app
from app.services import deal_chain_file
from app.services.deal_chain import link_hash
from app.services.pulkas import close_pulka
from tests.support.chain_play import new_members, new_table, play_deals
from tests.support.databases import migrated_database

Sessions = async_sessionmaker[AsyncSession]


@pytest.fixture(scope="module")
def chain_db(database_url: str) -> Iterator[str]:
    with migrated_database(database_url) as url:
        yield url


@pytest.fixture
async def sessions(chain_db: str) -> AsyncIterator[Sessions]:
    engine = make_engine(chain_db)
    try:
        yield make_sessionmaker(engine)
    finally:
        await engine.dispose()


@pytest.fixture
async def client(
    chain_db: str, sessions: Sessions, tmp_path: Path
) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        DATABASE_URL=chain_db,
        PREFCLUB_DATA_DIR=tmp_path,
        SECRET_KEY="test-secret-key-that-is-long-enough-for-signing",
        PREFCLUB_ENV="test",
    )
    app = create_app(settings)
    app.state.engine = sessions.kw["bind"]
    app.state.sessionmaker = sessions
    app.state.database_url = chain_db
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as c:
        yield c


def _commitment(deck: list[str], salt: str) -> str:
    """R-D4 from the published texts alone, as the browser computes it."""
    return hashlib.sha256(f"deck/1:{' '.join(deck)}:{salt}".encode()).hexdigest()


async def test_the_chain_file_rechecks_and_hides_deals_not_ended(
    client: httpx.AsyncClient, sessions: Sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (await client.get("/api/archive/chain")).status_code == 401
    played = await new_members(sessions, "file-a")
    table_a = await new_table(sessions, played)
    await play_deals(sessions, table_a, played, 2)
    table_b = await new_table(sessions, await new_members(sessions, "file-b"))
    async with session_scope(sessions) as db:  # deal 1 of table B is abandoned at its cut
        await close_pulka(db, table_b, "agreement", datetime.now(UTC))
        cookie = (
            await make_member(db, "file-reader", "Читатель", datetime.now(UTC), bot=False)
        ).cookie

    monkeypatch.setattr(deal_chain_file, "PAGE", 2)  # several pages, one document
    answer = await client.get("/api/archive/chain", headers={"Cookie": cookie})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.headers["content-encoding"] == "gzip"  # httpx asks for it and unpacks it
    plain = await client.get(
        "/api/archive/chain", headers={"Cookie": cookie, "Accept-Encoding": "identity"}
    )
    assert "content-encoding" not in plain.headers and plain.content == answer.content
    doc = json.loads(answer.content)
    assert doc["format"] == "deal-chain/1" and doc["unchained"] == []
    entries = doc["entries"]
    assert [e["position"] for e in entries] == list(range(1, len(entries) + 1))
    assert doc["head"] == {"position": entries[-1]["position"], "hash": entries[-1]["hash"]}
    prev = GENESIS
    for e in entries:
        assert e["prev_hash"] == prev
        assert link_hash(prev, e["position"], e["table"], e["seq"], e["commitment"]) == e["hash"]
        prev = e["hash"]
        if e["status"] == "revealed":
            assert len(e["deck"]) == 32 and _commitment(e["deck"], e["salt"]) == e["commitment"]
        else:
            assert e["status"] == "hidden" and "deck" not in e and "salt" not in e
    statuses = {e["table"]: [] for e in entries}
    for e in entries:
        statuses[e["table"]].append(e["status"])
    # Two deals played out at table A and its third being dealt; B's one deal never ended.
    assert statuses[table_a] == ["revealed", "revealed", "hidden"]
    assert statuses[table_b] == ["hidden"]

    # The secrets of the deal still being played are nowhere in the file.
    async with sessions() as db:
        salts = (
            (
                await db.execute(
                    text(
                        "SELECT payload ->> 'salt' FROM table_events WHERE kind = 'deal_started' "
                        "AND table_id IN (:a, :b) ORDER BY table_id DESC, seq DESC"
                    ),
                    {"a": table_a, "b": table_b},
                )
            )
            .scalars()
            .all()
        )
    hidden_salts = [salts[0], salts[1]]  # table B's deal, table A's current deal
    assert all(s not in answer.text for s in hidden_salts)
    assert all(s in answer.text for s in salts[2:])
