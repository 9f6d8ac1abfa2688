"""What needs the players' consent: the extension past 22:15 (R-S2), a fourth player (R-T4), a
replacement (R-T5); and the admin's session end (R-S3)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Role
from app.services import schedule
from tests.api.conftest import AT_1900, AT_2215, LoggedIn
from tests.support.scoring import CLUB, game, play


async def _seated_table(ev, index: int = 0) -> tuple[int, list]:
    tables = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ]
    drawn = tables[index]
    seated = await ev.admin.post(
        f"/api/drawn-tables/{drawn['id']}/seat",
        json={"mode": "choice", "seats": drawn["member_ids"]},
    )
    assert seated.status_code == 201, seated.text
    by_id = {m.id: (c, m) for c, m in ev.players}
    return seated.json()["table_id"], [by_id[m] for m in drawn["member_ids"]]


async def test_extension_consent_through_the_api(
    evening, clock: FrozenClock, logged_in: LoggedIn
) -> None:
    # R-S2: every player at the table must agree.
    ev = await evening(6)
    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, players = await _seated_table(ev)
    outsider, _ = await logged_in()
    refused = await outsider.post(f"/api/tables/{table_id}/extension", json={"agree": True})
    assert refused.status_code == 403
    clock.set(AT_2215 + timedelta(minutes=1))
    state = (await players[0][0].get(f"/api/tables/{table_id}/extension")).json()
    assert state["may_start_deal"] is False and "R-S2" in state["reason"]
    for client, _ in players:
        r = await client.post(f"/api/tables/{table_id}/extension", json={"agree": True})
        assert r.status_code == 200, r.text
    assert r.json()["extension_agreed"] is True and r.json()["may_start_deal"] is True
    assert r.json()["deals_remaining"] == 3
    bad = await players[0][0].post(f"/api/tables/{table_id}/extension", json={"agree": "yes!"})
    assert bad.status_code == 422


async def test_admin_ends_the_session(
    evening, clock: FrozenClock, db_session: AsyncSession
) -> None:
    # R-S3: the session end closes and settles every unfinished pulka.
    ev = await evening(6)
    clock.set(AT_1900 + timedelta(minutes=1))
    first, _ = await _seated_table(ev, 0)
    tables = (await ev.admin.get(f"/api/sessions/{ev.session_id}")).json()["drawn_tables"]
    second = (
        await ev.admin.post(f"/api/drawn-tables/{tables[1]['id']}/seat", json={"mode": "draw"})
    ).json()["table_id"]
    early = await ev.admin.post(f"/api/sessions/{ev.session_id}/end")
    assert early.status_code == 409 and "22:15" in early.json()["detail"]
    clock.set(AT_2215 + timedelta(minutes=5))
    member = ev.players[0][0]
    assert (await member.post(f"/api/sessions/{ev.session_id}/end")).status_code == 403
    ended = await ev.admin.post(f"/api/sessions/{ev.session_id}/end")
    assert ended.status_code == 200, ended.text
    assert sorted(ended.json()["closed_tables"]) == sorted([first, second])
    assert ended.json()["session"]["ended_at"] is not None
    from app.db.models.table import Pulka

    rows = (
        await db_session.scalars(select(Pulka).where(Pulka.table_id.in_([first, second])))
    ).all()
    assert {(p.status, p.ended) for p in rows} == {("finished", "session_end")}
    assert all(p.settlement is not None for p in rows)


async def _with_sheet(db: AsyncSession, table_id: int) -> None:
    """Give the table's pulka a played sheet: pools 0/4/6, hills 4/0/0, seat 0 just dealt."""
    from app.db.models.table import Pulka as PulkaRow

    deals = [
        game(0, 1, "7H", {2: "pass", 0: "pass"}),
        game(1, 2, "7H", {0: "pass", 1: "pass"}),
        game(2, 0, "6H", {1: "whist", 2: "whist"}, {0: 5, 1: 3, 2: 2}),
        game(0, 2, "6S", {0: "whist", 1: "whist"}, {2: 6, 0: 2, 1: 2}),
    ]
    pulka = play(deals, CLUB)
    row = await db.scalar(select(PulkaRow).where(PulkaRow.table_id == table_id))
    row.state = pulka.to_json()
    await db.flush()


