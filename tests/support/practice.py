"""A member at a practice table, as the practice tests drive one: the member is made in the
database, logs in over HTTP, opens the table and plays seat 0 with a :class:`Strategy` through
the public websocket protocol while house bots play the other seats."""

from __future__ import annotations

import uuid
from typing import Any

from app.bots.strategy import Strategy
from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models.member import Member
from app.security.passwords import hash_password
from tests.support import local_http
from tests.support.live_servers import Client
from tests.support.server import ServerProcess

PASSWORD = "correct horse battery"


async def add_member(url: str, prefix: str, display_name: str) -> str:
    """A fresh active member (password :data:`PASSWORD`); returns the login."""
    login = f"{prefix}-{uuid.uuid4().hex[:6]}"
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            db.add(
                Member(
                    login=login,
                    display_name=display_name,
                    password_hash=hash_password(PASSWORD),
                    must_change_password=False,
                    active=True,
                )
            )
    finally:
        await engine.dispose()
    return login


async def open_practice(
    srv: ServerProcess, login: str, preset: str | None = None
) -> tuple[int, str]:
    """Log ``login`` in and open a three-player practice table (under ``preset``, else the
    server's default); returns the table's id and the member's cookie header."""
    body: dict[str, Any] = {"players": 3} if preset is None else {"players": 3, "preset": preset}
    async with local_http.async_client(base_url=srv.base_url) as http:
        r = await http.post("/api/auth/login", json={"login": login, "password": PASSWORD})
        assert r.status_code == 200, r.text
        made = await http.post(
            "/api/tables/practice", json=body, headers={"X-CSRF-Token": r.json()["csrf_token"]}
        )
        assert made.status_code == 201, made.text
        return made.json()["id"], "; ".join(f"{k}={v}" for k, v in http.cookies.items())


async def play_first_deal(me: Client, strategy: Strategy, moves: int = 400) -> dict[str, Any]:
    """Play seat 0 until the first deal ends (at most ``moves`` turns); returns its
    ``deal_ended`` message."""
    for _ in range(moves):
        ended = next((m for m in me.messages if m.get("type") == "deal_ended"), None)
        if ended is not None:
            return ended
        latest = me.latest
        assert latest is not None
        body = strategy.choose(latest, latest["legal"], 0) if latest["legal"] else None
        if body is not None:
            answer = await me.command(body)
            assert answer["type"] in ("ack", "error")
        else:
            seq = latest["seq"]
            await me.wait_for(lambda m, s=seq: "deal" in m and m["seq"] > s, timeout=20)
    raise AssertionError(f"the first deal did not end within {moves} turns")
