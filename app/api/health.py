"""``GET /healthz``: is the process up and can it reach its database."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import text

from app import __version__

router = APIRouter(tags=["health"])
log = logging.getLogger(__name__)


class Health(BaseModel):
    """The health report."""

    status: str
    database: str
    version: str


@router.get(
    "/healthz",
    response_model=Health,
    responses={503: {"model": Health, "description": "the database is unreachable"}},
)
async def healthz(request: Request) -> JSONResponse:
    """200 when the database answers, 503 when it does not."""
    try:
        async with request.app.state.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as exc:  # any failure to reach the database is "down"
        log.warning("health check: database unreachable", extra={"error": str(exc)})
        body = Health(status="degraded", database="unreachable", version=__version__)
        return JSONResponse(body.model_dump(), status_code=503)
    return JSONResponse(Health(status="ok", database="ok", version=__version__).model_dump())
