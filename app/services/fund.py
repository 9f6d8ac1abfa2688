"""The club fund — кубышка (RULES.md §9, R-F1..R-F5).

- R-F1: when a club pulka is settled, every loser's payment (the negative money of his seat) is
  owed to the fund: :func:`record_pulka_debts` writes one ``payment_due`` entry per loser, once
  per pulka (a partial unique index makes retries harmless). Practice pulkas never touch the fund.
  The treasurer records what was paid in (``payment``).
- Balance = the sum of the ledger's money entries (``payment`` + ``adjustment`` − ``spending``);
  ``payment_due`` entries are claims, not money. A member's outstanding debt is what he owes
  minus what he paid (his ``payment`` and ``adjustment`` entries).
- R-F3: one spending proposal per member and calendar year in club time (any outcome counts).
- R-F4: competing proposals (open or approved, not yet paid) are ranked by their proposer's
  attendance over the last 12 months; ties go to the earlier proposal.
- R-F5: no spending beyond the balance; the ledger is append-only (this module only inserts
  into it; a correction is a new ``adjustment``), each entry says who, when and why.

Approval: a proposal is approved as soon as more than half of the active human members voted
yes, rejected as soon as more than half voted no; an admin may approve or reject it at any time
before it is paid. Only a treasurer (or admin) records payments and pays out approved proposals.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import and_, case, exists, func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Attendance, ClubSession, Member
from app.db.models.fund import EntryKind, FundEntry, FundProposal, FundVote, ProposalStatus
from app.db.models.table import Pulka as PulkaRow
from app.db.models.table import Table, TableSeat
from app.services.errors import ConflictError, NotFoundError, ServiceError

ZERO = Decimal("0.00")
KOPECK = Decimal("0.01")
MONEY_KINDS = (EntryKind.payment, EntryKind.spending, EntryKind.adjustment)
COMPETING = (ProposalStatus.open, ProposalStatus.approved)
LEDGER_LOCK = "prefclub.fund.ledger"


def money(value: Decimal) -> str:
    """Money as a decimal string with kopecks (``"12.50"``)."""
    return f"{value.quantize(KOPECK):.2f}"


def _exact(amount: Decimal, what: str = "the amount") -> Decimal:
    """``amount`` in whole kopecks, or a 400."""
    if amount != amount.quantize(KOPECK):
        raise ServiceError(f"{what} must be in whole kopecks (at most 2 decimal places)")
    return amount.quantize(KOPECK)


async def _lock_ledger(db: AsyncSession) -> None:
    """Serialise the writers that check the balance (R-F5), until the transaction ends."""
    await db.execute(select(func.pg_advisory_xact_lock(func.hashtext(LEDGER_LOCK))))


# ---------------------------------------------------------------------------------------- R-F1

async def record_pulka_debts(db: AsyncSession, pulka_row: PulkaRow,
                             now: datetime) -> list[FundEntry]:
    """Owe each loser's payment of a settled club pulka to the fund (R-F1); the new entries.

    Idempotent per pulka: a second call (or a concurrent one) adds nothing. A practice pulka, an
    unfinished one, or a seat without a member adds nothing. The member of a seat is the one
    sitting there when the pulka was settled.
    """
    if pulka_row.status != "finished" or not pulka_row.settlement:
        return []
    table = await db.get(Table, pulka_row.table_id)
    if table is None or table.practice:
        return []
    seats = {s.seat: s.member_id for s in (await db.scalars(
        select(TableSeat).where(TableSeat.table_id == table.id))).all()}
    added: list[FundEntry] = []
    for seat, value in enumerate(pulka_row.settlement.get("money", [])):
        loss = -Decimal(str(value))
        member_id = seats.get(seat)
        if loss <= 0 or member_id is None:
            continue
        entry_id = await db.scalar(
            insert(FundEntry).values(
                kind=EntryKind.payment_due, member_id=member_id, pulka_id=pulka_row.id,
                amount=loss.quantize(KOPECK), recorded_by_id=None, recorded_at=now,
                reason=f"R-F1: lost {money(loss)} in pulka {pulka_row.id} "
                       f"(table {table.id}, seat {seat + 1})",
            ).on_conflict_do_nothing(
                index_elements=["pulka_id", "member_id"],
                index_where=text("kind = 'payment_due'"),
            ).returning(FundEntry.id))
        if entry_id is not None:
            entry = await db.get(FundEntry, entry_id)
            assert entry is not None
            added.append(entry)
    return added


async def record_table_debts(db: AsyncSession, table_id: int, now: datetime) -> None:
    """The settle hook: :func:`record_pulka_debts` for the table's pulka, if it is settled."""
    row = await db.scalar(select(PulkaRow).where(PulkaRow.table_id == table_id))
    if row is not None:
        await db.refresh(row)
        await record_pulka_debts(db, row, now)


