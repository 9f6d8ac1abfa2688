"""The club calendar (R-S1), check-in and late notices (R-S4), the attendance report."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.clock import FrozenClock
from app.db.models import Role
from tests.api.conftest import LoggedIn

# Monday 30 November 2026 in Moscow (UTC+3): 19:00 is 16:00 UTC, 22:15 is 19:15 UTC.
AT_1900 = datetime(2026, 11, 30, 16, 0, tzinfo=UTC)
AT_2215 = datetime(2026, 11, 30, 19, 15, tzinfo=UTC)


async def _today(admin) -> dict:
    sessions = (await admin.post("/api/sessions/generate", json={"weeks": 8})).json()
    return sessions[0]


async def test_generate_mondays_is_idempotent(logged_in: LoggedIn, clock: FrozenClock) -> None:
    # R-S1: Mondays, 19:00-22:15 club time.
    admin, _ = await logged_in(Role.admin)
    first = await admin.post("/api/sessions/generate", json={"weeks": 8})
    assert first.status_code == 200, first.text
    sessions = first.json()
    assert len(sessions) == 8
    assert sessions[0]["starts_at"].startswith("2026-11-30T16:00:00")
    assert sessions[0]["ends_at"].startswith("2026-11-30T19:15:00")
    assert sessions[1]["starts_at"].startswith("2026-12-07T16:00:00")
    assert all(not s["extra"] for s in sessions)
    again = (await admin.post("/api/sessions/generate", json={"weeks": 8})).json()
    assert [s["id"] for s in again] == [s["id"] for s in sessions]
    listed = (await admin.get("/api/sessions")).json()
    assert len({s["id"] for s in listed} & {s["id"] for s in sessions}) == 8
    assert (await admin.post("/api/sessions/generate", json={"weeks": 0})).status_code == 422


async def test_generation_after_the_end_starts_next_week(
    logged_in: LoggedIn, clock: FrozenClock
) -> None:
    admin, _ = await logged_in(Role.admin)
    clock.set(AT_2215 + timedelta(minutes=1))
    sessions = (await admin.post("/api/sessions/generate", json={"weeks": 1})).json()
    assert sessions[0]["starts_at"].startswith("2026-12-07T16:00:00")


async def test_extra_session_is_recorded_as_extra(logged_in: LoggedIn, clock: FrozenClock) -> None:
    # R-S1: an admin may open an extra session.
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    body = {"date": "2026-12-03", "start": "18:00", "end": "23:00"}
    assert (await member.post("/api/sessions/extra", json=body)).status_code == 403
    created = await admin.post("/api/sessions/extra", json=body)
    assert created.status_code == 201, created.text
    assert created.json()["extra"] is True
    assert created.json()["starts_at"].startswith("2026-12-03T15:00:00")
    overlap = await admin.post("/api/sessions/extra", json=body)
    assert overlap.status_code == 409
    past = await admin.post("/api/sessions/extra", json={"date": "2026-11-01"})
    assert past.status_code == 422
    bad = await admin.post("/api/sessions/extra", json={"date": "someday"})
    assert bad.status_code == 422


async def test_check_in_before_1900(logged_in: LoggedIn, clock: FrozenClock) -> None:
    admin, _ = await logged_in(Role.admin)
    member, me = await logged_in()
    session = await _today(admin)
    clock.set(AT_1900 - timedelta(minutes=5))
    response = await member.post(f"/api/sessions/{session['id']}/check-in")
    assert response.status_code == 200, response.text
    assert response.json()["late"] is False
    again = await member.post(f"/api/sessions/{session['id']}/check-in")
    assert again.status_code == 200
    lobby = (await member.get("/api/sessions/current")).json()
    assert [a["member_id"] for a in lobby["attendance"]] == [me.id]
    assert lobby["waiting"] == [me.id]


async def test_check_in_opens_on_the_day(logged_in: LoggedIn, clock: FrozenClock) -> None:
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    sessions = (await admin.post("/api/sessions/generate", json={"weeks": 2})).json()
    refused = await member.post(f"/api/sessions/{sessions[1]['id']}/check-in")
    assert refused.status_code == 409 and "opens" in refused.json()["detail"]


async def test_late_without_notice_is_refused(logged_in: LoggedIn, clock: FrozenClock) -> None:
    # R-S4: being late is allowed only with notice given before 19:00.
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    session = await _today(admin)
    clock.set(AT_1900 + timedelta(minutes=10))
    response = await member.post(f"/api/sessions/{session['id']}/check-in")
    assert response.status_code == 409
    assert "R-S4" in response.json()["detail"]
    lobby = (await member.get(f"/api/sessions/{session['id']}")).json()
    assert lobby["attendance"] == []


async def test_late_with_notice_before_1900_may_join(
    logged_in: LoggedIn, clock: FrozenClock
) -> None:
    # R-S4
    admin, _ = await logged_in(Role.admin)
    member, me = await logged_in()
    session = await _today(admin)
    clock.set(AT_1900 - timedelta(seconds=1))
    notice = await member.post(
        f"/api/sessions/{session['id']}/late-notice", json={"note": "буду к 20:00"}
    )
    assert notice.status_code == 201, notice.text
    clock.set(AT_1900 + timedelta(minutes=55))
    response = await member.post(f"/api/sessions/{session['id']}/check-in")
    assert response.status_code == 200 and response.json()["late"] is True
    lobby = (await member.get(f"/api/sessions/{session['id']}")).json()
    assert lobby["late_notices"][0]["member_id"] == me.id
    assert lobby["late_notices"][0]["note"] == "буду к 20:00"


async def test_late_notice_after_1900_is_refused(logged_in: LoggedIn, clock: FrozenClock) -> None:
    # R-S4: the notice must come before 19:00 of that session.
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    session = await _today(admin)
    clock.set(AT_1900)
    response = await member.post(f"/api/sessions/{session['id']}/late-notice", json={})
    assert response.status_code == 409 and "before" in response.json()["detail"]
    assert (await member.post(f"/api/sessions/{session['id']}/check-in")).status_code == 409


async def test_withdrawn_notice_no_longer_lets_in(logged_in: LoggedIn, clock: FrozenClock) -> None:
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    session = await _today(admin)
    path = f"/api/sessions/{session['id']}/late-notice"
    assert (await member.post(path, json={})).status_code == 201
    assert (await member.delete(path)).status_code == 204
    clock.set(AT_1900 + timedelta(minutes=1))
    assert (await member.post(f"/api/sessions/{session['id']}/check-in")).status_code == 409


async def test_no_check_in_after_the_session(logged_in: LoggedIn, clock: FrozenClock) -> None:
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    session = await _today(admin)
    clock.set(AT_2215)
    response = await member.post(f"/api/sessions/{session['id']}/check-in")
    assert response.status_code == 409 and "over" in response.json()["detail"]
    assert (await member.post("/api/sessions/99999/check-in")).status_code == 404


async def test_attendance_report_needs_treasurer(logged_in: LoggedIn, clock: FrozenClock) -> None:
    admin, _ = await logged_in(Role.admin)
    member, me = await logged_in()
    treasurer, _ = await logged_in(Role.treasurer)
    session = await _today(admin)
    clock.set(AT_1900 - timedelta(minutes=1))
    await member.post(f"/api/sessions/{session['id']}/check-in")
    assert (await member.get("/api/attendance")).status_code == 403
    report = await treasurer.get("/api/attendance")
    assert report.status_code == 200
    counts = {row["member"]["id"]: row["sessions"] for row in report.json()}
    assert counts[me.id] == 1
    assert (await admin.get("/api/attendance?since=2026-11-01")).status_code == 200


async def test_anonymous_is_401(client) -> None:
    for method, path in (
        ("GET", "/api/sessions"),
        ("POST", "/api/sessions/generate"),
        ("POST", "/api/practice-tables"),
        ("GET", "/api/members"),
    ):
        assert (await client.request(method, path, json={})).status_code == 401


async def test_a_late_check_in_at_an_extra_session_names_its_own_start(
    logged_in: LoggedIn, clock: FrozenClock
) -> None:
    # R-S4 at an extra session that started at 10:02 club time (07:02 UTC): the refusal names
    # 10:02, in its message and in its code's params (the page's text is filled from them).
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    clock.set(datetime(2026, 11, 30, 6, 0, tzinfo=UTC))
    made = await admin.post(
        "/api/sessions/extra", json={"date": "2026-11-30", "start": "10:02", "end": "12:00"}
    )
    assert made.status_code == 201, made.text
    extra = made.json()
    clock.set(datetime(2026, 11, 30, 7, 30, tzinfo=UTC))
    refused = await member.post(f"/api/sessions/{extra['id']}/check-in")
    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "late_without_notice"
    assert body["params"] == {"start": "10:02", "starts_at": "2026-11-30T07:02:00+00:00"}
    assert "10:02" in body["detail"] and "19:00" not in body["detail"]
    notice = await member.post(f"/api/sessions/{extra['id']}/late-notice", json={})
    assert notice.status_code == 409
    assert notice.json()["code"] == "late_notice_closed"
    assert notice.json()["params"]["start"] == "10:02"
    assert "19:00" not in notice.json()["detail"]
    lobby = (await member.get(f"/api/sessions/{extra['id']}")).json()
    assert lobby["attendance"] == [] and lobby["late_notices"] == []


async def test_check_in_before_it_opens_names_the_session_own_opening(
    logged_in: LoggedIn, clock: FrozenClock
) -> None:
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    clock.set(datetime(2026, 11, 30, 6, 0, tzinfo=UTC))  # 09:00 club time
    made = await admin.post(
        "/api/sessions/extra", json={"date": "2026-11-30", "start": "18:30", "end": "18:50"}
    )
    assert made.status_code == 201, made.text
    refused = await member.post(f"/api/sessions/{made.json()['id']}/check-in")
    assert refused.status_code == 409
    assert refused.json()["code"] == "check_in_not_open"
    assert refused.json()["params"]["opens"] == "12:30"
    assert "12:30" in refused.json()["detail"]
