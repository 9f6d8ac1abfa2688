"""A member opens a practice table over HTTP; house bots fill the other seats and play."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import httpx
import pytest

from app.bots.strategy import Strategy
from app.db.models.member import Member
from app.db.session import make_engine, make_sessionmaker, session_scope
from app.security.passwords import hash_password
from tests.e2e.support import Client, server

pytestmark = pytest.mark.e2e


async def test_practice_table_with_house_bots(live_db: str, data_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFCLUB_BOT_THINK", "0")
    login = f"human-{uuid.uuid4().hex[:6]}"
    engine = make_engine(live_db)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            db.add(Member(login=login, display_name="Человек", password_hash=hash_password(
                "correct horse battery"), must_change_password=False, active=True))
    finally:
        await engine.dispose()
    srv = server(live_db, data_dir, log_name="practice.log").start()
    try:
        async with httpx.AsyncClient(base_url=srv.base_url) as http:
            r = await http.post("/api/auth/login", json={"login": login,
                                                         "password": "correct horse battery"})
            assert r.status_code == 200, r.text
            csrf = r.json()["csrf_token"]
            made = await http.post("/api/tables/practice", json={"players": 3},
                                   headers={"X-CSRF-Token": csrf})
            assert made.status_code == 201, made.text
            table_id = made.json()["id"]
            cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        me = Client(srv, table_id, cookie)
        welcome = await me.connect()
        assert welcome["seat"] == 0
        await me.wait_for(lambda m: m.get("type") == "presence" and m["connected"] == [0, 1, 2])
        strategy = Strategy(random.Random(1))
        for _ in range(400):
            if any(m.get("type") == "deal_ended" for m in me.messages):
                break
            latest = me.latest
            assert latest is not None
            body = strategy.choose(latest, latest["legal"], 0) if latest["legal"] else None
            if body is not None:
                answer = await me.command(body)
                assert answer["type"] in ("ack", "error")
            else:
                seq = latest["seq"]
                await me.wait_for(lambda m, s=seq: "deal" in m and m["seq"] > s, timeout=20)
        ended = next(m for m in me.messages if m.get("type") == "deal_ended")
        assert ended["data"]["deal_no"] == 1
        await me.close()
    finally:
        srv.stop()
