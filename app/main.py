"""The FastAPI application factory.

``create_app(settings)`` builds an app and its typed state (:mod:`app.api.app_state`); its one
lifespan, :func:`serving`, makes and starts the engine, the hub, the bots' runner and the
background tasks in order and stops them in reverse. Routers are mounted here and nowhere else,
and none has a lifespan of its own.

This is also the composition root (docs/architecture.md): where one use case must trigger
another without importing it, :func:`wire_services` hands the callable in here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
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
from app.api import luck as luck_api
from app.api import metrics as metrics_api
from app.api import nights as nights_api
from app.api import presets as presets_api
from app.api import recording as recording_api
from app.api import seasons as seasons_api
from app.api import tables as tables_api
from app.api import ws as ws_api
from app.api.app_state import AppState, app_state
from app.api.body_limit import BodyLimit
from app.api.docs import install_error_schemas, install_offline_docs
from app.api.error_answers import install_error_handlers
from app.bots.runner import BotRunner
from app.clock import Clock, server_clock
from app.config import Settings, get_settings
from app.db.embedded import database_url
from app.db.engine import make_engine, make_sessionmaker
from app.db.supervisor import supervise_embedded
from app.realtime.chat_rate import RecentChats
from app.realtime.hub import Hub, make_solver_pool, make_writer
from app.realtime.socket_caps import SocketCaps
from app.realtime.table_timers import TableTimers
from app.security.addresses import TrustedProxies
from app.security.headers import SecurityHeaders
from app.security.passwords import PasswordHasherBusy
from app.services import analysis_cache, backups, first_deal, print_pdf, schedule, seat_changes
from app.services.backup_schedule import BackupScheduler
from app.services.deal_luck import LuckPass
from app.services.move_guard import FAST_WRITER
from app.services.table_commands import TableCommands

log = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).resolve().parents[1] / "static"


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """Build the app for ``settings`` (the environment's when omitted) and ``clock``."""
    settings = settings or get_settings()
    secret = settings.resolved_secret()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with serving(app_state(app)):
            yield

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
    app.state = state = AppState()
    state.settings = settings
    state.trusted_proxies = TrustedProxies(settings.forwarded_allow_ips)
    state.clock = clock or server_clock(settings)
    state.secret_key = secret
    state.socket_caps = SocketCaps(settings.ws_per_member, settings.ws_per_address)
    state.recent_chats = RecentChats()
    state.rng = None
    state.hub = None
    state.metrics_registry = state.metrics_collector = state.loop_lag = None
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
    app.include_router(luck_api.router)
    _mount_browser(app)
    install_error_schemas(app)
    install_offline_docs(app)
    return app


@asynccontextmanager
async def serving(state: AppState) -> AsyncIterator[None]:
    """The app's one lifespan (docs/architecture.md "One start-up"): make and start, in order,
    the database engine, the embedded server's supervisor, the worker pools, the claim
    solver's pool and the command writer (both lent to the hub), the hub, the house bots'
    runner, the event-loop probe and the backups; on the way out stop them in the reverse
    order, the engine last. Nothing of it is left running after the ``async with``:
    an app started and stopped twice in one process leaves no task or thread behind
    (``tests/platform/test_startup.py``)."""
    settings = state.settings
    url = database_url(settings.database_url, settings.data_dir)
    engine = make_engine(url)
    state.engine = engine
    state.database_url = url
    state.sessionmaker = make_sessionmaker(engine)
    try:
        async with contextlib.AsyncExitStack() as stack:
            if not settings.database_url:  # the embedded server: restart it if it crashes
                supervisor = asyncio.create_task(
                    supervise_embedded(settings.data_dir, engine), name="embedded-supervisor"
                )
                stack.push_async_callback(_cancel, supervisor)
            make_pools(state)
            stack.push_async_callback(close_pools, state)
            state.solver_pool = make_solver_pool()
            stack.push_async_callback(state.solver_pool.aclose)
            state.writer = make_writer(state.sessionmaker, FAST_WRITER)
            stack.push_async_callback(state.writer.close)
            hub = Hub(
                state.sessionmaker,
                url,
                state.clock,
                timers=state.table_timers,
                workers=state.solver_pool,
                committer=state.writer,
            )
            state.hub = hub
            await hub.start()
            stack.push_async_callback(_stop_hub, state)
            state.bot_runner = make_bot_runner(state)
            state.bot_runner.start_adopting()
            stack.push_async_callback(state.bot_runner.stop)
            if state.loop_lag is not None:
                state.loop_lag.start()
                stack.push_async_callback(state.loop_lag.stop)
            state.luck_pass = None
            if state.settings.luck_pass:
                state.luck_pass = LuckPass(state.sessionmaker, state.analysis_pool)
                state.luck_pass.start()
                stack.push_async_callback(state.luck_pass.stop)
            backups_task = await start_backups(state, url)
            if backups_task is not None:
                stack.push_async_callback(_cancel, backups_task)
            log.info("prefclub started", extra={"version": __version__})
            yield
    finally:
        await engine.dispose()


def make_pools(state: AppState) -> None:
    """The three worker pools (their processes start with their first job)."""
    state.analysis_pool = analysis_cache.make_pool()
    state.hint_pool = hints_api.make_pool()
    state.print_pool = print_pdf.make_pool()


def make_bot_runner(state: AppState) -> BotRunner:
    """The house bots' runner of the app whose database is ``state``'s."""
    return BotRunner(state.settings.port, state.database_url, state.sessionmaker, state.clock.now)


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def _stop_hub(state: AppState) -> None:
    """Stop the hub (closing every socket with 1001) and forget it."""
    hub, state.hub = state.hub, None
    if hub is not None:
        await hub.stop()


async def close_pools(state: AppState) -> None:
    """Stop the worker processes of the three pools (those that ever started)."""
    for pool in (state.print_pool, state.hint_pool, state.analysis_pool):
        await pool.aclose()


async def start_backups(state: AppState, url: str) -> asyncio.Task[None] | None:
    """Start the automatic backups (daily and after each session; docs/backup.md) unless
    ``PREFCLUB_BACKUP_KEEP`` is 0. A backup folder that cannot be written is logged now as an
    error; the server still starts, and the admin page shows the backups as missing."""
    settings = state.settings
    if settings.backup_keep <= 0:
        return None
    try:
        await asyncio.to_thread(backups.ensure_writable, settings.backup_dir)
    except backups.BackupError as exc:
        log.error("backup folder not writable", extra={"code": exc.code, "detail": str(exc)})
    scheduler = BackupScheduler(url, settings, state.clock, state.sessionmaker)
    return asyncio.create_task(scheduler.run(), name="prefclub-backups")


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
    ``/reset-password`` address that reset links point to); the web app's manifest and its
    service worker at the root, whose scope is the whole site (docs/browser.md)."""
    index = STATIC_DIR / "index.html"

    async def page() -> FileResponse:
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    async def manifest() -> FileResponse:
        return FileResponse(
            STATIC_DIR / "manifest.webmanifest",
            media_type="application/manifest+json",
            headers={"Cache-Control": "no-cache"},
        )

    async def service_worker() -> FileResponse:
        return FileResponse(
            STATIC_DIR / "sw.js",
            media_type="text/javascript",
            headers={"Cache-Control": "no-cache"},
        )

    app.add_api_route("/manifest.webmanifest", manifest, methods=["GET"], include_in_schema=False)
    app.add_api_route("/sw.js", service_worker, methods=["GET"], include_in_schema=False)

    app.add_api_route("/", page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/reset-password", page, methods=["GET"], include_in_schema=False)
    app.add_api_route("/room", page, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
