"""One start-up (issue 29): the app's one lifespan makes its parts in order and stops them in
reverse, and an app started and stopped twice in one process leaves no task, thread or worker
process behind (:func:`app.main.serving`, docs/architecture.md "One start-up")."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading

import httpx

from app.api.app_state import app_state
from app.config import Settings
from app.main import create_app

HUB_TASKS = {"hub-listen", "hub-poll", "hub-presence", "hub-heartbeat", "hub-timers"}


def _ours(threads: set[threading.Thread]) -> set[str]:
    """Threads that are not the event loop's own default executor (reused, never ours)."""
    return {t.name for t in threads if t.is_alive() and not t.name.startswith("asyncio_")}


async def test_the_app_starts_and_stops_twice_leaving_nothing_behind(
    test_settings: Settings,
) -> None:
    """Each round: the hub's five loops, the bots' adopter, the loop probe and the backups run
    while the app serves; a request reads the database; a worker process answers a job. After
    each stop: the hub is gone, and no task, thread or child process is left."""
    app = create_app(test_settings.model_copy(update={"metrics_token": "startup-test-token"}))
    state = app_state(app)
    tasks_before = asyncio.all_tasks()
    threads_before = _ours(set(threading.enumerate()))
    children_before = set(multiprocessing.active_children())  # other tests' pools, if any
    for _ in range(2):
        async with app.router.lifespan_context(app):
            running = {t.get_name() for t in asyncio.all_tasks() - tasks_before}
            assert HUB_TASKS | {"bot-adopter", "loop-lag-probe", "prefclub-backups"} <= running
            assert state.hub is not None
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                assert (await client.get("/readyz")).status_code == 200
            assert await state.analysis_pool.run(abs, -3) == 3
            assert state.analysis_pool.started
            assert set(multiprocessing.active_children()) - children_before
        assert state.hub is None
        assert not state.analysis_pool.started
        left = {t.get_name() for t in asyncio.all_tasks() - tasks_before if not t.done()}
        assert left == set()
        assert _ours(set(threading.enumerate())) <= threads_before
        assert set(multiprocessing.active_children()) <= children_before
