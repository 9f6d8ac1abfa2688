"""Password hashing with Argon2 (pwdlib) and one-time password generation.

Argon2 is deliberately slow (~0.1-0.3 s of CPU). Run on the event loop, every login would stall
every table of the process, so the server hashes and verifies only through
:func:`hash_password_async` and :func:`verify_password_async`, in the :class:`HashPool`:

* **It never takes every core.** At most ``cores - 1`` threads hash (one on a two-core box), each
  hash runs in one thread (Argon2 parallelism 1: with the library's default of 4 lanes, one
  "hashing thread" spawned four and took both cores of a two-core box), and each runs at a
  lower CPU priority (Linux nices threads one by one): the event loop, which
  serves every table, always has a core and wins it back at once. (The Argon2 C code releases
  the GIL, so a thread hashes in parallel with the loop; a process pool would add a pickling
  round trip and nothing else.)
* **Its queue is bounded, in two lanes.** The open lane holds :data:`HASH_QUEUE` jobs waiting;
  one more raises :class:`PasswordHasherBusy` before any Argon2 work starts (the API answers
  503 ``busy``). The trusted lane (:data:`TRUSTED_QUEUE` slots, always served first) is for a
  member the server already knows from this browser or address (see ``app/api/auth.py``): a
  flood of guesses fills the open lane, never this one.
* **Unknown login names cost the same time, not the same work.** :func:`pretend_verify` waits
  as long as a real check would take now (the mean hashing time, plus the open lane's queue
  ahead of it) without taking a slot, and answers busy exactly when a real check would: the
  answer's timing does not tell whether the name exists, and names that do not exist never
  queue in front of members.

The synchronous functions stay for command-line tools and start-up code that run before the
loop serves anyone.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import functools
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from app.config import get_settings

ARGON2_LANES = 1
"""Argon2's parallelism: one thread per hash, so :data:`HASH_WORKERS` bounds the cores hashing
takes. Memory and passes are the settings ``PREFCLUB_ARGON2_MEMORY_KIB`` and
``PREFCLUB_ARGON2_TIME_COST`` (the library's 64 MiB and 3 by default, never below OWASP's
least); a hash stored with other parameters still verifies (they are written in it) and is
rewritten at the member's next good login (:func:`verify_and_update_async`)."""


def hasher_for(memory_kib: int, time_cost: int) -> PasswordHash:
    """An Argon2id hasher of one lane at the given cost (the settings check its floor)."""
    return PasswordHash(
        (Argon2Hasher(memory_cost=memory_kib, time_cost=time_cost, parallelism=ARGON2_LANES),)
    )


@functools.cache
def _hasher() -> PasswordHash:
    """The process's hasher, made at its first use from the settings of the environment."""
    settings = get_settings()
    return hasher_for(settings.argon2_memory_kib, settings.argon2_time_cost)


_T = TypeVar("_T")


def default_workers(cores: int | None = None) -> int:
    """Hashing threads for a machine of ``cores`` cores: ``cores - 1``, at least one, at most
    two (a club server needs no more; every further thread is a core the tables lose)."""
    cores = cores if cores is not None else (os.cpu_count() or 1)
    return max(1, min(2, cores - 1))


HASH_WORKERS = default_workers()
"""Threads hashing at once."""
HASH_QUEUE = 16
"""Open-lane jobs that may wait for a thread before new ones are refused as busy."""
TRUSTED_QUEUE = 4
"""Trusted-lane jobs (running or waiting) at once; served before any open-lane job."""
HASH_NICENESS = 10
"""How much lower than the event loop's the hashing threads' CPU priority is."""
MEAN_WEIGHT = 0.2
"""Weight of the newest hashing time in the running mean :func:`pretend_verify` waits for."""


class PasswordHasherBusy(RuntimeError):
    """Every hashing thread is busy and the queue is full; try again shortly."""


