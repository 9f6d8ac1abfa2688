"""Every audited action, through the real API: its audit row names the actor, the client's
address (here a forwarded one, believed from the trusted local proxy), the target and the
values before → after, and the chain stays whole (issue 23, docs/audit.md)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member, PasswordResetToken, Role
from app.db.models.audit import AuditEntry
from app.security.addresses import TrustedProxies
from app.services import audit
from tests.api.conftest import AT_1900, AT_2215, LoggedIn, log_in
from tests.api.test_fund_security import key
from tests.api.test_table_consents import _seated_table

PASSED = {"type": "game", "declarer": 1, "contract": "7H", "defence": {"2": "pass", "0": "pass"}}

Rows = Callable[..., Any]


@pytest.fixture
def proxied(app: FastAPI) -> None:
    """The app believes ``X-Forwarded-For`` from 127.0.0.1, where the test clients come from."""
    app.state.trusted_proxies = TrustedProxies(["127.0.0.1"])


@pytest.fixture
async def since(db_session: AsyncSession) -> int:
    """The last audit id before the test (rows of other tests may exist)."""
    return int(await db_session.scalar(select(func.coalesce(func.max(AuditEntry.id), 0))) or 0)


async def rows(db: AsyncSession, since: int, action: str) -> list[AuditEntry]:
    """The test's rows of ``action``, oldest first."""
    return list(
        (
            await db.scalars(
                select(AuditEntry)
                .where(AuditEntry.id > since, AuditEntry.action == action)
                .order_by(AuditEntry.id)
            )
        ).all()
    )


async def one(db: AsyncSession, since: int, action: str) -> AuditEntry:
    found = await rows(db, since, action)
    assert len(found) == 1, [(r.action, r.after) for r in found]
    return found[0]


def at(client: httpx.AsyncClient, address: str) -> httpx.AsyncClient:
    """Make ``client``'s requests come (through the proxy) from ``address``."""
    client.headers["X-Forwarded-For"] = address
    return client


pytestmark = pytest.mark.usefixtures("proxied")


async def test_member_created_role_name_status(
    logged_in: LoggedIn, db_session: AsyncSession, since: int
) -> None:
    admin_client, admin = await logged_in(Role.admin)
    at(admin_client, "203.0.113.5")
    made = await admin_client.post(
        "/api/members", json={"login": "audited", "display_name": "Аудит"}
    )
    assert made.status_code == 201, made.text
    mid = made.json()["member"]["id"]
    created = await one(db_session, since, "member.created")
    assert (created.actor_id, created.address, created.target) == (
        admin.id,
        "203.0.113.5",
        f"member:{mid}",
    )
    assert created.before is None
    assert created.after == {"login": "audited", "display_name": "Аудит", "role": "member"}
    assert made.json()["one_time_password"] not in str(created.after)

    assert (
        await admin_client.patch(
            f"/api/members/{mid}", json={"role": "treasurer", "display_name": "Казначей"}
        )
    ).status_code == 200
    role = await one(db_session, since, "member.role")
    assert (role.actor_id, role.address, role.target) == (admin.id, "203.0.113.5", f"member:{mid}")
    assert (role.before, role.after) == ({"role": "member"}, {"role": "treasurer"})
    name = await one(db_session, since, "member.name")
    assert (name.before, name.after) == ({"display_name": "Аудит"}, {"display_name": "Казначей"})
    # the same role again changes nothing and records nothing
    assert (
        await admin_client.patch(f"/api/members/{mid}", json={"role": "treasurer"})
    ).status_code == 200
    assert len(await rows(db_session, since, "member.role")) == 1

    at(admin_client, "2001:db8::7")
    assert (await admin_client.post(f"/api/members/{mid}/deactivate")).status_code == 200
    assert (await admin_client.post(f"/api/members/{mid}/activate")).status_code == 200
    off, on = await rows(db_session, since, "member.status")
    assert (off.before, off.after, off.address) == (
        {"active": True},
        {"active": False},
        "2001:db8::7",
    )
    assert (on.before, on.after) == ({"active": False}, {"active": True})
    assert await audit.check_audit_chain(db_session) == []


