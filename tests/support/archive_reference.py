"""The archive's statistics as they were computed before issue 14: from the logs, per request.

Kept as the tests' reference: the statistics now add up rows tallied when each pulka ends
(``pulka_member_stats``), and tests/services/test_pulka_stats.py checks both give the same
numbers over real finished pulkas.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.member import Member
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableEvent
from app.rules.core.seats import playing_seats
from app.rules.scoring.statistics import SEAT_CHANGE_KINDS, SEATING_KINDS
from app.rules.scoring.statistics import made as made_game
from app.services.archive import MemberStats, _num, _when


async def club_stats_from_logs(db: AsyncSession, member_id: int | None = None) -> list[MemberStats]:
    """Per member over finished club pulkas, oldest pulka first in each series: every
    request re-reads every club pulka's seating changes and deal outcomes."""
    club = (PulkaRow.status == "finished", Table.practice.is_(False))
    pulkas = (
        await db.execute(
            select(
                PulkaRow.id,
                PulkaRow.table_id,
                PulkaRow.finished_at,
                PulkaRow.settlement,
                Table.created_at,
            )
            .join(Table, Table.id == PulkaRow.table_id)
            .where(*club)
            .order_by(PulkaRow.finished_at.asc().nulls_first(), PulkaRow.id)
        )
    ).all()
    # One query for the facts of every pulka (not one per pulka), and only the fields needed:
    # each deal_ended's outcome, the seating of each seat change.
    facts: dict[int, list[tuple[Any, ...]]] = {}
    for table_id, *fact in (
        await db.execute(
            select(
                TableEvent.table_id,
                TableEvent.kind,
                TableEvent.payload["member_ids"],
                TableEvent.payload["names"],
                TableEvent.payload["outcome"],
            )
            .join(PulkaRow, PulkaRow.table_id == TableEvent.table_id)
            .join(Table, Table.id == TableEvent.table_id)
            .where(*club, TableEvent.kind.in_((*SEAT_CHANGE_KINDS, "deal_ended")))
            .order_by(TableEvent.table_id, TableEvent.seq)
        )
    ).all():
        facts.setdefault(table_id, []).append(tuple(fact))
    stats: dict[int, MemberStats] = {}

    def of(mid: int) -> MemberStats:
        return stats.setdefault(mid, MemberStats(mid))

    for row in pulkas:
        ids: list[int | None] = []
        names: list[str] = []
        for kind, seated, seat_names, outcome in facts.get(row.table_id, []):
            if kind in SEATING_KINDS and seated is not None:
                ids, names = list(seated), list(seat_names or names)
            if kind != "deal_ended":
                continue
            for seat in playing_seats(len(ids), outcome["dealer"]):
                mid = ids[seat]
                if mid is not None:
                    of(mid).deals += 1
            made = made_game(outcome)
            declarer = outcome.get("declarer")
            if made is None or declarer is None or ids[declarer] is None:
                continue
            one = of(ids[declarer])
            if outcome.get("type") == "misere":
                one.miseres += 1
                one.miseres_made += int(made)
            else:
                one.declared += 1
                one.made += int(made)
                one.failed += int(not made)
        settlement = row.settlement or {}
        whists = settlement.get("whists") or []
        money = settlement.get("money") or []
        for seat, mid in enumerate(ids):
            if mid is None:
                continue
            one = of(mid)
            one.pulkas += 1
            w = Decimal(str(whists[seat])) if seat < len(whists) else Decimal(0)
            m = Decimal(str(money[seat])) if seat < len(money) else Decimal(0)
            one.whists += w
            one.money += m
            one.series.append(
                {
                    "pulka_id": row.id,
                    "date": _when(row.finished_at or row.created_at),
                    "whists": _num(w),
                    "money": f"{m:.2f}",
                    "total_whists": _num(one.whists),
                }
            )
            if not one.name and seat < len(names):
                one.name = names[seat]
    if member_id is not None:
        stats = {member_id: stats.get(member_id, MemberStats(member_id))}
    if stats:
        members = await db.scalars(select(Member).where(Member.id.in_(list(stats))))
        for person in members:
            stats[person.id].name = person.display_name
    return sorted(stats.values(), key=lambda s: (-s.whists, s.name))
