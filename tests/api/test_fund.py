"""The club fund — кубышка (RULES.md §9): roles, R-F1 debts, R-F3, R-F4, R-F5, exact money."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Attendance, ClubSession, Member, Role
from app.db.models.fund import FundEntry
from app.db.models.table import Pulka
from app.rules.scoring.settlement import Settlement
from app.security.login_sessions import CSRF_COOKIE, SESSION_COOKIE, open_session
from app.services import fund
from app.services.pulkas import close_pulka
from app.services.tables import create_table
from tests.api.conftest import MONDAY_NOON, LoggedIn
from tests.api.test_fund_security import key

MONEY = ["8.50", "-3.25", "-5.25"]


def _fixed_settlement(monkeypatch: pytest.MonkeyPatch, money: list[str]) -> None:
    """Settle every pulka closed in the test to ``money`` (a fresh pulka settles to zero)."""

    def to_json(self: Settlement) -> dict[str, Any]:
        return {"whists": ["0.00"] * len(money), "rounded": [0] * len(money), "money": money}

    monkeypatch.setattr(Settlement, "to_json", to_json)


async def _entries(db: AsyncSession) -> list[tuple[int, str, Decimal]]:
    rows = (
        await db.execute(
            select(FundEntry.id, FundEntry.kind, FundEntry.amount).order_by(FundEntry.id)
        )
    ).all()
    return [(i, k.value, a) for i, k, a in rows]


async def _closed_pulka(
    db: AsyncSession, members: list[Member], *, practice: bool, now: datetime
) -> Pulka:
    table = await create_table(
        db, seat_member_ids=[m.id for m in members], practice=practice, now=now
    )
    row = await close_pulka(db, table.id, "agreement", now)
    assert row is not None and row.status == "finished"
    return row


async def test_roles_member_cannot_record_pay_or_decide(logged_in: LoggedIn) -> None:
    member, m = await logged_in()
    treasurer, _ = await logged_in(Role.treasurer)
    admin, _ = await logged_in(Role.admin)
    r = await member.post(
        "/api/fund/payments", headers=key(), json={"member_id": m.id, "amount": "10.00"}
    )
    assert r.status_code == 403 and "treasurer" in r.json()["detail"]
    r = await member.post("/api/fund/proposals", json={"title": "Карты", "amount": "5.00"})
    assert r.status_code == 201
    pid = r.json()["id"]
    path = f"/api/fund/proposals/{pid}/reject"
    assert (await member.post(path)).status_code == 403
    assert (await treasurer.post(path)).status_code == 403
    assert (await member.post(f"/api/fund/proposals/{pid}/pay", headers=key())).status_code == 403
    # CSRF: a state-changing request without the header is refused.
    del treasurer.headers["X-CSRF-Token"]
    r = await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": m.id, "amount": "10.00"}
    )
    assert r.status_code == 403 and "CSRF" in r.json()["detail"]
    fund_view = (await member.get("/api/fund")).json()
    assert fund_view["balance"] == "0.00" and fund_view["entries"] == []
    assert fund_view["can_record"] is False
    assert (await admin.get("/api/fund")).json()["can_record"] is True


async def test_rf1_club_pulka_debts_once_practice_never(
    logged_in: LoggedIn,
    make_member: Callable[..., Awaitable[Member]],
    db_session: AsyncSession,
    clock: FrozenClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fixed_settlement(monkeypatch, MONEY)
    viewer, _ = await logged_in()
    players = [await make_member() for _ in range(3)]
    now = clock.now()
    practice = await _closed_pulka(db_session, players, practice=True, now=now)
    assert await _entries(db_session) == []
    club = await _closed_pulka(db_session, players, practice=False, now=now)
    assert club.settlement is not None and club.settlement["money"] == MONEY
    entries = await _entries(db_session)
    assert [(k, a) for _, k, a in entries] == [
        ("payment_due", Decimal("3.25")),
        ("payment_due", Decimal("5.25")),
    ]
    # Idempotent: settling again, the hook, the back-fill and closing again add nothing.
    assert await fund.record_pulka_debts(db_session, club, now) == []
    assert await fund.record_pulka_debts(db_session, practice, now) == []
    await fund.record_table_debts(db_session, club.table_id, now)
    assert await fund.record_missing_debts(db_session, now) == 0
    await close_pulka(db_session, club.table_id, "session_end", now)
    assert await _entries(db_session) == entries
    body = (await viewer.get("/api/fund")).json()
    assert body["balance"] == "0.00"  # owed is not yet paid in
    debts = {d["member_id"]: d for d in body["debts"]}
    assert set(debts) == {players[1].id, players[2].id}
    assert debts[players[2].id] == {
        "member_id": players[2].id,
        "display_name": players[2].display_name,
        "owed": "5.25",
        "paid": "0.00",
        "outstanding": "5.25",
    }
    assert all(
        e["pulka_id"] == club.id and e["recorded_by_id"] is None and "R-F1" in e["reason"]
        for e in body["entries"]
    )


async def test_rf1_backfill_of_a_pulka_settled_without_the_hook(
    logged_in: LoggedIn,
    make_member: Callable[..., Awaitable[Member]],
    db_session: AsyncSession,
    clock: FrozenClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fixed_settlement(monkeypatch, MONEY)
    monkeypatch.setattr(fund, "record_table_debts", _no_hook)
    viewer, _ = await logged_in()
    players = [await make_member() for _ in range(3)]
    await _closed_pulka(db_session, players, practice=False, now=clock.now())
    assert await _entries(db_session) == []
    body = (await viewer.get("/api/fund")).json()
    assert sorted(d["owed"] for d in body["debts"]) == ["3.25", "5.25"]
    assert len((await viewer.get("/api/fund")).json()["entries"]) == 2


async def _no_hook(*_args: object) -> None:
    return None


async def test_payments_sum_exactly_and_bad_input_changes_nothing(
    logged_in: LoggedIn,
    make_member: Callable[..., Awaitable[Member]],
    db_session: AsyncSession,
    clock: FrozenClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fixed_settlement(monkeypatch, MONEY)
    treasurer, t = await logged_in(Role.treasurer)
    players = [await make_member() for _ in range(3)]
    await _closed_pulka(db_session, players, practice=False, now=clock.now())
    loser = players[1].id
    for _ in range(3):  # 0.1 + 0.1 + 0.1 must be exactly 0.30, not a float's 0.30000000000000004
        r = await treasurer.post(
            "/api/fund/payments", headers=key(), json={"member_id": loser, "amount": "0.10"}
        )
        assert r.status_code == 201, r.text
        assert r.json()["kind"] == "payment" and r.json()["recorded_by_id"] == t.id
    before = await _entries(db_session)
    bad: list[tuple[dict[str, object], int, str | None]] = [
        ({"member_id": loser, "amount": "1.005"}, 422, "fund_amount_invalid"),
        ({"member_id": loser, "amount": "abc"}, 422, "fund_amount_invalid"),
        ({"member_id": loser, "amount": "-1.00"}, 422, "fund_amount_invalid"),
        ({"member_id": loser, "amount": "0"}, 422, "fund_amount_out_of_range"),
        ({"amount": "1.00"}, 400, "fund_member_required"),
        ({"member_id": 999_999, "amount": "1.00"}, 404, "fund_member_unknown"),
        (
            {"kind": "adjustment", "member_id": loser, "amount": "-0.10"},
            400,
            "fund_reason_required",
        ),
        (
            {"kind": "adjustment", "amount": "-0.31", "reason": "too much"},
            409,
            "fund_balance_exceeded",
        ),  # R-F5
        ({"kind": "spending", "amount": "1.00"}, 422, None),  # the framework's validation
    ]
    for payload, status, code in bad:
        r = await treasurer.post("/api/fund/payments", headers=key(), json=payload)
        assert r.status_code == status, (payload, r.text)
        assert r.json()["detail"]
        if code is not None:
            assert r.json()["code"] == code, r.text
    assert await _entries(db_session) == before
    r = await treasurer.post(
        "/api/fund/payments",
        headers=key(),
        json={
            "kind": "adjustment",
            "member_id": loser,
            "amount": "-0.05",
            "reason": "the third payment was 0.05",
        },
    )
    assert r.status_code == 201 and r.json()["amount"] == "-0.05"
    body = (await treasurer.get("/api/fund")).json()
    assert body["balance"] == "0.25"
    debt = next(d for d in body["debts"] if d["member_id"] == loser)
    assert (debt["owed"], debt["paid"], debt["outstanding"]) == ("3.25", "0.25", "3.00")
    assert Decimal(body["balance"]) == sum(
        Decimal(e["amount"]) for e in body["entries"] if e["kind"] != "payment_due"
    )


async def _relog(
    client: httpx.AsyncClient, db: AsyncSession, member: Member, now: datetime
) -> None:
    """A fresh session for ``member`` at ``now`` (the first one expired)."""
    token, csrf = await open_session(db, member, now, 24)
    client.cookies.set(SESSION_COOKIE, token, domain="127.0.0.1")
    client.cookies.set(CSRF_COOKIE, csrf, domain="127.0.0.1")
    client.headers["X-CSRF-Token"] = csrf


async def test_rf3_one_proposal_per_calendar_year_in_club_time(
    logged_in: LoggedIn,
    clock: FrozenClock,
    db_session: AsyncSession,
) -> None:
    member, m = await logged_in()
    r = await member.post("/api/fund/proposals", json={"title": "Карты", "amount": "300.00"})
    assert r.status_code == 201 and r.json()["year"] == 2026
    assert (await member.get("/api/fund/proposals")).json()["may_propose"] is False
    # 23:59 on 31 December in Moscow is still 2026, whatever the outcome of the first one.
    clock.set(datetime(2026, 12, 31, 20, 59, tzinfo=UTC))
    await _relog(member, db_session, m, clock.now())
    r = await member.post("/api/fund/proposals", json={"title": "Ещё", "amount": "1.00"})
    assert r.status_code == 409 and "R-F3" in r.json()["detail"]
    assert r.json()["code"] == "fund_proposal_this_year"
    # Midnight in Moscow (21:00 UTC) starts 2027.
    clock.set(datetime(2026, 12, 31, 21, 0, tzinfo=UTC))
    assert (await member.get("/api/fund/proposals")).json()["may_propose"] is True
    r = await member.post("/api/fund/proposals", json={"title": "Ещё", "amount": "1.00"})
    assert r.status_code == 201 and r.json()["year"] == 2027
    r = await member.post("/api/fund/proposals", json={"title": "И ещё", "amount": "1.00"})
    assert r.status_code == 409
    for payload in (
        {"title": "", "amount": "1.00"},
        {"title": "x", "amount": "0"},
        {"title": "x", "amount": "0.001"},
        {"title": "x"},
    ):
        assert (await member.post("/api/fund/proposals", json=payload)).status_code == 422


async def _attend(db: AsyncSession, member: Member, starts: list[datetime]) -> None:
    for at in starts:
        session = await db.scalar(select(ClubSession).where(ClubSession.starts_at == at))
        if session is None:
            session = ClubSession(
                starts_at=at, ends_at=at + timedelta(hours=3, minutes=15), extra=False
            )
            db.add(session)
            await db.flush()
        db.add(
            Attendance(
                club_session_id=session.id, member_id=member.id, checked_in_at=at, late=False
            )
        )
    await db.flush()


async def test_rf4_competing_proposals_ranked_by_attendance_over_12_months(
    logged_in: LoggedIn,
    db_session: AsyncSession,
) -> None:
    mondays = [MONDAY_NOON - timedelta(weeks=w, hours=-7) for w in range(1, 80)]
    recent, old = mondays[:50], mondays[55:]  # 55+ weeks ago is over 12 months
    a_client, a = await logged_in()
    b_client, b = await logged_in()
    c_client, _c = await logged_in()
    admin, _ = await logged_in(Role.admin)
    await _attend(db_session, a, recent[:3] + old)  # 3 recent, many old ones
    await _attend(db_session, b, recent[:5])
    ids = {}
    for name, client in (("a", a_client), ("b", b_client), ("c", c_client)):
        r = await client.post("/api/fund/proposals", json={"title": name, "amount": "10.00"})
        assert r.status_code == 201
        ids[name] = r.json()["id"]
    body = (await a_client.get("/api/fund/proposals")).json()
    order = [(p["title"], p["rank"], p["attendance"]) for p in body["proposals"]]
    assert order == [("b", 1, 5), ("a", 2, 3), ("c", 3, 0)]
    # A decided proposal no longer competes.
    assert (await admin.post(f"/api/fund/proposals/{ids['b']}/reject")).status_code == 200
    body = (await a_client.get("/api/fund/proposals")).json()
    assert [(p["title"], p["rank"]) for p in body["proposals"]] == [("a", 1), ("c", 2), ("b", None)]
    assert b.id != a.id


async def test_rf5_no_spending_beyond_balance_and_ledger_is_append_only(
    logged_in: LoggedIn,
    app: FastAPI,
    db_session: AsyncSession,
) -> None:
    member, m = await logged_in()
    treasurer, _ = await logged_in(Role.treasurer)
    admin, _ = await logged_in(Role.admin)
    other, _ = await logged_in()
    await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": m.id, "amount": "10.00"}
    )
    pid = (
        await member.post("/api/fund/proposals", json={"title": "Колоды", "amount": "15.00"})
    ).json()["id"]
    r = await treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    assert r.status_code == 409 and "approved" in r.json()["detail"]  # still open
    assert r.json()["code"] == "fund_not_approved"
    for voter in (treasurer, admin, other):  # R-F2: 3 yes of an electorate of 3
        await voter.post(f"/api/fund/proposals/{pid}/vote", json={"yes": True})
    before = await _entries(db_session)
    r = await treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    assert r.status_code == 409 and "R-F5" in r.json()["detail"]
    assert r.json()["code"] == "fund_balance_exceeded"
    assert await _entries(db_session) == before
    await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": m.id, "amount": "5.00"}
    )
    r = await treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    assert r.status_code == 201, r.text
    assert r.json()["kind"] == "spending" and r.json()["amount"] == "-15.00"
    assert "Колоды" in r.json()["reason"]
    r = await treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    assert r.status_code == 409 and r.json()["code"] == "fund_not_approved"  # paid already
    body = (await member.get("/api/fund")).json()
    assert body["balance"] == "0.00"
    after = await _entries(db_session)
    assert after[: len(before)] == before and len(after) == len(before) + 2
    # No route changes or deletes a ledger entry.
    methods = {
        (getattr(r, "path", ""), meth)
        for r in app.routes
        for meth in getattr(r, "methods", set()) or set()
    }
    fund_methods = {meth for path, meth in methods if path.startswith("/api/fund")}
    assert fund_methods <= {"GET", "POST", "HEAD"}
    assert (await treasurer.delete("/api/fund")).status_code == 405
    assert await db_session.scalar(select(func.count()).select_from(FundEntry)) == 3


async def test_votes_quorum_approves_and_priority_order_of_payouts(
    logged_in: LoggedIn,
    db_session: AsyncSession,
) -> None:
    voters = [await logged_in() for _ in range(3)]
    treasurer, _ = await logged_in(Role.treasurer)
    (a_client, a), (b_client, b), (c_client, _c) = voters
    await _attend(db_session, b, [MONDAY_NOON - timedelta(weeks=1)])
    await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": a.id, "amount": "12.00"}
    )
    pa = (await a_client.post("/api/fund/proposals", json={"title": "a", "amount": "5.00"})).json()[
        "id"
    ]
    pb = (
        await b_client.post("/api/fund/proposals", json={"title": "b", "amount": "10.00"})
    ).json()["id"]
    listing = (await a_client.get("/api/fund/proposals")).json()
    # R-F2: each proposal's electorate is the 3 others; the quorum is 3 yes votes.
    assert listing["electorate"] == 4 and listing["quorum"] == 3
    r = await c_client.post(f"/api/fund/proposals/{pa}/vote", json={"yes": False})
    assert r.status_code == 200 and r.json()["my_vote"] is False
    r = await c_client.post(f"/api/fund/proposals/{pa}/vote", json={"yes": True})
    assert (r.json()["yes"], r.json()["no"]) == (1, 0)  # the vote was replaced
    r = await c_client.post("/api/fund/proposals/999999/vote", json={"yes": True})
    assert r.status_code == 404 and r.json()["code"] == "fund_proposal_unknown"
    r = await a_client.post(f"/api/fund/proposals/{pa}/vote", json={"yes": True})
    assert r.status_code == 409 and r.json()["code"] == "fund_own_proposal"
    r = await b_client.post(f"/api/fund/proposals/{pa}/vote", json={"yes": True})
    assert (r.json()["yes"], r.json()["status"]) == (2, "open")
    r = await treasurer.post(f"/api/fund/proposals/{pa}/vote", json={"yes": True})
    assert (r.json()["yes"], r.json()["status"]) == (3, "approved")  # the quorum, no "no"
    r = await c_client.post(f"/api/fund/proposals/{pa}/vote", json={"yes": False})
    assert r.status_code == 409 and r.json()["code"] == "fund_proposal_closed"
    by_id = {p["id"]: p for p in (await a_client.get("/api/fund/proposals")).json()["proposals"]}
    # b (more attendance) outranks a; once b is approved too, paying a first would leave
    # too little for b (R-F4), so a waits.
    assert by_id[pb]["rank"] == 1 and by_id[pa]["rank"] == 2
    for client in (a_client, c_client, treasurer):
        await client.post(f"/api/fund/proposals/{pb}/vote", json={"yes": True})
    r = await treasurer.post(f"/api/fund/proposals/{pa}/pay", headers=key())
    assert r.status_code == 409 and "R-F4" in r.json()["detail"]
    assert r.json()["code"] == "fund_priority"
    r = await treasurer.post(f"/api/fund/proposals/{pb}/pay", headers=key())
    assert r.status_code == 201
    r = await treasurer.post(f"/api/fund/proposals/{pa}/pay", headers=key())
    assert r.status_code == 409 and "R-F5" in r.json()["detail"]  # 2.00 left
