"""The first start: an empty club gets one admin with a one-time password."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Member, Role
from app.security.passwords import hash_password, one_time_password
from app.services import audit

FIRST_ADMIN_LOGIN = "admin"
FIRST_ADMIN_NAME = "Администратор"
"""The first admin's name as the sheets and the lists show it (the club reads Russian; he may
rename himself on the members' page)."""


@dataclass(frozen=True)
class FirstAdmin:
    """The credentials printed once for the operator."""

    login: str
    password: str


async def ensure_first_admin(session: AsyncSession) -> FirstAdmin | None:
    """Create the first admin when the club has no members; return its one-time credentials."""
    count = await session.scalar(select(func.count()).select_from(Member))
    if count:
        return None
    password = one_time_password()
    member = Member(
        login=FIRST_ADMIN_LOGIN,
        display_name=FIRST_ADMIN_NAME,
        role=Role.admin,
        password_hash=hash_password(password),
        must_change_password=True,
    )
    session.add(member)
    await session.flush()
    await audit.record(
        session,
        actor=None,
        action="member.created",
        target=f"member:{member.id}",
        before=None,
        after={
            "login": member.login,
            "display_name": member.display_name,
            "role": member.role,
            "by": "first start",
        },
    )
    return FirstAdmin(login=FIRST_ADMIN_LOGIN, password=password)