async def test_refused_change_records_nothing(
    logged_in: LoggedIn, db_session: AsyncSession, since: int
) -> None:
    admin_client, admin = await logged_in(Role.admin)
    # the last active admin cannot lose his role: refused, and no audit row
    count = await db_session.scalar(
        select(func.count())
        .select_from(Member)
        .where(Member.role == Role.admin, Member.active.is_(True))
    )
    if count == 1:
        refused = await admin_client.patch(f"/api/members/{admin.id}", json={"role": "member"})
        assert refused.status_code == 409
    member_client, member = await logged_in()
    assert (
        await member_client.patch(f"/api/members/{member.id}", json={"role": "admin"})
    ).status_code == 403
    assert (
        await member_client.put("/api/club/settings", json={"move_timer_seconds": 5})
    ).status_code == 403
    assert (
        await db_session.scalar(
            select(func.count()).select_from(AuditEntry).where(AuditEntry.id > since)
        )
    ) == 0


async def test_password_reset_link_and_its_use(
    logged_in: LoggedIn, db_session: AsyncSession, since: int, app: FastAPI
) -> None:
    admin_client, admin = await logged_in(Role.admin)
    _, member = await logged_in()
    at(admin_client, "198.51.100.2")
    link = await admin_client.post(f"/api/members/{member.id}/password-reset")
    assert link.status_code == 201
    token = link.json()["token"]
    issued = await one(db_session, since, "member.password_reset")
    assert (issued.actor_id, issued.address, issued.target) == (
        admin.id,
        "198.51.100.2",
        f"member:{member.id}",
    )
    assert issued.before is None and set(issued.after or {}) == {"expires_at"}
    assert token not in str(issued.after)  # the secret never reaches the log

    stranger = at(
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000"),
        "198.51.100.99",
    )
    async with stranger:
        used = await stranger.post(
            "/api/auth/password-reset", json={"token": token, "new_password": "a brand new secret"}
        )
    assert used.status_code == 200, used.text
    set_ = await one(db_session, since, "member.password_set")
    assert (set_.actor_id, set_.address) == (member.id, "198.51.100.99")
    assert set_.after == {"reset_link_issued_by": admin.id}
    assert "a brand new secret" not in str(set_.after)
    assert (
        await db_session.scalar(
            select(PasswordResetToken.used_at).where(PasswordResetToken.member_id == member.id)
        )
        is not None
    )


async def test_own_password_change(
    app: FastAPI, make_member: Any, clock: FrozenClock, db_session: AsyncSession, since: int
) -> None:
    member = await make_member(must_change_password=True)
    client = at(
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000"),
        "192.0.2.44",
    )
    async with client:
        assert (await log_in(client, member.login)).status_code == 200
        changed = await client.post(
            "/api/auth/password",
            json={"current_password": "correct horse battery", "new_password": "another horse"},
        )
        assert changed.status_code == 200, changed.text
    row = await one(db_session, since, "member.password_change")
    assert (row.actor_id, row.address, row.target) == (
        member.id,
        "192.0.2.44",
        f"member:{member.id}",
    )
    assert (row.before, row.after) == (
        {"must_change_password": True},
        {"must_change_password": False},
    )


