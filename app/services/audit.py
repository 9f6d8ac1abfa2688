"""The audit log (issue 23): recording a change, reading the log, checking its hash chain.

:func:`record` is called by each audited use case *inside its own transaction*, so a change
rolled back leaves no audit row and a committed one always has its row. PostgreSQL gives the
row its ``id``, ``prev_hash`` and ``hash`` (:mod:`app.db.models.audit`) and refuses to change or
delete it. Audited transactions therefore append one after another (the chain's advisory lock
is held until each commits): keep them short.

:func:`check_audit_chain` recomputes every hash in Python from the stored columns — the same
canonical text the trigger hashes (:func:`canonical_text`, docs/audit.md) — and checks that
each row holds its predecessor's hash; ``prefclub verify`` reports its findings.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, null, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Member
from app.db.models.audit import FORMAT, GENESIS, AuditEntry

ACTION = re.compile(r"[a-z_]+(?:\.[a-z_]+)+", re.ASCII)
"""A stable dotted action name (``member.role``); the table's check constraint says the same."""
ACTION_PREFIX = re.compile(r"[a-z_]+(?:\.[a-z_]+)*", re.ASCII)
BATCH = 2000
"""Rows hashed per worker-thread call while checking the chain."""

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asked for a change and from which address (``member_id`` ``None``: the server)."""

    member_id: int | None
    address: str | None = None

    @classmethod
    def of(cls, member: Member | int | None, address: str | None = None) -> Actor:
        """The actor for a member (or his id), or the server when ``None``."""
        member_id = member.id if isinstance(member, Member) else member
        return cls(member_id, address)


SYSTEM = Actor(None, None)
"""The server itself: timers, settlements, start-up."""


def plain(value: Any) -> Any:
    """``value`` as JSON the log stores exactly: money (:class:`Decimal`) as a decimal string,
    times as ISO text in UTC, enums by value, and a float (none should come) as the string of
    its ``repr`` — JSON numbers other than integers would not print back exactly."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float):
        return repr(value)
    raise TypeError(f"the audit log stores no {type(value).__name__}")


async def record(
    session: AsyncSession,
    *,
    actor: Actor | Member | int | None,
    action: str,
    target: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    address: str | None = None,
) -> None:
    """Append one audit row in the caller's transaction (it commits or rolls back with it).

    ``actor`` is an :class:`Actor` (carrying the request's address) or a member, his id, or
    ``None`` for the server; ``address`` overrides the actor's. ``target`` names what changed
    (``member:12``, ``fund_proposal:3``).
    """
    if not ACTION.fullmatch(action):
        raise ValueError(f"bad audit action {action!r}")
    who = actor if isinstance(actor, Actor) else Actor.of(actor)
    where = address if address is not None else who.address
    if "\n" in target or (where is not None and "\n" in where):
        raise ValueError("audit targets and addresses are one line")
    await session.execute(
        insert(AuditEntry).values(
            actor_id=who.member_id,
            address=where,
            action=action,
            target=target,
            before=null() if before is None else plain(before),  # SQL NULL, not JSON null
            after=null() if after is None else plain(after),
        )
    )


# ------------------------------------------------------------------------------- reading the log


@dataclass(frozen=True, slots=True)
class Filter:
    """What the log is narrowed to: an action or a dotted prefix of it (``fund`` is every
    ``fund.*``), an actor, an exact target, and a half-open time range ``[since, until)``."""

    action: str | None = None
    actor_id: int | None = None
    target: str | None = None
    since: datetime | None = None
    until: datetime | None = None


async def entries(
    session: AsyncSession, where: Filter, *, before_id: int | None = None, limit: int = 50
) -> list[tuple[AuditEntry, str | None]]:
    """A page of the log, newest first, with each actor's display name; ``before_id`` is the
    keyset cursor (the last id of the previous page)."""
    query = (
        select(AuditEntry, Member.display_name)
        .outerjoin(Member, Member.id == AuditEntry.actor_id)
        .order_by(AuditEntry.id.desc())
        .limit(limit)
    )
    if where.action is not None:
        if not ACTION_PREFIX.fullmatch(where.action):
            raise ValueError(f"bad action filter {where.action!r}")
        query = query.where(
            or_(
                AuditEntry.action == where.action,
                AuditEntry.action.startswith(where.action + ".", autoescape=True),
            )
        )
    if where.actor_id is not None:
        query = query.where(AuditEntry.actor_id == where.actor_id)
    if where.target is not None:
        query = query.where(AuditEntry.target == where.target)
    if where.since is not None:
        query = query.where(AuditEntry.at >= where.since)
    if where.until is not None:
        query = query.where(AuditEntry.at < where.until)
    if before_id is not None:
        query = query.where(AuditEntry.id < before_id)
    return [(row, name) for row, name in (await session.execute(query)).all()]


