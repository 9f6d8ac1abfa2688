"""Concurrent requests through separate database sessions: a session's tables are drawn once,
each drawn table is seated once, a member holds one club seat per session (R-T1, R-T2), and the
house bots are created once however many practice tables open at the same moment.

The ``client`` fixture of ``tests/conftest.py`` shares one database session, which would
serialise everything; here each request gets its own session from the app's real sessionmaker,
on committed data in a scratch database of this module (dropped at the end).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from app.clock import FrozenClock
from app.config import Settings
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Attendance, ClubSession, DrawnTable, DrawRecord, Member, Role
from app.db.models.table import Table, TableSeat
from app.main import create_app
from app.security.login_sessions import CSRF_COOKIE, SESSION_COOKIE, open_session
from tests.support.databases import drop_database, migrated_database, scratch_database

CONCURRENT = 24


@pytest.fixture(scope="module")
def race_db(database_url: str) -> Iterator[str]:
    """A migrated scratch database of this module's own (it holds committed rows)."""
    with migrated_database(database_url) as url:
        yield url


@dataclass
class Club:
    """An app on the real sessionmaker, its frozen clock and a way to log members in."""

    app: FastAPI
    engine: AsyncEngine
    sessions: async_sessionmaker  # type: ignore[type-arg]
    clock: FrozenClock
    clients: list[httpx.AsyncClient]

    async def member(self, name: str) -> tuple[httpx.AsyncClient, int]:
        """A committed member with an open session, and his own HTTP client."""
        async with session_scope(self.sessions) as db:
            row = Member(
                login=f"{name}-{uuid.uuid4().hex[:8]}",
                display_name=name,
                must_change_password=False,
                active=True,
                is_bot=False,
            )
            db.add(row)
            await db.flush()
            token, csrf = await open_session(db, row, self.clock.now(), 24)
            member_id = row.id
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app), base_url="http://127.0.0.1:8000"
        )
        client.cookies.set(SESSION_COOKIE, token, domain="127.0.0.1")
        client.cookies.set(CSRF_COOKIE, csrf, domain="127.0.0.1")
        client.headers["X-CSRF-Token"] = csrf
        self.clients.append(client)
        return client, member_id


async def _club(url: str, tmp_path: Path) -> Club:
    settings = Settings(
        DATABASE_URL=url,
        PREFCLUB_DATA_DIR=tmp_path,
        PREFCLUB_ENV="test",
        SECRET_KEY="test-secret-key-that-is-long-enough-for-signing",
    )
    app = create_app(settings)
    engine = make_engine(url)
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    app.state.database_url = url
    app.state.rng = random.Random(9)
    # A minute-precise Monday of its own (sessions are unique by their start).
    starts = datetime(2031, 1, 6, 16, 0, tzinfo=UTC) + timedelta(weeks=random.randrange(1, 5000))
    clock = FrozenClock(starts - timedelta(minutes=10))
    app.state.clock = clock
    return Club(app, engine, app.state.sessionmaker, clock, [])


@pytest.fixture
async def club(race_db: str, tmp_path: Path) -> AsyncIterator[Club]:
    made = await _club(race_db, tmp_path)
    try:
        yield made
    finally:
        for client in made.clients:
            await client.aclose()
        await made.engine.dispose()


async def _evening(club: Club, n: int) -> tuple[int, list[tuple[httpx.AsyncClient, int]]]:
    """A session starting in ten minutes with ``n`` members checked in."""
    starts = club.clock.now() + timedelta(minutes=10)
    async with session_scope(club.sessions) as db:
        session = ClubSession(starts_at=starts, ends_at=starts + timedelta(hours=3, minutes=15))
        db.add(session)
        await db.flush()
        session_id = session.id
    players = [await club.member(f"p{i}") for i in range(n)]
    async with session_scope(club.sessions) as db:
        for _, member_id in players:
            db.add(
                Attendance(
                    club_session_id=session_id, member_id=member_id, checked_in_at=club.clock.now()
                )
            )
    return session_id, players