async def test_club_setting_and_table_timer(
    logged_in: LoggedIn, db_session: AsyncSession, since: int
) -> None:
    admin_client, admin = await logged_in(Role.admin)
    at(admin_client, "192.0.2.8")
    before = (await admin_client.get("/api/club/settings")).json()["move_timer_seconds"]
    assert (
        await admin_client.put("/api/club/settings", json={"move_timer_seconds": 45})
    ).status_code == 200
    assert (
        await admin_client.put("/api/club/settings", json={"move_timer_seconds": None})
    ).status_code == 200
    first, second = await rows(db_session, since, "club.setting")
    assert (first.actor_id, first.address, first.target) == (
        admin.id,
        "192.0.2.8",
        "club_settings:1",
    )
    assert (first.before, first.after) == (
        {"move_timer_seconds": before},
        {"move_timer_seconds": 45},
    )
    assert (second.before, second.after) == (
        {"move_timer_seconds": 45},
        {"move_timer_seconds": None},
    )
    bad = await admin_client.put("/api/club/settings", json={"move_timer_seconds": 0})
    assert bad.status_code == 422
    assert len(await rows(db_session, since, "club.setting")) == 2

    players = [await logged_in() for _ in range(3)]
    table = (
        await admin_client.post(
            "/api/tables", json={"seats": [m.id for _, m in players], "practice": False}
        )
    ).json()
    assert (
        await admin_client.patch(
            f"/api/tables/{table['id']}/timer", json={"move_timer_seconds": 30}
        )
    ).status_code == 200
    timer = await one(db_session, since, "table.timer")
    assert (timer.actor_id, timer.target) == (admin.id, f"table:{table['id']}")
    assert (timer.before, timer.after) == ({"move_timer_seconds": None}, {"move_timer_seconds": 30})


async def test_session_times_cancel_extension_end_and_closed_pulka(
    evening: Any, clock: FrozenClock, logged_in: LoggedIn, db_session: AsyncSession, since: int
) -> None:
    ev = await evening(3)
    created = await rows(db_session, since, "session.created")
    assert created and created[0].target == f"session:{ev.session_id}"
    assert created[0].before is None and created[0].after is not None
    assert created[0].after["extra"] is False
    assert created[0].after["starts_at"] == "2026-11-30T16:00:00Z"
    assert created[0].after["ends_at"] == "2026-11-30T19:15:00Z"
    admin_id = created[0].actor_id
    assert admin_id is not None and created[0].address == "127.0.0.1"  # no forwarded header

    at(ev.admin, "192.0.2.77")
    extra = await ev.admin.post(
        "/api/sessions/extra", json={"date": "2026-12-03", "start": "18:00", "end": "21:00"}
    )
    assert extra.status_code == 201, extra.text
    added = (await rows(db_session, since, "session.created"))[-1]
    assert (added.actor_id, added.address, added.target) == (
        admin_id,
        "192.0.2.77",
        f"session:{extra.json()['id']}",
    )
    assert added.after == {
        "starts_at": "2026-12-03T15:00:00Z",
        "ends_at": "2026-12-03T18:00:00Z",
        "extra": True,
    }
    assert (await ev.admin.post(f"/api/sessions/{extra.json()['id']}/cancel")).status_code == 204
    cancelled = await one(db_session, since, "session.cancelled")
    assert (cancelled.before, cancelled.after) == (added.after, None)

    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, _players = await _seated_table(ev)
    clock.set(AT_2215 + timedelta(minutes=1))
    assert (await ev.admin.post(f"/api/tables/{table_id}/extension/refuse")).status_code == 200
    refused = await one(db_session, since, "session.extension_refused")
    assert (refused.actor_id, refused.address, refused.target) == (
        admin_id,
        "192.0.2.77",
        f"table:{table_id}",
    )
    assert refused.before == {"extension_refused_at": None, "consents": []}
    assert refused.after == {
        "extension_refused_at": "2026-11-30T19:16:00Z",
        "session_id": ev.session_id,
    }

    ended = await ev.admin.post(f"/api/sessions/{ev.session_id}/end")
    assert ended.status_code == 200, ended.text
    end = await one(db_session, since, "session.ended")
    assert end.before == {"ended_at": None}
    assert end.after == {"ended_at": "2026-11-30T19:16:00Z", "closed_tables": [table_id]}
    closed = await one(db_session, since, "pulka.closed_early")
    assert (closed.actor_id, closed.address, closed.target) == (
        admin_id,
        "192.0.2.77",
        f"table:{table_id}",
    )
    assert closed.before == {"status": "playing"}
    assert closed.after is not None and closed.after["reason"] == "session_end"
    assert closed.after["status"] == "finished" and closed.after["settlement"] is not None
    assert await audit.check_audit_chain(db_session) == []


