"""Seasons, standings and the rating over HTTP (issue 27), on real pulkas played through the
command service and finished at real tables (real PostgreSQL): the incremental rows written
as each pulka closes equal what the archive rebuilds, exactly; bad input is refused with a
stable code and changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import (
    AuditEntry,
    Member,
    MemberNight,
    MemberRating,
    PulkaMemberStats,
    Role,
    Season,
)
from app.services import rating, standings
from tests.api.conftest import LoggedIn
from tests.support.archive_play import finished_pulka

SEASON = {"name": "2026/27", "first_day": "2026-09-01", "last_day": "2027-05-31"}


async def _counts(db: AsyncSession) -> tuple[int | None, int | None]:
    return (
        await db.scalar(select(func.count()).select_from(Season)),
        await db.scalar(select(func.count()).select_from(AuditEntry)),
    )


async def test_an_admin_defines_seasons_and_bad_ones_change_nothing(
    logged_in: LoggedIn, db_session: AsyncSession
) -> None:
    """Overlapping dates (409 ``season_overlap``), an end before the start (422
    ``season_days_order``), a taken name, an unknown season (404 ``season_unknown``) and a
    member who is not an admin (403) are refused; nothing is stored or audited for them."""
    admin, _ = await logged_in(Role.admin)
    member, _ = await logged_in()
    created = await admin.post("/api/seasons", json=SEASON)
    assert created.status_code == 201, created.text
    season = created.json()
    assert season["name"] == "2026/27" and season["last_day"] == "2027-05-31"
    before = await _counts(db_session)
    refusals = [
        (
            admin.post(
                "/api/seasons",
                json={
                    **SEASON,
                    "name": "Зима",
                    "first_day": "2027-05-31",
                    "last_day": "2027-08-31",
                },
            ),
            409,
            "season_overlap",
        ),
        (
            admin.post(
                "/api/seasons",
                json={**SEASON, "name": "Вне", "first_day": "2027-09-01", "last_day": "2027-08-31"},
            ),
            422,
            "season_days_order",
        ),
        (
            admin.post(
                "/api/seasons", json={**SEASON, "first_day": "2027-09-01", "last_day": "2028-05-31"}
            ),
            409,
            "season_name_taken",
        ),
        (admin.put("/api/seasons/999999", json=SEASON), 404, "season_unknown"),
        (admin.delete("/api/seasons/999999"), 404, "season_unknown"),
        (
            member.post(
                "/api/seasons",
                json={**SEASON, "name": "Моя", "first_day": "2028-09-01", "last_day": "2029-05-31"},
            ),
            403,
            "forbidden",
        ),
        (member.get("/api/standings?season=999999"), 404, "season_unknown"),
        (member.get("/api/standings?season=осень"), 422, "bad_season"),
        (member.get("/api/standings?order=luck"), 422, "bad_order"),
        (admin.put("/api/club/settings/min-pulkas", json={"min_pulkas": -1}), 422, None),
    ]
    for call, status, code in refusals:
        answer = await call
        assert answer.status_code == status, answer.text
        if code is not None:
            assert answer.json()["code"] == code
    assert await _counts(db_session) == before, "a refused request changes nothing"
    moved = await admin.put(
        f"/api/seasons/{season['id']}", json={**SEASON, "last_day": "2027-06-30"}
    )
    assert moved.status_code == 200 and moved.json()["last_day"] == "2027-06-30"
    listed = (await member.get("/api/seasons")).json()
    assert [s["id"] for s in listed] == [season["id"]]
    actions = (
        await db_session.scalars(
            select(AuditEntry.action)
            .where(AuditEntry.target == f"season:{season['id']}")
            .order_by(AuditEntry.id)
        )
    ).all()
    assert actions == ["season.create", "season.update"]
    assert (await admin.delete(f"/api/seasons/{season['id']}")).status_code == 204
    assert (await member.get("/api/seasons")).json() == []


async def test_standings_and_rating_are_incremental_and_rebuild_exactly(
    logged_in: LoggedIn,
    db_session: AsyncSession,
    clock: FrozenClock,
    make_member: Callable[..., Awaitable[Member]],
) -> None:
    """Three club pulkas on two Mondays (and a practice one that never counts): the season's
    and the all-time standings sum the archive's rows, count nights, rank by whists per pulka
    among the qualified only; ``member_nights`` and the ratings written as each pulka closed
    equal those rebuilt from the archive, bit for bit."""
    anna, boris, vera, gleb = [await make_member(name=n) for n in ("Анна", "Борис", "Вера", "Глеб")]
    await finished_pulka(db_session, [anna, boris, vera], clock, ["6S", "misere"])
    await finished_pulka(db_session, [anna, boris, vera, gleb], clock, ["7NT"])
    await finished_pulka(db_session, [gleb, vera, boris], clock, ["6S"], practice=True)
    clock.advance(timedelta(days=280))  # Monday 6 September 2027: next season
    await finished_pulka(db_session, [boris, gleb, anna], clock, ["misere"])
    admin, _ = await logged_in(Role.admin)
    season = (await admin.post("/api/seasons", json=SEASON)).json()
    assert (await admin.put("/api/club/settings/min-pulkas", json={"min_pulkas": 2})).json()[
        "min_pulkas"
    ] == 2

    board = (await admin.get("/api/standings?season=all")).json()
    assert board["season"] is None and board["min_pulkas"] == 2
    lines = {line["member_id"]: line for line in board["lines"]}
    rows = (
        await db_session.execute(
            select(
                PulkaMemberStats.member_id,
                func.count(PulkaMemberStats.seat),
                func.sum(PulkaMemberStats.whists),
                func.sum(PulkaMemberStats.money),
            )
            .where(PulkaMemberStats.practice.is_(False))
            .group_by(PulkaMemberStats.member_id)
        )
    ).all()
    assert len(rows) == 4
    for mid, pulkas, whists, money in rows:
        assert lines[mid]["pulkas"] == pulkas
        assert Decimal(lines[mid]["whists"]) == whists
        assert Decimal(lines[mid]["money"]) == money
    assert lines[anna.id]["nights"] == 2 and lines[vera.id]["nights"] == 1
    assert lines[gleb.id]["pulkas"] == 2 and lines[vera.id]["pulkas"] == 2
    assert sum(Decimal(line["money"]) for line in board["lines"]) == 0, "zero-sum"
    ranked = [line for line in board["lines"] if line["qualified"]]
    per = [Decimal(line["whists"]) / line["pulkas"] for line in ranked]
    assert per == sorted(per, reverse=True) and ranked[0]["rank"] == 1
    assert all(line["rating"]["matches"] == line["pulkas"] for line in board["lines"])
    assert all(
        line["rating"]["ordinal"] == line["rating"]["mu"] - 3 * line["rating"]["sigma"]
        for line in board["lines"]
    )

    autumn = (await admin.get(f"/api/standings?season={season['id']}&order=money")).json()
    assert autumn["season"]["id"] == season["id"]
    mine = {line["member_id"]: line for line in autumn["lines"]}
    assert set(mine) == {anna.id, boris.id, vera.id, gleb.id}
    assert mine[gleb.id]["pulkas"] == 1 and mine[gleb.id]["rank"] is None
    assert mine[anna.id]["nights"] == 1 and mine[anna.id]["qualified"]

    assert await standings.stored_nights(db_session) == await standings.nights_from_archive(
        db_session
    )
    incremental = await rating.stored(db_session)
    replayed, _ = rating.replay(await rating.matches_from_archive(db_session))
    assert incremental == replayed and len(incremental) == 4
    assert await rating.rebuild(db_session) == 3
    assert await rating.stored(db_session) == incremental, "rebuilt bit for bit"
    await standings.rebuild(db_session)
    kept = await standings.stored_nights(db_session)
    assert kept == await standings.nights_from_archive(db_session)
    assert await standings.backfill(db_session) is False, "nothing to do: nights are there"
    await db_session.execute(delete(MemberNight))
    await db_session.execute(delete(MemberRating))
    assert await standings.backfill(db_session) is True, "a club upgraded to 0018"
    assert await standings.stored_nights(db_session) == kept
    assert await rating.stored(db_session) == incremental
