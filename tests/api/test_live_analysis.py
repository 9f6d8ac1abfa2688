"""The deal analysis on a live table (issue 15, docs/analysis.md "Live tables"): a deal that has
just ended at a table still being played is analysed for its players; while it is in play it is
refused with ``deal_not_over`` (R-W8) and nothing is computed; outsiders are refused as the
archive refuses them (the same rule: any logged-in member may read a finished deal)."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.clock import FrozenClock
from app.db.models import DealAnalysis
from app.realtime.store import rebuild
from app.rules.core.cards import parse_card
from app.rules.search.deal_analysis import makeable_table
from app.services.tables import create_table
from tests.api.conftest import LoggedIn
from tests.support.archive_play import play_deal


async def _rows(db: AsyncSession, table_id: int) -> int:
    return int(
        await db.scalar(
            select(func.count()).select_from(DealAnalysis).where(DealAnalysis.table_id == table_id)
        )
        or 0
    )


async def _close_pool(app: FastAPI) -> None:
    pool = getattr(app.state, "analysis_pool", None)
    if pool is not None:
        await pool.aclose()


async def _three_tricks_in(state: Any) -> bool:
    """Stop the deal in the middle of the play: three tricks taken, seven to go."""
    return bool(state.deal is not None and state.deal.tricks_done >= 3)


async def test_a_live_deal_is_analysed_for_its_players_only_once_it_ended(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    """R-W8: deal 1 of a live practice table is refused (409 ``deal_not_over``) to its own
    players in the middle of its play, with no worker started and nothing stored; once it has
    ended (deal 2 now running) every seated player gets the same analysis of it."""
    players: list[tuple[httpx.AsyncClient, Any]] = [
        await logged_in(name=name) for name in ("Анна", "Борис", "Вера")
    ]
    ids = [member.id for _, member in players]
    table = await create_table(
        db_session,
        seat_member_ids=list(ids),
        practice=True,
        target=10,
        first_dealer=0,
        now=clock.now(),
    )
    first = players[0][0]
    pulka_id = int((await first.get(f"/api/tables/{table.id}")).json()["pulka"]["id"])
    url = f"/api/pulkas/{pulka_id}/deals/1/analysis"

    assert await play_deal(db_session, table.id, ids, clock.now(), stop=_three_tricks_in) == 1
    state = await rebuild(db_session, table.id)
    assert state is not None and state.deal_no == 1 and state.deal is not None
    assert not state.deal.finished and state.deal.tricks_done == 3  # really in the play
    for client, _ in players:
        running = await client.get(url)
        assert running.status_code == 409, running.text
        assert running.json()["code"] == "deal_not_over" and "R-W8" in running.json()["detail"]
        replay = await client.get(f"/api/pulkas/{pulka_id}/deals/1")  # the hands stay hidden too
        assert replay.status_code == 409 and replay.json()["code"] == "deal_not_over"
    assert not app.state.analysis_pool.started  # no worker was even started
    assert await _rows(db_session, table.id) == 0

    assert await play_deal(db_session, table.id, ids, clock.now(), prefix="rest") == 1
    state = await rebuild(db_session, table.id)
    assert state is not None and state.deal_no == 2 and state.status == "playing"
    try:
        answers = [await client.get(url) for client, _ in players]
    finally:
        await _close_pool(app)
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    result = answers[0].json()
    assert all(a.json() == result for a in answers)
    assert result["deal_no"] == 1 and result["table_id"] == table.id
    deal = (await first.get(f"/api/pulkas/{pulka_id}/deals/1")).json()
    hands = [sum(1 << parse_card(c) for c in deal["dealt"][str(s)]) for s in deal["active"]]
    expected = makeable_table((hands[0], hands[1], hands[2]))
    assert result["seats"] == deal["active"]
    for position, seat in enumerate(deal["active"]):
        assert result["makeable"][str(seat)] == expected[position]
    assert result["contract"]["taken"] == deal["tricks_taken"][str(deal["declarer"])]
    assert await _rows(db_session, table.id) == 1
    # the deal now being played is still refused
    current = await first.get(f"/api/pulkas/{pulka_id}/deals/2/analysis")
    assert current.status_code == 409 and current.json()["code"] == "deal_not_over"


async def test_outsiders_are_refused_the_live_analysis_as_the_archive_refuses_them(
    app: FastAPI, logged_in: LoggedIn, db_session: AsyncSession, clock: FrozenClock
) -> None:
    """Who may read a finished deal is the archive's rule, live or not: nobody who is not
    logged in (401 ``not_authenticated``), nobody who must still change his one-time password
    (403 ``forbidden``); the analysis and the replay answer alike, and nothing is computed."""
    players = [await logged_in(name=name) for name in ("Анна", "Борис", "Вера")]
    ids = [member.id for _, member in players]
    table = await create_table(
        db_session,
        seat_member_ids=list(ids),
        practice=True,
        target=10,
        first_dealer=0,
        now=clock.now(),
    )
    assert await play_deal(db_session, table.id, ids, clock.now()) == 1
    pulka_id = int((await players[0][0].get(f"/api/tables/{table.id}")).json()["pulka"]["id"])
    paths = [f"/api/pulkas/{pulka_id}/deals/1/analysis", f"/api/pulkas/{pulka_id}/deals/1"]
    pending, _ = await logged_in(must_change_password=True)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as anonymous:
        for path in paths:
            answer = await anonymous.get(path)
            assert answer.status_code == 401 and answer.json()["code"] == "not_authenticated"
            answer = await pending.get(path)
            assert answer.status_code == 403 and answer.json()["code"] == "forbidden"
    assert not app.state.analysis_pool.started
    assert await _rows(db_session, table.id) == 0
    # the players themselves see the finished deal's replay (the analysis: the test above)
    assert (await players[1][0].get(paths[1])).status_code == 200
