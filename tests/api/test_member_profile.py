"""The member's page over HTTP (issue 27), on real pulkas played through the command service
and finished at real tables (real PostgreSQL): his pulkas and head-to-head figures equal the
archive's rows, his rating history ends at his stored rating, his costliest deals are losses
that open in the replay; an unknown member is 404 and nobody logged out reads anything."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from decimal import Decimal
from fractions import Fraction

import httpx
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import Member, PulkaMemberStats, PulkaStats
from app.rules import deal_loss
from app.services import rating
from app.services.member_profile import CostlyDeal, costliest
from tests.api.conftest import LoggedIn
from tests.support.archive_play import finished_pulka


def test_a_deals_loss_is_hill_over_the_mean_and_whists_net() -> None:
    """R-P4 restricted to one deal: seat 0 failed a six by two (4 hill points at the club's
    rate of 2 a trick), each defender wrote 8 whists on him; pool points are no loss. The
    three seats' losses sum to zero, as the settlement does."""
    entries = [
        {"seat": 0, "column": "hill", "amount": 4},
        {"seat": 1, "column": "whists", "amount": 8, "on": 0},
        {"seat": 2, "column": "whists", "amount": 8, "on": 0},
        {"seat": 1, "column": "pool", "amount": 2},
    ]
    losses = [deal_loss(entries, 3, seat) for seat in range(3)]
    # the declarer: 10 * (4 - 4/3) + 16; each defender: 10 * (0 - 4/3) - 8
    assert losses == [Fraction(80, 3) + 16, Fraction(-40, 3) - 8, Fraction(-40, 3) - 8]
    assert sum(losses) == 0
    deals = [
        CostlyDeal(1, 1, n, Fraction(loss), {}, [])
        for n, loss in enumerate([5, -3, 40, 5, 0], start=1)
    ]
    assert [(d.deal_no, d.loss) for d in costliest(deals, 2)] == [(3, 40), (1, 5)]


