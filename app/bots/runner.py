"""House bots that fill the other seats of practice tables, run inside the server process.

They are ordinary :class:`~app.bots.client.BotClient` s: they connect to this very server over
its public socket, with their own sessions, exactly as any other client would. A bot seat whose
runner is gone (the process stopped) simply waits, like a disconnected player.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.bots.client import BotClient
from app.bots.strategy import Strategy
from app.db.models.member import Member, Role
from app.security.sessions import SESSION_COOKIE, open_session

log = logging.getLogger(__name__)

BOT_POOL = 3
THINK_SECONDS = float(os.environ.get("PREFCLUB_BOT_THINK", "0.4"))
"""How long a house bot pauses before each move (so people can follow the table)."""


async def bot_members(db: AsyncSession, count: int) -> list[Member]:
    """The club's house bots ``bot-1`` … (created on first use)."""
    out = []
    for i in range(1, count + 1):
        login = f"bot-{i}"
        member = await db.scalar(select(Member).where(Member.login == login))
        if member is None:
            member = Member(login=login, display_name=f"Бот {i}", role=Role.member, is_bot=True,
                            active=True, must_change_password=False)
            db.add(member)
            await db.flush()
        out.append(member)
    return out


async def bot_cookie(db: AsyncSession, member: Member, now: datetime) -> str:
    token, _ = await open_session(db, member, now, 24)
    return f"{SESSION_COOKIE}={token}"


class BotRunner:
    """The bot clients this process runs, per table."""

    def __init__(self, port: int) -> None:
        self.base_ws = f"ws://127.0.0.1:{port}"
        self.origin = f"http://127.0.0.1:{port}"
        self.tasks: dict[int, list[asyncio.Task[None]]] = {}

    def spawn(self, table_id: int, cookies: list[str]) -> None:
        tasks = []
        for index, cookie in enumerate(cookies):
            bot = BotClient(self.base_ws, table_id, cookie, self.origin,
                            strategy=Strategy(random.Random()), name=f"house{table_id}-{index}",
                            think=THINK_SECONDS)
            tasks.append(asyncio.create_task(self._run(bot), name=f"bot-{table_id}-{index}"))
        self.tasks.setdefault(table_id, []).extend(tasks)

    async def _run(self, bot: BotClient) -> None:
        for _ in range(5):
            try:
                await bot.run()
                return
            except asyncio.CancelledError:
                raise
            except Exception:  # refused (e.g. the table is not committed yet): try again
                log.warning("house bot could not join", extra={"table": bot.table_id})
                await asyncio.sleep(0.5)

    async def stop(self) -> None:
        tasks = [t for ts in self.tasks.values() for t in ts]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self.tasks.clear()


def start_house_bots(app: Any, table_id: int, cookies: list[str]) -> None:
    """Connect the house bots of a committed practice table (one runner per app; a test may
    set ``app.state.bot_runner`` to anything with a ``spawn(table_id, cookies)`` method)."""
    runner = getattr(app.state, "bot_runner", None)
    if runner is None:
        runner = BotRunner(app.state.settings.port)
        app.state.bot_runner = runner
    runner.spawn(table_id, cookies)
