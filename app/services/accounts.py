"""Member accounts: creation by the admin, profile and password changes, one-time reset links,
deactivation. Every change that ends a member's access also ends his sessions.

Each change is audited (:mod:`app.services.audit`) in the same transaction: ``member.created``,
``member.role``, ``member.name``, ``member.status``, ``member.password_reset`` (a link issued;
the token itself is never logged), ``member.password_set`` (a link used) and
``member.password_change``. ``actor`` is who asked and from where (the server when omitted)."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Member, PasswordResetToken, Role
from app.security.login_sessions import revoke_member_sessions, token_hash
from app.security.passwords import (
    hash_password_async,
    one_time_password,
    verify_password_async,
)
from app.services import audit
from app.services.audit import SYSTEM, Actor
from app.services.logins import check_login
from app.services.service_errors import ConflictError, ForbiddenError, NotFoundError, ServiceError

RESET_TTL = timedelta(hours=48)
MIN_PASSWORD = 8
"""The shortest password a member may choose (``static/js/pages/login.js`` says the same)."""


def check_password_rules(password: str) -> None:
    """A new password must be at least 8 characters: 422 ``password_too_short`` with
    ``params`` ``{"min": 8}``."""
    if len(password) < MIN_PASSWORD:
        raise ServiceError(
            f"the password must be at least {MIN_PASSWORD} characters long",
            status=422,
            code="password_too_short",
            params={"min": MIN_PASSWORD},
        )


def check_new_differs(current: str, new: str) -> None:
    """A changed password must differ from the current one: 422 ``same_password``."""
    if current == new:
        raise ServiceError(
            "the new password must differ from the current one", status=422, code="same_password"
        )


async def get_member(db: AsyncSession, member_id: int) -> Member:
    """The member with ``member_id`` or a 404."""
    member = await db.get(Member, member_id)
    if member is None:
        raise NotFoundError(f"no member {member_id}")
    return member


def _target(member: Member) -> str:
    return f"member:{member.id}"


async def create_member(
    db: AsyncSession, *, login: str, display_name: str, role: Role, actor: Actor = SYSTEM
) -> tuple[Member, str]:
    """Create an account with a one-time password (to be changed at first login).

    The login is normalised and checked (:func:`app.services.logins.check_login`); one already
    taken, compared case-insensitively, is 409 ``login_taken`` (``params`` ``{"login"}``), also
    when a concurrent request took it first (the unique index on ``members.login`` decides)."""
    login = check_login(login)
    if await db.scalar(select(Member.id).where(Member.login == login)):
        raise _taken(login)
    password = one_time_password()
    member = Member(
        login=login,
        display_name=display_name.strip(),
        role=role,
        password_hash=await hash_password_async(password),
        must_change_password=True,
        active=True,
        is_bot=False,
    )
    try:
        async with db.begin_nested():
            db.add(member)
            await db.flush()
    except IntegrityError as exc:
        raise _taken(login) from exc
    await audit.record(
        db,
        actor=actor,
        action="member.created",
        target=_target(member),
        before=None,
        after={"login": member.login, "display_name": member.display_name, "role": member.role},
    )
    return member, password


def _taken(login: str) -> ConflictError:
    return ConflictError(
        f"login {login!r} is already taken", code="login_taken", params={"login": login}
    )


async def _active_admins(db: AsyncSession) -> int:
    return int(
        await db.scalar(
            select(func.count())
            .select_from(Member)
            .where(Member.role == Role.admin, Member.active.is_(True))
        )
        or 0
    )


async def update_member(
    db: AsyncSession,
    member: Member,
    *,
    display_name: str | None,
    role: Role | None,
    actor: Actor = SYSTEM,
) -> Member:
    """The admin changes a member's name or role; the club always keeps an active admin."""
    if role is not None and role != member.role:
        if member.role == Role.admin and member.active and await _active_admins(db) <= 1:
            raise ConflictError("the club must keep at least one active admin")
        await audit.record(
            db,
            actor=actor,
            action="member.role",
            target=_target(member),
            before={"role": member.role},
            after={"role": role},
        )
        member.role = role
    if display_name is not None and display_name.strip() != member.display_name:
        await audit.record(
            db,
            actor=actor,
            action="member.name",
            target=_target(member),
            before={"display_name": member.display_name},
            after={"display_name": display_name.strip()},
        )
        member.display_name = display_name.strip()
    await db.flush()
    return member


