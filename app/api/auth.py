"""Login, logout, the current member, own profile and password, one-time reset links.

Sessions live in two cookies (see :mod:`app.security.login_sessions`); every state-changing
request of a logged-in member must carry the ``X-CSRF-Token`` header equal to the
``prefclub_csrf`` cookie.
"""

from __future__ import annotations

import asyncio
import unicodedata
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Request, Response, status
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.deps import (
    AnyMember,
    AuthDep,
    ClockDep,
    CurrentMember,
    SessionDep,
    SettingsDep,
    request_address,
)
from app.api.error_answers import service_errors
from app.api.schemas import ERRORS, ErrorOut, MemberOut, Message, bad_character
from app.config import Settings
from app.db.models import Member
from app.security import ratelimit
from app.security.login_sessions import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    open_session,
    revoke_session,
    session_for_token,
)
from app.security.passwords import POOL, PasswordHasherBusy, verify_and_update_async
from app.services import accounts
from app.services.logins import normalise_login
from app.services.service_errors import ForbiddenError

BUSY_RETRY_AFTER = 1
BUSY_MAX_WAIT = 5.0
"""A login refused because the hashing queue is full is answered after as long as its check
would have waited (at least ``BUSY_RETRY_AFTER``, at most this many seconds): a flood that
waits for its answers then runs at the pool's pace, not at the event loop's."""

router = APIRouter(prefix="/api/auth", tags=["auth"], responses=ERRORS)


def _no_nul_or_surrogates(value: str) -> str:
    """Refuse text PostgreSQL cannot store (NUL) or UTF-8 cannot encode (lone surrogates), so
    bad input is a 422, never a 500 from the database or the hasher."""
    if any(ch == "\x00" or "\ud800" <= ch <= "\udfff" for ch in value):
        raise bad_character("must not contain NUL bytes or lone surrogates")
    return value


def _printable(value: str) -> str:
    """Names and logins: no control characters either."""
    _no_nul_or_surrogates(value)
    if any(unicodedata.category(ch) == "Cc" for ch in value):
        raise bad_character("must not contain control characters")
    return value


Secret = Annotated[str, AfterValidator(_no_nul_or_surrogates)]
Name = Annotated[str, AfterValidator(_printable)]


class LoginIn(BaseModel):
    """Credentials."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"login": "ivanov", "password": "correct horse battery"}]}
    )

    login: Name = Field(min_length=1, max_length=64)
    password: Secret = Field(min_length=1, max_length=256)


class LoginOut(BaseModel):
    """The logged-in member and the CSRF token to send in ``X-CSRF-Token``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "member": MemberOut.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
                    "csrf_token": "k2V0...",
                    "must_change_password": False,
                }
            ]
        }
    )

    member: MemberOut
    csrf_token: str
    must_change_password: bool


class ProfileIn(BaseModel):
    """What a member may change about himself."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"display_name": "Иван И."}]})

    display_name: Name = Field(min_length=1, max_length=100)


class PasswordIn(BaseModel):
    """Changing one's own password."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"current_password": "one-time-pass", "new_password": "a much better one"}]
        }
    )

    current_password: Secret = Field(min_length=1, max_length=256)
    new_password: Secret = Field(max_length=256)
    """Its length rule (8+) is the service's: an empty or short one is 422
    ``password_too_short`` with the limit, as the page says it."""


class ResetIn(BaseModel):
    """Setting a new password through a one-time link."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"token": "Zt3...", "new_password": "a much better one"}]}
    )

    token: Secret = Field(min_length=1, max_length=200)
    new_password: Secret = Field(max_length=256)
    """As :attr:`PasswordIn.new_password`: 8+ characters, checked by the service."""


def _client_ip(request: Request) -> str:
    """The client's address; forwarded headers count only from ``FORWARDED_ALLOW_IPS``."""
    return request_address(request)


