"""Checking the chain of deals: every link recomputed, every deal chained once (docs/chain.md).

The database keeps the chain (migration 0016): one ``deal_chain`` entry per ``deal_started``
event, whose ``hash`` is :func:`link_hash` of the entry before it. :func:`check_deal_chain`
re-derives all of it from what is stored and lists what does not hold, naming the table and the
``seq`` of each deal at fault:

* a link: positions run 1, 2, ... without a gap, each ``prev_hash`` is the hash before it (the
  first one :data:`GENESIS`), each ``hash`` is recomputed;
* a dropped deal: a chain entry whose ``deal_started`` event is gone;
* an edited deal: the commitment recomputed from the event's deck and salt
  (:func:`app.rules.deck.commitment`) is not the one chained;
* a deal dealt around the chain: a ``deal_started`` event with no entry.

Chain and events are read by one statement (one snapshot), so deals committed meanwhile are
never half seen; the hashing runs in a thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.engine import make_engine, make_sessionmaker
from app.db.models.chain import GENESIS
from app.rules import RulesError, check_deck, commitment

FORMAT = "deal-chain/1"
"""The version tag hashed into every link (and the chain file's ``format``)."""

_ROWS = text("""
SELECT c.position, c.table_id, c.seq, c.commitment, c.prev_hash, c.hash,
       e.table_id AS event_table, e.seq AS event_seq,
       e.payload -> 'deck' AS deck, e.payload ->> 'salt' AS salt
FROM deal_chain c
FULL JOIN (SELECT table_id, seq, payload FROM table_events WHERE kind = 'deal_started') e
  ON e.table_id = c.table_id AND e.seq = c.seq
ORDER BY c.position NULLS LAST, e.table_id, e.seq
""")


def link_hash(prev_hash: str, position: int, table_id: int, seq: int, commit: str) -> str:
    """The hash of a chain entry: SHA-256 (hex) of its lines joined by ``\\n`` (docs/chain.md)."""
    line = f"{FORMAT}\n{prev_hash}\n{position}\n{table_id}\n{seq}\n{commit}"
    return hashlib.sha256(line.encode("ascii")).hexdigest()


def deck_commitment(deck: object, salt: object) -> str | None:
    """The R-D4 commitment of a stored deck (card numbers) and salt (hex); ``None`` if they are
    not a deck and a salt."""
    try:
        if not isinstance(deck, list) or not isinstance(salt, str):
            return None
        return commitment(check_deck(deck), bytes.fromhex(salt))
    except (RulesError, ValueError):
        return None


def _deal(table_id: int, seq: int) -> str:
    return f"deal table {table_id} seq {seq}"


def find_problems(rows: Sequence[Sequence[Any]]) -> list[str]:
    """The problems of the chain ``rows`` (as :data:`_ROWS` reads them)."""
    problems: list[str] = []
    expected_prev, last = GENESIS, 0
    for position, table_id, seq, chained, prev, hash_, ev_table, ev_seq, deck, salt in rows:
        if position is None:
            problems.append(f"{_deal(ev_table, ev_seq)} is not in the chain of deals")
            continue
        if position != last + 1:
            problems.append(f"positions {last + 1}..{position - 1} are missing from the chain")
        if prev != expected_prev:
            problems.append(
                f"position {position} ({_deal(table_id, seq)}): its prev_hash is "
                "not the hash of the entry before it"
            )
        if link_hash(prev, position, table_id, seq, chained) != hash_:
            problems.append(
                f"position {position} ({_deal(table_id, seq)}): its hash does not "
                "match its contents"
            )
        if ev_table is None:
            problems.append(
                f"position {position}: {_deal(table_id, seq)} is missing from "
                "table_events (a dropped deal)"
            )
        elif deck_commitment(deck, salt) != chained:
            problems.append(
                f"position {position}: {_deal(table_id, seq)} does not match its "
                "chained commitment (its deck or salt was edited)"
            )
        expected_prev, last = hash_, position
    return problems


async def check_deal_chain(session: AsyncSession) -> list[str]:
    """Every problem of the club's chain of deals, in order; empty when the chain is whole.
    Only reads."""
    rows = (await session.execute(_ROWS)).all()
    return await asyncio.to_thread(find_problems, rows)


async def check_database(database_url: str) -> list[str]:
    """:func:`check_deal_chain` on the database at ``database_url`` (its own engine): the one
    line ``prefclub verify`` needs."""
    engine = make_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as session:
            return await check_deal_chain(session)
    finally:
        await engine.dispose()
