"""The chain of deals (docs/chain.md): every deal, whatever wrote it, is chained once and in
order, the links hold, and the database refuses to change or drop an entry.

A scratch database of this module; deals are dealt and played through the real services and
committed (the chain is appended at commit)."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models.chain import GENESIS
from app.services.deal_chain import check_database, check_deal_chain, deck_commitment, link_hash
from tests.support.chain_play import new_members, new_table, play_deals
from tests.support.databases import migrated_database

Sessions = async_sessionmaker[AsyncSession]
CONCURRENT = 24


@pytest.fixture(scope="module")
def chain_db(database_url: str) -> Iterator[str]:
    with migrated_database(database_url) as url:
        yield url


@pytest.fixture(scope="module")
async def sessions(chain_db: str) -> AsyncIterator[Sessions]:
    engine = make_engine(chain_db)
    try:
        yield make_sessionmaker(engine)
    finally:
        await engine.dispose()


async def _chain(db: AsyncSession) -> list[tuple[int, int, int, str, str, str]]:
    rows = await db.execute(
        text(
            "SELECT position, table_id, seq, commitment, prev_hash, hash "
            "FROM deal_chain ORDER BY position"
        )
    )
    return [tuple(r) for r in rows.all()]  # type: ignore[misc]


async def test_played_deals_are_chained_in_order_with_their_commitments(
    sessions: Sessions, chain_db: str
) -> None:
    ids = await new_members(sessions, "order")
    table_id = await new_table(sessions, ids)
    await play_deals(sessions, table_id, ids, 3)
    async with sessions() as db:
        chain = await _chain(db)
        events = (
            await db.execute(
                text(
                    "SELECT seq, payload -> 'deck', payload ->> 'salt' FROM table_events "
                    "WHERE table_id = :t AND kind = 'deal_started' ORDER BY seq"
                ),
                {"t": table_id},
            )
        ).all()
        assert await check_deal_chain(db) == []
    mine = [c for c in chain if c[1] == table_id]
    assert len(events) == 4  # the first deal and one after each of the three played
    assert [c[2] for c in mine] == [seq for seq, _, _ in events]
    assert [c[0] for c in mine] == sorted(c[0] for c in mine)
    # The database's commitment is the engine's (app/rules/deck.py), recomputed here.
    assert [c[3] for c in mine] == [deck_commitment(deck, salt) for _, deck, salt in events]
    assert [c[0] for c in chain] == list(range(1, len(chain) + 1))
    assert chain[0][4] == GENESIS
    for before, entry in itertools.pairwise(chain):
        assert entry[4] == before[5]
    assert all(link_hash(prev, pos, t, s, com) == h for pos, t, s, com, prev, h in chain)
    assert await check_database(chain_db) == []


async def test_concurrent_deal_starts_at_different_tables_make_one_unbroken_chain(
    sessions: Sessions,
) -> None:
    players = [await new_members(sessions, f"race{n}-") for n in range(CONCURRENT)]
    async with sessions() as db:
        before = len(await _chain(db))
    tables = await asyncio.gather(*(new_table(sessions, ids) for ids in players))
    async with sessions() as db:
        chain = await _chain(db)
        assert await check_deal_chain(db) == []
    added = chain[before:]
    assert sorted(t for _, t, *_ in added) == sorted(tables)  # one entry per new deal
    assert [c[0] for c in chain] == list(range(1, len(chain) + 1))
    assert len({c[4] for c in chain}) == len(chain)  # no two entries share a predecessor


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE deal_chain SET commitment = repeat('1', 64) WHERE position = 1",
        "DELETE FROM deal_chain WHERE position = (SELECT max(position) FROM deal_chain)",
        "TRUNCATE deal_chain",
        "INSERT INTO deal_chain VALUES (999999, 1, 1, repeat('a', 64), repeat('b', 64), "
        "repeat('c', 64), now())",
    ],
)
async def test_the_chain_cannot_be_changed_or_dropped(sessions: Sessions, statement: str) -> None:
    ids = await new_members(sessions, f"lock{uuid.uuid4().hex[:8]}-")
    await new_table(sessions, ids)
    async with sessions() as db:
        chain = await _chain(db)
    refused = False
    try:
        async with session_scope(sessions) as db:
            await db.execute(text(statement))
    except IntegrityError:
        refused = True
    async with sessions() as db:
        assert await _chain(db) == chain
        assert await check_deal_chain(db) == []
    assert refused
