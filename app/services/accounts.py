"""Member accounts: creation by the admin, profile and password changes, one-time reset links,
deactivation. Every change that ends a member's access also ends his sessions."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Member, PasswordResetToken, Role
from app.security.passwords import (
    hash_password_async,
    one_time_password,
    verify_password_async,
)
from app.security.sessions import revoke_member_sessions, token_hash
from app.services.errors import ConflictError, ForbiddenError, NotFoundError, ServiceError

RESET_TTL = timedelta(hours=48)
MIN_PASSWORD = 8


def normalise_login(login: str) -> str:
    """Logins are case-insensitive: stored stripped and lower-case."""
    return login.strip().lower()


def check_password_rules(password: str) -> None:
    """A new password must be at least 8 characters."""
    if len(password) < MIN_PASSWORD:
        raise ServiceError(f"the password must be at least {MIN_PASSWORD} characters long",
                           status=422)


async def get_member(db: AsyncSession, member_id: int) -> Member:
    """The member with ``member_id`` or a 404."""
    member = await db.get(Member, member_id)
    if member is None:
        raise NotFoundError(f"no member {member_id}")
    return member


async def create_member(
    db: AsyncSession, *, login: str, display_name: str, role: Role
) -> tuple[Member, str]:
    """Create an account with a one-time password (to be changed at first login)."""
    login = normalise_login(login)
    if await db.scalar(select(Member.id).where(Member.login == login)):
        raise ConflictError(f"login {login!r} is already taken")
    password = one_time_password()
    member = Member(login=login, display_name=display_name.strip(), role=role,
                    password_hash=await hash_password_async(password), must_change_password=True,
                    active=True, is_bot=False)
    db.add(member)
    await db.flush()
    return member, password


async def _active_admins(db: AsyncSession) -> int:
    return int(await db.scalar(
        select(func.count()).select_from(Member)
        .where(Member.role == Role.admin, Member.active.is_(True))
    ) or 0)


async def update_member(
    db: AsyncSession, member: Member, *, display_name: str | None, role: Role | None
) -> Member:
    """The admin changes a member's name or role; the club always keeps an active admin."""
    if role is not None and role != member.role:
        if member.role == Role.admin and member.active and await _active_admins(db) <= 1:
            raise ConflictError("the club must keep at least one active admin")
        member.role = role
    if display_name is not None:
        member.display_name = display_name.strip()
    await db.flush()
    return member


async def set_active(db: AsyncSession, member: Member, active: bool, now: datetime) -> Member:
    """Deactivate (history stays, sessions die, login refused) or reactivate a member."""
    if not active and member.active:
        if member.role == Role.admin and await _active_admins(db) <= 1:
            raise ConflictError("the club must keep at least one active admin")
        await revoke_member_sessions(db, member.id, now)
    member.active = active
    await db.flush()
    return member


async def change_password(
    db: AsyncSession, member: Member, current: str, new: str, now: datetime, keep_session: int
) -> None:
    """The member changes his own password; his other sessions end."""
    if not await verify_password_async(current, member.password_hash):
        raise ForbiddenError("the current password is wrong")
    check_password_rules(new)
    if current == new:
        raise ServiceError("the new password must differ from the current one", status=422)
    member.password_hash = await hash_password_async(new)
    member.must_change_password = False
    await revoke_member_sessions(db, member.id, now, keep=keep_session)
    await db.flush()


async def issue_reset_link(
    db: AsyncSession, member: Member, by: Member, now: datetime
) -> tuple[str, datetime]:
    """A one-time reset token (older unused ones of the member stop working)."""
    if not member.active:
        raise ConflictError("the member is deactivated; reactivate him first")
    await db.execute(
        update(PasswordResetToken)
        .where(PasswordResetToken.member_id == member.id, PasswordResetToken.used_at.is_(None),
               PasswordResetToken.expires_at > now)
        .values(expires_at=now)
    )
    token = secrets.token_urlsafe(32)
    expires = now + RESET_TTL
    db.add(PasswordResetToken(member_id=member.id, created_by_id=by.id,
                              token_hash=token_hash(token), expires_at=expires))
    await db.flush()
    return token, expires


async def reset_password(db: AsyncSession, token: str, new: str, now: datetime) -> Member:
    """Use a reset token once: set the new password and end the member's sessions."""
    row = await db.scalar(
        select(PasswordResetToken).where(PasswordResetToken.token_hash == token_hash(token))
        .with_for_update()
    )
    if row is None or row.used_at is not None or row.expires_at <= now:
        raise ServiceError("this reset link is invalid, used or expired; ask the admin for a new "
                           "one", status=400)
    member = await get_member(db, row.member_id)
    if not member.active:
        raise ServiceError("this account is deactivated", status=403)
    check_password_rules(new)
    row.used_at = now
    member.password_hash = await hash_password_async(new)
    member.must_change_password = False
    await revoke_member_sessions(db, member.id, now)
    await db.flush()
    return member
