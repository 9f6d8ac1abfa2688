"""``GET /api/admin/audit`` and ``GET /api/fund/audit``: who may read which part of the audit
log, its filters, its keyset pages, and bad filters refused (issue 23)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db.models import Role
from app.db.models.audit import AuditEntry
from tests.api.conftest import LoggedIn
from tests.api.test_fund_security import key


async def _changes(logged_in: LoggedIn) -> tuple:  # type: ignore[type-arg]
    admin, admin_m = await logged_in(Role.admin)
    treasurer, keeper = await logged_in(Role.treasurer)
    member, _ = await logged_in()
    _, someone = await logged_in()
    for seconds in (10, 20, 30):
        assert (
            await admin.put("/api/club/settings", json={"move_timer_seconds": seconds})
        ).status_code == 200
    assert (
        await admin.patch(f"/api/members/{someone.id}", json={"role": "treasurer"})
    ).status_code == 200
    assert (
        await treasurer.post(
            "/api/fund/payments", headers=key(), json={"member_id": someone.id, "amount": "7"}
        )
    ).status_code == 201
    return admin, admin_m, treasurer, keeper, member, someone


async def test_admin_lists_filters_and_pages_newest_first(
    logged_in: LoggedIn, db_session: AsyncSession, test_settings: Settings
) -> None:
    admin, admin_m, _treasurer, keeper, _member, someone = await _changes(logged_in)
    page = (await admin.get("/api/admin/audit", params={"limit": 2})).json()
    assert [e["action"] for e in page["entries"]] == ["fund.entry", "member.role"]
    assert page["entries"][0]["actor_id"] == keeper.id
    assert page["entries"][0]["actor_name"] == keeper.display_name
    assert page["entries"][0]["after"]["amount"] == "7.00"
    assert page["entries"][0]["prev_hash"] == page["entries"][1]["hash"]
    older = (
        await admin.get(
            "/api/admin/audit", params={"limit": 2, "before_id": page["next_before_id"]}
        )
    ).json()
    assert [e["after"] for e in older["entries"]] == [
        {"move_timer_seconds": 30},
        {"move_timer_seconds": 20},
    ]
    assert older["entries"][0]["id"] < page["entries"][-1]["id"]

    settings = (await admin.get("/api/admin/audit", params={"action": "club"})).json()
    assert {e["action"] for e in settings["entries"]} == {"club.setting"}
    assert len(settings["entries"]) >= 3
    exact = (await admin.get("/api/admin/audit", params={"action": "member.role"})).json()
    assert next(e["target"] for e in exact["entries"]) == f"member:{someone.id}"
    assert not (await admin.get("/api/admin/audit", params={"action": "member.ro"})).json()[
        "entries"
    ]  # a prefix is a whole dotted part, not any text
    mine = (await admin.get("/api/admin/audit", params={"actor_id": admin_m.id})).json()
    assert {e["actor_id"] for e in mine["entries"]} == {admin_m.id}
    assert len(mine["entries"]) == 4
    target = (await admin.get("/api/admin/audit", params={"target": f"member:{someone.id}"})).json()
    assert [e["action"] for e in target["entries"]] == ["member.role"]
    today = await db_session.scalar(select(func.max(AuditEntry.at)))
    assert today is not None
    day = today.astimezone(test_settings.zone).date().isoformat()  # a club date, as the API
    dated = (
        await admin.get(
            "/api/admin/audit", params={"since": day, "until": day, "actor_id": admin_m.id}
        )
    ).json()
    assert len(dated["entries"]) == 4
    none = (await admin.get("/api/admin/audit", params={"until": "2000-01-01"})).json()
    assert none == {"entries": [], "next_before_id": None}


async def test_who_may_read_which_part(logged_in: LoggedIn) -> None:
    admin, _a, treasurer, keeper, member, _s = await _changes(logged_in)
    assert (await member.get("/api/admin/audit")).status_code == 403
    assert (await treasurer.get("/api/admin/audit")).status_code == 403
    assert (await member.get("/api/fund/audit")).status_code == 403
    fund_part = (await treasurer.get("/api/fund/audit")).json()["entries"]
    assert fund_part and {e["action"].split(".")[0] for e in fund_part} == {"fund"}
    assert fund_part[0]["actor_id"] == keeper.id
    assert (await admin.get("/api/fund/audit")).status_code == 200
    outside = await treasurer.get("/api/fund/audit", params={"action": "member"})
    assert outside.status_code == 422 and outside.json()["code"] == "audit_bad_filter"
    narrowed = (await treasurer.get("/api/fund/audit", params={"action": "fund.vote"})).json()
    assert all(e["action"] == "fund.vote" for e in narrowed["entries"])


async def test_bad_filters_are_refused(logged_in: LoggedIn) -> None:
    admin, _ = await logged_in(Role.admin)
    for params, code in (
        ({"action": "Member; DROP"}, "audit_bad_filter"),
        ({"action": "member."}, "audit_bad_filter"),
        ({"since": "2026-12-02", "until": "2026-12-01"}, "audit_bad_filter"),
        ({"limit": 0}, None),
        ({"limit": 201}, None),
        ({"actor_id": "x"}, None),
        ({"since": "yesterday"}, None),
        ({"before_id": 0}, None),
    ):
        answer = await admin.get("/api/admin/audit", params=params)
        assert answer.status_code == 422, params
        if code:
            assert answer.json()["code"] == code
    assert (await admin.post("/api/admin/audit")).status_code == 405
