"""The checks ``prefclub verify`` runs over the club's data, each answering a list of problems.

A check is an ``async (session) -> list[str]`` appended to :data:`CHECKS`; ``prefclub verify``
runs them all in one read-only snapshot, prints every problem, and exits 1 if there is any. More
checks (the deal and audit hash chains) join the list without touching the command.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Table, TableEvent
from app.services.audit import check_audit_chain
from app.services.deal_chain import check_deal_chain

Check = Callable[[AsyncSession], Awaitable[list[str]]]


async def table_versions(db: AsyncSession) -> list[str]:
    """Every table's ``version`` is its last committed event's ``seq`` (a backup that copied
    rows from different moments would break this)."""
    last = (
        select(TableEvent.table_id, func.max(TableEvent.seq).label("seq"))
        .group_by(TableEvent.table_id)
        .subquery()
    )
    rows = (
        await db.execute(
            select(Table.id, Table.version, func.coalesce(last.c.seq, 0))
            .outerjoin(last, last.c.table_id == Table.id)
            .where(Table.version != func.coalesce(last.c.seq, 0))
            .order_by(Table.id)
        )
    ).all()
    return [
        f"table {table_id}: version {version} but last event {seq}"
        for table_id, version, seq in rows
    ]


CHECKS: list[Check] = [table_versions, check_deal_chain, check_audit_chain]
"""The checks of ``prefclub verify``, in the order they run."""


async def run_checks(db: AsyncSession, checks: list[Check] | None = None) -> list[str]:
    """Every problem the checks find, in order."""
    problems: list[str] = []
    for check in checks if checks is not None else CHECKS:
        problems.extend(await check(db))
    return problems
