"""``GET /metrics``: the app's metrics in the Prometheus text format, behind a bearer token.

Off (404, as for any unknown address) unless ``PREFCLUB_METRICS_TOKEN`` is set; a request
without ``Authorization: Bearer <token>`` or with another token gets 401 with
``WWW-Authenticate: Bearer`` and the usual error body, and nothing is read or changed. The
token is compared in constant time (both sides hashed first, so neither its length nor its
bytes show in the time taken).

The app has a registry of its own (not ``prometheus_client``'s global one: two apps in one
process, as in the tests, never share or clash), holding :class:`AppCollector` and the
library's process and garbage-collector collectors. :func:`install` makes it and the event-loop
probe at start-up (``app/main.py``), with the callable that tells the newest backup's age.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math

from fastapi import APIRouter, FastAPI, Request, status
from fastapi.responses import Response
from prometheus_client import generate_latest
from prometheus_client.gc_collector import GCCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import CollectorRegistry

from app.api.app_state import BackupAge, app_state
from app.api.error_answers import CodedHTTPException
from app.api.metrics_collector import AppCollector
from app.config import Settings
from app.realtime.loop_lag import LoopLagProbe

log = logging.getLogger(__name__)


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The classic text format ``generate_latest`` writes (every Prometheus reads it)."""
TOKEN_REQUIRED = "metrics_token_required"
TOKEN_INVALID = "metrics_token_invalid"


def no_backup_age(settings: Settings) -> float | None:
    """The provider until one is wired: no backup known."""
    return None


def install(app: FastAPI, backup_age: BackupAge = no_backup_age) -> None:
    """Give ``app`` its metrics registry (only when ``PREFCLUB_METRICS_TOKEN`` is set) and the
    provider of the last backup's age."""
    app.state.backup_age = backup_age
    settings: Settings = app.state.settings
    if settings.metrics_token is None:
        return
    registry = CollectorRegistry(auto_describe=False)
    collector = AppCollector(app.state)
    registry.register(collector)
    ProcessCollector(registry=registry)
    GCCollector(registry=registry)
    app.state.metrics_registry = registry
    app.state.metrics_collector = collector
    app.state.loop_lag = LoopLagProbe()


router = APIRouter(tags=["operations"])
"""The event-loop probe :func:`install` makes runs while the app serves (its lifespan,
:func:`app.main.serving`)."""


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def _check_token(request: Request, expected: str) -> None:
    """Raise 401 unless the request carries ``Authorization: Bearer <expected>``."""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    given = given.strip()
    if scheme.lower() != "bearer" or not given:
        raise CodedHTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "send the metrics token as 'Authorization: Bearer <token>'",
            TOKEN_REQUIRED,
            {"WWW-Authenticate": 'Bearer realm="prefclub-metrics"'},
        )
    if not hmac.compare_digest(_digest(given), _digest(expected)):
        raise CodedHTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "the metrics token is not the configured one",
            TOKEN_INVALID,
            {"WWW-Authenticate": 'Bearer realm="prefclub-metrics", error="invalid_token"'},
        )


async def _backup_age(request: Request) -> float | None:
    """The provider's answer, read in a thread; None (NaN) if it fails."""
    provider = app_state(request.app).backup_age
    try:
        age = await asyncio.to_thread(provider, request.app.state.settings)
    except Exception:
        log.warning("metrics: the last backup's age could not be read", exc_info=True)
        return None
    if age is None or not math.isfinite(age):
        return None
    return float(age)


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """The Prometheus text exposition of this process (docs/metrics.md)."""
    settings: Settings = request.app.state.settings
    registry = app_state(request.app).metrics_registry
    if settings.metrics_token is None or registry is None:
        raise CodedHTTPException(status.HTTP_404_NOT_FOUND, "Not Found", "not_found")
    _check_token(request, settings.metrics_token)
    collector: AppCollector = request.app.state.metrics_collector
    collector.backup_age = await _backup_age(request)
    return Response(
        generate_latest(registry), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"}
    )
