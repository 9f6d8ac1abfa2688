"""GET /healthz reports database reachability."""

from __future__ import annotations

import httpx

from app.config import Settings
from app.main import create_app


async def test_healthz_ok_when_database_answers(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"


async def test_healthz_503_when_database_unreachable(tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(
        DATABASE_URL="postgresql://nobody@127.0.0.1:1/nowhere",
        PREFCLUB_DATA_DIR=tmp_path,
        SECRET_KEY="x" * 40,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            response = await client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "unreachable"
