"""Member administration (admin) and the member list (every member)."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from app.api.deps import AddressDep, AdminMember, ClockDep, CurrentMember, SessionDep
from app.api.error_answers import service_errors
from app.api.schemas import ERRORS, IdPath, Line, MemberOut
from app.db.models import Member, Role
from app.services import accounts
from app.services.audit import Actor

router = APIRouter(prefix="/api/members", tags=["members"], responses=ERRORS)

RESET_PATH = "/reset-password?token="


class MemberIn(BaseModel):
    """A new account."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"login": "petrov", "display_name": "Пётр Петров", "role": "member"}]
        }
    )

    login: Line = Field(max_length=64, examples=["petrov", "иван"])
    """Latin or Cyrillic letters (not both), digits, ``_ . -``; stored NFKC case-folded
    (``app/services/logins.py``): refusals are 422 ``login_required``, ``login_too_long``,
    ``login_bad_characters``, ``login_mixed_scripts``, and 409 ``login_taken``."""
    display_name: Line = Field(min_length=1, max_length=100)
    role: Role = Role.member


class MemberCreated(BaseModel):
    """The new account and its one-time password (shown once; changed at first login)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "member": MemberOut.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
                    "one_time_password": "x7Hq2mPz0aLk",
                }
            ]
        }
    )

    member: MemberOut
    one_time_password: str


class MemberPatch(BaseModel):
    """Fields the admin may change."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"role": "treasurer"}]})

    display_name: Line | None = Field(default=None, min_length=1, max_length=100)
    role: Role | None = None


class ResetLink(BaseModel):
    """A one-time link to hand to the member."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "url": "/reset-password?token=Zt3...",
                    "token": "Zt3...",
                    "expires_at": "2026-12-02T12:00:00Z",
                }
            ]
        }
    )

    url: str
    token: str
    expires_at: datetime


@router.get("", response_model=list[MemberOut])
async def list_members(member: CurrentMember, db: SessionDep) -> list[Member]:
    """Every member (bots excluded), for everyone logged in."""
    rows = await db.scalars(select(Member).where(Member.is_bot.is_(False)).order_by(Member.id))
    return list(rows)


@router.post("", response_model=MemberCreated, status_code=status.HTTP_201_CREATED)
async def create_member(
    body: MemberIn, admin: AdminMember, db: SessionDep, address: AddressDep
) -> MemberCreated:
    """Admin: create an account with a one-time password."""
    with service_errors():
        member, password = await accounts.create_member(
            db,
            login=body.login,
            display_name=body.display_name,
            role=body.role,
            actor=Actor.of(admin, address),
        )
    return MemberCreated(member=MemberOut.model_validate(member), one_time_password=password)


@router.get("/{member_id}", response_model=MemberOut)
async def get_member(member_id: IdPath, member: CurrentMember, db: SessionDep) -> Member:
    """One member."""
    with service_errors():
        return await accounts.get_member(db, member_id)


@router.patch("/{member_id}", response_model=MemberOut)
async def update_member(
    member_id: IdPath, body: MemberPatch, admin: AdminMember, db: SessionDep, address: AddressDep
) -> Member:
    """Admin: rename a member or change his role."""
    with service_errors():
        target = await accounts.get_member(db, member_id)
        return await accounts.update_member(
            db,
            target,
            display_name=body.display_name,
            role=body.role,
            actor=Actor.of(admin, address),
        )


@router.post("/{member_id}/deactivate", response_model=MemberOut)
async def deactivate(
    member_id: IdPath, admin: AdminMember, db: SessionDep, clock: ClockDep, address: AddressDep
) -> Member:
    """Admin: deactivate a member: he can no longer log in and his sessions end; his history
    stays."""
    with service_errors():
        target = await accounts.get_member(db, member_id)
        return await accounts.set_active(db, target, False, clock.now(), Actor.of(admin, address))


@router.post("/{member_id}/activate", response_model=MemberOut)
async def activate(
    member_id: IdPath, admin: AdminMember, db: SessionDep, clock: ClockDep, address: AddressDep
) -> Member:
    """Admin: reactivate a member."""
    with service_errors():
        target = await accounts.get_member(db, member_id)
        return await accounts.set_active(db, target, True, clock.now(), Actor.of(admin, address))


@router.post(
    "/{member_id}/password-reset", response_model=ResetLink, status_code=status.HTTP_201_CREATED
)
async def password_reset_link(
    member_id: IdPath, admin: AdminMember, db: SessionDep, clock: ClockDep, address: AddressDep
) -> ResetLink:
    """Admin: a one-time, expiring password reset link for the member (earlier links stop
    working). The member sets a new password with ``POST /api/auth/password-reset``."""
    with service_errors():
        target = await accounts.get_member(db, member_id)
        token, expires = await accounts.issue_reset_link(db, target, admin, clock.now(), address)
    return ResetLink(url=RESET_PATH + token, token=token, expires_at=expires)
