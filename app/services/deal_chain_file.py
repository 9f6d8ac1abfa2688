"""The club's chain of deals as one ``deal-chain/1`` JSON document (``GET /api/archive/chain``).

Any member may download it and re-check it without trusting the server (docs/chain.md): every
link's hash, and for each deal that has *ended* the commitment against the revealed deck order
and salt. A deal has ended when a ``deal_ended`` event follows its ``deal_started`` before any
other deal starts (or a player joins); a deal still being played — or one that was abandoned or
voided, never ended — shows its commitment only: its deck and salt would be hidden cards (R-W8).

The document is written in pages of :data:`PAGE` entries read by position (keyset), one short
query each, and only up to the head (the last entry) read first, so it is a consistent prefix
of the chain however long the download takes::

    {"format": "deal-chain/1", "head": {"position": N, "hash": "..."},
     "entries": [{"position", "table", "seq", "commitment", "prev_hash", "hash",
                  "status": "revealed" | "hidden" | "missing", "deck"?, "salt"?}, ...],
     "unchained": [{"table", "seq"}, ...]}

``missing`` marks an entry whose ``deal_started`` event is gone (a dropped deal); ``unchained``
lists deals stored with no chain entry. Either makes the document fail the browser's check.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models.chain import GENESIS
from app.rules import CARD_TEXTS
from app.services.deal_chain import FORMAT

PAGE = 2000
"""Entries read (and written out) per query."""

_HEAD = text("SELECT position, hash FROM deal_chain ORDER BY position DESC LIMIT 1")
_PAGE = text("""
SELECT c.position, c.table_id, c.seq, c.commitment, c.prev_hash, c.hash,
       e.seq IS NOT NULL AS present,
       CASE WHEN nx.kind = 'deal_ended' THEN e.payload -> 'deck' END AS deck,
       CASE WHEN nx.kind = 'deal_ended' THEN e.payload ->> 'salt' END AS salt
FROM deal_chain c
LEFT JOIN table_events e
  ON e.table_id = c.table_id AND e.seq = c.seq AND e.kind = 'deal_started'
LEFT JOIN LATERAL (
    SELECT n.kind FROM table_events n
    WHERE e.seq IS NOT NULL AND n.table_id = c.table_id AND n.seq > c.seq
      AND n.kind IN ('deal_started', 'deal_ended', 'player_joined')
    ORDER BY n.seq LIMIT 1) nx ON true
WHERE c.position > :after AND c.position <= :head
ORDER BY c.position
LIMIT :limit
""")
_UNCHAINED = text("""
SELECT e.table_id, e.seq FROM table_events e
WHERE e.kind = 'deal_started'
  AND NOT EXISTS (SELECT 1 FROM deal_chain c WHERE c.table_id = e.table_id AND c.seq = e.seq)
ORDER BY e.table_id, e.seq
""")


def entry_json(row: Sequence[Any]) -> dict[str, Any]:
    """One entry of the document from a row of :data:`_PAGE`."""
    position, table_id, seq, commit, prev, hash_, present, deck, salt = row
    entry: dict[str, Any] = {
        "position": position,
        "table": table_id,
        "seq": seq,
        "commitment": commit,
        "prev_hash": prev,
        "hash": hash_,
    }
    if not present:
        entry["status"] = "missing"
    elif deck is None or salt is None:
        entry["status"] = "hidden"
    else:
        entry["status"] = "revealed"
        entry["deck"] = [
            CARD_TEXTS[c] if isinstance(c, int) and 0 <= c < 32 else str(c) for c in deck
        ]
        entry["salt"] = salt
    return entry


async def chain_document(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[bytes]:
    """The ``deal-chain/1`` document in chunks (one per page), each page in its own short
    session, so a long download holds no transaction open."""
    async with sessions() as db:
        head = (await db.execute(_HEAD)).first()
    last, head_hash = (int(head[0]), str(head[1])) if head is not None else (0, GENESIS)
    yield (
        b'{"format":"'
        + FORMAT.encode()
        + b'","head":'
        + orjson.dumps({"position": last, "hash": head_hash})
        + b',"entries":['
    )
    after, first = 0, True
    while after < last:
        async with sessions() as db:
            rows = (await db.execute(_PAGE, {"after": after, "head": last, "limit": PAGE})).all()
        if not rows:
            break
        body = b",".join(orjson.dumps(entry_json(r)) for r in rows)
        yield body if first else b"," + body
        first, after = False, int(rows[-1][0])
    async with sessions() as db:
        unchained = [{"table": t, "seq": s} for t, s in (await db.execute(_UNCHAINED)).all()]
    yield b'],"unchained":' + orjson.dumps(unchained) + b"}"


async def gzipped(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """``chunks`` as one gzip stream, each chunk compressed in a thread (the file of a club
    of 10,000 pulkas is some 125 MB of JSON, mostly hex, which gzip more than halves)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    async for chunk in chunks:
        packed = await asyncio.to_thread(packer.compress, chunk)
        if packed:
            yield packed
    yield packer.flush()
