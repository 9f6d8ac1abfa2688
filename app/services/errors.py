"""Errors the club services raise; the API turns each into a 4xx JSON answer."""

from __future__ import annotations


class ServiceError(ValueError):
    """A request the club's rules refuse; ``status`` is the HTTP status the API answers with."""

    status: int = 400

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class NotFoundError(ServiceError):
    """No such member, session, table..."""

    status = 404


class ConflictError(ServiceError):
    """The request clashes with the current state (already taken, already done)."""

    status = 409


class ForbiddenError(ServiceError):
    """Not allowed for this member."""

    status = 403