class Lane(enum.Enum):
    """Which queue of the :class:`HashPool` a job waits in."""

    OPEN = "open"
    TRUSTED = "trusted"


@dataclass(slots=True)
class _Job:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    lane: Lane
    future: Future[Any] = field(default_factory=Future)


def _lower_priority() -> None:
    """Nice the calling thread (Linux: a thread's own priority; elsewhere maybe the process's,
    which this module never does: the call is skipped where threads are not tasks)."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICENESS)


class HashPool:
    """Argon2 threads behind a bounded, two-lane queue (see the module docstring).

    Admission is counted under a thread lock (not an asyncio primitive), and results come back
    through :class:`concurrent.futures.Future`, so one pool serves any event loop, e.g. the
    per-test loops of the test suite. Threads start on the first job.
    """

    def __init__(
        self, workers: int = HASH_WORKERS, queue: int = HASH_QUEUE, trusted: int = TRUSTED_QUEUE
    ) -> None:
        if workers < 1:
            raise ValueError("need at least one hashing thread")
        self.workers = workers
        self.limit = workers + queue
        """Open-lane jobs running or waiting at most."""
        self.trusted_limit = trusted
        """Trusted-lane jobs running or waiting at most."""
        self.mean_seconds: float | None = None
        """Running mean of one job's hashing time (None until a job ran)."""
        self._cond = threading.Condition()
        self._waiting: dict[Lane, deque[_Job]] = {Lane.OPEN: deque(), Lane.TRUSTED: deque()}
        self._admitted: dict[Lane, int] = {Lane.OPEN: 0, Lane.TRUSTED: 0}
        self._threads: list[threading.Thread] = []
        self.refused = 0
        """Jobs refused with :class:`PasswordHasherBusy` (the ``busy`` answers ``/metrics``
        counts)."""

    @property
    def admitted(self) -> int:
        """Jobs running or waiting right now, in both lanes."""
        return self._admitted[Lane.OPEN] + self._admitted[Lane.TRUSTED]

    def queued(self, lane: Lane = Lane.OPEN) -> int:
        """Jobs of ``lane`` running or waiting right now."""
        return self._admitted[lane]

    def full(self, lane: Lane = Lane.OPEN) -> bool:
        """Whether one more job of ``lane`` would be refused."""
        cap = self.limit if lane is Lane.OPEN else self.trusted_limit
        return self._admitted[lane] >= cap

    def submit(self, fn: Callable[..., _T], *args: object, lane: Lane = Lane.OPEN) -> Future[_T]:
        """Queue ``fn(*args)``; :class:`PasswordHasherBusy` (nothing queued) when ``lane`` is
        full."""
        job = _Job(fn, args, lane)
        with self._cond:
            if self.full(lane):
                self.refused += 1
                raise PasswordHasherBusy("the server is busy checking passwords; try again")
            self._admitted[lane] += 1
            self._waiting[lane].append(job)
            if len(self._threads) < self.workers:
                thread = threading.Thread(target=self._work, name="argon2", daemon=True)
                self._threads.append(thread)
                thread.start()
            self._cond.notify()
        return job.future

    async def run(self, fn: Callable[..., _T], *args: object, lane: Lane = Lane.OPEN) -> _T:
        """Run ``fn(*args)`` in the pool; :class:`PasswordHasherBusy` when ``lane`` is full.
        A caller that is cancelled before its job started takes the job off the queue."""
        result: _T = await asyncio.wrap_future(self.submit(fn, *args, lane=lane))
        return result

    def _next(self) -> _Job:
        with self._cond:
            while not (self._waiting[Lane.TRUSTED] or self._waiting[Lane.OPEN]):
                self._cond.wait()
            trusted = self._waiting[Lane.TRUSTED]
            return trusted.popleft() if trusted else self._waiting[Lane.OPEN].popleft()

    def _work(self) -> None:
        _lower_priority()
        while True:
            job = self._next()
            try:
                if job.future.set_running_or_notify_cancel():
                    started = time.perf_counter()
                    try:
                        result = job.fn(*job.args)
                    except BaseException as exc:
                        job.future.set_exception(exc)
                    else:
                        job.future.set_result(result)
                    self._record(time.perf_counter() - started)
            finally:
                with self._cond:
                    self._admitted[job.lane] -= 1

    def _record(self, seconds: float) -> None:
        mean = self.mean_seconds
        self.mean_seconds = seconds if mean is None else mean + MEAN_WEIGHT * (seconds - mean)

    def expected_wait(self) -> float | None:
        """How long an open-lane check started now would take (its queue, then its hash);
        None before any hash ran."""
        mean = self.mean_seconds
        if mean is None:
            return None
        ahead = max(0, self._admitted[Lane.OPEN] - self.workers + 1)
        return mean * (1 + ahead / self.workers)