async def test_the_members_page_sums_the_archive(
    logged_in: LoggedIn,
    db_session: AsyncSession,
    clock: FrozenClock,
    make_member: Callable[..., Awaitable[Member]],
    client: httpx.AsyncClient,
) -> None:
    anna, boris, vera, gleb = [await make_member(name=n) for n in ("Анна", "Борис", "Вера", "Глеб")]
    await finished_pulka(db_session, [anna, boris, vera], clock, ["misere", "6S"])
    await finished_pulka(db_session, [gleb, anna, boris], clock, ["7NT"])
    await finished_pulka(db_session, [anna, gleb, vera], clock, ["6S"], practice=True)
    viewer, _ = await logged_in()

    answer = await viewer.get(f"/api/members/{anna.id}/profile")
    assert answer.status_code == 200, answer.text
    page = answer.json()
    assert page["member"] == {"id": anna.id, "name": "Анна"}
    rows = (
        await db_session.execute(
            select(
                PulkaMemberStats.pulka_id,
                PulkaMemberStats.whists,
                PulkaMemberStats.money,
                PulkaStats.table_id,
            )
            .join(PulkaStats, PulkaStats.pulka_id == PulkaMemberStats.pulka_id)
            .where(PulkaMemberStats.member_id == anna.id, PulkaMemberStats.practice.is_(False))
            .order_by(PulkaMemberStats.pulka_id.desc())
        )
    ).all()
    assert page["pulkas_total"] == 2, "the practice pulka never counts"
    assert [
        (p["pulka_id"], Decimal(p["whists"]), Decimal(p["money"]), p["table_id"])
        for p in page["pulkas"]
    ] == [tuple(r) for r in rows]
    assert page["pulkas"][0]["players"] == ["Глеб", "Анна", "Борис"]
    assert page["pulkas"][0]["night"] == "2026-11-30" and not page["pulkas"][0]["left"]

    # Her rating over time: one point per rated pulka, the last her stored rating.
    stored = (await rating.ratings_of(db_session, [anna.id]))[anna.id]
    history = page["rating_history"]
    assert [h["pulka_id"] for h in history] == [r.pulka_id for r in reversed(rows)]
    assert (history[-1]["mu"], history[-1]["sigma"]) == (stored.mu, stored.sigma)
    assert page["rating"]["ordinal"] == stored.ordinal and page["rating"]["matches"] == 2
    assert history[0]["ordinal"] == history[0]["mu"] - 3 * history[0]["sigma"]

    # Head to head: Boris sat with her in both club pulkas, Vera in one (practice apart).
    lines = {line["member_id"]: line for line in page["head_to_head"]}
    assert set(lines) == {boris.id, vera.id, gleb.id}
    assert lines[boris.id]["pulkas"] == 2
    assert Decimal(lines[boris.id]["whists"]) == sum(r.whists for r in rows)
    assert Decimal(lines[boris.id]["money"]) == sum(r.money for r in rows)
    with_vera = next(r for r in rows if r.pulka_id == page["pulkas"][1]["pulka_id"])
    assert lines[vera.id]["pulkas"] == 1
    assert Decimal(lines[vera.id]["whists"]) == with_vera.whists
    assert page["head_to_head"][0]["member_id"] == boris.id, "the most pulkas together first"

    # Her costliest deals: losses only, the largest first, each opening in the replay.
    deals = page["costliest_deals"]
    losses = [Decimal(d["loss"]) for d in deals]
    assert all(loss > 0 for loss in losses) and losses == sorted(losses, reverse=True)
    club = {r.pulka_id for r in rows}
    assert {d["pulka_id"] for d in deals} <= club
    for deal in deals:
        assert re.fullmatch(r"\d+(\.\d\d)?", deal["loss"]), deal["loss"]  # never 1.2E+2
        assert len(deal["names"]) == 3 and anna.display_name in deal["names"]
        replay = await viewer.get(f"/api/pulkas/{deal['pulka_id']}/deals/{deal['deal_no']}")
        assert replay.status_code == 200, replay.text
    boris_page = (await viewer.get(f"/api/members/{boris.id}/profile")).json()
    vera_page = (await viewer.get(f"/api/members/{vera.id}/profile")).json()
    assert deals or boris_page["costliest_deals"] or vera_page["costliest_deals"], (
        "three scored deals: someone lost whists in one"
    )

    missing = await viewer.get(f"/api/members/{2**31 - 1}/profile")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert (await client.get(f"/api/members/{anna.id}/profile")).status_code == 401


async def test_stored_costly_deals_are_those_the_logs_give(
    logged_in: LoggedIn,
    db_session: AsyncSession,
    clock: FrozenClock,
    make_member: Callable[..., Awaitable[Member]],
) -> None:
    """Each pulka's stored dearest deals (``pulka_member_stats.costly``) give the page what
    weighing every deal again from the logs gives; a row of another version is weighed again."""
    anna, boris, vera = [await make_member(name=n) for n in ("Анна", "Борис", "Вера")]
    for contracts in (["misere", "6S", "7NT"], ["8H", "6C"], ["misere", "9D"]):
        await finished_pulka(db_session, [anna, boris, vera], clock, contracts)
    viewer, _ = await logged_in()
    members = (anna, boris, vera)

    async def pages() -> list[list[dict[str, object]]]:
        return [
            (await viewer.get(f"/api/members/{m.id}/profile")).json()["costliest_deals"]
            for m in members
        ]

    stored = await pages()
    assert any(stored), "seven scored deals: someone lost whists"
    kept = (await db_session.scalars(select(PulkaMemberStats.costly))).all()
    assert len(kept) == 9 and all(k is not None and k["version"] == 1 for k in kept)

    await db_session.execute(update(PulkaMemberStats).values(costly=None))
    assert await pages() == stored, "weighed from the logs"
    await db_session.execute(update(PulkaMemberStats).values(costly={"version": 99, "deals": []}))
    assert await pages() == stored, "a list of another version is weighed again"
