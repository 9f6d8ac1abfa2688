"""The night's results (issue 27): one club session's tables, pulkas, settlements, the fund's
share and the deal of the night, read at once from the rows the session end already wrote.

Nothing is stored for a night: :func:`night` derives it from ``club_sessions``, ``tables``,
``pulkas``, ``pulka_stats``, ``fund_entries``, the deals' ``deal_ended`` events and the audit
log, so the page is there the moment :func:`app.services.schedule.end_session` commits.

Status (docs/club.md "The night's results"):

- ``open`` — the session has not ended yet (its tables may still be playing);
- ``provisional`` — it ended, but a pulka of the night is still unfinished, or the correction
  window (``NIGHT_CORRECTION_SECONDS`` after the later of the session end and the last pulka's
  close, default one hour) is not over;
- ``final`` — after that. A correction (:func:`add_correction`, an officer's note on the night's
  results, optionally naming the pulka and the fund entry that corrected it) is audited as
  ``night.correction``; every correction is shown on the page, those made after the night
  became final marked so.

The deal of the night is the finished deal with the largest whist swing (:func:`deal_swing`);
ties go to the earlier table, then the earlier deal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ClubSession, Member
from app.db.models.archive import PulkaStats
from app.db.models.audit import AuditEntry
from app.db.models.deal_analyses import DealAnalysis
from app.db.models.fund import EntryKind, FundEntry
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableEvent, TableSeat
from app.services import audit
from app.services.audit import Actor
from app.services.service_errors import ServiceError

ZERO = Decimal("0.00")
POINT_IN_WHISTS = 10
"""A pool or hill point is worth ten whists on paper (R-P4's ``10·(mean(hill) − hill_i)``)."""
DEAL_KINDS = ("deal_ended", "recorded_deal", "recorded_correction")
"""The events that carry a scored deal; a later ``recorded_correction`` replaces its deal."""
CORRECTION_ACTION = "night.correction"
NOTE_MAX = 300


class NightError(ServiceError):
    """A night request refused, with a stable ``code``."""

    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message, status=status)
        self.code = code


def _amount(value: Any) -> Fraction:
    return Fraction(str(value))


def deal_swing(entries: Iterable[Mapping[str, Any]]) -> Fraction:
    """The whists a deal moved on paper: every whist written, plus ten whists for every pool or
    hill point written (in either direction: the club's zero-tricks bonus takes points off).

    >>> deal_swing([{"column": "pool", "amount": 2}, {"column": "whists", "amount": 4}])
    Fraction(24, 1)
    """
    total = Fraction(0)
    for entry in entries:
        weight = 1 if entry.get("column") == "whists" else POINT_IN_WHISTS
        total += abs(_amount(entry.get("amount", 0))) * weight
    return total


@dataclass(frozen=True)
class ScoredDeal:
    """One scored deal of the night, as its event stored it."""

    table_id: int
    deal_no: int
    swing: Fraction
    outcome: Mapping[str, Any]


