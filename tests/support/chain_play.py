"""Committed deals for the chain-of-deals tests: tables created and played through the real
services on a scratch database (the chain is written at commit, so nothing here rolls back)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.engine import session_scope
from app.db.models import Member, Role
from app.services.tables import create_table
from tests.support.archive_play import play_deal

Sessions = async_sessionmaker[AsyncSession]


async def new_members(
    sessions: Sessions, prefix: str, n: int = 3, password_hash: str | None = None
) -> list[int]:
    """``n`` committed members ``<prefix>0`` ...; the first one gets ``password_hash``."""
    async with session_scope(sessions) as db:
        members = [
            Member(
                login=f"{prefix}{i}",
                display_name=f"Игрок {prefix} {i + 1}",
                role=Role.member,
                password_hash=password_hash if i == 0 else None,
                must_change_password=False,
                active=True,
                is_bot=False,
            )
            for i in range(n)
        ]
        db.add_all(members)
        await db.flush()
        return [m.id for m in members]


async def new_table(sessions: Sessions, member_ids: list[int], now: datetime | None = None) -> int:
    """A committed practice table of ``member_ids`` (its first deal dealt); returns its id."""
    async with session_scope(sessions) as db:
        table = await create_table(
            db,
            seat_member_ids=list(member_ids),
            practice=True,
            target=30,
            now=now or datetime.now(UTC),
        )
        return table.id


async def play_deals(sessions: Sessions, table_id: int, member_ids: list[int], deals: int) -> None:
    """Play ``deals`` deals of the table to their end, each command committed; the next deal
    is dealt after each."""
    for _ in range(deals):
        async with session_scope(sessions) as db:
            await play_deal(db, table_id, member_ids, datetime.now(UTC))
