"""Security review of the club fund (issue 9): idempotency keys, races on the "at most once"
rules (R-F3 proposals, votes, R-F5 payouts), the members' approval before a payout (R-F2),
house bots, and strict money input.

The race tests need separate database connections: the ``client`` fixture shares one session,
so :class:`Live` builds the app on the real sessionmaker, commits its own members and removes
everything they touched when the test ends.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.clock import FrozenClock
from app.config import Settings
from app.db.engine import make_sessionmaker
from app.db.models import Member, Role
from app.db.models.fund import (
    FundEntry,
    FundProposal,
    FundRequestKey,
    FundVote,
    ProposalStatus,
)
from app.main import create_app
from app.security.login_sessions import CSRF_COOKIE, SESSION_COOKIE, open_session
from tests.api.conftest import LoggedIn

N = 24
"""Concurrent requests per race (the project's bar is 20+)."""


def key() -> dict[str, str]:
    """A fresh ``Idempotency-Key`` header."""
    return {"Idempotency-Key": str(uuid.uuid4())}


@dataclass
class Live:
    """The app on the real sessionmaker: every request has its own connection."""

    app: FastAPI
    sessions: async_sessionmaker[AsyncSession]
    member_ids: list[int] = field(default_factory=list)
    clients: list[httpx.AsyncClient] = field(default_factory=list)

    async def member(
        self, role: Role = Role.member, *, is_bot: bool = False
    ) -> tuple[httpx.AsyncClient, Member]:
        """A committed member with a logged-in client of his own."""
        async with self.sessions() as db:
            member = Member(
                login=f"live-{uuid.uuid4().hex[:12]}",
                display_name="Live",
                role=role,
                password_hash="x",
                must_change_password=False,
                active=True,
                is_bot=is_bot,
            )
            db.add(member)
            await db.flush()
            token, csrf = await open_session(db, member, datetime.now(UTC), 24)
            await db.commit()
        self.member_ids.append(member.id)
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app, raise_app_exceptions=False),
            base_url="http://127.0.0.1:8000",
        )
        client.cookies.set(SESSION_COOKIE, token, domain="127.0.0.1")
        client.cookies.set(CSRF_COOKIE, csrf, domain="127.0.0.1")
        client.headers["X-CSRF-Token"] = csrf
        self.clients.append(client)
        return client, member

    async def scalar_count(self, model: type[object], *where: object) -> int:
        async with self.sessions() as db:
            return int(
                await db.scalar(
                    select(func.count())
                    .select_from(model)  # type: ignore[arg-type]
                    .where(*where)
                )
                or 0
            )  # type: ignore[arg-type]

    async def cleanup(self) -> None:
        """Remove every row the test's members touched (they were committed)."""
        for c in self.clients:
            await c.aclose()
        ids = self.member_ids
        if not ids:
            return
        async with self.sessions() as db:
            proposals = select(FundProposal.id).where(FundProposal.proposer_id.in_(ids))
            await db.execute(
                delete(FundEntry).where(
                    or_(
                        FundEntry.member_id.in_(ids),
                        FundEntry.recorded_by_id.in_(ids),
                        FundEntry.proposal_id.in_(proposals),
                    )
                )
            )
            await db.execute(
                delete(FundVote).where(
                    or_(FundVote.member_id.in_(ids), FundVote.proposal_id.in_(proposals))
                )
            )
            await db.execute(delete(FundProposal).where(FundProposal.proposer_id.in_(ids)))
            await db.execute(delete(Member).where(Member.id.in_(ids)))
            await db.commit()


@pytest.fixture
async def live(test_settings: Settings, engine: AsyncEngine) -> AsyncIterator[Live]:
    """The app with a session (and a connection) per request, on committed data."""
    application = create_app(test_settings)
    application.state.engine = engine
    application.state.sessionmaker = make_sessionmaker(engine)
    application.state.database_url = test_settings.database_url
    state = Live(application, make_sessionmaker(engine))
    try:
        yield state
    finally:
        await state.cleanup()


async def _fire(n: int, send: object) -> list[httpx.Response]:
    """``n`` concurrent calls of ``send()``."""
    return list(await asyncio.gather(*(send() for _ in range(n))))  # type: ignore[operator]


