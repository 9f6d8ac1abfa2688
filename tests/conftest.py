"""Shared fixtures: a real PostgreSQL migrated once per run (once per xdist worker), a
rolled-back session per test, and an HTTP client bound to the app with that session; and how
a parallel run (pytest-xdist, docs/testing.md) shares the tests among its workers.
"""

from __future__ import annotations

import fcntl
import gc
import os
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from xdist.scheduler import LoadFileScheduling

from app.api.app_state import app_state
from app.api.deps import get_session
from app.config import Settings
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade
from app.main import close_pools, create_app, make_bot_runner, make_pools
from tests.support.databases import TEST_DATA_DIR, server_url

TEST_ARGON2 = {"PREFCLUB_ARGON2_MEMORY_KIB": "19456", "PREFCLUB_ARGON2_TIME_COST": "2"}
"""The suite hashes passwords at OWASP's 19 MiB × 2 passes, the least cost the server accepts
(a seventh of the default's CPU: some 700 hashes a run, docs/testing.md). Set in the environment
before any hash, so every server and command the tests start inherits it; the tests of hashing
under load use the default cost of their own (``tests/e2e/test_login_flood.py``,
``tests/api/test_auth_hashing.py``)."""
for _name, _value in TEST_ARGON2.items():
    os.environ.setdefault(_name, _value)

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    # A shell without job control starts a background command with Ctrl+C ignored, and its
    # children inherit that: the servers the tests stop with SIGINT would then end with 0
    # instead of 130 (tests/platform/test_serve_fork.py). The run behaves as one started in the
    # foreground, however it was started.
    signal.signal(signal.SIGINT, signal.default_int_handler)

SLOW_FIRST = (
    "tests/rules/test_engine_properties.py",
    "tests/platform/test_upgrade_dumps.py",
    "tests/platform/test_operations_doc.py",
    "tests/platform/test_backup_cli.py",
    "tests/browser/test_table_page.py",
    "tests/browser/test_club_night.py",
    "tests/rules/test_solver.py",
    "tests/e2e/test_backup_live.py",
)
"""The files whose tests took longest (a minute or more in all, or one long test), started first
in a parallel run so that none of them is left running alone at the end."""

FREE_FILES = ("tests/platform/test_upgrade_dumps.py", "tests/platform/test_backup_cli.py")
"""Besides ``tests/rules/``, the files whose tests a parallel run may hand to different workers
one by one; the tests of every other file stay together in one worker, in order, with the file's
module fixtures (a real server, a browser) made once. A free file must use no module or class
fixture: the collection hook below refuses it."""

SHARED_SCOPES = frozenset({"module", "class", "package"})


def free_file(path: str) -> bool:
    """Whether the tests of the file ``path`` may go to different workers."""
    return path.startswith("tests/rules/") or path in FREE_FILES


def file_of(nodeid: str) -> str:
    """The test file of a test id (``tests/api/test_x.py::test_y`` → ``tests/api/test_x.py``)."""
    return nodeid.split("::", 1)[0]


def _weight(item: pytest.Item) -> int:
    """Lower starts earlier: the slowest files, then the other real servers and browsers."""
    path = file_of(item.nodeid)
    if path in SLOW_FIRST:
        return SLOW_FIRST.index(path)
    if item.get_closest_marker("browser") or item.get_closest_marker("e2e"):
        return len(SLOW_FIRST)
    return len(SLOW_FIRST) + 1


