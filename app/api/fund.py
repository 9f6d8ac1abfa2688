"""The club fund — кубышка (RULES.md §9): balance, ledger, debts, payments, spending proposals,
votes, vetoes and payouts (R-F1..R-F5). Money is a decimal string with kopecks.

Every state-changing request takes an ``Idempotency-Key`` header (required for payments and
payouts, honoured on the others): see :mod:`app.services.fund_keys`. Refusals answer
``{"detail": "<English>", "code": "<stable code>"}`` with a 4xx status, and change nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.deps import (
    AddressDep,
    AdminMember,
    ClockDep,
    CurrentMember,
    SessionDep,
    SettingsDep,
    TreasurerMember,
)
from app.api.schemas import ERRORS, INT4_MAX, Id, IdPath, Text
from app.db.models import Member
from app.db.models.fund import EntryKind, FundProposal
from app.services import fund, fund_keys
from app.services.audit import Actor
from app.services.service_errors import ServiceError

GENERIC_CODES = {
    403: "fund_forbidden",
    404: "fund_not_found",
    409: "fund_conflict",
    422: "fund_invalid",
}


def refusal(exc: ServiceError) -> JSONResponse:
    """A refused request as ``{"detail", "code"}`` (a :class:`fund.FundError` names its code)."""
    code = getattr(exc, "code", None) or GENERIC_CODES.get(exc.status, "fund_bad_request")
    return JSONResponse({"detail": str(exc), "code": code}, status_code=exc.status)


router = APIRouter(prefix="/api/fund", tags=["fund"], responses=ERRORS)

KEY_DOC = (
    "``Idempotency-Key`` header: a UUID made when the form is shown and reused when "
    "retrying; a replay answers the stored response (header ``Idempotent-Replayed``)."
)


async def once(
    request: Request,
    member: Member,
    db: AsyncSession,
    body: BaseModel | None,
    act: Callable[[], Awaitable[BaseModel]],
    *,
    status: int,
    key_required: bool,
) -> JSONResponse:
    """Run ``act`` at most once per ``Idempotency-Key`` of ``member`` and answer its result.

    Without a key (where it is optional) ``act`` simply runs. With one, the key is claimed
    first (waiting for a concurrent request with the same key), ``act`` runs and its answer is
    stored in the same transaction; a repeat answers the stored one.

    All of it runs in a savepoint: a refusal (:class:`ServiceError`) rolls back everything the
    request wrote, its claimed key included — so the corrected request may reuse the key — and
    answers :func:`refusal`. (Answering instead of raising means the session dependency then
    commits, so the rollback must happen here.)
    """
    try:
        async with db.begin_nested():
            key = fund_keys.check_key(request.headers.get(fund_keys.HEADER), required=key_required)
            claimed: int | None = None
            if key is not None:
                print_ = fund_keys.fingerprint(
                    request.method, request.url.path, body.model_dump(mode="json") if body else None
                )
                got = await fund_keys.claim(db, member_id=member.id, key=key, print_=print_)
                if isinstance(got, fund_keys.Replay):
                    return JSONResponse(
                        got.body,
                        status_code=got.status_code,
                        headers={"Idempotent-Replayed": "true"},
                    )
                claimed = got
            content = jsonable_encoder(await act())
            if claimed is not None:
                await fund_keys.remember(db, claimed, status, content)
    except ServiceError as exc:
        return refusal(exc)
    return JSONResponse(content, status_code=status)


ENTRY_EXAMPLE: JsonDict = {
    "id": 12,
    "kind": "payment",
    "member_id": 7,
    "pulka_id": None,
    "proposal_id": None,
    "amount": "40.00",
    "recorded_by_id": 2,
    "recorded_at": "2026-11-30T19:20:00Z",
    "reason": "paid in after the session",
}
DEBT_EXAMPLE: JsonDict = {
    "member_id": 7,
    "display_name": "Иван",
    "owed": "52.50",
    "paid": "40.00",
    "outstanding": "12.50",
}
PROPOSAL_EXAMPLE: JsonDict = {
    "id": 3,
    "proposer_id": 7,
    "proposer_name": "Иван",
    "year": 2026,
    "title": "Две колоды карт",
    "amount": "1200.00",
    "status": "open",
    "created_at": "2026-11-30T09:00:00Z",
    "decided_at": None,
    "attendance": 31,
    "yes": 2,
    "no": 0,
    "rank": 1,
    "my_vote": True,
    "quorum": 3,
}


class EntryOut(BaseModel):
    """One immutable ledger entry (R-F5): what, whose, how much, who recorded it, when, why."""

    model_config = ConfigDict(json_schema_extra={"examples": [ENTRY_EXAMPLE]})

    id: int
    kind: Literal["payment_due", "payment", "spending", "adjustment"]
    member_id: int | None
    pulka_id: int | None
    proposal_id: int | None
    amount: str
    """Signed: spending is negative; ``payment_due`` is a claim and not in the balance."""
    recorded_by_id: int | None
    recorded_at: datetime
    reason: str


class DebtOut(BaseModel):
    """A member's account with the fund: owed by R-F1, paid in, still outstanding."""

    model_config = ConfigDict(json_schema_extra={"examples": [DEBT_EXAMPLE]})

    member_id: int
    display_name: str
    owed: str
    paid: str
    outstanding: str


