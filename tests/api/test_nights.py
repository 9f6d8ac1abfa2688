"""The night's results (issue 27): there at once when the session ends, provisional until the
correction window is over, then final; corrections audited and shown; the print-outs; the
room screen's answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import httpx
from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member, MemberNight, Role, Season
from app.db.models.audit import AuditEntry
from app.db.models.fund import EntryKind, FundEntry
from app.services.nights import deal_swing
from app.services.tables import create_table
from tests.api.conftest import AT_1900, AT_2215, LoggedIn
from tests.support.archive_play import play_deal

WINDOW = timedelta(seconds=3600)
"""NIGHT_CORRECTION_SECONDS' default."""


async def _night(
    logged_in: LoggedIn, db: AsyncSession, clock: FrozenClock
) -> tuple[int, httpx.AsyncClient, list[Member], list[int]]:
    """Tonight's session with two club tables of three: two deals at the first, one at the
    second, then the admin ends the session at 22:20 (R-S3)."""
    admin, _ = await logged_in(Role.admin)
    session_id = (await admin.post("/api/sessions/generate", json={"weeks": 1})).json()[0]["id"]
    members = [
        (await logged_in(name=n))[1] for n in ("Анна", "Борис", "Вера", "Глеб", "Дина", "Ефим")
    ]
    clock.set(AT_1900 + timedelta(minutes=1))
    tables = []
    for group in (members[:3], members[3:]):
        table = await create_table(
            db,
            seat_member_ids=[m.id for m in group],
            club_session_id=session_id,
            target=20,
            now=clock.now(),
        )
        tables.append(table.id)
    ids = [[m.id for m in members[:3]], [m.id for m in members[3:]]]
    await play_deal(db, tables[0], ids[0], clock.now())
    await play_deal(db, tables[0], ids[0], clock.now(), prefix="b")
    await play_deal(db, tables[1], ids[1], clock.now())
    return session_id, admin, members, tables