async def record_missing_debts(db: AsyncSession, now: datetime) -> int:
    """Record R-F1 for settled club pulkas that have no debt entries yet (e.g. settled before
    the fund existed); how many entries were added."""
    rows = (await db.scalars(
        select(PulkaRow).join(Table, Table.id == PulkaRow.table_id)
        .where(PulkaRow.status == "finished", PulkaRow.settlement.is_not(None),
               Table.practice.is_(False),
               ~exists().where(FundEntry.pulka_id == PulkaRow.id,
                               FundEntry.kind == EntryKind.payment_due))
        .order_by(PulkaRow.id))).all()
    added = 0
    for row in rows:
        added += len(await record_pulka_debts(db, row, now))
    return added


# ------------------------------------------------------------------------------ reading the fund

async def balance(db: AsyncSession) -> Decimal:
    """The money in the fund: the sum of the ledger's money entries (R-F1, R-F5)."""
    total = await db.scalar(select(func.coalesce(func.sum(FundEntry.amount), 0))
                            .where(FundEntry.kind.in_(MONEY_KINDS)))
    return Decimal(total or 0).quantize(KOPECK)


async def ledger(db: AsyncSession, *, limit: int = 50,
                 before_id: int | None = None) -> list[FundEntry]:
    """Ledger entries, newest first; ``before_id`` pages back."""
    query = select(FundEntry).order_by(FundEntry.id.desc()).limit(limit)
    if before_id is not None:
        query = query.where(FundEntry.id < before_id)
    return list((await db.scalars(query)).all())


@dataclass(frozen=True)
class Debt:
    """A member's account with the fund."""

    member_id: int
    display_name: str
    owed: Decimal
    paid: Decimal

    @property
    def outstanding(self) -> Decimal:
        return self.owed - self.paid


async def debts(db: AsyncSession) -> list[Debt]:
    """Every member with fund entries: owed (R-F1), paid, outstanding; most outstanding first."""
    owed = func.coalesce(func.sum(case(
        (FundEntry.kind == EntryKind.payment_due, FundEntry.amount), else_=0)), 0)
    paid = func.coalesce(func.sum(case(
        (FundEntry.kind.in_((EntryKind.payment, EntryKind.adjustment)), FundEntry.amount),
        else_=0)), 0)
    rows = (await db.execute(
        select(Member.id, Member.display_name, owed, paid)
        .join(FundEntry, FundEntry.member_id == Member.id)
        .group_by(Member.id, Member.display_name))).all()
    result = [Debt(r[0], r[1], Decimal(r[2]).quantize(KOPECK), Decimal(r[3]).quantize(KOPECK))
              for r in rows]
    result.sort(key=lambda d: (-d.outstanding, d.display_name, d.member_id))
    return result


# ---------------------------------------------------------------------- payments and corrections

async def record_payment(db: AsyncSession, *, member_id: int | None, amount: Decimal,
                         by: Member, now: datetime, reason: str | None = None,
                         kind: EntryKind = EntryKind.payment) -> FundEntry:
    """Record money paid in (``payment``, > 0, by a member) or a correction (``adjustment``,
    signed, with a reason); an adjustment may not take the balance below zero (R-F5)."""
    amount = _exact(amount)
    if kind not in (EntryKind.payment, EntryKind.adjustment):
        raise ServiceError("kind must be payment or adjustment")
    if member_id is not None:
        member = await db.get(Member, member_id)
        if member is None:
            raise NotFoundError(f"no member {member_id}")
    if kind == EntryKind.payment:
        if member_id is None:
            raise ServiceError("a payment needs the member who paid (member_id)")
        if amount <= 0:
            raise ServiceError("a payment must be more than 0.00")
    else:
        if amount == 0:
            raise ServiceError("an adjustment of 0.00 changes nothing")
        if not (reason or "").strip():
            raise ServiceError("an adjustment needs a reason (what it corrects)")
    await _lock_ledger(db)
    if amount < 0 and await balance(db) + amount < 0:
        raise ConflictError(
            f"R-F5: the fund has {money(await balance(db))}; taking {money(-amount)} would "
            "leave it below zero")
    why = (reason or "").strip() or f"paid in by member {member_id}"
    entry = FundEntry(kind=kind, member_id=member_id, amount=amount, recorded_by_id=by.id,
                      recorded_at=now, reason=why[:300])
    db.add(entry)
    await db.flush()
    return entry


