"""The club officer's APIs the pages use (issue 11): the seat changes awaiting a member's consent
(R-T4, R-T5), cancelling an extra session (R-S1) and the admin refusing a table's extension past
22:15 (R-S2)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.engine import session_scope
from app.db.models import Attendance, ClubSession, DrawRecord, Member, Role
from app.services import schedule
from tests.api.conftest import AT_1900, AT_2215, LoggedIn
from tests.api.test_races import CONCURRENT, Club, _evening, club, race_db  # noqa: F401 (fixtures)
from tests.api.test_seat_consent import _practice
from tests.api.test_table_consents import _seated_table


async def test_seat_changes_awaiting_me_lists_only_what_waits_for_my_consent(
    app, logged_in: LoggedIn
) -> None:  # type: ignore[no-untyped-def]
    # R-T5: an admin asks a member to take over a bot's seat: the player at the table and the
    # newcomer must agree; each sees the request until he has answered.
    owner_client, owner = await logged_in()
    friend_client, friend = await logged_in()
    stranger_client, _ = await logged_in()
    admin_client, _ = await logged_in(Role.admin)
    table = await _practice(app, owner_client)
    asked = await admin_client.post(
        f"/api/tables/{table['table_id']}/replace", json={"seat": 1, "member_id": friend.id}
    )
    assert asked.status_code == 201, asked.text
    change = asked.json()
    assert change["required"] == sorted([owner.id, friend.id])

    for client in (owner_client, friend_client):
        mine = await client.get("/api/seat-changes?awaiting=me")
        assert mine.status_code == 200, mine.text
        assert [c["id"] for c in mine.json()] == [change["id"]]
        assert mine.json()[0]["kind"] == "replace" and mine.json()[0]["seat"] == 1
    # the admin consented by asking; a stranger is not asked
    assert (await admin_client.get("/api/seat-changes?awaiting=me")).json() == []
    assert (await stranger_client.get("/api/seat-changes?awaiting=me")).json() == []

    agreed = await friend_client.post(
        f"/api/seat-changes/{change['id']}/consent", json={"agree": True}
    )
    assert agreed.json()["status"] == "pending"
    assert (await friend_client.get("/api/seat-changes?awaiting=me")).json() == []
    assert len((await owner_client.get("/api/seat-changes?awaiting=me")).json()) == 1
    refused = await owner_client.post(
        f"/api/seat-changes/{change['id']}/consent", json={"agree": False}
    )
    assert refused.json()["status"] == "refused"
    assert (await owner_client.get("/api/seat-changes?awaiting=me")).json() == []


async def test_seat_changes_list_needs_a_login_and_awaiting_me(app, logged_in: LoggedIn) -> None:  # type: ignore[no-untyped-def]
    client, _ = await logged_in()
    for bad in ("/api/seat-changes", "/api/seat-changes?awaiting=everyone"):
        answer = await client.get(bad)
        assert answer.status_code == 422, bad
        assert answer.json()["code"] == "invalid_input"
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as anonymous:
        assert (await anonymous.get("/api/seat-changes?awaiting=me")).status_code == 401


async def _extra(
    admin: httpx.AsyncClient, day: str = "2026-12-02", start: str = "18:30", end: str = "21:45"
) -> dict:  # type: ignore[type-arg]
    made = await admin.post("/api/sessions/extra", json={"date": day, "start": start, "end": end})
    assert made.status_code == 201, made.text
    return made.json()  # type: ignore[no-any-return]


async def test_admin_cancels_an_extra_session_and_it_leaves_the_lists(
    logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    # R-S1: an extra session the admin added; no draw, no tables: it may be cancelled.
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    extra = await _extra(admin)
    refused = await member.post(f"/api/sessions/{extra['id']}/cancel")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert await db_session.get(ClubSession, extra["id"]) is not None

    cancelled = await admin.post(f"/api/sessions/{extra['id']}/cancel")
    assert cancelled.status_code == 204, cancelled.text
    listed = (await admin.get("/api/sessions")).json()
    assert extra["id"] not in [s["id"] for s in listed]
    assert (await admin.get(f"/api/sessions/{extra['id']}")).status_code == 404
    again = await admin.post(f"/api/sessions/{extra['id']}/cancel")
    assert again.status_code == 404 and again.json()["code"] == "not_found"
    # its time is free again
    await _extra(admin)


async def test_only_an_extra_session_without_tables_is_cancelled(
    evening, clock: FrozenClock, db_session: AsyncSession
) -> None:  # type: ignore[no-untyped-def]
    # R-S1: the Monday session is the club's calendar; R-T1: once drawn, a session stays.
    ev = await evening(3)
    monday = await ev.admin.post(f"/api/sessions/{ev.session_id}/cancel")
    assert monday.status_code == 409 and monday.json()["code"] == "not_an_extra_session"

    # Tuesday 00:30-03:00 club time: its check-in is open at 18:50 on Monday
    extra = await _extra(ev.admin, "2026-12-01", "00:30", "03:00")
    for client, _ in ev.players:
        checked = await client.post(f"/api/sessions/{extra['id']}/check-in")
        assert checked.status_code == 200, checked.text
    drawn = await ev.admin.post(f"/api/sessions/{extra['id']}/draw-tables", json={})
    assert drawn.status_code == 201, drawn.text
    has_tables = await ev.admin.post(f"/api/sessions/{extra['id']}/cancel")
    assert has_tables.status_code == 409 and has_tables.json()["code"] == "session_has_tables"
    assert await db_session.get(ClubSession, extra["id"]) is not None

    over = await _extra(ev.admin, "2026-11-30", "23:00", "23:30")
    clock.set(AT_2215 + timedelta(hours=1, minutes=30))  # Monday 23:45, after its end
    late = await ev.admin.post(f"/api/sessions/{over['id']}/cancel")
    assert late.status_code == 409 and late.json()["code"] == "session_over"
    count = await db_session.scalar(
        select(func.count())
        .select_from(ClubSession)
        .where(ClubSession.id.in_([extra["id"], over["id"]]))
    )
    assert count == 2


async def test_a_cancel_racing_the_table_draw_never_both_succeed(club: Club) -> None:  # noqa: F811
    # R-S1, R-T1: of concurrent cancels and draws of one extra session exactly one wins; the
    # session row is locked by both, so a drawn session is never deleted under its tables.
    starts = club.clock.now() + timedelta(minutes=10)
    async with session_scope(club.sessions) as db:
        session = ClubSession(starts_at=starts, ends_at=starts + timedelta(hours=3), extra=True)
        db.add(session)
        await db.flush()
        session_id = session.id
    admins = [await club.member(f"admin{i}") for i in range(3)]
    async with session_scope(club.sessions) as db:
        for _, member_id in admins:
            row = await db.get(Member, member_id)
            assert row is not None
            row.role = Role.admin
            db.add(
                Attendance(
                    club_session_id=session_id, member_id=member_id, checked_in_at=club.clock.now()
                )
            )
    requests = [
        admins[i % 3][0].post(f"/api/sessions/{session_id}/cancel")
        if i % 2
        else admins[i % 3][0].post(f"/api/sessions/{session_id}/draw-tables", json={})
        for i in range(CONCURRENT)
    ]
    answers = await asyncio.gather(*requests)
    codes = sorted(a.status_code for a in answers)
    async with club.sessions() as db:
        left = await db.get(ClubSession, session_id)
        draws = await db.scalar(
            select(func.count())
            .select_from(DrawRecord)
            .where(DrawRecord.club_session_id == session_id)
        )
    if left is None:  # the cancel won: the draws found no session
        assert codes == [204] + [404] * (CONCURRENT - 1), [a.text for a in answers]
        assert draws == 0
    else:  # the draw won: every cancel and later draw is a 409
        assert codes == [201] + [409] * (CONCURRENT - 1), [a.text for a in answers]
        assert {a.json()["code"] for a in answers if a.status_code == 409} == {
            "session_has_tables",
            "tables_already_drawn",
        }
        assert draws == 1


async def test_admin_refuses_a_tables_extension(
    evening, clock: FrozenClock, logged_in: LoggedIn
) -> None:  # type: ignore[no-untyped-def]
    # R-S2: the admin sees each table's extension and may refuse it; the table then ends as a
    # table without extension, whatever its players agree.
    ev = await evening(3)
    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, players = await _seated_table(ev)
    clock.set(AT_2215 + timedelta(minutes=1))
    first = players[0][0]
    agreed = await first.post(f"/api/tables/{table_id}/extension", json={"agree": True})
    assert agreed.status_code == 200 and agreed.json()["refused"] is False

    member_refuses = await first.post(f"/api/tables/{table_id}/extension/refuse")
    assert member_refuses.status_code == 403 and member_refuses.json()["code"] == "forbidden"
    refused = await ev.admin.post(f"/api/tables/{table_id}/extension/refuse")
    assert refused.status_code == 200, refused.text
    state = refused.json()
    assert state["refused"] is True and state["agreed"] == []
    assert state["may_start_deal"] is False and "R-S2" in state["reason"]
    for client, _ in players:
        late = await client.post(f"/api/tables/{table_id}/extension", json={"agree": True})
        assert late.status_code == 409 and late.json()["code"] == "extension_refused"
    seen = (await ev.admin.get(f"/api/tables/{table_id}/extension")).json()
    assert seen["refused"] is True and seen["extension_agreed"] is False
    assert seen["may_start_deal"] is False
    twice = await ev.admin.post(f"/api/tables/{table_id}/extension/refuse")
    assert twice.status_code == 409 and twice.json()["code"] == "extension_already_refused"
    missing = await ev.admin.post("/api/tables/2147483647/extension/refuse")
    assert missing.status_code == 404


async def test_no_refusal_once_the_extension_round_has_started_or_at_practice(
    app, evening, clock: FrozenClock, db_session: AsyncSession
) -> None:  # type: ignore[no-untyped-def]
    # R-S2: once the first deal after 22:15 has started, the round is played out.
    ev = await evening(3)
    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, players = await _seated_table(ev)
    clock.set(AT_2215 + timedelta(minutes=1))
    for client, _ in players:
        r = await client.post(f"/api/tables/{table_id}/extension", json={"agree": True})
        assert r.status_code == 200, r.text
    await schedule.record_deal_started(db_session, table_id, 0, clock.now())
    started = await ev.admin.post(f"/api/tables/{table_id}/extension/refuse")
    assert started.status_code == 409 and started.json()["code"] == "extension_round_started"
    assert (await ev.admin.get(f"/api/tables/{table_id}/extension")).json()["refused"] is False

    practice = await _practice(app, players[0][0])
    not_club = await ev.admin.post(f"/api/tables/{practice['table_id']}/extension/refuse")
    assert not_club.status_code == 409 and not_club.json()["code"] == "not_a_club_table"


async def test_concurrent_extension_refusals_refuse_once(club: Club) -> None:  # noqa: F811
    # R-S2: of concurrent refusals of one table's extension exactly one is taken.
    session_id, players = await _evening(club, 3)
    drawn = await players[0][0].post(f"/api/sessions/{session_id}/draw-tables", json={})
    assert drawn.status_code == 201, drawn.text
    table = drawn.json()["tables"][0]
    seated = await players[0][0].post(
        f"/api/drawn-tables/{table['id']}/seat", json={"mode": "draw"}
    )
    assert seated.status_code == 201, seated.text
    table_id = seated.json()["table_id"]
    admin, admin_id = await club.member("admin")
    async with session_scope(club.sessions) as db:
        row = await db.get(Member, admin_id)
        assert row is not None
        row.role = Role.admin
    club.clock.set(club.clock.now() + timedelta(hours=3, minutes=30))  # past the session's end
    answers = await asyncio.gather(
        *(admin.post(f"/api/tables/{table_id}/extension/refuse") for _ in range(CONCURRENT))
    )
    assert sorted(a.status_code for a in answers) == [200] + [409] * (CONCURRENT - 1), [
        a.text for a in answers if a.status_code not in (200, 409)
    ]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {
        "extension_already_refused"
    }