def deal_of_the_night(deals: Sequence[ScoredDeal]) -> ScoredDeal | None:
    """The deal with the largest swing; ties to the lower table id, then the lower deal."""
    best: ScoredDeal | None = None
    for deal in sorted(deals, key=lambda d: (d.table_id, d.deal_no)):
        if best is None or deal.swing > best.swing:
            best = deal
    return best


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _money(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01')):.2f}"


def _number(value: Fraction) -> int | float | str:
    if value.denominator == 1:
        return int(value)
    return f"{float(value):.2f}"


async def _session(db: AsyncSession, session_id: int) -> ClubSession:
    session = await db.get(ClubSession, session_id)
    if session is None:
        raise NightError("not_found", f"there is no session {session_id}", status=404)
    return session


async def _seat_names(
    db: AsyncSession, table_ids: list[int]
) -> dict[int, list[tuple[int | None, str]]]:
    """Each table's seats as they stand now: (member id, display name)."""
    rows = (
        await db.execute(
            select(TableSeat.table_id, TableSeat.seat, TableSeat.member_id, Member.display_name)
            .outerjoin(Member, Member.id == TableSeat.member_id)
            .where(TableSeat.table_id.in_(table_ids))
            .order_by(TableSeat.table_id, TableSeat.seat)
        )
    ).all()
    out: dict[int, list[tuple[int | None, str]]] = {}
    for table_id, _, member_id, name in rows:
        out.setdefault(table_id, []).append((member_id, name or ""))
    return out


async def _scored_deals(db: AsyncSession, table_ids: list[int]) -> list[ScoredDeal]:
    """Every scored deal of these tables (three JSON fields of each event, never its pulka)."""
    rows = (
        await db.execute(
            select(
                TableEvent.table_id,
                TableEvent.payload["deal_no"].as_integer(),
                TableEvent.payload["entries"],
                TableEvent.payload["outcome"],
            )
            .where(TableEvent.table_id.in_(table_ids), TableEvent.kind.in_(DEAL_KINDS))
            .order_by(TableEvent.table_id, TableEvent.seq)
        )
    ).all()
    latest: dict[tuple[int, int], ScoredDeal] = {}
    for table_id, deal_no, entries, outcome in rows:
        if deal_no is None:
            continue
        latest[(table_id, deal_no)] = ScoredDeal(
            table_id, deal_no, deal_swing(entries or []), outcome or {}
        )
    return list(latest.values())


async def _fund_shares(db: AsyncSession, pulka_ids: list[int]) -> dict[int, Decimal]:
    """R-F1: what the losers of each pulka owe the fund (its ``payment_due`` entries)."""
    rows = (
        await db.execute(
            select(FundEntry.pulka_id, func.sum(FundEntry.amount))
            .where(FundEntry.kind == EntryKind.payment_due, FundEntry.pulka_id.in_(pulka_ids))
            .group_by(FundEntry.pulka_id)
        )
    ).all()
    return {int(pulka_id): Decimal(total) for pulka_id, total in rows if pulka_id is not None}


async def _corrections(
    db: AsyncSession, session_id: int, final_at: datetime | None
) -> list[dict[str, Any]]:
    rows = (
        await db.execute(
            select(AuditEntry, Member.display_name)
            .outerjoin(Member, Member.id == AuditEntry.actor_id)
            .where(
                AuditEntry.action == CORRECTION_ACTION, AuditEntry.target == f"session:{session_id}"
            )
            .order_by(AuditEntry.id)
        )
    ).all()
    out = []
    for row, name in rows:
        after = row.after or {}
        at = datetime.fromisoformat(after["at"]) if after.get("at") else row.at
        out.append(
            {
                "id": row.id,
                "at": _iso(at),
                "by": name,
                "note": after.get("note"),
                "pulka_id": after.get("pulka_id"),
                "fund_entry_id": after.get("fund_entry_id"),
                "after_final": final_at is not None and at >= final_at,
            }
        )
    return out


def _status(
    session: ClubSession,
    unfinished: bool,
    last_close: datetime | None,
    window: timedelta,
    now: datetime,
) -> tuple[str, datetime | None]:
    """The night's status now and when it is (or will be) final (None while it cannot say)."""
    if session.ended_at is None:
        return "open", None
    if unfinished:
        return "provisional", None
    base = max(session.ended_at, last_close or session.ended_at)
    final_at = base + window
    return ("final" if now >= final_at else "provisional"), final_at


async def night(
    db: AsyncSession, session_id: int, now: datetime, window: timedelta
) -> dict[str, Any]:
    """The night's results of session ``session_id`` as JSON (docs/club.md); 404 if none."""
    session = await _session(db, session_id)
    tables = (
        await db.scalars(
            select(Table)
            .where(Table.club_session_id == session_id, Table.practice.is_(False))
            .order_by(Table.id)
        )
    ).all()
    table_ids = [t.id for t in tables]
    pulkas = {
        p.table_id: p
        for p in (await db.scalars(select(PulkaRow).where(PulkaRow.table_id.in_(table_ids)))).all()
    }
    stats = {
        s.pulka_id: s
        for s in (
            await db.scalars(
                select(PulkaStats).where(PulkaStats.pulka_id.in_([p.id for p in pulkas.values()]))
            )
        ).all()
    }
    seats = await _seat_names(db, table_ids)
    shares = await _fund_shares(db, [p.id for p in pulkas.values()])
    deals = await _scored_deals(db, table_ids)
    players: dict[tuple[int | None, str], dict[str, Any]] = {}
    out_tables = []
    for table in tables:
        row = pulkas.get(table.id)
        stat = stats.get(row.id) if row is not None else None
        seated = seats.get(table.id, [])
        names = list(stat.names) if stat is not None else [n for _, n in seated]
        member_ids = list(stat.member_ids) if stat is not None else [m for m, _ in seated]
        settlement = row.settlement if row is not None else None
        share = shares.get(row.id, ZERO) if row is not None else ZERO
        out_tables.append(
            {
                "table_id": table.id,
                "pulka_id": row.id if row is not None else None,
                "status": row.status if row is not None else table.status,
                "ended": row.ended if row is not None else None,
                "finished_at": _iso(row.finished_at if row is not None else None),
                "deals": row.deals if row is not None else 0,
                "players": table.players,
                "preset": table.preset,
                "mode": table.mode,
                "target": table.target,
                "stake": _money(table.stake),
                "names": names,
                "member_ids": member_ids,
                "sheet": row.sheet if row is not None else None,
                "settlement": settlement,
                "fund_share": _money(share),
            }
        )
        if settlement:
            for seat, name in enumerate(names):
                key = (member_ids[seat] if seat < len(member_ids) else None, name)
                line = players.setdefault(
                    key,
                    {
                        "member_id": key[0],
                        "name": name,
                        "whists": Fraction(0),
                        "money": ZERO,
                        "tables": [],
                    },
                )
                line["whists"] += _amount(settlement["rounded"][seat])
                line["money"] += Decimal(str(settlement["money"][seat]))
                line["tables"].append(table.id)
    unfinished = any(t["status"] != "finished" for t in out_tables)
    closes = [p.finished_at for p in pulkas.values() if p.finished_at is not None]
    status, final_at = _status(session, unfinished, max(closes, default=None), window, now)
    return {
        "session": {
            "id": session.id,
            "starts_at": _iso(session.starts_at),
            "ends_at": _iso(session.ends_at),
            "ended_at": _iso(session.ended_at),
            "extra": session.extra,
        },
        "status": status,
        "final_at": _iso(final_at),
        "correction_window_seconds": int(window.total_seconds()),
        "tables": out_tables,
        "players": sorted(
            (
                {**p, "whists": _number(p["whists"]), "money": _money(p["money"])}
                for p in players.values()
            ),
            key=lambda p: (-Decimal(p["money"]), p["name"]),
        ),
        "fund": {"share": _money(sum(shares.values(), ZERO))},
        "deal_of_the_night": await _best_json(db, deals, out_tables),
        "corrections": await _corrections(db, session_id, final_at),
    }


async def _best_json(
    db: AsyncSession, deals: Sequence[ScoredDeal], tables: Sequence[Mapping[str, Any]]
) -> dict[str, Any] | None:
    best = deal_of_the_night(deals)
    if best is None:
        return None
    table = next(t for t in tables if t["table_id"] == best.table_id)
    analysed = await db.scalar(
        select(func.count())
        .select_from(DealAnalysis)
        .where(DealAnalysis.table_id == best.table_id, DealAnalysis.deal_no == best.deal_no)
    )
    declarer = best.outcome.get("declarer")
    return {
        "rule": "largest_whist_swing",
        "table_id": best.table_id,
        "pulka_id": table["pulka_id"],
        "deal_no": best.deal_no,
        "swing": _number(best.swing),
        "type": best.outcome.get("type"),
        "contract": best.outcome.get("contract"),
        "declarer": declarer,
        "declarer_name": (
            table["names"][declarer]
            if isinstance(declarer, int) and declarer < len(table["names"])
            else None
        ),
        "tricks": best.outcome.get("tricks"),
        "analysed": bool(analysed),
    }


async def add_correction(
    db: AsyncSession,
    session_id: int,
    *,
    note: str,
    pulka_id: int | None,
    fund_entry_id: int | None,
    actor: Actor,
    now: datetime,
    window: timedelta,
) -> dict[str, Any]:
    """Log an officer's correction of the night's results (``night.correction`` in the audit
    log); the page shows it, marked when the night was already final. Refused (and nothing
    written) for a night that has not ended, an empty note, or a pulka or fund entry that is
    not this night's."""
    session = await _session(db, session_id)
    if session.ended_at is None:
        raise NightError(
            "night_not_ended",
            "a night's results can be corrected only after the session has ended",
            status=409,
        )
    text = note.strip()
    if not text:
        raise NightError(
            "night_note_required", "a correction needs a note (what was corrected)", status=422
        )
    if pulka_id is not None:
        owner = await db.scalar(
            select(Table.club_session_id)
            .join(PulkaRow, PulkaRow.table_id == Table.id)
            .where(PulkaRow.id == pulka_id)
        )
        if owner != session_id:
            raise NightError(
                "night_pulka_unknown", f"pulka {pulka_id} was not played this night", status=422
            )
    if fund_entry_id is not None and await db.get(FundEntry, fund_entry_id) is None:
        raise NightError(
            "night_fund_entry_unknown", f"there is no fund entry {fund_entry_id}", status=422
        )
    before = await night(db, session_id, now, window)
    await audit.record(
        db,
        actor=actor,
        action=CORRECTION_ACTION,
        target=f"session:{session_id}",
        before={"status": before["status"]},
        after={
            "note": text[:NOTE_MAX],
            "pulka_id": pulka_id,
            "fund_entry_id": fund_entry_id,
            "status": before["status"],
            "at": now,
        },
    )
    await db.flush()
    return await night(db, session_id, now, window)