async def test_fourth_player_joins_with_consent_rounded_against_him(
    evening, clock: FrozenClock, logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    # R-T4: everyone's consent; he writes the mean pool rounded down and hill rounded up, sits
    # left of the player who has just dealt and deals next. R-S4: a late member with notice.
    ev = await evening(6)
    clock.set(AT_1900 - timedelta(minutes=5))
    late, newcomer = await logged_in()
    assert (
        await late.post(f"/api/sessions/{ev.session_id}/late-notice", json={})
    ).status_code == 201
    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, players = await _seated_table(ev)
    await _with_sheet(db_session, table_id)
    # Not checked in yet: refused.
    assert (await late.post(f"/api/tables/{table_id}/join", json={})).status_code == 409
    clock.set(AT_1900 + timedelta(minutes=50))
    assert (await late.post(f"/api/sessions/{ev.session_id}/check-in")).status_code == 200
    asked = await late.post(f"/api/tables/{table_id}/join", json={})
    assert asked.status_code == 201, asked.text
    change = asked.json()
    record = change["record"]
    # pools 0/4/6 -> 10/3 -> 3 (down); hills 4/0/0 -> 4/3 -> 2 (up): against him.
    assert (record["pool"], record["hill"]) == ("3", "2")
    assert record["after_dealer_seat"] == 0 and record["seat"] == 1 and record["deals_next"]
    assert change["status"] == "pending"
    assert sorted(change["required"]) == sorted(m.id for _, m in players)
    # Only the players answer; someone else's answer is refused.
    assert (
        await late.post(f"/api/seat-changes/{change['id']}/consent", json={"agree": True})
    ).status_code == 403
    for client, _ in players:
        r = await client.post(f"/api/seat-changes/{change['id']}/consent", json={"agree": True})
        assert r.status_code == 200, r.text
    # Applied to the live table at once (no deal is being played: deal 1 is not cut yet).
    done = r.json()
    assert done["status"] == "applied" and done["applied_at"] is not None
    assert newcomer.id == done["member_id"]
    applied = done["record"]["applied"]
    seat = applied["seat"]
    assert applied["event"] == "player_joined" and applied["dealer"] == seat
    assert applied["member_ids"][seat] == newcomer.id and len(applied["member_ids"]) == 4
    assert {e["rule"] for e in applied["entries"]} == {"R-T4"}
    detail = (await late.get(f"/api/tables/{table_id}")).json()
    assert detail["players"] == 4
    assert [s["member_id"] for s in detail["seats"]] == applied["member_ids"]
    mine = (await late.get(f"/api/tables/{table_id}/state")).json()
    assert mine["seat"] == seat and mine["table"]["players"] == 4
    assert mine["deal"]["players"] == 4 and mine["deal"]["dealer"] == seat
    again = await late.post(f"/api/seat-changes/{change['id']}/apply")
    assert again.status_code == 409


async def test_one_refusal_ends_a_join(
    evening, clock: FrozenClock, logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    # R-T4: only with every player's consent.
    ev = await evening(7)
    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, players = await _seated_table(ev, 1)  # the three-player table
    assert len(players) == 3
    await _with_sheet(db_session, table_id)
    admin = ev.admin
    waiting = (await admin.get(f"/api/sessions/{ev.session_id}")).json()
    other = next(
        m for t in waiting["drawn_tables"] if t["table_id"] is None for m in t["member_ids"]
    )
    change = (await admin.post(f"/api/tables/{table_id}/join", json={"member_id": other})).json()
    r = await players[0][0].post(f"/api/seat-changes/{change['id']}/consent", json={"agree": False})
    assert r.json()["status"] == "refused"
    again = await players[1][0].post(
        f"/api/seat-changes/{change['id']}/consent", json={"agree": True}
    )
    assert again.status_code == 409


async def test_four_player_table_takes_no_fourth(
    evening, clock: FrozenClock, logged_in: LoggedIn
) -> None:
    ev = await evening(7)
    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, _ = await _seated_table(ev, 0)  # four players
    response = await ev.admin.post(
        f"/api/tables/{table_id}/join", json={"member_id": ev.players[0][1].id}
    )
    assert response.status_code == 409


async def test_substitution_needs_the_others_consent(
    evening, clock: FrozenClock, logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    # R-T5: a player may be replaced by another member only with the others' consent; the
    # replacement inherits the seat's sheet.
    ev = await evening(6)
    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, players = await _seated_table(ev)
    at_table = {m.id for _, m in players}
    # Present, drawn to the other table, not yet seated.
    substitute = next(m for _, m in ev.players if m.id not in at_table)
    (leaving_client, leaving), others = players[1], [players[0], players[2]]
    member_only, _ = await logged_in()
    assert (
        await member_only.post(
            f"/api/tables/{table_id}/replace", json={"seat": 1, "member_id": substitute.id}
        )
    ).status_code == 403
    asked = await leaving_client.post(
        f"/api/tables/{table_id}/replace", json={"seat": 1, "member_id": substitute.id}
    )
    assert asked.status_code == 201, asked.text
    change = asked.json()
    # The others and the newcomer; the leaving player asked, so he has agreed.
    assert sorted(change["required"]) == sorted([substitute.id, *(m.id for _, m in others)])
    assert change["record"]["leaving_member_id"] == leaving.id
    duplicate = await ev.admin.post(
        f"/api/tables/{table_id}/replace", json={"seat": 0, "member_id": substitute.id}
    )
    assert duplicate.status_code == 409
    assert (
        await leaving_client.post(f"/api/seat-changes/{change['id']}/consent", json={"agree": True})
    ).status_code == 403
    for client, _ in others:
        r = await client.post(f"/api/seat-changes/{change['id']}/consent", json={"agree": True})
        assert r.status_code == 200
    assert r.json()["status"] == "pending"  # the newcomer has not agreed yet
    substitute_client = next(c for c, m in ev.players if m.id == substitute.id)
    r = await substitute_client.post(
        f"/api/seat-changes/{change['id']}/consent", json={"agree": True}
    )
    assert r.json()["status"] == "applied"
    assert r.json()["record"]["applied"]["leaving_member_id"] == leaving.id
    theirs = (await substitute_client.get(f"/api/tables/{table_id}/state")).json()
    assert theirs["seat"] == 1 and theirs["table"]["names"][1] == substitute.display_name
    assert (await leaving_client.get(f"/api/tables/{table_id}/state")).json()["seat"] is None
    bad_seat = await ev.admin.post(
        f"/api/tables/{table_id}/replace", json={"seat": 4, "member_id": substitute.id}
    )
    assert bad_seat.status_code in (409, 422)
    # One club seat per member per session: the substitute's own drawn table cannot seat him
    # now, and he cannot take a seat at another table either.
    lobby = (await ev.admin.get(f"/api/sessions/{ev.session_id}")).json()
    his = next(t for t in lobby["drawn_tables"] if substitute.id in t["member_ids"])
    refused = await ev.admin.post(f"/api/drawn-tables/{his['id']}/seat", json={"mode": "draw"})
    assert refused.status_code == 409 and refused.json()["code"] == "seated_elsewhere"
    # The leaving player's seat row went with him (R-T5): he may be asked back.
    again = await ev.admin.post(
        f"/api/tables/{table_id}/replace", json={"seat": 0, "member_id": leaving.id}
    )
    assert again.status_code == 201, again.text


async def test_deal_start_refusal_for_a_drawn_club_table(
    evening, clock: FrozenClock, db_session: AsyncSession
) -> None:
    ev = await evening(6)
    clock.set(AT_1900 + timedelta(minutes=1))
    table_id, _ = await _seated_table(ev)
    assert (
        await schedule.deal_start_refusal(db_session, table_id, AT_2215 - timedelta(minutes=25))
        is None
    )
    assert await schedule.deal_start_refusal(db_session, table_id, AT_2215) is not None


async def test_treasurer_and_member_cannot_generate(
    logged_in: LoggedIn, clock: FrozenClock
) -> None:
    for role in (Role.member, Role.treasurer):
        c, _ = await logged_in(role)
        assert (await c.post("/api/sessions/generate", json={"weeks": 1})).status_code == 403