# ------------------------------------------------------------------ 1. idempotency of payments


async def test_concurrent_payments_with_one_key_make_one_entry(live: Live) -> None:
    treasurer, t = await live.member(Role.treasurer)
    _, payer = await live.member()
    header = key()
    body = {"member_id": payer.id, "amount": "40.00", "reason": "paid after the session"}

    responses = await _fire(
        N, lambda: treasurer.post("/api/fund/payments", json=body, headers=header)
    )

    assert {r.status_code for r in responses} == {201}, [r.text for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1  # every answer is the same entry
    assert await live.scalar_count(FundEntry, FundEntry.member_id == payer.id) == 1
    # A later replay still answers the stored entry and adds nothing.
    again = await treasurer.post("/api/fund/payments", json=body, headers=header)
    assert again.status_code == 201 and again.json() == responses[0].json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    # The same key with another body is refused with a code and changes nothing.
    other = await treasurer.post(
        "/api/fund/payments", headers=header, json={**body, "amount": "41.00"}
    )
    assert other.status_code == 422 and other.json()["code"] == "fund_idempotency_key_reused"
    assert await live.scalar_count(FundEntry, FundEntry.member_id == payer.id) == 1
    assert t.id != payer.id


async def test_payment_and_payout_require_a_key_others_honour_it(logged_in: LoggedIn) -> None:
    treasurer, _ = await logged_in(Role.treasurer)
    member, m = await logged_in()
    r = await treasurer.post("/api/fund/payments", json={"member_id": m.id, "amount": "5.00"})
    assert r.status_code == 400 and r.json()["code"] == "fund_idempotency_key_required"
    r = await treasurer.post(
        "/api/fund/payments",
        json={"member_id": m.id, "amount": "5.00"},
        headers={"Idempotency-Key": "bad key with spaces"},
    )
    assert r.status_code == 400 and r.json()["code"] == "fund_idempotency_key_invalid"
    assert (await treasurer.get("/api/fund")).json()["entries"] == []
    r = await treasurer.post("/api/fund/proposals/1/pay")
    assert r.status_code == 400 and r.json()["code"] == "fund_idempotency_key_required"
    # A proposal sent twice with one key is one proposal: the second answer is the replay.
    header = key()
    first = await member.post(
        "/api/fund/proposals", json={"title": "Карты", "amount": "5.00"}, headers=header
    )
    second = await member.post(
        "/api/fund/proposals", json={"title": "Карты", "amount": "5.00"}, headers=header
    )
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    # Keys are per member: another member's identical key is his own.
    other, _ = await logged_in()
    r = await other.post(
        "/api/fund/proposals", json={"title": "Карты", "amount": "5.00"}, headers=header
    )
    assert r.status_code == 201 and r.json()["id"] != first.json()["id"]


# -------------------------------------------------------------- 3. R-F3 under concurrency


async def test_concurrent_duplicate_proposals_one_201_rest_409(live: Live) -> None:
    member, m = await live.member()

    responses = await _fire(
        N,
        lambda: member.post(
            "/api/fund/proposals", json={"title": "Две колоды", "amount": "12.00"}, headers=key()
        ),
    )

    codes = sorted(r.status_code for r in responses)
    assert codes == [201] + [409] * (N - 1), [r.text for r in responses if r.status_code >= 500]
    assert {r.json()["code"] for r in responses if r.status_code == 409} == {
        "fund_proposal_this_year"
    }
    assert await live.scalar_count(FundProposal, FundProposal.proposer_id == m.id) == 1


# ------------------------------------------------------------ 4. one vote, payouts vs balance


async def test_concurrent_votes_of_one_member_are_one_vote(live: Live) -> None:
    proposer, _ = await live.member()
    voter, v = await live.member()
    pid = (
        await proposer.post(
            "/api/fund/proposals", headers=key(), json={"title": "Мел", "amount": "3.00"}
        )
    ).json()["id"]

    responses = await _fire(
        N, lambda: voter.post(f"/api/fund/proposals/{pid}/vote", json={"yes": True}, headers=key())
    )

    assert {r.status_code for r in responses} == {200}, [r.text for r in responses]
    assert (
        await live.scalar_count(FundVote, FundVote.proposal_id == pid, FundVote.member_id == v.id)
        == 1
    )


async def test_concurrent_votes_of_many_members_count_each_once(live: Live) -> None:
    proposer, _ = await live.member()
    voters = [await live.member() for _ in range(N)]
    pid = (
        await proposer.post(
            "/api/fund/proposals", headers=key(), json={"title": "Стол", "amount": "3.00"}
        )
    ).json()["id"]

    responses = await asyncio.gather(
        *(
            c.post(f"/api/fund/proposals/{pid}/vote", json={"yes": False}, headers=key())
            for c, _ in voters
        )
    )

    assert all(r.status_code in (200, 409) for r in responses), [r.text for r in responses]
    votes = await live.scalar_count(FundVote, FundVote.proposal_id == pid)
    assert votes == sum(r.status_code == 200 for r in responses) >= N // 2
    async with live.sessions() as db:
        status = await db.scalar(select(FundProposal.status).where(FundProposal.id == pid))
    assert status == ProposalStatus.rejected  # R-F2: an absolute majority against


async def _approved_proposals(live: Live, n: int, amount: str) -> list[int]:
    """``n`` proposals, each approved by the yes votes of every other member (R-F2)."""
    people = [await live.member() for _ in range(n)]
    ids = []
    for client, _ in people:
        r = await client.post(
            "/api/fund/proposals", headers=key(), json={"title": "Карты", "amount": amount}
        )
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    async with live.sessions() as db:
        now = datetime.now(UTC)
        for pid, (_, proposer) in zip(ids, people, strict=True):
            for _, voter in people:
                if voter.id != proposer.id:
                    db.add(FundVote(proposal_id=pid, member_id=voter.id, yes=True, at=now))
        await db.commit()
    # One more vote through the API decides each proposal the way the service does.
    for pid, (client, _) in zip(ids, [*people[1:], people[0]], strict=True):
        r = await client.post(f"/api/fund/proposals/{pid}/vote", json={"yes": True}, headers=key())
        assert r.status_code in (200, 409), r.text
        assert r.json().get("status", "approved") == "approved", r.text
    return ids


async def test_concurrent_payouts_never_overdraw(live: Live) -> None:
    treasurer, _ = await live.member(Role.treasurer)
    _, payer = await live.member()
    r = await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": payer.id, "amount": "100.00"}
    )
    assert r.status_code == 201
    ids = await _approved_proposals(live, N, "10.00")

    responses = await asyncio.gather(
        *(treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key()) for pid in ids)
    )

    assert all(r.status_code in (201, 409) for r in responses), [r.text for r in responses]
    paid = [r for r in responses if r.status_code == 201]
    assert 1 <= len(paid) <= 10
    assert {r.json()["code"] for r in responses if r.status_code == 409} <= {
        "fund_balance_exceeded",
        "fund_priority",
    }
    async with live.sessions() as db:
        spent = await db.scalar(
            select(func.coalesce(func.sum(FundEntry.amount), 0)).where(
                FundEntry.proposal_id.in_(ids)
            )
        )
    assert Decimal(spent) == Decimal("-10.00") * len(paid) >= Decimal("-100.00")