def entry_json(row: AuditEntry, actor_name: str | None) -> Json:
    """An audit row for the API (its hashes included, so a reader can check the links)."""
    return {
        "id": row.id,
        "at": row.at,
        "actor_id": row.actor_id,
        "actor_name": actor_name,
        "address": row.address,
        "action": row.action,
        "target": row.target,
        "before": row.before,
        "after": row.after,
        "format": row.format,
        "prev_hash": row.prev_hash,
        "hash": row.hash,
    }


# ---------------------------------------------------------------------------- checking the chain

_JSON_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
"""How PostgreSQL's ``jsonb::text`` escapes these characters (other controls as ``\\uXXXX``)."""


def _json_string(text: str) -> str:
    """``text`` as a JSON string literal, escaped exactly as ``jsonb::text`` escapes it."""
    escaped = (_JSON_ESCAPES.get(ch) or (f"\\u{ord(ch):04x}" if ch < " " else ch) for ch in text)
    return '"' + "".join(escaped) + '"'


def jsonb_text(value: Any) -> str:
    """``value`` as PostgreSQL prints a ``jsonb`` (``jsonb::text``): object keys shortest
    first, then by their UTF-8 bytes; ``", "`` and ``": "`` between items; strings escaped only
    for ``"``, ``\\`` and control characters. Exact for what :func:`plain` stores."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, Mapping):
        keys = sorted(value, key=lambda k: (len(k.encode()), k.encode()))
        return "{" + ", ".join(f"{_json_string(k)}: {jsonb_text(value[k])}" for k in keys) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(jsonb_text(v) for v in value) + "]"
    return repr(value)  # a float someone wrote by hand: never what the trigger hashed


def canonical_text(prev_hash: str, row: AuditEntry) -> str:
    """The text whose SHA-256 is the row's ``hash`` (format 1, docs/audit.md)."""
    at = row.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return "\n".join(
        (
            "audit/1",
            prev_hash,
            str(row.id),
            at,
            "" if row.actor_id is None else str(row.actor_id),
            row.address or "",
            row.action,
            row.target,
            "" if row.before is None else jsonb_text(row.before),
            "" if row.after is None else jsonb_text(row.after),
        )
    )


def row_hash(prev_hash: str, row: AuditEntry) -> str:
    """The hash the row must carry after ``prev_hash``."""
    return hashlib.sha256(canonical_text(prev_hash, row).encode()).hexdigest()


def _check_batch(prev: str, rows: Sequence[AuditEntry]) -> tuple[str, list[str]]:
    problems: list[str] = []
    for row in rows:
        if row.format != FORMAT:
            problems.append(f"audit row {row.id}: unknown format {row.format}")
        if row.prev_hash != prev:
            problems.append(
                f"audit row {row.id}: prev_hash {row.prev_hash[:12]}… is not the "
                f"hash of the row before it ({prev[:12]}…): a row was removed or "
                "inserted out of order"
            )
        if row_hash(row.prev_hash, row) != row.hash:
            problems.append(
                f"audit row {row.id}: its hash does not match its contents (the row was edited)"
            )
        prev = row.hash
    return prev, problems


async def check_audit_chain(session: AsyncSession) -> list[str]:
    """Every problem of the audit chain, in chain order; empty when the chain is whole.

    Recomputes each row's hash from its columns and checks each ``prev_hash`` against the hash
    of the row before it (the first against 64 zeros). Hashing runs in a worker thread, a batch
    of rows at a time, so a long log never stalls the event loop.
    """
    problems: list[str] = []
    prev = GENESIS
    last_id = 0
    while True:
        rows = list(
            (
                await session.scalars(
                    select(AuditEntry)
                    .where(AuditEntry.id > last_id)
                    .order_by(AuditEntry.id)
                    .limit(BATCH)
                    .execution_options(populate_existing=True)
                )
            ).all()
        )
        if not rows:
            return problems
        prev, found = await asyncio.to_thread(_check_batch, prev, rows)
        problems += found
        last_id = rows[-1].id
        for row in rows:  # a long log must not pile up in the session
            session.expunge(row)
