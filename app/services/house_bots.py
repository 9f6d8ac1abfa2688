"""The club's house-bot accounts: the members ``bot-1`` … that fill the other seats of practice
tables, and the sessions their clients connect with.

These are data of the club (member rows and sessions), so they live in the services layer: the
practice-table service (:mod:`app.services.forming`) seats them and the bot runner
(:mod:`app.bots.runner`, which plays them over the public socket) opens their sessions through
them — services never import the bots.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models.member import Member, Role
from app.security.login_sessions import SESSION_COOKIE, open_session
from app.services.service_errors import ConflictError

BOT_SESSION_HOURS = 24


async def bot_members(db: AsyncSession, count: int) -> list[Member]:
    """The club's house bots ``bot-1`` … (created on first use).

    Created race-free: ``INSERT ... ON CONFLICT (login) DO NOTHING`` then a ``SELECT``, so
    concurrent first practice tables (separate transactions) all find the same bots instead of
    failing on the unique login. A human member who already owns such a login is never
    seated as a bot."""
    logins = [f"bot-{i}" for i in range(1, count + 1)]
    await db.execute(
        pg_insert(Member)
        .values(
            [
                {
                    "login": login,
                    "display_name": f"Бот {i}",
                    "role": Role.member,
                    "is_bot": True,
                    "active": True,
                    "must_change_password": False,
                }
                for i, login in enumerate(logins, start=1)
            ]
        )
        .on_conflict_do_nothing(index_elements=[Member.login])
    )
    rows = {m.login: m for m in await db.scalars(select(Member).where(Member.login.in_(logins)))}
    out = []
    for login in logins:
        member = rows[login]
        if not member.is_bot:
            raise ConflictError(
                f"the house bot login {login} belongs to a member: rename that member",
                code="house_bot_login_taken",
            )
        out.append(member)
    return out


async def bot_cookie(db: AsyncSession, member: Member, now: datetime) -> str:
    """A fresh session for a house bot, as the ``Cookie`` header value its client sends."""
    token, _ = await open_session(db, member, now, BOT_SESSION_HOURS)
    return f"{SESSION_COOKIE}={token}"