async def test_concurrent_payouts_of_one_proposal_pay_once(live: Live) -> None:
    treasurer, _ = await live.member(Role.treasurer)
    _, payer = await live.member()
    await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": payer.id, "amount": "1000.00"}
    )
    [pid] = (await _approved_proposals(live, 5, "10.00"))[:1]

    responses = await _fire(
        N, lambda: treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    )

    assert sorted(r.status_code for r in responses) == [201] + [409] * (N - 1)
    assert {r.json()["code"] for r in responses if r.status_code == 409} == {"fund_not_approved"}
    assert await live.scalar_count(FundEntry, FundEntry.proposal_id == pid) == 1


# ------------------------------------------------------------------ 2. R-F2: the members agree


async def test_rf2_admin_cannot_approve_and_pay_his_own_proposal_alone(
    logged_in: LoggedIn,
) -> None:
    admin, a = await logged_in(Role.admin)
    member, _ = await logged_in()
    await admin.post(
        "/api/fund/payments", headers=key(), json={"member_id": a.id, "amount": "50.00"}
    )
    pid = (
        await admin.post(
            "/api/fund/proposals", headers=key(), json={"title": "Мне", "amount": "50.00"}
        )
    ).json()["id"]
    r = await admin.post(f"/api/fund/proposals/{pid}/approve", headers=key())
    assert r.status_code in (404, 405)  # no admin approval: the members decide (R-F2)
    r = await admin.post(f"/api/fund/proposals/{pid}/vote", json={"yes": True}, headers=key())
    assert r.status_code == 409 and r.json()["code"] == "fund_own_proposal"
    r = await member.post(f"/api/fund/proposals/{pid}/vote", json={"yes": True}, headers=key())
    assert r.status_code == 200 and r.json()["status"] == "open"  # 1 yes < quorum of 3
    r = await admin.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    assert r.status_code == 409 and r.json()["code"] == "fund_not_approved"
    assert (await admin.get("/api/fund")).json()["balance"] == "50.00"


