"""What the app answers, and logs, when the database refuses or is gone (issue 9).

Database refusals become 4xx with a stable ``code``; an unreachable database is a 503
``database_unavailable`` with ``Retry-After``; anything else is a 500 ``internal_error`` with a
request id. The log line names the exception type and the request id, never the statement's
parameters or the exception's message (PostgreSQL messages quote the values).
"""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI, Request
from sqlalchemy import text

from app.config import Settings
from app.main import create_app

CANARY = "leak-canary-5e1f-hunter2"
"""A value that must never appear in a log line."""


def _all_logged(caplog: pytest.LogCaptureFixture) -> str:
    """Everything the records carry: message, extra fields and formatted tracebacks."""
    handler_format = logging.Formatter()
    parts = []
    for record in caplog.records:
        parts.append(record.getMessage())
        parts.append(repr(vars(record)))
        if record.exc_info:
            parts.append(handler_format.formatException(record.exc_info))
    return "\n".join(parts)


def _add_failing_routes(app: FastAPI) -> None:
    """Routes whose statements fail in the real database with the canary as a parameter."""

    async def data_error(request: Request) -> None:
        async with request.app.state.engine.connect() as conn:
            await conn.execute(text("SELECT CAST(:v AS integer)"), {"v": CANARY})

    async def integrity_error(request: Request) -> None:
        async with request.app.state.engine.connect() as conn:
            await conn.execute(text("CREATE TEMP TABLE t (k text PRIMARY KEY)"))
            await conn.execute(text("INSERT INTO t VALUES (:v), (:v)"), {"v": CANARY})

    async def programming_error(request: Request) -> None:
        async with request.app.state.engine.connect() as conn:
            await conn.execute(text("SELECT * FROM no_such_table WHERE x = :v"), {"v": CANARY})

    async def plain_bug() -> None:
        raise RuntimeError(f"a bug holding a secret {CANARY}")

    app.add_api_route("/test/data-error", data_error)
    app.add_api_route("/test/integrity-error", integrity_error)
    app.add_api_route("/test/programming-error", programming_error)
    app.add_api_route("/test/plain-bug", plain_bug)


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/test/data-error", 422, "invalid_input"),
        ("/test/integrity-error", 409, "conflict"),
        ("/test/programming-error", 500, "internal_error"),
        ("/test/plain-bug", 500, "internal_error"),
    ],
)
async def test_database_and_unexpected_errors_answer_json_and_log_no_parameters(
    app: FastAPI,
    client: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
    path: str,
    status: int,
    code: str,
) -> None:
    _add_failing_routes(app)
    caplog.set_level(logging.DEBUG)
    response = await client.get(path, headers={"X-Request-ID": "req-abc.123"})
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code
    assert body["request_id"] == "req-abc.123" == response.headers["X-Request-ID"]
    assert CANARY not in response.text
    logged = _all_logged(caplog)
    assert CANARY not in logged
    ours = [r for r in caplog.records if r.name == "app.api.error_answers"]
    assert ours, "the error is logged"
    assert ours[-1].request_id == "req-abc.123"  # type: ignore[attr-defined]
    assert ours[-1].error_type  # type: ignore[attr-defined]


async def test_a_made_up_request_id_is_not_trusted(app: FastAPI, client: httpx.AsyncClient) -> None:
    _add_failing_routes(app)
    response = await client.get("/test/plain-bug", headers={"X-Request-ID": "bad id\n<script>"})
    assert response.status_code == 500
    rid = response.json()["request_id"]
    assert rid != "bad id\n<script>" and rid.isalnum()


async def test_database_unreachable_is_503_with_retry_after(tmp_path: Path) -> None:
    settings = Settings(
        DATABASE_URL="postgresql://nobody@127.0.0.1:1/nowhere",
        PREFCLUB_DATA_DIR=tmp_path,
        SECRET_KEY="x" * 40,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            for path in ("/api/members", "/api/auth/me", "/api/tables/1"):
                response = await client.get(path, cookies={"prefclub_session": "x"})
                assert response.status_code == 503, (path, response.text)
                assert response.json()["code"] == "database_unavailable"
                assert int(response.headers["Retry-After"]) > 0
            login = await client.post("/api/auth/login", json={"login": "a", "password": "b"})
            assert login.status_code == 503
            assert login.json()["code"] == "database_unavailable"
