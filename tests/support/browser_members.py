"""Members made straight in a served process's database, for the browser tests to log in as."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, Role
from app.security.passwords import hash_password


async def add_members(url: str, members: Sequence[tuple[str, str, Role]], password: str) -> None:
    """Add ``(login, display name, role)`` members with ``password`` (no change required)."""
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as db:
            db.add_all(
                [
                    Member(
                        login=login,
                        display_name=name,
                        role=role,
                        password_hash=hash_password(password),
                        must_change_password=False,
                        active=True,
                        is_bot=False,
                    )
                    for login, name, role in members
                ]
            )
    finally:
        await engine.dispose()


async def table_members(
    db: AsyncSession, prefix: str, names: Sequence[str], password: str
) -> list[int]:
    """Members ``<prefix>0``, ``<prefix>1`` … named ``names`` (their ids, in order), for a table's
    seats: the first can log in with ``password``, the others have no password."""
    members = [
        Member(
            login=f"{prefix}{i}",
            display_name=name,
            role=Role.member,
            password_hash=hash_password(password) if i == 0 else None,
            must_change_password=False,
            active=True,
            is_bot=False,
        )
        for i, name in enumerate(names)
    ]
    db.add_all(members)
    await db.flush()
    return [m.id for m in members]