async def test_rf2_quorum_and_majority_of_votes_cast(logged_in: LoggedIn) -> None:
    proposer, _ = await logged_in()
    treasurer, _ = await logged_in(Role.treasurer)
    voters = [await logged_in() for _ in range(4)]
    await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": voters[0][1].id, "amount": "20.00"}
    )
    pid = (
        await proposer.post(
            "/api/fund/proposals", headers=key(), json={"title": "Колоды", "amount": "20.00"}
        )
    ).json()["id"]
    listing = (await proposer.get("/api/fund/proposals")).json()
    assert listing["quorum"] == 3 and listing["proposals"][0]["quorum"] == 3
    steps = [
        (voters[0], True, "open"),
        (voters[1], False, "open"),
        (voters[2], True, "open"),
        (voters[3], True, "approved"),
    ]  # 3 yes of 4 votes cast, quorum 3: approved
    for (client, _), yes, status in steps:
        r = await client.post(f"/api/fund/proposals/{pid}/vote", json={"yes": yes}, headers=key())
        assert r.status_code == 200 and r.json()["status"] == status, r.text
    r = await treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    assert r.status_code == 201 and r.json()["amount"] == "-20.00"


async def test_rf2_a_proposal_approved_without_the_votes_is_not_paid(
    logged_in: LoggedIn,
    db_session: AsyncSession,
) -> None:
    """An "approved" status alone (say, an admin's decision recorded before the vote rule)
    does not open the till: the payout re-counts the votes (R-F2)."""
    treasurer, t = await logged_in(Role.treasurer)
    proposer, _ = await logged_in()
    await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": t.id, "amount": "20.00"}
    )
    pid = (
        await proposer.post(
            "/api/fund/proposals", headers=key(), json={"title": "Колоды", "amount": "20.00"}
        )
    ).json()["id"]
    row = await db_session.get(FundProposal, pid)
    assert row is not None
    row.status = ProposalStatus.approved
    await db_session.flush()
    r = await treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    assert r.status_code == 409 and r.json()["code"] == "fund_not_approved"


# ------------------------------------------------------------ 5. house bots and money input


async def test_no_payment_for_a_house_bot(logged_in: LoggedIn, db_session: AsyncSession) -> None:
    treasurer, _ = await logged_in(Role.treasurer)
    bot = Member(
        login="bot-fund",
        display_name="Бот",
        role=Role.member,
        password_hash=None,
        must_change_password=False,
        active=True,
        is_bot=True,
    )
    db_session.add(bot)
    await db_session.flush()
    for body in (
        {"member_id": bot.id, "amount": "5.00"},
        {"kind": "adjustment", "member_id": bot.id, "amount": "5.00", "reason": "x"},
    ):
        r = await treasurer.post("/api/fund/payments", json=body, headers=key())
        assert r.status_code == 422 and r.json()["code"] == "fund_member_is_bot", r.text
    assert (await treasurer.get("/api/fund")).json()["entries"] == []


