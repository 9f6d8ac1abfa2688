"""Turning service errors into clear 4xx JSON errors (``{"detail": "...", "code": "..."}``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from app.rules.errors import RulesError
from app.services.errors import ServiceError


class CodedHTTPException(HTTPException):
    """An HTTP error with a stable machine ``code`` beside its English ``detail``."""

    def __init__(self, status_code: int, detail: str, code: str) -> None:
        super().__init__(status_code, detail)
        self.code = code


async def coded_error_handler(request: Request, exc: Exception) -> Response:
    """Render a :class:`CodedHTTPException` as ``{"detail": ..., "code": ...}``."""
    assert isinstance(exc, CodedHTTPException)
    return JSONResponse({"detail": exc.detail, "code": exc.code},
                        status_code=exc.status_code, headers=exc.headers)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers of this module on ``app`` (called by ``create_app``)."""
    app.add_exception_handler(CodedHTTPException, coded_error_handler)


@contextmanager
def service_errors() -> Iterator[None]:
    """Re-raise a :class:`ServiceError` (or a rules error) as an HTTP error with its code.

    Raising rolls the request's transaction back, so a refused request changes nothing.
    """
    try:
        yield
    except ServiceError as exc:
        raise CodedHTTPException(exc.status, str(exc), exc.code) from exc
    except RulesError as exc:
        raise HTTPException(400, str(exc)) from exc


ERROR_EXAMPLE = {"detail": "a player-readable reason", "code": "conflict"}
