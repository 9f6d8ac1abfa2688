"""The club's move timer (issue 11): off by default; an admin sets it; club tables opened
afterwards take it, practice tables choose their own when opened."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Role
from app.db.models.table import Table
from tests.api.conftest import AT_1900, LoggedIn


async def test_the_club_timer_is_off_until_an_admin_sets_it(logged_in: LoggedIn) -> None:
    member, _ = await logged_in()
    admin, _ = await logged_in(Role.admin)
    assert (await member.get("/api/club/settings")).json() == {
        "move_timer_seconds": None,
        "min_pulkas": 5,
    }
    refused = await member.put("/api/club/settings", json={"move_timer_seconds": 60})
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    bad = await admin.put("/api/club/settings", json={"move_timer_seconds": 0})
    assert bad.status_code == 422
    ok = await admin.put("/api/club/settings", json={"move_timer_seconds": 60})
    assert ok.status_code == 200 and ok.json() == {"move_timer_seconds": 60, "min_pulkas": 5}
    assert (await member.get("/api/club/settings")).json() == {
        "move_timer_seconds": 60,
        "min_pulkas": 5,
    }
    off = await admin.put("/api/club/settings", json={"move_timer_seconds": None})
    assert off.json() == {"move_timer_seconds": None, "min_pulkas": 5}


async def test_a_club_table_takes_the_club_timer_and_deals_with_a_deadline(
    evening, clock: FrozenClock, db_session: AsyncSession
) -> None:
    """R-S1: seated at 19:05 the table deals at once; the club's 45 s timer gives the cutter a
    deadline, and the first event's table brief carries it."""
    ev = await evening(3)
    assert (
        await ev.admin.put("/api/club/settings", json={"move_timer_seconds": 45})
    ).status_code == 200
    drawn = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ][0]
    clock.set(AT_1900 + timedelta(minutes=5))
    seated = await ev.admin.post(f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "draw"})
    assert seated.status_code == 201, seated.text
    table_id = seated.json()["table_id"]
    detail = (await ev.admin.get(f"/api/tables/{table_id}")).json()
    assert detail["move_timer_seconds"] == 45
    assert detail["deadline_at"] is not None
    state = (await ev.admin.get(f"/api/tables/{table_id}/state")).json()
    assert state["deal"]["phase"] == "cut"
    assert state["table"]["deadline_at"] == detail["deadline_at"]
    row = await db_session.get(Table, table_id)
    assert row is not None and row.deadline_at == AT_1900 + timedelta(minutes=5, seconds=45)


async def test_a_practice_table_chooses_its_timer(logged_in: LoggedIn) -> None:
    member, _ = await logged_in()
    made = await member.post("/api/practice-tables", json={"players": 3, "move_timer_seconds": 30})
    assert made.status_code == 201, made.text
    detail = (await member.get(f"/api/tables/{made.json()['table_id']}")).json()
    assert detail["move_timer_seconds"] == 30 and detail["practice"] is True
    plain = await member.post("/api/practice-tables", json={"players": 3})
    assert (await member.get(f"/api/tables/{plain.json()['table_id']}")).json()[
        "move_timer_seconds"
    ] is None
