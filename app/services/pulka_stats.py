"""A finished pulka's archive rows (``pulka_stats``, ``pulka_member_stats``), tallied once.

Written in the transaction that finishes the pulka (:func:`record`, called by
:func:`app.services.live_table.sync_rows`), backfilled by migration 0015 and written the same
way by the archive benchmark's generator (:func:`rows_of`), so the list and the statistics read
small rows instead of replaying every pulka's log (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, insert, select, text
from sqlalchemy.dialects.postgresql import insert as upsert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.archive import MemberStats as MemberTotals
from app.db.models.archive import PulkaMemberStats, PulkaStats
from app.db.models.table import TableEvent
from app.rules import TALLY_KINDS, LogFact, Pulka, PulkaTally, sheet_lines, tally
from app.services import standings

FACT_FIELDS = ("member_ids", "names", "outcome", "deal_no", "entries")
COUNTS = ("deals", "declared", "made", "failed", "miseres", "miseres_made")
TOTALS = ("pulkas", *COUNTS, "whists", "money")
"""The columns of ``member_stats``: sums over a member's club ``pulka_member_stats`` rows."""
TOTALS_FROM_ROWS = text(
    f"INSERT INTO member_stats (member_id, {', '.join(TOTALS)}) "
    f"SELECT member_id, count(seat), {', '.join(f'sum({c})' for c in TOTALS[1:])} "
    "FROM pulka_member_stats WHERE practice IS false GROUP BY member_id "
    "ON CONFLICT (member_id) DO UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in TOTALS)
)
"""Every member's totals summed again from all the rows (the migration's backfill and the
benchmark's generator, which write many pulkas at once)."""


def facts_query(table_ids: Sequence[int]) -> Select[Any]:
    """The tally's facts of these tables, by table and ``seq``: only the payload fields it
    reads (``payload -> 'outcome'`` …), on the partial index ``ix_table_events_archive``."""
    return (
        select(
            TableEvent.table_id,
            TableEvent.seq,
            TableEvent.kind,
            *(TableEvent.payload[name] for name in FACT_FIELDS),
        )
        .where(TableEvent.table_id.in_(list(table_ids)), TableEvent.kind.in_(TALLY_KINDS))
        .order_by(TableEvent.table_id, TableEvent.seq)
    )


def to_fact(row: Sequence[Any]) -> LogFact:
    """A row of :func:`facts_query` (without its ``table_id``) as a :class:`LogFact`."""
    seq, kind, member_ids, names, outcome, deal_no, entries = row
    return LogFact(seq, kind, member_ids, names, outcome, deal_no, entries)


def rows_of(
    pulka_id: int,
    table_id: int,
    practice: bool,
    finished_at: datetime | None,
    started_at: datetime,
    counted: PulkaTally,
    lines: list[dict[str, Any]],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``pulka_stats`` row and the ``pulka_member_stats`` rows of one tallied pulka.

    ``finished_at`` is the pulka's (``None`` only for rows older than the column); the list's
    row falls back to ``started_at`` so that it always has a sort key."""
    pulka = {
        "pulka_id": pulka_id,
        "table_id": table_id,
        "practice": practice,
        "finished_at": finished_at or started_at,
        "names": counted.names,
        "member_ids": counted.member_ids,
        "deal_seqs": counted.deal_seqs,
        "lines": lines,
    }
    members = [
        {
            "pulka_id": pulka_id,
            "member_id": m.member_id,
            "practice": practice,
            "finished_at": finished_at,
            "started_at": started_at,
            "seat": m.seat,
            "name": m.name,
            "deals": m.deals,
            "declared": m.declared,
            "made": m.made,
            "failed": m.failed,
            "miseres": m.miseres,
            "miseres_made": m.miseres_made,
            "whists": m.whists,
            "money": m.money,
            "costly": counted.costly.stored(m.member_id),
        }
        for m in counted.members.values()
    ]
    return pulka, members


async def record(
    db: AsyncSession,
    *,
    pulka_id: int,
    table_id: int,
    practice: bool,
    finished_at: datetime,
    started_at: datetime,
    settlement: dict[str, Any] | None,
    pulka: Pulka,
) -> None:
    """Tally the finished pulka's log and (re)write its archive rows in ``db``'s transaction
    (``pulka``: the finished scoring pulka, for the sheet's running totals); a club pulka's
    rows are added to its members' totals and to their nights of the standings
    (:func:`app.services.standings.add_rows`; rows written before for it are taken off)."""
    facts: Iterable[LogFact] = [
        to_fact(r[1:]) for r in (await db.execute(facts_query([table_id]))).all()
    ]
    one, members = rows_of(
        pulka_id,
        table_id,
        practice,
        finished_at,
        started_at,
        tally(facts, settlement),
        sheet_lines(pulka.entries),
    )
    old = (
        await db.scalars(
            delete(PulkaMemberStats)
            .where(PulkaMemberStats.pulka_id == pulka_id)
            .returning(PulkaMemberStats)
        )
    ).all()
    await db.execute(delete(PulkaStats).where(PulkaStats.pulka_id == pulka_id))
    await db.execute(insert(PulkaStats).values(**one))
    if members:
        await db.execute(insert(PulkaMemberStats), members)
    if not practice:
        taken_off = [
            {
                c: getattr(r, c)
                for c in ("member_id", "seat", "finished_at", "started_at", *TOTALS[1:])
            }
            for r in old
            if not r.practice
        ]
        await _add_totals(db, members, taken_off)
        await standings.add_rows(db, members, taken_off)


async def _add_totals(
    db: AsyncSession, added: list[dict[str, Any]], taken_off: list[dict[str, Any]]
) -> None:
    """Add member rows to (and take others off) ``member_stats``, member by member in id
    order (two pulkas finishing at once with a member in common wait, never deadlock)."""
    delta: dict[int, dict[str, Any]] = {}
    for rows, sign in ((added, 1), (taken_off, -1)):
        for r in rows:
            d = delta.setdefault(r["member_id"], {c: 0 for c in TOTALS})
            d["pulkas"] += sign * (r["seat"] is not None)
            for c in TOTALS[1:]:
                d[c] += sign * r[c]
    if not delta:
        return
    statement = upsert(MemberTotals).values(
        [{"member_id": mid, **delta[mid]} for mid in sorted(delta)]
    )
    await db.execute(
        statement.on_conflict_do_update(
            index_elements=[MemberTotals.member_id],
            set_={c: getattr(MemberTotals, c) + getattr(statement.excluded, c) for c in TOTALS},
        )
    )
