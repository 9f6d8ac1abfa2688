"""Errors the club services raise; the API turns each into a 4xx JSON answer."""

from __future__ import annotations

from typing import Any


class ServiceError(ValueError):
    """A request the club's rules refuse; ``status`` is the HTTP status the API answers with."""

    status: int = 400
    code: str = "bad_request"
    """A stable machine code the API sends beside the English message (the browser translates
    by it); subclasses and callers name the precise case."""

    params: dict[str, Any] | None = None
    """The facts the page fills into its translation of ``code`` (the API sends them as
    ``params``), e.g. ``{"start": "10:02"}``: the same facts the English message names."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        if params is not None:
            self.params = params


class NotFoundError(ServiceError):
    """No such member, session, table..."""

    status = 404
    code = "not_found"


class ConflictError(ServiceError):
    """The request clashes with the current state (already taken, already done)."""

    status = 409
    code = "conflict"


class ForbiddenError(ServiceError):
    """Not allowed for this member."""

    status = 403
    code = "forbidden"