async def _vouched(request: Request, db: AsyncSession, login: str, now: datetime) -> bool:
    """Whether the request carries a live session of ``login`` itself (a member logging in
    again from his own browser): his check takes the trusted lane (docs/security.md)."""
    token = request.cookies.get(SESSION_COOKIE, "")
    if not token:
        return False
    session = await session_for_token(db, token, now)
    if session is None:
        return False
    owner = await db.scalar(select(Member.login).where(Member.id == session.member_id))
    return owner == login


def _error(
    status_code: int, code: str, detail: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """An error answer that is *returned*, not raised, so the request's transaction commits
    (a recorded failed attempt must count)."""
    return JSONResponse({"detail": detail, "code": code}, status_code=status_code, headers=headers)


def _limited(limited: ratelimit.Limited) -> JSONResponse:
    return _error(429, limited.code, limited.reason, {"Retry-After": str(limited.retry_after)})


def _busy(exc: PasswordHasherBusy) -> JSONResponse:
    return _error(503, "busy", str(exc), {"Retry-After": str(BUSY_RETRY_AFTER)})


async def busy_handler(request: Request, exc: Exception) -> Response:
    """Any endpoint that hashes a password (member creation, reset links) answers 503 ``busy``
    when the hashing queue is full; registered in :func:`app.main.create_app`."""
    assert isinstance(exc, PasswordHasherBusy)
    return _busy(exc)


def _secure(request: Request, settings: Settings) -> bool:
    """Cookies are ``Secure`` in production (served over HTTPS behind the proxy) and on HTTPS."""
    return settings.production or request.url.scheme == "https"


def _set_cookies(
    response: Response, request: Request, settings: Settings, token: str, csrf: str
) -> None:
    secure = _secure(request, settings)
    age = settings.session_hours * 3600
    response.set_cookie(
        SESSION_COOKIE, token, max_age=age, httponly=True, samesite="lax", secure=secure, path="/"
    )
    response.set_cookie(
        CSRF_COOKIE, csrf, max_age=age, httponly=False, samesite="lax", secure=secure, path="/"
    )


@router.post(
    "/login",
    response_model=LoginOut,
    responses={
        429: {"model": ErrorOut, "description": "wait after failed attempts; see Retry-After"},
        503: {"model": ErrorOut, "description": "busy checking passwords; see Retry-After"},
    },
)
async def login(
    body: LoginIn, request: Request, db: SessionDep, clock: ClockDep, settings: SettingsDep
) -> Response:
    """Log in: sets the HttpOnly session cookie and the script-readable CSRF cookie.

    After failed attempts the next one must wait, progressively longer (429 ``login_throttled``
    with ``Retry-After``; see :mod:`app.security.ratelimit`). A wrong login or password is 401
    ``wrong_credentials``; a full password-hashing queue 503 ``busy``.
    """
    now = clock.now()
    name = normalise_login(body.login)
    address = _client_ip(request)
    secret = request.app.state.secret_key
    if (
        POOL.full()
        and SESSION_COOKIE not in request.cookies
        and not ratelimit.TRUSTED.knows(secret, name, address, now)
    ):
        # Refused before any database work, alike for every name, and only after as long as
        # the check would have waited: a flood's cost stays small, and its pace the pool's.
        await asyncio.sleep(min(BUSY_MAX_WAIT, max(BUSY_RETRY_AFTER, POOL.expected_wait() or 0)))
        POOL.refused += 1
        return _busy(PasswordHasherBusy("the server is busy checking passwords; try again"))
    started = await ratelimit.begin(
        db, secret, name, address, now, vouched=await _vouched(request, db, name, now)
    )
    if isinstance(started, ratelimit.Limited):
        return _limited(started)
    member = await db.scalar(select(Member).where(Member.login == name, Member.is_bot.is_(False)))
    # The attempt counts and its locks go before the slow check, and no connection is held
    # while the password is hashed.
    await db.commit()
    try:
        ok, rehashed = await verify_and_update_async(
            body.password, member.password_hash if member else None, trusted=started.trusted
        )
    except PasswordHasherBusy as exc:
        await ratelimit.abandoned(db, started)
        return _busy(exc)
    if member is None or not ok:
        return _error(401, "wrong_credentials", "wrong login or password")
    await ratelimit.succeeded(db, started, now)
    if rehashed is not None:  # stored with older Argon2 parameters: today's from now on
        member.password_hash = rehashed
    if not member.active:
        return _error(403, "account_deactivated", "this account is deactivated")
    token, csrf = await open_session(db, member, now, settings.session_hours)
    out = LoginOut(
        member=MemberOut.model_validate(member),
        csrf_token=csrf,
        must_change_password=member.must_change_password,
    )
    response = JSONResponse(out.model_dump(mode="json"))
    _set_cookies(response, request, settings, token, csrf)
    return response


@router.post("/logout", response_model=Message)
async def logout(
    request: Request, auth: AuthDep, db: SessionDep, clock: ClockDep, settings: SettingsDep
) -> Response:
    """End this session (revoked in the database) and clear both cookies."""
    await revoke_session(db, request.cookies.get(SESSION_COOKIE, ""), clock.now())
    response = JSONResponse({"detail": "logged out"})
    secure = _secure(request, settings)
    response.delete_cookie(SESSION_COOKIE, path="/", secure=secure, httponly=True, samesite="lax")
    response.delete_cookie(CSRF_COOKIE, path="/", secure=secure, samesite="lax")
    return response


@router.get("/me", response_model=MemberOut)
async def me(member: AnyMember) -> Member:
    """The logged-in member (also for one who must still change his one-time password)."""
    return member


@router.patch("/me", response_model=MemberOut)
async def edit_profile(body: ProfileIn, member: CurrentMember, db: SessionDep) -> Member:
    """Change one's own display name."""
    member.display_name = body.display_name.strip()
    await db.flush()
    return member


@router.post(
    "/password",
    response_model=Message,
    responses={
        429: {"model": ErrorOut, "description": "wait after failed attempts; see Retry-After"},
        503: {"model": ErrorOut, "description": "busy checking passwords; see Retry-After"},
    },
)
async def change_password(
    body: PasswordIn, request: Request, auth: AuthDep, db: SessionDep, clock: ClockDep
) -> Response:
    """Change one's own password (the only thing a first-login member may do); other sessions
    of the member end. A wrong current password (403 ``wrong_password``) counts as a failed
    login of the member from this address: the same progressive delays apply (429)."""
    now = clock.now()
    with service_errors():  # cheap checks first: they are not password guesses
        accounts.check_password_rules(body.new_password)
        accounts.check_new_differs(body.current_password, body.new_password)
    started = await ratelimit.begin(
        db, request.app.state.secret_key, auth.member.login, _client_ip(request), now
    )
    if isinstance(started, ratelimit.Limited):
        return _limited(started)
    await db.commit()  # the attempt counts before the slow check
    try:
        with service_errors():
            try:
                await accounts.change_password(
                    db,
                    auth.member,
                    body.current_password,
                    body.new_password,
                    now,
                    auth.session.id,
                    _client_ip(request),
                )
            except ForbiddenError:  # the only refusal after the checks above
                return _error(403, "wrong_password", "the current password is wrong")
    except PasswordHasherBusy as exc:
        await ratelimit.abandoned(db, started)
        return _busy(exc)
    await ratelimit.succeeded(db, started, now)
    return JSONResponse(Message(detail="password changed").model_dump())


@router.post("/password-reset", response_model=Message, status_code=status.HTTP_200_OK)
async def use_reset_link(
    body: ResetIn, request: Request, db: SessionDep, clock: ClockDep
) -> Message:
    """Set a new password with a one-time reset token from the admin (no login needed; the token
    works once and expires). Ends every session of the member."""
    with service_errors():
        await accounts.reset_password(
            db, body.token, body.new_password, clock.now(), _client_ip(request)
        )
    return Message(detail="password set; log in with it")
