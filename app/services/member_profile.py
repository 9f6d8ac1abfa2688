"""The member's page (issue 27): his club pulkas, his rating over time, his costliest deals and
his figures against each member he has played, read from rows the archive already keeps.

- Pulkas: his ``pulka_member_stats`` rows (club tables only), newest first, with the table
  and the club night (:func:`app.services.standings.night_of`); the newest
  :data:`PULKAS_SHOWN` are listed, the count says how many there are.
- Rating over time: ``rated_pulkas`` keeps, for every pulka the rating took in, each
  player's ``[rank, mu, sigma]`` after it, in the rating's order; his history is those rows
  of his pulkas (joined on the pulka's key), so no history table is needed and a rebuild of
  the rating rebuilds it too.
- Costliest deals: the finished deals of all his club pulkas with the largest whist loss for
  him (:func:`app.rules.deal_loss`), each with its pulka and deal number for the replay with
  the analysis, merged from each pulka's ten dearest deals tallied when it ended
  (``pulka_member_stats.costly``, :mod:`app.rules.scoring.deal_cost`).
- Head to head: for every member who sat in one of his pulkas, the pulkas both finished at the
  table, and his whists and money in the pulkas they shared.

Every query starts from the index on ``pulka_member_stats (member_id, finished_at,
pulka_id)`` or a primary key. Money and whists stay exact (decimal strings).
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from sqlalchemy import and_, case, func, select, text, tuple_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.db.models.archive import PulkaMemberStats, PulkaStats
from app.db.models.member import Member
from app.db.models.season import RatedPulka
from app.db.models.table import TableEvent
from app.rules import COSTLIEST, COSTLY_VERSION, SEAT_CHANGE_KINDS, deal_loss
from app.rules import CostlyDeal as StoredCostlyDeal
from app.services import rating
from app.services.accounts import get_member
from app.services.standings import night_of

PULKAS_SHOWN = 200
"""The newest pulkas listed on the page."""
DEALS_SCANNED_PULKAS = 30
"""Of his pulkas whose costly deals were not stored (``pulka_member_stats.costly`` missing or
of another version), the newest whose deals are weighed again from their logs on a visit; his
other pulkas' stored lists are all merged (docs/performance.md, bench.pages)."""


@dataclass(frozen=True, slots=True)
class CostlyDeal:
    """One deal of his and what it cost him."""

    pulka_id: int
    table_id: int
    deal_no: int
    loss: Fraction
    outcome: Mapping[str, Any]
    names: Sequence[str]
    seq: int = 0
    """The ``seq`` of its ``deal_ended`` event."""


def _text(value: Decimal | Fraction) -> str:
    """An exact amount as a decimal string (a fraction to the hundredth, half-even)."""
    if isinstance(value, Fraction):
        value = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.01"))
    return f"{value.normalize():f}" if value == value.to_integral() else str(value)


