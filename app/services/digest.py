"""The club's data digest that ``prefclub verify`` prints: equal before a backup and after its
restore.

The digest is SHA-256 over one canonical JSON document (keys sorted, no spaces, UTF-8, money
as exact decimal strings, times as ISO-8601 UTC), ``prefclub-digest/1``::

    {"format": "prefclub-digest/1",
     "members": [{"id", "login", "display_name", "role", "active", "is_bot"}, ...by id],
     "pulkas":  [{"id", "table_id", "status", "ended", "deals", "finished_at",
                  "sheet", "settlement", "record"}, ...by id],
     "ledger":  [{"id", "kind", "member_id", "pulka_id", "proposal_id", "amount",
                  "recorded_by_id", "recorded_at", "reason"}, ...by id],
     "balances": [{"member_id", "owed", "paid", "outstanding"}, ...by member id],
     "fund": "<the fund's balance>"}

docs/backup.md documents the same inputs; changing them means a new format name.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import FundEntry, Member, Pulka
from app.services import fund

FORMAT = "prefclub-digest/1"


@dataclass(frozen=True)
class ClubDigest:
    """The digest of the club's data and the counts behind it."""

    members: int
    pulkas: int
    ledger_entries: int
    fund_balance: Decimal
    sha256: str

    def lines(self) -> list[str]:
        """The summary ``prefclub verify`` prints; the digest line is the last one."""
        return [
            f"members {self.members}",
            f"pulkas {self.pulkas}",
            f"ledger entries {self.ledger_entries}",
            f"fund balance {fund.money(self.fund_balance)}",
            f"digest sha256:{self.sha256}",
        ]


def _time(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def _money(value: Decimal | None) -> str | None:
    return str(value.quantize(fund.KOPECK)) if value is not None else None


def canonical(document: Any) -> bytes:
    """The canonical serialisation the digest hashes."""
    return json.dumps(
        document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


async def club_document(db: AsyncSession) -> dict[str, Any]:
    """The ``prefclub-digest/1`` document of the club's data (see the module docstring)."""
    members = [
        {
            "id": m.id,
            "login": m.login,
            "display_name": m.display_name,
            "role": m.role.value,
            "active": m.active,
            "is_bot": m.is_bot,
        }
        for m in (await db.scalars(select(Member).order_by(Member.id))).all()
    ]
    pulkas = [
        {
            "id": p.id,
            "table_id": p.table_id,
            "status": p.status,
            "ended": p.ended,
            "deals": p.deals,
            "finished_at": _time(p.finished_at),
            "sheet": p.sheet,
            "settlement": p.settlement,
            "record": p.record,
        }
        for p in (await db.scalars(select(Pulka).order_by(Pulka.id))).all()
    ]
    ledger = [
        {
            "id": e.id,
            "kind": e.kind.value,
            "member_id": e.member_id,
            "pulka_id": e.pulka_id,
            "proposal_id": e.proposal_id,
            "amount": _money(e.amount),
            "recorded_by_id": e.recorded_by_id,
            "recorded_at": _time(e.recorded_at),
            "reason": e.reason,
        }
        for e in (await db.scalars(select(FundEntry).order_by(FundEntry.id))).all()
    ]
    balances = sorted(
        (
            {
                "member_id": d.member_id,
                "owed": _money(d.owed),
                "paid": _money(d.paid),
                "outstanding": _money(d.outstanding),
            }
            for d in await fund.debts(db)
        ),
        key=lambda b: int(str(b["member_id"])),
    )
    return {
        "format": FORMAT,
        "members": members,
        "pulkas": pulkas,
        "ledger": ledger,
        "balances": balances,
        "fund": _money(await fund.balance(db)),
    }


async def club_digest(db: AsyncSession) -> ClubDigest:
    """The digest of the club's data as the session ``db`` sees it (read it in one
    transaction, ideally REPEATABLE READ, for a consistent picture)."""
    document = await club_document(db)
    return ClubDigest(
        members=len(document["members"]),
        pulkas=len(document["pulkas"]),
        ledger_entries=len(document["ledger"]),
        fund_balance=Decimal(document["fund"]),
        sha256=hashlib.sha256(canonical(document)).hexdigest(),
    )