async def test_penalties_closed_pulka_and_the_fund(
    logged_in: LoggedIn, db_session: AsyncSession, since: int
) -> None:
    scorer, anna = await logged_in()
    boris_client, boris = await logged_in()
    vera_client, vera = await logged_in()
    admin_client, admin = await logged_in(Role.admin)
    treasurer, keeper = await logged_in(Role.treasurer)
    at(scorer, "192.0.2.10")
    table = (
        await admin_client.post(
            "/api/tables",
            json={"seats": [anna.id, boris.id, vera.id], "mode": "recorded", "practice": False},
        )
    ).json()
    base = f"/api/tables/{table['id']}/recording"
    assert (
        await scorer.post(f"{base}/deals", json={"deal_no": 0, "deal": PASSED})
    ).status_code == 201
    assert await rows(db_session, since, "penalty.entry") == []  # no penalty, nothing logged
    fined = {**PASSED, "penalties": [{"seat": 0, "rule": "talon_seen"}]}
    entered = await scorer.post(f"{base}/deals", json={"deal_no": 1, "deal": fined})
    assert entered.status_code == 201, entered.text
    entry = await one(db_session, since, "penalty.entry")
    assert (entry.actor_id, entry.address, entry.target) == (
        anna.id,
        "192.0.2.10",
        f"table:{table['id']}",
    )
    assert entry.after is not None and entry.after["deal_no"] == 1
    assert [p["rule"] for p in entry.after["penalties"]] == ["talon_seen"]

    fixed = await scorer.put(f"{base}/deals/1", json={"deal": {**PASSED, "contract": "8H"}})
    assert fixed.status_code == 200, fixed.text
    correction = await one(db_session, since, "penalty.correction")
    assert correction.actor_id == anna.id and correction.address == "192.0.2.10"
    assert correction.before is not None and correction.after is not None
    assert correction.before["deal"]["contract"] == "7H"
    assert [p["rule"] for p in correction.before["deal"]["penalties"]] == ["talon_seen"]
    assert correction.after["deal"]["contract"] == "8H"
    assert correction.after["entry_error"] == {"seat": 0, "size": fixed.json()["data"]["size"]}
    assert [p["rule"] for p in correction.after["deal"]["penalties"]] == ["entry_error"]

    at(admin_client, "192.0.2.20")
    closed = await admin_client.post(
        f"/api/tables/{table['id']}/close", json={"reason": "agreement"}
    )
    assert closed.status_code == 200, closed.text
    early = await one(db_session, since, "pulka.closed_early")
    assert (early.actor_id, early.address) == (admin.id, "192.0.2.20")
    assert early.after is not None and early.after["reason"] == "agreement"
    money = early.after["settlement"]["money"]
    debts = await rows(db_session, since, "fund.entry")
    losers = [i for i, m in enumerate(money) if m.startswith("-")]
    assert losers and len(debts) == len(losers)
    seats = [anna.id, boris.id, vera.id]
    for debt, seat in zip(debts, losers, strict=True):
        assert debt.actor_id is None and debt.address is None  # the server owes it (R-F1)
        assert debt.after is not None and debt.after["kind"] == "payment_due"
        assert debt.after["member_id"] == seats[seat]
        assert debt.after["amount"] == money[seat].lstrip("-")

    at(treasurer, "192.0.2.30")
    paid = await treasurer.post(
        "/api/fund/payments", headers=key(), json={"member_id": boris.id, "amount": "100,5"}
    )
    assert paid.status_code == 201, paid.text
    payment = (await rows(db_session, since, "fund.entry"))[-1]
    assert (payment.actor_id, payment.address, payment.target) == (
        keeper.id,
        "192.0.2.30",
        f"fund_entry:{paid.json()['id']}",
    )
    assert payment.after == {
        "id": paid.json()["id"],
        "kind": "payment",
        "member_id": boris.id,
        "pulka_id": None,
        "proposal_id": None,
        "amount": "100.50",
        "reason": f"paid in by member {boris.id}",
    }
    adjusted = await treasurer.post(
        "/api/fund/payments",
        headers=key(),
        json={"kind": "adjustment", "amount": "-0.50", "reason": "typo"},
    )
    assert adjusted.status_code == 201
    adjustment = (await rows(db_session, since, "fund.entry"))[-1]
    assert adjustment.after is not None and adjustment.after["amount"] == "-0.50"
    refused = await treasurer.post(
        "/api/fund/payments",
        headers=key(),
        json={"kind": "adjustment", "amount": "-999999", "reason": "too much"},
    )
    assert refused.status_code == 409
    assert (await rows(db_session, since, "fund.entry"))[-1].id == adjustment.id

    at(vera_client, "192.0.2.40")
    proposed = await vera_client.post(
        "/api/fund/proposals", json={"title": "Две колоды", "amount": "60"}
    )
    assert proposed.status_code == 201, proposed.text
    pid = proposed.json()["id"]
    proposal = await one(db_session, since, "fund.proposal")
    assert (proposal.actor_id, proposal.address, proposal.target) == (
        vera.id,
        "192.0.2.40",
        f"fund_proposal:{pid}",
    )
    assert proposal.after == {
        "status": "open",
        "title": "Две колоды",
        "amount": "60.00",
        "proposer_id": vera.id,
        "year": 2026,
    }

    voters = [scorer, boris_client, treasurer, admin_client]
    for i, voter in enumerate(voters):
        at(voter, f"192.0.2.{50 + i}")
    assert (
        await scorer.post(f"/api/fund/proposals/{pid}/vote", json={"yes": False})
    ).status_code == 200
    assert (
        await scorer.post(f"/api/fund/proposals/{pid}/vote", json={"yes": True})
    ).status_code == 200
    changed = (await rows(db_session, since, "fund.vote"))[-1]
    assert (changed.actor_id, changed.address, changed.before, changed.after) == (
        anna.id,
        "192.0.2.50",
        {"yes": False},
        {"yes": True},
    )
    status = "open"
    for voter in voters[1:]:
        answer = await voter.post(f"/api/fund/proposals/{pid}/vote", json={"yes": True})
        if answer.status_code == 409:  # already approved by the votes before
            break
        status = answer.json()["status"]
        if status == "approved":
            break
    assert status == "approved"
    approval = await one(db_session, since, "fund.approval")
    assert approval.target == f"fund_proposal:{pid}"
    assert approval.before == {"status": "open"}
    assert approval.after is not None and approval.after["status"] == "approved"
    assert approval.after["by"] == "votes" and approval.after["yes"] >= 3

    paid_out = await treasurer.post(f"/api/fund/proposals/{pid}/pay", headers=key())
    assert paid_out.status_code == 201, paid_out.text
    payout = await one(db_session, since, "fund.payout")
    assert (payout.actor_id, payout.address, payout.target) == (
        keeper.id,
        "192.0.2.52",
        f"fund_proposal:{pid}",
    )
    assert payout.before is not None and payout.before["status"] == "approved"
    assert payout.after is not None and payout.after["status"] == "paid"
    assert payout.after["entry"]["amount"] == "-60.00"
    assert payout.after["entry"]["kind"] == "spending"

    at(boris_client, "192.0.2.60")
    other = await boris_client.post("/api/fund/proposals", json={"title": "Стол", "amount": "5"})
    assert (
        await admin_client.post(f"/api/fund/proposals/{other.json()['id']}/reject")
    ).status_code == 200
    veto = await one(db_session, since, "fund.rejection")
    assert (veto.actor_id, veto.before, veto.after) == (
        admin.id,
        {"status": "open"},
        {"status": "rejected", "by": "admin"},
    )
    assert await audit.check_audit_chain(db_session) == []