async def set_active(
    db: AsyncSession, member: Member, active: bool, now: datetime, actor: Actor = SYSTEM
) -> Member:
    """Deactivate (history stays, sessions die, login refused) or reactivate a member."""
    if not active and member.active:
        if member.role == Role.admin and await _active_admins(db) <= 1:
            raise ConflictError("the club must keep at least one active admin")
        await revoke_member_sessions(db, member.id, now)
    if active != member.active:
        await audit.record(
            db,
            actor=actor,
            action="member.status",
            target=_target(member),
            before={"active": member.active},
            after={"active": active},
        )
    member.active = active
    await db.flush()
    return member


async def change_password(
    db: AsyncSession,
    member: Member,
    current: str,
    new: str,
    now: datetime,
    keep_session: int,
    address: str | None = None,
) -> None:
    """The member changes his own password; his other sessions end."""
    if not await verify_password_async(current, member.password_hash):
        raise ForbiddenError("the current password is wrong")
    check_password_rules(new)
    check_new_differs(current, new)
    member.password_hash = await hash_password_async(new)
    was_one_time = member.must_change_password
    member.must_change_password = False
    await revoke_member_sessions(db, member.id, now, keep=keep_session)
    await audit.record(
        db,
        actor=Actor(member.id, address),
        action="member.password_change",
        target=_target(member),
        before={"must_change_password": was_one_time},
        after={"must_change_password": False},
    )
    await db.flush()


async def issue_reset_link(
    db: AsyncSession, member: Member, by: Member, now: datetime, address: str | None = None
) -> tuple[str, datetime]:
    """A one-time reset token (older unused ones of the member stop working)."""
    if not member.active:
        raise ConflictError("the member is deactivated; reactivate him first")
    await db.execute(
        update(PasswordResetToken)
        .where(
            PasswordResetToken.member_id == member.id,
            PasswordResetToken.used_at.is_(None),
            PasswordResetToken.expires_at > now,
        )
        .values(expires_at=now)
    )
    token = secrets.token_urlsafe(32)
    expires = now + RESET_TTL
    db.add(
        PasswordResetToken(
            member_id=member.id,
            created_by_id=by.id,
            token_hash=token_hash(token),
            expires_at=expires,
        )
    )
    await db.flush()
    await audit.record(
        db,
        actor=Actor(by.id, address),
        action="member.password_reset",
        target=_target(member),
        before=None,
        after={"expires_at": expires},
    )
    return token, expires


async def reset_password(
    db: AsyncSession, token: str, new: str, now: datetime, address: str | None = None
) -> Member:
    """Use a reset token once: set the new password and end the member's sessions."""
    row = await db.scalar(
        select(PasswordResetToken)
        .where(PasswordResetToken.token_hash == token_hash(token))
        .with_for_update()
    )
    if row is None or row.used_at is not None or row.expires_at <= now:
        raise ServiceError(
            "this reset link is invalid, used or expired; ask the admin for a new one", status=400
        )
    member = await get_member(db, row.member_id)
    if not member.active:
        raise ServiceError("this account is deactivated", status=403)
    check_password_rules(new)
    row.used_at = now
    member.password_hash = await hash_password_async(new)
    member.must_change_password = False
    await revoke_member_sessions(db, member.id, now)
    await audit.record(
        db,
        actor=Actor(member.id, address),
        action="member.password_set",
        target=_target(member),
        before=None,
        after={"reset_link_issued_by": row.created_by_id},
    )
    await db.flush()
    return member