def _spread_alone_files(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with the files of ``alone`` tests spread evenly among the short tests at the end.

    An ``alone`` test waits for the test running in the other worker to end before it measures,
    and keeps the other worker waiting while it measures. Among the short tests that wait is a
    second, not a minute-long browser test (a two-worker run once waited some 100 core-seconds
    so); side by side, two ``alone`` files would take turns and leave one worker idle throughout.
    """
    alone_files = list(
        dict.fromkeys(file_of(i.nodeid) for i in items if i.get_closest_marker("alone"))
    )
    if not alone_files:
        return items
    others = [i for i in items if file_of(i.nodeid) not in alone_files]
    files = [file_of(i.nodeid) for i in others]
    rest = next((n for n, i in enumerate(others) if _weight(i) > len(SLOW_FIRST)), len(others))
    starts = [n for n in range(rest, len(others)) if n == rest or files[n] != files[n - 1]]
    starts = starts or [len(others)]
    at: dict[int, list[str]] = {}
    for k, path in enumerate(alone_files):
        at.setdefault(starts[(k + 1) * len(starts) // (len(alone_files) + 1)], []).append(path)
    ordered: list[pytest.Item] = []
    for n, item in enumerate([*others, None]):
        for path in at.get(n, ()):
            ordered += [i for i in items if file_of(i.nodeid) == path]
        if item is not None:
            ordered.append(item)
    return ordered


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a parallel run, put the slowest files first and spread the ``alone`` files among the
    short tests (xdist hands the work out in this order, ``--no-loadscope-reorder``), and check
    that no free file shares a module fixture."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    for item in items:
        path = file_of(item.nodeid)
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if free_file(path) and any(d and d[-1].scope in SHARED_SCOPES for d in defs):
            raise pytest.UsageError(
                f"{item.nodeid} uses a module fixture: take it out of FREE_FILES"
            )
    items.sort(key=_weight)  # stable: within a weight the collection order is kept
    items[:] = _spread_alone_files(items)


class _FileScheduling(LoadFileScheduling):
    """``--dist loadfile``, except that the tests of the free files are single work units."""

    def _split_scope(self, nodeid: str) -> str:
        path = file_of(nodeid)
        return nodeid if free_file(path) else path


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The scheduler of ``--dist loadfile`` (pyproject.toml's addopts)."""
    if config.getvalue("dist") == "loadfile":
        return _FileScheduling(config, log)
    return None


ALONE_INTENT = TEST_DATA_DIR.parent / "test-alone.intent"
ALONE_RUN = TEST_DATA_DIR.parent / "test-alone.run"
"""Lock files shared by the workers of a parallel run (see :func:`machine_share`)."""


class MachineShare:
    """What a test holds of the machine (see :func:`machine_share`). Every test starts with
    its share; an ``alone`` test takes the whole machine for its measuring only
    (:meth:`alone`) and may give it back before it ends (:meth:`share`)."""

    def __init__(self, intent: IO[str] | None = None, run: IO[str] | None = None) -> None:
        self._intent = intent
        self._run = run
        self.measured = False
        """Whether :meth:`alone` was called (an ``alone`` test that never calls it fails)."""
        self._exclusive = False

    @classmethod
    def taken(cls, intent: IO[str], run: IO[str]) -> MachineShare:
        """Every test's start in a parallel run: the run lock shared, taken through the intent
        lock, so that an ``alone`` test waiting for the machine goes first."""
        fcntl.flock(intent, fcntl.LOCK_SH)
        fcntl.flock(run, fcntl.LOCK_SH)
        fcntl.flock(intent, fcntl.LOCK_UN)
        return cls(intent, run)

    def alone(self) -> None:
        """From here until :meth:`share` or the test's end, no other test runs (it waits for
        the other workers' running tests to end, and no new one starts), and this process's
        garbage collector is held off: one collection now, none until the test ends. The
        round trips are timed in this process, and a full collection here (a worker that has
        run a thousand tests walks hundreds of thousands of objects: 0.2–1 s) once stalled two
        pings of the claim pool at 0.22 s, a pause of the measurement, not of the server.

        It blocks until the machine is free, the test's event loop with it: call it while no
        socket of the test is open (a server's keepalive ping would go unanswered). The run
        lock is let go before the intent lock is taken: two ``alone`` tests that got here
        together would otherwise each hold the run lock shared while waiting for the other's
        intent lock."""
        if self.measured:
            return
        self.measured = True
        gc.collect()
        gc.disable()
        if self._intent is None or self._run is None:
            return
        fcntl.flock(self._run, fcntl.LOCK_UN)
        fcntl.flock(self._intent, fcntl.LOCK_EX)
        fcntl.flock(self._run, fcntl.LOCK_EX)
        self._exclusive = True

    def share(self) -> None:
        """An ``alone`` test whose measuring is over: the other workers' tests may run beside
        the rest of it (a wait, say). The run lock goes from exclusive to shared while the
        intent lock is still held, so no other ``alone`` test can slip in between."""
        if not self._exclusive or self._intent is None or self._run is None:
            return
        fcntl.flock(self._run, fcntl.LOCK_SH)
        fcntl.flock(self._intent, fcntl.LOCK_UN)
        self._exclusive = False

    def end(self) -> None:
        """The test is over: the collector runs again (the locks are the fixture's)."""
        if self.measured:
            gc.enable()


@pytest.fixture(autouse=True)
def machine_share(request: pytest.FixtureRequest) -> Iterator[MachineShare]:
    """A test marked ``alone`` (it measures latencies under a load) measures while no other
    worker runs a test: every test holds the lock file ``ALONE_RUN`` shared, and such a test
    asks for this fixture and calls ``machine_share.alone()`` when its measuring starts, which
    takes ``ALONE_RUN`` exclusively (its setup runs beside the other workers' tests).
    ``ALONE_INTENT`` makes a waiting ``alone`` test go first: while it waits for the running
    tests to end, no new test starts. An ``alone`` test may hand the machine back before it
    ends (:meth:`MachineShare.share`); one that never calls ``alone()`` fails. A serial run
    takes no lock (``alone()`` still holds the collector off)."""
    alone = request.node.get_closest_marker("alone") is not None
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        share = MachineShare()
        yield share
        share.end()
    else:
        ALONE_RUN.parent.mkdir(parents=True, exist_ok=True)
        with ALONE_INTENT.open("a") as intent, ALONE_RUN.open("a") as run:
            share = MachineShare.taken(intent, run)
            try:
                yield share
            finally:
                share.end()
                fcntl.flock(run, fcntl.LOCK_UN)
                fcntl.flock(intent, fcntl.LOCK_UN)
    if alone and not share.measured:
        pytest.fail("an alone test must call machine_share.alone() when its measuring starts")


@pytest.fixture(scope="session")
def database_url() -> str:
    """The migrated test database (migrations run once per test session)."""
    url = server_url()
    upgrade(url)
    return url


@pytest.fixture(scope="session")
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """One async engine for the whole run."""
    eng = make_engine(database_url)
    yield eng
    await eng.dispose()


@pytest.fixture
async def db_session(engine: AsyncEngine) -> AsyncIterator[AsyncSession]:
    """A session inside an outer transaction that is rolled back after the test.

    Commits inside the code under test only release savepoints, so nothing outlives the test.
    """
    async with engine.connect() as conn:
        outer = await conn.begin()
        session = AsyncSession(
            bind=conn, join_transaction_mode="create_savepoint", expire_on_commit=False
        )
        try:
            yield session
        finally:
            await session.close()
            await outer.rollback()


@pytest.fixture
def test_settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings of a test app: the test database, a throwaway data folder."""
    return Settings(
        DATABASE_URL=database_url,
        PREFCLUB_DATA_DIR=tmp_path,
        SECRET_KEY="test-secret-key-that-is-long-enough-for-signing",
        PREFCLUB_ENV="test",
    )


@pytest.fixture
async def app(test_settings: Settings, engine: AsyncEngine, db_session: AsyncSession):  # type: ignore[no-untyped-def]
    """The app with its lifespan state set up and every request using ``db_session``; the
    worker processes a test started are stopped after it."""
    application = create_app(test_settings)
    state = app_state(application)
    state.engine = engine
    state.sessionmaker = make_sessionmaker(engine)
    state.database_url = test_settings.database_url
    make_pools(state)  # what the lifespan would make (it is not run)
    state.bot_runner = make_bot_runner(state)

    async def _session() -> AsyncIterator[AsyncSession]:
        yield db_session
        await db_session.commit()

    application.dependency_overrides[get_session] = _session
    yield application
    await close_pools(state)


@pytest.fixture
async def client(app) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    """An HTTP client talking to the app in-process."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as c:
        yield c


__all__ = ["TEST_DATA_DIR"]
