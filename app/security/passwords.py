"""Password hashing with Argon2 (pwdlib) and one-time password generation.

Argon2 is deliberately slow (~0.1-0.3 s of CPU). Run on the event loop, every login would stall
every table of the process, so the server hashes and verifies only through
:func:`hash_password_async` and :func:`verify_password_async`: they run in a small thread pool
(the Argon2 C code releases the GIL) behind an admission limit. When the pool is running and its
queue is full, they raise :class:`PasswordHasherBusy` at once (the API answers 503 ``busy``)
instead of letting requests pile up. The synchronous functions stay for command-line tools and
start-up code that run before the loop serves anyone.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

_hasher = PasswordHash((Argon2Hasher(),))
_T = TypeVar("_T")

HASH_WORKERS = 2
"""Threads hashing at once (the club server runs on small machines)."""
HASH_QUEUE = 32
"""Hash jobs that may wait for a thread before new ones are refused as busy."""


class PasswordHasherBusy(RuntimeError):
    """Every hashing thread is busy and the queue is full; try again shortly."""


class HashPool:
    """A bounded thread pool for Argon2: at most ``workers`` running plus ``queue`` waiting.

    Admission is counted with a thread lock (not an asyncio primitive) so one pool serves any
    event loop, e.g. the per-test loops of the test suite.
    """

    def __init__(self, workers: int = HASH_WORKERS, queue: int = HASH_QUEUE) -> None:
        self.workers = workers
        self.limit = workers + queue
        self._admitted = 0
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    @property
    def admitted(self) -> int:
        """Jobs running or waiting right now."""
        return self._admitted

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="argon2")
            return self._executor

    async def run(self, fn: Callable[..., _T], *args: object) -> _T:
        """Run ``fn(*args)`` in the pool; :class:`PasswordHasherBusy` when it is full."""
        with self._lock:
            if self._admitted >= self.limit:
                raise PasswordHasherBusy("the server is busy checking passwords; try again")
            self._admitted += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool(), fn, *args)
        finally:
            with self._lock:
                self._admitted -= 1


POOL = HashPool()


def hash_password(password: str) -> str:
    """An Argon2id hash of ``password`` (blocking: not for the event loop)."""
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """Whether ``password`` matches (blocking); a missing hash never matches but costs the same
    time as a real check, so an unknown login cannot be told apart by timing."""
    if not password_hash:
        _hasher.hash(password)  # spend the same time as a real check
        return False
    try:
        return _hasher.verify(password, password_hash)
    except Exception:
        return False


async def hash_password_async(password: str) -> str:
    """:func:`hash_password` in the bounded pool, off the event loop."""
    result: str = await POOL.run(hash_password, password)
    return result


async def verify_password_async(password: str, password_hash: str | None) -> bool:
    """:func:`verify_password` in the bounded pool, off the event loop (unknown logins too)."""
    result: bool = await POOL.run(verify_password, password, password_hash)
    return result


def one_time_password() -> str:
    """A random password to hand over once; the member must change it after logging in."""
    return secrets.token_urlsafe(12)
