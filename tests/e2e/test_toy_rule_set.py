"""The toy rule set of tests/toy at a live practice table (issue 25): a server started with it
registered (``python -m tests.toy.serve_with_toy serve``, no file of app/ changed) lists it in
``GET /api/presets``, opens a practice table under it, its house bots and a member play a deal
over the websocket, and the pulka's ``pulka/1`` record carries the toy's own sheet entry and
re-scores to the server's sheet."""

from __future__ import annotations

import random
from pathlib import Path

import httpx
import pytest

from app.bots.strategy import Strategy
from app.rules import score_document
from tests.support.live_servers import Client, server
from tests.support.practice import add_member, open_practice, play_first_deal
from tests.toy.toy_rules import TOY_RULE, register_toy, withdraw_toy

pytestmark = pytest.mark.e2e


async def test_a_toy_practice_table_plays_a_deal(
    live_db: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFCLUB_BOT_THINK", "0")
    login = await add_member(live_db, "toy", "Игрок")
    srv = server(live_db, data_dir, log_name="toy.log", module="tests.toy.serve_with_toy")
    srv.start()
    try:
        async with httpx.AsyncClient(base_url=srv.base_url) as http:
            presets = (await http.get("/api/presets")).json()["presets"]
            assert "toy" in [p["name"] for p in presets]
        table_id, cookie = await open_practice(srv, login, preset="toy")
        me = Client(srv, table_id, cookie)
        welcome = await me.connect()
        assert welcome["seat"] == 0
        await me.wait_for(lambda m: m.get("type") == "presence" and m["connected"] == [0, 1, 2])
        await play_first_deal(me, Strategy(random.Random(1)))
        await me.close()
        async with httpx.AsyncClient(base_url=srv.base_url, headers={"Cookie": cookie}) as http:
            pulka = await http.get(f"/api/tables/{table_id}/pulka")
        assert pulka.status_code == 200, pulka.text
        record = pulka.json()["record"]
    finally:
        srv.stop()
    assert record["conventions"] == {"preset": "toy"} and len(record["deals"]) >= 1
    register_toy()  # this process scores the record the server wrote
    try:
        score = score_document(record)
    finally:
        withdraw_toy()
    assert [e for e in score["entries"] if e["rule"] == TOY_RULE]
    assert score["entries"][-1]["rule"] == TOY_RULE
