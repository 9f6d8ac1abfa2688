"""``/healthz`` says the process answers (whatever its database does); ``/readyz`` says it can
serve: the database answers and its schema is at the head of the migrations shipped."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.db.migrate import head_revision, upgrade
from app.main import create_app
from tests.support.databases import drop_database, scratch_database

UNREACHABLE = "postgresql://nobody@127.0.0.1:1/nowhere"


def _settings(url: str, tmp_path: Path) -> Settings:
    return Settings(DATABASE_URL=url, PREFCLUB_DATA_DIR=tmp_path, SECRET_KEY="x" * 40)


async def _get(app: FastAPI, path: str) -> httpx.Response:
    """``path`` of ``app`` with its lifespan running (its own engine on its own database)."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.get(path)


@pytest.fixture
def scratch(database_url: str) -> Iterator[str]:
    """An empty database of this test's own."""
    url, name = scratch_database(database_url)
    try:
        yield url
    finally:
        drop_database(database_url, name)


@pytest.fixture
async def down_app(tmp_path: Path) -> AsyncIterator[FastAPI]:
    yield create_app(_settings(UNREACHABLE, tmp_path))


async def test_healthz_is_200_while_the_database_answers(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert "database" not in response.json()  # it never asks the database


async def test_healthz_is_200_even_when_the_database_is_unreachable(down_app: FastAPI) -> None:
    response = await _get(down_app, "/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


async def test_readyz_is_200_on_a_database_at_head(client: httpx.AsyncClient) -> None:
    response = await client.get("/readyz")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ready" and body["database"] == "ok"
    assert body["schema_revision"] == body["head_revision"] == head_revision()
    assert body["code"] is None


async def test_readyz_is_503_database_unavailable_when_unreachable(down_app: FastAPI) -> None:
    response = await _get(down_app, "/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "database_unavailable" and body["database"] == "unreachable"
    assert body["status"] == "not_ready" and body["detail"]
    assert int(response.headers["Retry-After"]) > 0


async def test_readyz_is_503_migrations_pending_at_an_older_revision(
    scratch: str, tmp_path: Path
) -> None:
    older = "0014"
    assert older != head_revision()
    upgrade(scratch, older)
    response = await _get(create_app(_settings(scratch, tmp_path)), "/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "migrations_pending" and body["database"] == "ok"
    assert body["schema_revision"] == older and body["head_revision"] == head_revision()
    assert "prefclub migrate" in body["detail"]

    upgrade(scratch)  # once migrated, the same database makes the process ready
    response = await _get(create_app(_settings(scratch, tmp_path)), "/readyz")
    assert response.status_code == 200, response.text


async def test_readyz_is_503_migrations_pending_on_a_never_migrated_database(
    scratch: str, tmp_path: Path
) -> None:
    response = await _get(create_app(_settings(scratch, tmp_path)), "/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "migrations_pending" and body["schema_revision"] is None
