"""HTTP hardening: security headers on every response, Secure cookies and HSTS in production,
and the API docs off in production unless ``PREFCLUB_DOCS`` turns them on."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.api.deps import get_session
from app.config import Settings
from app.db.engine import make_sessionmaker
from app.main import create_app
from app.security.login_sessions import CSRF_COOKIE, SESSION_COOKIE
from tests.api.conftest import log_in


def _app(settings: Settings, engine: AsyncEngine, db_session: AsyncSession) -> FastAPI:
    application = create_app(settings)
    application.state.engine = engine
    application.state.sessionmaker = make_sessionmaker(engine)

    async def _session() -> AsyncIterator[AsyncSession]:
        yield db_session
        await db_session.commit()

    application.dependency_overrides[get_session] = _session
    return application


@pytest.fixture
async def production(
    test_settings: Settings, engine: AsyncEngine, db_session: AsyncSession
) -> AsyncIterator[httpx.AsyncClient]:
    settings = test_settings.model_copy(update={"environment": "production"})
    application = _app(settings, engine, db_session)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=application), base_url="http://127.0.0.1:8000"
    ) as c:
        yield c


PAGES = [
    "/",
    "/reset-password",
    "/static/js/app.js",
    "/api/auth/me",
    "/healthz",
    "/readyz",
    "/api/no-such-thing",
]


@pytest.mark.parametrize("path", PAGES)
async def test_every_response_carries_the_security_headers(
    client: httpx.AsyncClient, path: str
) -> None:
    response = await client.get(path)
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline' https" not in csp
    assert "'unsafe-eval'" not in csp and "frame-ancestors 'none'" in csp
    assert "default-src 'self'" in csp and "object-src 'none'" in csp
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert "strict-transport-security" not in response.headers  # not outside production


async def test_the_docs_keep_working_under_their_own_policy(client: httpx.AsyncClient) -> None:
    docs = await client.get("/docs")
    assert docs.status_code == 200
    csp = docs.headers["content-security-policy"]
    assert "https://cdn.jsdelivr.net" in csp and "frame-ancestors 'none'" in csp
    assert (await client.get("/openapi.json")).status_code == 200


async def test_production_hides_the_docs(production: httpx.AsyncClient) -> None:
    for path in ("/docs", "/redoc", "/openapi.json"):
        assert (await production.get(path)).status_code == 404, path


def test_docs_setting(tmp_path) -> None:
    base = {"PREFCLUB_DATA_DIR": tmp_path, "SECRET_KEY": "k" * 48}
    assert Settings(**base).docs is True
    assert Settings(**base, PREFCLUB_ENV="production").docs is False
    assert Settings(**base, PREFCLUB_ENV="production", PREFCLUB_DOCS="1").docs is True
    assert Settings(**base, PREFCLUB_DOCS="false").docs is False


async def test_production_sets_secure_cookies_and_hsts(
    production: httpx.AsyncClient, make_member
) -> None:
    member = await make_member()
    response = await log_in(production, member.login)
    assert response.status_code == 200
    cookies = response.headers.get_list("set-cookie")
    for name in (SESSION_COOKIE, CSRF_COOKIE):
        cookie = next(c for c in cookies if c.startswith(name + "="))
        assert "secure" in cookie.lower().split("; "), cookie
    assert response.headers["strict-transport-security"].startswith("max-age=")
    assert "max-age=31536000" in (await production.get("/")).headers["strict-transport-security"]


async def test_development_cookies_work_over_plain_http(
    client: httpx.AsyncClient, make_member
) -> None:
    member = await make_member()
    response = await log_in(client, member.login)
    session_cookie = next(
        c for c in response.headers.get_list("set-cookie") if c.startswith(SESSION_COOKIE + "=")
    )
    assert "secure" not in session_cookie.lower().split("; ")
