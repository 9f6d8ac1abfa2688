"""``GET /healthz`` (the process answers) and ``GET /readyz`` (it can serve the club).

``/healthz`` never touches the database: a supervisor restarts a process whose ``/healthz``
fails, and a database outage is no reason to restart every server. ``/readyz`` says whether
requests can be served now: the database answers and its schema is at the head revision of
the migrations this code ships (:func:`app.db.migrate.head_revision`);
a load balancer sends members only to ready processes, and the browser's "server unavailable"
banner waits for it (static/js/api.js).
"""

from __future__ import annotations

import logging
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError

from app import __version__
from app.db.migrate import head_revision

router = APIRouter(tags=["health"])
log = logging.getLogger(__name__)

MIGRATIONS_PENDING = "migrations_pending"
DATABASE_UNAVAILABLE = "database_unavailable"


class Health(BaseModel):
    """The process is up."""

    status: Literal["ok"]
    version: str


class Readiness(BaseModel):
    """Whether the process can serve: its database and its schema."""

    status: Literal["ready", "not_ready"]
    code: str | None = None
    """Why it is not ready: ``database_unavailable`` or ``migrations_pending``."""
    detail: str | None = None
    """The same in English, for the operator (pages show ``code`` in the reader's language)."""
    database: Literal["ok", "unreachable"]
    schema_revision: str | None = None
    """The database's ``alembic_version`` (None: unreachable, or never migrated)."""
    head_revision: str
    """The newest revision of the migrations this code ships."""
    version: str


@router.get("/healthz", response_model=Health)
async def healthz() -> Health:
    """200 whenever the process answers (no database round trip)."""
    return Health(status="ok", version=__version__)


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={
        503: {
            "model": Readiness,
            "description": "the database is unreachable or not migrated to head",
        }
    },
)
async def readyz(request: Request) -> JSONResponse:
    """200 when the database answers and its schema is at the shipped head; else 503 with
    ``code`` saying which."""
    head = head_revision()
    try:
        async with request.app.state.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
            try:
                revision = await conn.scalar(text("SELECT version_num FROM alembic_version"))
            except ProgrammingError:  # no alembic_version table: never migrated
                revision = None
    except Exception as exc:  # any failure to reach the database is "not ready"
        log.warning("readiness: database unreachable", extra={"error": type(exc).__name__})
        return _answer(
            Readiness(
                status="not_ready",
                code=DATABASE_UNAVAILABLE,
                detail="the database does not answer",
                database="unreachable",
                head_revision=head,
                version=__version__,
            )
        )
    if revision != head:
        return _answer(
            Readiness(
                status="not_ready",
                code=MIGRATIONS_PENDING,
                detail=f"the database schema is at revision {revision or 'none'}"
                f", this code needs {head}: run `prefclub migrate`",
                database="ok",
                schema_revision=revision,
                head_revision=head,
                version=__version__,
            )
        )
    return _answer(
        Readiness(
            status="ready",
            database="ok",
            schema_revision=revision,
            head_revision=head,
            version=__version__,
        )
    )


def _answer(body: Readiness) -> JSONResponse:
    status = 200 if body.status == "ready" else 503
    headers = None if status == 200 else {"Retry-After": "5", "Cache-Control": "no-store"}
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)
