"""Pydantic models shared by the club's routers (members, auth)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.db.models import Role


class MemberOut(BaseModel):
    """A member as the API shows him."""

    model_config = ConfigDict(
        from_attributes=True,
        json_schema_extra={"examples": [{
            "id": 7, "login": "ivanov", "display_name": "Иван Иванов", "role": "member",
            "active": True, "must_change_password": False, "is_bot": False,
        }]},
    )

    id: int
    login: str
    display_name: str
    role: Role
    active: bool
    must_change_password: bool
    is_bot: bool


class Message(BaseModel):
    """A short confirmation."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"detail": "ok"}]})

    detail: str = Field(examples=["ok"])


class ErrorOut(BaseModel):
    """Every 4xx answer: a reason a person can read."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"detail": "this needs the admin role"}]}
    )

    detail: str


ERRORS: dict[int | str, dict[str, object]] = {
    400: {"model": ErrorOut, "description": "refused by the club's rules"},
    401: {"model": ErrorOut, "description": "not logged in"},
    403: {"model": ErrorOut, "description": "wrong role, CSRF check failed, or password change "
                                            "required"},
    404: {"model": ErrorOut, "description": "not found"},
    409: {"model": ErrorOut, "description": "conflicts with the current state"},
}
