"""Errors as JSON: ``{"detail": "...", "code": "..."}`` with a stable machine ``code`` (and
``params``, the facts the page fills into its text for that code, when the error has any).

* :func:`service_errors` turns a :class:`ServiceError` (or a rules error) into a 4xx.
* :func:`install_error_handlers` makes every answer of the app an error of that shape:

  - ``HTTPException``: ``code`` from the exception, else from its status (``not_found``...);
  - request validation: 422 ``invalid_input`` with the fields at fault (never echoing the input,
    which may hold a password or text that cannot even be encoded), and in ``params`` the first
    one's name, problem and limit (:mod:`app.api.field_errors`);
  - the database refusing a value (``DataError``: out of range, NUL byte...): 422
    ``invalid_input``; a unique/foreign key clash (``IntegrityError``): 409 ``conflict``;
  - the database unreachable (connection refused or lost, pool exhausted): 503
    ``database_unavailable`` with ``Retry-After``;
  - anything else: 500 ``internal_error`` with a request id.

Database and unexpected errors are logged with the exception type, SQLSTATE, request id and the
code location only: never ``str(exc)``, which carries SQL parameters and PostgreSQL messages that
quote the values (a password hash, a token). The request id is in the answer and in the
``X-Request-ID`` header, so a member can quote it and the log line can be found.
"""

from __future__ import annotations

import logging
import re
import traceback
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.field_errors import field_params
from app.rules import RulesError
from app.services.service_errors import ServiceError

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
"""What a 503 ``database_unavailable`` asks the client to wait before trying again."""

