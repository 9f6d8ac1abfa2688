"""Idempotency keys of the fund's state-changing requests (issue 9).

A client sends ``Idempotency-Key: <uuid>`` with a payment, payout, proposal, vote or decision
and reuses it when it retries. The first request with a key inserts a ``fund_request_keys``
row, acts and stores its answer in the same transaction. Any other request with the same key
(from the same member) meanwhile waits on the row's unique index for that transaction: if it
committed, the stored answer is replayed without acting again; if it rolled back (the request
was refused), the waiting request acts itself — a refused request changed nothing, so there is
nothing to replay. The same key with another method, path or body is refused
(``fund_idempotency_key_reused``): the key names one request, not a slot.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.fund import FundRequestKey
from app.services.fund import FundError

HEADER = "Idempotency-Key"
KEY_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{8,100}", re.ASCII)
"""A UUID fits; 8 to 100 ASCII letters, digits and ``_ . : -``."""


@dataclass(frozen=True)
class Replay:
    """The stored answer of the request that first used the key."""

    status_code: int
    body: Any


def check_key(value: str | None, *, required: bool) -> str | None:
    """The key from the header, ``None`` when absent and optional; a 400 otherwise."""
    if value is None:
        if required:
            raise FundError(
                "fund_idempotency_key_required",
                f"this request needs an {HEADER} header (a UUID made when the form "
                "is shown, sent again unchanged when retrying)",
            )
        return None
    if not KEY_PATTERN.fullmatch(value):
        raise FundError(
            "fund_idempotency_key_invalid",
            f"{HEADER} must be 8 to 100 ASCII letters, digits, '_', '.', ':' or '-'",
        )
    return value


def fingerprint(method: str, path: str, body: Any) -> str:
    """SHA-256 of the request: method, path and the JSON body in a canonical form."""
    text = json.dumps(
        [method.upper(), path, body],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


async def claim(db: AsyncSession, *, member_id: int, key: str, print_: str) -> int | Replay:
    """Take the key for this request (its row id) or the answer stored under it.

    Waits for a concurrent transaction that holds the same key (the unique index) to end.
    """
    row_id = await db.scalar(
        insert(FundRequestKey)
        .values(member_id=member_id, key=key, fingerprint=print_)
        .on_conflict_do_nothing(index_elements=["member_id", "key"])
        .returning(FundRequestKey.id)
    )
    if row_id is not None:
        return int(row_id)
    row = (
        await db.execute(
            select(
                FundRequestKey.fingerprint, FundRequestKey.status_code, FundRequestKey.response
            ).where(FundRequestKey.member_id == member_id, FundRequestKey.key == key)
        )
    ).one()
    if row.fingerprint != print_:
        raise FundError(
            "fund_idempotency_key_reused",
            f"this {HEADER} was already used for another request; make a new key for a new request",
            status=422,
        )
    if row.status_code is None:  # pragma: no cover - the answer is stored before the commit
        raise FundError(
            "fund_idempotency_key_in_flight",
            "the first request with this key has not finished; try again",
            status=409,
        )
    return Replay(int(row.status_code), row.response)


async def remember(db: AsyncSession, row_id: int, status_code: int, body: Any) -> None:
    """Store the answer under the key claimed by :func:`claim` (same transaction)."""
    await db.execute(
        update(FundRequestKey)
        .where(FundRequestKey.id == row_id)
        .values(status_code=status_code, response=body)
    )
