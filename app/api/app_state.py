"""The app's one typed state: every object the server keeps for its lifetime, and who makes it.

Starlette keeps an app's long-lived objects in ``app.state``, an untyped bag. prefclub's
``app.state`` is an :class:`AppState`: the same bag (``request.app.state.settings`` reads as
before) with every attribute declared here, so each has one type and one maker. Nothing is
made on first use; the composition root (``app/main.py``) makes each part in one of two steps:

* :func:`app.main.create_app` — what needs no running loop or database: the settings, the
  clock, the signing secret, the trusted proxies, the command executor and the hub's timer
  callbacks, the socket caps and chat window, the metrics registry and its loop probe;
* its lifespan (:func:`app.main.serving`), in this order — the database engine, the embedded
  server's supervisor, the three worker pools (their processes start with their first job),
  the claim solver's pool and the command writer (lent to the hub), the hub (started before
  the app answers, not left to a background task), the house bots' runner, the event-loop
  probe, the backup scheduler; stopped in the reverse order, the engine
  disposed last. Tests that serve an app without its lifespan make the pools and the runner
  with :func:`app.main.make_pools` and :func:`app.main.make_bot_runner`.

:func:`app_state` gives the typed view to code that holds the app.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from starlette.datastructures import State

if TYPE_CHECKING:
    from prometheus_client.registry import Collector, CollectorRegistry
    from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

    from app.bots.runner import BotRunner
    from app.clock import Clock
    from app.config import Settings
    from app.db.group_commit import GroupCommit
    from app.realtime.chat_rate import RecentChats
    from app.realtime.connection import Connection
    from app.realtime.hub import Hub
    from app.realtime.loop_lag import LoopLagProbe
    from app.realtime.socket_caps import SocketCaps
    from app.realtime.table_timers import TableTimers
    from app.security.addresses import TrustedProxies
    from app.services.deal_luck import LuckPass
    from app.services.table_commands import TableCommands
    from app.workers import WorkerPool


BackupAge: TypeAlias = "Callable[[Settings], float | None]"
"""Seconds since the newest backup was made, None when there is none (it may read files: it
is called in a thread)."""


class AppState(State):
    """``app.state`` of a prefclub app (see the module docstring for who makes what)."""

    # create_app
    settings: Settings
    clock: Clock
    secret_key: str
    trusted_proxies: TrustedProxies
    table_commands: TableCommands
    table_timers: TableTimers
    socket_caps: SocketCaps[Connection]
    recent_chats: RecentChats
    backup_age: BackupAge
    metrics_registry: CollectorRegistry | None
    metrics_collector: Collector | None
    """The app's own gauges (``api.metrics_collector.AppCollector``)."""
    loop_lag: LoopLagProbe | None
    rng: random.Random | None
    """A seeded draw for tests; ``None``: the system's randomness."""

    # the lifespan
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    database_url: str
    analysis_pool: WorkerPool
    """Deal analyses of the archive and live tables (``services.analysis_cache``)."""
    hint_pool: WorkerPool
    """The strong bot's hints (``api.hints``)."""
    print_pool: WorkerPool
    """PDFs of the night's results and of pulkas (``services.print_pdf``)."""
    solver_pool: WorkerPool
    """The claim solver's processes, lent to the hub."""
    writer: GroupCommit
    """The process's writer of table commands (``realtime.hub.make_writer``), lent to the hub."""
    hub: Hub | None
    """``None`` once the lifespan has stopped it."""
    bot_runner: BotRunner | Any
    """The house bots' runner (a test may put anything with ``spawn`` here)."""
    luck_pass: LuckPass | None
    """The background weighing of finished deals (``PREFCLUB_LUCK``; ``None`` when off)."""


def app_state(app: Any) -> AppState:
    """The typed ``app.state`` of ``app`` (a FastAPI app built by ``create_app``)."""
    return cast(AppState, app.state)