class FundOut(BaseModel):
    """The fund: balance, a page of the ledger (newest first) and every member's debt."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "balance": "40.00",
                    "entries": [ENTRY_EXAMPLE],
                    "next_before_id": None,
                    "debts": [DEBT_EXAMPLE],
                    "can_record": False,
                }
            ]
        }
    )

    balance: str
    entries: list[EntryOut]
    next_before_id: int | None
    """Pass as ``before_id`` for the next (older) page; null on the last page."""
    debts: list[DebtOut]
    can_record: bool
    """Whether the caller may record payments and pay out (treasurer or admin)."""


class PaymentIn(BaseModel):
    """Money a member paid in (``payment``, > 0), or a correction (``adjustment``, signed, with a
    reason; ``member_id`` optional)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"member_id": 7, "amount": "40.00", "reason": "paid in after the session"},
                {
                    "kind": "adjustment",
                    "member_id": 7,
                    "amount": "-10.00",
                    "reason": "entry 12 was 10.00 too much",
                },
            ]
        }
    )

    kind: Literal["payment", "adjustment"] = "payment"
    member_id: Id | None = None
    amount: str = Field(max_length=32, examples=["40.00", "40,5"])
    """A plain decimal with ASCII digits, a point or a comma and at most 2 decimals (negative
    only for an adjustment); anything else is a 422 ``fund_amount_invalid``."""
    reason: Text | None = Field(default=None, max_length=300)


class ProposalIn(BaseModel):
    """A spending proposal (R-F2); one per member and calendar year (R-F3)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"title": "Две колоды карт", "amount": "1200.00"}]}
    )

    title: Text = Field(max_length=200)
    """What the money is for; an empty (or blank) one is 422 ``fund_title_required``."""
    amount: str = Field(max_length=32, examples=["1200.00"])
    """A plain positive decimal, as for a payment."""


class ProposalOut(BaseModel):
    """A proposal with its proposer's 12-month attendance, votes and R-F4 rank (competing ones
    only: open or approved, not yet paid)."""

    model_config = ConfigDict(json_schema_extra={"examples": [PROPOSAL_EXAMPLE]})

    id: int
    proposer_id: int
    proposer_name: str
    year: int
    title: str
    amount: str
    status: Literal["open", "approved", "rejected", "paid"]
    created_at: datetime
    decided_at: datetime | None
    attendance: int
    yes: int
    """Counted votes: those of active human members other than the proposer (R-F2)."""
    no: int
    rank: int | None
    my_vote: bool | None
    quorum: int
    """Yes votes that approve it when they outnumber the no votes (R-F2)."""


class ProposalsOut(BaseModel):
    """Proposals: competing ones by rank, then the decided ones; the R-F2 quorum."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "proposals": [PROPOSAL_EXAMPLE],
                    "electorate": 9,
                    "quorum": 3,
                    "may_propose": False,
                }
            ]
        }
    )

    proposals: list[ProposalOut]
    electorate: int
    """Active human members; a proposal's electorate is all of them but its proposer."""
    quorum: int
    """Yes votes that approve a proposal when they outnumber its no votes (R-F2): a third of
    its electorate, at least 3. More than half of its electorate voting no rejects it."""
    may_propose: bool
    """Whether the caller may still propose this calendar year (R-F3)."""