@pytest.mark.parametrize(
    "amount",
    [
        "1_000",
        "1e2",
        "1E2",
        "１２",
        "٣",
        "۳",
        "१२",
        "+5",
        " 5",
        "5 ",
        "5\n",
        ".5",
        "5.",
        "1.005",
        "NaN",
        "Infinity",
        "-0",
        "0",
        "0.00",
        "1,2,3",
        "1.2.3",
        "0x10",
        "",
        "١٠٠",
        "10000000.00",
        "5,001",
    ],
)
async def test_only_plain_ascii_decimals_are_money(logged_in: LoggedIn, amount: str) -> None:
    treasurer, t = await logged_in(Role.treasurer)
    r = await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": t.id, "amount": amount}
    )
    assert r.status_code == 422, (amount, r.text)
    assert r.json()["code"] in ("fund_amount_invalid", "fund_amount_out_of_range"), r.text
    r = await treasurer.post(
        "/api/fund/proposals", headers=key(), json={"title": "x", "amount": amount}
    )
    assert r.status_code == 422 and r.json()["code"].startswith("fund_amount_"), (amount, r.text)
    assert (await treasurer.get("/api/fund")).json()["entries"] == []


async def test_plain_decimals_with_point_or_comma_are_accepted(logged_in: LoggedIn) -> None:
    treasurer, t = await logged_in(Role.treasurer)
    for amount, stored in (
        ("7", "7.00"),
        ("0,5", "0.50"),
        ("12.34", "12.34"),
        ("1000000", "1000000.00"),
    ):
        r = await treasurer.post(
            "/api/fund/payments", headers=key(), json={"member_id": t.id, "amount": amount}
        )
        assert r.status_code == 201 and r.json()["amount"] == stored, r.text
    r = await treasurer.post(
        "/api/fund/payments",
        headers=key(),
        json={"kind": "adjustment", "member_id": t.id, "amount": "-0,34", "reason": "typo"},
    )
    assert r.status_code == 201 and r.json()["amount"] == "-0.34"


async def test_a_refused_request_does_not_use_up_its_key(live: Live) -> None:
    """A refusal changes nothing, the key included: the corrected form is sent with the same
    key (the page keeps it while retrying) and is recorded."""
    treasurer, _ = await live.member(Role.treasurer)
    _, payer = await live.member()
    header = key()
    r = await treasurer.post("/api/fund/payments", json={"amount": "5.00"}, headers=header)
    assert r.status_code == 400 and r.json()["code"] == "fund_member_required"
    r = await treasurer.post(
        "/api/fund/payments", headers=header, json={"member_id": payer.id, "amount": "5.00"}
    )
    assert r.status_code == 201, r.text
    assert await live.scalar_count(FundEntry, FundEntry.member_id == payer.id) == 1


async def test_rf1_no_debt_for_a_house_bot_at_a_club_table(
    make_member: Callable[..., Awaitable[Member]],
    db_session: AsyncSession,
    clock: FrozenClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R-F1 debts are the members' own: a house bot seated at a club table owes nothing."""
    from tests.api.test_fund import MONEY, _closed_pulka, _entries, _fixed_settlement

    _fixed_settlement(monkeypatch, MONEY)  # seats 2 and 3 lose
    people = [await make_member(), await make_member()]
    bot = Member(
        login="bot-rf1",
        display_name="Бот",
        role=Role.member,
        password_hash=None,
        must_change_password=False,
        active=True,
        is_bot=True,
    )
    db_session.add(bot)
    await db_session.flush()
    await _closed_pulka(db_session, [*people, bot], practice=False, now=clock.now())
    assert [(k, a) for _, k, a in await _entries(db_session)] == [
        ("payment_due", Decimal("3.25"))
    ]  # the member in seat 2 only


async def test_an_idempotency_key_is_unique_per_member_in_the_database(
    make_member: Callable[..., Awaitable[Member]],
    db_session: AsyncSession,
) -> None:
    """The "at most once" of a keyed request is the database's rule, not only Python's."""
    a, b = await make_member(), await make_member()
    db_session.add_all(
        [
            FundRequestKey(member_id=a.id, key="k-12345678", fingerprint="x"),
            FundRequestKey(member_id=b.id, key="k-12345678", fingerprint="x"),
        ]
    )
    await db_session.flush()  # the same key of two members: two rows
    with pytest.raises(IntegrityError):
        async with db_session.begin_nested():
            db_session.add(FundRequestKey(member_id=a.id, key="k-12345678", fingerprint="y"))
            await db_session.flush()
