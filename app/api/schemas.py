"""Pydantic models shared by the club's routers (members, auth), and the input types every
router uses for ids and free text.

``Id`` / ``IdPath`` bound an id to the ``integer`` (int4) columns the ids live in, so an id the
database could never hold is a 422 before any query runs (not a ``NumericValueOutOfRange`` 500).
``Text`` and ``Line`` refuse what PostgreSQL or a screen cannot take: NUL bytes, unpaired
surrogates and control characters (``Text`` keeps tab and newline for multi-line reasons).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any

from fastapi import Path
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from app.db.models import Role

INT4_MAX = 2**31 - 1
"""The largest value of a PostgreSQL ``integer``: every id column is one."""

Id = Annotated[int, Field(ge=1, le=INT4_MAX)]
"""An id in a JSON body or a query."""

IdPath = Annotated[int, Path(ge=1, le=INT4_MAX)]
"""An id in a path (``/api/tables/{table_id}``)."""

_MULTILINE_OK = frozenset("\t\n\r")


def bad_character(message: str) -> PydanticCustomError:
    """The refusal of a character a field may not hold (NUL, a lone surrogate, a control
    character): its error ``type`` is ``bad_character``, which the 422's ``params`` name as the
    ``problem`` ``bad_character`` (app/api/field_errors.py), so the page can say which rule."""
    return PydanticCustomError("bad_character", message)


def _refuse_bad_characters(value: str, allowed: frozenset[str]) -> str:
    for ch in value:
        category = unicodedata.category(ch)
        if ch == "\x00":
            raise bad_character("must not contain NUL bytes")
        if category == "Cs":
            raise bad_character("must not contain unpaired surrogates (invalid Unicode)")
        if category == "Cc" and ch not in allowed:
            raise bad_character(f"must not contain control characters (found U+{ord(ch):04X})")
    return value


def _clean_text(value: str) -> str:
    return _refuse_bad_characters(value, _MULTILINE_OK)


def _clean_line(value: str) -> str:
    return _refuse_bad_characters(value, frozenset())


Text = Annotated[str, AfterValidator(_clean_text)]
"""Free text that may span lines (titles, reasons, notes): no NUL, surrogates or other
control characters."""

Line = Annotated[str, AfterValidator(_clean_line)]
"""One line of text (names, presets): no control characters at all."""


class MemberOut(BaseModel):
    """A member as the API shows him."""

    model_config = ConfigDict(
        from_attributes=True,
        json_schema_extra={
            "examples": [
                {
                    "id": 7,
                    "login": "ivanov",
                    "display_name": "Иван Иванов",
                    "role": "member",
                    "active": True,
                    "must_change_password": False,
                    "is_bot": False,
                }
            ]
        },
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
    """Every error answer: a reason a person can read and, from the error handlers, a stable
    machine ``code`` (``not_found``, ``invalid_input``, ``database_unavailable``...)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"detail": "this needs the admin role", "code": "forbidden"}]
        }
    )

    detail: str
    code: str | None = None
    params: dict[str, Any] | None = None
    """The facts the page fills into its words for ``code`` (``{"min": 8}``...), when any."""


class ValidationIssue(BaseModel):
    """One field the request got wrong."""

    loc: list[str | int]
    msg: str
    type: str


class ValidationErrorOut(BaseModel):
    """A 422: what was wrong with the request (``detail`` is a list for field errors, a string
    when the database refused a value), ``code`` ``invalid_input``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "detail": [
                        {
                            "loc": ["path", "table_id"],
                            "msg": "Input should be less than or equal to 2147483647",
                            "type": "less_than_equal",
                        }
                    ],
                    "code": "invalid_input",
                    "params": {"field": "table_id", "problem": "too_big", "limit": 2147483647},
                }
            ]
        }
    )

    detail: list[ValidationIssue] | str
    code: str
    params: dict[str, Any] | None = None
    """For field errors, the first field at fault: ``field``, ``problem`` (``required``,
    ``too_long``, ``too_big``...) and ``limit`` when the rule has one (app/api/field_errors.py);
    for a refusal of the club's rules, the facts its ``code`` names."""


def _error_body(model: type[BaseModel]) -> dict[str, object]:
    """An error answer's JSON body, by reference to its model's schema among the document's
    components (``app.api.docs.install_error_schemas`` puts it there)."""
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}


ERRORS: dict[int | str, dict[str, object]] = {
    400: {"description": "refused by the club's rules", "content": _error_body(ErrorOut)},
    401: {"description": "not logged in", "content": _error_body(ErrorOut)},
    403: {
        "description": "wrong role, CSRF check failed, or password change required",
        "content": _error_body(ErrorOut),
    },
    404: {"description": "not found", "content": _error_body(ErrorOut)},
    409: {"description": "conflicts with the current state", "content": _error_body(ErrorOut)},
    422: {"description": "invalid input", "content": _error_body(ValidationErrorOut)},
    503: {
        "description": "the database is unreachable; see Retry-After",
        "content": _error_body(ErrorOut),
    },
}
"""The error answers every router documents. Given as schema references, not as ``"model"``:
FastAPI builds a pydantic adapter for every model of every route's responses once per app, on
its first request (seven per route, some 700 in all: 0.25-0.35 s of CPU, three quarters of an
app's first request), only for this document; a test app or a server is built often. The
document is the same (``app.api.docs.install_error_schemas`` adds the schemas;
``tests/api/test_openapi.py``)."""
ERROR_MODELS: tuple[type[BaseModel], ...] = (ErrorOut, ValidationErrorOut)