async def test_the_night_is_there_at_once_provisional_then_final(
    logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    session_id, admin, members, tables = await _night(logged_in, db_session, clock)
    member, _ = await logged_in()
    before = (await member.get(f"/api/nights/{session_id}")).json()
    assert before["status"] == "open" and before["final_at"] is None
    assert [t["status"] for t in before["tables"]] == ["playing", "playing"]

    clock.set(AT_2215 + timedelta(minutes=5))
    ended = await admin.post(f"/api/sessions/{session_id}/end")
    assert ended.status_code == 200, ended.text
    night = (await member.get(f"/api/nights/{session_id}")).json()
    assert night["status"] == "provisional"
    assert night["final_at"] == (clock.now() + WINDOW).isoformat()
    assert [t["table_id"] for t in night["tables"]] == tables
    assert [(t["status"], t["ended"], t["deals"]) for t in night["tables"]] == [
        ("finished", "session_end", 2),
        ("finished", "session_end", 1),
    ]
    assert night["tables"][0]["names"] == ["Анна", "Борис", "Вера"]
    # R-P4, R-P5: each table's settlement sums to zero in whists and in money.
    for table in night["tables"]:
        assert sum(Fraction(str(w)) for w in table["settlement"]["rounded"]) == 0
        assert sum(Decimal(m) for m in table["settlement"]["money"]) == 0
    # R-F1: the fund's share is what the losers owe, as the ledger has it.
    owed = (
        await db_session.scalars(
            select(FundEntry.amount).where(FundEntry.kind == EntryKind.payment_due)
        )
    ).all()
    losses = sum(
        (-Decimal(m) for t in night["tables"] for m in t["settlement"]["money"] if Decimal(m) < 0),
        Decimal(0),
    )
    assert Decimal(night["fund"]["share"]) == sum(owed, Decimal(0)) == losses > 0
    assert sum(Decimal(t["fund_share"]) for t in night["tables"]) == losses
    # Every player of the night once, his whists and money from his table's settlement.
    assert sorted(p["name"] for p in night["players"]) == sorted(m.display_name for m in members)
    assert sum(Decimal(p["money"]) for p in night["players"]) == 0

    # The deal of the night: the largest whist swing among the three deals, from the archive.
    swings = {}
    for table in night["tables"]:
        for n in range(1, table["deals"] + 1):
            replay = (await member.get(f"/api/pulkas/{table['pulka_id']}/deals/{n}")).json()
            swings[(table["table_id"], n)] = deal_swing(replay["entries"])
    best = max(swings.values())
    top = min(key for key, swing in swings.items() if swing == best)
    deal = night["deal_of_the_night"]
    assert (deal["table_id"], deal["deal_no"]) == top
    assert Fraction(str(deal["swing"])) == best and deal["rule"] == "largest_whist_swing"
    assert deal["contract"] == "6S" and deal["declarer_name"] in [m.display_name for m in members]

    # A correction within the window: shown, not after final; audited.
    treasurer, _ = await logged_in(Role.treasurer)
    refused = await member.post(f"/api/nights/{session_id}/corrections", json={"note": "x"})
    assert refused.status_code == 403
    foreign = await treasurer.post(
        f"/api/nights/{session_id}/corrections", json={"note": "x", "pulka_id": 2**31 - 1}
    )
    assert foreign.status_code == 422 and foreign.json()["code"] == "night_pulka_unknown"
    blank = await treasurer.post(f"/api/nights/{session_id}/corrections", json={"note": "  "})
    assert blank.status_code == 422 and blank.json()["code"] == "night_note_required"
    pulka_id = night["tables"][0]["pulka_id"]
    early = await treasurer.post(
        f"/api/nights/{session_id}/corrections",
        json={"note": "Стол 1: пересчитано", "pulka_id": pulka_id},
    )
    assert early.status_code == 200, early.text
    assert [(c["note"], c["after_final"]) for c in early.json()["corrections"]] == [
        ("Стол 1: пересчитано", False)
    ]

    clock.set(clock.now() + WINDOW)
    final = (await member.get(f"/api/nights/{session_id}")).json()
    assert final["status"] == "final"
    late = await treasurer.post(
        f"/api/nights/{session_id}/corrections", json={"note": "Долг Бориса исправлен кассой"}
    )
    assert late.status_code == 200, late.text
    assert [c["after_final"] for c in late.json()["corrections"]] == [False, True]
    assert late.json()["status"] == "final"
    rows = (
        await db_session.scalars(
            select(AuditEntry)
            .where(AuditEntry.action == "night.correction")
            .order_by(AuditEntry.id)
        )
    ).all()
    assert [(r.target, r.after["status"]) for r in rows] == [
        (f"session:{session_id}", "provisional"),
        (f"session:{session_id}", "final"),
    ]

    # The print-outs: A4 PDFs made in the print pool.
    for path in (f"/api/nights/{session_id}/pdf", f"/api/pulkas/{pulka_id}/pdf"):
        pdf = await member.get(path)
        assert pdf.status_code == 200, pdf.text
        assert pdf.headers["content-type"] == "application/pdf"
        assert pdf.content.startswith(b"%PDF-") and b"/MediaBox [0 0 595.28 841.89]" in pdf.content


async def test_a_night_refuses_what_it_cannot_be(
    logged_in: LoggedIn, clock: FrozenClock, client: httpx.AsyncClient
) -> None:
    admin, _ = await logged_in(Role.admin)
    session_id = (await admin.post("/api/sessions/generate", json={"weeks": 1})).json()[0]["id"]
    missing = await admin.get(f"/api/nights/{2**31 - 1}")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    not_ended = await admin.post(f"/api/nights/{session_id}/corrections", json={"note": "x"})
    assert not_ended.status_code == 409 and not_ended.json()["code"] == "night_not_ended"
    extra = await admin.post(
        f"/api/nights/{session_id}/corrections", json={"note": "x", "other": 1}
    )
    assert extra.status_code == 422
    empty = (await admin.get(f"/api/nights/{session_id}")).json()
    assert empty["tables"] == [] and empty["deal_of_the_night"] is None
    assert empty["fund"]["share"] == "0.00" and empty["status"] == "open"
    assert (await client.get(f"/api/nights/{session_id}")).status_code == 401
    assert (await client.get("/api/room")).status_code == 401


async def test_the_room_shows_tables_in_play_without_hands(
    logged_in: LoggedIn,
    db_session: AsyncSession,
    clock: FrozenClock,
    make_member: Callable[..., Awaitable[Member]],
) -> None:
    _, _, members, tables = await _night(logged_in, db_session, clock)
    practice = await create_table(
        db_session, seat_member_ids=[m.id for m in members[:3]], practice=True, now=clock.now()
    )
    viewer, _ = await logged_in()
    room = (await viewer.get("/api/room")).json()
    assert [t["table_id"] for t in room["tables"]] == tables  # not the practice table
    assert practice.id not in [t["table_id"] for t in room["tables"]]
    assert room["standings"] == {"season": None, "min_pulkas": 5, "lines": []}

    # The standings slide: the season holding today (30 November 2026), its top ten only.
    season = Season(name="2026/27", first_day=date(2026, 9, 1), last_day=date(2027, 5, 31))
    db_session.add(season)
    players = [await make_member(name=f"Игрок {i:02}") for i in range(11)]
    for i, player in enumerate(players):
        db_session.add(
            MemberNight(
                member_id=player.id,
                night=date(2026, 11, 23),
                entries=5,
                pulkas=5,
                deals=60,
                whists=Decimal(10 * i),
                money=0,
            )
        )
    # A night of the season before: in the all-time standings only.
    db_session.add(
        MemberNight(
            member_id=players[0].id,
            night=date(2026, 5, 25),
            entries=1,
            pulkas=1,
            deals=12,
            whists=Decimal(1000),
            money=0,
        )
    )
    await db_session.flush()
    board = (await viewer.get("/api/room")).json()["standings"]
    assert board["season"] == {"id": season.id, "name": "2026/27"}
    assert len(board["lines"]) == 10, "the top ten lines"
    assert [line["name"] for line in board["lines"]] == [f"Игрок {i:02}" for i in range(10, 0, -1)]
    assert board["lines"][0] == {
        "member_id": players[10].id,
        "rank": 1,
        "name": "Игрок 10",
        "whists_per_pulka": "20.0",
        "pulkas": 5,
        "rating": None,
    }
    assert [line["rank"] for line in board["lines"]] == list(range(1, 11))
    season.first_day, season.last_day = date(2027, 9, 1), date(2028, 5, 31)
    await db_session.flush()  # no season holds today: the all-time standings
    later = (await viewer.get("/api/room")).json()["standings"]
    assert later["season"] is None
    assert later["lines"][0]["member_id"] == players[0].id  # 1000 whists in 6 pulkas
    assert later["lines"][0]["whists_per_pulka"] == "166.7"
    for table in room["tables"]:
        deal = table["deal"]
        assert deal["seat"] is None and deal["hand"] == [] and not deal["finished"]
        assert deal["open_hands"] == {} and deal["talon"] is None and deal["discard"] is None
        assert set(table) == {
            "table_id",
            "seq",
            "players",
            "names",
            "status",
            "deal_no",
            "preset",
            "target",
            "sheet",
            "deal",
        }


async def test_a_pdf_without_its_font_is_a_clear_503(
    logged_in: LoggedIn, app: FastAPI, clock: FrozenClock
) -> None:
    admin, _ = await logged_in(Role.admin)
    session_id = (await admin.post("/api/sessions/generate", json={"weeks": 1})).json()[0]["id"]
    app.state.settings = app.state.settings.model_copy(
        update={"pdf_font": Path("/nonexistent/font.ttf")}
    )
    answer = await admin.get(f"/api/nights/{session_id}/pdf")
    assert answer.status_code == 503 and answer.json()["code"] == "pdf_font_missing"
