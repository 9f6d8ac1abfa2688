"""The screen for the room never carries a hidden card (issue 27): two club tables of bots play
over real sockets while the room screen's endpoint is asked again and again; every table in
every answer is checked against the deal as it stood at the answer's ``seq`` with the same
independent list of forbidden cards the seats' leak test uses (tests/e2e/test_leaks.py)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from app.bots.client import BotClient
from app.bots.harness import Seat
from app.bots.strategy import Strategy
from app.rules.core.cards import card_text, parse_card
from tests.e2e.test_leaks import _states, forbidden
from tests.support.live_servers import card_tokens, setup_table
from tests.support.server import ServerProcess

pytestmark = pytest.mark.e2e

DEALS = 5
"""Deals each table plays while the screen watches."""


async def _club_tables(url: str) -> tuple[list[tuple[int, list[Seat]]], str]:
    """Two club (not practice) tables of three fresh members each, and a viewer's cookie."""
    tables = []
    viewer = ""
    for t in range(2):
        table_id, seats, watchers = await setup_table(
            url, 3, target=100, first_dealer=t, spectators=1, practice=False
        )
        tables.append((table_id, seats))
        viewer = watchers[0].cookie
    return tables, viewer


async def test_the_room_screen_never_shows_a_hidden_card(srv: ServerProcess, live_db: str) -> None:
    tables, cookie = await _club_tables(live_db)
    ids = {table_id for table_id, _ in tables}
    bots = [
        BotClient(
            f"ws://127.0.0.1:{srv.port}",
            table_id,
            seat.cookie,
            srv.base_url,
            strategy=Strategy(random.Random(table_id * 10 + i)),
            max_deals=DEALS,
            name=f"t{table_id}s{i}",
        )
        for table_id, seats in tables
        for i, seat in enumerate(seats)
    ]
    answers: list[dict[str, Any]] = []
    done = asyncio.Event()

    async def watch() -> None:
        async with httpx.AsyncClient(base_url=srv.base_url, headers={"Cookie": cookie}) as tv:
            while not done.is_set():
                response = await tv.get("/api/room")
                assert response.status_code == 200, response.text
                answers.append(response.json())
                await asyncio.sleep(0.02)

    runs = [asyncio.create_task(b.run()) for b in bots]
    watcher = asyncio.create_task(watch())
    try:
        await asyncio.wait_for(asyncio.gather(*(b.finished.wait() for b in bots)), 120)
    finally:
        done.set()
        for b in bots:
            b.stop()
        await asyncio.gather(*runs, return_exceptions=True)
        await watcher

    states = {table_id: await _states(live_db, table_id) for table_id in ids}
    checked = in_play = 0
    for answer in answers:
        # The standings slide carries names and figures, never a card.
        assert set(answer) == {"tables", "standings"}
        assert set(answer["standings"]) == {"season", "min_pulkas", "lines"}
        assert card_tokens(answer["standings"]) == set(), answer["standings"]
        for entry in answer["tables"]:
            if entry["table_id"] not in ids:
                continue
            state = states[entry["table_id"]][entry["seq"]]
            shown = {parse_card(c) for c in card_tokens(entry)}
            secret = forbidden(state, None)
            leaked = sorted(card_text(c) for c in shown if secret >> c & 1)
            assert not leaked, (entry["table_id"], entry["seq"], entry["deal"]["phase"], leaked)
            checked += 1
            phase = entry["deal"]["phase"] if entry["deal"] else None
            in_play += phase in ("auction", "play", "defence", "talon", "discard", "contract")
    assert checked > 50 and in_play > 30
    assert all(max(s.pulka.deal_index for s in states[t].values()) >= DEALS for t in ids)
