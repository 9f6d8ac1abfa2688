"""The lock an ``alone`` test holds on the machine in a parallel run (tests/conftest.py,
docs/testing.md): shared while it sets up, exclusive from ``alone()`` while it measures,
shared once it calls ``share()``; and the garbage collector it holds off meanwhile."""

from __future__ import annotations

import fcntl
import gc
import threading
import time
from pathlib import Path
from typing import IO

from tests.conftest import MachineShare


def _can_take(path: Path, mode: int) -> bool:
    """Whether another worker (another open file) could take ``path``'s lock now."""
    with path.open("a") as other:
        try:
            fcntl.flock(other, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(other, fcntl.LOCK_UN)
        return True


def _held(path: Path, mode: int) -> IO[str]:
    handle = path.open("a")
    fcntl.flock(handle, mode)
    return handle


def test_an_alone_test_takes_the_machine_to_measure_and_shares_it_after(tmp_path: Path) -> None:
    intent_path, run_path = tmp_path / "intent", tmp_path / "run"
    intent, run = intent_path.open("a"), run_path.open("a")
    share = MachineShare.taken(intent, run)  # as every test starts: the run lock shared
    assert _can_take(run_path, fcntl.LOCK_SH)  # its setup runs beside other tests
    share.alone()
    try:
        assert not gc.isenabled()  # no collection pauses the measuring process
        assert not _can_take(intent_path, fcntl.LOCK_SH)  # no other test starts
        assert not _can_take(run_path, fcntl.LOCK_SH)
        share.share()
        assert _can_take(intent_path, fcntl.LOCK_SH)  # other tests run beside the rest of it
        assert _can_take(run_path, fcntl.LOCK_SH)
        assert not _can_take(run_path, fcntl.LOCK_EX)  # another alone test still waits for it
        share.share()  # a second call changes nothing
        assert not _can_take(run_path, fcntl.LOCK_EX)
    finally:
        share.end()
    assert gc.isenabled()
    intent.close()
    run.close()
    assert _can_take(run_path, fcntl.LOCK_EX)


def test_alone_waits_for_a_running_test_and_keeps_new_ones_out(tmp_path: Path) -> None:
    intent_path, run_path = tmp_path / "intent", tmp_path / "run"
    other_run = _held(run_path, fcntl.LOCK_SH)  # the other worker's running test
    intent, run = intent_path.open("a"), run_path.open("a")
    share = MachineShare.taken(intent, run)
    taken = threading.Event()

    def measure() -> None:
        share.alone()
        taken.set()

    waiter = threading.Thread(target=measure)
    waiter.start()
    try:
        assert not taken.wait(0.3)  # the other worker's test is still running
        deadline = time.monotonic() + 5
        while _can_take(intent_path, fcntl.LOCK_SH) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _can_take(intent_path, fcntl.LOCK_SH)  # and no new test may start
        other_run.close()  # that test ends
        assert taken.wait(5)
        assert not _can_take(run_path, fcntl.LOCK_SH)
    finally:
        other_run.close()
        waiter.join(5)
        share.end()
        intent.close()
        run.close()


def test_a_serial_run_holds_only_the_collector() -> None:
    share = MachineShare()
    assert not share.measured
    share.end()
    assert gc.isenabled()  # a test that never measured leaves the collector alone
    share.alone()
    assert share.measured and not gc.isenabled()
    share.share()
    share.end()
    assert gc.isenabled()
