"""Login, logout, the current member, own profile and password, one-time reset links.

Sessions live in two cookies (see :mod:`app.security.sessions`); every state-changing request of a
logged-in member must carry the ``X-CSRF-Token`` header equal to the ``prefclub_csrf`` cookie.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from app.api.deps import AnyMember, AuthDep, ClockDep, CurrentMember, SessionDep, SettingsDep
from app.api.errors import service_errors
from app.api.schemas import ERRORS, ErrorOut, MemberOut, Message
from app.db.models import Member
from app.security import ratelimit
from app.security.passwords import verify_password
from app.security.sessions import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    open_session,
    revoke_session,
)
from app.services import accounts

router = APIRouter(prefix="/api/auth", tags=["auth"], responses=ERRORS)


class LoginIn(BaseModel):
    """Credentials."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"login": "ivanov", "password": "correct horse battery"}]})

    login: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)


class LoginOut(BaseModel):
    """The logged-in member and the CSRF token to send in ``X-CSRF-Token``."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "member": MemberOut.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
        "csrf_token": "k2V0...", "must_change_password": False}]})

    member: MemberOut
    csrf_token: str
    must_change_password: bool


class ProfileIn(BaseModel):
    """What a member may change about himself."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"display_name": "Иван И."}]})

    display_name: str = Field(min_length=1, max_length=100)


class PasswordIn(BaseModel):
    """Changing one's own password."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"current_password": "one-time-pass", "new_password": "a much better one"}]})

    current_password: str = Field(min_length=1, max_length=256)
    new_password: str = Field(min_length=1, max_length=256)


class ResetIn(BaseModel):
    """Setting a new password through a one-time link."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"token": "Zt3...", "new_password": "a much better one"}]})

    token: str = Field(min_length=1, max_length=200)
    new_password: str = Field(min_length=1, max_length=256)


def _client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _set_cookies(response: Response, request: Request, token: str, csrf: str,
                 hours: int) -> None:
    secure = request.url.scheme == "https"
    age = hours * 3600
    response.set_cookie(SESSION_COOKIE, token, max_age=age, httponly=True, samesite="lax",
                        secure=secure, path="/")
    response.set_cookie(CSRF_COOKIE, csrf, max_age=age, httponly=False, samesite="lax",
                        secure=secure, path="/")


@router.post(
    "/login", response_model=LoginOut,
    responses={429: {"model": ErrorOut, "description": "too many failed logins; see Retry-After"}},
)
async def login(body: LoginIn, request: Request, db: SessionDep, clock: ClockDep,
                settings: SettingsDep) -> Response:
    """Log in: sets the HttpOnly session cookie and the script-readable CSRF cookie.

    Failed attempts are limited per login and per client address (429 with ``Retry-After``).
    """
    now = clock.now()
    name = accounts.normalise_login(body.login)
    ip = _client_ip(request)
    limited = await ratelimit.check(db, name, ip, now)
    if limited is not None:
        return JSONResponse({"detail": limited.reason}, status_code=429,
                            headers={"Retry-After": str(limited.retry_after)})
    member = await db.scalar(select(Member).where(Member.login == name, Member.is_bot.is_(False)))
    ok = verify_password(body.password, member.password_hash if member else None)
    if member is None or not ok:
        # Returned, not raised, so the failure is committed and counts.
        await ratelimit.record_failure(db, name, ip, now)
        return JSONResponse({"detail": "wrong login or password"}, status_code=401)
    if not member.active:
        return JSONResponse({"detail": "this account is deactivated"}, status_code=403)
    await ratelimit.record_success(db, name, now)
    token, csrf = await open_session(db, member, now, settings.session_hours)
    out = LoginOut(member=MemberOut.model_validate(member), csrf_token=csrf,
                   must_change_password=member.must_change_password)
    response = JSONResponse(out.model_dump(mode="json"))
    _set_cookies(response, request, token, csrf, settings.session_hours)
    return response


@router.post("/logout", response_model=Message)
async def logout(request: Request, auth: AuthDep, db: SessionDep, clock: ClockDep) -> Response:
    """End this session and clear both cookies."""
    await revoke_session(db, request.cookies.get(SESSION_COOKIE, ""), clock.now())
    response = JSONResponse({"detail": "logged out"})
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")
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


@router.post("/password", response_model=Message)
async def change_password(body: PasswordIn, auth: AuthDep, db: SessionDep,
                          clock: ClockDep) -> Message:
    """Change one's own password (the only thing a first-login member may do); other sessions
    of the member end."""
    with service_errors():
        await accounts.change_password(db, auth.member, body.current_password,
                                       body.new_password, clock.now(), auth.session.id)
    return Message(detail="password changed")


@router.post("/password-reset", response_model=Message, status_code=status.HTTP_200_OK)
async def use_reset_link(body: ResetIn, db: SessionDep, clock: ClockDep) -> Message:
    """Set a new password with a one-time reset token from the admin (no login needed; the token
    works once and expires). Ends every session of the member."""
    with service_errors():
        await accounts.reset_password(db, body.token, body.new_password, clock.now())
    return Message(detail="password set; log in with it")
