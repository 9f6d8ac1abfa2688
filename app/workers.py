"""Bounded process pools for CPU-heavy work that must not run on the event loop (DESIGN.md).

A :class:`WorkerPool` wraps a :class:`concurrent.futures.ProcessPoolExecutor` that is started
lazily (the first job spawns the workers, so a server that never needs them never starts them)
and shut down with the app. At most ``max_pending`` jobs may be queued or running; one more is
refused at once with :class:`PoolBusy`, which callers turn into a clear ``busy`` error that
changed nothing — a flood of expensive requests can never queue unbounded work.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


WORKER_NICENESS = 10


def _lower_priority() -> None:
    """Worker initializer: lower the process's CPU priority (where the OS allows it)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)


class PoolBusy(Exception):
    """Every slot of the pool is taken: the job was not started."""


class WorkerPool:
    """A small process pool with a bound on the jobs in flight."""

    def __init__(self, max_workers: int = 2, max_pending: int = 4) -> None:
        if max_workers < 1 or max_pending < max_workers:
            raise ValueError("need max_workers >= 1 and max_pending >= max_workers")
        self.max_workers = max_workers
        self.max_pending = max_pending
        self.pending = 0
        """Jobs queued or running now."""
        self.refused = 0
        """Jobs refused with :class:`PoolBusy` since the pool was made (the ``busy`` answers
        ``/metrics`` counts)."""
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False

    @property
    def started(self) -> bool:
        return self._executor is not None

    def _get_executor(self) -> ProcessPoolExecutor:
        if self._closed:
            raise PoolBusy("the server is shutting down")
        if self._executor is None:
            # "spawn": a fresh interpreter per worker, never a fork of a process that runs an
            # event loop, database connections and threads.
            # Workers run at a lower CPU priority: on a busy machine the event loop process (every
            # table's sockets) gets the CPU first, and a long search waits.
            self._executor = ProcessPoolExecutor(
                max_workers=self.max_workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_lower_priority,
            )
        return self._executor

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process (both must be picklable); PoolBusy when full."""
        if self.pending >= self.max_pending:
            self.refused += 1
            raise PoolBusy(f"{self.pending} jobs are already waiting")
        try:
            executor = self._get_executor()
        except PoolBusy:
            self.refused += 1
            raise
        self.pending += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(executor, functools.partial(fn, *args))
        finally:
            self.pending -= 1

    async def aclose(self) -> None:
        """Stop the workers (queued jobs are cancelled, a running one is waited for in a
        thread, never on the loop); later jobs get PoolBusy."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)


__all__ = ["PoolBusy", "WorkerPool"]
