"""Luck apart from skill on a live server (issue 27, docs/luck.md): with the background pass
on (``PREFCLUB_LUCK=1``), bots play a club table over real sockets and every deal that ends is
weighed by the server itself — its analysis and luck rows written in the analysis pool — within
seconds, while the next deal is played; a practice table beside it is never weighed."""

from __future__ import annotations

import asyncio
import random
import time
from decimal import Decimal
from pathlib import Path

import httpx
import psycopg
import pytest

from app.bots.client import BotClient
from app.bots.strategy import Strategy
from app.db.pgtools import libpq_url
from tests.support.live_servers import server, setup_table

pytestmark = pytest.mark.e2e

DEALS = 3
WEIGHED_WITHIN = 60.0
"""Seconds a finished deal may wait for its rows: the pass idles 5 s, an analysis takes a few
seconds of one worker (more on a loaded two-core machine)."""


def _weighed(url: str) -> dict[int, set[int]]:
    """The deals with luck rows, by table."""
    with psycopg.connect(libpq_url(url)) as conn:
        out: dict[int, set[int]] = {}
        for table_id, deal_no in conn.execute("SELECT DISTINCT table_id, deal_no FROM deal_luck"):
            out.setdefault(int(table_id), set()).add(int(deal_no))
        return out


def _ended(url: str, table_id: int) -> int:
    with psycopg.connect(libpq_url(url)) as conn:
        row = conn.execute(
            "SELECT count(*) FROM table_events WHERE table_id = %s AND kind = 'deal_ended'",
            (table_id,),
        ).fetchone()
        return int(row[0]) if row else 0


async def test_each_finished_club_deal_is_weighed_by_the_server(
    live_db: str, data_dir: Path
) -> None:
    club_id, club_seats, _ = await setup_table(live_db, 3, practice=False)
    practice_id, practice_seats, _ = await setup_table(live_db, 3)
    srv = server(live_db, data_dir, log_name="luck-live.log")
    srv.env["PREFCLUB_LUCK"] = "1"
    srv.start()
    try:
        bots = [
            BotClient(
                f"ws://127.0.0.1:{srv.port}",
                table_id,
                seat.cookie,
                srv.base_url,
                strategy=Strategy(random.Random(t * 10 + i)),
                max_deals=DEALS,
                name=f"luck{t}s{i}",
            )
            for t, (table_id, seats) in enumerate(
                [(club_id, club_seats), (practice_id, practice_seats)]
            )
            for i, seat in enumerate(seats)
        ]
        await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 300)
        ended = _ended(live_db, club_id)
        assert ended >= DEALS
        deadline = time.monotonic() + WEIGHED_WITHIN
        while len(_weighed(live_db).get(club_id, ())) < ended:
            assert time.monotonic() < deadline, f"weighed {_weighed(live_db)} of {ended} deals"
            await asyncio.sleep(0.5)
        weighed = _weighed(live_db)
        assert weighed[club_id] == set(range(1, ended + 1))
        assert practice_id not in weighed
        cookie = club_seats[0].cookie
        async with httpx.AsyncClient(base_url=srv.base_url, headers={"Cookie": cookie}) as api:
            progress = (await api.get("/api/luck/progress")).json()
            assert progress == {"deals": ended, "weighed": ended}
            mine = (await api.get(f"/api/members/{club_seats[0].member_id}/luck")).json()
            assert mine["totals"]["deals"] == ended
            parts = sum(Decimal(mine["totals"][k]) for k in ("bidding", "defence", "play"))
            assert Decimal(mine["totals"]["lost"]) == parts
    finally:
        srv.stop()