# ------------------------------------------------------------------------------------- proposals

def club_year(now: datetime, zone: ZoneInfo) -> int:
    """The calendar year in club time (R-F3)."""
    return now.astimezone(zone).year


def year_ago(now: datetime) -> datetime:
    """The same instant 12 months earlier (29 February goes to the 28th)."""
    try:
        return now.replace(year=now.year - 1)
    except ValueError:
        return now.replace(year=now.year - 1, day=28)


async def create_proposal(db: AsyncSession, *, proposer: Member, title: str, amount: Decimal,
                          now: datetime, zone: ZoneInfo) -> FundProposal:
    """A spending proposal (R-F2); at most one per member and calendar year (R-F3)."""
    amount = _exact(amount)
    if amount <= 0:
        raise ServiceError("a proposal must ask for more than 0.00")
    title = title.strip()
    if not title:
        raise ServiceError("a proposal needs a title (what the money is for)")
    year = club_year(now, zone)
    taken = await db.scalar(select(FundProposal.id).where(
        FundProposal.proposer_id == proposer.id, FundProposal.year == year))
    if taken is not None:
        raise ConflictError(
            f"R-F3: you already made a spending proposal in {year} (proposal {taken}); "
            f"the next one may be made from 1 January {year + 1}")
    proposal = FundProposal(proposer_id=proposer.id, year=year, title=title[:200],
                            amount=amount, status=ProposalStatus.open)
    db.add(proposal)
    await db.flush()
    return proposal


async def _proposal(db: AsyncSession, proposal_id: int, *, lock: bool = True) -> FundProposal:
    query = select(FundProposal).where(FundProposal.id == proposal_id)
    if lock:
        query = query.with_for_update()
    row = await db.scalar(query)
    if row is None:
        raise NotFoundError(f"no proposal {proposal_id}")
    return row


async def electorate(db: AsyncSession) -> int:
    """Members who may vote: active people (bots never vote)."""
    return int(await db.scalar(select(func.count()).select_from(Member).where(
        Member.active.is_(True), Member.is_bot.is_(False))) or 0)


async def vote(db: AsyncSession, *, proposal_id: int, member: Member, yes: bool,
               now: datetime) -> FundProposal:
    """Vote yes or no on an open proposal (a second vote replaces the first); a majority of the
    electorate decides it at once."""
    proposal = await _proposal(db, proposal_id)
    if proposal.status != ProposalStatus.open:
        raise ConflictError(f"proposal {proposal_id} is {proposal.status.value}; "
                            "only open proposals take votes")
    await db.execute(insert(FundVote).values(
        proposal_id=proposal_id, member_id=member.id, yes=yes, at=now,
    ).on_conflict_do_update(index_elements=["proposal_id", "member_id"],
                            set_={"yes": yes, "at": now}))
    yes_n, no_n = await _tally(db, proposal_id)
    half = await electorate(db) / 2
    if yes_n > half:
        proposal.status, proposal.decided_at = ProposalStatus.approved, now
    elif no_n > half:
        proposal.status, proposal.decided_at = ProposalStatus.rejected, now
    await db.flush()
    return proposal


async def _tally(db: AsyncSession, proposal_id: int) -> tuple[int, int]:
    row = (await db.execute(select(
        func.count().filter(FundVote.yes.is_(True)), func.count().filter(FundVote.yes.is_(False)),
    ).where(FundVote.proposal_id == proposal_id))).one()
    return int(row[0]), int(row[1])


async def decide(db: AsyncSession, *, proposal_id: int, admin: Member, approve: bool,
                 now: datetime) -> FundProposal:
    """An admin's decision: approve an open proposal, or reject one not yet paid."""
    proposal = await _proposal(db, proposal_id)
    allowed = (ProposalStatus.open,) if approve else COMPETING
    if proposal.status not in allowed:
        raise ConflictError(f"proposal {proposal_id} is already {proposal.status.value}")
    proposal.status = ProposalStatus.approved if approve else ProposalStatus.rejected
    proposal.decided_by_id, proposal.decided_at = admin.id, now
    await db.flush()
    return proposal


