"""Server-side login sessions and their CSRF tokens.

The browser holds two cookies: ``prefclub_session`` (HttpOnly, the session token) and
``prefclub_csrf`` (readable by scripts). A state-changing request must echo the CSRF cookie in the
``X-CSRF-Token`` header (double submit), and that token must be the one issued with the session.
Both tokens are stored only as SHA-256 hashes, so a database leak does not hand out sessions.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import AuthSession, Member

SESSION_COOKIE = "prefclub_session"
CSRF_COOKIE = "prefclub_csrf"
CSRF_HEADER = "X-CSRF-Token"


def token_hash(token: str) -> str:
    """The stored form of a random token."""
    return hashlib.sha256(token.encode()).hexdigest()


async def open_session(
    db: AsyncSession, member: Member, now: datetime, hours: int
) -> tuple[str, str]:
    """Start a session for ``member``; return (session token, csrf token)."""
    token = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    db.add(
        AuthSession(
            member_id=member.id,
            token_hash=token_hash(token),
            csrf_hash=token_hash(csrf),
            expires_at=now + timedelta(hours=hours),
        )
    )
    await db.flush()
    return token, csrf


async def session_for_token(db: AsyncSession, token: str, now: datetime) -> AuthSession | None:
    """The live session of ``token`` whose member is active, or None."""
    if not token:
        return None
    row = await db.scalar(
        select(AuthSession)
        .join(Member, Member.id == AuthSession.member_id)
        .where(
            AuthSession.token_hash == token_hash(token),
            AuthSession.revoked_at.is_(None),
            AuthSession.expires_at > now,
            Member.active.is_(True),
        )
    )
    return row


async def is_session_live(db: AsyncSession, session: int | str, now: datetime) -> bool:
    """Whether a session (its id, or its cookie token) may still act: not revoked (logout,
    deactivation, password change or reset), not expired, and its member still active.

    One indexed lookup, meant to run inside the transaction of every websocket command, so a
    socket opened before the session ended cannot keep acting after it.
    """
    key = (
        AuthSession.id == session
        if isinstance(session, int)
        else AuthSession.token_hash == token_hash(session)
    )
    found = await db.scalar(
        select(AuthSession.id)
        .join(Member, Member.id == AuthSession.member_id)
        .where(
            key,
            AuthSession.revoked_at.is_(None),
            AuthSession.expires_at > now,
            Member.active.is_(True),
        )
    )
    return found is not None


async def member_for_token(db: AsyncSession, token: str, now: datetime) -> Member | None:
    """The active member logged in with ``token`` (unexpired, not revoked), or None."""
    row = await session_for_token(db, token, now)
    if row is None:
        return None
    return await db.get(Member, row.member_id)


def csrf_matches(row: AuthSession, cookie: str | None, header: str | None) -> bool:
    """Double submit: the header equals the cookie and is the token issued with the session."""
    if not cookie or not header:
        return False
    if not hmac.compare_digest(cookie, header):
        return False
    return hmac.compare_digest(token_hash(header), row.csrf_hash)


async def revoke_session(db: AsyncSession, token: str, now: datetime) -> None:
    """End the session of ``token`` (logout)."""
    await db.execute(
        update(AuthSession)
        .where(AuthSession.token_hash == token_hash(token), AuthSession.revoked_at.is_(None))
        .values(revoked_at=now)
    )


async def revoke_member_sessions(
    db: AsyncSession, member_id: int, now: datetime, *, keep: int | None = None
) -> None:
    """End every session of a member (deactivation, password reset), except ``keep``."""
    stmt = (
        update(AuthSession)
        .where(AuthSession.member_id == member_id, AuthSession.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    if keep is not None:
        stmt = stmt.where(AuthSession.id != keep)
    await db.execute(stmt)


__all__ = [
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "SESSION_COOKIE",
    "csrf_matches",
    "is_session_live",
    "member_for_token",
    "open_session",
    "revoke_member_sessions",
    "revoke_session",
    "session_for_token",
    "token_hash",
]
