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

Approval (R-F2, "purposes the members agree on"; docs/rules-notes.md "## Fund"): the members
decide by vote, nobody alone. The electorate of a proposal is the active human members except
its proposer (who does not vote on his own proposal). It is approved as soon as its yes votes
reach the quorum — a third of the electorate, at least 3 — and outnumber its no votes; rejected
as soon as more than half of the electorate voted no. An admin may reject (never approve) a
proposal before it is paid. A payout re-counts the votes under the proposal's row lock. Only a
treasurer (or admin) records payments and pays out approved proposals.

Every refusal is a :class:`FundError` with a stable ``code`` the page translates.

Audited in the same transaction (:mod:`app.services.audit`): every ledger entry
(``fund.entry``: R-F1 debts by the server, payments and adjustments; ``fund.payout`` for a
spending), every proposal (``fund.proposal``), vote (``fund.vote``, before: the earlier vote),
approval by the votes (``fund.approval``) and rejection (``fund.rejection``, by the votes or an
admin's veto).
"""

from __future__ import annotations

import math
import re
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
from app.services import audit
from app.services.audit import Actor
from app.services.service_errors import ServiceError

ZERO = Decimal("0.00")
KOPECK = Decimal("0.01")
MONEY_KINDS = (EntryKind.payment, EntryKind.spending, EntryKind.adjustment)
COMPETING = (ProposalStatus.open, ProposalStatus.approved)
LEDGER_LOCK = "prefclub.fund.ledger"
MAX_AMOUNT = Decimal("1000000.00")
"""The largest amount one entry or proposal may carry (a sanity bound, not a rule)."""
QUORUM_MIN = 3
"""R-F2: at least this many yes votes approve a proposal, however small the club."""
AMOUNT_PATTERN = re.compile(r"(-?)([0-9]{1,10})(?:[.,]([0-9]{1,2}))?", re.ASCII)
"""A plain decimal: ASCII digits, a point or a comma, at most 2 decimals; ``-`` only where a
signed amount is allowed. No exponents, underscores, spaces, signs ``+`` or other digits."""


class FundError(ServiceError):
    """A fund request refused, with a stable machine ``code`` (the page shows its translation)
    and an English message; ``status`` is the HTTP status."""

    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message, status=status)
        self.code = code


def parse_amount(text: str, *, signed: bool = False) -> Decimal:
    """Money typed by a person: ``"40"``, ``"40.5"``, ``"40,50"`` (and ``"-10.00"`` when
    ``signed``) as an exact :class:`Decimal`; anything else is a 422 with a code.

    ``Decimal()`` alone would take ``"1_000"``, ``"1e2"``, ``"NaN"`` and non-ASCII digits
    (``"١٢"``, full-width ``"１２"``), so the text is matched first.
    """
    found = AMOUNT_PATTERN.fullmatch(text)
    if found is None or (found.group(1) and not signed):
        raise FundError(
            "fund_amount_invalid",
            "the amount must be a plain decimal: digits 0-9 with at most 2 decimals "
            "after a point or a comma" + (", optionally negative" if signed else ""),
            status=422,
        )
    amount = Decimal(f"{found.group(1)}{found.group(2)}.{found.group(3) or '0'}").quantize(KOPECK)
    if amount == 0 or (amount < 0 and not signed) or abs(amount) > MAX_AMOUNT:
        raise FundError(
            "fund_amount_out_of_range",
            f"the amount must be {'non-zero' if signed else 'more than 0.00'} and "
            f"at most {money(MAX_AMOUNT)}",
            status=422,
        )
    return amount


def money(value: Decimal) -> str:
    """Money as a decimal string with kopecks (``"12.50"``)."""
    return f"{value.quantize(KOPECK):.2f}"


def _exact(amount: Decimal, what: str = "the amount") -> Decimal:
    """``amount`` in whole kopecks, or a 400."""
    if amount != amount.quantize(KOPECK):
        raise FundError(
            "fund_amount_invalid",
            f"{what} must be in whole kopecks (at most 2 decimal places)",
            status=422,
        )
    return amount.quantize(KOPECK)


async def _lock_ledger(db: AsyncSession) -> None:
    """Serialise the writers that check the balance (R-F5), until the transaction ends."""
    await db.execute(select(func.pg_advisory_xact_lock(func.hashtext(LEDGER_LOCK))))


def _entry_facts(e: FundEntry) -> dict[str, Any]:
    return {
        "id": e.id,
        "kind": e.kind,
        "member_id": e.member_id,
        "pulka_id": e.pulka_id,
        "proposal_id": e.proposal_id,
        "amount": money(e.amount),
        "reason": e.reason,
    }


async def _audit_entry(
    db: AsyncSession, actor: Actor | None, entry: FundEntry, action: str = "fund.entry"
) -> None:
    await audit.record(
        db,
        actor=actor,
        action=action,
        target=f"fund_entry:{entry.id}",
        before=None,
        after=_entry_facts(entry),
    )


def _proposal_facts(p: FundProposal) -> dict[str, Any]:
    return {
        "status": p.status,
        "title": p.title,
        "amount": money(p.amount),
        "proposer_id": p.proposer_id,
    }


# ---------------------------------------------------------------------------------------- R-F1


async def record_pulka_debts(
    db: AsyncSession, pulka_row: PulkaRow, now: datetime
) -> list[FundEntry]:
    """Owe each loser's payment of a settled club pulka to the fund (R-F1); the new entries.

    Idempotent per pulka: a second call (or a concurrent one) adds nothing. A practice pulka, an
    unfinished one, or a seat without a member or with a house bot adds nothing (bots neither
    owe nor pay the fund). The member of a seat is the one sitting there when the pulka was
    settled.
    """
    if pulka_row.status != "finished" or not pulka_row.settlement:
        return []
    table = await db.get(Table, pulka_row.table_id)
    if table is None or table.practice:
        return []
    seats: dict[int, int | None] = {
        seat: member_id
        for seat, member_id in (
            await db.execute(
                select(TableSeat.seat, TableSeat.member_id)
                .join(Member, Member.id == TableSeat.member_id)
                .where(TableSeat.table_id == table.id, Member.is_bot.is_(False))
            )
        ).all()
    }
    added: list[FundEntry] = []
    for seat, value in enumerate(pulka_row.settlement.get("money", [])):
        loss = -Decimal(str(value))
        member_id = seats.get(seat)
        if loss <= 0 or member_id is None:
            continue
        entry_id = await db.scalar(
            insert(FundEntry)
            .values(
                kind=EntryKind.payment_due,
                member_id=member_id,
                pulka_id=pulka_row.id,
                amount=loss.quantize(KOPECK),
                recorded_by_id=None,
                recorded_at=now,
                reason=f"R-F1: lost {money(loss)} in pulka {pulka_row.id} "
                f"(table {table.id}, seat {seat + 1})",
            )
            .on_conflict_do_nothing(
                index_elements=["pulka_id", "member_id"],
                index_where=text("kind = 'payment_due'"),
            )
            .returning(FundEntry.id)
        )
        if entry_id is not None:
            entry = await db.get(FundEntry, entry_id)
            assert entry is not None
            await _audit_entry(db, None, entry)
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
    rows = (
        await db.scalars(
            select(PulkaRow)
            .join(Table, Table.id == PulkaRow.table_id)
            .where(
                PulkaRow.status == "finished",
                PulkaRow.settlement.is_not(None),
                Table.practice.is_(False),
                ~exists().where(
                    FundEntry.pulka_id == PulkaRow.id, FundEntry.kind == EntryKind.payment_due
                ),
            )
            .order_by(PulkaRow.id)
        )
    ).all()
    added = 0
    for row in rows:
        added += len(await record_pulka_debts(db, row, now))
    return added


# ------------------------------------------------------------------------------ reading the fund


async def balance(db: AsyncSession) -> Decimal:
    """The money in the fund: the sum of the ledger's money entries (R-F1, R-F5)."""
    total = await db.scalar(
        select(func.coalesce(func.sum(FundEntry.amount), 0)).where(FundEntry.kind.in_(MONEY_KINDS))
    )
    return Decimal(total or 0).quantize(KOPECK)


async def ledger(
    db: AsyncSession, *, limit: int = 50, before_id: int | None = None
) -> list[FundEntry]:
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
    owed = func.coalesce(
        func.sum(case((FundEntry.kind == EntryKind.payment_due, FundEntry.amount), else_=0)), 0
    )
    paid = func.coalesce(
        func.sum(
            case(
                (FundEntry.kind.in_((EntryKind.payment, EntryKind.adjustment)), FundEntry.amount),
                else_=0,
            )
        ),
        0,
    )
    rows = (
        await db.execute(
            select(Member.id, Member.display_name, owed, paid)
            .join(FundEntry, FundEntry.member_id == Member.id)
            .group_by(Member.id, Member.display_name)
        )
    ).all()
    result = [
        Debt(r[0], r[1], Decimal(r[2]).quantize(KOPECK), Decimal(r[3]).quantize(KOPECK))
        for r in rows
    ]
    result.sort(key=lambda d: (-d.outstanding, d.display_name, d.member_id))
    return result


# ---------------------------------------------------------------------- payments and corrections


async def record_payment(
    db: AsyncSession,
    *,
    member_id: int | None,
    amount: Decimal,
    by: Member,
    now: datetime,
    reason: str | None = None,
    kind: EntryKind = EntryKind.payment,
    actor: Actor | None = None,
) -> FundEntry:
    """Record money paid in (``payment``, > 0, by a member) or a correction (``adjustment``,
    signed, with a reason); an adjustment may not take the balance below zero (R-F5)."""
    amount = _exact(amount)
    if kind not in (EntryKind.payment, EntryKind.adjustment):
        raise FundError("fund_kind_invalid", "kind must be payment or adjustment", status=422)
    if member_id is not None:
        member = await db.get(Member, member_id)
        if member is None:
            raise FundError("fund_member_unknown", f"no member {member_id}", status=404)
        if member.is_bot:
            raise FundError(
                "fund_member_is_bot",
                f"member {member_id} is a house bot: bots neither owe nor pay the fund",
                status=422,
            )
    if kind == EntryKind.payment:
        if member_id is None:
            raise FundError(
                "fund_member_required", "a payment needs the member who paid (member_id)"
            )
        if amount <= 0:
            raise FundError(
                "fund_amount_out_of_range", "a payment must be more than 0.00", status=422
            )
    else:
        if amount == 0:
            raise FundError(
                "fund_amount_out_of_range", "an adjustment of 0.00 changes nothing", status=422
            )
        if not (reason or "").strip():
            raise FundError(
                "fund_reason_required", "an adjustment needs a reason (what it corrects)"
            )
    await _lock_ledger(db)
    if amount < 0 and await balance(db) + amount < 0:
        raise FundError(
            "fund_balance_exceeded",
            f"R-F5: the fund has {money(await balance(db))}; taking {money(-amount)} would "
            "leave it below zero",
            status=409,
        )
    why = (reason or "").strip() or f"paid in by member {member_id}"
    entry = FundEntry(
        kind=kind,
        member_id=member_id,
        amount=amount,
        recorded_by_id=by.id,
        recorded_at=now,
        reason=why[:300],
    )
    db.add(entry)
    await db.flush()
    await _audit_entry(db, actor or Actor.of(by), entry)
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


async def create_proposal(
    db: AsyncSession,
    *,
    proposer: Member,
    title: str,
    amount: Decimal,
    now: datetime,
    zone: ZoneInfo,
    actor: Actor | None = None,
) -> FundProposal:
    """A spending proposal (R-F2); at most one per member and calendar year (R-F3).

    The unique ``(proposer_id, year)`` constraint decides between concurrent proposals:
    ``INSERT ... ON CONFLICT DO NOTHING`` waits for the other transaction, and the loser gets
    a 409 ``fund_proposal_this_year`` instead of an integrity error.
    """
    amount = _exact(amount)
    if amount <= 0 or amount > MAX_AMOUNT:
        raise FundError(
            "fund_amount_out_of_range",
            f"a proposal must ask for more than 0.00 and at most {money(MAX_AMOUNT)}",
            status=422,
        )
    title = title.strip()
    if not title:
        raise FundError(
            "fund_title_required", "a proposal needs a title (what the money is for)", status=422
        )
    year = club_year(now, zone)
    new_id = await db.scalar(
        insert(FundProposal)
        .values(
            proposer_id=proposer.id,
            year=year,
            title=title[:200],
            amount=amount,
            status=ProposalStatus.open,
        )
        .on_conflict_do_nothing(index_elements=["proposer_id", "year"])
        .returning(FundProposal.id)
    )
    if new_id is None:
        taken = await db.scalar(
            select(FundProposal.id).where(
                FundProposal.proposer_id == proposer.id, FundProposal.year == year
            )
        )
        raise FundError(
            "fund_proposal_this_year",
            f"R-F3: you already made a spending proposal in {year} (proposal {taken}); "
            f"the next one may be made from 1 January {year + 1}",
            status=409,
        )
    proposal = await db.get(FundProposal, new_id)
    assert proposal is not None
    await audit.record(
        db,
        actor=actor or Actor.of(proposer),
        action="fund.proposal",
        target=f"fund_proposal:{proposal.id}",
        before=None,
        after={**_proposal_facts(proposal), "year": proposal.year},
    )
    return proposal


async def _proposal(db: AsyncSession, proposal_id: int, *, lock: bool = True) -> FundProposal:
    query = select(FundProposal).where(FundProposal.id == proposal_id)
    if lock:
        query = query.with_for_update()
    row = await db.scalar(query)
    if row is None:
        raise FundError("fund_proposal_unknown", f"no proposal {proposal_id}", status=404)
    return row


async def electorate(db: AsyncSession) -> int:
    """Members who may vote: active people (bots never vote)."""
    return int(
        await db.scalar(
            select(func.count())
            .select_from(Member)
            .where(Member.active.is_(True), Member.is_bot.is_(False))
        )
        or 0
    )


def proposal_electorate(members: int) -> int:
    """R-F2: the electorate of a proposal — the active human members except its proposer."""
    return max(members - 1, 0)


def quorum(electorate_size: int) -> int:
    """R-F2: the yes votes that approve a proposal (if they outnumber the no votes): a third
    of its electorate, at least :data:`QUORUM_MIN`."""
    return max(QUORUM_MIN, math.ceil(electorate_size / 3))


@dataclass(frozen=True)
class Verdict:
    """Where a proposal's vote stands (R-F2)."""

    yes: int
    no: int
    electorate: int
    quorum: int

    @property
    def approved(self) -> bool:
        return self.yes >= self.quorum and self.yes > self.no

    @property
    def rejected(self) -> bool:
        return self.no * 2 > self.electorate


async def verdict(db: AsyncSession, proposal: FundProposal) -> Verdict:
    """Count a proposal's votes: only active human members other than the proposer count."""
    row = (
        await db.execute(
            select(
                func.count().filter(FundVote.yes.is_(True)),
                func.count().filter(FundVote.yes.is_(False)),
            )
            .join(Member, Member.id == FundVote.member_id)
            .where(
                FundVote.proposal_id == proposal.id,
                FundVote.member_id != proposal.proposer_id,
                Member.active.is_(True),
                Member.is_bot.is_(False),
            )
        )
    ).one()
    size = proposal_electorate(await electorate(db))
    return Verdict(int(row[0]), int(row[1]), size, quorum(size))


async def vote(
    db: AsyncSession,
    *,
    proposal_id: int,
    member: Member,
    yes: bool,
    now: datetime,
    actor: Actor | None = None,
) -> FundProposal:
    """Vote yes or no on an open proposal (a second vote replaces the first; the unique
    ``(proposal_id, member_id)`` constraint keeps it one vote); R-F2 decides it at once when the
    yes votes reach the quorum and outnumber the no votes, or the no votes are a majority."""
    proposal = await _proposal(db, proposal_id)
    if member.is_bot or not member.active:
        raise FundError("fund_not_a_voter", "only active members vote on proposals", status=403)
    if proposal.proposer_id == member.id:
        raise FundError(
            "fund_own_proposal",
            "R-F2: the other members decide on your proposal; you do not vote on it",
            status=409,
        )
    if proposal.status != ProposalStatus.open:
        raise FundError(
            "fund_proposal_closed",
            f"proposal {proposal_id} is {proposal.status.value}; only open proposals take votes",
            status=409,
        )
    who = actor or Actor.of(member)
    earlier = await db.scalar(
        select(FundVote.yes)
        .where(FundVote.proposal_id == proposal_id, FundVote.member_id == member.id)
        .with_for_update()
    )
    await db.execute(
        insert(FundVote)
        .values(
            proposal_id=proposal_id,
            member_id=member.id,
            yes=yes,
            at=now,
        )
        .on_conflict_do_update(
            index_elements=["proposal_id", "member_id"], set_={"yes": yes, "at": now}
        )
    )
    target = f"fund_proposal:{proposal.id}"
    await audit.record(
        db,
        actor=who,
        action="fund.vote",
        target=target,
        before=None if earlier is None else {"yes": earlier},
        after={"yes": yes},
    )
    counted = await verdict(db, proposal)
    decided = (
        ProposalStatus.approved
        if counted.approved
        else ProposalStatus.rejected
        if counted.rejected
        else None
    )
    if decided is not None:
        tally = {
            "yes": counted.yes,
            "no": counted.no,
            "electorate": counted.electorate,
            "quorum": counted.quorum,
        }
        await audit.record(
            db,
            actor=who,
            action="fund.approval" if counted.approved else "fund.rejection",
            target=target,
            before={"status": proposal.status},
            after={"status": decided, "by": "votes", **tally},
        )
        proposal.status, proposal.decided_at = decided, now
    await db.flush()
    return proposal


async def reject(
    db: AsyncSession, *, proposal_id: int, admin: Member, now: datetime, actor: Actor | None = None
) -> FundProposal:
    """An admin's veto: reject a proposal not yet paid. There is no admin approval — spending
    needs the members' vote (R-F2) — but refusing to spend never costs the fund anything."""
    proposal = await _proposal(db, proposal_id)
    if proposal.status not in COMPETING:
        raise FundError(
            "fund_proposal_decided",
            f"proposal {proposal_id} is already {proposal.status.value}",
            status=409,
        )
    await audit.record(
        db,
        actor=actor or Actor.of(admin),
        action="fund.rejection",
        target=f"fund_proposal:{proposal.id}",
        before={"status": proposal.status},
        after={"status": ProposalStatus.rejected, "by": "admin"},
    )
    proposal.status = ProposalStatus.rejected
    proposal.decided_by_id, proposal.decided_at = admin.id, now
    await db.flush()
    return proposal


async def pay(
    db: AsyncSession, *, proposal_id: int, by: Member, now: datetime, actor: Actor | None = None
) -> FundEntry:
    """Pay out an approved proposal: a ``spending`` entry, only while the members' votes still
    approve it (R-F2), never beyond the balance (R-F5), and not ahead of a better-ranked
    approved proposal the rest would no longer cover (R-F4).

    The ledger's advisory lock serialises payouts (and negative adjustments) so concurrent ones
    cannot overdraw together; the proposal's row lock makes a proposal paid once."""
    await _lock_ledger(db)
    proposal = await _proposal(db, proposal_id)
    if proposal.status != ProposalStatus.approved:
        raise FundError(
            "fund_not_approved",
            f"proposal {proposal_id} is "
            f"{proposal.status.value}; only a proposal the members approved is paid "
            "out",
            status=409,
        )
    counted = await verdict(db, proposal)
    if not counted.approved:
        raise FundError(
            "fund_not_approved",
            f"R-F2: proposal {proposal_id} has {counted.yes} yes and {counted.no} no votes; it "
            f"needs at least {counted.quorum} yes votes and more yes than no",
            status=409,
        )
    have = await balance(db)
    if proposal.amount > have:
        raise FundError(
            "fund_balance_exceeded",
            f"R-F5: the fund has {money(have)}, the proposal asks for "
            f"{money(proposal.amount)}; no spending beyond the balance",
            status=409,
        )
    for item in await ranked(db, now):
        if item.proposal.id == proposal.id:
            break
        ahead = item.proposal
        if ahead.status == ProposalStatus.approved and have - proposal.amount < ahead.amount:
            raise FundError(
                "fund_priority",
                f"R-F4: approved proposal {ahead.id} ranks higher (its proposer attended more "
                f"sessions) and the fund could no longer pay its {money(ahead.amount)}; pay it "
                "first or reject it",
                status=409,
            )
    entry = FundEntry(
        kind=EntryKind.spending,
        member_id=None,
        proposal_id=proposal.id,
        amount=-proposal.amount,
        recorded_by_id=by.id,
        recorded_at=now,
        reason=f"proposal {proposal.id}: {proposal.title}"[:300],
    )
    db.add(entry)
    before = _proposal_facts(proposal)
    proposal.status = ProposalStatus.paid
    await db.flush()
    await audit.record(
        db,
        actor=actor or Actor.of(by),
        action="fund.payout",
        target=f"fund_proposal:{proposal.id}",
        before=before,
        after={
            **_proposal_facts(proposal),
            "entry": _entry_facts(entry),
            "balance": money(have - proposal.amount),
        },
    )
    return entry


@dataclass(frozen=True)
class Ranked:
    """A proposal with its proposer, R-F4 attendance, counted votes, the R-F2 quorum and its
    rank (None unless competing)."""

    proposal: FundProposal
    proposer_name: str
    attendance: int
    yes: int
    no: int
    rank: int | None
    quorum: int


async def attendance_counts(db: AsyncSession, now: datetime) -> dict[int, int]:
    """Sessions each member attended over the last 12 months up to ``now`` (R-F4)."""
    rows = (
        await db.execute(
            select(Attendance.member_id, func.count())
            .join(ClubSession, ClubSession.id == Attendance.club_session_id)
            .where(and_(ClubSession.starts_at > year_ago(now), ClubSession.starts_at <= now))
            .group_by(Attendance.member_id)
        )
    ).all()
    return {int(m): int(n) for m, n in rows}


async def ranked(db: AsyncSession, now: datetime) -> list[Ranked]:
    """Competing proposals (open, approved) ranked by R-F4, then the decided ones, newest first."""
    proposals = list((await db.scalars(select(FundProposal))).all())
    counts = await attendance_counts(db, now)
    names = {
        int(i): str(n)
        for i, n in (
            await db.execute(
                select(Member.id, Member.display_name).where(
                    Member.id.in_({p.proposer_id for p in proposals} or {0})
                )
            )
        ).all()
    }
    tallies: dict[int, tuple[int, int]] = {}
    for pid, yes, no in (
        await db.execute(
            select(
                FundVote.proposal_id,
                func.count().filter(FundVote.yes.is_(True)),
                func.count().filter(FundVote.yes.is_(False)),
            )
            .join(FundProposal, FundProposal.id == FundVote.proposal_id)
            .join(Member, Member.id == FundVote.member_id)
            .where(
                FundVote.member_id != FundProposal.proposer_id,
                Member.active.is_(True),
                Member.is_bot.is_(False),
            )  # counted as verdict() counts (R-F2)
            .group_by(FundVote.proposal_id)
        )
    ).all():
        tallies[int(pid)] = (int(yes), int(no))
    needed = quorum(proposal_electorate(await electorate(db)))
    competing = sorted(
        (p for p in proposals if p.status in COMPETING),
        key=lambda p: (-counts.get(p.proposer_id, 0), p.created_at, p.id),
    )
    rest = sorted(
        (p for p in proposals if p.status not in COMPETING),
        key=lambda p: (p.created_at, p.id),
        reverse=True,
    )
    result: list[Ranked] = []
    for i, p in enumerate([*competing, *rest]):
        yes, no = tallies.get(p.id, (0, 0))
        result.append(
            Ranked(
                p,
                names.get(p.proposer_id, "?"),
                counts.get(p.proposer_id, 0),
                yes,
                no,
                i + 1 if i < len(competing) else None,
                needed,
            )
        )
    return result


async def my_votes(db: AsyncSession, member_id: int) -> dict[int, bool]:
    """The member's vote on each proposal he voted on."""
    rows = (
        await db.execute(
            select(FundVote.proposal_id, FundVote.yes).where(FundVote.member_id == member_id)
        )
    ).all()
    return {int(p): bool(y) for p, y in rows}


def entry_json(e: FundEntry) -> dict[str, Any]:
    """A ledger entry for the API."""
    return {
        "id": e.id,
        "kind": e.kind.value,
        "member_id": e.member_id,
        "pulka_id": e.pulka_id,
        "proposal_id": e.proposal_id,
        "amount": money(e.amount),
        "recorded_by_id": e.recorded_by_id,
        "recorded_at": e.recorded_at,
        "reason": e.reason,
    }