STATUS_CODES: dict[int, str] = {
    400: "bad_request",
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}
"""The ``code`` of an error raised without one, by HTTP status."""

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class ApiError(HTTPException):
    """An HTTPException with a stable machine ``code`` beside its English ``detail``."""

    def __init__(
        self,
        status_code: int,
        detail: str,
        code: str | None = None,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(status_code, detail, headers)
        self.code = code or code_for_status(status_code)
        self.params = params
        """Sent as the answer's ``params`` (what the page fills into its text for ``code``)."""


CodedHTTPException = ApiError
"""The name the routers use: ``CodedHTTPException(status, detail, code)``."""


def code_for_status(status: int) -> str:
    """The default ``code`` of an error with HTTP ``status``."""
    return STATUS_CODES.get(status, "client_error" if status < 500 else "server_error")


@contextmanager
def service_errors() -> Iterator[None]:
    """Re-raise a :class:`ServiceError` (or a rules error) as an :class:`ApiError`.

    Raising rolls the request's transaction back, so a refused request changes nothing. A
    service error may carry its own ``code``; otherwise it comes from the status.
    """
    try:
        yield
    except ServiceError as exc:
        raise ApiError(
            exc.status, str(exc), code=getattr(exc, "code", None), params=exc.params
        ) from exc
    except RulesError as exc:
        raise ApiError(400, str(exc), code=getattr(exc, "code", None) or "rules_refused") from exc


ERROR_EXAMPLE = {"detail": "a player-readable reason", "code": "conflict"}


def safe_text(value: object) -> str:
    """``value`` as text that always encodes as UTF-8 (lone surrogates become escapes)."""
    return str(value).encode("utf-8", "backslashreplace").decode("utf-8")


def _safe_json(value: Any) -> Any:
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_text(k): _safe_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_safe_json(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return safe_text(value)


def request_id(request: Request | None = None, scope: Scope | None = None) -> str:
    """The client's ``X-Request-ID`` when it is a sane token, else a new random one."""
    headers = request.headers if request is not None else None
    if headers is None and scope is not None:
        raw = dict(scope.get("headers") or []).get(b"x-request-id", b"")
        given = raw.decode("latin-1")
    else:
        given = headers.get("x-request-id", "") if headers is not None else ""
    return given if _REQUEST_ID.match(given) else uuid.uuid4().hex[:16]


def error_response(
    status: int, detail: Any, code: str, *, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    """The JSON error answer (its text made safe to encode)."""
    body = {"detail": _safe_json(detail), "code": code, **extra}
    return JSONResponse(body, status_code=status, headers=headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code in {204, 304} or exc.status_code < 200:
        return Response(status_code=exc.status_code, headers=exc.headers)
    code = getattr(exc, "code", None)
    detail: Any = exc.detail
    if isinstance(detail, dict) and isinstance(detail.get("code"), str):
        code = code or detail["code"]
        detail = detail.get("detail", detail)
    params = getattr(exc, "params", None)
    extra = {"params": _safe_json(params)} if params else {}
    return error_response(
        exc.status_code,
        detail,
        code or code_for_status(exc.status_code),
        headers=dict(exc.headers) if exc.headers else None,
        **extra,
    )


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    issues = [
        {
            "loc": [_safe_json(part) for part in err.get("loc", ())],
            "msg": safe_text(err.get("msg", "invalid")),
            "type": safe_text(err.get("type", "value_error")),
        }
        for err in exc.errors()
    ]
    params = field_params(exc.errors())
    extra = {"params": _safe_json(params)} if params else {}
    return error_response(422, issues, "invalid_input", **extra)


def _where(exc: BaseException) -> str:
    """``file:line in function`` of the innermost frame of our own code (no values)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/app/" in f.filename] or frames
    if not ours:
        return "?"
    frame = ours[-1]
    return f"{frame.filename.rsplit('/app/', 1)[-1]}:{frame.lineno} in {frame.name}"


def _sqlstate(exc: BaseException) -> str | None:
    orig = getattr(exc, "orig", exc)
    return getattr(orig, "sqlstate", None)


def _is_disconnect(exc: BaseException) -> bool:
    """Whether ``exc`` means "the database cannot be reached right now"."""
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(
        exc,
        sa_exc.OperationalError
        | sa_exc.InterfaceError
        | sa_exc.TimeoutError
        | sa_exc.DisconnectionError,
    ):
        return True
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return True
    return isinstance(exc, ConnectionError)


def response_for(exc: BaseException, rid: str, method: str, path: str) -> JSONResponse:
    """The answer (and the log line) for an exception no handler turned into an answer.

    Logs only the exception's type, SQLSTATE, code location and the request id.
    """
    kind = f"{type(exc).__module__}.{type(exc).__qualname__}"
    facts = {
        "request_id": rid,
        "error_type": kind,
        "sqlstate": _sqlstate(exc),
        "where": _where(exc),
        "method": method,
        "path": path,
    }
    headers = {"X-Request-ID": rid}
    if _is_disconnect(exc):
        log.warning("database unavailable", extra=facts)
        return error_response(
            503,
            "the server cannot reach its database right now; try again shortly",
            "database_unavailable",
            request_id=rid,
            headers={**headers, "Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    orig = getattr(exc, "orig", exc)
    if isinstance(orig, psycopg.DataError) or isinstance(exc, sa_exc.DataError | UnicodeError):
        log.info("database refused a value", extra=facts)
        return error_response(
            422,
            "a value is out of range or holds characters the database cannot store",
            "invalid_input",
            request_id=rid,
            headers=headers,
        )
    if isinstance(exc, sa_exc.IntegrityError) or isinstance(orig, psycopg.IntegrityError):
        log.info("database constraint refused the change", extra=facts)
        return error_response(
            409,
            "this clashes with what is already recorded",
            "conflict",
            request_id=rid,
            headers=headers,
        )
    log.error("unhandled error", extra={**facts, "stack": traceback.format_tb(exc.__traceback__)})
    return error_response(
        500,
        f"internal server error (request id {rid})",
        "internal_error",
        request_id=rid,
        headers=headers,
    )


class CatchAllMiddleware:
    """Turns any exception that escaped the routes into a JSON answer from
    :func:`response_for`, logged without its message, and never re-raises it (Starlette's own
    last-resort handler would log the full message, SQL parameters included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            rid = request_id(scope=scope)
            response = response_for(exc, rid, scope.get("method", "?"), scope.get("path", "?"))
            if not started:
                await response(scope, receive, send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A socket whose handler failed: before ``accept`` the handshake is refused with the
        HTTP answer of :func:`response_for` (503 + ``Retry-After`` when the database is down);
        after it the socket closes with 1013 "try again later" (database down) or 1011."""
        accepted = closed = False

        async def sending(message: Message) -> None:
            nonlocal accepted, closed
            if message["type"] == "websocket.accept":
                accepted = True
            elif message["type"] in ("websocket.close", "websocket.http.response.start"):
                closed = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            response = response_for(
                exc, request_id(scope=scope), "WEBSOCKET", scope.get("path", "?")
            )
            if closed:
                return
            with suppress(Exception):  # the client may be gone already
                if not accepted and "websocket.http.response" in scope.get("extensions", {}):
                    await response(scope, receive, send)
                else:
                    code = 1013 if response.status_code == 503 else 1011
                    await send({"type": "websocket.close", "code": code})


def install_error_handlers(app: FastAPI) -> None:
    """Give every error answer of ``app`` the ``{"detail", "code"}`` shape (module docstring)."""
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_middleware(CatchAllMiddleware)
