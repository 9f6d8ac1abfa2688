"""Forming tables: the table draw (R-T1), seats (R-T2), the first dealer (R-T3), practice
tables."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Attendance, DrawRecord, Member, Role
from app.rules.core.cards import ACE_RANK, parse_card, rank_of
from app.rules.core.draw import seat_draw_key
from app.services import schedule
from tests.api.conftest import AT_1900, AT_2215, LoggedIn


@pytest.mark.parametrize(("n", "sizes"), [(6, [3, 3]), (7, [4, 3]), (8, [4, 4])])
async def test_table_draw(evening, n: int, sizes: list[int]) -> None:
    # R-T1: k suits, as many cards of each as that table has seats; every member draws one.
    ev = await evening(n)
    client = ev.players[0][0]
    response = await client.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})
    assert response.status_code == 201, response.text
    body = response.json()
    record = body["draw"]["record"]
    assert record["rule"] == "R-T1" and record["table_sizes"] == sizes
    assert len(record["prepared"]) == n
    present = {m.id for _, m in ev.players}
    assert {int(d["member"]) for d in record["draws"]} == present
    assert sorted(d["card"] for d in record["draws"]) == sorted(record["prepared"])
    tables = body["tables"]
    assert [len(t["member_ids"]) for t in tables] == sizes
    for t in tables:
        suit = record["suits"][t["suit"]]
        drawn_suit = {int(d["member"]): d["card"][-1] for d in record["draws"]}
        assert all(drawn_suit[m] == suit for m in t["member_ids"])
    assert {m for t in tables for m in t["member_ids"]} == present
    # Recorded and shown to everyone.
    draws = (await client.get(f"/api/sessions/{ev.session_id}/draws")).json()
    assert draws[0]["record"] == record
    lobby = (await client.get(f"/api/sessions/{ev.session_id}")).json()
    assert lobby["waiting"] == [] and len(lobby["drawn_tables"]) == len(sizes)
    # Nobody is left to draw.
    again = await client.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})
    assert again.status_code == 409


async def test_table_draw_needs_three(evening) -> None:
    ev = await evening(2)
    response = await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})
    assert response.status_code == 409 and "three" in response.json()["detail"]


async def test_bad_table_sizes_are_refused(evening) -> None:
    ev = await evening(6)
    response = await ev.admin.post(
        f"/api/sessions/{ev.session_id}/draw-tables", json={"table_sizes": [4, 2]}
    )
    assert response.status_code == 400
    assert (await ev.admin.get(f"/api/sessions/{ev.session_id}/draws")).json() == []


async def test_absent_member_cannot_draw(evening, logged_in: LoggedIn) -> None:
    ev = await evening(6)
    outsider, _ = await logged_in()
    response = await outsider.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})
    assert response.status_code == 403


async def test_seat_draw_and_first_dealer(evening, db_session: AsyncSession) -> None:
    # R-T2: lowest card (ace lowest, ♠ < ♣ < ♦ < ♥) takes seat 0, the others clockwise.
    # R-T3: cards face up one at a time clockwise; the first ace deals first.
    ev = await evening(6)
    drawn = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ][0]
    player = next(c for c, m in ev.players if m.id == drawn["member_ids"][0])
    response = await player.post(f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "draw"})
    assert response.status_code == 201, response.text
    body = response.json()
    seat_record = body["seat_draw"]["record"]
    ordered = sorted(seat_record["draws"], key=lambda d: seat_draw_key(parse_card(d["card"])))
    assert [int(d["player"]) for d in ordered] == body["seats"]
    assert sorted(body["seats"]) == sorted(drawn["member_ids"])
    lot = body["first_dealer"]["record"]
    assert rank_of(parse_card(lot["steps"][-1]["card"])) == ACE_RANK
    assert all(rank_of(parse_card(s["card"])) != ACE_RANK for s in lot["steps"][:-1])
    assert [s["seat"] for s in lot["steps"]] == [i % 3 for i in range(len(lot["steps"]))]
    assert lot["dealer"] == lot["steps"][-1]["seat"]
    from app.db.models.table import Table, TableSeat

    table = await db_session.get(Table, body["table_id"])
    assert table.club_session_id == ev.session_id and not table.practice
    assert table.first_dealer == lot["dealer"]
    seats = (
        await db_session.scalars(
            select(TableSeat.member_id)
            .where(TableSeat.table_id == table.id)
            .order_by(TableSeat.seat)
        )
    ).all()
    assert list(seats) == body["seats"]
    kinds = [d["kind"] for d in (await player.get(f"/api/tables/{table.id}/draws")).json()]
    assert kinds == ["seats", "first_dealer"]
    # Seated once only.
    again = await player.post(f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "draw"})
    assert again.status_code == 409


async def test_seats_by_choice(evening) -> None:
    # R-T2: seats may be chosen by the players.
    ev = await evening(6)
    drawn = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ][1]
    order = list(reversed(drawn["member_ids"]))
    bad = await ev.admin.post(
        f"/api/drawn-tables/{drawn['id']}/seat",
        json={"mode": "choice", "seats": [*order[:2], 999999]},
    )
    assert bad.status_code == 422
    missing = await ev.admin.post(f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "choice"})
    assert missing.status_code == 422
    ok = await ev.admin.post(
        f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "choice", "seats": order}
    )
    assert ok.status_code == 201, ok.text
    assert ok.json()["seats"] == order and ok.json()["seat_draw"]["kind"] == "seat_choice"


async def test_other_table_cannot_seat(evening) -> None:
    ev = await evening(6)
    tables = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ]
    stranger = next(c for c, m in ev.players if m.id in tables[1]["member_ids"])
    response = await stranger.post(f"/api/drawn-tables/{tables[0]['id']}/seat", json={})
    assert response.status_code == 403


async def test_draws_follow_the_rng(app, evening) -> None:
    # The server's draw is a function of its Random: the same seed gives the same draw.
    ev = await evening(7)
    app.state.rng = random.Random(7)
    first = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "draw"
    ]["record"]
    from app.rules.core.draw import draw_tables

    again = draw_tables([d["member"] for d in first["draws"]], [4, 3], random.Random(7))
    assert again.to_json()["draws"] == first["draws"]


class _Runner:
    """Stands in for the house-bot runner (no server to connect to in these tests)."""

    def __init__(self) -> None:
        self.spawned: list[tuple[int, list[str]]] = []

    def spawn(self, table_id: int, cookies: list[str], level: str | None = None) -> None:
        self.spawned.append((table_id, cookies))


async def test_practice_table_any_time(
    app, logged_in: LoggedIn, clock: FrozenClock, db_session: AsyncSession
) -> None:
    runner = app.state.bot_runner = _Runner()
    member, me = await logged_in()
    clock.set(AT_2215 + timedelta(hours=3))  # long after any session
    response = await member.post("/api/practice-tables", json={"players": 3, "target": 10})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["seats"][0] == me.id and body["seat_draw"] is None
    from app.db.models.table import Table

    table = await db_session.get(Table, body["table_id"])
    assert table.practice and table.club_session_id is None
    # House bots take the other seats and are started once the table is committed.
    bots = [await db_session.get(Member, m) for m in body["seats"][1:]]
    assert [b.login for b in bots] == ["bot-1", "bot-2"] and all(b.is_bot for b in bots)
    assert [(t, len(c)) for t, c in runner.spawned] == [(table.id, 2)]
    # Never attendance; always allowed to deal; no extension to agree to.
    assert (
        await db_session.scalar(select(Attendance.id).where(Attendance.member_id == me.id))
    ) is None
    assert await schedule.deal_start_refusal(db_session, table.id, clock.now()) is None
    assert (
        await member.post(f"/api/tables/{table.id}/extension", json={"agree": True})
    ).status_code == 409
    record = await db_session.scalar(select(DrawRecord).where(DrawRecord.table_id == table.id))
    assert record is not None and record.kind == "first_dealer" and record.club_session_id is None
    assert (await member.post("/api/practice-tables", json={"players": 5})).status_code == 422


async def test_both_practice_paths_are_one_behaviour(
    app, logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    # POST /api/tables/practice and POST /api/practice-tables open the same kind of table.
    runner = app.state.bot_runner = _Runner()
    member, me = await logged_in()
    made = await member.post("/api/tables/practice", json={"players": 4, "target": 12})
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["practice"] is True and body["club_session_id"] is None
    assert body["players"] == 4 and body["target"] == 12
    assert body["seats"][0] == me.id and len(body["seats"]) == 4
    bots = [await db_session.get(Member, m) for m in body["seats"][1:]]
    assert all(b.is_bot for b in bots)
    assert [(t, len(c)) for t, c in runner.spawned] == [(body["id"], 3)]
    record = await db_session.scalar(select(DrawRecord).where(DrawRecord.table_id == body["id"]))
    assert record is not None and record.kind == "first_dealer"
    assert record.record["dealer"] == body["first_dealer"]
    other = (await member.post("/api/practice-tables", json={"players": 4})).json()
    assert [(await db_session.get(Member, m)).login for m in other["seats"][1:]] == [
        b.login for b in bots
    ]
    assert (
        await member.post("/api/tables/practice", json={"players": 3, "preset": "nope"})
    ).status_code == 422
    assert len(runner.spawned) == 2


async def test_admin_role_is_not_needed_for_members_but_is_for_admin_actions(
    evening, logged_in: LoggedIn, clock: FrozenClock
) -> None:
    ev = await evening(3)
    member = ev.players[0][0]
    treasurer, _ = await logged_in(Role.treasurer)
    for client in (member, treasurer):
        assert (await client.post("/api/sessions/generate", json={})).status_code == 403
        assert (
            await client.post("/api/sessions/extra", json={"date": "2026-12-05"})
        ).status_code == 403
        clock.set(AT_2215 + timedelta(minutes=1))
        assert (await client.post(f"/api/sessions/{ev.session_id}/end")).status_code == 403


async def test_a_drawn_table_plays_real_cards(
    evening, db_session: AsyncSession, clock: FrozenClock
) -> None:
    # RULES.md §10: the players of a session's drawn table choose real cards; the table is a
    # recorded one (no deal dealt, no move timer) and a seated player enters the first deal
    ev = await evening(6)
    drawn = (await ev.admin.post(f"/api/sessions/{ev.session_id}/draw-tables", json={})).json()[
        "tables"
    ][0]
    player = next(c for c, m in ev.players if m.id == drawn["member_ids"][0])
    odd = await player.post(
        f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "draw", "cards": "paper"}
    )
    assert odd.status_code == 422, "only dealt or real cards"
    seated = await player.post(
        f"/api/drawn-tables/{drawn['id']}/seat", json={"mode": "draw", "cards": "real"}
    )
    assert seated.status_code == 201, seated.text
    table_id = seated.json()["table_id"]
    from app.db.models.table import Table

    table = await db_session.get(Table, table_id)
    assert table is not None and table.mode == "recorded" and table.move_timer_seconds is None
    assert table.club_session_id == ev.session_id and not table.practice
    view = (await player.get(f"/api/tables/{table_id}/recording")).json()
    assert view["deal_no"] == 0
    deal = {"type": "pass_out", "dealer": view["next_dealer"], "tricks": {"0": 4, "1": 3, "2": 3}}
    early = await player.post(
        f"/api/tables/{table_id}/recording/deals", json={"deal_no": 0, "deal": deal}
    )
    # R-S1: a club table deals from the session's start, real cards as well
    assert early.status_code == 409 and "R-S1" in early.json()["detail"], early.text
    clock.set(AT_1900 + timedelta(minutes=5))
    entered = await player.post(
        f"/api/tables/{table_id}/recording/deals", json={"deal_no": 0, "deal": deal}
    )
    assert entered.status_code == 201, entered.text
    assert entered.json()["type"] == "recorded_deal"
