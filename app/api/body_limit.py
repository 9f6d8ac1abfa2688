"""A cap on HTTP request bodies: 413 ``too_large`` before a byte too many is read or parsed.

Without it a client posting 10 MB bodies had each one read into memory and parsed as JSON on
the event loop before its 422, and every table served by the process waited (issue 24). Every
route of the API takes a small JSON body (the largest, a recorded deal's ``pulka/1`` object, is
a few KiB), so one cap, :data:`MAX_BODY_BYTES`, holds for all of them; a route that ever needs
more gets its own entry in :data:`ROUTE_LIMITS` (documented in docs/security.md).

* A ``Content-Length`` over the cap is answered 413 at once: the app is never called and the
  body never read (the server closes the connection after the answer).
* A body without a length (chunked) is counted as it arrives: the chunk that passes the cap
  raises the same 413 out of ``receive``, so the route never gets the body (FastAPI re-raises an
  ``HTTPException`` from reading the body, and the error handlers answer it as usual).

A pure ASGI middleware (not Starlette's ``BaseHTTPMiddleware``): websockets, whose frames
have their own caps (docs/protocol.md), pass through untouched.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.error_answers import ApiError, error_response

MAX_BODY_BYTES = 64 * 1024
"""The default cap on a request body, in bytes."""
ROUTE_LIMITS: tuple[tuple[str, re.Pattern[str], int], ...] = ()
"""``(method, path pattern, cap)`` of routes allowed a larger body than :data:`MAX_BODY_BYTES`
(none today)."""
TOO_LARGE_CODE = "too_large"


def limit_for(method: str, path: str, default: int = MAX_BODY_BYTES) -> int:
    """The body cap of a request to ``method path``."""
    for route_method, pattern, cap in ROUTE_LIMITS:
        if route_method == method and pattern.fullmatch(path):
            return cap
    return default


def _too_large(limit: int) -> str:
    return f"the request body is larger than this address accepts ({limit} bytes at most)"


class BodyTooLarge(ApiError):
    """Raised out of ``receive`` by the chunk that passes the cap."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            413,
            _too_large(limit),
            TOO_LARGE_CODE,
            headers={"Connection": "close"},
            params={"limit": limit},
        )


def _declared_length(scope: Scope) -> int | None:
    """The request's ``Content-Length`` (None if absent; -1 if not a number)."""
    for name, value in scope.get("headers") or ():
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else -1
    return None


class BodyLimit:
    """Answers 413 for request bodies over their route's cap (module docstring)."""

    def __init__(self, app: ASGIApp, *, default: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.default = default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = limit_for(scope.get("method", ""), scope.get("path", ""), self.default)
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            response = error_response(
                413,
                _too_large(limit),
                TOO_LARGE_CODE,
                headers={"Connection": "close"},
                params={"limit": limit},
            )
            await response(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, counted, send)