class VoteIn(BaseModel):
    """Yes or no; voting again replaces the earlier vote while the proposal is open."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"yes": True}]})

    yes: bool


def _debt(d: fund.Debt) -> DebtOut:
    return DebtOut(
        member_id=d.member_id,
        display_name=d.display_name,
        owed=fund.money(d.owed),
        paid=fund.money(d.paid),
        outstanding=fund.money(d.outstanding),
    )


def _can_record(member: Member) -> bool:
    return member.role.value in ("treasurer", "admin")


@router.get("", response_model=FundOut)
async def get_fund(
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    limit: int = Query(50, ge=1, le=200),
    before_id: int | None = Query(None, ge=1, le=INT4_MAX),
) -> FundOut:
    """Balance, a ledger page (newest first) and outstanding debts (R-F1, R-F5)."""
    await fund.record_missing_debts(db, clock.now())
    entries = await fund.ledger(db, limit=limit + 1, before_id=before_id)
    more = len(entries) > limit
    entries = entries[:limit]
    return FundOut(
        balance=fund.money(await fund.balance(db)),
        entries=[EntryOut(**fund.entry_json(e)) for e in entries],
        next_before_id=entries[-1].id if more and entries else None,
        debts=[_debt(d) for d in await fund.debts(db)],
        can_record=_can_record(member),
    )


@router.post("/payments", response_model=EntryOut, status_code=201)
async def post_payment(
    request: Request,
    body: PaymentIn,
    member: TreasurerMember,
    db: SessionDep,
    clock: ClockDep,
    address: AddressDep,
) -> Response:
    """Record money paid in, or a correction (treasurer or admin). Requires an
    ``Idempotency-Key``: a retried payment is recorded once."""

    async def act() -> EntryOut:
        amount = fund.parse_amount(body.amount, signed=body.kind == "adjustment")
        entry = await fund.record_payment(
            db,
            member_id=body.member_id,
            amount=amount,
            by=member,
            now=clock.now(),
            reason=body.reason,
            kind=EntryKind(body.kind),
            actor=Actor.of(member, address),
        )
        return EntryOut(**fund.entry_json(entry))

    return await once(request, member, db, body, act, status=201, key_required=True)


async def _proposal_out(
    db: SessionDep, member: Member, proposal_id: int, now: datetime
) -> ProposalOut:
    mine = await fund.my_votes(db, member.id)
    for item in await fund.ranked(db, now):
        if item.proposal.id == proposal_id:
            return _out(item, mine)
    raise AssertionError("the proposal just written is listed")


def _out(item: fund.Ranked, mine: dict[int, bool]) -> ProposalOut:
    p: FundProposal = item.proposal
    return ProposalOut(
        id=p.id,
        proposer_id=p.proposer_id,
        proposer_name=item.proposer_name,
        year=p.year,
        title=p.title,
        amount=fund.money(p.amount),
        status=p.status.value,
        created_at=p.created_at,
        decided_at=p.decided_at,
        attendance=item.attendance,
        yes=item.yes,
        no=item.no,
        rank=item.rank,
        my_vote=mine.get(p.id),
        quorum=item.quorum,
    )


@router.get("/proposals", response_model=ProposalsOut)
async def get_proposals(
    member: CurrentMember, db: SessionDep, clock: ClockDep, settings: SettingsDep
) -> ProposalsOut:
    """Competing proposals ranked by their proposer's attendance over 12 months (R-F4), then
    the decided ones."""
    now = clock.now()
    items = await fund.ranked(db, now)
    mine = await fund.my_votes(db, member.id)
    year = fund.club_year(now, settings.zone)
    electorate = await fund.electorate(db)
    return ProposalsOut(
        proposals=[_out(i, mine) for i in items],
        electorate=electorate,
        quorum=fund.quorum(fund.proposal_electorate(electorate)),
        may_propose=not any(
            i.proposal.proposer_id == member.id and i.proposal.year == year for i in items
        ),
    )


@router.post("/proposals", response_model=ProposalOut, status_code=201)
async def post_proposal(
    request: Request,
    body: ProposalIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    settings: SettingsDep,
    address: AddressDep,
) -> Response:
    """Propose a spending (R-F2); 409 ``fund_proposal_this_year`` on a second proposal in the
    same calendar year (R-F3), even when both arrive at once."""

    async def act() -> ProposalOut:
        proposal = await fund.create_proposal(
            db,
            proposer=member,
            title=body.title,
            amount=fund.parse_amount(body.amount),
            now=clock.now(),
            zone=settings.zone,
            actor=Actor.of(member, address),
        )
        await db.refresh(proposal)
        return await _proposal_out(db, member, proposal.id, clock.now())

    return await once(request, member, db, body, act, status=201, key_required=False)


@router.post("/proposals/{proposal_id}/vote", response_model=ProposalOut)
async def post_vote(
    request: Request,
    proposal_id: IdPath,
    body: VoteIn,
    member: CurrentMember,
    db: SessionDep,
    clock: ClockDep,
    address: AddressDep,
) -> Response:
    """Vote on an open proposal of another member; R-F2 decides it when the yes votes reach
    the quorum and outnumber the no votes, or more than half of the electorate votes no."""

    async def act() -> ProposalOut:
        await fund.vote(
            db,
            proposal_id=proposal_id,
            member=member,
            yes=body.yes,
            now=clock.now(),
            actor=Actor.of(member, address),
        )
        return await _proposal_out(db, member, proposal_id, clock.now())

    return await once(request, member, db, body, act, status=200, key_required=False)


@router.post("/proposals/{proposal_id}/reject", response_model=ProposalOut)
async def post_reject(
    request: Request,
    proposal_id: IdPath,
    member: AdminMember,
    db: SessionDep,
    clock: ClockDep,
    address: AddressDep,
) -> Response:
    """Reject a proposal not yet paid (admin). There is no admin approval: the members vote
    (R-F2)."""

    async def act() -> ProposalOut:
        await fund.reject(
            db,
            proposal_id=proposal_id,
            admin=member,
            now=clock.now(),
            actor=Actor.of(member, address),
        )
        return await _proposal_out(db, member, proposal_id, clock.now())

    return await once(request, member, db, None, act, status=200, key_required=False)


@router.post("/proposals/{proposal_id}/pay", response_model=EntryOut, status_code=201)
async def post_pay(
    request: Request,
    proposal_id: IdPath,
    member: TreasurerMember,
    db: SessionDep,
    clock: ClockDep,
    address: AddressDep,
) -> Response:
    """Pay out a proposal the members approved (treasurer or admin); requires an
    ``Idempotency-Key``. 409 ``fund_not_approved`` unless the votes approve it (R-F2),
    ``fund_balance_exceeded`` beyond the balance (R-F5), ``fund_priority`` ahead of a
    better-ranked approved proposal the rest could no longer pay (R-F4)."""

    async def act() -> EntryOut:
        entry = await fund.pay(
            db, proposal_id=proposal_id, by=member, now=clock.now(), actor=Actor.of(member, address)
        )
        return EntryOut(**fund.entry_json(entry))

    return await once(request, member, db, None, act, status=201, key_required=True)
