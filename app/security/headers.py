"""Security headers on every HTTP response (pages, static files, the API and errors).

- ``Content-Security-Policy``: scripts only from this origin (no inline script, no eval, no
  CDN), connections (fetch, websockets) only to this origin, no plugins, no ``<base>``, and the
  pages may not be framed (``frame-ancestors 'none'``, plus ``X-Frame-Options: DENY`` for old
  browsers). Inline *styles* are allowed: the score sheet's SVG carries its own ``<style>`` and
  a few elements a ``style`` attribute; styles cannot run code.
- The interactive API docs (``/docs``, ``/redoc``) get a relaxed policy, because FastAPI's pages
  load Swagger UI / ReDoc from a CDN with an inline bootstrap script; they are off in
  production unless ``PREFCLUB_DOCS`` turns them on.
- ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` (a reset link's token
  never travels in a ``Referer``), and in production ``Strict-Transport-Security``.

A pure ASGI middleware, so websockets pass through untouched.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "font-src 'self' https://fonts.gstatic.com; connect-src 'self'; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")
HSTS = "max-age=31536000"


class SecurityHeaders:
    """Adds the security headers to every HTTP response of ``app``."""

    def __init__(self, app: ASGIApp, *, hsts: bool) -> None:
        self.app = app
        common = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
        ]
        if hsts:
            common.append((b"strict-transport-security", HSTS.encode()))
        self._headers = [*common, (b"content-security-policy", CSP.encode())]
        self._docs_headers = [*common, (b"content-security-policy", DOCS_CSP.encode())]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        extra = self._docs_headers if path.startswith(DOCS_PATHS) else self._headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [
                    *message.get("headers", []),
                    *(h for h in extra if h[0] not in names),
                ]
            await send(message)

        await self.app(scope, receive, send_with_headers)
