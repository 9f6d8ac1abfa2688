"""Setting up bot tables and measuring them (used by ``prefclub selfplay``, tests and bench).

Bots are members with ``is_bot`` set; they cannot log in with a password, so their sessions are
opened directly with the same session service the login uses.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.bots.client import BotClient
from app.db.models.member import Member, Role
from app.security.login_sessions import SESSION_COOKIE, open_session
from app.services.tables import create_table

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Seat:
    member_id: int
    login: str
    cookie: str


async def make_member(
    db: AsyncSession,
    login: str,
    name: str,
    now: datetime,
    *,
    bot: bool = True,
    role: Role = Role.member,
) -> Seat:
    """A member with an open session; returns his ``Cookie`` header value."""
    member = Member(
        login=login,
        display_name=name,
        role=role,
        is_bot=bot,
        active=True,
        must_change_password=False,
    )
    db.add(member)
    await db.flush()
    token, _ = await open_session(db, member, now, 24)
    return Seat(member.id, login, f"{SESSION_COOKIE}={token}")


async def make_bot_table(
    db: AsyncSession,
    prefix: str,
    players: int,
    now: datetime,
    *,
    preset: str = "club",
    target: int = 100,
    first_dealer: int = 0,
    move_timer_seconds: int | None = None,
    practice: bool = True,
) -> tuple[int, list[Seat]]:
    """A practice table (or, with ``practice=False``, a club table outside any session) of
    ``players`` fresh bot members; returns its id and seats."""
    seats = [
        await make_member(db, f"{prefix}-{i}", f"Bot {prefix} {i + 1}", now) for i in range(players)
    ]
    table = await create_table(
        db,
        seat_member_ids=[s.member_id for s in seats],
        preset=preset,
        practice=practice,
        club_session_id=None,
        target=target,
        first_dealer=first_dealer,
        move_timer_seconds=move_timer_seconds,
        now=now,
    )
    return table.id, seats


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0}
    data = sorted(values)

    def pick(q: float) -> float:
        return round(data[min(len(data) - 1, int(q * len(data)))], 2)

    return {"p50": pick(0.50), "p95": pick(0.95), "p99": pick(0.99)}


def all_seats_latencies(bots: list[BotClient]) -> list[float]:
    """Command → every seat at the table has the resulting ``seq`` (ms), per command."""
    out = []
    for bot in bots:
        for sent_at, seq in bot.stats.sent:
            arrivals = [b.stats.seen_at.get(seq) for b in bots]
            if all(a is not None for a in arrivals):
                out.append((max(a for a in arrivals if a is not None) - sent_at) * 1000)
    return out


class ServeProcess:
    """``prefclub serve`` in a child process on ``port`` (for selfplay and bench)."""

    def __init__(
        self, database_url: str, data_dir: Path, port: int, log_path: Path | None = None
    ) -> None:
        self.port = port
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "PREFCLUB_DATA_DIR": str(data_dir),
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "LOG_LEVEL": "WARNING",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(48),
            # Every bot connects from 127.0.0.1: the per-address caps meant for the public
            # (docs/security.md) would close a load generator's own sockets.
            "INCOMPLETE_PER_ADDRESS": "0",
            "WS_PER_ADDRESS": "1000000",
        }
        self.log_path = log_path or data_dir / f"serve-{port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    async def start(self, timeout: float = 60.0) -> None:
        # Optional feature, imported lazily on purpose: httpx comes with the [test] extra (and
        # the selfplay command); the rest of the harness loads without it.
        import httpx

        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve"],
            cwd=PROJECT_ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        async with httpx.AsyncClient() as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(
                        "the server exited early:\n" + self.log_path.read_text(errors="replace")
                    )
                try:
                    if (await client.get(f"{self.origin}/readyz", timeout=1)).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.2)
        self.stop()
        raise TimeoutError("the server did not become healthy")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def summary_latency(bots: list[BotClient], groups: list[list[BotClient]]) -> dict[str, Any]:
    acks = [ms for b in bots for ms in b.stats.ack_ms]
    every = [ms for g in groups for ms in all_seats_latencies(g)]
    return {"ack": percentiles(acks), "all_seats": percentiles(every)}