def _money(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01')):.2f}"


async def _pulkas(db: AsyncSession, member_id: int) -> tuple[int, list[dict[str, Any]]]:
    """His club pulkas (how many, and the newest :data:`PULKAS_SHOWN`)."""
    mine = (PulkaMemberStats.member_id == member_id, PulkaMemberStats.practice.is_(False))
    total = await db.scalar(select(func.count()).select_from(PulkaMemberStats).where(*mine))
    rows = (
        await db.execute(
            select(
                PulkaMemberStats.pulka_id,
                PulkaStats.table_id,
                PulkaStats.finished_at,
                PulkaMemberStats.started_at,
                PulkaMemberStats.seat,
                PulkaMemberStats.deals,
                PulkaMemberStats.whists,
                PulkaMemberStats.money,
                PulkaStats.names,
            )
            .join(PulkaStats, PulkaStats.pulka_id == PulkaMemberStats.pulka_id)
            .where(*mine)
            .order_by(PulkaMemberStats.finished_at.desc(), PulkaMemberStats.pulka_id.desc())
            .limit(PULKAS_SHOWN)
        )
    ).all()
    return int(total or 0), [
        {
            "pulka_id": r.pulka_id,
            "table_id": r.table_id,
            "night": night_of(r.finished_at, r.started_at).isoformat(),
            "finished_at": r.finished_at.isoformat(),
            "seat": r.seat,
            "left": r.seat is None,
            "deals": r.deals,
            "players": list(r.names),
            "whists": _text(Decimal(r.whists)),
            "money": _money(Decimal(r.money)),
        }
        for r in rows
    ]


async def _history(db: AsyncSession, member_id: int) -> list[dict[str, Any]]:
    """His rating after each rated pulka of his, in the rating's order."""
    rows = (
        await db.execute(
            select(RatedPulka.pulka_id, RatedPulka.finished_at, RatedPulka.result[str(member_id)])
            .join(
                PulkaMemberStats,
                and_(
                    PulkaMemberStats.pulka_id == RatedPulka.pulka_id,
                    PulkaMemberStats.member_id == member_id,
                ),
            )
            .order_by(RatedPulka.finished_at, RatedPulka.pulka_id)
        )
    ).all()
    out = []
    for pulka_id, finished_at, result in rows:
        if not result:
            continue
        rank, mu, sigma = result
        out.append(
            {
                "pulka_id": pulka_id,
                "finished_at": finished_at.isoformat(),
                "rank": rank,
                "mu": mu,
                "sigma": sigma,
                "ordinal": rating.Rating.of(mu, sigma, 0).ordinal,
            }
        )
    return out


def costliest(deals: Iterable[CostlyDeal], count: int = COSTLIEST) -> list[CostlyDeal]:
    """The ``count`` deals with the largest loss (only losses; ties to the newer pulka, then
    the earlier deal)."""
    losses = (d for d in deals if d.loss > 0)
    return heapq.nsmallest(count, losses, key=lambda d: (-d.loss, -d.pulka_id, d.deal_no))


DEAREST_STORED = text(
    """
    SELECT m.pulka_id, s.table_id, d.value
    FROM pulka_member_stats m
    JOIN pulka_stats s ON s.pulka_id = m.pulka_id
    CROSS JOIN LATERAL jsonb_array_elements(m.costly -> 'deals') AS d(value)
    WHERE m.member_id = :member_id AND m.practice IS false AND m.costly ->> 'version' = :version
    ORDER BY (d.value ->> 'sort')::float8 DESC
    FETCH FIRST :count ROWS WITH TIES
    """
)
"""The dearest of his pulkas' stored deals, by the float ``sort`` (ties at the cut kept, so
the exact order over these few equals the exact order over all)."""
UNWEIGHED = text(
    """
    SELECT pulka_id FROM pulka_member_stats
    WHERE member_id = :member_id AND practice IS false
      AND (costly IS NULL OR costly ->> 'version' IS DISTINCT FROM :version)
    ORDER BY finished_at DESC, pulka_id DESC
    LIMIT :count
    """
)
"""His newest pulkas without a stored list of this version."""


async def _deals(db: AsyncSession, member_id: int) -> list[CostlyDeal]:
    """The candidates for his costliest deals over all his club pulkas (their ``outcome`` left
    empty: :func:`_with_outcomes` reads it for the few shown): the dearest of the pulkas'
    stored lists (``pulka_member_stats.costly``, :mod:`app.rules.scoring.deal_cost`), and for
    a pulka without one (or with one of another version) its deals weighed again from its log
    (:func:`_weighed`, the newest :data:`DEALS_SCANNED_PULKAS` of those)."""
    version = str(COSTLY_VERSION)
    out: list[CostlyDeal] = []
    unweighed = list(
        await db.scalars(
            UNWEIGHED,
            {"member_id": member_id, "version": version, "count": DEALS_SCANNED_PULKAS},
        )
    )
    found = await db.execute(
        DEAREST_STORED, {"member_id": member_id, "version": version, "count": COSTLIEST}
    )
    for pulka_id, table_id, value in found:
        try:
            d = StoredCostlyDeal.from_json(value)
        except (KeyError, TypeError, ValueError):
            unweighed.append(pulka_id)  # a malformed stored deal: weigh that pulka again
            continue
        out.append(CostlyDeal(pulka_id, table_id, d.deal_no, d.loss, {}, d.names, d.seq))
    if unweighed:
        again = set(unweighed)
        out = [d for d in out if d.pulka_id not in again]
        out.extend(await _weighed(db, member_id, sorted(again)))
    return out


async def _weighed(db: AsyncSession, member_id: int, pulka_ids: Sequence[int]) -> list[CostlyDeal]:
    """Every finished deal of these pulkas with what it cost him, from their logs. A deal's
    seating is the last seat change before it (``deal_started`` only repeats it, so its large
    payload is not read); its writes come from its ``deal_ended``."""
    pulkas = (
        await db.execute(
            select(PulkaStats.pulka_id, PulkaStats.table_id, PulkaStats.deal_seqs).where(
                PulkaStats.pulka_id.in_(pulka_ids)
            )
        )
    ).all()
    spans = {
        (table_id, int(no)): (pulka_id, first, last)
        for pulka_id, table_id, seqs in pulkas
        for no, (first, last) in seqs.items()
    }
    seating_changes = TableEvent.kind.in_(SEAT_CHANGE_KINDS)
    events = (
        await db.execute(
            select(
                TableEvent.table_id,
                TableEvent.seq,
                TableEvent.kind,
                TableEvent.payload["deal_no"].as_integer(),
                case((seating_changes, TableEvent.payload["member_ids"])),
                case((seating_changes, TableEvent.payload["names"])),
                case((TableEvent.kind == "deal_ended", TableEvent.payload["entries"])),
            )
            .where(
                TableEvent.table_id.in_(sorted({t for _, t, _ in pulkas})),
                TableEvent.kind.in_((*SEAT_CHANGE_KINDS, "deal_ended")),
            )
            .order_by(TableEvent.table_id, TableEvent.seq)
        )
    ).all()
    seating: dict[int, tuple[Sequence[int | None], Sequence[str]]] = {}
    out: list[CostlyDeal] = []
    for table_id, seq, kind, deal_no, member_ids, names, entries in events:
        if kind != "deal_ended":
            if member_ids is not None:
                seating[table_id] = (member_ids, names or [])
            continue
        ids, seated = seating.get(table_id, ([], []))
        ids = list(ids)
        span = spans.get((table_id, deal_no)) if deal_no is not None else None
        if span is None or member_id not in ids:
            continue
        loss = deal_loss(entries or [], len(ids), ids.index(member_id))
        out.append(CostlyDeal(span[0], table_id, deal_no, loss, {}, list(seated), seq))
    return out


async def _with_outcomes(db: AsyncSession, deals: Sequence[CostlyDeal]) -> list[CostlyDeal]:
    """``deals`` with the outcome of each read from its ``deal_ended`` event."""
    if not deals:
        return []
    keys = [(d.table_id, d.seq) for d in deals]
    found = {
        (table_id, seq): outcome
        for table_id, seq, outcome in await db.execute(
            select(TableEvent.table_id, TableEvent.seq, TableEvent.payload["outcome"]).where(
                tuple_(TableEvent.table_id, TableEvent.seq).in_(keys)
            )
        )
    }
    return [dataclasses.replace(d, outcome=found.get((d.table_id, d.seq)) or {}) for d in deals]


async def _head_to_head(db: AsyncSession, member_id: int) -> list[dict[str, Any]]:
    """Per member he has played: pulkas both finished, his whists and money in them."""
    me, other = aliased(PulkaMemberStats), aliased(PulkaMemberStats)
    both = and_(me.seat.is_not(None), other.seat.is_not(None))
    rows = (
        await db.execute(
            select(
                other.member_id,
                func.count(case((both, 1))),
                func.count(),
                func.sum(case((both, me.whists), else_=0)),
                func.sum(case((both, me.money), else_=0)),
            )
            .join(other, and_(other.pulka_id == me.pulka_id, other.member_id != member_id))
            .where(me.member_id == member_id, me.practice.is_(False))
            .group_by(other.member_id)
        )
    ).all()
    names = {
        mid: name
        for mid, name in await db.execute(
            select(Member.id, Member.display_name).where(Member.id.in_([r[0] for r in rows]))
        )
    }
    lines = [
        {
            "member_id": mid,
            "name": names.get(mid, f"#{mid}"),
            "pulkas": int(together),
            "shared": int(shared),
            "whists": _text(Decimal(whists)),
            "money": _money(Decimal(money)),
        }
        for mid, together, shared, whists, money in rows
    ]
    return sorted(lines, key=lambda line: (-line["pulkas"], line["name"], line["member_id"]))


async def profile(db: AsyncSession, member_id: int) -> dict[str, Any]:
    """The member's page: who he is, his pulkas, his rating and its history, his costliest
    deals and his head-to-head lines; 404 ``not_found`` for no such member."""
    member = await get_member(db, member_id)
    total, pulkas = await _pulkas(db, member_id)
    now = (await rating.ratings_of(db, [member_id])).get(member_id)
    return {
        "member": {"id": member.id, "name": member.display_name},
        "pulkas_total": total,
        "pulkas": pulkas,
        "rating": None
        if now is None
        else {"mu": now.mu, "sigma": now.sigma, "matches": now.matches, "ordinal": now.ordinal},
        "rating_history": await _history(db, member_id),
        "costliest_deals": [
            {
                "pulka_id": d.pulka_id,
                "table_id": d.table_id,
                "deal_no": d.deal_no,
                "loss": _text(d.loss),
                "outcome": dict(d.outcome),
                "names": list(d.names),
            }
            for d in await _with_outcomes(db, costliest(await _deals(db, member_id)))
        ],
        "head_to_head": await _head_to_head(db, member_id),
    }