async def pay(db: AsyncSession, *, proposal_id: int, by: Member, now: datetime) -> FundEntry:
    """Pay out an approved proposal: a ``spending`` entry, never beyond the balance (R-F5), and
    not ahead of a better-ranked approved proposal the rest would no longer cover (R-F4)."""
    await _lock_ledger(db)
    proposal = await _proposal(db, proposal_id)
    if proposal.status != ProposalStatus.approved:
        raise ConflictError(f"proposal {proposal_id} is {proposal.status.value}; only an "
                            "approved proposal is paid out")
    have = await balance(db)
    if proposal.amount > have:
        raise ConflictError(f"R-F5: the fund has {money(have)}, the proposal asks for "
                            f"{money(proposal.amount)}; no spending beyond the balance")
    for item in await ranked(db, now):
        if item.proposal.id == proposal.id:
            break
        ahead = item.proposal
        if ahead.status == ProposalStatus.approved and have - proposal.amount < ahead.amount:
            raise ConflictError(
                f"R-F4: approved proposal {ahead.id} ranks higher (its proposer attended more "
                f"sessions) and the fund could no longer pay its {money(ahead.amount)}; pay it "
                "first or reject it")
    entry = FundEntry(kind=EntryKind.spending, member_id=None, proposal_id=proposal.id,
                      amount=-proposal.amount, recorded_by_id=by.id, recorded_at=now,
                      reason=f"proposal {proposal.id}: {proposal.title}"[:300])
    db.add(entry)
    proposal.status = ProposalStatus.paid
    await db.flush()
    return entry


@dataclass(frozen=True)
class Ranked:
    """A proposal with its proposer, R-F4 attendance, votes and rank (None unless competing)."""

    proposal: FundProposal
    proposer_name: str
    attendance: int
    yes: int
    no: int
    rank: int | None


async def attendance_counts(db: AsyncSession, now: datetime) -> dict[int, int]:
    """Sessions each member attended over the last 12 months up to ``now`` (R-F4)."""
    rows = (await db.execute(
        select(Attendance.member_id, func.count())
        .join(ClubSession, ClubSession.id == Attendance.club_session_id)
        .where(and_(ClubSession.starts_at > year_ago(now), ClubSession.starts_at <= now))
        .group_by(Attendance.member_id))).all()
    return {int(m): int(n) for m, n in rows}


async def ranked(db: AsyncSession, now: datetime) -> list[Ranked]:
    """Competing proposals (open, approved) ranked by R-F4, then the decided ones, newest first."""
    proposals = list((await db.scalars(select(FundProposal))).all())
    counts = await attendance_counts(db, now)
    names = {int(i): str(n) for i, n in (await db.execute(
        select(Member.id, Member.display_name).where(
            Member.id.in_({p.proposer_id for p in proposals} or {0})))).all()}
    tallies: dict[int, tuple[int, int]] = {}
    for pid, yes, no in (await db.execute(select(
            FundVote.proposal_id, func.count().filter(FundVote.yes.is_(True)),
            func.count().filter(FundVote.yes.is_(False))).group_by(FundVote.proposal_id))).all():
        tallies[int(pid)] = (int(yes), int(no))
    competing = sorted((p for p in proposals if p.status in COMPETING),
                       key=lambda p: (-counts.get(p.proposer_id, 0), p.created_at, p.id))
    rest = sorted((p for p in proposals if p.status not in COMPETING),
                  key=lambda p: (p.created_at, p.id), reverse=True)
    result: list[Ranked] = []
    for i, p in enumerate([*competing, *rest]):
        yes, no = tallies.get(p.id, (0, 0))
        result.append(Ranked(p, names.get(p.proposer_id, "?"), counts.get(p.proposer_id, 0),
                             yes, no, i + 1 if i < len(competing) else None))
    return result


async def my_votes(db: AsyncSession, member_id: int) -> dict[int, bool]:
    """The member's vote on each proposal he voted on."""
    rows = (await db.execute(select(FundVote.proposal_id, FundVote.yes).where(
        FundVote.member_id == member_id))).all()
    return {int(p): bool(y) for p, y in rows}


def entry_json(e: FundEntry) -> dict[str, Any]:
    """A ledger entry for the API."""
    return {"id": e.id, "kind": e.kind.value, "member_id": e.member_id, "pulka_id": e.pulka_id,
            "proposal_id": e.proposal_id, "amount": money(e.amount),
            "recorded_by_id": e.recorded_by_id, "recorded_at": e.recorded_at,
            "reason": e.reason}