POOL = HashPool()


def hash_password(password: str) -> str:
    """An Argon2id hash of ``password`` (blocking: not for the event loop)."""
    return _hasher().hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """Whether ``password`` matches (blocking); a missing hash never matches but costs the same
    time as a real check, so an unknown login cannot be told apart by timing."""
    if not password_hash:
        _hasher().hash(password)  # spend the same time as a real check
        return False
    try:
        return _hasher().verify(password, password_hash)
    except Exception:
        return False


def verify_and_update(password: str, password_hash: str) -> tuple[bool, str | None]:
    """Whether ``password`` matches (blocking), and a new hash of it when the stored one was made
    with other parameters than today's (None otherwise, or when it does not match)."""
    try:
        return _hasher().verify_and_update(password, password_hash)
    except Exception:
        return False, None


async def hash_password_async(password: str) -> str:
    """:func:`hash_password` in the pool's open lane, off the event loop."""
    result: str = await POOL.run(hash_password, password)
    return result


async def verify_password_async(
    password: str, password_hash: str | None, *, trusted: bool = False
) -> bool:
    """Whether ``password`` matches, checked in the pool off the event loop; ``trusted``: in
    the lane a flood cannot fill. A missing hash (an unknown login) is answered by
    :func:`pretend_verify`. The check of :func:`verify_and_update_async`, its rewritten hash
    left to the caller that stores one (the login)."""
    matches, _ = await verify_and_update_async(password, password_hash, trusted=trusted)
    return matches


async def verify_and_update_async(
    password: str, password_hash: str | None, *, trusted: bool = False
) -> tuple[bool, str | None]:
    """:func:`verify_and_update` in the pool (the lanes of :func:`verify_password_async`); an
    unknown login (no hash) is answered by :func:`pretend_verify`."""
    if not password_hash:
        return await pretend_verify(password), None
    lane = Lane.TRUSTED if trusted else Lane.OPEN
    result: tuple[bool, str | None] = await POOL.run(
        verify_and_update, password, password_hash, lane=lane
    )
    return result


async def pretend_verify(password: str) -> bool:
    """False, after as long as a real check would take now and with the same busy answer,
    without hashing (module docstring). Until the pool has timed a hash, the check is real."""
    if POOL.full(Lane.OPEN):
        POOL.refused += 1
        raise PasswordHasherBusy("the server is busy checking passwords; try again")
    wait = POOL.expected_wait()
    if wait is None:
        await POOL.run(verify_password, password, None)
        return False
    await asyncio.sleep(wait)
    return False


ONE_TIME_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Letters and digits without look-alikes (0/O, 1/l/I): read off a screen or a note and typed
without doubt, and never a leading «-» that reads as a dash."""
ONE_TIME_LENGTH = 16
"""Sixteen characters of :data:`ONE_TIME_ALPHABET`: about 93 bits."""


def one_time_password() -> str:
    """A random password to hand over once; the member must change it after logging in."""
    return "".join(secrets.choice(ONE_TIME_ALPHABET) for _ in range(ONE_TIME_LENGTH))
