"""The FastAPI application factory.

``create_app(settings)`` builds an app whose database engine lives in the lifespan: it is created
when the server starts and disposed when it stops. Routers are mounted here and nowhere else.

This is also the composition root (docs/architecture.md): where one use case must trigger
another without importing it, :func:`wire_services` hands the callable in here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app import __version__
from app.api import archive as archive_api
from app.api import audit as audit_api
from app.api import auth, club_sessions, club_settings, club_tables, health, members, ui_support
from app.api import backups as backups_api
from app.api import fund as fund_api
from app.api import hints as hints_api
from app.api import metrics as metrics_api
from app.api import nights as nights_api
from app.api import presets as presets_api
from app.api import recording as recording_api
from app.api import seasons as seasons_api
from app.api import tables as tables_api
from app.api import ws as ws_api
from app.api.body_limit import BodyLimit
from app.api.docs import install_offline_docs
from app.api.error_answers import install_error_handlers
from app.clock import Clock, FileOffsetClock, SystemClock
from app.config import Settings, get_settings
from app.db.embedded import database_url
from app.db.engine import make_engine, make_sessionmaker
from app.db.supervisor import supervise_embedded
from app.realtime.hub import TableTimers
from app.security.addresses import TrustedProxies
from app.security.headers import SecurityHeaders
from app.security.passwords import PasswordHasherBusy
from app.services import backups, first_deal, schedule, seat_changes
from app.services.backup_schedule import BackupScheduler
from app.services.table_commands import TableCommands

log = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).resolve().parents[1] / "static"


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """Build the app for ``settings`` (the environment's when omitted) and ``clock``."""
    settings = settings or get_settings()
    secret = settings.resolved_secret()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        url = database_url(settings.database_url, settings.data_dir)
        engine = make_engine(url)
        app.state.engine = engine
        app.state.database_url = url
        app.state.sessionmaker = make_sessionmaker(engine)
        supervisor = None
        if not settings.database_url:  # the embedded server: restart it if it crashes
            supervisor = asyncio.create_task(
                supervise_embedded(settings.data_dir, engine), name="embedded-supervisor"
            )
        log.info("prefclub started", extra={"version": __version__})
        backups_task = await start_backups(app, url)
        try:
            yield
        finally:
            if supervisor is not None:
                supervisor.cancel()
                with suppress(asyncio.CancelledError):
                    await supervisor
            if backups_task is not None:
                backups_task.cancel()
                with suppress(asyncio.CancelledError):
                    await backups_task
            await engine.dispose()

    app = FastAPI(
        title="prefclub",
        version=__version__,
        description="The server a Preferans club runs its Monday nights on.",
        lifespan=lifespan,
        # Public API docs only where wanted (off in production by default: PREFCLUB_DOCS).
        docs_url="/docs" if settings.docs else None,
        redoc_url="/redoc" if settings.docs else None,
        openapi_url="/openapi.json" if settings.docs else None,
    )
    app.add_middleware(BodyLimit)  # inside the headers: a 413 carries them too
    app.add_middleware(SecurityHeaders, hsts=settings.production)
    app.add_exception_handler(PasswordHasherBusy, auth.busy_handler)
    app.state.settings = settings
    app.state.trusted_proxies = TrustedProxies(settings.forwarded_allow_ips)
    app.state.clock = clock or server_clock(settings)
    app.state.secret_key = secret
    install_error_handlers(app)
    wire_services(app)
    metrics_api.install(app, backup_age=backups.newest_backup_age_seconds)
    app.include_router(health.router)
    app.include_router(metrics_api.router)
    app.include_router(auth.router)
    app.include_router(members.router)
    app.include_router(club_sessions.router)
    app.include_router(club_tables.router)
    app.include_router(club_settings.router)
    app.include_router(tables_api.router)
    app.include_router(hints_api.router)
    app.include_router(ws_api.router)
    app.include_router(ui_support.router)
    app.include_router(fund_api.router)
    app.include_router(audit_api.router)
    app.include_router(archive_api.router)
    app.include_router(nights_api.router)
    app.include_router(recording_api.router)
    app.include_router(backups_api.router)
    app.include_router(presets_api.router)
    app.include_router(seasons_api.router)
    _mount_browser(app)
    install_offline_docs(app)
    return app


async def start_backups(app: FastAPI, url: str) -> asyncio.Task[None] | None:
    """Start the automatic backups (daily and after each session; docs/backup.md) unless
    ``PREFCLUB_BACKUP_KEEP`` is 0. A backup folder that cannot be written is logged now as an
    error; the server still starts, and the admin page shows the backups as missing."""
    settings: Settings = app.state.settings
    if settings.backup_keep <= 0:
        return None
    try:
        await asyncio.to_thread(backups.ensure_writable, settings.backup_dir)
    except backups.BackupError as exc:
        log.error("backup folder not writable", extra={"code": exc.code, "detail": str(exc)})
    scheduler = BackupScheduler(url, settings, app.state.clock, app.state.sessionmaker)
    return asyncio.create_task(scheduler.run(), name="prefclub-backups")


def server_clock(settings: Settings) -> Clock:
    """The real clock; in the test environment moved by ``PREFCLUB_TEST_CLOCK`` when it is set
    (never in development or production, whatever the environment says)."""
    if settings.environment == "test" and settings.test_clock_file is not None:
        return FileOffsetClock(settings.test_clock_file)
    return SystemClock()


def wire_services(app: FastAPI) -> None:
    """Hand the use cases their collaborators (DESIGN.md: never through a mutual import).

    * the command executor runs the seat-change service's ``apply_waiting`` right after each
      ``deal_ended`` (an agreed R-T4/R-T5 change waits for the deal's end);
    * the realtime hub's timer loop fires move deadlines through that executor, ends due
      sessions through the schedule (R-S3) and deals club tables' first deals when their
      session opens (:mod:`app.services.first_deal`), without importing any of them.
    """
    commands = TableCommands(after_deal=seat_changes.apply_waiting)
    app.state.table_commands = commands
    app.state.table_timers = TableTimers(
        fire_deadline=commands.fire_deadline,
        end_due_sessions=schedule.end_due_sessions,
        deal_first=first_deal.deal_first,
        due_first_deals=first_deal.due_first_deals,
    )


def _mount_browser(app: FastAPI) -> None:
    """The browser UI: ``static/`` at ``/static`` and its single page at ``/`` (and at the
    ``/reset-password`` address that reset links point to)."""
    index = STATIC_DIR / "index.html"

    async def page() -> FileResponse:
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    app.add_api_route("/", page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/reset-password", page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/room", page, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
