"""Member accounts created from the command line."""

from __future__ import annotations

from sqlalchemy import select

from app.db.engine import make_engine, make_sessionmaker, session_scope
from app.db.models import Member, Role
from app.security.passwords import hash_password, one_time_password
from app.services import audit
from app.services.logins import check_login


async def create_admin_account(url: str, login: str, display_name: str) -> str:
    """Create an admin with a one-time password and return that password."""
    login = check_login(login)  # a ServiceError is a ValueError: the CLI prints it
    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as session:
            if await session.scalar(select(Member).where(Member.login == login)):
                raise ValueError(f"login {login!r} is already taken")
            password = one_time_password()
            member = Member(
                login=login,
                display_name=display_name,
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
                    "login": login,
                    "display_name": display_name,
                    "role": Role.admin,
                    "by": "prefclub create-admin",
                },
            )
            return password
    finally:
        await engine.dispose()