async def test_concurrent_table_draws_draw_once(club: Club) -> None:
    # R-T1: the session's tables are drawn once; every member present is at one table.
    session_id, players = await _evening(club, 8)
    clients = [players[i % len(players)][0] for i in range(CONCURRENT)]
    answers = await asyncio.gather(
        *(c.post(f"/api/sessions/{session_id}/draw-tables", json={}) for c in clients)
    )
    codes = sorted(a.status_code for a in answers)
    assert codes == [201] + [409] * (CONCURRENT - 1), [a.text for a in answers]
    refused = [a.json() for a in answers if a.status_code == 409]
    assert {r["code"] for r in refused} == {"tables_already_drawn"}
    async with club.sessions() as db:
        draws = (
            await db.scalars(
                select(DrawRecord).where(
                    DrawRecord.club_session_id == session_id, DrawRecord.kind == "tables"
                )
            )
        ).all()
        drawn = (
            await db.scalars(select(DrawnTable).where(DrawnTable.club_session_id == session_id))
        ).all()
    assert len(draws) == 1 and len(drawn) == 2
    everyone = [m for t in drawn for m in t.member_ids]
    assert sorted(everyone) == sorted(m for _, m in players)

    # R-T2: each drawn table is seated once, however many of its players ask at once.
    by_member = dict((m, c) for c, m in players)
    asks = [
        (t.id, by_member[t.member_ids[i % len(t.member_ids)]])
        for t in drawn
        for i in range(CONCURRENT // 2)
    ]
    seated = await asyncio.gather(
        *(c.post(f"/api/drawn-tables/{t}/seat", json={"mode": "draw"}) for t, c in asks)
    )
    assert sorted(s.status_code for s in seated) == [201, 201] + [409] * (len(asks) - 2), [
        s.text for s in seated if s.status_code not in (201, 409)
    ]
    assert {s.json()["code"] for s in seated if s.status_code == 409} == {"already_seated"}
    async with club.sessions() as db:
        tables = (
            await db.scalars(select(Table.id).where(Table.club_session_id == session_id))
        ).all()
        seats = (
            await db.execute(
                select(TableSeat.member_id, func.count())
                .join(Table, Table.id == TableSeat.table_id)
                .where(Table.club_session_id == session_id)
                .group_by(TableSeat.member_id)
            )
        ).all()
    assert len(tables) == 2
    assert sorted(m for m, _ in seats) == sorted(everyone)
    assert all(count == 1 for _, count in seats)


async def test_concurrent_practice_tables_create_the_house_bots_once(
    database_url: str, tmp_path: Path
) -> None:
    # A fresh database (no house bots yet): every one of the concurrent first practice tables
    # opens, and bot-1 .. bot-3 exist once each.
    url, name = scratch_database(database_url, migrated=True)
    try:
        club = await _club(url, tmp_path)
        spawned: list[int] = []

        class Recorder:
            """The bot runner's seam (``app.state.bot_runner``): records what would start."""

            def spawn(self, table_id: int, cookies: list[str], level: str | None = None) -> None:
                spawned.append(table_id)

        club.app.state.bot_runner = Recorder()
        try:
            members = [await club.member(f"solo{i}") for i in range(CONCURRENT)]
            answers = await asyncio.gather(
                *(
                    c.post("/api/practice-tables", json={"players": 3 + i % 2, "target": 10})
                    for i, (c, _) in enumerate(members)
                )
            )
            assert [a.status_code for a in answers] == [201] * CONCURRENT, [
                a.text for a in answers if a.status_code != 201
            ]
            async with club.sessions() as db:
                bots = (
                    await db.scalars(
                        select(Member.login).where(Member.is_bot.is_(True)).order_by(Member.login)
                    )
                ).all()
            assert bots == ["bot-1", "bot-2", "bot-3"]
            assert sorted(spawned) == sorted(a.json()["table_id"] for a in answers)
        finally:
            for client in club.clients:
                await client.aclose()
            await club.engine.dispose()
    finally:
        drop_database(database_url, name)


async def test_one_club_seat_per_member_per_session_is_a_constraint(db_session) -> None:  # type: ignore[no-untyped-def]
    # The database itself refuses a second seat for a member at the club tables of a session,
    # and a second table draw of a session; practice seats (no session) are not limited.
    from sqlalchemy.exc import IntegrityError

    starts = datetime(2030, 3, 4, 16, 0, tzinfo=UTC)
    session = ClubSession(starts_at=starts, ends_at=starts + timedelta(hours=3))
    member = Member(login=f"solo-{uuid.uuid4().hex[:8]}", display_name="Solo")
    db_session.add_all([session, member])
    await db_session.flush()

    def table(session_id: int | None) -> Table:
        return Table(
            club_session_id=session_id,
            practice=session_id is None,
            conventions={},
            target=10,
            stake=0,
            players=3,
        )

    first, second, practice = table(session.id), table(session.id), table(None)
    db_session.add_all([first, second, practice])
    await db_session.flush()
    db_session.add_all(
        [
            TableSeat(table_id=first.id, seat=0, member_id=member.id, club_session_id=session.id),
            TableSeat(table_id=practice.id, seat=0, member_id=member.id),
        ]
    )
    await db_session.flush()
    with pytest.raises(IntegrityError, match="uq_table_seats_session_member"):
        async with db_session.begin_nested():
            db_session.add(
                TableSeat(
                    table_id=second.id, seat=1, member_id=member.id, club_session_id=session.id
                )
            )
            await db_session.flush()
    db_session.add(DrawRecord(kind="tables", club_session_id=session.id, record={}))
    await db_session.flush()
    with pytest.raises(IntegrityError, match="uq_draws_session_tables"):
        async with db_session.begin_nested():
            db_session.add(DrawRecord(kind="tables", club_session_id=session.id, record={}))
            await db_session.flush()


async def test_a_latecomer_takes_one_seat_when_two_tables_agree_at_once(club: Club) -> None:
    # R-S4, R-T4: a latecomer asked to join both three-player tables; their last consents come
    # at the same moment. The unique index lets him sit at one; the other answers 409.
    session_id, players = await _evening(club, 6)
    late_client, late = await club.member("late")
    # The six draw; the latecomer checks in after the draw.
    drawn = (await players[0][0].post(f"/api/sessions/{session_id}/draw-tables", json={})).json()[
        "tables"
    ]
    async with session_scope(club.sessions) as db:
        db.add(
            Attendance(
                club_session_id=session_id,
                member_id=late,
                checked_in_at=club.clock.now(),
                late=True,
            )
        )
    by_member = dict((m, c) for c, m in players)
    changes = []
    for t in drawn:
        seated = await by_member[t["member_ids"][0]].post(
            f"/api/drawn-tables/{t['id']}/seat", json={"mode": "draw"}
        )
        assert seated.status_code == 201, seated.text
        asked = await late_client.post(f"/api/tables/{seated.json()['table_id']}/join", json={})
        assert asked.status_code == 201, asked.text
        change = asked.json()
        assert sorted(change["required"]) == sorted(t["member_ids"])
        for m in t["member_ids"][:-1]:
            ok = await by_member[m].post(
                f"/api/seat-changes/{change['id']}/consent", json={"agree": True}
            )
            assert ok.json()["status"] == "pending", ok.text
        changes.append((change["id"], by_member[t["member_ids"][-1]]))
    last = await asyncio.gather(
        *(c.post(f"/api/seat-changes/{cid}/consent", json={"agree": True}) for cid, c in changes)
    )
    assert sorted(r.status_code for r in last) == [200, 409], [r.text for r in last]
    assert next(r for r in last if r.status_code == 409).json()["code"] == "seated_elsewhere"
    assert next(r for r in last if r.status_code == 200).json()["status"] == "applied"
    async with club.sessions() as db:
        his = (
            await db.scalars(select(TableSeat.club_session_id).where(TableSeat.member_id == late))
        ).all()
    assert his == [session_id]


async def test_one_login_created_at_once_is_taken_once(club: Club) -> None:
    # Issue 28: a login is unique case-insensitively at the database (stored normalised): of
    # many concurrent creations of «Ольга», «ОЛЬГА», « ольга », one wins and the others are
    # 409 login_taken (the unique index decides the ones that passed the look-up together).
    admin, admin_id = await club.member("admin")
    async with session_scope(club.sessions) as db:
        (await db.get(Member, admin_id)).role = Role.admin  # type: ignore[union-attr]
    suffix = str(uuid.uuid4().int)[:8]  # digits: a Latin hex letter would mix scripts
    typed = [f"Ольга{suffix}", f"ОЛЬГА{suffix}", f" ольга{suffix} "] * 3
    answers = await asyncio.gather(
        *(
            admin.post("/api/members", json={"login": login, "display_name": "Ольга"})
            for login in typed
        )
    )
    codes = sorted(a.status_code for a in answers)
    assert codes == [201] + [409] * (len(typed) - 1), [a.text for a in answers]
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"login_taken"}
    async with club.sessions() as db:
        logins = (
            await db.scalars(select(Member.login).where(Member.login.like(f"%{suffix}")))
        ).all()
    assert logins == [f"ольга{suffix}"]
