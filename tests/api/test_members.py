"""Member administration and the role boundaries around it."""

from __future__ import annotations

import httpx

from app.clock import FrozenClock
from app.db.models import Role
from tests.api.conftest import LoggedIn, log_in


async def test_admin_creates_member_who_must_change_password(
    logged_in: LoggedIn, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    admin, _ = await logged_in(Role.admin)
    created = await admin.post(
        "/api/members", json={"login": "Novikov", "display_name": "Новиков", "role": "treasurer"}
    )
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["member"]["login"] == "novikov" and body["member"]["role"] == "treasurer"
    assert body["member"]["must_change_password"] is True
    login = await log_in(client, "novikov", body["one_time_password"])
    assert login.status_code == 200 and login.json()["must_change_password"] is True
    duplicate = await admin.post("/api/members", json={"login": "novikov", "display_name": "X"})
    assert duplicate.status_code == 409


async def test_bad_input_is_422_and_changes_nothing(logged_in: LoggedIn) -> None:
    admin, _ = await logged_in(Role.admin)
    before = len((await admin.get("/api/members")).json())
    for body in (
        {"login": "", "display_name": "X"},
        {"login": "a b", "display_name": "X"},
        {"login": "ok", "display_name": "X", "role": "king"},
        {"login": "ok"},
    ):
        assert (await admin.post("/api/members", json=body)).status_code == 422
    assert len((await admin.get("/api/members")).json()) == before


async def test_member_cannot_do_admin_actions(logged_in: LoggedIn) -> None:
    member, me = await logged_in()
    treasurer, _ = await logged_in(Role.treasurer)
    for client in (member, treasurer):
        assert (
            await client.post("/api/members", json={"login": "x", "display_name": "X"})
        ).status_code == 403
        assert (
            await client.patch(f"/api/members/{me.id}", json={"role": "admin"})
        ).status_code == 403
        assert (await client.post(f"/api/members/{me.id}/deactivate")).status_code == 403
        assert (await client.post(f"/api/members/{me.id}/password-reset")).status_code == 403
    assert (await member.get("/api/auth/me")).json()["role"] == "member"


async def test_deactivated_member_loses_sessions_and_login(
    logged_in: LoggedIn, client: httpx.AsyncClient
) -> None:
    admin, _ = await logged_in(Role.admin)
    user, member = await logged_in()
    response = await admin.post(f"/api/members/{member.id}/deactivate")
    assert response.status_code == 200 and response.json()["active"] is False
    assert (await user.get("/api/auth/me")).status_code == 401
    refused = await log_in(client, member.login)
    assert refused.status_code == 403 and "deactivated" in refused.json()["detail"]
    # History stays: the member is still listed.
    listed = {m["id"]: m for m in (await admin.get("/api/members")).json()}
    assert listed[member.id]["active"] is False
    assert (await admin.post(f"/api/members/{member.id}/activate")).status_code == 200
    assert (await log_in(client, member.login)).status_code == 200


async def test_the_last_admin_cannot_be_removed(logged_in: LoggedIn, db_session) -> None:
    from sqlalchemy import update

    from app.db.models import Member

    admin, me = await logged_in(Role.admin)
    await db_session.execute(
        update(Member).where(Member.id != me.id, Member.role == Role.admin).values(active=False)
    )
    assert (await admin.post(f"/api/members/{me.id}/deactivate")).status_code == 409
    assert (await admin.patch(f"/api/members/{me.id}", json={"role": "member"})).status_code == 409


async def test_admin_edits_member_and_member_edits_himself(logged_in: LoggedIn) -> None:
    admin, _ = await logged_in(Role.admin)
    user, member = await logged_in()
    patched = await admin.patch(f"/api/members/{member.id}", json={"role": "treasurer"})
    assert patched.status_code == 200 and patched.json()["role"] == "treasurer"
    own = await user.patch("/api/auth/me", json={"display_name": "Сам"})
    assert own.status_code == 200 and own.json()["display_name"] == "Сам"
    assert (await user.patch("/api/auth/me", json={"display_name": ""})).status_code == 422
    assert (await admin.get("/api/members/999999")).status_code == 404
